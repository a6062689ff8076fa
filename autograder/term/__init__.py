"""Term: the course's calendar around grading — due dates, extensions and late rules from
course.toml (:mod:`.calendar`, :mod:`.late`), submission times from what the instructor
has (:mod:`.times`), which of several submissions is graded (:mod:`.attempts`), the outcome
recorded after grading (:mod:`.record`), the course.toml template a release writes
(:mod:`.template`), and grades back into an LMS (:mod:`.lms`: which grades; the LMS's
plugin, :mod:`autograder.lms`, writes them). Grading itself is not touched: the term
decides what is graded and what lateness costs, nbgrader's scores stay as they are.

Its modules import the grading and report layers inside the functions that use them
(those import nbgrader and the worker pool): ``python -m autograder --help`` reads
:data:`~.calendar.POLICIES` without paying for them.
"""

from autograder.term.attempts import (
    Plan,
    apply_times,
    choose_best,
    final_points,
    group_attempts,
    plan_attempts,
    split_uploads,
)
from autograder.term.calendar import (
    POLICIES,
    Calendar,
    Extension,
    Term,
    load_calendar,
    parse_calendar,
)
from autograder.term.late import Lateness, LateRule, describe_delay, lateness, penalty_points
from autograder.term.lms import export_to_lms
from autograder.term.record import NO_SUBMISSION, TermRun, settle
from autograder.term.template import calendar_template, write_calendar_template
from autograder.term.times import SubmissionTimes, parse_time, read_times

__all__ = [
    "NO_SUBMISSION",
    "POLICIES",
    "Calendar",
    "Extension",
    "LateRule",
    "Lateness",
    "Plan",
    "SubmissionTimes",
    "Term",
    "TermRun",
    "apply_times",
    "calendar_template",
    "choose_best",
    "describe_delay",
    "export_to_lms",
    "final_points",
    "group_attempts",
    "lateness",
    "load_calendar",
    "parse_calendar",
    "parse_time",
    "penalty_points",
    "plan_attempts",
    "read_times",
    "settle",
    "split_uploads",
    "write_calendar_template",
]
