"""Reading submissions (autograder.intake.read, .layouts): nbgrader folders and zips, Canvas
and Moodle zips, hostile zip member names, unreadable paths.

No grading here (fast); the end-to-end runs are in tests/autograder/test_api.py.
"""

from __future__ import annotations

import zipfile

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.intake import prepare, read_submissions
from autograder.intake.layouts import MAX_NAME
from autograder.models import SubmissionsError
from autograder.notebook import notebook_bytes

NB = notebook_bytes(new_notebook(cells=[new_code_cell("x = 1")]))


def _zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def _write(path, content: bytes):
    path.write_bytes(content)
    return path


def test_nbgrader_folder(tmp_path):
    for student in ("alice", "bob"):
        folder = tmp_path / student / "01_hyperplanes"
        folder.mkdir(parents=True)
        (folder / "01_hyperplanes.ipynb").write_bytes(NB)
    (tmp_path / "bob" / "02_perceptron_update").mkdir()
    (tmp_path / "bob" / "02_perceptron_update" / "02_perceptron_update.ipynb").write_bytes(NB)
    (tmp_path / "alice" / "01_hyperplanes" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "alice" / "01_hyperplanes" / ".ipynb_checkpoints" / "x.ipynb").write_bytes(NB)
    raws = read_submissions(tmp_path)
    assert [(r.assignment, r.student, sorted(r.files)) for r in raws] == [
        ("01_hyperplanes", "alice", ["01_hyperplanes.ipynb"]),
        ("01_hyperplanes", "bob", ["01_hyperplanes.ipynb"]),
        ("02_perceptron_update", "bob", ["02_perceptron_update.ipynb"]),
    ]
    only = read_submissions(tmp_path, assignment="02_perceptron_update")
    assert [(r.assignment, r.student) for r in only] == [("02_perceptron_update", "bob")]


def test_a_folder_of_another_assignment_names_what_it_holds(tmp_path):
    """--assignment X on a folder of Y's submissions: the folders' assignments named, as the
    zip's path names what its notebooks look like (issue 41)."""
    for student in ("alice", "bob"):
        folder = tmp_path / "class" / student / "ps2"
        folder.mkdir(parents=True)
        (folder / "problem1.ipynb").write_bytes(NB)
    with pytest.raises(SubmissionsError) as caught:
        read_submissions(tmp_path / "class", assignment="ps1")
    assert str(caught.value) == (
        "no submission of ps1 in class: its folders are of 'ps2' (<student>/<assignment>/); "
        "check --assignment"
    )


def test_nbgrader_zip_with_wrapping_folder(tmp_path):
    archive = _zip(
        tmp_path / "class.zip",
        {
            "export/alice/01_hyperplanes/01_hyperplanes.ipynb": NB,
            "export/bob/01_hyperplanes/01_hyperplanes.ipynb": NB,
        },
    )
    raws = read_submissions(archive)
    assert [(r.student, r.assignment) for r in raws] == [
        ("alice", "01_hyperplanes"),
        ("bob", "01_hyperplanes"),
    ]


def test_canvas_zip(tmp_path):
    archive = _zip(
        tmp_path / "submissions.zip",
        {
            "doejane_12345_678901_01_hyperplanes.ipynb": NB,
            "smithjohn_LATE_23456_678902_01_hyperplanes-1.ipynb": NB,
            "smithjohn_LATE_23456_678903_notes.txt": b"hello",
        },
    )
    raws = read_submissions(archive, assignment="01_hyperplanes")
    assert [(r.student, sorted(r.files)) for r in raws] == [
        ("12345", ["01_hyperplanes.ipynb"]),
        ("23456", ["01_hyperplanes-1.ipynb", "notes.txt"]),
    ]
    assert all(r.assignment == "01_hyperplanes" for r in raws)
    assert any("late" in f for f in raws[1].flags)
    prepared = prepare(raws[1], "01_hyperplanes", ["01_hyperplanes"])
    assert list(prepared.notebooks) == ["01_hyperplanes.ipynb"]
    assert any("renamed" in f for f in prepared.flags)
    assert any("extra file 'notes.txt' ignored" in f for f in prepared.flags)


