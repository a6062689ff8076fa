"""After grading: due dates, times, extensions and late penalties recorded in nbgrader's
gradebook, the flags, grades.csv in nbgrader's meaning, summary.md's term section; an
extension moves a late submission on time; "no submission" is not a 0."""

from __future__ import annotations

import csv
import warnings
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from autograder.models import RawSubmission, SubmissionResult
from autograder.report import export_grades, summarise, summary_text
from autograder.term import parse_calendar, settle

BERLIN = ZoneInfo("Europe/Berlin")
A = "04_naive_bayes_linear"
DUE = datetime(2025, 10, 24, 23, 59, tzinfo=BERLIN)  # Friday; clocks go back on Sunday
CALENDAR = f"""
timezone = "Europe/Berlin"
students = ["on_time", "late", "extended", "nothing", "no_time", "zero"]
[late]
rule = "per-day"
percent = 10
cap = 50
[assignments.{A}]
due = 2025-10-24T23:59:00
[[extensions]]
student = "extended"
assignment = "{A}"
due = "+3 days"
reason = "illness"
"""
#: student -> (score of the one 10-point test, when handed in, marked late by the LMS)
HANDED_IN = {
    "on_time": (10.0, DUE - timedelta(hours=1), False),
    # Sunday 10:01 CET: 1 day 11 h 2 min late, the second started day: -20 %
    "late": (6.0, DUE + timedelta(days=1, hours=10, minutes=2), False),
    # the same moment, but due Monday 27 Oct 23:59 CET: on time with the extension
    "extended": (8.0, DUE + timedelta(days=1, hours=10, minutes=2), False),
    "no_time": (7.0, None, True),
    "zero": (0.0, DUE - timedelta(days=2), False),  # handed in, scored 0
}


@pytest.fixture
def run(tmp_path, new_course):
    course = new_course(tmp_path / "course")
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gb.add_assignment(A)
        gb.add_notebook(A, A)
        gb.add_grade_cell("test", A, A, max_score=10.0, cell_type="code")
        for student, (score, _, _) in HANDED_IN.items():
            gb.add_student(student)
            gb.add_submission(A, student)
            gb.find_grade("test", A, A, student).auto_score = score
        gb.db.commit()
    calendar = parse_calendar(CALENDAR, [A])
    results = [
        SubmissionResult(s, A, scores={"test": (score, 10.0)})
        for s, (score, _, _) in HANDED_IN.items()
    ]
    graded = {
        (A, s): RawSubmission(s, A, submitted_at=at, marked_late=late)
        for s, (_, at, late) in HANDED_IN.items()
    }
    settled = settle(course, calendar, results, graded, roster=calendar.students)
    return course, results, settled


def test_an_extension_moves_a_late_submission_on_time(run):
    course, _, settled = run
    flags = {r.student: r.flags for r in settled.results}
    assert flags["late"] == [
        "late by 1 day 11 h 2 min: handed in 2025-10-26 10:01 +01:00 CET, "
        "due 2025-10-24 23:59 +02:00 CEST; "
        "rule: 10 % of the score per started day, at most 50 %: −20 % (−1.2 points)"
    ]
    assert flags["extended"] == [
        "extension to 2025-10-27 23:59 +01:00 CET (+3 days: illness): "
        "handed in 2025-10-26 10:01 +01:00 CET, on time"
    ]
    with course.gradebook() as gb:
        assert gb.find_submission(A, "late").late_submission_penalty == pytest.approx(1.2)
        extended = gb.find_submission(A, "extended")
        assert extended.late_submission_penalty == 0.0
        assert extended.extension == timedelta(days=3, hours=1)  # +3 days over the change
        assert extended.duedate == datetime(2025, 10, 27, 22, 59)  # nbgrader's: naive UTC
        assert extended.total_seconds_late == 0  # and nbgrader agrees it was on time
        assert gb.find_submission(A, "late").total_seconds_late > 0


