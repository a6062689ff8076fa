"""results.json: a grading run's results as plain data (scores per test, flags, errors)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from autograder.files import write_atomic
from autograder.models import SubmissionResult
from autograder.report.manual import ManualPending

#: Version of results.json's layout; bump it when a key changes meaning or disappears.
RESULTS_FORMAT = 1


def results_data(
    results: Iterable[SubmissionResult],
    unmatched: Iterable[str] = (),
    manual: Mapping[tuple[str, str], ManualPending] | None = None,
) -> dict[str, object]:
    """A run's results as plain data (what results.json holds).

    ``{"format": 1, "submissions": [...], "unmatched": [...]}``; each submission, sorted
    by assignment then student: ``student``, ``assignment``, ``score``, ``max_score``,
    ``tests`` (autograded grade id -> ``{"score", "max_score"}``), ``flags``, ``ok``,
    ``error``, ``missing`` (notebooks that could not be graded and scored 0),
    ``manual_pending`` (``{"answers", "points"}`` awaiting manual grading; from ``manual``,
    (assignment, student) -> :class:`~.manual.ManualPending`, zero when not given) and
    ``diagnoses`` (exercise -> what its failed tests look like: ``misconception``, the id of
    the catalogue's misconception the answers match, or null with the smallest failing
    probe; ``says``, ``hint``, ``call``, ``got``, ``rule``, ``tests``; or ``timed_out``);
    where the trusted re-check left tests to the kernel's verdict, ``not_rechecked`` (grade
    id -> why: scored as the kernel ran them, as stock nbgrader scores them).
    """
    manual = manual or {}
    submissions = []
    for r in sorted(results, key=lambda r: (r.assignment, r.student)):
        entry: dict[str, object] = {
            "student": r.student,
            "assignment": r.assignment,
            "score": r.score,
            "max_score": r.max_score,
            "tests": {
                gid: {"score": float(score), "max_score": float(points)}
                for gid, (score, points) in sorted(r.scores.items())
            },
            "flags": list(r.flags),
            "ok": bool(r.ok),
            "error": r.error,
            "missing": list(r.missing),
            "manual_pending": _pending(manual.get((r.assignment, r.student))),
            "diagnoses": {name: dict(d) for name, d in sorted(r.diagnoses.items())},
        }
        if r.unchecked:
            entry["not_rechecked"] = dict(sorted(r.unchecked.items()))
        submissions.append(entry)
    return {"format": RESULTS_FORMAT, "submissions": submissions, "unmatched": list(unmatched)}


def _pending(pending: ManualPending | None) -> dict[str, float]:
    pending = pending or ManualPending()
    return {"answers": pending.answers, "points": float(pending.points)}


def write_results(
    results: Iterable[SubmissionResult],
    dest: Path,
    unmatched: Iterable[str] = (),
    manual: Mapping[tuple[str, str], ManualPending] | None = None,
) -> Path:
    """Write :func:`results_data` to ``dest`` (results.json): the old file or the new one,
    never a torn one (:func:`autograder.files.write_atomic`)."""
    data = results_data(results, unmatched, manual)
    text = json.dumps(data, indent=1, ensure_ascii=False)
    return write_atomic(dest, text + "\n")
