"""Which assignment each student's submission is, before anything is graded or written.

Names first, grade ids where the names leave a doubt (nbgrader's grade ids are unique
within a notebook only: an instructor who copied a cell from one assignment to the next
kept its id, so the same id may be in several assignments):

- the assignment's folder name decides (nbgrader's layout ``<student>/<assignment>/``, an
  LMS's names that carry it, or ``--assignment``); with ``--assignment``, a batch that
  mostly fits another assignment's graded cells better is refused (an instructor's
  mistake, :func:`autograder.notebook.assignment_mismatch`);
- else the notebooks' file names (:func:`~.prepare.named_assignments`): the assignment
  whose notebook names they match, unless the notebooks carry none of its graded cells and
  another's (then the grade ids win, flagged);
- where several assignments have notebooks of those names, or none, the notebooks' grade
  ids decide among them (:func:`autograder.notebook.closest_assignments`);
- where the grade ids fit several alike too, the doubt is said (a flag on each such
  submission and a note on stderr) and one of them is chosen: the one most of the batch's
  decided submissions are (an LMS zip holds one assignment), else the first in the course.

What is not any assignment's, or whose student id is too long for the gradebook, is not
graded: it is listed with why.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence

from autograder.intake.prepare import named_assignments
from autograder.models import RawSubmission, SubmissionsError
from autograder.notebook import assignment_mismatch, carried_ids, closest_assignments
from autograder.text import LISTED, listing

log = logging.getLogger(__name__)


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

    ``graded``: each assignment of the course, in the course's order -> the grade ids of
    its graded cells; ``source_notebooks``: each assignment -> its notebooks' names;
    ``id_limit``: the longest student id the gradebook takes; ``where``: the submissions'
    path, for messages.

    Returns ``(assigned, unmatched)``: (assignment, submission) pairs, in the order of
    ``raws``, and each submission not graded -> why (a flag of the run's outputs). A
    submission whose assignment remains in doubt is flagged so, and a note is logged.

    Raises
    ------
    SubmissionsError
        With ``assignment``, most submissions fit another assignment's graded cells
        better; or no submission belongs to an assignment of the course.
    """
    carried = [_carried_ids(raw) for raw in raws]
    if assignment is not None:
        mismatch = assignment_mismatch(assignment, carried, graded)
        if mismatch:
            raise SubmissionsError(mismatch)
    unmatched: dict[str, str] = {}  # submission -> why it is not graded
    chosen: dict[int, str] = {}  # index in raws -> its assignment
    in_doubt: list[tuple[int, list[str]]] = []  # index in raws -> the assignments it fits
    for index, (raw, ids) in enumerate(zip(raws, carried, strict=True)):
        if len(raw.student) > id_limit:
            unmatched[f"{raw.student[:40]}…/{raw.assignment or '?'}"] = (
                f"student id longer than {id_limit} characters, the gradebook's limit "
                "(not graded; shorten the folder name)"
            )
            continue
        if raw.assignment is not None:  # its folder's name, or --assignment
            candidates = [raw.assignment] if raw.assignment in graded else []
        else:
            candidates, flags = _candidates(raw.files, ids, graded, source_notebooks)
            raw.flags.extend(flags)
        if not candidates:
            unmatched[f"{raw.student}/{raw.assignment or '?'}"] = (
                "not a submission of any assignment of this course (not graded)"
            )
        elif len(candidates) == 1:
            chosen[index] = candidates[0]
        else:
            in_doubt.append((index, candidates))
    _settle_doubts(raws, chosen, in_doubt)
    assigned = [(chosen[i], raw) for i, raw in enumerate(raws) if i in chosen]
    if not assigned:
        if unmatched:
            raise SubmissionsError(
                "no submission belongs to a known assignment (pass --assignment for an LMS "
                f"zip); found {', '.join(list(unmatched)[:LISTED])}"
            )
        raise SubmissionsError(f"no submissions found in {where}")
    return assigned, unmatched


def _candidates(
    files: Mapping[str, bytes],
    ids: set[str],
    graded: Mapping[str, set[str]],
    source_notebooks: Mapping[str, list[str]],
) -> tuple[list[str], list[str]]:
    """The assignments one submission's files may be, without a folder name, and its flags:
    one (decided), several (a doubt the file names and grade ids leave), or none.

    ``files``: its files by name; ``ids``: every grade id its notebooks carry. The file
    names decide (:func:`~.prepare.named_assignments`); where they name several
    assignments, or none, the grade ids decide among them
    (:func:`~autograder.notebook.closest_assignments`); where the notebooks carry none of
    the named assignments' graded cells and another's, the grade ids win, flagged.
    """
    named = [a for a in named_assignments(files, source_notebooks) if a in graded]
    if len(named) == 1 and (not ids or ids & graded[named[0]]):
        return named, []
    by_ids = closest_assignments(ids, graded, among=named or None)
    if by_ids or not named:
        return by_ids, []
    # the notebooks carry none of the named assignments' graded cells
    by_ids = closest_assignments(ids, graded)
    if not by_ids:  # nor any other's: the names stand (the notebooks are flagged later)
        return named, []
    flag = (
        f"the file names look like {_alike(named, 'or')}, but the notebooks carry "
        f"{_alike(by_ids, 'or')}'s graded cells"
    )
    return by_ids, [flag + (f": graded as {by_ids[0]}" if len(by_ids) == 1 else "")]


def _settle_doubts(
    raws: Sequence[RawSubmission], chosen: dict[int, str], in_doubt: list[tuple[int, list[str]]]
) -> None:
    """Choose an assignment for each submission in doubt (into ``chosen``): of those it
    fits alike, the one most of the decided submissions are, else the first in the
    course; flag each, and log one note for each doubt."""
    decided = Counter(chosen.values())
    notes: dict[tuple[tuple[str, ...], str, str], list[str]] = {}
    for index, candidates in in_doubt:
        counts = [decided[name] for name in candidates]
        if max(counts) > 0 and counts.count(max(counts)) == 1:
            pick = candidates[counts.index(max(counts))]
            how = f"the assignment of most of this batch's clear submissions ({max(counts):,})"
        else:
            pick, how = candidates[0], "the first of them in the course"
        chosen[index] = pick
        raw = raws[index]
        raw.flags.append(
            f"the file names and grade ids fit {_alike(candidates, 'and')} alike: graded as "
            f"{pick}, {how}; name the assignment with --assignment to choose"
        )
        notes.setdefault((tuple(candidates), pick, how), []).append(raw.student)
    for (alike, pick, how), students in notes.items():
        log.warning(
            "%s fit %s alike by their file names and grade ids (%s): graded as %s, %s; "
            "pass --assignment to choose",
            f"{len(students):,} submission" + ("s" if len(students) > 1 else ""),
            _alike(alike, "and"),
            listing(students),
            pick,
            how,
        )


def _alike(names: Sequence[str], conjunction: str) -> str:
    """``hw1``, ``hw1 and hw2``, ``hw1, hw2 and hw3``."""
    names = list(names)
    if len(names) <= 1 or len(names) > LISTED:
        return listing(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def _carried_ids(raw: RawSubmission) -> set[str]:
    """Every grade id the notebooks of one student's files carry."""
    return set().union(*(carried_ids(c) for n, c in raw.files.items() if n.endswith(".ipynb")))
