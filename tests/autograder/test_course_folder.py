"""Which course folder ``python -m autograder grade`` uses.

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
"""

from __future__ import annotations

from pathlib import Path

from autograder.__main__ import main
from autograder.course import Course
from tests.autograder.fault_helpers import ASSIGNMENT, one_line_error


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
