"""A course's gradebook: nbgrader's ``Gradebook`` opened with the course's URL, its students
and indexes put in before the workers start, its scores read, a whole class's
submissions loaded in a few queries, and what each submission is worth as nbgrader counts
it (:class:`Totals`, :func:`totals_of`: the one home of a submission's score and maximum,
the points graded by hand among them, and what of them awaits a hand grade)."""

from __future__ import annotations

import contextlib
import shutil
import warnings
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autograder.course.nbgrader_env import prepare_nbgrader
from autograder.models import GradingError
from autograder.notebook import score_names

if TYPE_CHECKING:
    from pathlib import Path

    from nbgrader.api import Assignment, Gradebook, SubmittedAssignment


@dataclass(frozen=True)
class ManualPending:
    """The answers of one submission that await manual grading, and their points."""

    answers: int = 0
    points: float = 0.0


@dataclass(frozen=True)
class Totals:
    """A submission's points as nbgrader's gradebook keeps them, and its formgrader and
    export show them: ``score``, the sum of every graded cell's score (the autograded tests'
    and the points given by hand so far), before any late penalty; ``max_score``, the sum of
    every graded cell's points (nbgrader's ``max_score``: the autograded tests, the answers
    graded by hand, the tasks); ``by_hand``, the points of ``max_score`` graded by hand (its
    answers and tasks); ``pending``, what of them still awaits a hand grade."""

    score: float = 0.0
    max_score: float = 0.0
    by_hand: float = 0.0
    pending: ManualPending = field(default_factory=ManualPending)


def _graded_cells(assignment: Assignment) -> Iterator[tuple[int, float, bool]]:
    """(id, points, graded by hand) of each gradebook cell of ``assignment`` (nbgrader's)
    that has points: an autograded test is a code grade cell that is no solution cell;
    every other — an answer graded by hand, written or code (a grade cell that is also a
    solution cell), a task — a person grades."""
    for notebook in assignment.notebooks:
        answers = {cell.name for cell in notebook.solution_cells}
        for cell in notebook.grade_cells:
            test = cell.cell_type == "code" and cell.name not in answers
            yield cell.id, float(cell.max_score or 0.0), not test
        for task in notebook.task_cells:
            yield task.id, float(task.max_score or 0.0), True


def hand_graded_cells(assignment: Assignment) -> set[int]:
    """The ids of the gradebook's cells of ``assignment`` (nbgrader's) that a person grades:
    its answers graded by hand and its tasks; every other grade cell is an autograded
    test."""
    return {cell for cell, _, by_hand in _graded_cells(assignment) if by_hand}


def assignment_points(assignment: Assignment) -> tuple[float, float]:
    """(its maximum, the points of it graded by hand) of an assignment of the gradebook, as
    nbgrader counts its maximum: every grade cell's and task cell's points."""
    cells = list(_graded_cells(assignment))
    return sum(p for _, p, _ in cells), sum(p for _, p, by_hand in cells if by_hand)


def pending_of(submission: SubmittedAssignment | None) -> ManualPending:
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


def totals_of(submission: SubmittedAssignment, hand: Collection[int]) -> Totals:
    """A gradebook submission's :class:`Totals` (as :func:`load_submissions` loads it, or
    nbgrader's ``find_submission``); ``hand``: the ids of its assignment's cells graded by
    hand (:func:`hand_graded_cells`)."""
    by_hand = sum(
        float(grade.max_score or 0.0)
        for notebook in submission.notebooks
        for grade in notebook.grades
        if grade.cell_id in hand
    )
    # nbgrader's own sums (SQL): its score, each notebook's maximum
    max_score = sum(float(notebook.max_score or 0.0) for notebook in submission.notebooks)
    return Totals(float(submission.score or 0.0), max_score, by_hand, pending_of(submission))


@contextlib.contextmanager
def autoflush_warnings_hidden() -> Iterator[None]:
    """Within the block, SQLAlchemy's ``SAWarning`` is not shown: nbgrader's
    ``add_submission`` (under ``update_or_create_submission``) trips its autoflush warnings
    ("Object of type <SubmittedAssignment> not in session, add operation along ... will not
    proceed"), harmless, and the same inside ``nbgrader autograde``. Every other warning
    shows as usual."""
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        yield


def id_length_limit() -> int:
    """The longest student id nbgrader's gradebook stores (its id columns' length; SQLite
    ignores it, PostgreSQL refuses a longer one)."""
    from nbgrader.api import Student

    return Student.__table__.c.id.type.length


