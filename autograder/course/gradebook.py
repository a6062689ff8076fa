"""A course's gradebook: nbgrader's ``Gradebook`` opened with the course's URL, its students
and indexes put in before the workers start, its scores read, and a whole class's
submissions loaded in a few queries."""

from __future__ import annotations

import contextlib
import shutil
import warnings
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from autograder.course.nbgrader_env import prepare_nbgrader
from autograder.models import GradingError
from autograder.notebook import score_names

if TYPE_CHECKING:
    from pathlib import Path

    from nbgrader.api import Gradebook, SubmittedAssignment


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

        A test that has no score (e.g. the notebook could not be graded) counts as 0.
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
            for student in students:
                scores: dict[str, tuple[float, float]] = {}
                try:
                    submission = gb.find_submission(assignment, student)
                except MissingEntry:
                    out[student] = scores
                    continue
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.cell.cell_type != "code":
                            continue
                        score = grade.score if grade.score is not None else 0.0
                        name = keys.get((notebook.name, grade.name), grade.name)
                        scores[name] = (float(score), float(grade.max_score))
                placed = sorted(scores, key=lambda name: (order.get(name, len(order)), name))
                out[student] = {name: scores[name] for name in placed}
        return out

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
        with self.gradebook() as gb, warnings.catch_warnings():
            # nbgrader's add_submission trips SQLAlchemy's autoflush warnings (harmless; the
            # same happens inside `nbgrader autograde`)
            warnings.simplefilter("ignore")
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
