"""Hostile archives around honest submissions, graded through the command line: a zip bomb
and a member lying about its size, thousands of junk entries, names that are not UTF-8,
Canvas re-uploads, students' names that are no names (kept, safely). Each batch asserts
that nothing oversized comes out and that every honest student of the batch keeps a full,
readable row in grades.csv (full = the points of the source notebook's autograded tests).

The zips are generated here. Intake is what is tested, not the sandbox: the batches are
graded ``--unsandboxed`` (the honest notebooks still have to earn their full points).
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.course import Course, list_assignments
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import make_submission
from benchmarks.intake_bomb import BOUND_MIB, measure, write_bomb_zip
from tests.autograder.fault_helpers import refusal, run_cli
from tests.autograder.intake.zips import write_zip, write_zip_with_invalid_utf8_names

A = "01_hyperplanes"
pytestmark = pytest.mark.skipif(A not in list_assignments(), reason=f"no {A} notebook")
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The released course, an honest (full) and a blank notebook, the full points."""
    course_dir = tmp_path_factory.mktemp("hostile-intake") / "course"
    ensure_released(Course(course_dir), [A])
    source = nbformat.read(course_dir / "source" / A / f"{A}.ipynb", as_version=4)
    release_nb = course_dir / "release" / A / f"{A}.ipynb"
    full = notebook_bytes(make_submission(release_nb, source))
    points = sum(
        float(cell.metadata["nbgrader"]["points"])
        for cell in source.cells
        if cell.metadata.get("nbgrader", {}).get("grade")
        and not cell.metadata["nbgrader"].get("solution")
    )
    assert points > 0
    return course_dir, full, release_nb.read_bytes(), points


def _canvas(user: int, file: str, upload: int | None = None) -> str:
    return f"student{user}_{user}_{upload or 9000 + user}_{file}"


def _grade(course_dir: Path, submissions: Path, out: Path, *extra: str) -> int:
    args = ["grade", str(submissions), "--course", str(course_dir), "--out", str(out)]
    args += ["--assignment", A, "--unsandboxed", "--no-feedback", "--no-progress", *extra]
    return main(args)


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "grades.csv").open(newline="", encoding="utf-8") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


def _assert_full(rows: dict[str, dict[str, str]], students, points: float) -> None:
    for student in students:
        assert float(rows[student]["score"]) == pytest.approx(points), (student, rows[student])
        assert float(rows[student]["max_score"]) == pytest.approx(points)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_zip_bomb_and_a_lying_member_next_to_honest_students(course, tmp_path, capsys):
    """Zip bombs (one as a student's notebook, one beside an honest notebook), a member
    whose headers lie about its size, and a file over --max-file-mb, next to honest
    students: each skipped and flagged, nothing big read or written.

    Switched off: without the compression-ratio check the bombs are skipped for their size
    instead (no "zip bomb" flag); without the one-file bound 669's file is read (and only
    ignored as an extra file) and the liar's 256 MiB are read into memory.
    """
    course_dir, full, _, points = course
    honest = {_canvas(101, f"{A}.ipynb"): full, _canvas(102, f"{A}.ipynb"): full}
    honest[_canvas(668, f"{A}.ipynb")] = full  # honest notebook, and a bomb beside it
    honest[_canvas(669, f"{A}.ipynb")] = full  # honest notebook, and a big file beside it
    honest[_canvas(669, "data.bin")] = os.urandom(2 * MIB)  # incompressible: no bomb
    archive = write_bomb_zip(
        tmp_path / "bomb.zip",
        honest,
        bombs=[_canvas(666, f"{A}.ipynb"), _canvas(668, "data.bin")],
        liar=_canvas(667, f"{A}.ipynb"),
        bomb_bytes=256 * MIB,  # over every limit, and over the memory bound if it were held
    )
    assert archive.stat().st_size < 5 * MIB

    out = tmp_path / "out"
    status = _grade(course_dir, archive, out, "--max-file-mb", "1")
    assert status == 0, capsys.readouterr().err
    rows = _rows(out)
    _assert_full(rows, ["101", "102", "668", "669"], points)
    assert "data.bin' is 2 MiB, over the 1 MiB limit for one file" in rows["669"]["flags"]
    assert float(rows["666"]["score"]) == 0 and "zip bomb" in rows["666"]["flags"]
    assert "missing" in rows["666"]["flags"]
    assert float(rows["667"]["score"]) == 0 and "could not be read" in rows["667"]["flags"]
    assert "zip bomb" in rows["668"]["flags"] and "data.bin" in rows["668"]["flags"]
    # nothing oversized is held (intake alone, default limits, in a fresh process) ...
    memory = measure(archive, A)
    assert memory["above_baseline_mib"] < BOUND_MIB, memory
    assert "zip bomb" in " ".join(memory["students"]["666"]["flags"])
    # ... or comes out: the outputs and the course's copies stay small
    assert _size(out) < MIB
    assert _size(course_dir / "submitted") < 10 * MIB


