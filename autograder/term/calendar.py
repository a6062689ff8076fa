"""The course's calendar and late policy: ``course.toml``, the one file the instructor
edits for a term (read with the standard library's :mod:`tomllib`).

::

    timezone = "Europe/Berlin"   # dates written without an offset are read in this zone
    policy = "latest"            # resubmissions: latest | best | latest-on-time
    students = ["alice", "bob"]  # the class list (optional)

    [late]                       # the rule for every assignment (optional; default none)
    rule = "per-day"             # none | zero | per-day | per-hour
    percent = 10                 # per started day or hour
    cap = 50                     # at most this many percent (default 100)
    of = "score"                 # a share of the points scored (default) or "max"
    close = "+7 days"            # hard close: a date, or a time after the due date

    [assignments.ps1]
    due = 2025-10-03T23:59:00    # or 2025-10-03T23:59:00+02:00
    late = { rule = "zero" }     # this assignment's own rule (optional)
    canvas = "PS 1 (4401)"       # its column in an LMS's gradebook, keyed by the LMS
                                 # plugin's name (autograder.lms; optional)

    [[extensions]]
    student = "alice"
    assignment = "ps1"
    due = "+3 days"              # or a date
    reason = "illness"           # optional

Every date needs a time and a time zone: an offset in the date, or ``timezone``. Durations
are ``+N minutes|hours|days|weeks``; days and weeks move the wall clock of the course's
zone (``+3 days`` from 23:59 is 23:59 three days later, daylight saving or not), hours and
minutes are exact. An extension's relative due date counts from the assignment's; a
relative close from the student's own due date (an extension moves it along).

Anything wrong — a malformed file, an unknown key, assignment or student, a date without a
time zone, an extension before the due date — is a :class:`~autograder.models.TermError`
of one line, raised before anything is graded.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from autograder.lms.base import lms_plugins
from autograder.lms.csvfiles import read_term_file
from autograder.models import TermError
from autograder.term.late import BASES, RULES, LateRule, instant
from autograder.text import clock_time

#: Resubmission policies: which of a student's several submissions is graded.
POLICIES = ("latest", "best", "latest-on-time")

_TOP_KEYS = ("timezone", "policy", "students", "late", "assignments", "extensions")
_LATE_KEYS = ("rule", "percent", "cap", "of", "close")
_ASSIGNMENT_KEYS = ("due", "late")  # and a column key of each LMS plugin that takes one
_EXTENSION_KEYS = ("student", "assignment", "due", "reason")
_DURATION = re.compile(
    r"^\+\s*(\d+(?:\.\d+)?)\s*(minute|min|hour|h|day|d|week|w)s?$", re.IGNORECASE
)
_UNITS = {"minute": "minutes", "min": "minutes", "hour": "hours", "h": "hours"}
_UNITS |= {"day": "days", "d": "days", "week": "weeks", "w": "weeks"}


@dataclass(frozen=True)
class Extension:
    """One student's own due date for one assignment."""

    student: str
    assignment: str
    due: datetime
    written: str  # as course.toml has it ("+3 days", or the date)
    reason: str = ""


@dataclass(frozen=True)
class Term:
    """One assignment's calendar: its due date, late rule and hard close."""

    assignment: str
    due: datetime | None
    rule: LateRule = field(default_factory=LateRule)
    close: datetime | timedelta | None = None  # a date, or a time after the due date
    #: LMS plugin -> the assignment's column in its gradebook (``canvas = "Title (id)"``)
    columns: Mapping[str, str] = field(default_factory=dict)

    def close_for(self, due: datetime) -> datetime | None:
        """The hard close for a student whose due date is ``due``."""
        if self.close is None:
            return None
        if isinstance(self.close, timedelta):
            return _shift(due, self.close)
        return max(self.close, due, key=instant)


