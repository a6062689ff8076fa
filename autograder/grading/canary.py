"""The grading canary: before a batch grades any student, the instructor's own solution of
each assignment is graded on the same workers, in the same sandbox and warm box, with the
same re-check, configuration and gradebook as the class. A solution that does not get every
autograded point means the grading environment is broken (the sandboxed kernel cannot
import ``linlib``, a kernel that does not start, a gradebook the workers cannot write, ...),
and the batch is refused with one line (:class:`~autograder.models.CanaryFailed`) before
any student is graded and before anything of the run is written.

The canary is graded under a reserved student id (:func:`canary_student`, one per course
directory) and removed from the gradebook and the course's folders as soon as its verdict
is in (:func:`remove_canary`), and again before the next canary (a run killed while its
canary was graded leaves nothing behind for long). It never reaches the ledger, the
results or the outputs.

What this module holds: the reserved id, the cleanup, and the verdict
(:func:`canary_problem`): the first test of the solution that lost points and, as its
cause, the first error in the graded notebook up to that test (an import that failed is
said as such: "linlib cannot be imported in the sandboxed kernel: No module named
'linlib'").
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autograder.course import Course
from autograder.notebook import FLAGS_KEY, grade_id, is_test_cell, read_notebook
from autograder.options import GradeOptions

if TYPE_CHECKING:
    from nbformat import NotebookNode

#: How the canary's student id starts (the rest: a hash of the course directory).
CANARY_PREFIX = "autograder-canary-"

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_NO_MODULE = re.compile(r"No module named '([^']+)'")
#: The longest cause shown (the line stays one readable line).
_MAX_CAUSE = 300


def canary_student(course: Course) -> str:
    """The reserved student id the canary of *course* is graded under."""
    return CANARY_PREFIX + hashlib.sha256(str(course.root).encode()).hexdigest()[:12]


def remove_canary(course: Course, student: str) -> None:
    """Remove the canary *student* from the gradebook (its submissions and grades too) and
    its folders from the course directory (nothing if it is not there)."""
    from nbgrader.api import MissingEntry

    with course.gradebook() as gb:
        try:
            gb.remove_student(student)
        except MissingEntry:
            pass
    for step in ("submitted", "autograded", "feedback"):
        shutil.rmtree(course.root / step / student, ignore_errors=True)


def _one_line(text: str, limit: int = _MAX_CAUSE) -> str:
    text = " ".join(_ANSI.sub("", str(text)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _installed(module: str) -> bool:
    """Whether the grader's own environment has *module* (then the kernel's environment is
    what is broken, not the course's needs)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _error_text(output: Mapping[str, Any], kernel: str) -> tuple[str, bool]:
    """An error output as one cause, and whether it is a module that cannot be imported."""
    ename, evalue = output.get("ename", "Error"), output.get("evalue", "")
    missing = _NO_MODULE.search(evalue) if ename in ("ModuleNotFoundError", "ImportError") else None
    if missing is not None:
        module = missing.group(1).split(".")[0]
        cause = f"{module} cannot be imported in the {kernel} kernel: {evalue}"
        if not _installed(module):  # the course needs a package the grader does not have
            cause += (
                f"; the course needs it in the grading environment: add {module} to "
                "requirements.txt (pinned, with what it needs) and run ./run setup"
            )
        return cause, True
    return f"{ename}: {evalue}", False


def _first_failure(nb: NotebookNode, failing: set[str], kernel: str) -> tuple[str, str]:
    """(grade id, cause) of the first failing test of *nb*: the cause is the first error
    output of the notebook up to that test, else the re-check's message for the test."""
    first_error = ""
    checks = nb.metadata.get(FLAGS_KEY, {}).get("checks", {})
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if not first_error:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    cause, import_failed = _error_text(output, kernel)
                    where = import_failed or is_test_cell(cell)
                    first_error = cause if where else f"{cause} (cell #{index})"
                    break
        gid = grade_id(cell)
        if is_test_cell(cell) and gid in failing:
            message = checks.get(gid, {}).get("message", "")
            return gid, first_error or message or "it scored 0 without an error"
    return sorted(failing)[0], first_error or "no error was shown"


def _test_ids(course: Course, assignment: str) -> set[str]:
    """The grade ids of the assignment's autograded test cells (its source notebooks')."""
    out: set[str] = set()
    for path in sorted(course.source_dir(assignment).glob("*.ipynb")):
        nb = read_notebook(path)
        out |= {str(grade_id(cell)) for cell in nb.cells if is_test_cell(cell)}
    return out


def _kernel(options: GradeOptions) -> str:
    """The kernel a notebook of a run with ``options`` ran in, as a message names it."""
    return "sandboxed" if options.sandbox else "grading"


def _failed_import(
    course: Course, assignment: str, student: str, options: GradeOptions
) -> str | None:
    """The first import that failed in the canary's graded notebooks (as its cause), or
    None."""
    kernel = _kernel(options)
    for path in sorted(course.autograded_dir(student, assignment).glob("*.ipynb")):
        nb = read_notebook(path)
        for cell in nb.cells:
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                if output.get("output_type") == "error":
                    cause, import_failed = _error_text(output, kernel)
                    if import_failed:
                        return cause.replace(str(course.root), "<course>")
    return None


def refusal(problem: str, set_aside: int = 0) -> str:
    """The run's refusal: the canary's *problem*, and that nothing was written (the
    *set_aside* students graded beside the canary thrown away with it)."""
    if set_aside:
        students = "student" if set_aside == 1 else "students"
        return f"{problem}; nothing was written ({set_aside} {students} graded beside it set aside)"
    return f"{problem}; nothing was graded or written"


def canary_problem(
    course: Course,
    assignment: str,
    student: str,
    outcome: Mapping[str, Any],
    options: GradeOptions,
) -> str | None:
    """Why the canary *student*'s graded solution of *assignment* (graded with ``options``)
    shows a broken grading environment (one line; the caller says what was kept:
    :func:`refusal`), or None when it got every autograded point."""
    prefix = f"the instructor's solution of {assignment} "
    suffix = ""
    if not outcome.get("success"):
        cause = outcome.get("cause") or outcome.get("error") or "unknown error"
        cause = str(cause).replace(str(course.root), "<course>")
        cause = _one_line(cause)
        return f"{prefix}could not be graded in this grading environment: {cause}{suffix}"
    # the autograded tests only: a manually graded answer awaits its grader, in nbgrader too
    tests = _test_ids(course, assignment)
    scores = course.read_scores(assignment, [student]).get(student, {})
    scores = {gid: pair for gid, pair in scores.items() if gid in tests}
    failing = {gid for gid, (score, top) in scores.items() if score < top}
    if scores and not failing:
        # full marks, but a module the notebooks import is missing: the students' answers
        # that use it would fail where the instructor's did not need it
        missing = _failed_import(course, assignment, student, options)
        if missing is None:
            return None
        return f"{prefix}cannot run in this grading environment: {_one_line(missing)}{suffix}"
    if not scores:
        return f"{prefix}got no autograded score in this grading environment{suffix}"
    kernel = _kernel(options)
    folder = course.autograded_dir(student, assignment)
    for path in sorted(folder.glob("*.ipynb")):
        nb = read_notebook(path)
        if failing & {grade_id(c) for c in nb.cells}:
            gid, cause = _first_failure(nb, failing, kernel)
            break
    else:
        gid, cause = sorted(failing)[0], "its graded notebook is missing"
    cause = cause.replace(str(course.root), "<course>")
    return f"{prefix}does not pass {gid} in this grading environment: {_one_line(cause)}{suffix}"
