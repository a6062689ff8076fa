"""The hold: students graded beside the canary, their results kept out of the course until
the canary's verdict.

The canary's promise (:mod:`autograder.grading.canary`) is that no student's result is
written before the grading environment has been proven, not that no student is run before
it. So while the instructor's solutions are graded, the workers the canary leaves free grade
students in a scratch course of their own, ``<course>/held/``: a copy of the assignments'
source folders and an SQLite gradebook holding the assignments' definitions, copied from the
course's gradebook (:func:`make_held`). Nothing of the course, its gradebook, its ledger or
the run's outputs is touched by them.

A worker asks at the start of each submission whether the verdict is in (a marker file the
grader writes when every canary passed, :func:`verdict_marker`): if it is, the submission is
graded in the course as usual; if not, in the scratch course. On a pass, each held result is
moved into the course as nbgrader would have written it there (:func:`transfer`: the
submission's time, each grade's automatic score, whether it awaits manual grading, the
comments, the late penalty, the graded notebooks and feedback pages), then recorded like any
other. On a refusal the scratch course is removed: the course is as it was.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path

from autograder.course import Course, autoflush_warnings_hidden

__all__ = ["HELD_DIR", "discard", "make_held", "transfer", "verdict_marker"]

#: The scratch course of the students graded beside the canary, in the course folder.
HELD_DIR = "held"


def verdict_marker(course: Course) -> Path:
    """A new marker file's path for this run's verdict (written by the grader when the
    canary passed; none exists yet)."""
    return course.root / f".canary-passed-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def make_held(course: Course, assignments: Iterable[str], students: Iterable[str]) -> Course:
    """The scratch course of *course* for *students* of *assignments*: their source folders
    copied, an SQLite gradebook with the assignments' definitions and the students."""
    root = course.root / HELD_DIR
    discard(course)
    held = Course(root, source=course.source)
    root.mkdir(parents=True)
    names = sorted(set(assignments))
    for name in names:
        _copy_tree(course.source_dir(name), held.source_dir(name))
    _copy_definitions(course, held, names)
    held.ensure_students(sorted(set(students)))
    return held


def _copy_tree(source: Path, target: Path) -> None:
    """Copy a folder file by file, so that a failure of the disk is the ``OSError`` it is
    (a full disk: :mod:`autograder.faults`), not ``shutil.copytree``'s summary of them."""
    for path in sorted(source.rglob("*")):
        if path.is_file():
            copy = target / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)


def discard(course: Course) -> None:
    """Remove *course*'s scratch course of held students (nothing if there is none)."""
    shutil.rmtree(course.root / HELD_DIR, ignore_errors=True)


def _copy_definitions(course: Course, held: Course, assignments: list[str]) -> None:
    """The assignments as the course's gradebook defines them (their notebooks and cells),
    written into the scratch course's gradebook."""
    with course.gradebook() as gb, held.gradebook() as target:
        for name in assignments:
            assignment = gb.find_assignment(name)
            target.update_or_create_assignment(name, duedate=assignment.duedate)
            for notebook in assignment.notebooks:
                nb = notebook.name
                target.update_or_create_notebook(nb, name, kernelspec=notebook.kernelspec)
                for cell in notebook.grade_cells:
                    target.update_or_create_grade_cell(
                        cell.name, nb, name, max_score=cell.max_score, cell_type=cell.cell_type
                    )
                for cell in notebook.solution_cells:
                    target.update_or_create_solution_cell(cell.name, nb, name)
                for cell in notebook.task_cells:
                    target.update_or_create_task_cell(
                        cell.name, nb, name, max_score=cell.max_score, cell_type=cell.cell_type
                    )
                for cell in notebook.source_cells:
                    target.update_or_create_source_cell(
                        cell.name,
                        nb,
                        name,
                        cell_type=cell.cell_type,
                        locked=cell.locked,
                        source=cell.source,
                        checksum=cell.checksum,
                    )


def transfer(held: Course, course: Course, assignment: str, student: str) -> None:
    """Move one held submission's result into *course*, as nbgrader's ``Autograde`` would
    have written it there: the submission and its time, each grade's automatic score and
    whether it awaits manual grading (nbgrader's rule: a manual score the course already
    holds, or no automatic score), each comment's automatic text, each notebook's late
    penalty as its feedback page shows it (the scratch course's: none; the term, the
    penalty's one owner, records the course's after the run and has the page written again
    where that differs, :mod:`autograder.feedback.stale`); then the graded notebooks and
    the feedback pages."""
    with held.gradebook() as source, course.gradebook() as gb, autoflush_warnings_hidden():
        done = source.find_submission(assignment, student)
        if done.timestamp is not None:
            submission = gb.update_or_create_submission(
                assignment, student, timestamp=done.timestamp
            )
        else:
            submission = gb.update_or_create_submission(assignment, student)
        notebooks = {nb.name: nb for nb in submission.notebooks}
        for held_nb in done.notebooks:
            target = notebooks[held_nb.name]
            grades = {g.name: g for g in target.grades}
            for grade in held_nb.grades:
                mine = grades[grade.name]
                mine.auto_score = grade.auto_score
                # nbgrader's SaveAutoGrades: a manual score the course holds is reviewed
                mine.needs_manual_grade = grade.needs_manual_grade or mine.manual_score is not None
            comments = {c.name: c for c in target.comments}
            for comment in held_nb.comments:
                comments[comment.name].auto_comment = comment.auto_comment
            target.late_submission_penalty = held_nb.late_submission_penalty
        gb.db.commit()
    for folder in ("autograded_dir", "feedback_dir"):
        old = getattr(held, folder)(student, assignment)
        new = getattr(course, folder)(student, assignment)
        if new.exists():
            shutil.rmtree(new)
        if old.exists():
            new.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(old, new)
