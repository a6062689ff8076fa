"""Canvas: its "Download Submissions" zip, and grades back into its gradebook.

**Submissions**: one file per student and file,
``<lastfirst>_[LATE_]<user id>_<submission id>_<original file name>``, e.g.
``doejane_LATE_12345_678901_problem1-1.ipynb``; the student id is Canvas's numeric *user
id* (the first number), the name before it the student's (kept: grades.csv, the feedback
folder); ``LATE`` is Canvas's late mark; Canvas's "-1", "-2" suffix on re-uploaded files
marks a later upload (:mod:`autograder.intake.prepare` grades the latest), and of two
files with the same name the one with the higher Canvas file id (the second number) is
kept. Canvas gives no file of submission times.

**Grades back**: a gradebook import CSV as Canvas's own importer reads it
(``GradebookImporter`` in canvas-lms, ``app/models/gradebook_importer.rb``).
The importer's rules this file keeps:

- the header row's first cell contains ``Student`` and its second ``ID`` (Canvas's user
  id), then optionally ``SIS User ID`` and ``SIS Login ID`` (together, in this order, or
  ``SIS Login ID`` alone), and the last student column is ``Section``; every later column
  is an assignment, named ``Title (assignment id)`` or by its title alone (a title Canvas
  does not know makes a new assignment);
- an optional row whose first cell contains ``Points Possible`` gives each assignment's
  points;
- each student row is matched by its ``ID``, then by SIS ids, then by name; a blank grade
  (or ``-``) is no grade: Canvas leaves that grade as it is.

With Canvas's own gradebook export (``--gradebook``), the import matches it row for row:
its student columns and rows in its order, its column of each assignment (by title, or as
course.toml's ``canvas = "Title (id)"`` names it), its points (a grade is scaled when
Canvas's points differ from the course's). A student the export lacks, and one in it who
handed nothing in, are reported, never dropped in silence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from traitlets import Unicode

from autograder.lms.base import ExportOption, LmsPlugin, register
from autograder.lms.csvfiles import read_csv_file, read_number
from autograder.lms.grades import (
    CourseGrades,
    ExportReport,
    listed,
    points,
    read_course_grades,
    write_csv,
)
from autograder.models import TermError

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

CANVAS_REGEXP = (
    r"^(?:.*/)?(?P<name>[^/_]+)_(?:(?P<late>LATE)_)?(?P<student_id>\d+)_(?P<submission_id>\d+)_"
    r"(?P<file_id>[^/]+)$"
)
#: the student columns of an import made without Canvas's export (its SIS ids are unknown:
#: Canvas matches each row by its ID, Canvas's user id)
STUDENT_COLUMNS = ["Student", "ID", "Section"]
POINTS_POSSIBLE = "    Points Possible"  # as Canvas's exporter writes it
_TITLE_AND_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z", re.DOTALL)  # Assignment.title_and_id
_TOTALS = (
    "Current Score",
    "Current Points",
    "Current Grade",
    "Final Score",
    "Final Points",
    "Final Grade",
    "Override Score",
    "Override Grade",
    "Override Status",
)


@register
class CanvasPlugin(LmsPlugin):
    """Canvas (see the module docstring)."""

    name = "canvas"
    title = "Canvas"
    description = "Canvas's submissions zip"
    order = 30
    column_key = "the column's name in Canvas's gradebook"
    export_help = (
        "Canvas's gradebook import CSV (Grades > Import); with --gradebook (Canvas's own "
        "export) it matches that file row for row"
    )
    options = (
        ExportOption("--gradebook", "gradebook_export", "canvas: Canvas's own gradebook export"),
    )

    named_regexp = Unicode(CANVAS_REGEXP)
    gradebook_export = Unicode("", help="Canvas's own gradebook export (Grades > Export)")

    def export(self, gradebook: Gradebook) -> ExportReport:
        """Canvas's gradebook import CSV of ``assignment`` for ``student`` (matching
        Canvas's own export row for row when ``gradebook_export`` names it); ``columns``:
        assignment -> its Canvas column (course.toml's ``canvas``)."""
        grades = read_course_grades(gradebook, self.assignment, self.student)
        dest = self.to or self.default_to()
        if self.gradebook_export:
            return _matching(grades, dest, Path(self.gradebook_export), dict(self.columns))
        return _alone(grades, dest, dict(self.columns))


def title_and_id(header: str) -> tuple[str, str | None]:
    """Canvas's ``Assignment.title_and_id``: ``"Hyperplanes (123)"`` -> ("Hyperplanes",
    "123"); a header without an id is its title."""
    match = _TITLE_AND_ID.match(header)
    return (match.group(1), match.group(2)) if match else (header, None)


@dataclass
class CanvasGradebook:
    """Canvas's gradebook export: its rows, how many student columns, its assignment
    columns (header -> index) and its Points Possible row (if any)."""

    header: list[str]
    student_columns: int
    assignments: dict[str, int] = field(default_factory=dict)
    points_row: list[str] | None = None
    other_rows: list[list[str]] = field(default_factory=list)  # muted rows, as they were
    students: list[list[str]] = field(default_factory=list)


def read_canvas_gradebook(path: str | Path) -> CanvasGradebook:
    """Canvas's gradebook export (Grades → Export), read by the importer's rules.

    Raises
    ------
    TermError
        Not a Canvas gradebook (its header is not what Canvas's importer accepts).
    """
    path = Path(path)
    rows = read_csv_file(path)
    header = rows[0]
    if not (len(header) > 3 and "Student" in header[0] and "ID" in header[1]):
        raise TermError(
            f"{path.name}: not a Canvas gradebook export (its header must begin Student, ID)"
        )
    count = 3
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        count += 1
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        count += 2
        if len(header) > 4 and re.search(r"Integration\s+ID", header[4]):
            count += 1
        if len(header) > count - 1 and re.search(r"Root\s+Account", header[count - 1]):
            count += 1
    if len(header) < count or "Section" not in header[count - 1]:
        raise TermError(f"{path.name}: not a Canvas gradebook export (no Section column)")
    book = CanvasGradebook(header=header, student_columns=count)
    for index, name in enumerate(header[count:], start=count):
        if not any(total in name for total in _TOTALS):
            book.assignments[name] = index
    for row in rows[1:]:
        row = row + [""] * (len(header) - len(row))
        if "Points Possible" in row[0]:
            book.points_row = row
        elif all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row):
            book.other_rows.append(row)
        else:
            book.students.append(row)
    return book


