"""grades.csv cells: safe to open in a spreadsheet and bounded (OWASP's CSV-injection rule)."""

from __future__ import annotations

import csv
import io

import pytest

from autograder.report import MAX_CELL, csv_cell, flags_cell


@pytest.mark.parametrize(
    "hostile",
    ['=HYPERLINK("http://x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1"],
)
def test_a_cell_that_starts_like_a_formula_is_text(hostile):
    cell = csv_cell(hostile)
    assert cell == "'" + hostile
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r"))


@pytest.mark.parametrize("number", ["-1.5", "+2", "-0.0", "3", "0.25"])
def test_numbers_stay_numbers(number):
    assert csv_cell(number) == number


def test_plain_text_and_empty_values_unchanged():
    assert csv_cell("alice") == "alice"
    assert csv_cell(None) == ""
    assert csv_cell(7.5) == "7.5"


def test_no_cell_is_longer_than_the_bound():
    assert len(csv_cell("x" * 100_000)) == MAX_CELL
    flags = [f"extra file not graded: junk/{i:05d}.bin" for i in range(5000)]
    cell = flags_cell(flags)
    assert len(cell) <= MAX_CELL
    assert cell.startswith("5000 flags (all in results.json): extra file not graded")
    shown = cell.count("extra file not graded")
    assert cell.endswith(f"; +{5000 - shown} more") and shown > 10
    # one flag longer than the bound on its own
    assert flags_cell(["y" * 50_000]) == "1 flags (all in results.json): +1 more"
    assert flags_cell(["a", "b"]) == "a; b"


def test_the_file_reads_back_with_the_csv_modules_default_limit():
    flags = ["=cmd " + "z" * 300 for _ in range(2000)]
    buffer = io.StringIO()
    csv.writer(buffer).writerow([csv_cell("=evil"), csv_cell(flags_cell(flags))])
    (row,) = list(csv.reader(io.StringIO(buffer.getvalue())))
    assert row[0] == "'=evil" and row[1].startswith("2000 flags") and len(row[1]) <= MAX_CELL


# nbgrader's add_submission warns (SQLAlchemy autoflush) while it builds the test's gradebook
@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")
@pytest.mark.slow
def test_grades_csv_is_nbgraders_export_with_every_text_read_back_whole(tmp_path):
    """nbgrader's own export writes the rows; names with a comma, a quote or a line break
    still read back as one field each, formulas guarded, rows by assignment then id, and
    the extra columns after nbgrader's."""
    import datetime

    from nbgrader.api import Gradebook

    from autograder.course import prepare_nbgrader
    from autograder.report import EXTRA_COLUMNS, FlaggedCsvExportPlugin

    prepare_nbgrader()  # nbgrader's alembic revision for a new gradebook
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    due = datetime.datetime(2025, 10, 3, 21, 59)
    with Gradebook(url) as gb:
        gb.add_assignment("b_two", duedate=due)
        gb.add_assignment("a_one")
        gb.add_student("=cmd", last_name='O"Brien, Jr.', first_name="two\nlines", email=None)
        gb.add_student("bob", last_name="", first_name=" spaced ", email="b@x,y")
        gb.add_submission("a_one", "bob")
        dest = tmp_path / "grades.csv"
        FlaggedCsvExportPlugin(to=str(dest), flags={"b_two/bob": ["=1+1"]}).export(gb)
    with dest.open(newline="") as fh:
        header, *rows = csv.reader(fh)
    assert header[-3:] == EXTRA_COLUMNS and header[:4] == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
    ]
    table = [dict(zip(header, row, strict=True)) for row in rows]
    assert [(r["assignment"], r["student_id"]) for r in table] == [
        ("a_one", "'=cmd"),
        ("a_one", "bob"),
        ("b_two", "'=cmd"),
        ("b_two", "bob"),
    ]
    first = table[0]
    assert (first["last_name"], first["first_name"], first["email"]) == (
        'O"Brien, Jr.',
        "two\nlines",
        "",
    )
    assert (table[1]["first_name"], table[1]["email"]) == (" spaced ", "b@x,y")
    assert [r["flags"] for r in table] == ["no submission", "", "no submission", "'=1+1"]
    # the gradebook's UTC, marked (no course clock given: UTC)
    assert table[2]["duedate"] == "2025-10-03T21:59:00+00:00" and table[0]["score"] == "0.0"
