"""course.toml: what it says, read right, and everything wrong in it one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from autograder.models import TermError
from autograder.term import LateRule, load_calendar, parse_calendar

BERLIN = ZoneInfo("Europe/Berlin")
COURSE = ["01_hyperplanes", "02_perceptron_update", "04_naive_bayes_linear"]

GOOD = """
timezone = "Europe/Berlin"
policy = "latest-on-time"
students = ["alice", "bob"]

[late]
rule = "per-day"
percent = 10
cap = 50
close = "+7 days"

[assignments.01_hyperplanes]
due = 2025-10-03T23:59:00

[assignments.02_perceptron_update]
due = 2025-10-10T21:59:00Z
late = { rule = "zero", close = 2025-10-12T12:00:00+02:00 }

[assignments.04_naive_bayes_linear]
due = 2025-10-24T23:59:00
canvas = "Naive Bayes (4404)"

[[extensions]]
student = "alice"
assignment = "04_naive_bayes_linear"
due = "+3 days"
reason = "illness"

[[extensions]]
student = "bob"
assignment = "01_hyperplanes"
due = 2025-10-05T12:00:00
"""


def test_a_calendar_read_from_course_toml():
    calendar = parse_calendar(GOOD, COURSE)
    assert calendar.policy == "latest-on-time" and calendar.students == ["alice", "bob"]
    first = calendar.term("01_hyperplanes")
    assert first.due == datetime(2025, 10, 3, 23, 59, tzinfo=BERLIN)
    assert first.due.utcoffset() == timedelta(hours=2)  # CEST
    assert first.rule == LateRule("per-day", 10, 50, "score")
    assert first.close_for(first.due) == datetime(2025, 10, 10, 23, 59, tzinfo=BERLIN)
    second = calendar.term("02_perceptron_update")
    assert second.due == datetime(2025, 10, 10, 21, 59, tzinfo=UTC)  # the same instant
    assert second.due.tzinfo is BERLIN  # read on the course's clock
    assert second.rule.rule == "zero"
    assert second.close_for(second.due) == datetime(2025, 10, 12, 10, 0, tzinfo=UTC)
    assert calendar.term("04_naive_bayes_linear").columns["canvas"] == "Naive Bayes (4404)"
    assert calendar.due_for("bob", "02_perceptron_update") == second.due


def test_an_extension_of_days_moves_the_wall_clock_across_daylight_saving():
    calendar = parse_calendar(GOOD, COURSE)
    base = calendar.term("04_naive_bayes_linear").due
    extended = calendar.due_for("alice", "04_naive_bayes_linear")
    # Friday 24 Oct 23:59 CEST + 3 days = Monday 27 Oct 23:59 CET: 73 hours, not 72
    assert extended == datetime(2025, 10, 27, 23, 59, tzinfo=BERLIN)
    assert extended.astimezone(UTC) - base.astimezone(UTC) == timedelta(hours=73)
    assert calendar.extensions[("alice", "04_naive_bayes_linear")].reason == "illness"
    # the relative close moves along with the student's due date
    term = calendar.term("04_naive_bayes_linear")
    assert term.close_for(extended) == datetime(2025, 11, 3, 23, 59, tzinfo=BERLIN)
    assert calendar.due_for("bob", "01_hyperplanes") == datetime(2025, 10, 5, 12, tzinfo=BERLIN)
    assert calendar.due_for("carol", "04_naive_bayes_linear") == base


def test_hours_are_exact_and_offsets_without_a_zone_stay_fixed():
    text = """
    [assignments.01_hyperplanes]
    due = 2025-10-25T12:00:00+02:00
    [[extensions]]
    student = "x"
    assignment = "01_hyperplanes"
    due = "+48 hours"
    [[extensions]]
    student = "y"
    assignment = "01_hyperplanes"
    due = "+2 days"
    """
    calendar = parse_calendar(text, COURSE)
    due = calendar.term("01_hyperplanes").due
    assert calendar.due_for("x", "01_hyperplanes") - due == timedelta(hours=48)
    assert calendar.due_for("y", "01_hyperplanes") - due == timedelta(hours=48)  # no zone
    assert calendar.term("01_hyperplanes").rule.rule == "none"


DUE_01 = "[assignments.01_hyperplanes]\ndue = 2025-10-03T23:59:00Z\n"
EXT_A = '[[extensions]]\nstudent = "a"\nassignment = "01_hyperplanes"\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("timezone = ", "not valid TOML"),
        ('timezon = "Europe/Berlin"', "unknown key 'timezon'"),
        ('timezone = "Mars/Olympus"', "unknown time zone 'Mars/Olympus'"),
        ('policy = "worst"', "'worst' is not one of latest, best, latest-on-time"),
        ("[assignments.09_nothing]\ndue = 2025-10-03T23:59:00Z", "unknown key '09_nothing'"),
        ("[assignments.01_hyperplanes]\ndue = 2025-10-03T23:59:00", "has no time zone"),
        ("[assignments.01_hyperplanes]\ndue = 2025-10-03", "has no time of day"),
        ('[assignments.01_hyperplanes]\ndue = "next friday"', "is not a date"),
        (DUE_01 + 'late = { rule = "per-day" }', "needs a percent"),
        (DUE_01 + 'late = { rule = "per-week" }', "'per-week' is not one of"),
        ('[late]\nrule = "per-day"\npercent = 120', "out of range"),
        ('[late]\nrule = "per-day"\npercent = 10\nclose = "+ever"', "is not a duration"),
        (DUE_01 + "late = { close = 2025-10-01T00:00:00Z }", "before it is due"),
        (EXT_A + 'due = "+1 day"', "has no due date to extend"),
        (EXT_A.replace("01_hyperplanes", "99_x") + 'due = "+1 day"', "unknown assignment '99_x'"),
        (DUE_01 + EXT_A + "due = 2025-10-01T00:00:00Z", "is not after the due date"),
        (DUE_01 + EXT_A, "missing due"),
        (DUE_01 + EXT_A + 'due = "+1 day"\n' + EXT_A + 'due = "+2 days"', "a second extension"),
        ('students = "alice"', "expected a list of student ids"),
    ],
)
def test_what_is_wrong_is_one_line(text, message):
    with pytest.raises(TermError) as caught:
        parse_calendar(text, COURSE)
    line = str(caught.value)
    assert message in line and "\n" not in line and line.startswith("course.toml")


def test_extensions_name_students_of_the_class():
    calendar = parse_calendar(GOOD, COURSE)
    calendar.check_students({"alice"}, COURSE)  # listed students: bob too, not seen
    calendar.students = []
    calendar.check_students({"alice", "bob"}, COURSE)
    with pytest.raises(TermError, match=r"unknown student 'bob'.*submissions"):
        calendar.check_students({"alice"}, COURSE)
    calendar.check_students({"alice"}, ["04_naive_bayes_linear"])  # bob's is not graded now
    calendar.students = ["alice", "carol"]
    with pytest.raises(TermError, match=r"unknown student 'bob'.*class list"):
        calendar.check_students({"alice", "bob"}, COURSE)


def test_load_calendar_files(tmp_path):
    assert load_calendar(None, COURSE).terms == {}
    with pytest.raises(TermError, match=r"term\.toml: no such file"):
        load_calendar(tmp_path / "term.toml", COURSE)
    bad = tmp_path / "course.toml"
    bad.write_bytes(b"\xff\xfe not text")
    with pytest.raises(TermError, match=r"course\.toml: not UTF-8 text"):
        load_calendar(bad, COURSE)
    bad.write_text(GOOD)
    assert load_calendar(bad, COURSE).term("01_hyperplanes") is not None