def _column_for(assignment: str, wanted: str, book: CanvasGradebook) -> str | None:
    """The Canvas column of ``assignment``: course.toml's ``canvas`` name, else a column
    whose title is the assignment's name."""
    if wanted:
        if wanted in book.assignments:
            return wanted
        _, wanted_id = title_and_id(wanted)
        if wanted_id is not None:
            for name in book.assignments:
                if title_and_id(name)[1] == wanted_id:
                    return name
        return None
    for name in book.assignments:
        if title_and_id(name)[0] == assignment:
            return name
    return None


def _alone(grades: CourseGrades, dest: str, columns: dict[str, str]) -> ExportReport:
    """The import without Canvas's export: a row per student, by Canvas's user id."""
    report = ExportReport(dest=dest)
    names = list(grades.assignments)
    header = [*STUDENT_COLUMNS, *(columns.get(a) or a for a in names)]
    blank = [""] * (len(STUDENT_COLUMNS) - 1)
    table = [[POINTS_POSSIBLE, *blank, *(points(grades.assignments[a]) for a in names)]]
    not_numeric = [s for s in grades.students if not s.isdigit()]
    for student, (last, first) in grades.students.items():
        name = ", ".join(p for p in (last, first) if p) or student
        cells = [
            points(g.score) if (g := grades.grade(a, student)) is not None else "" for a in names
        ]
        table.append([name, student, "", *cells])
    report.rows = len(grades.students)
    report.columns = header[len(STUDENT_COLUMNS) :]
    if not_numeric:
        report.notes.append(
            "student ids that are not Canvas user ids (give --gradebook, Canvas's own "
            f"export, to match them by name): {listed(not_numeric)}"
        )
    _no_submission(report, grades, names, list(grades.students))
    write_csv(dest, [header, *table])
    return report


def _matching(
    grades: CourseGrades, dest: str, gradebook: Path, columns: dict[str, str]
) -> ExportReport:
    """The import matching Canvas's own gradebook export row for row."""
    report = ExportReport(dest=dest)
    names = list(grades.assignments)
    book = read_canvas_gradebook(gradebook)
    chosen: dict[str, str] = {}
    header = book.header[: book.student_columns]
    for assignment in names:
        column = _column_for(assignment, columns.get(assignment, ""), book)
        if column is None:
            column = columns.get(assignment) or assignment
            report.notes.append(
                f"{assignment}: no such column in {gradebook.name}: written as "
                f"{column!r} (Canvas makes a new assignment of it)"
            )
        chosen[assignment] = column
        header.append(column)
    scale: dict[str, float] = {}
    points_row = [POINTS_POSSIBLE] + [""] * (book.student_columns - 1)
    for assignment, column in chosen.items():
        ours = grades.assignments[assignment]
        theirs = None
        if book.points_row is not None and column in book.assignments:
            theirs = read_number(book.points_row[book.assignments[column]])
        if theirs is not None and ours and abs(theirs - ours) > 1e-9:
            scale[assignment] = theirs / ours
            report.notes.append(
                f"{assignment}: worth {points(ours)} points here, {points(theirs)} in Canvas: "
                "grades scaled to Canvas's points"
            )
        points_row.append(points(theirs if theirs is not None else ours))
    table = [points_row]
    seen: list[str] = []
    for row in book.students:
        student = row[1].strip()
        seen.append(student)
        cells = []
        for assignment in names:
            grade = grades.grade(assignment, student)
            cells.append("" if grade is None else points(grade.score * scale.get(assignment, 1.0)))
        table.append(row[: book.student_columns] + cells)
    report.rows = len(book.students)
    report.columns = [chosen[a] for a in names]
    missing = [
        s for s in grades.students if s not in seen and any(grades.grade(a, s) for a in names)
    ]
    if missing:
        report.notes.append(
            f"graded but not in {gradebook.name} (not written; is the id Canvas's user "
            f"id?): {listed(missing)}"
        )
    _no_submission(report, grades, names, seen)
    write_csv(dest, [header, *table])
    return report


def _no_submission(
    report: ExportReport, grades: CourseGrades, names: list[str], students: list[str]
) -> None:
    for assignment in names:
        nothing = [s for s in students if grades.grade(assignment, s) is None]
        if nothing:
            report.notes.append(
                f"{assignment}: no submission ({len(nothing)}; blank: Canvas keeps their "
                f"grade as it is): {listed(nothing)}"
            )
