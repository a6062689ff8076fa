"""Which assignment each student's submission is, before anything is graded or written.

The notebooks' grade ids decide (:func:`autograder.notebook.closest_assignment`): a batch
that mostly carries none of the named ``--assignment``'s graded cells is refused (an
instructor's mistake, :func:`autograder.notebook.assignment_mismatch`); a guess from the
file names (:func:`~.prepare.guess_assignment`) yields to the grade ids, flagged. What is
not any assignment's, or whose student id is too long for the gradebook, is not graded: it
is listed with why.
"""

from __future__ import annotations

from collections.abc import Mapping

from autograder.intake.prepare import guess_assignment
from autograder.models import RawSubmission, SubmissionsError
from autograder.notebook import assignment_mismatch, carried_ids, closest_assignment
from autograder.text import LISTED


def match_assignments(
    raws: list[RawSubmission],
    *,
    assignment: str | None,
    graded: Mapping[str, set[str]],
    source_notebooks: Mapping[str, list[str]],
    id_limit: int,
    where: object,
) -> tuple[list[tuple[str, RawSubmission]], dict[str, str]]:
    """The assignment of each submission in ``raws`` (read with ``assignment``, or without).

    ``graded``: each assignment of the course -> the grade ids of its graded cells;
    ``source_notebooks``: each assignment -> its notebooks' names; ``id_limit``: the
    longest student id the gradebook takes; ``where``: the submissions' path, for messages.

    Returns ``(assigned, unmatched)``: (assignment, submission) pairs, in the order of
    ``raws``, and each submission not graded -> why (a flag of the run's outputs).

    Raises
    ------
    SubmissionsError
        With ``assignment``, most submissions carry none of its graded cells; or no
        submission belongs to an assignment of the course.
    """
    carried = [_carried_ids(raw) for raw in raws]
    if assignment is not None:
        mismatch = assignment_mismatch(assignment, carried, graded)
        if mismatch:
            raise SubmissionsError(mismatch)
    unmatched: dict[str, str] = {}  # submission -> why it is not graded
    assigned = []
    for raw, ids in zip(raws, carried, strict=True):
        if len(raw.student) > id_limit:
            unmatched[f"{raw.student[:40]}…/{raw.assignment or '?'}"] = (
                f"student id longer than {id_limit} characters, the gradebook's limit "
                "(not graded; shorten the folder name)"
            )
            continue
        name = raw.assignment or guess_assignment(raw.files, source_notebooks)
        by_cells = closest_assignment(ids, graded) if raw.assignment is None else None
        if by_cells and not ids & graded.get(name or "", set()):
            if name:
                raw.flags.append(
                    f"the file names look like {name}, but the notebooks carry {by_cells}'s "
                    f"graded cells: graded as {by_cells}"
                )
            name = by_cells
        if name is None or name not in graded:
            unmatched[f"{raw.student}/{raw.assignment or '?'}"] = (
                "not a submission of any assignment of this course (not graded)"
            )
            continue
        assigned.append((name, raw))
    if not assigned:
        if unmatched:
            raise SubmissionsError(
                "no submission belongs to a known assignment (pass --assignment for an LMS "
                f"zip); found {', '.join(list(unmatched)[:LISTED])}"
            )
        raise SubmissionsError(f"no submissions found in {where}")
    return assigned, unmatched


def _carried_ids(raw: RawSubmission) -> set[str]:
    """Every grade id the notebooks of one student's files carry."""
    return set().union(*(carried_ids(c) for n, c in raw.files.items() if n.endswith(".ipynb")))
