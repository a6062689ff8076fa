"""Manual grading: what of each submission awaits a person (nbgrader's "needs manual
grade": answers graded by hand and tasks), and what each submission is worth with them,
read from the gradebook when the report is written, so the points given in nbgrader's
formgrader since the last run count (:class:`autograder.course.Totals`, the gradebook's
one reading of a submission's score and maximum)."""

from __future__ import annotations

from collections.abc import Iterable

from autograder.course import Course, ManualPending, Totals, pending_of
from autograder.models import SubmissionResult

__all__ = ["ManualPending", "manual_pending", "pending_in_gradebook", "pending_of", "totals"]


def pending_in_gradebook(gradebook, assignment: str, student: str) -> ManualPending:
    """What of *student*'s submission of *assignment* nbgrader marks "needs manual grade"
    (none when there is no such submission)."""
    from nbgrader.api import MissingEntry

    try:
        return pending_of(gradebook.find_submission(assignment, student))
    except MissingEntry:
        return ManualPending()


def totals(course: Course, results: Iterable[SubmissionResult]) -> dict[tuple[str, str], Totals]:
    """(assignment, student) -> what each result's submission is worth, from the gradebook
    as it is now: its score and maximum as nbgrader counts them (the points graded by hand
    included) and what of it awaits a hand grade."""
    return course.totals((r.assignment, r.student) for r in results)


def manual_pending(
    course: Course, results: Iterable[SubmissionResult]
) -> dict[tuple[str, str], ManualPending]:
    """(assignment, student) -> what awaits manual grading, for each result, from the
    gradebook as it is now."""
    return {key: total.pending for key, total in totals(course, results).items()}