@dataclass
class Calendar:
    """A course's calendar (see the module docstring); empty when there is no course.toml."""

    source: str = ""
    timezone: tzinfo | None = None
    policy: str = "latest"
    students: list[str] = field(default_factory=list)
    terms: dict[str, Term] = field(default_factory=dict)
    extensions: dict[tuple[str, str], Extension] = field(default_factory=dict)

    def term(self, assignment: str) -> Term | None:
        """The assignment's calendar (None: course.toml says nothing of it)."""
        return self.terms.get(assignment)

    def due_for(self, student: str, assignment: str) -> datetime | None:
        """The student's due date for the assignment (their extension's, if any)."""
        extension = self.extensions.get((student, assignment))
        if extension is not None:
            return extension.due
        term = self.terms.get(assignment)
        return term.due if term is not None else None

    def check_students(self, seen: Iterable[str], assignments: Iterable[str]) -> None:
        """Refuse an extension for a student outside the class: ``students`` when
        course.toml lists them, otherwise the students ``seen`` in the submissions (only
        the extensions of ``assignments``, those being graded, are checked then)."""
        listed = set(self.students)
        known = listed or set(seen)
        graded = set(assignments)
        for (student, assignment), _ in sorted(self.extensions.items()):
            if student in known or (not listed and assignment not in graded):
                continue
            where = "the class list (students)" if listed else "the submissions"
            raise TermError(
                f"{self.source}: extensions: unknown student {student!r} "
                f"(not in {where} for {assignment})"
            )

    @property
    def clock(self) -> tzinfo:
        """The course's clock: course.toml's ``timezone``, else UTC (every output shows
        times on it, :func:`autograder.text.clock_time`)."""
        return self.timezone if self.timezone is not None else UTC

    def clock_name(self) -> str:
        """The course's clock in words, for summary.md: ``Europe/Berlin``, or ``UTC`` and
        why."""
        if self.timezone is None:
            return "UTC (course.toml names no timezone)"
        return str(getattr(self.timezone, "key", None) or self.timezone)

    def in_zone(self, moment: datetime) -> datetime:
        """``moment`` on the course's clock (:attr:`clock`)."""
        return moment.astimezone(self.clock)

    def shown(self, moment: datetime | None) -> str:
        """A time as the flags, summary.md and the feedback pages show it: on the course's
        clock with its offset (``2025-10-24 23:59 +02:00 CEST``); ``-`` for none."""
        return "-" if moment is None else clock_time(moment, self.clock)


def _shift(moment: datetime, delta: timedelta) -> datetime:
    """``moment`` + ``delta``: whole days on the wall clock of ``moment``'s zone, the rest
    exactly. (Python adds a timedelta to an aware datetime on its wall clock.)"""
    days = timedelta(days=delta.days)
    on_the_clock = moment + days
    return (on_the_clock.astimezone(UTC) + (delta - days)).astimezone(moment.tzinfo)


def _fail(source: str, where: str, message: str) -> TermError:
    return TermError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _duration(text: str) -> timedelta | None:
    match = _DURATION.match(text.strip())
    if match is None:
        return None
    amount, unit = float(match.group(1)), _UNITS[match.group(2).lower()]
    return timedelta(**{unit: amount})


