"""similarity.csv and similarity.html: sorted, with the threshold; a CSV that a spreadsheet
shows as text; a page that escapes and cleans everything a student wrote, carries the
feedback pages' Content-Security-Policy, loads nothing and names no verdict."""

from __future__ import annotations

import csv
import io
import re

import pytest
from bs4 import BeautifulSoup

from autograder.notebook import notebook_bytes
from autograder.report import summary_text
from autograder.samples import VARIANTS, make_submission
from autograder.samples.copies import add_comments, release_notebook, rename_locals
from autograder.similarity import (
    CSV_COLUMNS,
    NotebookSource,
    compare_class,
    summary_line,
    write_similarity,
)
from course_common.paths import NOTEBOOKS_DIR

ASSIGNMENT = "02_perceptron_update"
SOURCE = NOTEBOOKS_DIR / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
RELEASE = release_notebook(SOURCE)
#: Student ids and code a spreadsheet or a browser would act on.
FORMULA_ID = '=HYPERLINK("http://example.org","x")'
TAG_ID = "<img src=x onerror=alert(1)>"
PAYLOAD = "</pre><script>window.__pwned=1</script><img src=x onerror=alert(2)>"
VERDICTS = re.compile(r"\b(cop(y|ied|ying)|plagiar\w*|cheat\w*|guilt\w*|misconduct)\b", re.I)


def _answers() -> dict[str, str]:
    first: dict[str, str] = {}
    for variant in VARIANTS[ASSIGNMENT]:
        if variant.correct and len(variant.replace) == 1:
            for cell, code in variant.replace.items():
                first.setdefault(cell, code)
    return first


@pytest.fixture(scope="module")
def run():
    own = _answers()
    hostile = {
        cell: add_comments(rename_locals(code, seed=1), seed=2).replace("\n", f"\n# {PAYLOAD}\n", 1)
        for cell, code in own.items()
    }
    students = {
        "alice": own,
        FORMULA_ID: hostile,
        TAG_ID: {cell: rename_locals(code, seed=3) for cell, code in own.items()},
        "ref_1": {},
        "ref_2": {},
    }
    name = f"{ASSIGNMENT}.ipynb"
    submissions = [
        (student, ASSIGNMENT, {name: notebook_bytes(make_submission(RELEASE, SOURCE, answers))})
        for student, answers in students.items()
    ]
    source = NotebookSource(ASSIGNMENT, name, SOURCE.read_bytes(), notebook_bytes(RELEASE))
    return compare_class(submissions, [source], workers=1)


def test_csv_is_sorted_has_the_threshold_and_shows_as_text(run, tmp_path):
    write_similarity(run, tmp_path)
    text = (tmp_path / "similarity.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == CSV_COLUMNS
    scores = [float(r["score"]) for r in rows]
    assert scores == sorted(scores, reverse=True) and scores[0] >= run.settings.threshold
    assert {r["threshold"] for r in rows} == {f"{run.settings.threshold:g}"}
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "-", "@")), value
    assert any(
        r["student_a"] == "'" + FORMULA_ID or r["student_b"] == "'" + FORMULA_ID for r in rows
    )
    # the reference-only pair is not listed; every listed pair has matched lines
    assert not any({r["student_a"], r["student_b"]} == {"ref_1", "ref_2"} for r in rows)
    assert all(re.fullmatch(r"\d+(-\d+)?(, \d+(-\d+)?)*", r["matched_lines_a"]) for r in rows)


def test_page_is_inert_and_offline(run, tmp_path):
    write_similarity(run, tmp_path)
    page = (tmp_path / "similarity.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(page, "html.parser")
    assert soup.find("script") is None
    assert not any(name.startswith("on") for tag in soup.find_all(True) for name in tag.attrs)
    assert soup.find("img") is None and soup.find("iframe") is None
    head = soup.find("head")
    csp = head.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
    assert csp is not None and "object-src 'none'" in csp["content"]
    assert head.find("meta") is head.find("meta", attrs={"charset": True})  # charset first
    # nothing is loaded from anywhere: no src, no stylesheet link, no url()
    assert not soup.find_all(src=True) and not soup.find_all("link")
    assert "url(" not in page
    # the payload is shown as text, in the pair's code
    assert PAYLOAD in soup.get_text()
    assert TAG_ID in soup.get_text() and FORMULA_ID in soup.get_text()
    marks = soup.select("pre mark")
    assert marks, "no matching code marked"


def test_no_verdict_words(run, tmp_path):
    write_similarity(run, tmp_path)
    soup = BeautifulSoup((tmp_path / "similarity.html").read_text(encoding="utf-8"), "html.parser")
    for pre in soup.find_all("pre"):
        pre.decompose()  # the students' own code may say anything
    for text in (soup.get_text(), summary_line(run), (tmp_path / "similarity.csv").read_text()):
        assert not VERDICTS.search(text.replace(FORMULA_ID, "")), VERDICTS.search(text)
    assert "look at these" in soup.get_text()


def test_summary_gets_one_line(run):
    line = summary_line(run)
    assert "\n" not in line and f"score {run.settings.threshold:g} or more" in line
    assert re.search(r"(\d+) pairs? of answers", line)
    text = summary_text([], similarity=line)
    assert line in text
