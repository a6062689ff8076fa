"""Answers run in this process: a notebook's solutions (or sample answers in their place)
defined in a fresh namespace with the notebook's own imports, and called the way its test
cells call them (``linlib.grading.call_student`` with the cells' ``disable`` and
``use_reference``). The misconception tests observe the sample answers on the catalogue's
probes this way, without a kernel."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.utils import is_solution

from autograder.misconceptions import Exercise, Observation, call_options, observe_call
from autograder.notebook import is_test_cell
from autograder.samples import solution_sources
from course_common.paths import REPO_ROOT
from linlib.grading import call_student

ROOT = REPO_ROOT


def source(assignment: str) -> Path:
    return ROOT / "notebooks" / assignment / f"{assignment}.ipynb"


@cache
def _notebook(assignment: str) -> nbformat.NotebookNode:
    """The source notebook (read once; not to be changed)."""
    return nbformat.read(source(assignment), as_version=4)


@cache
def graded_test_cells(assignment: str) -> dict[str, str]:
    """grade id -> full source of every autograded test cell."""
    return {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in _notebook(assignment).cells
        if is_test_cell(c)
    }


def namespace(assignment: str, replace: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A fresh namespace with the notebook's imports (its other cells' top-level import
    statements) and every answer cell's code: the instructor's solution, or ``replace``'s
    source for the cells it names."""
    nb = _notebook(assignment)
    ns: dict[str, Any] = {"__name__": f"answers_{assignment}"}
    for cell in nb.cells:
        if cell.cell_type != "code" or is_solution(cell) or is_test_cell(cell):
            continue
        lines = cell.source.split("\n")
        code = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
        tree = ast.parse(code)
        imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        if imports:
            exec(compile(ast.Module(body=imports, type_ignores=[]), "<imports>", "exec"), ns)
    answers = solution_sources(nb)
    answers.update(replace or {})
    for cell in nb.cells:
        if cell.cell_type == "code" and is_solution(cell):
            gid = cell.metadata.nbgrader["grade_id"]
            exec(compile(answers[gid], f"<answer {gid}>", "exec"), ns)
    return ns


@cache
def _options(assignment: str) -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    from autograder.misconceptions import notebook_signatures

    return call_options(graded_test_cells(assignment), notebook_signatures(source(assignment)))


def observer(
    assignment: str, exercise: Exercise, ns: Mapping[str, Any]
) -> Callable[[str], Observation]:
    """Calls *exercise*'s function of *ns* on a probe call as the test cells call it."""
    disable, references = _options(assignment)[exercise.name]
    function = ns[exercise.name]

    def invoke(args: list[Any], kwargs: dict[str, Any]) -> Any:
        return call_student(function, *args, disable=disable, use_reference=references, **kwargs)

    return lambda call: observe_call(call, exercise.params, invoke)
