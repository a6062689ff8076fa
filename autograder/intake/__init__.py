"""Intake: a class's submissions read from a folder or a zip within limits (:mod:`.read`,
with a zip's raw table of contents checked first by :mod:`.ziptoc`), told apart by layout —
nbgrader's, or an LMS's: Canvas's, Moodle's, nbgrader's exchange, each an LMS plugin
(:mod:`autograder.lms`) — and grouped per student (:mod:`.layouts`), then each
student's files matched to the assignment's notebooks and checked (:mod:`.prepare`); which
assignment each submission is, told by its folder's name, else its file names, else its
notebooks' grade ids (:mod:`.match`).

Its modules import nbformat inside the functions that use it: ``python -m autograder
--help`` reads :func:`~.layouts.known_layouts` without paying for nbformat and nbgrader.
(The name ``prepare`` here is the function :func:`~.prepare.prepare`, not its module.)
"""

from autograder.intake.layouts import detect_layout, known_layouts, printable_name, read_submissions
from autograder.intake.match import match_assignments
from autograder.intake.prepare import (
    check_notebook,
    copies_of,
    guess_assignment,
    prepare,
    upload_order,
)
from autograder.intake.read import MAX_FILE_BYTES, FileEntry, read_capped, read_files

__all__ = [
    "MAX_FILE_BYTES",
    "FileEntry",
    "check_notebook",
    "copies_of",
    "detect_layout",
    "guess_assignment",
    "known_layouts",
    "match_assignments",
    "prepare",
    "printable_name",
    "read_capped",
    "read_files",
    "read_submissions",
    "upload_order",
]
