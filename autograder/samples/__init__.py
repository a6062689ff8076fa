"""Sample submissions built from the course's own notebooks.

A sample submission is the *release* notebook with every solution cell filled in: by
default with the instructor's solution taken from the *source* notebook, or, for a
:class:`Variant`, with code a student might write instead (another correct way, or a
typical bug). Nothing here is stored as a notebook: submissions are rebuilt from the
source and release notebooks each time, so they can never drift from the course.

The sample answers are the course's data, not the grader's: beside each source notebook, a
module ``sample_answers.py`` (``notebooks/<assignment>/sample_answers.py``; never released:
:data:`autograder.source.COURSE_DATA`) defines ``VARIANTS``, a list of :class:`Variant`.
They are gathered into :data:`VARIANTS`, keyed by assignment name. The tests
(``tests/notebooks/test_notebooks_grading.py``)
grade every variant with ``python -m autograder grade`` (sandbox and trusted re-check on),
packing variants that touch different exercises into one submission, and check that
correct variants get full marks and buggy ones lose exactly the test cells named in
``Variant.lost``; the autograder's demo uses them to build a class of sample students
(:mod:`autograder.samples.demo`).

A variant should replace ONE solution cell and lose only the tests of that exercise (a
later exercise is tested with the library's reference in place of the student's earlier
function, so a bug does not cascade). Each code exercise needs at least 3 correct variants
in styles other than the instructor's and at least 4 typical bugs. Each bug is labelled
with the misconception it shows (``Variant.misconception``, an id of the exercise's entry
in the catalogue beside the notebook, ``misconceptions.toml``).
"""

from __future__ import annotations

import copy
import importlib.util
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import nbformat
from nbformat import NotebookNode
from nbgrader.utils import is_solution

from autograder.notebook import grade_id
from autograder.source import SAMPLES_NAME, CourseSource
from course_common.paths import NOTEBOOKS_DIR
from course_common.rubric import is_written_answer, split_rubric
from course_common.solutions import (
    SOLUTION_MARKERS,
    Markers,
    course_markers,
    strip_solution_markers,
)

__all__ = [
    "ASSIGNMENTS",
    "SAMPLE_MODULES",
    "VARIANTS",
    "Variant",
    "combine_variants",
    "course_markers",
    "load_sample_modules",
    "load_variants",
    "make_submission",
    "solution_cell_ids",
    "solution_sources",
]

#: The course's assignments, in order (this repository's ``notebooks/``).
ASSIGNMENTS: tuple[str, ...] = tuple(
    CourseSource(NOTEBOOKS_DIR.parent, NOTEBOOKS_DIR, None, own=True).assignments()
)


@dataclass(frozen=True)
class Variant:
    """One way a student might answer an assignment.

    Parameters
    ----------
    name : str
        Short identifier, e.g. ``"loops_instead_of_vectorised"``.
    replace : Mapping[str, str]
        grade id of a solution cell -> the full source the student leaves in that cell.
        Solution cells not named keep the instructor's solution.
    lost : frozenset[str]
        grade ids of the autograded test cells that must score 0 for this answer; every
        other autograded test must keep its full points. Empty for a correct variant.
    description : str
        One line: what the student did.
    misconception : str
        For a buggy variant: the id of the misconception it shows, in the catalogue of its
        exercise (``misconceptions.toml`` beside the notebook, :mod:`autograder.misconceptions`);
        the grader must diagnose exactly that one. Empty for a correct variant.
    """

    name: str
    replace: Mapping[str, str]
    lost: frozenset[str] = frozenset()
    description: str = ""
    misconception: str = ""

    def __post_init__(self) -> None:
        # Accept any iterable for `lost` but store a frozenset, so variants stay hashable
        # in spirit and comparisons with sets work.
        object.__setattr__(self, "lost", frozenset(self.lost))
        object.__setattr__(self, "replace", dict(self.replace))

    @property
    def correct(self) -> bool:
        """True when this variant must get full marks."""
        return not self.lost


def _as_notebook(nb: NotebookNode | str | os.PathLike[str]) -> NotebookNode:
    if isinstance(nb, NotebookNode):
        return nb
    return nbformat.read(os.fspath(nb), as_version=4)


def solution_cell_ids(nb: NotebookNode | str | os.PathLike[str]) -> list[str]:
    """Grade ids of the solution cells (code and written answers), in notebook order."""
    nb = _as_notebook(nb)
    return [str(grade_id(cell)) for cell in nb.cells if is_solution(cell)]


