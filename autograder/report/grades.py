"""grades.csv: nbgrader's CSV export (its columns and values, read from the gradebook) with
what awaits manual grading (``manual_pending`` answers worth ``manual_pending_points``) and a
``flags`` column, for the students and assignments of one grading run. Its times
(``duedate``, ``timestamp``) are on the course's clock in ISO 8601 with their offset
(:func:`autograder.text.iso_time`), where nbgrader's own export writes the gradebook's UTC
without saying so."""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from nbgrader.plugins.export import CsvExportPlugin
from traitlets import Dict, Instance

from autograder.course import Course, load_submissions, pending_of
from autograder.files import write_atomic
from autograder.models import SubmissionResult
from autograder.text import iso_time

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

#: The columns after nbgrader's export's own (``CsvExportPlugin``'s, in its order): the
#: answers that await manual grading (nbgrader's "needs manual grade") and their points, and
#: the flags.
EXTRA_COLUMNS = ["manual_pending", "manual_pending_points", "flags"]

#: nbgrader's export's columns of times: the gradebook's, naive UTC (nbgrader's convention).
TIME_COLUMNS = ("duedate", "timestamp")

#: The longest cell grades.csv holds (spreadsheets cut cells at 32,767 characters); a longer
#: list of flags is cut with a count, and results.json keeps every flag.
MAX_CELL = 2000

