"""Moodle: its "Download all submissions" zip, its grading worksheet (times and the class
list), and grades back into it.

**Submissions**: a folder per student
``<Full Name>_<participant id>_assignsubmission_file_/<original file name>`` (or, in older
Moodle versions, the same prefix on flat file names); the student id is Moodle's numeric
*participant id* for that assignment (export Moodle's participant list to map it to
names), the name before it the student's (kept: grades.csv, the feedback folder).
Online-text parts (``assignsubmission_onlinetext``) are passed over.

**Times** (``--times``): the assignment's grading worksheet ("Download grading worksheet",
in English): ``Identifier`` ("Participant 4711", the participant id of Moodle's download)
and ``Last modified (submission)`` ("Friday, 3 October 2025, 11:59 PM", Moodle's
``userdate``, on the clock of the Moodle user who downloaded it: read in course.toml's
``timezone``). Every row is a participant, so the worksheet is also the class list; a
``-`` time is a participant who handed nothing in.

**Grades back**, two ways:

*The assignment's offline grading worksheet* (``--worksheet``, when the submissions came
from Moodle): the worksheet Moodle gave, every row and column kept, its ``Grade`` filled
in, as Moodle's importer reads it (``mod/assign/feedback/offline``: ``importgradeslib.php``
and ``locallib.php``). The importer's rules this file keeps:

- columns are found by their (English) names: ``Identifier``, ``Grade`` and ``Last
  modified (grade)`` must all be there; every row has as many cells as the header;
- ``Identifier`` is "Participant N": N is the participant id of Moodle's download, which
  is the student id the grader read from it;
- a blank grade (or a negative one) is skipped: nothing changes in Moodle, and a grade
  above the assignment's maximum is skipped too (so a grade is scaled to the worksheet's
  ``Maximum Grade`` when it differs from the course's points);
- ``Last modified (grade)`` is left as Moodle wrote it: Moodle skips a row whose grade was
  changed in Moodle after the worksheet was downloaded (unless told to ignore that).

*A gradebook CSV* (Grades → Import → CSV file) otherwise: one row per student, keyed by
a column the instructor names (``--key-column``: e.g. ``Username`` or ``ID number``,
mapped in Moodle's import form to the same user field; its values are the student ids),
one column of points per assignment (``-``: no grade, as Moodle's gradebook import reads
it) and one of feedback ("no submission", the late penalty).
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from traitlets import Unicode

from autograder.lms.base import ExportOption, LmsPlugin, register
from autograder.lms.csvfiles import read_csv_file, read_number
from autograder.lms.grades import (
    NO_SUBMISSION,
    CourseGrades,
    ExportReport,
    listed,
    points,
    read_course_grades,
    write_csv,
)
from autograder.lms.times import SubmissionTimes, parse_time
from autograder.models import TermError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from nbgrader.api import Gradebook

MOODLE_REGEXP = (
    r"^(?:.*/)?(?P<name>[^/]+?)_(?P<student_id>\d+)_assignsubmission_(?P<kind>file|onlinetext)_"
    r"/?(?P<file_id>.+)$"
)
#: Moodle's English column names (mod/assign/lang/en/assign.php) and its participant prefix
MOODLE_IDENTIFIER = "Identifier"
MOODLE_SUBMITTED = "Last modified (submission)"
MOODLE_GRADE = "Grade"
MOODLE_MAX_GRADE = "Maximum Grade"
MOODLE_MODIFIED_GRADE = "Last modified (grade)"
MOODLE_FULL_NAME = "Full name"
MOODLE_PARTICIPANT = "Participant "
#: Moodle's userdate formats (langconfig strftimedaydatetime: en, en_us)
_MOODLE_DATES = ("%A, %d %B %Y, %I:%M %p", "%A, %B %d, %Y, %I:%M %p")
#: What Moodle's gradebook import reads as "no grade"
NO_GRADE = "-"


@register
class MoodlePlugin(LmsPlugin):
    """Moodle (see the module docstring)."""

    name = "moodle"
    title = "Moodle"
    description = "Moodle's submissions zip"
    order = 20
    times_file = f"a Moodle grading worksheet (columns {MOODLE_IDENTIFIER!r}, {MOODLE_SUBMITTED!r})"
    export_help = (
        "with --worksheet (the assignment's grading worksheet), the worksheet with its Grade "
        "column filled in (Upload grading worksheet); without, a gradebook CSV keyed by "
        "--key-column (Grades > Import > CSV file)"
    )
    options = (
        ExportOption(
            "--worksheet",
            "worksheet",
            "moodle: the assignment's grading worksheet (one --assignment)",
            one_assignment=True,
        ),
        ExportOption(
            "--key-column",
            "key_column",
            "moodle, no worksheet: the name of the column of student ids (default Username)",
            metavar="NAME",
            path=False,
        ),
    )

    named_regexp = Unicode(MOODLE_REGEXP)
    worksheet = Unicode("", help="the assignment's grading worksheet (Download grading worksheet)")
    key_column = Unicode("Username", help="no worksheet: the column of student ids")

    def ignored(self, groups: Mapping[str, str | None]) -> bool:
        return groups.get("kind") == "onlinetext"

    def read_times(
        self, rows: list[list[str]], source: str, zone: tzinfo | None
    ) -> SubmissionTimes | None:
        header = [h.strip() for h in rows[0]]
        if MOODLE_IDENTIFIER not in header or MOODLE_SUBMITTED not in header:
            return None
        return _read_worksheet_times(rows, source, zone)

    def default_to(self) -> str:
        if self.worksheet and self.assignment:
            return f"moodle-worksheet-{self.assignment[0]}.csv"
        return "moodle-grades.csv"

    def export(self, gradebook: Gradebook) -> ExportReport:
        """The worksheet of the one ``assignment`` filled in (``worksheet``), or else a
        gradebook CSV of ``assignment`` for ``student`` keyed by ``key_column``."""
        dest = self.to or self.default_to()
        if self.worksheet:
            if len(self.assignment) != 1:
                raise TermError("a Moodle worksheet is one assignment's: give one --assignment")
            worksheet = Path(self.worksheet)
            rows = _worksheet_rows(worksheet)
            grades = read_course_grades(gradebook, self.assignment, self.student)
            return _fill_worksheet(rows, worksheet.name, grades, self.assignment[0], dest)
        if not self.key_column.strip():
            raise TermError("--key-column: the name of the column of student ids is empty")
        grades = read_course_grades(gradebook, self.assignment, self.student)
        return _gradebook_csv(grades, dest, self.key_column)


def moodle_participant(identifier: str) -> str | None:
    """``"Participant 4711"`` -> ``"4711"`` (the participant id of Moodle's download), as
    Moodle's importer strips its ``hiddenuser`` prefix; None when it is not one."""
    if not identifier.startswith(MOODLE_PARTICIPANT):
        return None
    rest = identifier[len(MOODLE_PARTICIPANT) :].strip()
    return rest if rest.isdigit() else None


def _moodle_time(text: str, zone: tzinfo) -> datetime | None:
    text = " ".join(text.split())
    if text in ("", "-"):
        return None
    for pattern in _MOODLE_DATES:
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=zone)
        except ValueError:
            continue
    return parse_time(text, zone)


