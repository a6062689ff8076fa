"""Which course folder ``python -m autograder grade`` uses, and the course.toml ``release``
writes beside a new course.

The instructor's real class lives in ``ml/course/`` (built by the grader, with its
course.toml); the submissions were unpacked into ``ml/subs/``. Graded from there without
``--course``, the grader would build a new ``ml/subs/course/`` and grade without the term
the instructor wrote (a late penalty and a no-submission row lost): it refuses instead, one
line naming the existing folder and ``--course``, exit 2, nothing built. Every run says on
stderr, first, which course folder it uses.

The rule (``autograder.api.grading_course``): the default course folder, not built yet, is
refused when a course folder the grader built lies around the submissions or the current
folder — they are inside it, sit beside it, or hold it. A course folder named with
``--course`` is used as named.

The story at the end, through the command line: ``release`` writes the course.toml
template (kept on a second release), ``grade`` reads it unchanged as "no due dates yet",
and once the instructor has filled it in, the same class has its late penalty and its
no-submission row, from the folder the submissions are in.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.course import Course
from tests.autograder.fault_helpers import (
    ASSIGNMENT,
    grade_rows,
    one_line_error,
    run_cli,
    sample_class,
)


def _built(folder: Path, calendar: str | None = "timezone = 'UTC'\n") -> Path:
    """A course folder the grader built (its source copied, its record written), with a
    course.toml unless ``calendar`` is None."""
    Course(folder).make([ASSIGNMENT])
    if calendar is not None:
        (folder / "course.toml").write_text(calendar, encoding="utf-8")
    return folder


def _submissions(folder: Path) -> Path:
    notebook = folder / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text("{}", encoding="utf-8")
    return folder


def _refused(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    return one_line_error(capsys.readouterr().err)


def test_grading_beside_the_class_course_is_refused(tmp_path, monkeypatch, capsys):
    ml = tmp_path / "ml"
    _built(ml / "course")
    subs = _submissions(ml / "subs")
    monkeypatch.chdir(subs)
    line = _refused(capsys, ["grade", "."])
    assert line == (
        "python -m autograder: error: refusing to build a new course folder course/: the "
        "submissions sit beside the course folder ../course/ of an existing class (with its "
        "course.toml); give --course ../course to grade into it (or --course with a new "
        "folder's name to start another)"
    )
    assert not (subs / "course").exists()  # nothing built
    # from another folder beside it, the submissions named by their path: this folder
    # is beside the class's course too
    elsewhere = ml / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    line = _refused(capsys, ["grade", str(tmp_path / "ml" / "subs")])
    assert "the submissions sit beside the course folder ../course/" in line
    assert not (elsewhere / "course").exists()


def test_grading_inside_the_class_course_is_refused(tmp_path, monkeypatch, capsys):
    course = _built(tmp_path / "ml" / "course", calendar=None)
    _submissions(course / "submitted")
    monkeypatch.chdir(course / "submitted")
    line = _refused(capsys, ["grade", "."])
    assert "the submissions are inside the course folder ../ of an existing class;" in line
    assert "give --course .. to grade into it" in line
    # a zip of them in the course folder: the same
    (course / "canvas.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    monkeypatch.chdir(tmp_path)
    line = _refused(capsys, ["grade", "ml/course/canvas.zip"])
    assert "the submissions are inside the course folder ml/course/" in line
    assert not (tmp_path / "course").exists()


def test_a_folder_holding_a_class_course_under_another_name_is_refused(
    tmp_path, monkeypatch, capsys
):
    _built(tmp_path / "course-2025")
    subs = _submissions(tmp_path / "downloads" / "subs")
    monkeypatch.chdir(tmp_path)
    line = _refused(capsys, ["grade", str(subs)])
    assert "this folder holds the course folder course-2025/ of an existing class" in line
    assert "give --course course-2025 to grade into it" in line
    assert not (tmp_path / "course").exists()


def test_the_course_folder_used_is_said_first(tmp_path, monkeypatch, capsys):
    ml = tmp_path / "ml"
    _built(ml / "course")
    _submissions(ml / "subs")
    monkeypatch.chdir(ml)
    # the class's own course folder, the default here: used, and said so; the run then
    # stops at an unknown assignment (one line, exit 2), before anything is graded
    assert main(["grade", "subs", "--assignment", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "course folder: course/ (existing)"
    assert "unknown assignment 'nope'" in one_line_error(err)
    # a new course folder named on purpose, beside the class's: used as named
    monkeypatch.chdir(ml / "subs")
    assert main(["grade", ".", "--course", "fresh", "--assignment", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "course folder: fresh/ (new)"
    assert "unknown assignment" in one_line_error(err)
    # nothing of any class around: a new course folder, the default, said so
    alone = _submissions(tmp_path / "alone")
    monkeypatch.chdir(alone)
    assert main(["grade", ".", "--assignment", "nope"]) == 2
    assert capsys.readouterr().err.splitlines()[0] == "course folder: course/ (new)"


def _filled_in(template: str) -> str:
    """course.toml as the instructor fills in the template: the time zone, the class list,
    a late rule and the assignment's due date, each line taken in and set."""
    text = template.replace('# timezone = "Europe/Berlin"', 'timezone = "Europe/Berlin"')
    text = re.sub(
        r"^# students = \[.*?\]",
        'students = ["full", "forgets_bias", "tie", "absent"]',
        text,
        flags=re.MULTILINE,
    )
    text = text.replace("# [late]", "[late]").replace('# rule = "per-day"', 'rule = "per-day"')
    text = text.replace("# percent = 10", "percent = 10")
    section = f"[assignments.{ASSIGNMENT}]\n# due = 2025-10-03T23:59:00"
    assert section in text
    return text.replace(section, f"[assignments.{ASSIGNMENT}]\ndue = 2025-10-03T23:59:00")


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_release_writes_the_calendar_and_grade_finds_the_class(tmp_path):
    sample = sample_class(tmp_path / "work")
    ml = tmp_path / "ml"
    ml.mkdir()
    subs = ml / "subs"
    sample.folder.rename(subs)
    # tie handed in a day and a half late (nbgrader's timestamp.txt, in UTC)
    for student, stamp in (
        ("full", "2025-10-03 20:00:00"),
        ("forgets_bias", "2025-10-03 21:00:00"),
        ("tie", "2025-10-05 08:00:00"),
    ):
        (subs / student / ASSIGNMENT / "timestamp.txt").write_text(f"{stamp}.000000 UTC\n")

    released = run_cli("release", "--assignment", ASSIGNMENT, cwd=ml)
    assert released.returncode == 0, released.stderr[-3000:]
    calendar = ml / "course" / "course.toml"
    assert "course/course.toml: written: a template of due dates and late rules" in released.stdout
    template = calendar.read_text(encoding="utf-8")
    assert f"[assignments.{ASSIGNMENT}]" in template and "# due = " in template
    for other in ("02_perceptron_update", "07_losses_dual_kernels"):  # every assignment
        assert f"[assignments.{other}]" in template

    # from the submissions' folder, no --course: refused, nothing built there
    refused = run_cli("grade", ".", cwd=subs)
    assert refused.returncode == 2
    line = one_line_error(refused.stderr)
    assert "the submissions sit beside the course folder ../course/" in line
    assert "give --course ../course" in line and not (subs / "course").exists()

    # the template as released: graded, no due dates yet, nothing late
    first = run_cli("grade", ".", "--course", "../course", "--out", "../out", cwd=subs)
    assert first.returncode == 0, first.stderr[-3000:]
    assert first.stderr.splitlines()[0] == "course folder: ../course/ (existing)"
    rows = grade_rows(ml / "out")
    assert rows["tie"]["late_submission_penalty"] == "0.0" and rows["tie"]["duedate"] == ""
    summary = (ml / "out" / "summary.md").read_text(encoding="utf-8")
    assert f"#### {ASSIGNMENT}: no due date yet (course.toml sets none)" in summary

    # filled in by the instructor: the same class again (nothing graded twice), now with
    # its late penalty and the student who handed nothing in
    calendar.write_text(_filled_in(template), encoding="utf-8")
    again = run_cli("grade", ".", "--course", "../course", "--out", "../out", cwd=subs)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "reused 3 recorded result(s)" in again.stdout
    rows = grade_rows(ml / "out")
    tie = rows["tie"]
    assert tie["duedate"] == "2025-10-03T23:59:00+02:00"
    assert tie["timestamp"] == "2025-10-05T10:00:00+02:00"
    assert float(tie["late_submission_penalty"]) > 0 and "late by 1 day 10 h 1 min" in tie["flags"]
    assert rows["full"]["late_submission_penalty"] == "0.0"
    assert rows["absent"]["flags"] == "no submission"
    page = ml / "out" / "feedback" / "tie" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert "Handed in: 2025-10-05 10:00 +02:00 CEST, 1 day 10 h 1 min late" in page.read_text()

    # released again: the instructor's calendar is kept as it is
    filled = calendar.read_text(encoding="utf-8")
    second = run_cli("release", "--assignment", ASSIGNMENT, cwd=ml)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "course/course.toml: the course's calendar, kept as it is" in second.stdout
    assert calendar.read_text(encoding="utf-8") == filled
