"""Late rules against hand-counted expectations: a minute before, at and a minute after the
due date, and across both daylight-saving changes of Europe/Berlin in 2025 (clocks forward
on 30 March at 02:00, back on 26 October at 03:00)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from autograder.term import LateRule, describe_delay, lateness, penalty_points
from autograder.term.late import started_units

BERLIN = ZoneInfo("Europe/Berlin")
MINUTE = timedelta(minutes=1)
DUE = datetime(2025, 6, 13, 23, 59, tzinfo=BERLIN)  # no daylight-saving change near it

PER_DAY = LateRule("per-day", percent=10, cap=50)
PER_HOUR = LateRule("per-hour", percent=2, cap=100)
ZERO = LateRule("zero")
NONE = LateRule("none")


@pytest.mark.parametrize(
    ("rule", "before", "at", "after"),
    [
        # fraction of the score a minute before, at, and a minute after the due date
        (PER_DAY, 0.0, 0.0, 0.10),
        (PER_HOUR, 0.0, 0.0, 0.02),
        (ZERO, 0.0, 0.0, 1.0),
        (NONE, 0.0, 0.0, 0.0),
    ],
)
def test_each_rule_a_minute_before_at_and_after_the_due_date(rule, before, at, after):
    early, exact, late = (lateness(rule, DUE, DUE + d) for d in (-MINUTE, timedelta(0), MINUTE))
    assert (early.late, exact.late, late.late) == (False, False, True)
    assert (early.fraction, exact.fraction, late.fraction) == (before, at, pytest.approx(after))
    assert late.late_by == MINUTE


def test_the_same_moment_in_another_zone_is_the_same_moment():
    at_in_utc = DUE.astimezone(UTC)
    assert not lateness(PER_DAY, DUE, at_in_utc).late
    assert lateness(PER_DAY, DUE, at_in_utc + MINUTE).units == 1


def test_per_day_counts_started_days_up_to_the_cap():
    # 10 % per started day, at most 50 %: day 1..5 -> 10..50 %, later still 50 %
    for days, percent in [(1, 10), (2, 20), (5, 50), (6, 50), (30, 50)]:
        just_in = lateness(PER_DAY, DUE, DUE + timedelta(days=days))
        assert just_in.units == days and just_in.fraction == pytest.approx(percent / 100)
    assert lateness(PER_DAY, DUE, DUE + timedelta(days=1, minutes=1)).units == 2


@pytest.mark.parametrize(
    ("due", "one_day_later_hours"),
    [
        # autumn: Saturday noon CEST to Sunday noon CET is 25 hours
        (datetime(2025, 10, 25, 12, 0, tzinfo=BERLIN), 25),
        # spring: Saturday noon CET to Sunday noon CEST is 23 hours
        (datetime(2025, 3, 29, 12, 0, tzinfo=BERLIN), 23),
    ],
)
def test_a_day_is_a_calendar_day_on_the_course_clock_across_daylight_saving(
    due, one_day_later_hours
):
    next_noon = due + timedelta(days=1)  # wall clock: the same local time the next day
    assert (next_noon.astimezone(UTC) - due.astimezone(UTC)) == timedelta(hours=one_day_later_hours)
    # by the next noon: one started day; a minute later: two
    assert lateness(PER_DAY, due, next_noon).units == 1
    assert lateness(PER_DAY, due, next_noon + MINUTE).units == 2
    assert lateness(PER_DAY, due, next_noon - MINUTE).units == 1
    # the same in UTC (how timestamp.txt says it)
    assert lateness(PER_DAY, due, (next_noon + MINUTE).astimezone(UTC)).units == 2
    # an hour is an hour: 23 or 25 started hours by the next noon
    assert lateness(PER_HOUR, due, next_noon).units == one_day_later_hours
    assert lateness(PER_HOUR, due, next_noon + MINUTE).units == one_day_later_hours + 1


def test_an_ambiguous_hour_is_compared_as_instants():
    # 26 Oct 2025, 02:30 happens twice in Berlin; the second (CET) is an hour after the first
    first = datetime(2025, 10, 26, 2, 30, tzinfo=BERLIN)
    second = datetime(2025, 10, 26, 2, 30, fold=1, tzinfo=BERLIN)
    assert second.astimezone(UTC) - first.astimezone(UTC) == timedelta(hours=1)
    assert lateness(PER_HOUR, first, second).units == 1  # same wall clock, an hour late
    assert lateness(PER_HOUR, second, first).late is False


def test_started_units_of_a_fixed_offset_are_24_hours():
    due = datetime(2025, 10, 25, 12, 0, tzinfo=UTC)
    assert started_units("per-day", due, due + timedelta(hours=24)) == 1
    assert started_units("per-day", due, due + timedelta(hours=24, seconds=1)) == 2
    assert started_units("per-day", due, due) == 0


def test_penalty_points_of_the_score_or_of_the_max():
    assert penalty_points(PER_DAY, 0.2, 6.0, 13.0) == 1.2
    of_max = LateRule("per-day", percent=10, cap=50, of="max")
    assert penalty_points(of_max, 0.2, 6.0, 13.0) == 2.6
    assert penalty_points(ZERO, 1.0, 7.5, 13.0) == 7.5
    assert penalty_points(PER_DAY, 0.1, 1 / 3, 1.0) == 0.03  # to 1/100 of a point


def test_rules_say_what_they_do():
    assert PER_DAY.describe() == "10 % of the score per started day, at most 50 %"
    assert PER_HOUR.describe() == "2 % of the score per started hour"
    assert ZERO.describe() == "zero after the due date"
    assert describe_delay(timedelta(days=1, hours=11, minutes=2)) == "1 day 11 h 2 min"
    assert describe_delay(timedelta(seconds=1)) == "1 min"
    assert describe_delay(timedelta(days=2)) == "2 days"