@pytest.mark.slow
def test_memory_meter_sees_what_is_held(tmp_path):
    """The meter of the bomb test is not blind: an honest 40 MiB file read shows up."""
    archive = write_zip(tmp_path / "big.zip", {_canvas(1, "big.bin"): os.urandom(40 * MIB)})
    assert measure(archive, A)["above_baseline_mib"] >= 35


@pytest.mark.slow
def test_thousands_of_junk_entries(course, tmp_path, capsys):
    course_dir, full, _, points = course
    members = {_canvas(101, f"{A}.ipynb"): full, _canvas(102, f"{A}.ipynb"): full}
    members[_canvas(666, f"{A}.ipynb")] = full
    members |= {_canvas(666, f"junk{i:04d}.txt", 20000 + i): b"=1+1" for i in range(4000)}
    archive = write_zip(tmp_path / "junk.zip", members)
    out = tmp_path / "out"
    assert _grade(course_dir, archive, out) == 0, capsys.readouterr().err
    rows = _rows(out)
    _assert_full(rows, ["101", "102", "666"], points)
    flags = rows["666"]["flags"]
    assert flags.startswith("extra files ignored: 4,000 (first: 'junk0000.txt'"), flags
    assert len(flags) < 200
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    text = json.dumps(results)
    assert text.count("junk") <= 3 and len(text) < 100_000


def test_an_archive_over_the_entry_or_total_limit_is_refused_with_one_line(tmp_path, capsys):
    """Over --max-files or --max-total-mb: refused with one line, exit 2, nothing written.

    Switched off: without the entry count or without the total, the zip is read and its
    notebooks graded (exit 0, an output folder).
    """
    course_dir = tmp_path / "course"  # refused before the course is released
    many = write_zip(tmp_path / "many.zip", {_canvas(i, f"{A}.ipynb"): b"{}" for i in range(30)})
    assert _grade(course_dir, many, tmp_path / "out", "--max-files", "20") == 2
    line = refusal(capsys.readouterr().err)
    assert "30 entries, over the limit of 20 (--max-files)" in line
    big = {_canvas(i, f"{A}.ipynb"): os.urandom(300_000) for i in range(4)}
    big_zip = write_zip(tmp_path / "big.zip", big)
    assert _grade(course_dir, big_zip, tmp_path / "out", "--max-total-mb", "1") == 2
    line = refusal(capsys.readouterr().err)
    assert "add up to more than 1 MiB" in line and "--max-total-mb" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_names_that_are_not_utf8(course, tmp_path, capsys):
    course_dir, full, _, points = course
    archive = write_zip_with_invalid_utf8_names(
        tmp_path / "names.zip",
        {
            _canvas(101, f"{A}.ipynb"): full,
            _canvas(103, f"{A} (é).ipynb"): full,
            _canvas(103, "notes é.txt"): b"x",
        },
    )
    out = tmp_path / "out"
    assert _grade(course_dir, archive, out) == 0, capsys.readouterr().err
    rows = _rows(out)
    _assert_full(rows, ["101", "103"], points)
    assert rows["103"]["flags"].count("not valid UTF-8, read as cp437") == 2

    for student in (b"alice", b"j\xf6rg"):
        folder = os.path.join(os.fsencode(tmp_path / "class"), student, A.encode())
        os.makedirs(folder)
        with open(os.path.join(folder, f"{A}.ipynb".encode()), "wb") as fh:
            fh.write(full)
    out = tmp_path / "out-folder"
    assert _grade(course_dir, tmp_path / "class", out) == 0, capsys.readouterr().err
    rows = _rows(out)
    student = "j" + b"\xf6".decode("cp437") + "rg"
    _assert_full(rows, ["alice", student], points)
    assert "not valid UTF-8" in rows[student]["flags"]


