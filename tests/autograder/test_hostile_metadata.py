"""Hostile nbgrader metadata, notebooks of another assignment or course, and a wrong
``--assignment``, each graded next to an honest student.

The course's lightest notebook is released once per module. Metadata is nbgrader's
business, not the sandbox's, so the batches are graded without the sandbox (the pre-warmed
fast path); the full points an honest answer must get are read from the released source.
"""

from __future__ import annotations

import copy
import csv
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import MissingEntry

from autograder.__main__ import main
from autograder.course import Course, origin
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import make_submission
from tests.autograder.fault_helpers import refusal
from tests.autograder.grading_helpers import grade_notebooks

TARGET = "04_naive_bayes_linear"  # the lightest notebook: graded most often here
OTHER = "01_hyperplanes"
HAVE = all((origin.NOTEBOOKS_DIR / a / f"{a}.ipynb").is_file() for a in (TARGET, OTHER))
pytestmark = pytest.mark.skipif(not HAVE, reason="course notebooks missing")


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    root = tmp_path_factory.mktemp("metadata")
    course = Course(root / "course")
    ensure_released(course, [TARGET])
    source = nbformat.read(course.root / "source" / TARGET / f"{TARGET}.ipynb", as_version=4)
    release = course.root / "release" / TARGET / f"{TARGET}.ipynb"
    full = sum(
        float(c.metadata.nbgrader["points"])
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata.nbgrader.get("solution")
    )
    return root, course, make_submission(release, source), full


def _meta(nb, grade_id):
    return next(
        c.metadata.nbgrader
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


def _ids(nb, **kind):
    return [
        c.metadata.nbgrader["grade_id"]
        for c in nb.cells
        if "nbgrader" in c.metadata
        and all(bool(c.metadata.nbgrader.get(k)) == v for k, v in kind.items())
    ]


def _edits(nb):
    """edit name -> (how it changes a notebook, a word its flag must contain)."""
    test = _ids(nb, grade=True, solution=False)[0]
    answer = _ids(nb, solution=True)[0]
    return {
        "points_raised": (lambda m: _meta(m, test).update(points=100), "points changed"),
        "test_renamed": (lambda m: _meta(m, test).update(grade_id="mine"), "mine"),
        "answer_renamed": (lambda m: _meta(m, answer).update(grade_id="mine"), "mine"),
        "test_made_solution": (lambda m: _meta(m, test).update(solution=True), "cell kind"),
        "test_grade_false": (lambda m: _meta(m, test).update(grade=False), "cell kind"),
        "test_made_task": (lambda m: _meta(m, test).update(task=True), "cell kind"),
        "checksum": (lambda m: _meta(m, answer).update(checksum="0" * 32), "checksum changed"),
        # a test cell as released but for its checksum: the metadata of another release
        "test_checksum": (
            lambda m: _meta(m, test).update(checksum="0" * 32),
            "are not this release's",
        ),
        "points_removed": (lambda m: _meta(m, test).pop("points"), "points changed"),
        "answer_made_test": (
            lambda m: _meta(m, answer).update(grade=True, points=50, locked=True),
            "cell kind",
        ),
    }


def _foreign(nb):
    """A notebook of another course: the same shape, grade ids of its own."""
    other = copy.deepcopy(nb)
    for cell in other.cells:
        if "nbgrader" in cell.metadata:
            cell.metadata.nbgrader["grade_id"] = "othercourse_" + cell.metadata.nbgrader["grade_id"]
    return other


@pytest.mark.slow
def test_each_metadata_edit_is_repaired_and_flagged(released):
    _, course, answer, full = released
    edits = _edits(answer)
    unlocked = copy.deepcopy(answer)
    for grade_id in _ids(unlocked, grade=True, solution=False):
        _meta(unlocked, grade_id).update(locked=False)  # nbgrader locks a test cell anyway
    submissions = {
        "honest": {TARGET: answer},
        "other_course": {TARGET: _foreign(answer)},
        "unlocked": {TARGET: unlocked},
    }
    for name, (edit, _) in edits.items():
        nb = copy.deepcopy(answer)
        edit(nb)
        submissions[name] = {TARGET: nb}
    results = grade_notebooks(course.root, TARGET, submissions, sandbox=False)

    assert results["honest"].ok and results["honest"].flags == []
    assert results["honest"].autograded_score == pytest.approx(full)
    # test cells flagged unlocked, as nbgrader's documentation course releases them: nbgrader
    # reads them as locked, nothing changed, nothing flagged
    assert results["unlocked"].flags == []
    assert results["unlocked"].autograded_score == pytest.approx(full)
    for name, (_, word) in edits.items():
        result = results[name]
        # the correct answer keeps the source's full points, whatever the metadata says
        assert result.ok, (name, result.error)
        assert result.autograded_max == pytest.approx(full), name
        assert result.autograded_score == pytest.approx(full), (name, result.flags)
        assert any(word in f for f in result.flags), (name, result.flags)
        assert not any("NbGraderException" in f or "could not be graded" in f for f in result.flags)
        assert all("\n" not in f for f in result.flags)
    # one line per kind of change, not one per cell
    renamed = results["test_renamed"].flags
    assert any("was deleted (restored" in f for f in renamed)
    assert any("not in the instructor's copy" in f for f in renamed)
    # kind, points (its locked flag is none of nbgrader's business: an answer is unlocked)
    assert len(results["answer_made_test"].flags) == 2
    # another course's notebook: scored 0 with ONE flag, not one per missing cell
    other = results["other_course"]
    assert other.autograded_score == 0 and other.autograded_max == pytest.approx(full)
    assert len(other.flags) == 1 and f"not {TARGET}'s" in other.flags[0], other.flags


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "grades.csv").open(newline="") as handle:
        return {r["student_id"]: r for r in csv.DictReader(handle)}


