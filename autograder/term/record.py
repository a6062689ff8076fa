"""After grading: each submission's time held against its due date, the late rule applied,
and the outcome recorded where nbgrader keeps it — the gradebook's assignment due date,
the submission's timestamp and extension, and each notebook's ``late_submission_penalty``
(so nbgrader's own export and formgrader show the same) — plus the flags, and what
summary.md lists per assignment.

Grading itself is untouched: the scores are nbgrader's; the penalty is recorded beside
them, and grades.csv's ``score`` is then nbgrader's ``raw_score - late_submission_penalty``.
This is the penalty's one owner: nbgrader's own step (``AssignLatePenalties``) is not in the
grader's autograde list (:func:`autograder.grading.autograde_config`); a page the workers
wrote before the penalty was recorded or changed is written again
(:mod:`autograder.feedback.stale`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from autograder.course import Course, autoflush_warnings_hidden, load_submissions
from autograder.lms.grades import NO_SUBMISSION
from autograder.models import RawSubmission, SubmissionKey, SubmissionResult
from autograder.term.calendar import Calendar, Term
from autograder.term.late import describe_delay, instant, lateness, penalty_points

if TYPE_CHECKING:
    from autograder.feedback.late_note import LateNote
    from autograder.report import TermSummary


@dataclass
class Outcome:
    """One graded submission against its due date."""

    due: datetime | None = None  # the student's (with an extension)
    submitted_at: datetime | None = None
    fraction: float = 0.0  # share of points the late rule takes
    late_by: timedelta | None = None
    flags: list[str] = field(default_factory=list)


@dataclass
class TermRun:
    """The term's part of a run: results with their flags, the class and its rows."""

    results: list[SubmissionResult]
    outcomes: dict[SubmissionKey, Outcome]
    students: list[str]  # the class: a row per student and assignment in grades.csv
    assignments: list[str]
    row_flags: dict[str, list[str]]  # "assignment/student" -> flags of rows without a result
    summary: list[TermSummary]


def _outcome(
    calendar: Calendar, term: Term | None, raw: RawSubmission | None, key: SubmissionKey
) -> Outcome:
    assignment, student = key
    submitted = raw.submitted_at if raw is not None else None
    due = calendar.due_for(student, assignment)
    outcome = Outcome(due=due, submitted_at=submitted)
    if term is None or due is None:
        return outcome
    extension = calendar.extensions.get((student, assignment))
    granted = ""
    if extension is not None:
        reason = f": {extension.reason}" if extension.reason else ""
        granted = f"extension to {calendar.shown(due)} ({extension.written}{reason})"
    if submitted is None:
        outcome.flags.append(f"no submission time: graded as on time (due {calendar.shown(due)})")
        if raw is not None and raw.marked_late:
            outcome.flags.append(
                "marked late by the LMS, but its time is unknown: no penalty (give the "
                "times with --times)"
            )
        if granted:
            outcome.flags.append(granted)
        return outcome
    late = lateness(term.rule, due, submitted)
    if not late.late:
        if granted:
            outcome.flags.append(f"{granted}: handed in {calendar.shown(submitted)}, on time")
        return outcome
    outcome.fraction, outcome.late_by = late.fraction, late.late_by
    cost = "no penalty" if term.rule.rule == "none" else f"−{100 * late.fraction:g} %"
    outcome.flags.append(
        f"late by {describe_delay(late.late_by)}: handed in {calendar.shown(submitted)}, due "
        f"{calendar.shown(due)}"
        + (f" ({granted})" if granted else "")
        + f"; rule: {term.rule.describe()}: {cost}"
    )
    return outcome


def _cost(term: Term, fraction: float, points: float) -> str:
    """What lateness cost, as summary.md and the page say it."""
    if term.rule.rule == "none":
        return "no penalty"
    return f"−{100 * fraction:g} % (−{points:g} points)"


