"""autograder.text: a list cut to its first items and a count, an error's message as one
line, a time marked with its offset."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from autograder.text import LISTED, clock_time, first_line, iso_time, listing, shown_path


def test_listing_names_the_first_items_and_counts_the_rest():
    assert listing([]) == ""
    assert listing(["a", "b"]) == "a, b"
    assert listing(range(LISTED)) == "0, 1, 2, 3, 4"
    assert listing(range(LISTED + 2)) == "0, 1, 2, 3, 4 and 2 more"
    assert listing("abc", 1) == "a and 2 more"


def test_first_line_of_an_error():
    assert first_line(ValueError("\n  bad value  \nat line 3")) == "bad value"
    assert first_line(ValueError("x" * 300), 80) == "x" * 80
    assert first_line(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert first_line("") == ""


def test_a_time_is_on_the_course_clock_and_marked():
    berlin = ZoneInfo("Europe/Berlin")
    moment = datetime(2025, 10, 24, 21, 59, 30, tzinfo=UTC)
    assert clock_time(moment, berlin) == "2025-10-24 23:59 +02:00 CEST"
    assert iso_time(moment, berlin) == "2025-10-24T23:59:30+02:00"
    # the same instant after the clocks went back, and in UTC
    assert clock_time(moment + timedelta(days=2), berlin) == "2025-10-26 22:59 +01:00 CET"
    assert clock_time(moment, UTC) == "2025-10-24 21:59 +00:00 UTC"
    # west of UTC, a zone without a name, a zone named by its offset: never named twice
    assert clock_time(moment, ZoneInfo("America/St_Johns")) == "2025-10-24 19:29 -02:30 NDT"
    assert clock_time(moment, timezone(timedelta(hours=5, minutes=45))) == "2025-10-25 03:44 +05:45"
    assert clock_time(moment, ZoneInfo("Europe/Istanbul")) == "2025-10-25 00:59 +03:00"
    # what the column says reads back as the same instant
    assert datetime.fromisoformat(iso_time(moment, berlin)) == moment


def test_a_path_is_named_relative_to_here_when_near(tmp_path):
    here = tmp_path / "a" / "b" / "c"
    here.mkdir(parents=True)
    assert shown_path(here / "out", here) == "out"
    assert shown_path(here, here) == "."
    assert shown_path(tmp_path / "a" / "b" / "course", here) == "../course"
    assert shown_path(tmp_path / "a" / "x", here) == "../../x"
    # further away: as it is (no climb of many ../ to the machine's root)
    assert shown_path(tmp_path / "y", here) == str(tmp_path / "y")