#: Indexes the gradebook's tables lack (nbgrader's unique constraints start with another
#: column), each on a column nbgrader's own scores look up row by row: a submission's
#: notebooks, a notebook's grades and comments, a student's submissions. Without them every
#: score PostgreSQL or SQLite computes reads the whole table: 10,000 students' reports took
#: minutes. Extra indexes change nothing nbgrader reads or writes.
GRADEBOOK_INDEXES = {
    "ix_autograder_submitted_notebook_assignment": ("submitted_notebook", "assignment_id"),
    "ix_autograder_grade_notebook": ("grade", "notebook_id"),
    "ix_autograder_comment_notebook": ("comment", "notebook_id"),
    "ix_autograder_submitted_assignment_student": ("submitted_assignment", "student_id"),
}


def load_submissions(
    gb: Gradebook, assignments: Iterable[str]
) -> dict[tuple[str, str], SubmittedAssignment]:
    """Every submission of ``assignments`` in the gradebook ``gb``, keyed (assignment,
    student), as nbgrader's ``find_submission`` gives it, with what the reports read already
    loaded: its notebooks and their grades, and the scores nbgrader computes in SQL (a
    submission's score and late penalty, a notebook's score and maximum, a grade's maximum).

    A handful of queries for the whole class: ``find_submission`` costs one query per
    submission and one more per score read (about ten a student for recording the
    penalties, what awaits manual grading and grades.csv; 100 s of 10,000 students' run)."""
    from nbgrader.api import Assignment, Grade, Student, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy.orm import contains_eager, selectinload, undefer

    names = sorted(set(assignments))
    if not names:
        return {}
    query = (
        gb.db.query(SubmittedAssignment)
        .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
        .join(Student, Student.id == SubmittedAssignment.student_id)
        .filter(Assignment.name.in_(names))
        .options(
            contains_eager(SubmittedAssignment.assignment),
            contains_eager(SubmittedAssignment.student),
            undefer(SubmittedAssignment.score),
            undefer(SubmittedAssignment.late_submission_penalty),
            selectinload(SubmittedAssignment.notebooks).options(
                undefer(SubmittedNotebook.score),
                undefer(SubmittedNotebook.max_score),
                selectinload(SubmittedNotebook.grades).options(undefer(Grade.max_score)),
            ),
        )
    )
    return {(s.assignment.name, s.student.id): s for s in query}


def read_totals(
    gradebook: Gradebook, keys: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], Totals]:
    """(assignment, student) -> :class:`Totals` of each key's submission in ``gradebook``;
    a key with no submission (none recorded, or an assignment the gradebook does not have)
    is worth its assignment's maximum and scores 0."""
    keys = list(keys)
    wanted = {a for a, _ in keys}
    assignments = {a.name: a for a in gradebook.assignments if a.name in wanted}
    hand = {name: hand_graded_cells(a) for name, a in assignments.items()}
    found = load_submissions(gradebook, assignments)
    out: dict[tuple[str, str], Totals] = {}
    for key in keys:
        submission = found.get(key)
        if submission is not None:
            out[key] = totals_of(submission, hand[key[0]])
        elif key[0] in assignments:
            total, by_hand = assignment_points(assignments[key[0]])
            out[key] = Totals(max_score=total, by_hand=by_hand)
        else:
            out[key] = Totals()
    return out


