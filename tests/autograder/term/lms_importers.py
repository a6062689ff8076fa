"""The LMS importers' rules, restated in Python to read back what the exports write.

Written from the importers' own sources, not from :mod:`autograder.lms`:

- Canvas: ``app/models/gradebook_importer.rb`` (``GradebookImporter``: ``csv_stream``,
  ``identify_delimiter``, the ``decimal_comma_to_period`` converter, ``header?``,
  ``row_has_student_headers?``, ``update_column_count``,
  ``strip_non_assignment_columns``, ``parse_assignments`` with
  ``Assignment.title_and_id``, ``check_for_non_student_row``, ``process_student``,
  ``process_submissions``, ``no_score?``) and ``app/models/assignment.rb``;
- Moodle's offline grading worksheet: ``lib/csvlib.class.php`` (``csv_import_reader::
  load_csv_content``), ``mod/assign/feedback/offline/importgradeslib.php`` (``init``,
  ``next``) and ``locallib.php`` (``process_import_grades``'s skips), with the English
  strings of ``mod/assign/lang/en/assign.php`` (``recordid``, ``hiddenuser``,
  ``lastmodifiedgrade``) and core's ``gradenoun``;
- Moodle's gradebook CSV import: ``grade/import/csv/classes/load_data.php``
  (``trim_headers``, ``map_user_data_with_value``, ``update_grade_item``).

Each parser raises :class:`ImportRejected` where the importer would refuse the file.
"""

from __future__ import annotations

import csv
import io
import re

# --------------------------------------------------------------------------- Canvas

GRADEBOOK_IMPORTER_RESERVED_NAMES = [
    "Student",
    "LastName",
    "FirstName",
    "ID",
    "SIS User ID",
    "SIS Login ID",
    "Section",
    "Integration ID",
    "Root Account",
]
NON_ASSIGNMENT_COLUMN_HEADERS = [
    "Current Score",
    "Current Points",
    "Current Grade",
    "Final Score",
    "Final Points",
    "Final Grade",
    "Override Score",
    "Override Grade",
    "Override Status",
]


class ImportRejected(ValueError):
    """The importer would refuse the file (Canvas: "Invalid header row"; Moodle: its
    ``invalidgradeimport``, ``csvweirdcolumns`` or ``badgrade``)."""


def _ruby_parse_line(line: str, sep: str) -> list[str]:
    # Ruby's CSV.parse_line: a quote inside an unquoted field, or text after a closing
    # quote, is a MalformedCSVError (Python's csv module reads both leniently)
    fields, cell, quoted, at = [], "", False, 0
    while at <= len(line):
        char = line[at] if at < len(line) else None
        if quoted:
            if char is None:
                raise ValueError("Unclosed quoted field")
            if char == '"':
                if line[at + 1 : at + 2] == '"':
                    cell, at = cell + '"', at + 2
                    continue
                quoted = False
                if line[at + 1 : at + 2] not in ("", sep):
                    raise ValueError("Any value after quoted field isn't allowed")
            else:
                cell += char
        elif char is None or char == sep:
            fields.append(cell)
            cell = ""
        elif char == '"':
            if cell:
                raise ValueError("Illegal quoting")
            quoted = True
        else:
            cell += char
        at += 1
    return fields


def _canvas_delimiter(lines: list[str]) -> str:
    # identify_delimiter: a separator whose field count is the same on the first lines;
    # one that makes a line malformed counts 0 (the importer rescues MalformedCSVError)
    counts = {}
    for sep in (";", ","):
        try:
            per_line = [len(_ruby_parse_line(line, sep)) for line in lines]
        except ValueError:
            counts[sep] = 0
            continue
        counts[sep] = per_line[0] if len(set(per_line)) == 1 else 0
    return ";" if counts[";"] > counts[","] else ","


def _decimal_comma_to_period(field: str | None) -> str | None:
    if field is not None and re.match(r"^-?[0-9.,]+%?$", field):
        parts = re.split(r"[,.]", field)
        last = parts.pop()
        return last if not parts else "".join(parts) + "." + last
    return field


def _title_and_id(text: str) -> tuple[str, str | None]:
    match = re.match(r"\A(.*)\s\((\d+)\)\Z", text, re.DOTALL)
    return (match.group(1), match.group(2)) if match else (text, None)


