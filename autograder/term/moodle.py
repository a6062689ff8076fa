"""Grades back into Moodle, two ways.

**The assignment's offline grading worksheet** (when the submissions came from Moodle):
the worksheet Moodle gave (``Download grading worksheet``), every row and column kept,
its ``Grade`` filled in, as Moodle's importer reads it (``mod/assign/feedback/offline``:
``importgradeslib.php`` and ``locallib.php``). The importer's rules this file keeps:

- columns are found by their (English) names: ``Identifier``, ``Grade`` and ``Last
  modified (grade)`` must all be there; every row has as many cells as the header;
- ``Identifier`` is "Participant N": N is the participant id of Moodle's download, which
  is the student id the grader read from it;
- a blank grade (or a negative one) is skipped: nothing changes in Moodle, and a grade
  above the assignment's maximum is skipped too (so a grade is scaled to the worksheet's
  ``Maximum Grade`` when it differs from the course's points);
- ``Last modified (grade)`` is left as Moodle wrote it: Moodle skips a row whose grade was
  changed in Moodle after the worksheet was downloaded (unless told to ignore that).

**A gradebook CSV** (Grades → Import → CSV file) otherwise: one row per student, keyed by
a column the instructor names (``--key-column``: e.g. ``Username`` or ``ID number``,
mapped in Moodle's import form to the same user field; its values are the student ids),
one column of points per assignment (``-``: no grade, as Moodle's gradebook import reads
it) and one of feedback ("no submission", the late penalty).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from autograder.course import Course
from autograder.models import TermError
from autograder.term.lms import ExportReport, listed, points, read_course_grades, write_csv
from autograder.term.record import NO_SUBMISSION
from autograder.term.times import (
    MOODLE_GRADE,
    MOODLE_IDENTIFIER,
    MOODLE_MAX_GRADE,
    MOODLE_MODIFIED_GRADE,
    moodle_participant,
    read_csv_file,
    read_number,
)

#: What Moodle's gradebook import reads as "no grade"
NO_GRADE = "-"


def export_moodle_worksheet(
    course: Course, assignment: str, worksheet: str | Path, dest: str | Path
) -> ExportReport:
    """Fill in the ``Grade`` column of Moodle's grading worksheet of ``assignment``.

    Raises
    ------
    TermError
        The worksheet is not one Moodle's importer would read back.
    """
    worksheet = Path(worksheet)
    rows = read_csv_file(worksheet)
    header = rows[0]
    needed = (MOODLE_IDENTIFIER, MOODLE_GRADE, MOODLE_MODIFIED_GRADE)
    absent = [name for name in needed if name not in header]
    if absent:
        raise TermError(
            f"{worksheet.name}: not a Moodle grading worksheet (in English): no "
            f"{absent[0]!r} column"
        )
    ident, grade_at = header.index(MOODLE_IDENTIFIER), header.index(MOODLE_GRADE)
    maximum_at = header.index(MOODLE_MAX_GRADE) if MOODLE_MAX_GRADE in header else None
    grades = read_course_grades(course, [assignment])
    ours = grades.assignments[assignment]
    report = ExportReport(dest=str(dest), columns=[MOODLE_GRADE])
    seen, nothing, scaled_to = [], [], None
    out = [header]
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TermError(
                f"{worksheet.name}: line {number}: {len(row)} cells, the header has {len(header)}"
            )
        row = list(row)
        student = moodle_participant(row[ident].strip())
        if student is None:
            raise TermError(
                f"{worksheet.name}: line {number}: {row[ident]!r} is not 'Participant N'"
            )
        seen.append(student)
        grade = grades.grade(assignment, student)
        if grade is None:
            nothing.append(student)
        else:
            theirs = read_number(row[maximum_at]) if maximum_at is not None else None
            value = grade.score
            if theirs is not None and ours and abs(theirs - ours) > 1e-9:
                value, scaled_to = grade.score * theirs / ours, theirs
            row[grade_at] = f"{value:.2f}"
        out.append(row)
    report.rows = len(rows) - 1
    if scaled_to is not None:
        report.notes.append(
            f"{assignment}: worth {points(ours)} points here, {points(scaled_to)} in Moodle: "
            "grades scaled to Moodle's maximum grade"
        )
    if nothing:
        report.notes.append(
            f"{assignment}: {NO_SUBMISSION} ({len(nothing)}; Grade left blank: Moodle skips "
            f"the row): {listed('Participant ' + s for s in nothing)}"
        )
    missing = [
        s for s in grades.students if s not in seen and grades.grade(assignment, s) is not None
    ]
    if missing:
        report.notes.append(
            f"graded but not in {worksheet.name} (not written; another assignment's "
            f"worksheet?): {listed(missing)}"
        )
    write_csv(dest, out)
    return report


def export_moodle_gradebook(
    course: Course,
    dest: str | Path,
    *,
    key_column: str = "Username",
    assignments: Iterable[str] | None = None,
) -> ExportReport:
    """Write a gradebook CSV for Moodle's gradebook import, keyed by ``key_column``."""
    if not key_column.strip():
        raise TermError("--key-column: the name of the column of student ids is empty")
    grades = read_course_grades(course, assignments)
    names = list(grades.assignments)
    header = [key_column, *names, *(f"{a} (feedback)" for a in names)]
    table = [header]
    for student in grades.students:
        cells, notes = [], []
        for assignment in names:
            grade = grades.grade(assignment, student)
            if grade is None:
                cells.append(NO_GRADE)
                notes.append(NO_SUBMISSION)
                continue
            cells.append(points(grade.score))
            notes.append(
                f"late submission penalty: {points(grade.penalty)} points" if grade.penalty else ""
            )
        table.append([student, *cells, *notes])
    report = ExportReport(dest=str(dest), rows=len(grades.students), columns=header)
    for assignment in names:
        nothing = [s for s in grades.students if grades.grade(assignment, s) is None]
        if nothing:
            report.notes.append(
                f"{assignment}: {NO_SUBMISSION} ({len(nothing)}; '{NO_GRADE}': no grade in "
                f"Moodle): {listed(nothing)}"
            )
    report.notes.append(
        f"in Moodle's import, map {key_column!r} to the user field that holds these ids, "
        "each assignment to its grade item and its feedback column to its feedback"
    )
    write_csv(dest, table)
    return report
