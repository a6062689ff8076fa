"""autograder.term.template: the course.toml a release writes — every assignment of the
course with a due date to set, the late rules — read back unchanged as a course with no
due dates yet, and filled in as the instructor fills it in (lines uncommented, dates set).
(Written by ``python -m autograder release`` and read by ``grade``:
``tests/autograder/test_course_folder.py``.)"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from autograder.models import TermError
from autograder.term import parse_calendar
from autograder.term.template import calendar_template, write_calendar_template

COURSE = ["01_hyperplanes", "02_perceptron_update", "ps.1 (draft)"]


def _uncomment(text: str, *starts: str) -> str:
    """``text`` with the commented lines that begin with one of ``starts`` taken in."""
    pattern = "|".join(re.escape(s) for s in starts)
    return re.sub(rf"^# ((?:{pattern}).*)$", r"\1", text, flags=re.MULTILINE)


def test_the_template_as_released_is_a_course_with_no_due_dates_yet():
    text = calendar_template(COURSE)
    for name in COURSE:
        assert name in text
    calendar = parse_calendar(text, COURSE)
    assert sorted(calendar.terms) == sorted(COURSE)  # every assignment listed
    assert all(term.due is None and term.rule.rule == "none" for term in calendar.terms.values())
    assert calendar.timezone is None and calendar.students == [] and calendar.extensions == {}
    assert calendar.policy == "latest"


def test_the_template_filled_in_is_read_with_its_due_dates_and_rule():
    text = calendar_template(COURSE)
    text = _uncomment(text, "timezone", "students", "[late]", "rule", "percent", "cap", "close")
    # the first assignment's due date set, the second's taken in as written
    text = text.replace("# due = 2025-10-03T23:59:00", "due = 2025-10-10T23:59:00", 1)
    text = text.replace("# due = 2025-10-03T23:59:00", "due = 2025-10-03T23:59:00", 1)
    text = _uncomment(text, "[[extensions]]", "student", "assignment", 'due = "+3 days"', "reason")
    calendar = parse_calendar(text, COURSE)
    berlin = ZoneInfo("Europe/Berlin")
    first, second, third = (calendar.terms[name] for name in COURSE)
    assert first.due == datetime(2025, 10, 10, 23, 59, tzinfo=berlin)
    assert second.due == datetime(2025, 10, 3, 23, 59, tzinfo=berlin)
    assert third.due is None  # not filled in: no due date yet
    assert (first.rule.rule, first.rule.percent, first.rule.cap) == ("per-day", 10, 50)
    assert first.close == timedelta(days=7)
    assert calendar.students == ["alice", "bob"]
    (extension,) = calendar.extensions.values()
    assert (extension.student, extension.assignment) == ("alice", COURSE[0])
    assert extension.due == datetime(2025, 10, 13, 23, 59, tzinfo=berlin)


def test_a_due_date_set_without_the_time_zone_is_one_clear_line():
    text = calendar_template(COURSE).replace("# due = ", "due = ", 1)
    with pytest.raises(TermError, match="has no time zone"):
        parse_calendar(text, COURSE)


def test_the_instructors_calendar_is_never_overwritten(tmp_path):
    path = tmp_path / "course.toml"
    assert write_calendar_template(path, COURSE)
    assert path.read_text(encoding="utf-8") == calendar_template(COURSE)
    path.write_text("timezone = 'UTC'\n", encoding="utf-8")
    assert not write_calendar_template(path, COURSE)
    assert path.read_text(encoding="utf-8") == "timezone = 'UTC'\n"


def test_an_assignments_own_rule_needs_its_due_date_the_courses_does_not():
    text = _uncomment(calendar_template(COURSE), "timezone", "[late]", "rule", "percent")
    assert parse_calendar(text, COURSE).terms[COURSE[0]].due is None  # [late] waits for one
    own = text.replace('# late = { rule = "zero" }', 'late = { rule = "zero" }', 1)
    with pytest.raises(TermError, match="a late rule or close needs a due date"):
        parse_calendar(own, COURSE)


def test_the_templates_excerpt_in_the_instructors_docs_is_the_template():
    from course_common.paths import REPO_ROOT

    text = (REPO_ROOT / "docs" / "instructor" / "term.md").read_text(encoding="utf-8")
    after = text[text.index("**The template.**") :]
    excerpt = after[after.index("```toml\n") + len("```toml\n") : after.index("\n```\n")]
    template = calendar_template(["01_hyperplanes"]).splitlines()
    assert excerpt.strip()
    for line in excerpt.splitlines():
        assert not line or line in template, line