# OWASP's CSV-injection rule: a cell a spreadsheet would read as a formula
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """*value* as a grades.csv cell a spreadsheet shows as text: a cell that starts like a
    formula (``= + - @``, a tab or a carriage return) gets a leading ``'``, unless it is a
    number; nothing is longer than :data:`MAX_CELL`."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START):
        try:
            float(text)
        except ValueError:
            text = "'" + text
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def flags_cell(flags: list[str]) -> str:
    """The ``flags`` cell: the flags joined by "; ", or, when that is longer than
    :data:`MAX_CELL`, a count and as many flags as fit, and how many more there are."""
    joined = "; ".join(flags)
    if len(joined) <= MAX_CELL:
        return joined
    head = f"{len(flags)} flags (all in results.json): "
    room = MAX_CELL - len(head) - len(f"; +{len(flags)} more")
    shown: list[str] = []
    while len(shown) < len(flags) and len("; ".join([*shown, flags[len(shown)]])) <= room:
        shown.append(flags[len(shown)])
    return head + "; ".join([*shown, f"+{len(flags) - len(shown)} more"])


def marked_time(cell: str, clock: tzinfo) -> str:
    """A time of nbgrader's export (``2025-10-03 21:59:00``: the gradebook's UTC, unmarked)
    on the course's ``clock``, marked: ``2025-10-03T23:59:00+02:00``; an empty cell stays
    empty."""
    if not cell:
        return cell
    return iso_time(datetime.fromisoformat(cell).replace(tzinfo=UTC), clock)


class _CsvText(str):
    """A text of the gradebook (an assignment's name, a student's id, name or e-mail) that
    nbgrader's export puts into its line with ``str.format``: formatted as a CSV field,
    quoted when it holds a comma, a quote or a line break (nbgrader writes it bare), so the
    line reads back as the same fields."""

    def __format__(self, spec: str) -> str:
        buffer = io.StringIO(newline="")
        csv.writer(buffer).writerow([str(self)])
        return buffer.getvalue().removesuffix("\r\n")


def _text(value: str | None) -> _CsvText | None:
    return None if value is None else _CsvText(value)


class _ExportView:
    """The gradebook as nbgrader's export reads it for grades.csv: the assignments by name
    and the students by id (nbgrader's own order is by due date and by last name), their
    texts as :class:`_CsvText`; each submission the export looks up, one per line it
    writes, is recorded in ``lines`` as (assignment, student, found). Only the
    ``assignments`` and ``students`` asked for are in it (none asked: all of them), so that
    the export need not pick them out (nbgrader's looks each student up in a list: 10,000
    students' grades.csv, 10^8 comparisons); their submissions are read from the gradebook
    at once (``load_submissions``) and kept in ``found``."""

    def __init__(
        self, gradebook: Gradebook, assignments: Iterable[str], students: Iterable[str]
    ) -> None:
        self.lines: list[tuple[str, str, bool]] = []
        wanted_assignments, wanted_students = set(assignments), set(students)
        self.assignments = [
            SimpleNamespace(name=_CsvText(a.name), duedate=a.duedate, max_score=a.max_score)
            for a in sorted(gradebook.assignments, key=lambda a: a.name)
            if not wanted_assignments or a.name in wanted_assignments
        ]
        self.found = load_submissions(gradebook, [a.name for a in self.assignments])
        self.students = [
            SimpleNamespace(
                id=_CsvText(s.id),
                last_name=_text(s.last_name),
                first_name=_text(s.first_name),
                email=_text(s.email),
            )
            for s in sorted(gradebook.students, key=lambda s: s.id)
            if not wanted_students or s.id in wanted_students
        ]

    def find_submission(self, assignment: str, student: str):
        from nbgrader.api import MissingEntry

        key = (str(assignment), str(student))
        submission = self.found.get(key)
        self.lines.append((*key, submission is not None))
        if submission is None:
            raise MissingEntry(f"No such submission: {key[0]} for {key[1]}")
        return submission


class FlaggedCsvExportPlugin(CsvExportPlugin):
    """nbgrader's CSV export with the manual-grading columns and a ``flags`` column,
    properly quoted, for the students and assignments of one run (``student``/``assignment``
    traits, as in nbgrader's plugin). The scores are the gradebook's: manual points given in
    nbgrader's formgrader are in them.

    nbgrader's own ``export`` writes the rows (its columns, its scores: a missing
    submission 0, the score after the late penalty) into a scratch file, reading the
    gradebook through :class:`_ExportView`; each row is read back and written to ``to``
    with :data:`EXTRA_COLUMNS`, every cell guarded (:func:`csv_cell`), the whole file at
    once (:func:`~autograder.files.write_atomic`).

    ``flags`` maps "assignment/student" to a list of readable strings; a student with no
    submission of an assignment is flagged "no submission" unless ``flags`` says otherwise
    (e.g. handed in after the close), distinct from a submission that scored 0.
    """

    flags = Dict({}, help="'assignment/student' -> list of flags").tag(config=True)
    clock = Instance(
        "datetime.tzinfo", allow_none=True, help="the course's clock, the times' zone (None: UTC)"
    )
    # nbgrader's ExportPlugin's traits (untyped there), which export() sets for its run
    to: str
    student: list[str]
    assignment: list[str]

    def export(self, gradebook: Gradebook) -> None:
        asked = (self.to, self.student, self.assignment)
        dest = self.to or "grades.csv"
        view = _ExportView(gradebook, map(str, self.assignment), map(str, self.student))
        with tempfile.TemporaryDirectory(prefix="grades-") as scratch:
            # the view holds only what was asked for: nbgrader's export writes all of it
            self.to, self.student, self.assignment = str(Path(scratch) / "nbgrader.csv"), [], []
            try:
                super().export(view)
                with open(self.to, newline="") as fh:
                    header, *rows = csv.reader(fh)
            finally:
                self.to, self.student, self.assignment = asked
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)
        writer.writerow([*header, *EXTRA_COLUMNS])
        clock = self.clock or UTC
        times = [header.index(name) for name in TIME_COLUMNS]
        for cells, (assignment, student, found) in zip(rows, view.lines, strict=True):
            for index in times:
                cells[index] = marked_time(cells[index], clock)
            pending = pending_of(view.found.get((assignment, student)))
            flags = self.flags.get(f"{assignment}/{student}", [] if found else ["no submission"])
            extra = [pending.answers, pending.points, flags_cell([str(f) for f in flags])]
            writer.writerow([csv_cell(cell) for cell in [*cells, *extra]])
        # the old file or the new one, never a torn one (a full disk, a killed grader)
        write_atomic(dest, buffer.getvalue())


def export_grades(
    course: Course,
    results: Iterable[SubmissionResult],
    dest: Path,
    *,
    students: Iterable[str] = (),
    assignments: Iterable[str] = (),
    flags: Mapping[str, list[str]] | None = None,
    clock: tzinfo = UTC,
) -> Path:
    """Write ``dest`` (grades.csv) for the students and assignments of ``results`` and
    the ``students`` and ``assignments`` given (the class: a row each, "no submission"
    where there is none); ``flags``: "assignment/student" -> flags of rows without a
    result; ``clock``: the course's time zone, which its times are shown in."""
    results = list(results)
    row_flags = {key: list(value) for key, value in (flags or {}).items()}
    row_flags.update({f"{r.assignment}/{r.student}": list(r.flags) for r in results})
    plugin = FlaggedCsvExportPlugin(
        to=str(dest),
        student=sorted({r.student for r in results} | set(students)),
        assignment=sorted({r.assignment for r in results} | set(assignments)),
        flags=row_flags,
        clock=clock,
    )
    with course.gradebook() as gb:
        plugin.export(gb)
    return dest