class _Reader:
    """Reads one course.toml's values with the file's name and the key in every error."""

    def __init__(self, source: str, zone: tzinfo | None) -> None:
        self.source = source
        self.zone = zone

    def fail(self, where: str, message: str) -> TermError:
        return _fail(self.source, where, message)

    def moment(self, value: object, where: str) -> datetime:
        """A date with its time zone (a TOML date-time, or an ISO 8601 string)."""
        if isinstance(value, str):
            text = value.strip()
            try:
                value = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                raise self.fail(
                    where, f"{text!r} is not a date (write e.g. 2025-10-03T23:59:00+02:00)"
                ) from None
        if isinstance(value, date) and not isinstance(value, datetime):
            raise self.fail(where, f"{value} has no time of day (write e.g. {value}T23:59:00)")
        if isinstance(value, time):
            raise self.fail(where, f"{value} is a time without a date")
        if not isinstance(value, datetime):
            raise self.fail(where, f"expected a date, got {value!r}")
        if value.tzinfo is None:
            if self.zone is None:
                raise self.fail(
                    where,
                    f"{value.isoformat()} has no time zone (add an offset such as +02:00, "
                    'or set timezone = "Europe/Berlin" at the top of the file)',
                )
            return value.replace(tzinfo=self.zone)
        return value.astimezone(self.zone) if self.zone is not None else value

    def moment_or_duration(self, value: object, where: str) -> datetime | timedelta:
        if isinstance(value, str) and value.strip().startswith("+"):
            delta = _duration(value)
            if delta is None or delta <= timedelta(0):
                raise self.fail(
                    where, f'{value!r} is not a duration (write e.g. "+3 days" or "+12 hours")'
                )
            return delta
        return self.moment(value, where)

    def number(self, value: object, where: str, low: float, high: float) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(where, f"expected a number, got {value!r}")
        if not low < value <= high:
            raise self.fail(
                where, f"{value!r} is out of range (more than {low:g}, at most {high:g})"
            )
        return float(value)

    def choice(self, value: object, where: str, choices: Iterable[str]) -> str:
        choices = tuple(choices)
        if value not in choices:
            raise self.fail(where, f"{value!r} is not one of {', '.join(choices)}")
        return str(value)

    def table(self, value: object, where: str, keys: Iterable[str]) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a table, got {value!r}")
        keys = tuple(keys)
        unknown = sorted(set(value) - set(keys))
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r} (expected: {', '.join(keys)})")
        return value

    def rule(
        self, value: object, where: str, base: LateRule, close: datetime | timedelta | None
    ) -> tuple[LateRule, datetime | timedelta | None]:
        """A ``late`` table over ``base``; and its close (``close`` when it names none)."""
        table = self.table(value, where, _LATE_KEYS)
        kind = self.choice(table.get("rule", base.rule), f"{where}.rule", RULES)
        rule = replace(base, rule=kind)
        if "percent" in table:
            rule = replace(rule, percent=self.number(table["percent"], f"{where}.percent", 0, 100))
        if "cap" in table:
            rule = replace(rule, cap=self.number(table["cap"], f"{where}.cap", 0, 100))
        if "of" in table:
            rule = replace(rule, of=self.choice(table["of"], f"{where}.of", BASES))
        if kind in ("per-day", "per-hour") and rule.percent <= 0:
            raise self.fail(where, f"rule {kind!r} needs a percent (e.g. percent = 10)")
        if "close" in table:
            close = self.moment_or_duration(table["close"], f"{where}.close")
        return rule, close