def solution_sources(
    source_nb: NotebookNode | str | os.PathLike[str], markers: Markers = SOLUTION_MARKERS
) -> dict[str, str]:
    """The instructor's answer for every solution cell of a source notebook.

    Parameters
    ----------
    source_nb : NotebookNode or path
        A source notebook (solutions in place, nbgrader metadata set).
    markers : (str, str)
        The course's solution markers (default nbgrader's ``### BEGIN SOLUTION``, ``###
        END SOLUTION``).

    Returns
    -------
    dict[str, str]
        grade id -> the cell's source with the ``### BEGIN SOLUTION`` / ``### END
        SOLUTION`` lines removed, i.e. what a student who wrote exactly the instructor's
        solution hands in (a written answer without its grader's rubric).
    """
    nb = _as_notebook(source_nb)
    return {
        str(grade_id(cell)): strip_solution_markers(
            split_rubric(cell.source)[0] if is_written_answer(cell) else cell.source, markers
        )
        for cell in nb.cells
        if is_solution(cell)
    }


def make_submission(
    release_nb: NotebookNode | str | os.PathLike[str],
    source_nb: NotebookNode | str | os.PathLike[str],
    replace: Mapping[str, str] | None = None,
    markers: Markers = SOLUTION_MARKERS,
) -> NotebookNode:
    """What a student hands in: the release notebook with its solution cells filled.

    Parameters
    ----------
    release_nb : NotebookNode or path
        The student version generated by nbgrader (not modified: a copy is returned).
    source_nb : NotebookNode or path
        The matching source notebook; its solutions fill every solution cell that
        ``replace`` does not name.
    replace : Mapping[str, str], optional
        grade id -> source for the cells the student answered differently.
    markers : (str, str)
        The course's solution markers (:func:`solution_sources`).

    Returns
    -------
    NotebookNode
        The filled-in release notebook, outputs as in the release (none for code cells).

    Raises
    ------
    KeyError
        If ``replace`` names a grade id that is not a solution cell of the release, or if
        a solution cell of the release has no solution in the source notebook.
    """
    release = copy.deepcopy(_as_notebook(release_nb))
    answers = solution_sources(source_nb, markers)
    replace = dict(replace or {})
    release_ids = set(solution_cell_ids(release))
    unknown = sorted(set(replace) - release_ids)
    if unknown:
        raise KeyError(f"not solution cells of this notebook: {unknown}")
    for cell in release.cells:
        if not is_solution(cell):
            continue
        gid = str(grade_id(cell))
        if gid in replace:
            cell.source = replace[gid]
        elif gid in answers:
            cell.source = answers[gid]
        else:
            raise KeyError(f"solution cell {gid!r} has no solution in the source notebook")
    return release


def combine_variants(name: str, variants: Iterable[Variant], description: str = "") -> Variant:
    """Merge variants that touch different solution cells into one submission.

    The merged variant loses the union of the tests each part loses. This is only
    meaningful when the parts replace disjoint cells and their tests are independent
    (a bug in one function must not break the tests of another); ValueError otherwise
    for overlapping cells.
    """
    replace: dict[str, str] = {}
    lost: set[str] = set()
    for variant in variants:
        overlap = set(replace) & set(variant.replace)
        if overlap:
            raise ValueError(f"variants replace the same cells: {sorted(overlap)}")
        replace.update(variant.replace)
        lost |= variant.lost
    return Variant(name=name, replace=replace, lost=frozenset(lost), description=description)


def load_sample_modules(notebooks: Path = NOTEBOOKS_DIR) -> dict[str, ModuleType]:
    """assignment -> its sample answers' module (``<assignment>/sample_answers.py`` of the
    course's source folder *notebooks*), imported from its file; assignments without one
    are left out."""
    modules: dict[str, ModuleType] = {}
    for folder in sorted(Path(notebooks).iterdir()):
        path = folder / SAMPLES_NAME
        if not path.is_file():
            continue
        name = f"course_sample_answers_{folder.name}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {folder.name}/{SAMPLES_NAME}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        modules[folder.name] = module
    return modules


def load_variants(modules: Mapping[str, ModuleType]) -> dict[str, list[Variant]]:
    """Each module's ``VARIANTS``, by assignment (their names unique in an assignment)."""
    gathered: dict[str, list[Variant]] = {}
    for assignment, module in modules.items():
        variants = list(module.VARIANTS)
        names = [v.name for v in variants]
        if len(set(names)) != len(names):
            raise ValueError(f"{assignment}/{SAMPLES_NAME}: duplicate variant names in {names}")
        gathered[assignment] = variants
    return gathered


#: assignment name -> its sample answers' module (this repository's course).
SAMPLE_MODULES: dict[str, ModuleType] = load_sample_modules()
#: assignment name -> its variants.
VARIANTS: dict[str, list[Variant]] = load_variants(SAMPLE_MODULES)
