"""Term: the course's calendar around grading — due dates, extensions and late rules from
course.toml (:mod:`.calendar`, :mod:`.late`), submission times from what the instructor
has (:mod:`.times`), which of several submissions is graded (:mod:`.attempts`), the outcome
recorded after grading (:mod:`.record`), the course.toml template a release writes
(:mod:`.template`), and grades back into an LMS (:mod:`.lms`: which grades; the LMS's
plugin, :mod:`autograder.lms`, writes them). Grading itself is not touched: the term
decides what is graded and what lateness costs, nbgrader's scores stay as they are.

The names below are imported on first use (``lazy_loader``, as :mod:`autograder.grading`'s
are): ``python -m autograder --help`` reads :data:`~.calendar.POLICIES` without paying for
the gradebook's modules.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "attempts": [
            "Plan",
            "apply_times",
            "choose_best",
            "final_points",
            "group_attempts",
            "plan_attempts",
            "split_uploads",
        ],
        "calendar": [
            "Calendar",
            "Extension",
            "POLICIES",
            "Term",
            "load_calendar",
            "parse_calendar",
        ],
        "late": ["LateRule", "Lateness", "describe_delay", "lateness", "penalty_points"],
        "lms": ["export_to_lms"],
        "record": ["NO_SUBMISSION", "TermRun", "settle"],
        "template": ["calendar_template", "write_calendar_template"],
        "times": ["SubmissionTimes", "parse_time", "read_times"],
    },
)