def canvas_import(text: str) -> dict:
    """What Canvas's GradebookImporter makes of a CSV: ``assignments`` (header name ->
    (title, id or None, points possible)), ``students`` (list of dicts with ``id``,
    ``name``, ``sis_user_id``, ``sis_login_id`` and ``grades``: header name -> the grade,
    None where the cell is a "no score")."""
    text = text.removeprefix("\ufeff")
    first_lines = text.splitlines()[:3]
    sep = _canvas_delimiter(first_lines)
    rows = []
    for raw in csv.reader(io.StringIO(text, newline=""), delimiter=sep):
        line = sep.join(raw)
        if re.fullmatch(r"[;, ]+", line):  # skip_lines
            continue
        # Ruby's CSV gives nil for an empty unquoted field; converters then apply
        rows.append([_decimal_comma_to_period(cell) if cell != "" else None for cell in raw])
    header = rows[0]
    if not (len(header) > 3 and "Student" in (header[0] or "") and "ID" in (header[1] or "")):
        raise ImportRejected("Invalid header row")
    student_columns = 3
    sis_user_column = sis_login_column = None
    if re.search(r"SIS\s+Login\s+ID", header[2] or ""):
        sis_login_column = 2
        student_columns += 1
    elif re.search(r"SIS\s+User\s+ID", header[2] or "") and re.search(
        r"SIS\s+Login\s+ID", header[3] or ""
    ):
        extra = 1 if re.search(r"Integration\s+ID", header[4] or "") else 0
        sis_user_column, sis_login_column = 2, 3
        student_columns += 2 + extra
        if re.search(r"Root\s+Account", header[4 + extra] or ""):
            student_columns += 1
    if "Section" not in (header[student_columns - 1] or ""):
        raise ImportRejected("Invalid header row")
    stripped = header[student_columns:]
    pattern = "|".join(NON_ASSIGNMENT_COLUMN_HEADERS)
    names = [h for h in stripped if not re.search(pattern, h or "")]
    assignments = {name: [*_title_and_id(name), None] for name in names}
    indices = {name: header.index(name) for name in names}
    students = []
    for row in rows[1:]:
        row = row + [None] * (len(header) - len(row))
        if "Points Possible" in (row[0] or ""):
            for name in names:
                if row[indices[name]]:
                    assignments[name][2] = row[indices[name]]
            continue
        if all(re.fullmatch(r"\s*(Muted|Manual Posting.*)?\s*", c, re.I) for c in row if c):
            continue
        grades = {}
        for name in names:
            grade = (row[indices[name]] or "").strip()
            grades[name] = None if grade in ("", "-") else grade  # no_score?
        students.append(
            {
                "name": row[0],
                "id": row[1],
                "sis_user_id": row[sis_user_column] if sis_user_column is not None else None,
                "sis_login_id": row[sis_login_column] if sis_login_column is not None else None,
                "grades": grades,
            }
        )
    return {"assignments": {k: tuple(v) for k, v in assignments.items()}, "students": students}


# --------------------------------------------------------------------------- Moodle

MOODLE_GRADE = "Grade"  # get_string('gradenoun')
MOODLE_RECORDID = "Identifier"  # get_string('recordid', 'assign')
MOODLE_LASTMODIFIEDGRADE = "Last modified (grade)"  # get_string('lastmodifiedgrade', 'assign')
MOODLE_HIDDENUSER = "Participant "  # get_string('hiddenuser', 'assign')


def moodle_csv_rows(text: str, separator: str = ",") -> list[list[str]]:
    """csv_import_reader::load_csv_content: BOM removed, newlines unified, content trimmed,
    fgetcsv rows (a blank line is skipped), every row as long as the header."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").strip()
    rows = [row for row in csv.reader(io.StringIO(text), delimiter=separator) if row != []]
    if not rows:
        raise ImportRejected("csvemptyfile")
    if any(len(row) != len(rows[0]) for row in rows):
        raise ImportRejected("csvweirdcolumns")
    return rows


def _unformat_float(value: str) -> float | None:
    # unformat_float: '' -> null; the locale's decimal point; not a number -> false
    value = value.strip().replace(" ", "")
    if value == "":
        return None
    try:
        return float(value.replace(",", "."))
    except ValueError:
        raise ImportRejected(f"not a number: {value!r}") from None


def moodle_worksheet_import(text: str, max_grade: float) -> dict[str, float]:
    """The grades Moodle's offline-grading import would set: participant id -> grade.
    Rows with a blank, negative or too high grade are skipped, as Moodle does."""
    rows = moodle_csv_rows(text)
    columns = rows[0]
    found = {}
    for index, column in enumerate(columns):
        for name in (MOODLE_GRADE, MOODLE_RECORDID, MOODLE_LASTMODIFIEDGRADE):
            if column == name:
                found[name] = index
    if len(found) < 3:
        raise ImportRejected("invalidgradeimport")
    grades = {}
    for record in rows[1:]:
        participant = record[found[MOODLE_RECORDID]][len(MOODLE_HIDDENUSER) :]
        grade = _unformat_float(record[found[MOODLE_GRADE]])
        if grade is None or grade < 0 or grade > max_grade:
            continue  # process_import_grades: skip
        grades[participant] = grade
    return grades


def moodle_gradebook_import(text: str, key_column: str, grade_columns: dict[str, str]) -> dict:
    """Moodle's gradebook CSV import with the instructor's mapping: ``key_column`` mapped
    to a user field, ``grade_columns`` (column -> grade item) to grade items. Returns
    (user value, grade item) -> grade (None: '' or '-', no grade)."""
    rows = moodle_csv_rows(text)
    headers = [h.strip() for h in rows[0]]  # trim_headers
    if key_column not in headers:
        raise ImportRejected(f"no column {key_column!r} to map users from")
    key = headers.index(key_column)
    out = {}
    for row in rows[1:]:
        user = row[key]
        if not user:
            continue  # a blank user field: skipped
        for column, item in grade_columns.items():
            value = row[headers.index(column)]
            if value == "" or value == "-":
                out[(user, item)] = None
                continue
            try:
                out[(user, item)] = float(value.replace(",", "."))
            except ValueError:
                raise ImportRejected("badgrade") from None
    return out
