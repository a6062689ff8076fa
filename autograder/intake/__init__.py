"""Intake: a class's submissions read from a folder or a zip within limits (:mod:`.read`,
with a zip's raw table of contents checked first by :mod:`.ziptoc`), told apart by layout —
nbgrader's, Canvas's, Moodle's — and grouped per student (:mod:`.layouts`), then each
student's files matched to the assignment's notebooks and checked (:mod:`.prepare`); which
assignment each submission is, told by its notebooks' grade ids (:mod:`.match`)."""

from autograder.intake.layouts import LAYOUTS, detect_layout, read_submissions, read_timestamp
from autograder.intake.match import match_assignments
from autograder.intake.prepare import (
    check_notebook,
    copies_of,
    guess_assignment,
    prepare,
    upload_order,
)
from autograder.intake.read import (
    MAX_FILE_BYTES,
    FileEntry,
    IntakeLimits,
    read_capped,
    read_files,
)

__all__ = [
    "LAYOUTS",
    "MAX_FILE_BYTES",
    "FileEntry",
    "IntakeLimits",
    "check_notebook",
    "copies_of",
    "detect_layout",
    "guess_assignment",
    "match_assignments",
    "prepare",
    "read_capped",
    "read_files",
    "read_submissions",
    "read_timestamp",
    "upload_order",
]
