"""results.json: a grading run's results as plain data (scores per test, flags, errors)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from autograder.course import Totals
from autograder.files import write_atomic
from autograder.models import SubmissionResult

#: Version of results.json's layout; bump it when a key changes meaning or disappears.
#: 2: ``score`` and ``max_score`` are the gradebook's (the points graded by hand included),
#: ``tests`` the autograded tests only (a code answer graded by hand is none).
RESULTS_FORMAT = 2


def totals_or_tests(result: SubmissionResult, totals: Mapping[tuple[str, str], Totals]) -> Totals:
    """The result's :class:`~autograder.course.Totals` from ``totals``; without them (no
    gradebook was read: a caller of its own) its autograded tests' alone."""
    found = totals.get((result.assignment, result.student))
    if found is not None:
        return found
    return Totals(score=result.autograded_score, max_score=result.autograded_max)


def results_data(
    results: Iterable[SubmissionResult],
    unmatched: Iterable[str] = (),
    totals: Mapping[tuple[str, str], Totals] | None = None,
) -> dict[str, object]:
    """A run's results as plain data (what results.json holds).

    ``{"format": 2, "submissions": [...], "unmatched": [...]}``; each submission, sorted
    by assignment then student: ``student``, ``assignment``, ``score`` and ``max_score``
    (what the submission is worth as nbgrader's gradebook counts it: every graded cell, the
    autograded tests, the answers graded by hand and the tasks; the score before any late
    penalty, with the points given by hand so far), ``tests`` (autograded grade id ->
    ``{"score", "max_score"}``: the autograded tests only), ``flags``, ``ok``, ``error``,
    ``missing`` (notebooks that could not be graded and scored 0), ``manual_pending``
    (``{"answers", "points"}`` awaiting a hand grade) and ``diagnoses`` (exercise -> what
    its failed tests look like: ``misconception``, the id of the catalogue's misconception
    the answers match, or null with the smallest failing probe; ``says``, ``hint``,
    ``call``, ``got``, ``rule``, ``tests``; or ``timed_out``); where the trusted re-check
    left tests to the kernel's verdict, ``not_rechecked`` (grade id -> why: scored as the
    kernel ran them, as stock nbgrader scores them).

    ``totals``: (assignment, student) -> :class:`~autograder.course.Totals`, read from the
    gradebook (:func:`~.manual.totals`); a result without them counts its autograded tests
    only, nothing pending.
    """
    totals = totals or {}
    submissions = []
    for r in sorted(results, key=lambda r: (r.assignment, r.student)):
        total = totals_or_tests(r, totals)
        entry: dict[str, object] = {
            "student": r.student,
            "assignment": r.assignment,
            "score": total.score,
            "max_score": total.max_score,
            "tests": {
                gid: {"score": float(score), "max_score": float(points)}
                for gid, (score, points) in sorted(r.scores.items())
            },
            "flags": list(r.flags),
            "ok": bool(r.ok),
            "error": r.error,
            "missing": list(r.missing),
            "manual_pending": {
                "answers": total.pending.answers,
                "points": float(total.pending.points),
            },
            "diagnoses": {name: dict(d) for name, d in sorted(r.diagnoses.items())},
        }
        if r.unchecked:
            entry["not_rechecked"] = dict(sorted(r.unchecked.items()))
        submissions.append(entry)
    return {"format": RESULTS_FORMAT, "submissions": submissions, "unmatched": list(unmatched)}


def write_results(
    results: Iterable[SubmissionResult],
    dest: Path,
    unmatched: Iterable[str] = (),
    totals: Mapping[tuple[str, str], Totals] | None = None,
) -> Path:
    """Write :func:`results_data` to ``dest`` (results.json): the old file or the new one,
    never a torn one (:func:`autograder.files.write_atomic`)."""
    data = results_data(results, unmatched, totals)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    return write_atomic(dest, text + "\n")
