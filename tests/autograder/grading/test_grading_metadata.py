"""The grading layer's handling of hostile metadata and failures, piece by piece: the real
cause of a failed nbgrader run (``failure_cause``), the per-submission log it goes to, a
notebook of another assignment set aside, and the released cells' metadata read back from
the gradebook (``released_cells``) — the end-to-end batches are in
tests/autograder/test_hostile_metadata.py."""

from __future__ import annotations

import contextlib

import nbformat
import pytest

from autograder.course import Course, list_assignments
from autograder.grading import batch as batch_module
from autograder.grading.batch import grade_prepared, safe_file_name, set_aside_foreign
from autograder.grading.pool import Run
from autograder.grading.preprocessors import released_cells
from autograder.grading.task import failure_cause
from autograder.models import PreparedSubmission
from autograder.notebook import notebook_bytes
from autograder.options import GradeOptions

# What nbgrader 0.9.6's capture_log returns for a notebook that fails in a preprocessor:
# the real traceback in the log (indented), nbgrader's summary exception in the error.
NBGRADER_LOG = """\
[INFO] Sanitizing /course/submitted/alice/02_x/02_x.ipynb
[ERROR] There was an error processing assignment: /course/submitted/alice/02_x
[ERROR] Traceback (most recent call last):
      File "/env/nbgrader/converters/base.py", line 390, in convert_notebooks
        self.convert_single_notebook(notebook_filename)
      File "/env/nbgrader/api.py", line 2024, in find_graded_cell
        raise MissingEntry("No such grade cell: {}/{}/{}".format(assignment, notebook, name))
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    nbgrader.api.MissingEntry: No such grade cell: 02_x/02_x/fit

[ERROR] There was an error processing assignment '02_x' for student 'alice'
[ERROR] Please see the the above traceback for details on the specific errors on the above failures.
"""
NBGRADER_ERROR = """\
Traceback (most recent call last):
  File "/env/nbgrader/converters/base.py", line 468, in convert_notebooks
    raise NbGraderException(msg)
nbgrader.converters.base.NbGraderException: Please see the the above traceback for details.
"""


def test_failure_cause_is_the_real_exception_not_nbgraders_summary():
    assert failure_cause(NBGRADER_ERROR, NBGRADER_LOG) == (
        "nbgrader.api.MissingEntry: No such grade cell: 02_x/02_x/fit"
    )
    # without a log, the summary is all there is
    assert failure_cause(NBGRADER_ERROR).startswith("nbgrader.converters.base.NbGraderException")
    # a message of the worker pool (no traceback): its last line
    assert failure_cause("worker died\n(exit code -9)") == "(exit code -9)"
    assert failure_cause("") == "unknown error"


def test_failure_cause_of_a_chained_exception_is_the_last_one():
    error = (
        "Traceback (most recent call last):\n"
        '  File "a.py", line 1, in f\n'
        "    g()\n"
        "KeyError: 'points'\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "a.py", line 3, in h\n'
        "    raise RuntimeError('Inconsistent checksums for cell x')\n"
        "RuntimeError: Inconsistent checksums for cell x\n"
    )
    assert failure_cause(error) == "RuntimeError: Inconsistent checksums for cell x"


@pytest.mark.parametrize("name", ["../../etc/passwd", ".hidden", "a b/c", "é", "", "x" * 300])
def test_safe_file_name(name):
    safe = safe_file_name(name)
    assert safe and "/" not in safe and not safe.startswith(".") and len(safe) <= 90
    assert safe == safe_file_name(name)  # stable
    assert safe_file_name("alice") == "alice"
    assert safe_file_name("a_b") != safe_file_name("a b")  # no two students share a file


def test_a_notebook_carrying_none_of_the_graded_cells_is_set_aside():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": "other"}})]
    sub = PreparedSubmission("bob", "02_x", notebooks={"02_x.ipynb": notebook_bytes(nb)})
    aside = set_aside_foreign(sub, {"02_x": {"fit", "fit_test"}})
    assert aside.notebooks == {} and aside.missing == ["02_x"]
    assert aside.flags == [
        "'02_x.ipynb' is not 02_x's notebook: it carries none of its 2 graded cells (scored 0)"
    ]
    # one shared grade id is enough to be graded (and repaired, and flagged) as usual
    nb.cells[0].metadata.nbgrader["grade_id"] = "fit"
    sub.notebooks["02_x.ipynb"] = notebook_bytes(nb)
    assert set_aside_foreign(sub, {"02_x": {"fit", "fit_test"}}) is sub
    # an assignment the gradebook does not know: nothing to compare with, graded as is
    assert set_aside_foreign(sub, {}) is sub


