"""Manual grading: what of each submission awaits a person (nbgrader's "needs manual
grade": written answers, read from the gradebook when the report is written, so the
points given in nbgrader's formgrader since the last run count)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from autograder.course import Course, load_submissions
from autograder.models import SubmissionResult


@dataclass(frozen=True)
class ManualPending:
    """The answers of one submission that await manual grading, and their points."""

    answers: int = 0
    points: float = 0.0


def pending_of(submission) -> ManualPending:
    """What of a gradebook submission (nbgrader's ``SubmittedAssignment``, or None: no
    submission) nbgrader marks "needs manual grade"."""
    answers, points = 0, 0.0
    if submission is None:
        return ManualPending()
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            if grade.needs_manual_grade:
                answers += 1
                points += float(grade.max_score or 0.0)
    return ManualPending(answers, points)


def pending_in_gradebook(gradebook, assignment: str, student: str) -> ManualPending:
    """What of *student*'s submission of *assignment* nbgrader marks "needs manual grade"
    (none when there is no such submission)."""
    from nbgrader.api import MissingEntry

    try:
        return pending_of(gradebook.find_submission(assignment, student))
    except MissingEntry:
        return ManualPending()


def manual_pending(
    course: Course, results: Iterable[SubmissionResult]
) -> dict[tuple[str, str], ManualPending]:
    """(assignment, student) -> what awaits manual grading, for each result, from the
    gradebook as it is now."""
    results = list(results)
    with course.gradebook() as gb:
        found = load_submissions(gb, {r.assignment for r in results})
        return {
            (r.assignment, r.student): pending_of(found.get((r.assignment, r.student)))
            for r in results
        }
