"""Resubmission policies on submissions a minute before, at and after the due date, across
a daylight-saving change, with extensions and a hard close; Canvas's re-uploads split."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from autograder.models import RawSubmission
from autograder.term import (
    apply_times,
    choose_best,
    final_points,
    group_attempts,
    parse_calendar,
    plan_attempts,
    split_uploads,
)
from autograder.term.times import SubmissionTimes

BERLIN = ZoneInfo("Europe/Berlin")
A = "01_hyperplanes"
COURSE = [A]
MINUTE = timedelta(minutes=1)
# due Saturday 25 October 2025, 12:00 CEST; the clocks go back the next night
CALENDAR = f"""
timezone = "Europe/Berlin"
[late]
rule = "per-day"
percent = 50
close = "+3 days"
[assignments.{A}]
due = 2025-10-25T12:00:00
[[extensions]]
student = "ext"
assignment = "{A}"
due = "+1 day"
reason = "illness"
"""
DUE = datetime(2025, 10, 25, 12, 0, tzinfo=BERLIN)


def _raw(student: str, at: datetime | None, label: str = "") -> RawSubmission:
    return RawSubmission(student, A, {f"{A}.ipynb": label.encode()}, submitted_at=at, label=label)


def _plan(attempts, policy):
    calendar = parse_calendar(CALENDAR, COURSE)
    groups = group_attempts([(A, a) for a in attempts], {A: [A]}, policy)
    return plan_attempts(groups, calendar, policy)


BEFORE, AT, AFTER = DUE - MINUTE, DUE, DUE + MINUTE


@pytest.mark.parametrize(
    ("times", "policy", "graded"),
    [
        # the latest, whatever the due date says
        ((BEFORE, AFTER), "latest", AFTER),
        ((AT, BEFORE), "latest", AT),  # by time, not by the order they came in
        # the latest on time: at the due date is on time
        ((BEFORE, AFTER), "latest-on-time", BEFORE),
        ((BEFORE, AT, AFTER), "latest-on-time", AT),
        ((AFTER, AFTER + MINUTE), "latest-on-time", AFTER + MINUTE),  # none on time
    ],
)
def test_latest_and_latest_on_time(times, policy, graded):
    attempts = [_raw("ann", t, label=f"{t:%H:%M}") for t in times]
    plan = _plan(attempts, policy)
    chosen = plan.chosen[(A, "ann")]
    assert chosen.submitted_at == graded
    (flag,) = plan.flags[(A, "ann")]
    assert flag.startswith(f"{len(times)} submissions: ") and f"(policy {policy})" in flag


def test_latest_on_time_counts_an_extension_across_daylight_saving():
    # ext is due Sunday 26 Oct 12:00 CET: 25 hours after everyone else's due date
    extended = DUE + timedelta(days=1)
    attempts = [_raw("ext", extended - MINUTE), _raw("ext", extended + MINUTE)]
    assert _plan(attempts, "latest-on-time").chosen[(A, "ext")].submitted_at == extended - MINUTE
    # 24 hours after the due date is still before the extended one (it is 25 hours)
    attempts = [_raw("ext", DUE + timedelta(hours=24, minutes=30)), _raw("ext", extended + MINUTE)]
    chosen = _plan(attempts, "latest-on-time").chosen[(A, "ext")]
    assert chosen.submitted_at == DUE + timedelta(hours=24, minutes=30)
    # for a student without the extension, both are late: the latest
    attempts = [_raw("ann", extended - MINUTE), _raw("ann", extended + MINUTE)]
    plan = _plan(attempts, "latest-on-time")
    assert plan.chosen[(A, "ann")].submitted_at == extended + MINUTE
    assert "none on time" in plan.flags[(A, "ann")][0]


def test_a_hard_close_sets_later_submissions_aside():
    close = DUE + timedelta(days=3)  # 28 Oct 12:00 CET
    plan = _plan([_raw("ann", close - MINUTE), _raw("ann", close + MINUTE)], "latest")
    assert plan.chosen[(A, "ann")].submitted_at == close - MINUTE
    assert "after the close" in plan.flags[(A, "ann")][0]
    plan = _plan([_raw("bob", close + MINUTE)], "latest")
    assert (A, "bob") not in plan.chosen
    assert (
        "after the assignment closed (2025-10-28 12:00 +01:00 CET): not graded"
        in plan.closed[(A, "bob")]
    )
    plan = _plan([_raw("bob", close)], "latest")  # at the close: graded
    assert (A, "bob") in plan.chosen
    # the close moves with an extension (+3 days from the student's own due date)
    plan = _plan([_raw("ext", close + MINUTE)], "latest")
    assert (A, "ext") in plan.chosen


def test_best_grades_each_and_keeps_the_most_points_after_penalties():
    calendar = parse_calendar(CALENDAR, COURSE)
    on_time, late = _raw("ann", BEFORE, "first"), _raw("ann", AFTER, "second")
    plan = _plan([on_time, late], "best")
    assert plan.contest[(A, "ann")] == [on_time, late] and (A, "ann") not in plan.chosen
    # 50 % per started day: 10 points a minute late keep 5, less than 6 on time
    chosen, flag = choose_best(calendar, (A, "ann"), [on_time, late], [(6, 10), (10, 10)])
    assert chosen is on_time
    assert "graded the best (handed in 2025-10-25 11:59 +02:00 CEST), 6 of 10 points" in flag
    assert "(the others: 5)" in flag
    chosen, _ = choose_best(calendar, (A, "ann"), [on_time, late], [(4, 10), (10, 10)])
    assert chosen is late
    chosen, _ = choose_best(calendar, (A, "ann"), [on_time, late], [(5, 10), (10, 10)])
    assert chosen is late  # a tie goes to the later one
    assert final_points(calendar, late, A, 10, 10) == 5
    assert final_points(calendar, _raw("ann", None), A, 10, 10) == 10  # no time: on time


def test_canvas_re_uploads_are_split_for_best_only():
    files = {
        f"{A}.ipynb": b"0",
        f"{A}-1.ipynb": b"1",
        f"{A}-2.ipynb": b"2",
        "notes.txt": b"n",
    }
    raw = RawSubmission("102", A, files, flags=["marked late by the LMS"], marked_late=True)
    uploads = split_uploads(raw, [A])
    assert [u.label for u in uploads] == ["the first upload", "re-upload -1", "re-upload -2"]
    assert [sorted(u.files) for u in uploads] == [
        [f"{A}.ipynb", "notes.txt"],
        [f"{A}-1.ipynb", "notes.txt"],
        [f"{A}-2.ipynb", "notes.txt"],
    ]
    assert all(u.marked_late and u.flags == raw.flags for u in uploads)
    assert split_uploads(RawSubmission("1", A, {f"{A} (1).ipynb": b""}), [A])[0].label == ""
    groups = group_attempts([(A, raw)], {A: [A]}, "latest")
    assert groups[(A, "102")] == [raw]  # latest: prepare grades the last re-upload
    assert len(group_attempts([(A, raw)], {A: [A]}, "best")[(A, "102")]) == 3


def test_times_of_a_file_apply_to_single_submissions():
    moment = DUE + timedelta(hours=3)
    times = SubmissionTimes(source="times.csv", times={(None, "ann"): moment, (A, "bob"): moment})
    single = _raw("ann", None)
    several = [_raw("bob", None, "a"), _raw("bob", None, "b")]
    timed = [_raw("cid", BEFORE), _raw("cid", AFTER)]
    groups = {(A, "ann"): [single], (A, "bob"): several, (A, "cid"): timed}
    flags = apply_times(groups, times)
    assert single.submitted_at == moment
    assert all(s.submitted_at == moment for s in several)
    assert "one time for 2 submissions" in flags[(A, "bob")][0]
    assert [t.submitted_at for t in timed] == [BEFORE, AFTER]  # their own times kept
