"""nbgrader's solution markers in the course's source notebooks, and a solution without them.

A solution cell holds the instructor's code between two marker lines (``### BEGIN
SOLUTION`` and ``### END SOLUTION``: nbgrader's ``ClearSolutions`` delimiters, which a
course may set). nbgrader's release replaces the region, markers included, by the stub; a
student who typed exactly the instructor's code hands it in without them
(:mod:`autograder.samples`), and the lecture shows it without them (:mod:`lecture`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nbgrader.preprocessors import ClearSolutions

__all__ = [
    "BEGIN_SOLUTION",
    "END_SOLUTION",
    "SOLUTION_MARKERS",
    "Markers",
    "course_markers",
    "solution_lines",
    "strip_solution_markers",
]

#: nbgrader's default delimiters (it matches a substring of the line, so do we).
BEGIN_SOLUTION: str = ClearSolutions.begin_solution_delimeter.default_value
END_SOLUTION: str = ClearSolutions.end_solution_delimeter.default_value

#: A course's solution markers: (begin, end).
Markers = tuple[str, str]
#: nbgrader's default markers.
SOLUTION_MARKERS: Markers = (BEGIN_SOLUTION, END_SOLUTION)


def strip_solution_markers(source: str, markers: Markers = SOLUTION_MARKERS) -> str:
    """*source* without the lines that hold a solution marker (the code between them kept)."""
    begin, end = markers
    lines = source.split("\n")
    return "\n".join(line for line in lines if begin not in line and end not in line)


def course_markers(config: Mapping[str, Any]) -> Markers:
    """The solution markers of a course's nbgrader configuration (nbgrader's by default)."""
    section = config.get("ClearSolutions", {})
    return (
        str(section.get("begin_solution_delimeter", BEGIN_SOLUTION)),
        str(section.get("end_solution_delimeter", END_SOLUTION)),
    )


def solution_lines(source: str, markers: Markers = SOLUTION_MARKERS) -> set[int] | None:
    """The line numbers (1-based) of *source* that nbgrader's release replaces: each
    region from a begin marker's line to its end marker's line; None when the cell holds no
    marker (the release replaces all of it)."""
    begin, end = markers
    lines: set[int] = set()
    start: int | None = None
    for number, line in enumerate(source.split("\n"), start=1):
        if start is None and begin in line:
            start = number
        elif start is not None and end in line:
            lines.update(range(start, number + 1))
            start = None
    if start is not None:  # an unclosed region runs to the end, as nbgrader reads it
        lines.update(range(start, source.count("\n") + 2))
    return lines or None
