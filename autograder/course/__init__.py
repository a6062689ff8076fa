"""The course: an nbgrader course directory built from a course's source — its folders, made
and released, and its configuration loaded once (:mod:`.directory`: :class:`Course`) — its
nbgrader settings (:mod:`.config`) and the ``nbgrader_config.py`` written into it
(:mod:`.config_file`), which course it holds and the course folders built around a place
(:mod:`.origin`), one run at a time in it (:mod:`.lock`), its gradebook and what each
submission is worth in it (:mod:`.gradebook`: :class:`Totals`), whether a gradebook's
database can be used (:mod:`.database`), and this process made ready for nbgrader
(:mod:`.nbgrader_env`)."""

from autograder.course.database import check_db_url, gradebook_problem
from autograder.course.directory import DEFAULT_COURSE_DIR, Course, open_course
from autograder.course.gradebook import (
    ManualPending,
    Totals,
    assignment_points,
    autoflush_warnings_hidden,
    hand_graded_cells,
    id_length_limit,
    load_submissions,
    pending_of,
    read_totals,
    totals_of,
)
from autograder.course.nbgrader_env import prepare_nbgrader
from autograder.course.origin import course_near, holds_a_course, list_assignments

__all__ = [
    "DEFAULT_COURSE_DIR",
    "Course",
    "ManualPending",
    "Totals",
    "assignment_points",
    "autoflush_warnings_hidden",
    "check_db_url",
    "course_near",
    "gradebook_problem",
    "hand_graded_cells",
    "holds_a_course",
    "id_length_limit",
    "list_assignments",
    "load_submissions",
    "open_course",
    "pending_of",
    "prepare_nbgrader",
    "read_totals",
    "totals_of",
]
