"""The similarity report of a graded batch, in a real browser: Playwright driving Debian's
chromium opens similarity.html from disk.

The batch is the demo class of one assignment (its planted pair, ``own_style`` and
``own_style_reworded``) and a hostile student, ``=eve`` (an id that starts like a
spreadsheet formula), whose answers are the pair's with comments that close the page's
tags and carry scripts, event handlers and links off the machine; it is graded with
``python -m autograder grade --similarity``. The page must request nothing but itself,
run none of eve's code (every payload would write ``window.__pwned`` or open a dialog),
show the planted pair first with its matching code marked; the CSV must list it above the
threshold, eve's id guarded as grades.csv guards it, and the reference-only pair
(``full_marks`` and ``typical_bugs`` where both hold the reference) not at all.

With the page's escaping and cleaning switched off, eve's links are requested from
192.0.2.1; with its Content-Security-Policy off too, her scripts run: both tests fail.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import nbformat
import pytest

from autograder.course import Course
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples.demo import DEMO_PAIR, DEMO_PAIR_ASSIGNMENT, build_demo_submissions

from .browser import launch_chromium

ASSIGNMENT = DEMO_PAIR_ASSIGNMENT
#: The hostile student's id starts like a spreadsheet formula.
EVE = "=eve"

#: Each payload, if it ran, records its name (or opens a dialog).
PAYLOADS = (
    "</pre></div><script>window.__pwned=(window.__pwned||'')+'script;'</script>",
    "<img src=x onerror=\"window.__pwned=(window.__pwned||'')+'img;'\">",
    "<svg onload=\"alert('svg')\"></svg><iframe src=\"javascript:alert('frame')\"></iframe>",
    "<a id=js href=\"javascript:window.__pwned='link'\">click</a>",
    '<link rel=stylesheet href="http://192.0.2.1/x.css"><img src="http://192.0.2.1/p.png">',
)

_REPORT_PWNED = """Object.defineProperty(window, "__pwned", {
  get() { return ""; },
  set(value) { window.__reportPwned(String(value)); },
});"""


def _hostile(notebook: bytes) -> bytes:
    """The notebook with every payload as comment lines at the top of each solution cell."""
    nb = nbformat.reads(notebook.decode("utf-8"), as_version=4)
    lines = "".join(f"# {payload}\n" for payload in PAYLOADS)
    for cell in nb.cells:
        if (
            cell.get("metadata", {}).get("nbgrader", {}).get("solution")
            and cell.cell_type == "code"
        ):
            cell.source = lines + cell.source
    return notebook_bytes(nb)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    from autograder.__main__ import main

    root = tmp_path_factory.mktemp("similarity")
    course_dir = root / "course"
    ensure_released(Course(course_dir), [ASSIGNMENT])
    folder = root / "submitted"
    build_demo_submissions(course_dir, folder, [ASSIGNMENT])
    reworded = folder / DEMO_PAIR[1] / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    eve = folder / EVE / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    eve.parent.mkdir(parents=True)
    eve.write_bytes(_hostile(reworded.read_bytes()))
    out = root / "out"
    argv = ["grade", str(folder), "--course", str(course_dir), "--out", str(out)]
    assert main([*argv, "--similarity", "--unsandboxed", "--workers", "2", "--no-feedback"]) == 0
    return out


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.mark.slow
def test_csv_lists_the_planted_pair_and_not_the_reference_pair(graded):
    rows = list(csv.DictReader(io.StringIO((graded / "similarity.csv").read_text())))
    threshold = float(rows[0]["threshold"])
    pairs = {(r["exercise"], r["student_a"], r["student_b"]): float(r["score"]) for r in rows}
    planted = [s for (e, a, b), s in pairs.items() if (a, b) == tuple(sorted(DEMO_PAIR))]
    assert len(planted) == 4 and min(planted) >= threshold  # every exercise of 02
    assert not [k for k in pairs if {"full_marks", "typical_bugs"} == {k[1], k[2]}]
    assert "Similar answers:" in (graded / "summary.md").read_text()
    grades = {r["student_id"]: r for r in csv.DictReader((graded / "grades.csv").open())}
    for student in (*DEMO_PAIR, "'" + EVE):
        assert float(grades[student]["score"]) == float(grades["full_marks"]["score"]), student
    # eve's id is shown as text by a spreadsheet, as in grades.csv
    assert any("'" + EVE in (r["student_a"], r["student_b"]) for r in rows)
    assert not [v for r in rows for v in r.values() if v.startswith(("=", "+", "-", "@"))]


@pytest.mark.slow
def test_page_requests_nothing_and_runs_no_student_code(graded, browser):
    page_path = graded / "similarity.html"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    ran: list[str] = []
    dialogs: list[str] = []
    requests: list[str] = []
    context.expose_binding("__reportPwned", lambda source, value: ran.append(value))
    context.add_init_script(_REPORT_PWNED)
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    try:
        page.goto(page_path.as_uri(), wait_until="load")
        page.mouse.move(5, 5)
        for selector in ("a#js", "pre"):
            if page.locator(selector).count():
                page.locator(selector).first.click(no_wait_after=True)
        page.wait_for_timeout(300)
        text = page.inner_text("body")
        marks = page.locator("pre mark").count()
        first = page.locator("section.pair h3").first.inner_text()
    finally:
        context.close()
    assert ran == [] and dialogs == []
    assert requests == [page_path.as_uri()], requests
    assert all(payload.split(">")[0] in text for payload in PAYLOADS)  # shown, as text
    assert marks > 0
    assert DEMO_PAIR[0] in first or EVE in first