def _other_notebook() -> bytes:
    """A notebook of another assignment of the course (its source: it carries its ids)."""
    return (origin.NOTEBOOKS_DIR / OTHER / f"{OTHER}.ipynb").read_bytes()


@pytest.mark.slow
def test_wrong_assignment_is_refused_before_grading(released, capsys):
    root, course, _, _ = released
    archive = _zip(
        root / "wrong.zip",
        {f"s{i}name_{200 + i}_{9000 + i}_{OTHER}.ipynb": _other_notebook() for i in range(3)},
    )
    out = root / "wrong-out"
    args = ["grade", str(archive), "--assignment", TARGET, "--course", str(course.root)]
    status = main([*args, "--out", str(out), "--unsandboxed", "--no-progress"])
    err = refusal(capsys.readouterr().err)
    assert status == 2
    assert f"look like {OTHER}, not {TARGET}" in err and "check --assignment" in err
    assert not out.exists()
    with course.gradebook() as gb:
        for student in ("200", "201", "202"):
            with pytest.raises(MissingEntry):
                gb.find_submission(TARGET, student)
            with pytest.raises(MissingEntry):
                gb.find_student(student)
    # refused before anything was written for these students
    assert not any((course.root / "submitted" / s).exists() for s in ("200", "201", "202"))


@pytest.mark.slow
def test_one_foreign_notebook_is_that_students_flag(released, capsys):
    root, course, answer, full = released
    edited = copy.deepcopy(answer)
    _meta(edited, _ids(edited, grade=True, solution=False)[0]).update(points=100)
    archive = _zip(
        root / "mixed.zip",
        {
            f"honestann_301_9301_{TARGET}.ipynb": notebook_bytes(answer),
            f"editorbob_302_9302_{TARGET}.ipynb": notebook_bytes(edited),
            f"strangercy_303_9303_{TARGET}.ipynb": _other_notebook(),
        },
    )
    out = root / "mixed-out"
    args = ["grade", str(archive), "--assignment", TARGET, "--course", str(course.root)]
    status = main([*args, "--out", str(out), "--unsandboxed", "--no-progress", "--no-feedback"])
    assert status == 0, capsys.readouterr().err
    rows = _rows(out)
    assert float(rows["301"]["score"]) == pytest.approx(full) and rows["301"]["flags"] == ""
    assert float(rows["302"]["score"]) == pytest.approx(full)
    assert "points changed" in rows["302"]["flags"]
    assert float(rows["303"]["score"]) == 0
    assert f"not {TARGET}'s notebook" in rows["303"]["flags"]
    assert "deleted" not in rows["303"]["flags"]


@pytest.mark.slow
def test_grade_ids_win_over_a_misleading_file_name(released, capsys):
    root, course, answer, full = released
    archive = _zip(root / "named.zip", {f"oddname_401_9401_{OTHER}.ipynb": notebook_bytes(answer)})
    out = root / "named-out"
    args = ["grade", str(archive), "--course", str(course.root), "--out", str(out)]
    status = main([*args, "--unsandboxed", "--no-progress", "--no-feedback"])
    assert status == 0, capsys.readouterr().err
    row = _rows(out)["401"]
    assert row["assignment"] == TARGET
    assert float(row["score"]) == pytest.approx(full)
    assert f"look like {OTHER}" in row["flags"] and f"graded as {TARGET}" in row["flags"]
