"""Submission times from what the instructor has.

- nbgrader's ``timestamp.txt`` (its submitted layout, its exchange): read by intake
  (:func:`autograder.lms.times.read_timestamp`, nbgrader's own ``parse_utc``);
- ``--times FILE``, one of:

  - **an LMS's file of times**, read by the LMS's plugin (:mod:`autograder.lms`): Moodle's
    grading worksheet (:mod:`autograder.lms.plugins.moodle`), whose rows are also the
    class list;
  - **a plain CSV** ``student_id,timestamp`` (and optionally ``assignment``): ISO 8601
    times (``2025-10-03T23:59:00+02:00``, or nbgrader's ``2025-10-03 21:59:00.000000
    UTC``); a time without a zone is read in course.toml's ``timezone``.

A file that cannot be used (not a CSV of either kind, a time that cannot be read or has no
zone, a student twice) is a :class:`~autograder.models.TermError` of one line.
"""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path

from autograder.lms.base import lms_plugins
from autograder.lms.csvfiles import read_csv_file
from autograder.lms.times import SubmissionTimes, parse_time
from autograder.models import TermError

#: the plain CSV of times, as messages name it
PLAIN_TIMES = "a CSV with columns student_id,timestamp"

__all__ = ["PLAIN_TIMES", "SubmissionTimes", "parse_time", "read_times"]


def _read_plain(rows: list[list[str]], source: str, zone: tzinfo | None) -> SubmissionTimes:
    header = [h.strip().lower() for h in rows[0]]
    times = SubmissionTimes(source=source, kind="csv")
    ident, when = header.index("student_id"), header.index("timestamp")
    which = header.index("assignment") if "assignment" in header else None
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TermError(
                f"{source}: line {number}: {len(row)} columns, the header has {len(header)}"
            )
        student = row[ident].strip()
        assignment = (row[which].strip() or None) if which is not None else None
        if not student:
            raise TermError(f"{source}: line {number}: no student_id")
        try:
            moment = parse_time(row[when], zone)
        except ValueError as exc:
            raise TermError(f"{source}: line {number}: {exc}") from None
        key = (assignment, student)
        if key in times.times:
            raise TermError(f"{source}: line {number}: {student} has a second time")
        times.times[key] = moment
        if student not in times.roster:
            times.roster.append(student)
    return times


def read_times(path: str | Path, zone: tzinfo | None, assignments: list[str]) -> SubmissionTimes:
    """The times in ``path`` (an LMS's file of times, read by the first LMS plugin that
    takes it, or a plain CSV; see the module docstring); ``zone``: course.toml's timezone;
    ``assignments``: the course's.

    Raises
    ------
    TermError
        The file cannot be used (one line).
    """
    path = Path(path)
    rows = read_csv_file(path)
    header = [h.strip() for h in rows[0]]
    times = None
    for plugin in lms_plugins():
        times = plugin().read_times(rows, path.name, zone)
        if times is not None:
            break
    if times is None and {"student_id", "timestamp"} <= {h.lower() for h in header}:
        times = _read_plain(rows, path.name, zone)
    if times is None:
        kinds = [p.times_file for p in lms_plugins() if p.times_file] + [PLAIN_TIMES]
        raise TermError(f"{path.name}: neither {' nor '.join(kinds)}")
    unknown = sorted(times.assignments() - set(assignments))
    if unknown:
        raise TermError(f"{path.name}: unknown assignment {unknown[0]!r}")
    return times
