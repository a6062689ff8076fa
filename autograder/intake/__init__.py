"""Intake: a class's submissions read from a folder or a zip (:mod:`.read`), told apart by
layout — nbgrader's, Canvas's, Moodle's — and grouped per student (:mod:`.layouts`), then
each student's files matched to the assignment's notebooks and checked (:mod:`.prepare`)."""

from autograder.intake.layouts import LAYOUTS, detect_layout, read_submissions
from autograder.intake.prepare import check_notebook, guess_assignment, prepare
from autograder.intake.read import MAX_FILE_BYTES, read_files

__all__ = [
    "LAYOUTS",
    "MAX_FILE_BYTES",
    "check_notebook",
    "detect_layout",
    "guess_assignment",
    "prepare",
    "read_files",
    "read_submissions",
]
