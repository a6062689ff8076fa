"""The course.toml that ``release`` writes beside a new course, for the instructor to fill
in: every setting of :mod:`.calendar` commented out, with what it takes, and a table per
assignment with a due date to set. Read back unchanged it is a course with no due dates
yet: the assignments are known, nothing is late, nothing is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from autograder.files import write_atomic
from autograder.term.late import RULES

__all__ = ["calendar_template", "write_calendar_template"]

_HEAD = """\
# The course's calendar: due dates, extensions and late rules, read by
# `python -m autograder grade` (docs/instructor/term.md). As written by `release`, every
# setting is commented out: no due dates yet, so nothing is late. Set a due date by
# taking the `#` off its line; a date without an offset is read in `timezone`.

# timezone = "Europe/Berlin"     # the course's time zone (IANA name); times are shown in it
# policy = "latest"              # of several submissions: latest | best | latest-on-time
# students = ["alice", "bob"]    # the class list: who handed nothing in gets a row

# [late]                         # every assignment's late rule (default: none)
# rule = "per-day"               # {rules}
# percent = 10                   # per started day (on the course's clock) or hour
# cap = 50                       # at most this many percent off (default 100)
# of = "score"                   # a share of the points scored, or "max" (of those available)
# close = "+7 days"              # hard close (a date, or a time after the due date)
"""

_ASSIGNMENT = """
[assignments.{name}]
# due = 2025-10-03T23:59:00      # or with its offset: 2025-10-03T23:59:00+02:00
# late = {{ rule = "zero" }}       # this assignment's own rule, over [late]
"""

_TAIL = """
# An extension: a student's own due date for one assignment.
# [[extensions]]
# student = "alice"
# assignment = {first}
# due = "+3 days"                # or a date
# reason = "illness"
"""


#: A TOML key that needs no quotes.
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(name: str) -> str:
    """``name`` as a TOML key: bare, or quoted (a JSON string is a TOML basic string)."""
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name)


def calendar_template(assignments: Iterable[str]) -> str:
    """course.toml's template for a course of ``assignments`` (see the module docstring)."""
    names = list(assignments)
    text = _HEAD.format(rules=" | ".join(RULES))
    text += "".join(_ASSIGNMENT.format(name=_key(name)) for name in names)
    return text + _TAIL.format(first=json.dumps(names[0] if names else "ps1"))


def write_calendar_template(path: str | Path, assignments: Iterable[str]) -> bool:
    """Write :func:`calendar_template` to ``path`` unless a file is there (the
    instructor's: never overwritten); returns whether it was written."""
    path = Path(path)
    if path.exists():
        return False
    write_atomic(path, calendar_template(assignments))
    return True
