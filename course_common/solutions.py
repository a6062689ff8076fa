"""nbgrader's solution markers in the course's source notebooks, and a solution without them.

A solution cell holds the instructor's code between two marker lines (``### BEGIN
SOLUTION`` and ``### END SOLUTION``: nbgrader's ``ClearSolutions`` delimiters, which a
course may set). nbgrader's release replaces the region, markers included, by the stub; a
student who typed exactly the instructor's code hands it in without them
(:mod:`autograder.samples`), and the lecture shows it without them (:mod:`lecture`).
"""

from __future__ import annotations

from nbgrader.preprocessors import ClearSolutions

__all__ = [
    "BEGIN_SOLUTION",
    "END_SOLUTION",
    "SOLUTION_MARKERS",
    "Markers",
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