class CourseGradebook:
    """The gradebook side of :class:`~autograder.course.directory.Course`, mixed into it (its
    ``db_url``, ``course_id`` and folders)."""

    if TYPE_CHECKING:  # the Course's, which mixes this in

        @property
        def db_url(self) -> str: ...

        @property
        def course_id(self) -> str: ...

        def source_dir(self, assignment: str) -> Path: ...

        def autograded_dir(self, student: str, assignment: str) -> Path: ...

        def feedback_dir(self, student: str, assignment: str) -> Path: ...

    @contextlib.contextmanager
    def gradebook(self) -> Iterator[Gradebook]:
        """nbgrader's ``Gradebook`` of the course, opened with its URL and course id."""
        from nbgrader.api import Gradebook

        prepare_nbgrader()
        with Gradebook(self.db_url, self.course_id) as gb:
            yield gb

    def read_scores(
        self, assignment: str, students: Iterable[str], *, per_notebook: bool = False
    ) -> dict[str, dict[str, tuple[float, float]]]:
        """Autograded test scores from the gradebook: student -> test -> (score, max), a
        test by its grade id. With ``per_notebook`` (the grader's outputs), a grade id that
        several notebooks of the assignment have is ``notebook/grade id`` each
        (:func:`~autograder.notebook.score_names`; nbgrader's grade ids are unique within a
        notebook only); without, one of their scores stands for all (a caller that looks
        tests up by grade id).

        The autograded tests only: a code answer graded by hand (a grade cell that is also
        a solution cell) is no test, nor is a written answer or a task (what awaits a
        person: :class:`Totals`). A test that has no score (e.g. the notebook could not be
        graded) counts as 0.
        """
        from nbgrader.api import MissingEntry

        out: dict[str, dict[str, tuple[float, float]]] = {}
        # the gradebook gives a notebook's grades in no set order (PostgreSQL: as its rows
        # were last updated): the tests' order is the source notebooks'
        keys = score_names(self.source_dir(assignment))
        if not per_notebook:
            keys = {cell: cell[1] for cell in keys}
        order = {name: place for place, name in enumerate(dict.fromkeys(keys.values()))}
        with self.gradebook() as gb:
            try:
                hand = hand_graded_cells(gb.find_assignment(assignment))
            except MissingEntry:
                hand = set()
            for student in students:
                scores: dict[str, tuple[float, float]] = {}
                try:
                    submission = gb.find_submission(assignment, student)
                except MissingEntry:
                    out[student] = scores
                    continue
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.cell_id in hand or grade.cell.cell_type != "code":
                            continue
                        score = grade.score if grade.score is not None else 0.0
                        name = keys.get((notebook.name, grade.name), grade.name)
                        scores[name] = (float(score), float(grade.max_score))
                placed = sorted(scores, key=lambda name: (order.get(name, len(order)), name))
                out[student] = {name: scores[name] for name in placed}
        return out

    def totals(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Totals]:
        """(assignment, student) -> what each submission is worth, as the gradebook holds it
        now (:func:`read_totals`: the points given by hand in nbgrader's formgrader since
        the last run count)."""
        with self.gradebook() as gb:
            return read_totals(gb, keys)

    def ensure_students(self, students: Iterable[str]) -> None:
        """Create the students in the gradebook up front, so workers never race to insert
        them.

        Also nbgrader's ``default_course`` row: its preprocessors (and ours) open the
        gradebook without a course id, which inserts that row on first use; workers doing
        it at the same moment collide on its unique key (on PostgreSQL, and on SQLite).
        And the gradebook's :data:`GRADEBOOK_INDEXES` (:meth:`ensure_indexes`).

        Raises
        ------
        GradingError
            A student id is longer than the gradebook's column (128 characters) on a
            database that enforces it (not SQLite): one line instead of nbgrader's
            ``InvalidEntry`` traceback.
        """
        from nbgrader.api import Gradebook

        students = list(students)
        limit = id_length_limit()
        too_long = [s for s in students if len(s) > limit]
        if too_long and not self.db_url.startswith("sqlite"):
            # SQLite ignores the gradebook's column lengths; PostgreSQL refuses the row
            raise GradingError(
                f"student id longer than {limit} characters, the gradebook's limit: "
                f"{too_long[0][:40]!r}…"
            )
        from nbgrader.api import Student

        with self.gradebook() as gb:
            # one query and one commit for the class (nbgrader's update_or_create_student
            # is a query and a commit a student); nothing else writes while the course is
            # held (Course.lock)
            present = {row.id for row in gb.db.query(Student.id)}
            missing = [s for s in dict.fromkeys(students) if s not in present]
            if missing:
                gb.db.add_all(Student(id=student) for student in missing)
                gb.db.commit()
        with Gradebook(self.db_url):
            pass
        self.ensure_indexes()

    def name_students(self, names: Mapping[str, str]) -> None:
        """Write each student's name as the submissions say it (``names``: id -> name, an
        LMS's file names) into the gradebook, whole, as the ``last_name`` nbgrader's export
        shows (neither Canvas's nor Moodle's names tell the first name from the last); a
        student the gradebook already names (in nbgrader, or by an earlier run) keeps it."""
        from nbgrader.api import Student

        wanted = {student: name for student, name in names.items() if name}
        if not wanted:
            return
        with self.gradebook() as gb:
            for student in gb.db.query(Student):
                if student.id in wanted and not (student.last_name or student.first_name):
                    student.last_name = wanted[student.id]
            gb.db.commit()

    def ensure_indexes(self) -> None:
        """Create the gradebook's :data:`GRADEBOOK_INDEXES` that are not there yet (before
        the workers start: PostgreSQL's ``CREATE INDEX IF NOT EXISTS`` run at the same
        moment by two connections can collide)."""
        from sqlalchemy import text

        with self.gradebook() as gb:
            for name, (table, column) in GRADEBOOK_INDEXES.items():
                gb.db.execute(text(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})"))
            gb.db.commit()

    def record_zero_scores(self, assignment: str, student: str) -> None:
        """A submission with no gradable notebook: every test scores 0, as nbgrader does for
        a missing notebook (its Autograde needs at least one notebook to run at all)."""
        with self.gradebook() as gb, autoflush_warnings_hidden():
            gb.update_or_create_student(student)
            submission = gb.update_or_create_submission(assignment, student)
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
            gb.db.commit()
        for folder in (
            self.autograded_dir(student, assignment),
            self.feedback_dir(student, assignment),
        ):
            if folder.exists():
                shutil.rmtree(folder)