def _zone(source: str, value: object) -> tzinfo:
    if not isinstance(value, str) or not value.strip():
        raise _fail(
            source, "timezone", f'expected a zone name such as "Europe/Berlin", got {value!r}'
        )
    try:
        return ZoneInfo(value.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise _fail(
            source,
            "timezone",
            f'unknown time zone {value!r} (an IANA name such as "Europe/Berlin")',
        ) from None


def parse_calendar(text: str, assignments: Iterable[str], source: str = "course.toml") -> Calendar:
    """A calendar from course.toml's text; ``assignments``: the course's assignments.

    Raises
    ------
    TermError
        Anything in the file that cannot be used (one line naming the file and the key).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TermError(f"{source}: not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise TermError(f"{source}: not UTF-8 text") from None
    known = list(assignments)
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise _fail(source, "", f"unknown key {unknown[0]!r} (expected: {', '.join(_TOP_KEYS)})")
    zone = _zone(source, data["timezone"]) if "timezone" in data else None
    reader = _Reader(source, zone)
    calendar = Calendar(source=source, timezone=zone)
    if "policy" in data:
        calendar.policy = reader.choice(data["policy"], "policy", POLICIES)
    students = data.get("students", [])
    if not isinstance(students, list) or not all(isinstance(s, str) and s for s in students):
        raise reader.fail("students", "expected a list of student ids (strings)")
    calendar.students = list(students)
    default_rule, default_close = LateRule(), None
    if "late" in data:
        default_rule, default_close = reader.rule(data["late"], "late", LateRule(), None)
    tables = reader.table(data.get("assignments", {}), "assignments", known)
    column_keys = {p.name: p.column_key for p in lms_plugins() if p.column_key}
    for name in tables:
        where = f"assignments.{name}"
        table = reader.table(tables[name], where, (*_ASSIGNMENT_KEYS, *column_keys))
        due = reader.moment(table["due"], f"{where}.due") if "due" in table else None
        rule, close = default_rule, default_close
        if "late" in table:
            rule, close = reader.rule(table["late"], f"{where}.late", default_rule, default_close)
        if due is None and "late" in table:
            # its own rule or close needs its due date; the course's [late] waits for one
            # (a template's assignment whose due date is not set yet)
            raise reader.fail(where, "a late rule or close needs a due date (due = ...)")
        if due is not None and isinstance(close, datetime) and instant(close) <= instant(due):
            raise reader.fail(
                where, f"closes ({close.isoformat()}) before it is due ({due.isoformat()})"
            )
        columns = {}
        for key, what in column_keys.items():
            column = table.get(key, "")
            if not isinstance(column, str):
                raise reader.fail(f"{where}.{key}", f"expected {what}")
            if column:
                columns[key] = column
        calendar.terms[name] = Term(name, due, rule, close if due is not None else None, columns)
    extensions = data.get("extensions", [])
    if not isinstance(extensions, list):
        raise reader.fail("extensions", "expected [[extensions]] tables")
    for index, entry in enumerate(extensions, start=1):
        where = f"extensions #{index}"
        table = reader.table(entry, where, _EXTENSION_KEYS)
        for key in ("student", "assignment", "due"):
            if key not in table:
                raise reader.fail(where, f"missing {key} = ...")
        student, assignment = table["student"], table["assignment"]
        if not isinstance(student, str) or not student:
            raise reader.fail(f"{where}.student", "expected a student id (a string)")
        if assignment not in known:
            raise reader.fail(
                f"{where}.assignment",
                f"unknown assignment {assignment!r}; the course has: {', '.join(known)}",
            )
        term = calendar.terms.get(assignment)
        if term is None or term.due is None:
            raise reader.fail(
                where, f"{assignment} has no due date to extend (assignments.{assignment}.due)"
            )
        written = table["due"]
        given = reader.moment_or_duration(written, f"{where}.due")
        extended = _shift(term.due, given) if isinstance(given, timedelta) else given
        if instant(extended) <= instant(term.due):
            raise reader.fail(
                f"{where}.due",
                f"{extended.isoformat()} is not after the due date {term.due.isoformat()}",
            )
        reason = table.get("reason", "")
        if not isinstance(reason, str):
            raise reader.fail(f"{where}.reason", "expected text")
        if (student, assignment) in calendar.extensions:
            raise reader.fail(where, f"a second extension for {student} on {assignment}")
        shown = written if isinstance(written, str) else extended.isoformat()
        calendar.extensions[(student, assignment)] = Extension(
            student, assignment, extended, shown, " ".join(reason.split())
        )
    return calendar


def load_calendar(path: str | Path | None, assignments: Iterable[str]) -> Calendar:
    """The calendar in ``path`` (None, or a default path that does not exist: an empty
    calendar). Raises :class:`TermError` (one line) for a file that cannot be used."""
    if path is None:
        return Calendar()
    path = Path(path)
    raw = read_term_file(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TermError(f"{path.name}: not UTF-8 text") from None
    return parse_calendar(text, assignments, source=path.name)
