"""LMS: each learning management system the grader knows — Canvas, Moodle, nbgrader's
exchange — is one plugin class (:mod:`.plugins`, one module each) holding its bulk
download's file-name pattern (read by intake), the file of submission times it gives (read
by the term's ``--times``) and its gradebook's import file (written by ``export``), in a
registry the command line's choices come from (:mod:`.base`). Beside them what they share:
submission times (:mod:`.times`), the CSV files an instructor brings from an LMS
(:mod:`.csvfiles`), and the gradebook's grades as the exports read them (:mod:`.grades`).

Intake and the term both use it, and it uses neither (a layer below the stages).

The names below are imported on first use (``lazy_loader``, as :mod:`autograder.intake`'s
are): ``python -m autograder --help`` reads the registry without paying for nbgrader.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "base": [
            "ExportOption",
            "LmsPlugin",
            "RESERVED_NAMES",
            "lms_exporters",
            "lms_plugin",
            "lms_plugins",
            "register",
            "unregister",
        ],
        "csvfiles": ["read_csv_file", "read_csv_rows", "read_number", "read_term_file"],
        "grades": [
            "NO_SUBMISSION",
            "CourseGrades",
            "ExportReport",
            "Grade",
            "listed",
            "points",
            "read_course_grades",
        ],
        "times": ["SubmissionTimes", "parse_time", "read_timestamp"],
    },
)
