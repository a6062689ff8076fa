"""The written answers of the course's source notebooks, and the grader's rubric in them.

A written answer (a markdown cell that nbgrader grades and students write) carries, in the
source notebook, the model answer and then, from a line ``#### Rubric`` on, the grader's
rubric (:func:`split_rubric`, the one parser). nbgrader's release replaces the whole cell by
its stub, so students never get the rubric; formgrader shows it beside the student's answer
(``autograder.grading.preprocessors.ShowRubric``), the lecture site under the model answer,
the slides not at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["RUBRIC_HEADING", "is_written_answer", "split_rubric"]

#: The line that starts the grader's rubric in a written answer of a source notebook.
RUBRIC_HEADING = "#### Rubric"


def is_written_answer(cell: NotebookNode) -> bool:
    """A written answer: a markdown cell nbgrader grades (by hand) that students write."""
    from nbgrader import utils  # here: importing nbgrader takes seconds

    return (
        cell.get("cell_type") == "markdown"
        and bool(utils.is_grade(cell))
        and bool(utils.is_solution(cell))
    )


def split_rubric(source: str) -> tuple[str, str | None]:
    """A written answer's source split at its ``#### Rubric`` line: the model answer above
    it (trailing blank lines dropped) and the rubric below it, or ``(source, None)`` when
    the cell has no such line."""
    lines = source.split("\n")
    for number, line in enumerate(lines):
        if line.strip() == RUBRIC_HEADING:
            return "\n".join(lines[:number]).rstrip(), "\n".join(lines[number + 1 :]).strip()
    return source, None
