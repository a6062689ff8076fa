"""Term: the course's calendar around grading — due dates, extensions and late rules from
course.toml (:mod:`.calendar`, :mod:`.late`), submission times from what the instructor
has (:mod:`.times`), which of several submissions is graded (:mod:`.attempts`), the outcome
recorded after grading (:mod:`.record`), and grades back into Canvas and Moodle
(:mod:`.canvas`, :mod:`.moodle`). Grading itself is not touched: the term decides what is
graded and what lateness costs, nbgrader's scores stay as they are.

The names below are imported on first use (PEP 562), as :mod:`autograder.grading`'s are:
``python -m autograder --help`` reads its choices (:data:`~.calendar.POLICIES`) without
paying for the gradebook's modules.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "Plan": "attempts",
    "apply_times": "attempts",
    "choose_best": "attempts",
    "final_points": "attempts",
    "group_attempts": "attempts",
    "plan_attempts": "attempts",
    "split_uploads": "attempts",
    "Calendar": "calendar",
    "Extension": "calendar",
    "POLICIES": "calendar",
    "Term": "calendar",
    "load_calendar": "calendar",
    "parse_calendar": "calendar",
    "export_canvas": "canvas",
    "read_canvas_gradebook": "canvas",
    "LateRule": "late",
    "Lateness": "late",
    "describe_delay": "late",
    "lateness": "late",
    "penalty_points": "late",
    "ExportReport": "lms",
    "export_moodle_gradebook": "moodle",
    "export_moodle_worksheet": "moodle",
    "NO_SUBMISSION": "record",
    "TermRun": "record",
    "settle": "record",
    "SubmissionTimes": "times",
    "parse_time": "times",
    "read_times": "times",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
