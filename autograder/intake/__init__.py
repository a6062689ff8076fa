"""Intake: a class's submissions read from a folder or a zip within limits (:mod:`.read`,
with a zip's raw table of contents checked first by :mod:`.ziptoc`), told apart by layout —
nbgrader's, or an LMS's: Canvas's, Moodle's, nbgrader's exchange, each an LMS plugin
(:mod:`autograder.lms`) — and grouped per student (:mod:`.layouts`), then each
student's files matched to the assignment's notebooks and checked (:mod:`.prepare`); which
assignment each submission is, told by its notebooks' grade ids (:mod:`.match`).

The names below are imported on first use (``lazy_loader``, as :mod:`autograder.grading`'s
are): ``python -m autograder --help`` reads :func:`~.layouts.known_layouts` without paying
for nbformat and nbgrader. (``lazy_loader`` keeps :func:`~.prepare.prepare` the function,
though a module of the same name is imported beside it.)
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "layouts": ["detect_layout", "known_layouts", "printable_name", "read_submissions"],
        "match": ["match_assignments"],
        "prepare": ["check_notebook", "copies_of", "guess_assignment", "prepare", "upload_order"],
        "read": ["FileEntry", "MAX_FILE_BYTES", "read_capped", "read_files"],
    },
)
