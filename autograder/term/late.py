"""Late rules: how late a submission is and what it costs, as nbgrader counts it.

A submission is late when it is handed in *after* its due date (at the due date exactly is
on time). A rule (:class:`LateRule`) then takes a share of the points:

- ``none``: nothing (the lateness is still flagged);
- ``zero``: everything (nbgrader's ``LateSubmissionPlugin`` "zero");
- ``per-day`` / ``per-hour``: ``percent`` for every started day or hour, at most ``cap``
  percent. A day is a calendar day on the course's clock (its time zone): one day late
  means until the same local time the next day, which is 23 or 25 hours across a
  daylight-saving change; an hour is an hour.

The share is of the points scored (``of = "score"``, nbgrader's meaning: the penalty never
exceeds the score) or of the points available (``of = "max"``); nbgrader's export then
reports ``score = max(0, raw_score - late_submission_penalty)``.

A hard close (``close``) stops grading: a submission after it is not graded at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

RULES = ("none", "zero", "per-day", "per-hour")


def instant(moment: datetime) -> datetime:
    """``moment`` in UTC: compare and subtract instants this way. (Python compares and
    subtracts two datetimes of the same zone by their wall clocks, which is wrong across
    a daylight-saving change.)"""
    return moment.astimezone(UTC)


BASES = ("score", "max")


@dataclass(frozen=True)
class LateRule:
    """What handing in late costs (see the module docstring)."""

    rule: str = "none"
    percent: float = 0.0
    cap: float = 100.0
    of: str = "score"

    def describe(self) -> str:
        """The rule in a few words, for flags and summary.md."""
        if self.rule == "none":
            return "no penalty for lateness"
        if self.rule == "zero":
            return "zero after the due date"
        unit = "day" if self.rule == "per-day" else "hour"
        base = "the score" if self.of == "score" else "the points available"
        cap = f", at most {self.cap:g} %" if self.cap < 100 else ""
        return f"{self.percent:g} % of {base} per started {unit}{cap}"


@dataclass(frozen=True)
class Lateness:
    """How late one submission was and the share of points it loses."""

    late: bool
    late_by: timedelta = timedelta(0)
    units: int = 0  # started days or hours (per-day / per-hour rules)
    fraction: float = 0.0  # of the score (or of the max, see LateRule.of)


def started_units(rule: str, due: datetime, submitted: datetime) -> int:
    """Started days (``per-day``, on ``due``'s own clock: its time zone) or hours
    (otherwise) between ``due`` and a later ``submitted``; 0 when not late."""
    submitted = instant(submitted)
    if submitted <= due:
        return 0
    if rule == "per-day":
        # aware datetime + timedelta(days=k) moves the wall clock of due's zone: a day
        # across a daylight-saving change is 23 or 25 hours long
        # (start below the answer: a zone's offsets differ by hours, not a day)
        days = max(1, (submitted - due).days - 1)
        while due + timedelta(days=days) < submitted:
            days += 1
        return days
    return math.ceil((submitted - due) / timedelta(hours=1))


def lateness(rule: LateRule, due: datetime, submitted: datetime) -> Lateness:
    """How late ``submitted`` is against ``due`` and the share of points ``rule`` takes."""
    submitted = instant(submitted)
    if submitted <= due:
        return Lateness(False)
    late_by = submitted - due
    if rule.rule == "none":
        return Lateness(True, late_by)
    if rule.rule == "zero":
        return Lateness(True, late_by, 0, 1.0)
    units = started_units(rule.rule, due, submitted)
    fraction = min(rule.cap, rule.percent * units) / 100.0
    return Lateness(True, late_by, units, min(fraction, 1.0))


def penalty_points(rule: LateRule, fraction: float, score: float, max_score: float) -> float:
    """The points a share ``fraction`` takes from a notebook that scored ``score`` of
    ``max_score`` (rounded to 1/100 of a point, as the LMSs show grades)."""
    base = score if rule.of == "score" else max_score
    return round(max(0.0, fraction * base), 2)


def describe_delay(delta: timedelta) -> str:
    """``1 day 3 h 31 min``: a positive time span in words (whole minutes, rounded up)."""
    minutes = math.ceil(delta.total_seconds() / 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = []
    if days:
        parts.append(f"{days} day" + ("" if days == 1 else "s"))
    if hours:
        parts.append(f"{hours} h")
    if minutes or not parts:
        parts.append(f"{minutes} min")
    return " ".join(parts)
