"""A class's feedback pages in a real browser: Playwright driving Debian's chromium opens
the pages ``python -m autograder grade`` wrote, from disk, at a laptop's width.

The class is one assignment with a term (course.toml and a times file): ``late`` hands in
the sample answer whose failing test has a long assertion message, a day and a half after
the due date (10 % per started day: −20 %); ``extended`` hands in the solution within an
extension; ``on_time`` the solution on time; ``broken`` a notebook cut off half-way.

- No text of a page runs off its box: every line of every cell, the long assertion
  message among them, wraps inside the page's white box, and nothing hides behind a
  scroll bar (and the long message did need more than one line: the check is not
  vacuous). Without the page's style sheet (``autograder.feedback.sanitise.PAGE_STYLE``)
  the assertion message's line runs some 400 pixels past the box, hidden behind a scroll
  bar, and the test fails.
- The late student's page says, above the notebook, when it was due, when it was handed
  in and how late, the rule and what it cost (as grades.csv's flag does, with the same
  penalty); the extended student's page names the extension; the on-time student's page
  has no such section.
- The broken notebook's page says what happened and what to do: download the release
  again, copy the answers into it, hand it in again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.autograder.fault_helpers import ASSIGNMENT, grade_rows, run_cli, sample_class
from tests.e2e.browser import launch_chromium

pytestmark = pytest.mark.slow

#: student -> the sample answer handed in (None: the instructor's solution)
CLASS = {"late": "activation_forgets_bias", "extended": None, "on_time": None, "broken": None}
CALENDAR = f"""\
timezone = "Europe/Berlin"
students = ["late", "extended", "on_time", "broken"]

[late]
rule = "per-day"
percent = 10

[assignments.{ASSIGNMENT}]
due = 2025-10-03T23:59:00

