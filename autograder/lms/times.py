"""Submission times as the LMSs and nbgrader write them: the times a file of an LMS gives
(:class:`SubmissionTimes`, read by each LMS plugin's ``read_times`` and by the term's
plain CSV), an ISO 8601 or nbgrader time (:func:`parse_time`), and nbgrader's
``timestamp.txt`` (:func:`read_timestamp`, nbgrader's own ``parse_utc``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from autograder.text import first_line


@dataclass
class SubmissionTimes:
    """The times of a ``--times`` file: (assignment or None for any, student) -> time,
    the students it lists (an LMS's worksheet lists every participant) and their names."""

    source: str = ""
    kind: str = ""  # the LMS plugin's name, or "csv"
    times: dict[tuple[str | None, str], datetime] = field(default_factory=dict)
    roster: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)

    def time_for(self, student: str, assignment: str) -> datetime | None:
        """When ``student`` handed ``assignment`` in, if the file says."""
        return self.times.get((assignment, student), self.times.get((None, student)))

    def assignments(self) -> set[str]:
        """The assignments the file names (empty: its times are for any assignment)."""
        return {a for a, _ in self.times if a is not None}


def _zone_named(name: str) -> tzinfo | None:
    if name.upper() in ("UTC", "GMT", "Z"):
        return UTC
    sign = name[:1]
    digits = name[1:].replace(":", "")
    if sign in "+-" and len(digits) == 4 and digits.isdigit():
        minutes = int(digits[:2]) * 60 + int(digits[2:])
        return timezone(timedelta(minutes=-minutes if sign == "-" else minutes))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _iso(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def parse_time(text: str, zone: tzinfo | None) -> datetime:
    """An ISO 8601 time (``2025-10-03T23:59:00+02:00``) or nbgrader's (``2025-10-03
    21:59:00.000000 UTC``), aware; a time without a zone is read in ``zone``. Raises
    ValueError saying what is wrong."""
    text = text.strip()
    moment = _iso(text)
    if moment is None:
        head, _, name = text.rpartition(" ")
        tz = _zone_named(name) if head else None
        moment = _iso(head) if tz is not None else None
        if moment is None or moment.tzinfo is not None:
            raise ValueError(f"{text!r} is not a time (write e.g. 2025-10-03T23:59:00+02:00)")
        moment = moment.replace(tzinfo=tz)
    if moment.tzinfo is None:
        if zone is None:
            raise ValueError(
                f"{text!r} has no time zone (add an offset such as +02:00, or set timezone "
                "in course.toml)"
            )
        moment = moment.replace(tzinfo=zone)
    return moment


def read_timestamp(text: str | bytes) -> datetime:
    """When a submission was handed in, from its ``timestamp.txt`` (or an exchange folder's
    name), as nbgrader reads it (its own ``parse_utc``: a time without a zone is UTC),
    time-zone aware; except a numeric offset ("... +0200"), which nbgrader's ``parse_utc``
    takes for seconds and which is read here as the offset it is. Raises ValueError when
    it cannot be read."""
    from nbgrader.utils import parse_utc

    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.strip()
    if not text or len(text) > 100:
        raise ValueError("not a time")
    head, _, offset = text.rpartition(" ")
    if re.fullmatch(r"[+-]\d{4}", offset):
        try:
            return datetime.fromisoformat(f"{head}{offset[:3]}:{offset[3:]}").astimezone(UTC)
        except ValueError:
            raise ValueError(f"not a time: {text[:40]!r}") from None
    try:
        moment = parse_utc(text)
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(first_line(str(exc), 80) or "not a time") from None
    return moment.replace(tzinfo=UTC)
