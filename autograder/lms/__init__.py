"""LMS: each learning management system the grader knows — Canvas, Moodle, nbgrader's
exchange — is one plugin class (:mod:`.plugins`, one module each) holding its bulk
download's file-name pattern (read by intake), the file of submission times it gives (read
by the term's ``--times``) and its gradebook's import file (written by ``export``), in a
registry the command line's choices come from (:mod:`.base`). Beside them what they share:
submission times (:mod:`.times`), the CSV files an instructor brings from an LMS
(:mod:`.csvfiles`), and the gradebook's grades as the exports read them (:mod:`.grades`).

Intake and the term both use it, and it uses neither (a layer below the stages).

None of its modules imports nbgrader: ``python -m autograder --help`` reads the registry
quickly.
"""

from autograder.lms.base import (
    RESERVED_NAMES,
    ExportOption,
    LmsPlugin,
    lms_exporters,
    lms_intakes,
    lms_plugin,
    lms_plugins,
    register,
    unregister,
)
from autograder.lms.csvfiles import read_csv_file, read_csv_rows, read_number, read_term_file
from autograder.lms.grades import (
    NO_SUBMISSION,
    CourseGrades,
    ExportReport,
    Grade,
    listed,
    points,
    read_course_grades,
)
from autograder.lms.times import SubmissionTimes, parse_time, read_timestamp

__all__ = [
    "NO_SUBMISSION",
    "RESERVED_NAMES",
    "CourseGrades",
    "ExportOption",
    "ExportReport",
    "Grade",
    "LmsPlugin",
    "SubmissionTimes",
    "listed",
    "lms_exporters",
    "lms_intakes",
    "lms_plugin",
    "lms_plugins",
    "parse_time",
    "points",
    "read_course_grades",
    "read_csv_file",
    "read_csv_rows",
    "read_number",
    "read_term_file",
    "read_timestamp",
    "register",
    "unregister",
]
