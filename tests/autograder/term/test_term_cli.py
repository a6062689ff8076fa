"""The command line's side of the term: a bad course.toml, bad times or an extension for a
stranger is one line and exit 2 before anything is graded or written; the demo keeps to a
course folder of its own."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from autograder import api
from autograder.__main__ import build_parser, main
from tests.autograder.fault_helpers import refusal

GOOD_TOML = """
timezone = "Europe/Berlin"
[assignments.01_hyperplanes]
due = 2025-10-03T23:59:00
"""


@pytest.fixture
def submissions(tmp_path) -> Path:
    folder = tmp_path / "class" / "alice" / "01_hyperplanes"
    folder.mkdir(parents=True)
    (folder / "01_hyperplanes.ipynb").write_text("{}")
    return tmp_path / "class"


def _grade(tmp_path, submissions, *extra):
    args = ["grade", str(submissions), "--course", str(tmp_path / "course")]
    return main([*args, "--out", str(tmp_path / "out"), "--unsandboxed", *extra])


def _nothing_written(tmp_path) -> bool:
    course = tmp_path / "course"
    written = [p.name for p in course.rglob("*")] if course.exists() else []
    return not (tmp_path / "out").exists() and written in ([], ["course.toml"])


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[assignments.01_hyperplanes\ndue = 1", "course.toml: not valid TOML"),
        ("[assignments.01_hyperplanes]\ndue = 2025-10-03T23:59:00", "has no time zone"),
        ("[assignments.02_nothing]\ndue = 2025-10-03T23:59:00Z", "unknown key '02_nothing'"),
        (
            GOOD_TOML + '[[extensions]]\nstudent = "bob"\nassignment = "01_hyperplanes"\n'
            'due = "+1 day"',
            "unknown student 'bob'",
        ),
    ],
)
def test_a_bad_course_toml_is_one_line_and_exit_2(tmp_path, submissions, capsys, toml, message):
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "course.toml").write_text(toml)
    assert _grade(tmp_path, submissions) == 2
    assert message in refusal(capsys.readouterr().err)
    assert _nothing_written(tmp_path)


@pytest.mark.parametrize(
    ("times", "message"),
    [
        (
            "student_id,timestamp\nalice,2025-10-03 23:59\n",
            "times.csv: line 2: '2025-10-03 23:59' has no time zone",
        ),
        ("student_id,timestamp\nalice,tomorrow\n", "times.csv: line 2: 'tomorrow' is not a time"),
        ("id,when\nalice,2025-10-03T23:59Z\n", "times.csv: neither a Moodle grading worksheet"),
    ],
)
def test_bad_times_are_one_line_and_exit_2(tmp_path, submissions, capsys, times, message):
    path = tmp_path / "times.csv"
    path.write_text(times)
    assert _grade(tmp_path, submissions, "--times", str(path)) == 2
    assert message in refusal(capsys.readouterr().err)
    assert _nothing_written(tmp_path)


def test_a_named_calendar_that_is_missing_is_one_line(tmp_path, submissions, capsys):
    assert _grade(tmp_path, submissions, "--calendar", str(tmp_path / "term.toml")) == 2
    assert "term.toml: no such file" in capsys.readouterr().err
    assert _nothing_written(tmp_path)


def test_the_demo_keeps_to_a_course_folder_of_its_own():
    args = build_parser().parse_args(["demo"])
    assert args.course == Path("demo/course") and args.out == Path("demo/grading-out")
    grade = build_parser().parse_args(["grade", "x"])
    assert grade.course == Path("course") and args.course != grade.course
    default = inspect.signature(api.run_demo).parameters["options"].default
    assert (default.course_dir, default.out_dir) == (api.DEMO_COURSE_DIR, api.DEMO_OUT_DIR)
    assert api.DEMO_COURSE_DIR == args.course and api.DEMO_OUT_DIR == args.out