def test_nbgrader_meaning_of_duedate_timestamp_penalty_and_score(run, tmp_path):
    course, _, settled = run
    dest = tmp_path / "grades.csv"
    export_grades(
        course,
        settled.results,
        dest,
        students=settled.students,
        assignments=settled.assignments,
        flags=settled.row_flags,
        clock=BERLIN,
    )
    rows = {r["student_id"]: r for r in csv.DictReader(dest.open(encoding="utf-8"))}
    late = rows["late"]
    # the assignment's due date and the hand-in time on the course's clock, marked (the
    # gradebook holds them in UTC, unmarked, as nbgrader does: 21:59 and 09:01)
    assert late["duedate"] == "2025-10-24T23:59:00+02:00"
    assert late["timestamp"] == "2025-10-26T10:01:00+01:00"
    assert datetime.fromisoformat(late["duedate"]) == DUE
    assert (late["raw_score"], late["late_submission_penalty"], late["score"]) == (
        "6.0",
        "1.2",
        "4.8",
    )
    assert rows["on_time"]["score"] == "10.0" and rows["on_time"]["flags"] == ""
    assert rows["extended"]["score"] == "8.0"
    # handed nothing in: a row, flagged, distinct from a submission that scored 0
    assert rows["nothing"]["flags"] == "no submission" and rows["nothing"]["timestamp"] == ""
    assert rows["zero"]["score"] == "0.0" and rows["zero"]["flags"] == ""
    assert "no submission time: graded as on time" in rows["no_time"]["flags"]
    assert "marked late by the LMS, but its time is unknown" in rows["no_time"]["flags"]
    assert rows["no_time"]["late_submission_penalty"] == "0.0"


def test_grading_is_untouched(run):
    _, results, settled = run
    assert [r.scores for r in settled.results] == [r.scores for r in results]
    assert [r.autograded_score for r in settled.results] == [10.0, 6.0, 8.0, 7.0, 0.0]
    assert all(r.flags == [] for r in results)  # the results given are not changed


def test_summary_lists_late_submissions_extensions_and_no_submission(run):
    _, _, settled = run
    (term,) = settled.summary
    assert (
        term.heading
        == "due 2025-10-24 23:59 +02:00 CEST; 10 % of the score per started day, at most 50 %"
    )
    assert term.late == [
        ("late", "2025-10-26 10:01 +01:00 CET", "1 day 11 h 2 min", "−20 % (−1.2 points)")
    ]
    assert term.extensions == [
        ("extended", "2025-10-27 23:59 +01:00 CET (+3 days: illness)", "on time")
    ]
    assert term.no_submission == ["nothing"] and term.no_time == ["no_time"]
    text = summary_text(summarise(settled.results), {}, {}, terms=settled.summary)
    assert "#### 04_naive_bayes_linear: due 2025-10-24 23:59 +02:00 CEST" in text
    assert "| `late`" in text and "−20 % (−1.2 points)" in text
    assert (
        "- extension: `extended` due 2025-10-27 23:59 +01:00 CET (+3 days: illness): on time"
        in text
    )
    assert "- no submission (1): `nothing`" in text
    # the clock said once, the same as grades.csv's
    assert text.count("Times are on the course's clock, Europe/Berlin, with their offset") == 1


def test_not_graded_after_the_close_is_its_own_row(tmp_path, new_course):
    course = new_course(tmp_path / "course")
    calendar = parse_calendar(CALENDAR, [A])
    why = "handed in 2025-11-09 10:00 +01:00 CET, after the assignment closed: not graded"
    settled = settle(course, calendar, [], {}, closed={(A, "tardy"): why})
    assert settled.row_flags == {f"{A}/tardy": [why]}
    assert settled.summary[0].not_graded == [("tardy", why)]
    assert settled.students == ["tardy"] and settled.assignments == [A]


def test_without_a_calendar_only_the_time_is_recorded(tmp_path, new_course):
    course = new_course(tmp_path / "course")
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gb.add_assignment(A)
        gb.add_student("x")
        gb.add_submission(A, "x")
        gb.db.commit()
    at = datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    settled = settle(
        course,
        parse_calendar("", [A]),
        [SubmissionResult("x", A)],
        {(A, "x"): RawSubmission("x", A, submitted_at=at)},
    )
    assert settled.results[0].flags == [] and settled.summary == []
    with course.gradebook() as gb:
        assert gb.find_submission(A, "x").timestamp == datetime(2025, 10, 3, 21, 59)
        assert gb.find_assignment(A).duedate is None


