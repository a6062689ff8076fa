"""grades.csv: nbgrader's CSV export (its columns and values, read from the gradebook) with
what awaits manual grading (``manual_pending`` answers worth ``manual_pending_points``) and a
``flags`` column, for the students and assignments of one grading run."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path

from nbgrader.plugins.export import CsvExportPlugin
from traitlets import Dict

from autograder.course import Course
from autograder.files import write_atomic
from autograder.models import SubmissionResult
from autograder.report.manual import pending_in_gradebook

#: nbgrader's CsvExportPlugin columns, in its order, and ours after them: the answers that
#: await manual grading (nbgrader's "needs manual grade") and their points, and the flags.
EXPORT_COLUMNS = [
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
]
COLUMNS = [*EXPORT_COLUMNS, "manual_pending", "manual_pending_points", "flags"]

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


class FlaggedCsvExportPlugin(CsvExportPlugin):
    """nbgrader's CSV export with the manual-grading columns and a ``flags`` column,
    properly quoted, for the students and assignments of one run (``student``/``assignment``
    traits, as in nbgrader's plugin). The scores are the gradebook's: manual points given in
    nbgrader's formgrader are in them.

    ``flags`` maps "assignment/student" to a list of readable strings; a student with no
    submission of an assignment is flagged "no submission" unless ``flags`` says otherwise
    (e.g. handed in after the close), distinct from a submission that scored 0.
    """

    flags = Dict({}, help="'assignment/student' -> list of flags").tag(config=True)

    def export(self, gradebook) -> None:
        dest = self.to or "grades.csv"
        buffer = io.StringIO(newline="")
        self._write_rows(gradebook, csv.writer(buffer))
        # the old file or the new one, never a torn one (a full disk, a killed grader)
        write_atomic(dest, buffer.getvalue())

    def _write_rows(self, gradebook, writer) -> None:
        from nbgrader.api import MissingEntry

        students = [str(s) for s in self.student]
        assignments = [str(a) for a in self.assignment]
        writer.writerow(COLUMNS)
        for assignment in sorted(gradebook.assignments, key=lambda a: a.name):
            if assignments and assignment.name not in assignments:
                continue
            for student in sorted(gradebook.students, key=lambda s: s.id):
                if students and student.id not in students:
                    continue
                # the same values nbgrader's CsvExportPlugin computes
                row = {
                    "assignment": assignment.name,
                    "duedate": assignment.duedate,
                    "student_id": student.id,
                    "last_name": student.last_name,
                    "first_name": student.first_name,
                    "email": student.email,
                    "max_score": assignment.max_score,
                }
                unflagged: list[str] = []
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:
                    row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0)
                    row["score"] = 0.0
                    unflagged = ["no submission"]
                else:
                    penalty = submission.late_submission_penalty
                    row["timestamp"] = submission.timestamp
                    row["raw_score"] = submission.score
                    row["late_submission_penalty"] = penalty
                    row["score"] = max(0.0, submission.score - penalty)
                pending = pending_in_gradebook(gradebook, assignment.name, student.id)
                row["manual_pending"] = pending.answers
                row["manual_pending_points"] = pending.points
                flags = self.flags.get(f"{assignment.name}/{student.id}", unflagged)
                row["flags"] = flags_cell([str(flag) for flag in flags])
                writer.writerow([csv_cell(row[c]) for c in COLUMNS])


def export_grades(
    course: Course,
    results: Iterable[SubmissionResult],
    dest: Path,
    *,
    students: Iterable[str] = (),
    assignments: Iterable[str] = (),
    flags: Mapping[str, list[str]] | None = None,
) -> Path:
    """Write ``dest`` (grades.csv) for the students and assignments of ``results`` and
    the ``students`` and ``assignments`` given (the class: a row each, "no submission"
    where there is none); ``flags``: "assignment/student" -> flags of rows without a
    result."""
    results = list(results)
    row_flags = {key: list(value) for key, value in (flags or {}).items()}
    row_flags.update({f"{r.assignment}/{r.student}": list(r.flags) for r in results})
    plugin = FlaggedCsvExportPlugin(
        to=str(dest),
        student=sorted({r.student for r in results} | set(students)),
        assignment=sorted({r.assignment for r in results} | set(assignments)),
        flags=row_flags,
    )
    with course.gradebook() as gb:
        plugin.export(gb)
    return dest
