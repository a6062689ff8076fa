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
(:func:`canary_verdict`): the first test of the solution that lost points and, as its
cause, the first error in the graded notebook up to that test (an import that failed is
said as such: "linlib cannot be imported in the sandboxed kernel: No module named
'linlib'").

The canary blames only the environment. A test the instructor's solution fails is run
once more the way stock nbgrader runs it (:func:`reference_failures`: outside the sandbox,
in a plain kernel, no re-check): one that fails there too fails for the course's own reasons
(a cell that raises in today's libraries, a source that does not pass its own test), as it
would under nbgrader, and the class is graded, the run saying which tests the instructor's
own solution fails and why (:attr:`CanaryVerdict.own`); only a test that passes there and
fails here refuses the class.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder.course import Course
from autograder.notebook import FLAGS_KEY, grade_id, is_test_cell, read_notebook, score_names
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


def _test_names(course: Course, assignment: str) -> dict[tuple[str, str], str]:
    """(notebook, grade id) of each of the assignment's autograded test cells (its source
    notebooks') -> the name its score goes by (:func:`~autograder.notebook.score_names`:
    its grade id, or ``notebook/grade id`` where two notebooks share the id)."""
    names = score_names(course.source_dir(assignment))
    out: dict[tuple[str, str], str] = {}
    for path in sorted(course.source_dir(assignment).glob("*.ipynb")):
        nb = read_notebook(path)
        for cell in nb.cells:
            if is_test_cell(cell):
                key = (path.stem, str(grade_id(cell)))
                out[key] = names.get(key, key[1])
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


@dataclass
class CanaryVerdict:
    """What the canary of one assignment says: ``problem``, why the grading environment is
    broken (None: it is not); ``own``, the tests the instructor's own solution fails as
    stock nbgrader fails them too (grade id -> why)."""

    problem: str | None = None
    own: dict[str, str] = field(default_factory=dict)


def _stock_error(cell: Any) -> str | None:
    """What makes stock nbgrader score a test cell 0: its first error output (or text on
    stderr), as one line; None when there is none."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return _one_line(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            return _one_line(f"it wrote to stderr: {output.get('text', '')}")
    return None


def reference_failures(course: Course, assignment: str, student: str) -> dict[str, str]:
    """grade id -> why, for each autograded test that *student*'s submission of
    *assignment* (the instructor's solution) fails when run as stock nbgrader runs it:
    the test cells' full source from the course's source notebooks, the assignment's files
    beside it, a plain kernel outside the sandbox (the instructor's code: trusted), the
    course's cell timeout, no re-check. Errors that are not a test's cost nothing, as in
    nbgrader; what the errors of other cells were is :func:`reference_errors`'s."""
    names = _test_names(course, assignment)
    return {
        gid: why
        for gid, why in _reference_run(course, assignment, student, names).items()
        if not gid.startswith("#")
    }


def _reference_run(
    course: Course, assignment: str, student: str, names: Mapping[tuple[str, str], str]
) -> dict[str, str]:
    """:func:`reference_failures`' run: a test's score name (*names*) -> why, and
    "#<notebook>:<index>" -> the error of any other cell."""
    from nbclient import NotebookClient
    from nbgrader.utils import is_grade, is_solution

    timeout = course.config().get("Execute", {}).get("timeout", 30)
    found: dict[str, str] = {}
    source_dir = course.source_dir(assignment)
    with tempfile.TemporaryDirectory(prefix="ag-reference-") as tmp:
        work = Path(tmp) / assignment
        shutil.copytree(source_dir, work, ignore=shutil.ignore_patterns("*.ipynb"))
        for path in sorted(course.submitted_dir(student, assignment).glob("*.ipynb")):
            nb = read_notebook(path)
            source_path = source_dir / path.name
            full: dict[str, str] = {}
            if source_path.is_file():
                source = read_notebook(source_path)
                full = {str(grade_id(c)): c.source for c in source.cells if is_test_cell(c)}
            for cell in nb.cells:
                if is_test_cell(cell) and str(grade_id(cell)) in full:
                    cell.source = full[str(grade_id(cell))]
            kernel = nb.metadata.get("kernelspec", {}).get("name") or "python3"
            client = NotebookClient(
                nb,
                timeout=int(timeout) if timeout and int(timeout) > 0 else None,
                allow_errors=True,
                kernel_name=kernel,
                resources={"metadata": {"path": str(work)}},
            )
            try:  # the kernel's own messages (a warning about TCP) are not the grader's
                client.execute(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except Exception as exc:  # no such kernel, a dead kernel: every test fails
                why = _one_line(f"{type(exc).__name__}: {exc}")
                for cell in nb.cells:
                    if is_test_cell(cell):
                        key = (path.stem, str(grade_id(cell)))
                        found.setdefault(names.get(key, key[1]), why)
                continue
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                error = _stock_error(cell)
                if error is None:
                    continue
                if is_grade(cell) and not is_solution(cell):
                    key = (path.stem, str(grade_id(cell)))
                    found.setdefault(names.get(key, key[1]), error)
                else:
                    found[f"#{path.stem}:{index}"] = error
    return found


def canary_verdict(
    course: Course,
    assignment: str,
    student: str,
    outcome: Mapping[str, Any],
    options: GradeOptions,
) -> CanaryVerdict:
    """What the canary *student*'s graded solution of *assignment* (graded with ``options``)
    says: a broken grading environment (``problem``, one line; the caller says what was
    kept: :func:`refusal`), or the tests the instructor's solution fails for the course's
    own reasons (``own``), as stock nbgrader fails them too (:func:`reference_failures`)."""
    prefix = f"the instructor's solution of {assignment} "
    if not outcome.get("success"):
        cause = outcome.get("cause") or outcome.get("error") or "unknown error"
        cause = _one_line(str(cause).replace(str(course.root), "<course>"))
        return CanaryVerdict(f"{prefix}could not be graded in this grading environment: {cause}")
    # the autograded tests only: a manually graded answer awaits its grader, in nbgrader too
    names = _test_names(course, assignment)
    tests = set(names.values())
    scores = course.read_scores(assignment, [student], per_notebook=True).get(student, {})
    scores = {gid: pair for gid, pair in scores.items() if gid in tests}
    failing = {gid for gid, (score, top) in scores.items() if score < top}
    missing = _failed_import(course, assignment, student, options)
    if scores and not failing and missing is None:
        return CanaryVerdict()
    if missing is not None and not _installed(missing.split(" cannot be imported")[0]):
        # a package the grading environment lacks altogether: every student would lose
        # what needs it (the message says what to install)
        return CanaryVerdict(
            f"{prefix}cannot run in this grading environment: {_one_line(missing)}"
        )
    reference = _reference_run(course, assignment, student, names)
    if missing is not None and not failing:
        module = missing.split(" cannot be imported")[0]
        if any(f"'{module}" in why for why in reference.values()):
            return CanaryVerdict()  # it fails outside the sandbox too: the course's own
        return CanaryVerdict(
            f"{prefix}cannot run in this grading environment: {_one_line(missing)}"
        )
    if not scores:
        return CanaryVerdict(f"{prefix}got no autograded score in this grading environment")
    own = {gid: reference[gid] for gid in sorted(failing) if gid in reference}
    blamed = failing - set(own)
    if not blamed:
        return CanaryVerdict(own=own)
    kernel = _kernel(options)
    folder = course.autograded_dir(student, assignment)
    for path in sorted(folder.glob("*.ipynb")):
        nb = read_notebook(path)
        here = {gid for (stem, gid), name in names.items() if stem == path.stem and name in blamed}
        if here:
            gid, cause = _first_failure(nb, here, kernel)
            gid = names.get((path.stem, gid), gid)
            break
    else:
        gid, cause = sorted(blamed)[0], "its graded notebook is missing"
    cause = cause.replace(str(course.root), "<course>")
    return CanaryVerdict(
        f"{prefix}does not pass {gid} in this grading environment: {_one_line(cause)}", own
    )