[[extensions]]
student = "extended"
assignment = "{ASSIGNMENT}"
due = "+3 days"
"""
TIMES = """\
student_id,timestamp
late,2025-10-05T10:00:00+02:00
extended,2025-10-05T12:00:00+02:00
on_time,2025-10-03T20:00:00+02:00
broken,2025-10-03T21:00:00+02:00
"""
#: A laptop's window.
VIEWPORT = {"width": 1280, "height": 800}

#: Every text of the page's box (``#notebook-container``) whose line runs past the box's
#: right edge, and every element in it that hides part of its content behind a scroll bar.
OVERFLOWS = """() => {
  const box = document.querySelector("#notebook-container").getBoundingClientRect();
  const past = [];
  const walker = document.createTreeWalker(
    document.querySelector("#notebook-container"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const rect of range.getClientRects()) {
      if (rect.width && rect.right > box.right + 1) {
        past.push([node.textContent.trim().slice(0, 60), Math.round(rect.right - box.right)]);
        break;
      }
    }
  }
  // typeset formulas draw their glyphs in CSS, not text: their boxes are held to the edge
  for (const math of document.querySelectorAll("#notebook-container mjx-container")) {
    const rect = math.getBoundingClientRect();
    if (rect.right > box.right + 1) past.push(["formula", Math.round(rect.right - box.right)]);
  }
  // (MathJax's own measuring boxes inside a formula, mjx-*, are not the page's)
  const hidden = [...document.querySelectorAll("#notebook-container *")]
    .filter((el) => !el.tagName.startsWith("MJX-"))
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
    .map((el) => [el.tagName, el.className, el.scrollWidth - el.clientWidth]);
  return {past: past, hidden: hidden};
}"""

#: How many lines the long assertion message takes on the page (0: not found).
MESSAGE_LINES = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.startsWith(": activation(X, w, b): values differ")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  }
  return 0;
}"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """The class graded through the command line; returns its output folder."""
    root = tmp_path_factory.mktemp("feedback-page")
    sample = sample_class(root, CLASS)
    broken = sample.folder / "broken" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    broken.write_bytes(broken.read_bytes()[: broken.stat().st_size // 2])
    (root / "course.toml").write_text(CALENDAR, encoding="utf-8")
    (root / "times.csv").write_text(TIMES, encoding="utf-8")
    proc = run_cli(
        *("grade", "submissions", "--course", "course", "--out", "out"),
        *("--calendar", "course.toml", "--times", "times.csv", "--no-progress"),
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root / "out"


def _page(out: Path, student: str) -> Path:
    return out / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        try:
            yield chromium
        finally:
            chromium.close()


#: Waits for MathJax, when the page loads it, to have typeset its formulas.
MATHJAX_DONE = """async () => {
  for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
    if (!document.querySelector("script[src*='mathjax' i]")) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
    return true;
  }
  return false;
}"""


def _open(browser, path: Path):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(path.as_uri())
    page.evaluate(MATHJAX_DONE)  # the page as the student sees it once it has settled
    return page


def test_no_text_runs_off_the_page_box(graded, browser):
    for student in ("late", "extended", "on_time"):
        page = _open(browser, _page(graded, student))
        try:
            found = page.evaluate(OVERFLOWS)
            assert found == {"past": [], "hidden": []}, student
            if student == "late":  # the long message is there, and took several lines
                assert page.evaluate(MESSAGE_LINES) >= 2
        finally:
            page.close()


def test_a_late_page_says_when_it_was_due_and_handed_in(graded, browser):
    rows = grade_rows(graded)
    late, extended = rows["late"], rows["extended"]
    # grades.csv: the same term, its times on the course's clock, marked
    assert late["duedate"] == "2025-10-03T23:59:00+02:00"
    assert late["timestamp"] == "2025-10-05T10:00:00+02:00"
    penalty = float(late["late_submission_penalty"])
    assert penalty > 0 and f"−20 % (−{penalty:g} points)" in late["flags"]
    page = _open(browser, _page(graded, "late"))
    try:
        section = page.locator(".autograder-late")
        assert section.is_visible()
        text = section.inner_text()
        assert text.startswith("Handed in after the due date") and "<" not in text
        # in its box (the page's style sheet: the template strips a raw cell's own style)
        border = section.evaluate("(el) => getComputedStyle(el).borderTopWidth")
        assert border == "2px"
        assert "Due: 2025-10-03 23:59 +02:00 CEST" in text
        assert "Handed in: 2025-10-05 10:00 +02:00 CEST, 1 day 10 h 1 min late" in text
        assert "Late rule: 10 % of the score per started day" in text
        assert f"Penalty: −20 % (−{penalty:g} points)" in text
        # above the notebook: the first thing of the page's box
        first = page.locator("#notebook-container .cell").first
        assert section.bounding_box()["y"] <= first.bounding_box()["y"]
    finally:
        page.close()
    assert extended["late_submission_penalty"] == "0.0"
    page = _open(browser, _page(graded, "extended"))
    try:
        text = page.locator(".autograder-late").inner_text()
        assert "Your extension: due 2025-10-06 23:59 +02:00 CEST (+3 days)" in text
        assert "Handed in: 2025-10-05 12:00 +02:00 CEST, on time" in text
    finally:
        page.close()
    page = _open(browser, _page(graded, "on_time"))
    try:
        assert page.locator(".autograder-late").count() == 0
    finally:
        page.close()


def test_a_corrupt_notebooks_page_says_what_to_do(graded, browser):
    assert "is corrupt" in grade_rows(graded)["broken"]["flags"]
    page = _open(browser, _page(graded, "broken"))
    try:
        text = page.locator("body").inner_text()
        assert "could not be graded and scored 0 points" in text
        assert f"The file you handed in as {ASSIGNMENT}.ipynb is not a readable notebook" in text
        assert "Download the assignment's release again" in text
        assert "copy your answers from it into the fresh notebook" in text
        assert f"Hand in that notebook again, named {ASSIGNMENT}.ipynb" in text
        found = page.evaluate(
            "() => [...document.querySelectorAll('body *')]"
            ".filter((el) => el.scrollWidth > el.clientWidth + 1).length"
        )
        assert found == 0
    finally:
        page.close()
