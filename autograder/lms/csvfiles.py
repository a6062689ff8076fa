"""The files an instructor brings from an LMS (a times file, Canvas's gradebook export,
Moodle's grading worksheet) and course.toml, read in one way: the bytes of a file named
(:func:`read_term_file`), its CSV rows (:func:`read_csv_file`, :func:`read_csv_rows`), a
number cell (:func:`read_number`); every failure a :class:`~autograder.models.TermError`
of one line naming the file."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from autograder.models import TermError


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