@pytest.mark.slow
def test_canvas_reuploads_grade_the_latest(course, tmp_path, capsys):
    course_dir, full, blank, points = course
    archive = write_zip(
        tmp_path / "reuploads.zip",
        {
            _canvas(101, f"{A}.ipynb"): full,
            _canvas(104, f"{A}.ipynb", 9100): blank,
            _canvas(104, f"{A}-1.ipynb", 9101): blank,
            _canvas(104, f"{A}-2.ipynb", 9102): full,
            _canvas(105, f"{A}-9.ipynb", 9200): blank,
            _canvas(105, f"{A}-10.ipynb", 9201): full,
        },
    )
    out = tmp_path / "out"
    assert _grade(course_dir, archive, out) == 0, capsys.readouterr().err
    rows = _rows(out)
    _assert_full(rows, ["101", "104", "105"], points)
    assert (
        f"older upload '{A}.ipynb' ignored (graded the latest, '{A}-2.ipynb')"
        in (rows["104"]["flags"])
    )
    assert f"older upload '{A}-9.ipynb' ignored" in rows["105"]["flags"]


@pytest.mark.slow
def test_canvas_names_are_kept_and_hostile_ones_stay_safe(course, tmp_path):
    """Issue 41: the name before a Canvas file's user id is the student's: grades.csv's
    ``last_name`` and the feedback folder (``<id>-<name>``, so a page can be sent without a
    look-up) say it. A name is hostile data: path separators (a zip's ``\\`` is a folder:
    the name is what follows it), control characters, a formula, 300 characters — kept
    printable and short, each student's folder one safe component under feedback/, every
    honest notebook still graded full. Through ``python -m autograder grade``."""
    course_dir, full, _, points = course
    names = {
        "12345": "doeanna",
        "12346": "..\\..\\..\\tmp\\evil",
        "12347": "ev\x1b[31mil\n\u202ename\x07",
        "12348": "x" * 300,
        "12349": '=HYPERLINK("http:..evil")',
        "12350": "...",
    }
    members = {f"{name}_{user}_9{user}_{A}.ipynb": full for user, name in names.items()}
    archive = write_zip(tmp_path / "canvas.zip", members)
    out = tmp_path / "out"
    run = run_cli(
        "grade", archive, "--assignment", A, "--course", course_dir, "--out", out,
        "--unsandboxed", "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout and "\u202e" not in run.stdout
    rows = _rows(out)
    _assert_full(rows, names, points)
    assert {s: rows[s]["last_name"] for s in names} == {
        "12345": "doeanna",
        "12346": "evil",
        "12347": "ev [31mil name",
        "12348": "x" * 64,
        "12349": 'HYPERLINK("http:..evil")',  # no formula
        "12350": "...",
    }
    feedback = out / "feedback"
    folders = sorted(p.name for p in feedback.iterdir() if p.name != "_mathjax")
    assert folders == [
        "12345-doeanna",
        "12346-evil",
        "12347-ev-31mil-name",
        "12348-" + "x" * 32,
        "12349-HYPERLINK-http-evil",
        "12350",
    ]
    pages = sorted(str(p.relative_to(feedback)) for p in feedback.glob("[0-9]*/**/*.html"))
    assert pages == [f"{folder}/{A}/{A}.html" for folder in folders]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["canvas.zip", "out"]
    with Course(course_dir).gradebook() as gb:  # the gradebook keeps the same names
        kept = {s.id: s.last_name for s in gb.students if s.id in names}
    assert kept == {s: rows[s]["last_name"] for s in names}