def _late_note(
    calendar: Calendar, key: SubmissionKey, outcome: Outcome, points: float
) -> LateNote | None:
    """The late section of the submission's page (:mod:`autograder.feedback.late_note`):
    for a submission with a known time that was late or had an extension; else None."""
    assignment, student = key
    term = calendar.term(assignment)
    if term is None or term.due is None or outcome.submitted_at is None:
        return None
    extension = calendar.extensions.get((student, assignment))
    if outcome.late_by is None and extension is None:
        return None
    from autograder.feedback.late_note import LateNote  # the feedback package imports nbconvert

    written = extension.written if extension is not None else ""
    return LateNote(
        due=calendar.shown(term.due),
        handed_in=calendar.shown(outcome.submitted_at),
        rule=term.rule.describe(),
        extended_to=calendar.shown(extension.due) if extension is not None else "",
        extension=written if written.startswith("+") else "",
        late_by=describe_delay(outcome.late_by) if outcome.late_by is not None else "",
        cost=_cost(term, outcome.fraction, points) if outcome.late_by is not None else "",
    )


def _naive_utc(moment: datetime | None) -> datetime | None:
    return None if moment is None else moment.astimezone(UTC).replace(tzinfo=None)


def _record(
    course: Course,
    calendar: Calendar,
    results: Iterable[SubmissionResult],
    outcomes: Mapping[SubmissionKey, Outcome],
    on_repriced: Callable[[set[SubmissionKey]], None] | None = None,
) -> dict[SubmissionKey, float]:
    """Write due dates, timestamps, extensions and late penalties into the gradebook;
    returns each submission's total penalty (points). ``on_repriced`` is called, before the
    gradebook's commit, with the submissions whose recorded penalty this changed (their
    feedback pages show the old one)."""
    penalties: dict[SubmissionKey, float] = {}
    repriced: set[SubmissionKey] = set()
    with course.gradebook() as gb, autoflush_warnings_hidden():
        results = list(results)
        names = {r.assignment for r in results}
        for name in sorted(names):
            term = calendar.term(name)
            due = _naive_utc(term.due) if term is not None else None
            # a due date taken out of course.toml is taken out of the gradebook too
            gb.update_or_create_assignment(name, duedate=due)
        found = load_submissions(gb, names)
        for result in results:
            key = (result.assignment, result.student)
            outcome = outcomes[key]
            term = calendar.term(result.assignment)
            submission = found.get(key)
            if submission is None:
                continue
            if outcome.submitted_at is not None:
                submission.timestamp = _naive_utc(outcome.submitted_at)
            if term is None or term.due is None:
                # no due date (any more): no extension and no penalty, whatever an earlier
                # run with one recorded (a result reused from the ledger keeps its rows)
                submission.extension = None
                for notebook in submission.notebooks:
                    if notebook.late_submission_penalty:
                        repriced.add(key)
                    notebook.late_submission_penalty = None
                continue
            due = outcome.due
            extension = instant(due) - instant(term.due) if due is not None else None
            submission.extension = extension if extension else None
            total = 0.0
            for notebook in submission.notebooks:
                points = penalty_points(
                    term.rule, outcome.fraction, notebook.score, notebook.max_score
                )
                if (notebook.late_submission_penalty or 0.0) != points:
                    repriced.add(key)
                notebook.late_submission_penalty = points
                total += points
            penalties[key] = round(total, 2)
        if on_repriced is not None and repriced:
            on_repriced(repriced)
        gb.db.commit()
    return penalties


def _heading(calendar: Calendar, term: Term | None) -> str:
    if term is None or term.due is None:
        return f"no due date yet ({calendar.source or 'course.toml'} sets none)"
    parts = [f"due {calendar.shown(term.due)}", term.rule.describe()]
    if isinstance(term.close, timedelta):
        close = calendar.shown(term.close_for(term.due))
        parts.append(f"closes {describe_delay(term.close)} after the due date ({close})")
    elif term.close is not None:
        parts.append(f"closes {calendar.shown(term.close)}")
    return "; ".join(parts)