def test_a_failed_submission_is_flagged_with_its_cause_and_its_log(tmp_path, monkeypatch):
    (tmp_path / "course").mkdir()
    course = Course(tmp_path / "course")
    student = "Bob Smith (2)"

    def failing_run(jobs, **_):
        for assignment, who in jobs:
            value = {"success": False, "error": NBGRADER_ERROR, "log": NBGRADER_LOG}
            value |= {"flags": [], "feedback": False, "seconds": 1.0}
            yield assignment, who, value

    @contextlib.contextmanager
    def failing_pool(course, options, **kw):
        yield Run(failing_run)

    monkeypatch.setattr(batch_module, "pool_executor", failing_pool)
    sub = PreparedSubmission(student, "02_x", notebooks={"02_x.ipynb": b"{}"})
    options = GradeOptions(sandbox=False, feedback=False)
    result = grade_prepared(course, [sub], options)[("02_x", student)]
    assert not result.ok
    assert result.error == "nbgrader.api.MissingEntry: No such grade cell: 02_x/02_x/fit"
    (flag,) = result.flags
    relative = f"logs/02_x/{safe_file_name(student)}.log"
    assert flag == f"could not be graded: {result.error} (full log: {relative})"
    log = (course.root / relative).read_text()
    assert NBGRADER_LOG in log and NBGRADER_ERROR in log


@pytest.mark.slow
def test_released_cells_give_the_checksums_the_students_received(tmp_path):
    """An honest notebook's metadata equals what ``released_cells`` reads from the
    gradebook (hidden tests taken out as the release does), so an honest student is never
    flagged: checked on every notebook of the course."""
    from autograder.release import ensure_released

    course = Course(tmp_path / "course")
    assignments = list_assignments()
    ensure_released(course, assignments, zips=False)
    with course.gradebook() as gb:
        for assignment in assignments:
            release = course.root / "release" / assignment / f"{assignment}.ipynb"
            expected = released_cells(gb.find_notebook(assignment, assignment))
            cells = [
                c for c in nbformat.read(release, as_version=4).cells if "nbgrader" in c.metadata
            ]
            assert [c.metadata.nbgrader["grade_id"] for c in cells] == list(expected)
            for cell in cells:
                want = expected[cell.metadata.nbgrader["grade_id"]]
                assert dict(cell.metadata.nbgrader) == want["meta"], assignment
                if not want["meta"]["solution"]:
                    assert cell.source == want["source"], assignment


def _released(grade_id: str, source: str, **kind) -> dict:
    """What released_cells says of one cell (its checksum made up: only compared)."""
    meta = {"grade": False, "solution": False, "task": False, "locked": False, **kind}
    meta.update(grade_id=grade_id, points=1.0 if meta["grade"] else 0.0, checksum="c" * 32)
    return {"meta": meta, "cell_type": "code", "source": source}


def _submitted(grade_id: str, source: str, **meta) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, **meta}
    return cell


def test_a_locked_flag_is_compared_as_nbgrader_reads_it():
    """nbgrader locks a test cell and unlocks an answer cell whatever their flag says
    (``utils.is_locked``): a release that writes ``locked: false`` on its tests (nbgrader's
    documentation course) changes nothing, and is not flagged; a read-only cell unlocked
    is."""
    from autograder.grading.preprocessors import _metadata_changes

    test = _released("t", "assert f()", grade=True, locked=True)
    cell = _submitted("t", "assert f()", grade=True, solution=False, locked=False, points=1.0)
    cell.metadata.nbgrader["checksum"] = "c" * 32
    assert _metadata_changes(cell, test) == []
    answer = _released("a", "", solution=True)
    cell = _submitted("a", "x = 1", grade=False, solution=True, locked=True)
    cell.metadata.nbgrader["checksum"] = "c" * 32
    assert _metadata_changes(cell, answer) == []
    readonly = _released("r", "import numpy", locked=True)
    cell = _submitted("r", "import numpy", grade=False, solution=False, locked=False)
    cell.metadata.nbgrader["checksum"] = "c" * 32
    assert ("locked", "r (locked -> unlocked)") in _metadata_changes(cell, readonly)


def test_a_checksum_of_another_release_is_told_from_the_students_change():
    """A checksum that differs in a cell as released (its source too) came with the
    notebook's release (another nbgrader computed it, or wrote none); in an answer cell it
    tells nothing."""
    from autograder.grading.preprocessors import _as_released, _metadata_changes

    test = _released("t", "assert f()", grade=True, locked=True)
    older = _submitted("t", "assert f()", grade=True, solution=False, points=1, checksum="0" * 32)
    assert _metadata_changes(older, test) == [("checksum", "t")] and _as_released(older, test)
    edited = _submitted("t", "assert True", grade=True, solution=False, points=1)
    assert not _as_released(edited, test)
    answer = _released("a", "", solution=True)
    assert not _as_released(_submitted("a", "", solution=True, checksum="0" * 32), answer)
