"""The course's notebooks, in course order, and the lecture-mode marks on them."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
from nbgrader.utils import is_grade, is_solution

from course_common.paths import NOTEBOOKS_DIR, REPO_ROOT
from course_common.rubric import is_written_answer, split_rubric
from course_common.solutions import strip_solution_markers

ROOT = REPO_ROOT

# notebooks/NN_name/NN_name.ipynb: the folder and the file share the name.
_NAME = re.compile(r"^\d{2}_[a-z0-9_]+$")

#: Tag put on a code cell that students write (nbgrader "solution"), in lecture copies.
SOLUTION_TAG = "solution"
#: Tag put on an nbgrader test cell, in lecture copies.
TEST_TAG = "graded-test"
#: The paragraph (under a notebook's title) that tells students what to do when ``import
#: linlib`` fails on their machine: advice for students, not for the lecture.
SETUP_ADVICE = re.compile(r"^\*If `import linlib`.*(?:\n[ \t]*\S.*)*", re.MULTILINE)


def course_notebooks(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """Every source notebook ``NN_name/NN_name.ipynb``, in course order (by number)."""
    found = [
        path
        for path in notebooks_dir.glob("*/*.ipynb")
        if _NAME.match(path.stem) and path.parent.name == path.stem
    ]
    return sorted(found, key=lambda path: path.stem)


def is_test(cell: nbformat.NotebookNode) -> bool:
    """An nbgrader test cell (graded, not written by students)."""
    return cell.cell_type == "code" and bool(is_grade(cell)) and not is_solution(cell)


def without_student_text(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of *nb* without what only students need: the solution markers of its
    solution cells (``### BEGIN SOLUTION`` / ``### END SOLUTION``, the code between them
    kept) and the setup advice (:data:`SETUP_ADVICE`). Cells are neither added nor
    removed, so a cell's index is the same in the copy."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type == "code" and is_solution(cell):
            cell.source = strip_solution_markers(cell.source)
        elif cell.cell_type == "markdown":
            cell.source = _without_setup_advice(cell.source)
    return nb


def _without_setup_advice(source: str) -> str:
    while (found := SETUP_ADVICE.search(source)) is not None:
        before = source[: found.start()].rstrip("\n")
        after = source[found.end() :].lstrip("\n")
        source = f"{before}\n\n{after}" if before and after else before or after
    return source


def lecture_copy(nb: nbformat.NotebookNode, *, site: bool) -> nbformat.NotebookNode:
    """The notebook as the lecture shows it, on the *site* or on the slides: without the
    students' text (:func:`without_student_text`), with its solutions and tests marked
    (:func:`mark_solutions`; a written answer's rubric on the site only)."""
    return mark_solutions(without_student_text(nb), fence_markdown=site)


def mark_solutions(nb: nbformat.NotebookNode, *, fence_markdown: bool) -> nbformat.NotebookNode:
    """Tag the cells students write (``solution``) and the graded tests (``graded-test``).

    Works on a copy that the lecture build renders; the source notebooks are never
    changed. Both MyST-NB and nbconvert turn a code cell's tags into CSS classes
    (``tag_solution``, ``celltag_solution``). A written answer (a markdown solution
    cell) is, with *fence_markdown*, wrapped in a MyST admonition of class ``solution``
    for the site, whose markdown cells carry no classes, and its grader's rubric (below
    the cell's ``#### Rubric`` line, :func:`course_common.rubric.split_rubric`) follows in
    an admonition of class ``rubric``: the site is for lecturers. Without *fence_markdown*
    (the slides, shown in class) the rubric is left out.
    """
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        tags = list(cell.metadata.get("tags", []))
        if is_solution(cell):
            tags.append(SOLUTION_TAG)
            if is_written_answer(cell):
                answer, rubric = split_rubric(cell.source)
                cell.source = answer
                if fence_markdown:
                    cell.source = (
                        "::::{admonition} Students write this answer\n:class: solution\n"
                        f"{answer}\n::::"
                    )
                    if rubric:
                        cell.source += (
                            "\n\n::::{admonition} Rubric for the grader (not in the students' "
                            f"release)\n:class: grader-rubric\n{rubric}\n::::"
                        )
        elif is_test(cell):
            tags.append(TEST_TAG)
        if tags:
            cell.metadata["tags"] = sorted(set(tags))
    return nb


def notebook_title(nb: nbformat.NotebookNode, fallback: str) -> str:
    """The text of the notebook's first ``#`` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback
