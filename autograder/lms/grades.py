"""What the LMS exports are made of: each student's grade per assignment, read from the
course's gradebook in nbgrader's meaning (``score = max(0, raw score - late submission
penalty)``), "no submission" where the gradebook has none, and the report that says what
was written and who was left out (printed by ``python -m autograder export``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.faults import faults_as_errors, shown_path
from autograder.files import write_atomic
from autograder.models import TermError
from autograder.text import listing

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

#: A report line names up to this many students, then counts the rest.
REPORT_NAMES = 12
#: the flag of a student of the class who handed nothing in (grades.csv, the exports)
NO_SUBMISSION = "no submission"


@dataclass(frozen=True)
class Grade:
    """A student's grade for an assignment (None: no submission)."""

    score: float  # nbgrader's score: raw - penalty, at least 0
    raw: float
    penalty: float


@dataclass
class CourseGrades:
    """The gradebook's grades: assignments (with their max score, nbgrader's: the points
    graded by hand included), students (with their names), and (assignment, student) ->
    :class:`Grade` where there is a submission."""

    assignments: dict[str, float] = field(default_factory=dict)
    students: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (last, first)
    grades: dict[tuple[str, str], Grade] = field(default_factory=dict)

    def grade(self, assignment: str, student: str) -> Grade | None:
        return self.grades.get((assignment, student))


@dataclass
class ExportReport:
    """What an export wrote and who it left out, as lines for the instructor (``lines``,
    on stdout), and what the instructor must know before importing it (``warnings``, a
    line each on stderr)."""

    dest: str = ""
    rows: int = 0
    columns: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        head = f"wrote {self.dest}: {self.rows} students"
        if self.columns:
            head += f", {', '.join(self.columns)}"
        return [head, *(f"  {note}" for note in self.notes)]


def read_course_grades(
    gradebook: Gradebook, assignments: Iterable[str], students: Iterable[str] = ()
) -> CourseGrades:
    """The grades in ``gradebook`` (nbgrader's) of ``assignments`` for ``students`` (as
    nbgrader's ``ExportPlugin`` reads its ``student`` trait: none given, every student of
    the gradebook).

    Raises
    ------
    TermError
        An assignment named is not in the gradebook (never graded), or none is named.
    """
    from autograder.course import assignment_points, load_submissions

    names = list(assignments)
    present = {a.name: a for a in gradebook.assignments}
    unknown = [a for a in names if a not in present]
    if unknown:
        graded = ", ".join(sorted(present)) or "none"
        raise TermError(f"{unknown[0]} has not been graded in this course (graded: {graded})")
    if not names:
        raise TermError("nothing has been graded in this course yet")
    wanted = set(students)
    out = CourseGrades()
    for name in names:
        # nbgrader's maximum: the points graded by hand (answers, tasks) are in it
        out.assignments[name] = assignment_points(present[name])[0]
    found = load_submissions(gradebook, names)
    for student in sorted(gradebook.students, key=lambda s: s.id):
        if wanted and student.id not in wanted:
            continue
        out.students[student.id] = (student.last_name or "", student.first_name or "")
        for name in names:
            submission = found.get((name, student.id))
            if submission is None:
                continue
            raw = float(submission.score)
            penalty = float(submission.late_submission_penalty or 0.0)
            out.grades[(name, student.id)] = Grade(max(0.0, raw - penalty), raw, penalty)
    return out


def points(value: float) -> str:
    """A grade as the LMSs read it: a plain number, at most two decimals."""
    text = f"{round(value, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def listed(names: Iterable[str]) -> str:
    """Names for a report line: the first :data:`REPORT_NAMES` and how many more."""
    return listing(names, REPORT_NAMES)


def write_csv(dest: str | Path, rows: Iterable[Sequence[str]]) -> None:
    """Write ``rows`` as a UTF-8, comma-separated CSV file, whole or not at all
    (:func:`autograder.files.write_atomic`, as every output of the grader). A failure of the
    machine (a full disk) is a :class:`~autograder.models.GraderFault` that names the file
    (one line on the command line); the old file stays as it was."""
    dest = Path(dest)
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    with faults_as_errors(f"writing {shown_path(dest)}"):
        dest.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(dest, buffer.getvalue())