def test_a_due_date_taken_out_of_course_toml_takes_its_penalties_and_extensions_out(run):
    # results reused from the ledger are not graded again (nbgrader's own reset of the
    # penalty does not run): the next run's record alone must undo the earlier one
    course, results, _ = run
    graded = {
        (A, s): RawSubmission(s, A, submitted_at=at, marked_late=late)
        for s, (_, at, late) in HANDED_IN.items()
    }
    repriced: list[set] = []
    settled = settle(
        course,
        parse_calendar("", [A]),
        results,
        graded,
        on_repriced=repriced.append,
    )
    assert repriced[0] == {(A, "late")}  # its feedback page showed the penalty
    # and both pages showed their late section (the penalty; the extension)
    assert set().union(*repriced) == {(A, "late"), (A, "extended")}
    with course.gradebook() as gb:
        assert gb.find_assignment(A).duedate is None
        late = gb.find_submission(A, "late")
        assert late.late_submission_penalty == 0.0 and late.total_seconds_late == 0
        assert gb.find_submission(A, "extended").extension is None
    assert all(r.flags == [] for r in settled.results)
    assert settled.summary == []


def test_the_late_pages_notes_are_recorded_and_their_pages_marked(run):
    from dataclasses import replace as with_

    from autograder.feedback.late_note import LATE_NOTES_FILE, LateNotes

    course, results, _ = run  # settled once: its notes recorded
    notes = LateNotes(course.root / LATE_NOTES_FILE).read()
    assert sorted(notes) == [(A, "extended"), (A, "late")]  # on time, no time: no note
    late = notes[(A, "late")]
    assert (late.due, late.handed_in) == (
        "2025-10-24 23:59 +02:00 CEST",
        "2025-10-26 10:01 +01:00 CET",
    )
    assert late.rule == "10 % of the score per started day, at most 50 %"
    assert (late.late_by, late.cost, late.extended_to) == (
        "1 day 11 h 2 min",
        "−20 % (−1.2 points)",
        "",
    )
    extended = notes[(A, "extended")]
    assert (extended.extended_to, extended.extension) == ("2025-10-27 23:59 +01:00 CET", "+3 days")
    assert extended.late_by == "" and extended.cost == ""

    graded = {
        (A, s): RawSubmission(s, A, submitted_at=at, marked_late=marked)
        for s, (_, at, marked) in HANDED_IN.items()
    }
    calendar = parse_calendar(CALENDAR, [A])
    marked: list[set] = []
    # the same class again, every result reused from the ledger: no page is out of date
    reused = [with_(r, skipped=True) for r in results]
    settle(course, calendar, reused, graded, roster=calendar.students, on_repriced=marked.append)
    assert marked == []
    # graded again in this run: its page was written with the notes recorded before, and
    # is written again by the run (a page graded aside, beside the canary, had none)
    settle(course, calendar, results, graded, roster=calendar.students, on_repriced=marked.append)
    assert marked == [{(A, "late"), (A, "extended")}]
    # the extension withdrawn: the page that showed it is out of date, its note gone
    marked.clear()
    without = parse_calendar(CALENDAR.split("[[extensions]]")[0], [A])
    settle(course, without, reused, graded, roster=without.students, on_repriced=marked.append)
    assert {(A, "extended")} <= set().union(*marked)
    notes = LateNotes(course.root / LATE_NOTES_FILE).read()
    assert notes[(A, "extended")].late_by == "1 day 11 h 2 min"  # late now, without it


def test_recording_hides_sqlalchemys_autoflush_warnings_and_no_other(
    tmp_path, new_course, monkeypatch
):
    """The term's record hides SQLAlchemy's SAWarning (nbgrader's autoflush warnings), and
    only that: a warning of another kind raised while it writes the gradebook shows (issue
    45: the block ignored every warning)."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    course = new_course(tmp_path / "course")
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        gb.add_assignment(A)
        gb.add_notebook(A, A)
        gb.add_grade_cell("test", A, A, max_score=10.0, cell_type="code")
        gb.add_student("late")
        gb.add_submission(A, "late")
        gb.find_grade("test", A, A, "late").auto_score = 6.0
        gb.db.commit()
    original = Gradebook.update_or_create_assignment

    def warns(self, *args, **kwargs):
        warnings.warn("nbgrader's autoflush", SAWarning, stacklevel=2)
        warnings.warn("another kind of warning", UserWarning, stacklevel=2)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Gradebook, "update_or_create_assignment", warns)
    at = HANDED_IN["late"][1]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        settle(
            course,
            parse_calendar(CALENDAR, [A]),
            [SubmissionResult("late", A, scores={"test": (6.0, 10.0)})],
            {(A, "late"): RawSubmission("late", A, submitted_at=at)},
        )
    assert [(w.category, str(w.message)) for w in seen] == [
        (UserWarning, "another kind of warning")
    ]
    with course.gradebook() as gb:
        assert gb.find_submission(A, "late").late_submission_penalty == pytest.approx(1.2)
