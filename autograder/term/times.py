"""Submission times from what the instructor has.

- nbgrader's ``timestamp.txt`` (its submitted layout, its exchange): read by intake
  (:func:`autograder.intake.read_timestamp`, nbgrader's own ``parse_utc``);
- ``--times FILE``, one of:

  - **Moodle's grading worksheet** ("Download grading worksheet" of an assignment, in
    English): ``Identifier`` ("Participant 4711", the participant id of Moodle's
    download) and ``Last modified (submission)`` ("Friday, 3 October 2025, 11:59 PM",
    Moodle's ``userdate``, on the clock of the Moodle user who downloaded it: read in
    course.toml's ``timezone``). Every row is a participant, so the worksheet is also the
    class list; a ``-`` time is a participant who handed nothing in.
  - **a plain CSV** ``student_id,timestamp`` (and optionally ``assignment``): ISO 8601
    times (``2025-10-03T23:59:00+02:00``, or nbgrader's ``2025-10-03 21:59:00.000000
    UTC``); a time without a zone is read in course.toml's ``timezone``.

A file that cannot be used (not a CSV of either kind, a time that cannot be read or has no
zone, a student twice) is a :class:`~autograder.models.TermError` of one line.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from autograder.models import TermError

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


@dataclass
class SubmissionTimes:
    """The times of a ``--times`` file: (assignment or None for any, student) -> time,
    and the students it lists (a worksheet lists every participant)."""

    source: str = ""
    kind: str = ""  # "moodle" or "csv"
    times: dict[tuple[str | None, str], datetime] = field(default_factory=dict)
    roster: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)

    def time_for(self, student: str, assignment: str) -> datetime | None:
        """When ``student`` handed ``assignment`` in, if the file says."""
        return self.times.get((assignment, student), self.times.get((None, student)))

    def assignments(self) -> set[str]:
        """The assignments the file names (empty: its times are for any assignment)."""
        return {a for a, _ in self.times if a is not None}


def _zone_named(name: str) -> tzinfo | None:
    if name.upper() in ("UTC", "GMT", "Z"):
        return UTC
    sign = name[:1]
    digits = name[1:].replace(":", "")
    if sign in "+-" and len(digits) == 4 and digits.isdigit():
        minutes = int(digits[:2]) * 60 + int(digits[2:])
        return timezone(timedelta(minutes=-minutes if sign == "-" else minutes))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _iso(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def parse_time(text: str, zone: tzinfo | None) -> datetime:
    """An ISO 8601 time (``2025-10-03T23:59:00+02:00``) or nbgrader's (``2025-10-03
    21:59:00.000000 UTC``), aware; a time without a zone is read in ``zone``. Raises
    ValueError saying what is wrong."""
    text = text.strip()
    moment = _iso(text)
    if moment is None:
        head, _, name = text.rpartition(" ")
        tz = _zone_named(name) if head else None
        moment = _iso(head) if tz is not None else None
        if moment is None or moment.tzinfo is not None:
            raise ValueError(f"{text!r} is not a time (write e.g. 2025-10-03T23:59:00+02:00)")
        moment = moment.replace(tzinfo=tz)
    if moment.tzinfo is None:
        if zone is None:
            raise ValueError(
                f"{text!r} has no time zone (add an offset such as +02:00, or set timezone "
                "in course.toml)"
            )
        moment = moment.replace(tzinfo=zone)
    return moment


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


def moodle_participant(identifier: str) -> str | None:
    """``"Participant 4711"`` -> ``"4711"`` (the participant id of Moodle's download), as
    Moodle's importer strips its ``hiddenuser`` prefix; None when it is not one."""
    if not identifier.startswith(MOODLE_PARTICIPANT):
        return None
    rest = identifier[len(MOODLE_PARTICIPANT) :].strip()
    return rest if rest.isdigit() else None


def _delimiter(header: str) -> str:
    """Comma or semicolon: the one that splits the header into more fields; a split that
    leaves a quote inside a field (a quoted title holding the other separator) counts
    none, as in Canvas's importer (``identify_delimiter``: Ruby's CSV refuses it)."""
    fields = {}
    for sep in ";,":
        row = next(csv.reader([header], delimiter=sep), [])
        fields[sep] = 0 if any('"' in cell for cell in row) else len(row)
    return ";" if fields[";"] > fields[","] else ","


def read_csv_rows(data: bytes, source: str) -> list[list[str]]:
    """The rows of a CSV file (UTF-8, a byte-order mark allowed; commas or semicolons),
    blank rows left out.

    Raises
    ------
    TermError
        Not UTF-8, not CSV, or empty.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TermError(f"{source}: not UTF-8 text") from None
    delimiter = _delimiter(next((line for line in text.splitlines() if line.strip()), ""))
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise TermError(f"{source}: not a readable CSV file ({exc})") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise TermError(f"{source}: empty")
    return rows


def read_csv_file(path: str | Path) -> list[list[str]]:
    """The rows of the CSV file at ``path`` (:func:`read_csv_rows`); the one reader of
    every file the instructor brings from an LMS (times, Canvas's gradebook export,
    Moodle's grading worksheet).

    Raises
    ------
    TermError
        No such file, unreadable, or not a CSV file (one line, naming the file).
    """
    path = Path(path)
    return read_csv_rows(read_term_file(path), path.name)


def read_term_file(path: str | Path) -> bytes:
    """The bytes of a file the instructor names (course.toml, times, an LMS's export);
    :class:`TermError` (one line, naming the file) when it is missing or unreadable."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise TermError(f"{path.name}: no such file") from None
    except OSError as exc:
        raise TermError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None


def read_number(text: str) -> float | None:
    """A number cell of an LMS's file (a decimal comma allowed), None when it is none."""
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        return None


def _read_moodle(rows: list[list[str]], source: str, zone: tzinfo | None) -> SubmissionTimes:
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
    """The times in ``path`` (a Moodle worksheet or a plain CSV; see the module docstring);
    ``zone``: course.toml's timezone; ``assignments``: the course's.

    Raises
    ------
    TermError
        The file cannot be used (one line).
    """
    path = Path(path)
    rows = read_csv_file(path)
    header = [h.strip() for h in rows[0]]
    if MOODLE_IDENTIFIER in header and MOODLE_SUBMITTED in header:
        times = _read_moodle(rows, path.name, zone)
    elif {"student_id", "timestamp"} <= {h.lower() for h in header}:
        times = _read_plain(rows, path.name, zone)
    else:
        raise TermError(
            f"{path.name}: neither a Moodle grading worksheet (columns {MOODLE_IDENTIFIER!r}, "
            f"{MOODLE_SUBMITTED!r}) nor a CSV with columns student_id,timestamp"
        )
    unknown = sorted(times.assignments() - set(assignments))
    if unknown:
        raise TermError(f"{path.name}: unknown assignment {unknown[0]!r}")
    return times
