"""Resubmissions: which of a student's several submissions of an assignment is graded.

Several submissions come from nbgrader's exchange (one folder per ``nbgrader submit``,
each with its time) and from Canvas's re-uploads (``x.ipynb``, ``x-1.ipynb``, ...: no time
each, but their order). The policy (``--policy``, or ``policy`` in course.toml) chooses:

- ``latest`` (the default): the last one handed in;
- ``latest-on-time``: the last one handed in by the student's due date (as nbgrader's
  ``collect --before-duedate``), or the last one when none was on time;
- ``best``: each is graded, and the one with the most points after the late penalty
  counts (a tie goes to the later one).

Submissions handed in after the assignment's hard close are set aside first; a student
with nothing left is not graded. The flags say which submission was graded and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from autograder.intake import copies_of, upload_order
from autograder.lms.times import SubmissionTimes
from autograder.models import RawSubmission, SubmissionKey
from autograder.term.calendar import Calendar
from autograder.term.late import instant, lateness, penalty_points


@dataclass
class Plan:
    """What to grade: one submission per (assignment, student) in ``chosen``, several to
    grade and compare in ``contest`` (policy best), and those not graded in ``closed``."""

    chosen: dict[SubmissionKey, RawSubmission] = field(default_factory=dict)
    contest: dict[SubmissionKey, list[RawSubmission]] = field(default_factory=dict)
    closed: dict[SubmissionKey, str] = field(default_factory=dict)  # why not graded
    flags: dict[SubmissionKey, list[str]] = field(default_factory=dict)


def split_uploads(raw: RawSubmission, notebooks: Sequence[str]) -> list[RawSubmission]:
    """One submission per Canvas upload number (``x.ipynb`` is upload 0, ``x-2.ipynb``
    upload 2) when the student's files hold several; else ``[raw]``."""
    names = list(raw.files)
    copies = {nb: copies_of(nb, names, only=len(notebooks) == 1) for nb in notebooks}
    numbers = {
        nb: {name: upload_order(name, f"{nb}.ipynb")[0] for name in found}
        for nb, found in copies.items()
    }
    uploads = sorted({n for found in numbers.values() for n in found.values()})
    if len(uploads) < 2:
        return [raw]
    copied = {name for found in copies.values() for name in found}
    common = {name: data for name, data in raw.files.items() if name not in copied}
    attempts = []
    for upload in uploads:
        files = dict(common)
        for found in numbers.values():
            earlier = [n for n in found.values() if n <= upload] or [min(found.values())]
            files.update({name: raw.files[name] for name, n in found.items() if n == max(earlier)})
        label = "the first upload" if upload == 0 else f"re-upload -{upload}"
        attempts.append(replace(raw, files=files, flags=list(raw.flags), label=label))
    return attempts


def apply_times(
    groups: Mapping[SubmissionKey, list[RawSubmission]], times: SubmissionTimes | None
) -> dict[SubmissionKey, list[str]]:
    """Set the times of ``--times`` on the submissions (it wins over their own when a
    student handed in once; several submissions keep their own times). Returns flags."""
    flags: dict[SubmissionKey, list[str]] = {}
    if times is None:
        return flags
    for (assignment, student), attempts in groups.items():
        moment = times.time_for(student, assignment)
        if moment is None:
            continue
        if len(attempts) == 1:
            attempts[0].submitted_at = moment
        elif all(a.submitted_at is None for a in attempts):
            flags[(assignment, student)] = [
                f"{times.source} has one time for {len(attempts)} submissions: used for each"
            ]
            for attempt in attempts:
                attempt.submitted_at = moment
    return flags


def _when(calendar: Calendar, attempt: RawSubmission) -> str:
    if attempt.submitted_at is not None:
        return f"handed in {calendar.shown(attempt.submitted_at)}"
    return attempt.label or "no time"


def _time(attempt: RawSubmission) -> datetime:
    """When an attempt that has a time was handed in, as an instant."""
    assert attempt.submitted_at is not None, "only an attempt with a time"
    return instant(attempt.submitted_at)


def _order(attempts: Sequence[RawSubmission]) -> list[RawSubmission]:
    """Oldest first: by time when every one has one, else as listed (upload order)."""
    if all(a.submitted_at is not None for a in attempts):
        return sorted(attempts, key=_time)
    return list(attempts)