def test_moodle_zip_folders_and_flat(tmp_path):
    archive = _zip(
        tmp_path / "moodle.zip",
        {
            "Jane Doe_4711_assignsubmission_file_/01_hyperplanes.ipynb": NB,
            "John Smith_4712_assignsubmission_file_/Copy of 01_hyperplanes.ipynb": NB,
            "John Smith_4712_assignsubmission_onlinetext_/onlinetext.html": b"<p>hi</p>",
        },
    )
    raws = read_submissions(archive, assignment="01_hyperplanes")
    assert [(r.student, sorted(r.files)) for r in raws] == [
        ("4711", ["01_hyperplanes.ipynb"]),
        ("4712", ["Copy of 01_hyperplanes.ipynb"]),
    ]
    flat = _zip(
        tmp_path / "old.zip", {"Jane Doe_4711_assignsubmission_file_01_hyperplanes.ipynb": NB}
    )
    assert read_submissions(flat, assignment="01_hyperplanes")[0].files == {
        "01_hyperplanes.ipynb": NB
    }


def test_lms_zips_keep_the_students_names_printable(tmp_path):
    """Issue 41: the name before the id of a Canvas file, and before the participant id of a
    Moodle folder, is the student's; hostile data, it is kept printable and short."""
    canvas = _zip(
        tmp_path / "canvas.zip",
        {
            "doeanna_12345_678901_01_hyperplanes.ipynb": NB,
            "ev\x1b[31mil\n\u202ename_12346_678902_01_hyperplanes.ipynb": NB,
            "=cmd|' -C calc'!A0_12347_678903_01_hyperplanes.ipynb": NB,
            "x" * 300 + "_12348_678904_01_hyperplanes.ipynb": NB,
        },
    )
    raws = read_submissions(canvas, assignment="01_hyperplanes")
    assert [(r.student, r.name) for r in raws] == [
        ("12345", "doeanna"),
        ("12346", "ev [31mil name"),
        ("12347", "cmd|' -C calc'!A0"),
        ("12348", "x" * MAX_NAME),
    ]
    assert prepare(raws[0], "01_hyperplanes", ["01_hyperplanes"]).name == "doeanna"
    moodle = _zip(tmp_path / "moodle.zip", {"Jane Doe_4711_assignsubmission_file_/a.ipynb": NB})
    assert [(r.student, r.name) for r in read_submissions(moodle)] == [("4711", "Jane Doe")]


def test_zip_member_names_cannot_escape(tmp_path):
    archive = _zip(
        tmp_path / "evil.zip",
        {"../../alice/01_hyperplanes/01_hyperplanes.ipynb": NB, "/abs/x/y/z.ipynb": NB},
    )
    raws = read_submissions(archive)
    assert {r.student for r in raws} == {"alice", "abs"}
    assert not (tmp_path.parent / "alice").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing", "no such file or folder"),
        (lambda p: _write(p / "not.zip", b"junk"), "not a readable zip"),
        (lambda p: _zip(p / "odd.zip", {"readme.txt": b"x"}), "cannot tell the layout"),
    ],
)
def test_unreadable_submissions_raise_one_clear_error(tmp_path, make, message):
    with pytest.raises(SubmissionsError, match=message):
        read_submissions(make(tmp_path))


def test_canvas_same_file_twice_keeps_the_later_upload(tmp_path):
    later = NB + b" "
    archive = _zip(
        tmp_path / "c.zip",
        {
            "doejane_12345_700002_01_hyperplanes.ipynb": later,
            "doejane_12345_700001_01_hyperplanes.ipynb": NB,
            "doejane_12345_700000_01_hyperplanes.ipynb": NB,
        },
    )
    (raw,) = read_submissions(archive, assignment="01_hyperplanes")
    assert raw.files == {"01_hyperplanes.ipynb": later}
    assert raw.flags == [
        "file '01_hyperplanes.ipynb' handed in more than once; the latest upload is used"
    ]
