"""The library's answers a student build of linlib carries in place of the references it
leaves out: what the release's test cells need of them, recorded at release time.

A test of a later exercise calls the student's function with the library's reference in
place of the student's earlier one (``use_reference``, ``linlib.grading``), so that a
mistake costs only its own exercise. A student build stubs the assignment's answers, its
references among them (:mod:`autograder.release.answers`): without more, its test cells
could only use the student's own earlier function, and a correct later function would fail
its visible test because of a wrong earlier one (issue 41). So the build carries the
library's answers to the calls that the instructor's solutions make of those references in
the release's test cells (the visible tests, the hidden ones being out of the release):
:func:`record_replays` runs those cells with the solutions, in this process, on the full
library, and ``linlib.grading`` answers the same calls from the record in the student's
kernel. Nothing else goes in: no code, and no answer a visible test does not ask for
anyway.
"""

from __future__ import annotations

import ast
import contextlib
import io
import traceback
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.utils import is_solution

from autograder.notebook import grade_id, is_test_cell, used_references
from autograder.release.answers import AnswersError
from linlib.grading import recording_references

__all__ = ["record_replays", "solution_namespace"]


def _code(source: str) -> str:
    """A notebook cell's source as Python: IPython's magics and shell lines blanked."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
    )


def solution_namespace(
    nb: nbformat.NotebookNode, answers: Mapping[str, str] | None = None, name: str = "solutions"
) -> dict[str, Any]:
    """A fresh namespace with a notebook's imports and its answer cells run in it.

    The imports are the top-level import statements of its other code cells (neither a
    solution nor a test); the answers are each solution cell's own source, or the code
    *answers* gives for its grade id (a sample answer in its place, say). Written answers
    (markdown) are not code and are skipped.
    """
    ns: dict[str, Any] = {"__name__": name}
    for cell in nb.cells:
        if cell.cell_type != "code" or is_solution(cell) or is_test_cell(cell):
            continue
        tree = ast.parse(_code(cell.source))
        imports: list[ast.stmt] = [
            node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
        ]
        if imports:
            exec(compile(ast.Module(body=imports, type_ignores=[]), "<imports>", "exec"), ns)
    for cell in nb.cells:
        if cell.cell_type == "code" and is_solution(cell):
            gid = str(grade_id(cell))
            code = (answers or {}).get(gid, _code(cell.source))
            exec(compile(code, f"<answer {gid}>", "exec"), ns)
    return ns


def record_replays(
    source_notebooks: Sequence[Path], release_notebooks: Sequence[Path], stubs: Iterable[str]
) -> dict[str, list[list[Any]]]:
    """The answers of the stubbed references *stubs* (``module.qualname``) that the release
    notebooks' test cells need: each release notebook's test cells that put a reference in
    place (``use_reference``) are run, in order, with its source notebook's solutions (the
    source notebook of the same file name), and the stubbed references' calls recorded
    (``linlib.grading.recording_references``). Raises :class:`AnswersError` when such a
    cell fails with the solutions (then its visible test fails for every student)."""
    sources = {Path(path).name: Path(path) for path in source_notebooks}
    recorded: dict[str, list[list[Any]]] = {}
    labels = sorted(stubs)
    for release in release_notebooks:
        release = Path(release)
        cells = [
            cell
            for cell in nbformat.read(release, as_version=4).cells
            if is_test_cell(cell) and used_references(cell.source)
        ]
        if not cells or not labels or release.name not in sources:
            continue
        source = nbformat.read(sources[release.name], as_version=4)
        ns = solution_namespace(source, name=f"release_{release.stem}")
        with recording_references(labels) as calls:
            for cell in cells:
                _run_test_cell(cell, ns, release.name)
        for label, found in calls.items():
            known = recorded.setdefault(label, [])
            known += [entry for entry in found if entry not in known]
    return recorded


def _run_test_cell(cell: nbformat.NotebookNode, ns: dict[str, Any], where: str) -> None:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(_code(cell.source), f"<{where}: {grade_id(cell)}>", "exec"), ns)
    except Exception as error:
        last = traceback.format_exception_only(error)[-1].strip()
        raise AnswersError(
            f"{where}: test cell {grade_id(cell)!r} fails with the instructor's solutions, "
            f"so the library's answers it needs cannot be recorded: {last}"
        ) from None