def _read_worksheet_times(
    rows: list[list[str]], source: str, zone: tzinfo | None
) -> SubmissionTimes:
    header = [h.strip() for h in rows[0]]
    if zone is None:
        raise TermError(
            f"{source}: a Moodle worksheet's times carry no time zone: set timezone in "
            "course.toml (the zone of the Moodle account that downloaded it)"
        )
    times = SubmissionTimes(source=source, kind="moodle")
    ident, submitted = header.index(MOODLE_IDENTIFIER), header.index(MOODLE_SUBMITTED)
    name = header.index(MOODLE_FULL_NAME) if MOODLE_FULL_NAME in header else None
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TermError(
                f"{source}: line {number}: {len(row)} columns, the header has {len(header)}"
            )
        student = moodle_participant(row[ident].strip())
        if student is None:
            raise TermError(f"{source}: line {number}: {row[ident]!r} is not 'Participant N'")
        if student in times.roster:
            raise TermError(f"{source}: line {number}: participant {student} twice")
        times.roster.append(student)
        if name is not None:
            times.names[student] = row[name].strip()
        try:
            moment = _moodle_time(row[submitted], zone)
        except ValueError:
            raise TermError(
                f"{source}: line {number}: cannot read the time {row[submitted]!r} (an English "
                "worksheet is read: 'Friday, 3 October 2025, 11:59 PM')"
            ) from None
        if moment is not None:
            times.times[(None, student)] = moment
    return times


def _worksheet_rows(worksheet: Path) -> list[list[str]]:
    """The rows of Moodle's grading worksheet.

    Raises
    ------
    TermError
        The worksheet is not one Moodle's importer would read back.
    """
    rows = read_csv_file(worksheet)
    absent = [
        n for n in (MOODLE_IDENTIFIER, MOODLE_GRADE, MOODLE_MODIFIED_GRADE) if n not in rows[0]
    ]
    if absent:
        raise TermError(
            f"{worksheet.name}: not a Moodle grading worksheet (in English): no "
            f"{absent[0]!r} column"
        )
    return rows


def _fill_worksheet(
    rows: list[list[str]], source: str, grades: CourseGrades, assignment: str, dest: str
) -> ExportReport:
    """The worksheet's ``rows`` (``source``: its name) with the ``Grade`` column of
    ``assignment`` filled in.

    Raises
    ------
    TermError
        A row is not one Moodle's importer would read back.
    """
    header = rows[0]
    ident, grade_at = header.index(MOODLE_IDENTIFIER), header.index(MOODLE_GRADE)
    maximum_at = header.index(MOODLE_MAX_GRADE) if MOODLE_MAX_GRADE in header else None
    ours = grades.assignments[assignment]
    report = ExportReport(dest=dest, columns=[MOODLE_GRADE])
    seen, nothing, scaled_to = [], [], None
    out = [header]
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TermError(
                f"{source}: line {number}: {len(row)} cells, the header has {len(header)}"
            )
        row = list(row)
        student = moodle_participant(row[ident].strip())
        if student is None:
            raise TermError(f"{source}: line {number}: {row[ident]!r} is not 'Participant N'")
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
            f"graded but not in {source} (not written; another assignment's "
            f"worksheet?): {listed(missing)}"
        )
    write_csv(dest, out)
    return report


def _gradebook_csv(grades: CourseGrades, dest: str, key_column: str) -> ExportReport:
    """A gradebook CSV for Moodle's gradebook import, keyed by ``key_column``."""
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
    report = ExportReport(dest=dest, rows=len(grades.students), columns=header)
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