def settle(
    course: Course,
    calendar: Calendar,
    results: Iterable[SubmissionResult],
    graded: Mapping[SubmissionKey, RawSubmission],
    *,
    plan_flags: Mapping[SubmissionKey, list[str]] | None = None,
    closed: Mapping[SubmissionKey, str] | None = None,
    roster: Iterable[str] = (),
    on_repriced: Callable[[set[SubmissionKey]], None] | None = None,
) -> TermRun:
    """Hold every result against its due date, record it in the gradebook, and gather the
    class: the students of ``roster`` (course.toml's and the times file's) and every
    student seen in the run. ``graded``: the submission each result came from;
    ``plan_flags``: the resubmission policy's flags; ``closed``: submissions not graded
    (after the close), with why; ``on_repriced``: called with the submissions whose
    feedback pages are out of date — before the penalties are committed, those whose
    penalty changed (:func:`_record`); before the late notes are recorded
    (:mod:`autograder.feedback.late_note`), those whose note changed, and those graded in
    this run that have one (their pages were written with the notes recorded before)."""
    # the report's modules import nbgrader, the feedback package nbconvert
    from autograder.feedback.late_note import LATE_NOTES_FILE, LateNotes
    from autograder.report import TermSummary

    results = list(results)
    plan_flags, closed = plan_flags or {}, closed or {}
    outcomes: dict[SubmissionKey, Outcome] = {}
    for result in results:
        key = (result.assignment, result.student)
        term = calendar.term(result.assignment)
        outcomes[key] = _outcome(calendar, term, graded.get(key), key)
    penalties = _record(course, calendar, results, outcomes, on_repriced)
    notes = {
        key: _late_note(calendar, key, outcome, penalties.get(key, 0.0))
        for key, outcome in outcomes.items()
    }
    recorded = LateNotes(course.root / LATE_NOTES_FILE)
    stale = recorded.changed(notes)
    stale |= {
        (r.assignment, r.student)
        for r in results
        if not r.skipped and notes[(r.assignment, r.student)] is not None
    }
    if on_repriced is not None and stale:
        on_repriced(stale)  # on disk before the notes are: a page is never left behind
    recorded.record(notes)
    students = sorted(set(roster) | {r.student for r in results} | {s for _, s in closed})
    course.ensure_students(students)  # the class: a row for each in grades.csv
    settled = []
    for result in results:
        key = (result.assignment, result.student)
        extra = list(plan_flags.get(key, [])) + outcomes[key].flags
        if key in penalties and outcomes[key].fraction and penalties[key]:
            extra[-1] += f" (−{penalties[key]:g} points)"
        settled.append(replace(result, flags=[*result.flags, *extra]) if extra else result)
    assignments = sorted({r.assignment for r in results} | {a for a, _ in closed})
    row_flags: dict[str, list[str]] = {}
    for (assignment, student), why in closed.items():
        row_flags[f"{assignment}/{student}"] = [why]
    summaries = []
    for assignment in assignments:
        term = calendar.term(assignment)
        entry = TermSummary(assignment, _heading(calendar, term), calendar.clock_name())
        for student in students:
            key = (assignment, student)
            if key in closed:
                entry.not_graded.append((student, closed[key]))
                continue
            outcome = outcomes.get(key)
            if outcome is None:
                entry.no_submission.append(student)
                row_flags.setdefault(f"{assignment}/{student}", [NO_SUBMISSION])
                continue
            extension = calendar.extensions.get((student, assignment))
            if extension is not None:
                status = "on time"
                if outcome.submitted_at is None:
                    status = "no submission time"
                elif outcome.late_by is not None:
                    status = f"late by {describe_delay(outcome.late_by)}"
                reason = f": {extension.reason}" if extension.reason else ""
                entry.extensions.append(
                    (
                        student,
                        f"{calendar.shown(extension.due)} ({extension.written}{reason})",
                        status,
                    )
                )
            if outcome.due is not None and outcome.submitted_at is None:
                entry.no_time.append(student)
            if outcome.late_by is not None and term is not None:
                entry.late.append(
                    (
                        student,
                        calendar.shown(outcome.submitted_at),
                        describe_delay(outcome.late_by),
                        _cost(term, outcome.fraction, penalties.get(key, 0.0)),
                    )
                )
        if term is not None or entry.no_submission or entry.not_graded:
            summaries.append(entry)
    return TermRun(settled, outcomes, students, assignments, row_flags, summaries)