def plan_attempts(
    groups: Mapping[SubmissionKey, list[RawSubmission]], calendar: Calendar, policy: str
) -> Plan:
    """Choose per (assignment, student) what is graded (see the module docstring)."""
    plan = Plan()
    for key in sorted(groups):
        assignment, student = key
        attempts = _order(groups[key])
        flags = plan.flags.setdefault(key, [])
        due = calendar.due_for(student, assignment)
        term = calendar.term(assignment)
        close = term.close_for(due) if term is not None and due is not None else None
        if close is not None:
            after = [
                a
                for a in attempts
                if a.submitted_at is not None and instant(a.submitted_at) > instant(close)
            ]
            attempts = [a for a in attempts if all(a is not b for b in after)]
            shown = calendar.shown(close)
            if after and not attempts:
                plan.closed[key] = (
                    f"{_when(calendar, after[-1])}, after the assignment closed ({shown}): "
                    "not graded"
                )
                continue
            for attempt in after:
                flags.append(
                    f"submission {_when(calendar, attempt)} is after the close ({shown}): ignored"
                )
        if len(attempts) == 1:
            plan.chosen[key] = attempts[0]
            continue
        count = f"{len(attempts)} submissions"
        if policy == "best":
            plan.contest[key] = attempts
            continue
        if policy == "latest-on-time" and due is not None:
            timed = [a for a in attempts if a.submitted_at is not None]
            on_time = [a for a in timed if _time(a) <= instant(due)]
            if not timed:
                chosen, why = attempts[-1], "none has a time: graded the latest"
            elif on_time:
                chosen = on_time[-1]
                later = len(timed) - timed.index(chosen) - 1
                why = f"graded the latest on time ({_when(calendar, chosen)})"
                why += f"; {later} later ignored" if later else ""
            else:
                chosen = timed[-1]
                why = f"none on time: graded the latest ({_when(calendar, chosen)})"
        else:
            chosen = attempts[-1]
            why = f"graded the latest ({_when(calendar, chosen)})"
            if policy == "latest-on-time":
                why += ", as there is no due date"
        plan.chosen[key] = chosen
        flags.append(f"{count}: {why} (policy {policy})")
    return plan


def final_points(
    calendar: Calendar, attempt: RawSubmission, assignment: str, score: float, max_score: float
) -> float:
    """What ``attempt`` scoring ``score`` of ``max_score`` keeps after its late penalty."""
    due = calendar.due_for(attempt.student, assignment)
    term = calendar.term(assignment)
    if due is None or term is None or attempt.submitted_at is None:
        return score
    late = lateness(term.rule, due, attempt.submitted_at)
    return max(0.0, score - penalty_points(term.rule, late.fraction, score, max_score))


def choose_best(
    calendar: Calendar,
    key: SubmissionKey,
    attempts: Sequence[RawSubmission],
    scores: Sequence[tuple[float, float]],
) -> tuple[RawSubmission, str]:
    """The attempt with the most points after its late penalty (the later one of a tie),
    and the flag that says so; ``scores``: each attempt's (score, max score)."""
    finals = [
        final_points(calendar, a, key[0], s, m) for a, (s, m) in zip(attempts, scores, strict=True)
    ]
    best = max(range(len(attempts)), key=lambda i: (finals[i], i))
    others = ", ".join(f"{f:g}" for i, f in enumerate(finals) if i != best)
    flag = (
        f"{len(attempts)} submissions: graded the best ({_when(calendar, attempts[best])}), "
        f"{finals[best]:g} of {scores[best][1]:g} points after penalties (the others: "
        f"{others}) (policy best)"
    )
    return attempts[best], flag


def group_attempts(
    assigned: Iterable[tuple[str, RawSubmission]],
    notebooks: Mapping[str, Sequence[str]],
    policy: str,
) -> dict[SubmissionKey, list[RawSubmission]]:
    """The submissions per (assignment, student); with policy best, a Canvas submission
    holding several uploads is split into one per upload (:func:`split_uploads`)."""
    groups: dict[SubmissionKey, list[RawSubmission]] = {}
    for assignment, raw in assigned:
        groups.setdefault((assignment, raw.student), []).append(raw)
    if policy == "best":
        for key, attempts in groups.items():
            if len(attempts) == 1:
                groups[key] = split_uploads(attempts[0], notebooks.get(key[0], [key[0]]))
    return groups
