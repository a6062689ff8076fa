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
