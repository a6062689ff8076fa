"""Every defence of the grader's output, proven where it runs: one class graded through the
command line (``python -m autograder grade``, sandboxed where the sandbox works, with
feedback), then each layer checked on what the run wrote.

The class (``test_hostile_html.grade_hostile_batch``):

- ``honest``: the instructor's solution;
- ``eve``: the same with every kind of active content a notebook can hold (HTML, SVG,
  JavaScript, LaTeX, mermaid and widget outputs, an ``execute_result`` with hostile HTML,
  markdown with raw HTML, an attachment that is HTML, a raw HTML cell, output metadata,
  cell tags, a grade id, a title and widget state that break out of their tags);
- ``mallory``: the instructor's solution with a cell that prints 80 MiB at once (one
  message from the kernel, larger than the grader accepts);
- ``=cmd|'calc'!A0`` (a student id a spreadsheet runs as a formula): a typical bug that
  fails a hidden test, a cell that prints where linlib, numpy and the standard library are
  (in two flushes), warns and fails inside numpy (a traceback through the grader's
  folders), and five extra files whose names are not UTF-8 (flags longer than a
  spreadsheet cell should be).

Checked on what the run wrote: the feedback pages, formgrader's view of eve's graded
notebook, grades.csv and summary.md. Each test's docstring says what the run shows with its
layer switched off; each was switched off once and the test seen to fail.
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import Course
from autograder.notebook import hidden_line_ranges, is_test_cell, notebook_bytes
from autograder.report import MAX_CELL
from autograder.samples import VARIANTS, make_submission
from course_common.paths import REPO_ROOT
from tests.autograder import test_hostile_formgrader as hostile_formgrader
from tests.autograder import test_hostile_html as hostile_html
from tests.autograder.attacks import pick_variant

#: The browser tests' one chromium fixture (Debian's chromium, the lecture's MathJax).
browser = hostile_html.browser

#: OWASP's classic CSV-injection payload (a DDE call), as a student id.
FORMULA = "=cmd|'calc'!A0"
#: What the grades.csv cell of a formula must start with: a spreadsheet reads text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Prints where the grader's packages and standard library are (the kernel sends that
#: text in two messages: a flush, a pause, a second line), warns (a warning names the
#: kernel's cell file, in its temporary folder), then fails inside numpy.
PATHS_CODE = """
import json, time, warnings, linlib, numpy as np
print(linlib.__file__, np.__file__, json.__file__, flush=True)
time.sleep(0.5)
print("printed after a pause", flush=True)
warnings.warn("careful")
np.linalg.inv(np.zeros((2, 2)))
""".strip()


def _non_utf8_names(count: int) -> list[bytes]:
    return [b"notes-\xff" + bytes([ord("a") + i]) * 200 + b".txt" for i in range(count)]


#: One stream message of 80 MiB from the kernel: over the grader's cap (64 MiB,
#: SandboxedKernelManager.max_message_bytes), under the sandbox's memory limit.
FLOOD_CODE = """
import sys
sys.stdout.write("x" * (80 * 2**20))
sys.stdout.flush()
""".strip()


def _more_students(folder: Path, release_nb: Path, source_nb: nbformat.NotebookNode) -> None:
    _formula_student(folder, release_nb, source_nb)
    assignment = release_nb.stem
    nb = make_submission(release_nb, source_nb)
    nb.cells.insert(1, new_code_cell(FLOOD_CODE))
    target = folder / "mallory" / assignment
    target.mkdir(parents=True)
    (target / f"{assignment}.ipynb").write_bytes(notebook_bytes(nb))


def _formula_student(folder: Path, release_nb: Path, source_nb: nbformat.NotebookNode) -> None:
    assignment = release_nb.stem
    variant = pick_variant(VARIANTS[assignment])
    nb = make_submission(release_nb, source_nb, variant.replace)
    nb.cells.insert(1, new_code_cell(PATHS_CODE))
    target = folder / FORMULA / assignment
    target.mkdir(parents=True)
    (target / f"{assignment}.ipynb").write_bytes(notebook_bytes(nb))
    for name in _non_utf8_names(5):
        with open(os.path.join(os.fsencode(target), name), "wb") as fh:
            fh.write(b"x")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    course_dir, out, assignment, rows, full = hostile_html.grade_hostile_batch(
        tmp_path_factory.mktemp("defences"), more_students=_more_students
    )
    source = nbformat.read(course_dir / "source" / assignment / f"{assignment}.ipynb", 4)
    variant = pick_variant(VARIANTS[assignment])
    lost = sum(
        float(c.metadata["nbgrader"]["points"])
        for c in source.cells
        if is_test_cell(c) and c.metadata["nbgrader"]["grade_id"] in variant.lost
    )
    return {
        "course": course_dir,
        "out": out,
        "assignment": assignment,
        "rows": rows,
        "full": full,
        "lost": lost,
        "source": source,
    }


def _page(graded: dict, student: str) -> Path:
    a = graded["assignment"]
    return graded["out"] / "feedback" / student / a / f"{a}.html"


def _autograded(graded: dict, student: str) -> nbformat.NotebookNode:
    a = graded["assignment"]
    path = Course(graded["course"]).autograded_dir(student, a) / f"{a}.ipynb"
    return nbformat.read(path, as_version=4)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _text(page: Path) -> str:
    """What a reader of *page* sees (the code's syntax-highlighting spans joined)."""
    return BeautifulSoup(page.read_text(encoding="utf-8"), features="html.parser").get_text()


@pytest.mark.slow
def test_the_class_is_graded_as_if_nothing_were_there(graded):
    rows = graded["rows"]
    assert float(rows["eve"]["score"]) == pytest.approx(graded["full"])
    expected = graded["full"] - graded["lost"]
    assert graded["lost"] > 0
    assert float(rows["'" + FORMULA]["score"]) == pytest.approx(expected)


@pytest.mark.slow
def test_no_feedback_page_holds_active_content(graded):
    """Every page under feedback/, parsed: no script but the page's own MathJax, no active
    tag, no event handler, no ``javascript:`` or ``data:text/html`` URL, no ``<meta>``
    refresh, and a Content-Security-Policy that allows no inline script.

    Switched off: without SanitiseNotebook running in GenerateFeedback (its ``enabled``
    left at nbconvert's False), eve's page carries her outputs' ``<script>``, ``<img
    onerror>``, ``<embed>`` and ``<iframe>`` and a ``javascript:`` link; without
    SafeHTMLExporter's ``markdown2html`` her markdown's; without its policy, no ``<meta>``
    policy in any page.
    """
    pages = sorted((graded["out"] / "feedback").glob("*/*/*.html"))
    assert {p.parent.parent.name for p in pages} == {"honest", "eve", "mallory", FORMULA}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert hostile_html.active_content(text) == [], page
        soup = BeautifulSoup(text, features="html.parser")
        policy = soup.head.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
        assert policy is not None, f"{page}: no Content-Security-Policy"
        script_src = policy["content"].split("script-src")[1].split(";")[0]
        assert "'unsafe-inline'" not in script_src and "'none'" in policy["content"]
    eve = _text(_page(graded, "eve"))
    assert "a link" in eve and "an output link" in eve and "result" in eve  # shown, inert


@pytest.mark.slow
def test_formgraders_view_holds_none_of_it(graded):
    """eve's graded notebook in formgrader's manual-grading view (nbconvert's HTMLExporter,
    nbgrader's formgrade template, the course's nbgrader_config.py): what could run is
    exactly what the view of an empty notebook has (formgrader's own scripts).

    Switched off: without the course's formgrader lines (or with SanitiseNotebook off in
    HTMLExporter.preprocessors, or without CleanMarkdown) the view carries eve's scripts,
    handlers and ``javascript:`` links.
    """
    course = graded["course"]
    page = hostile_formgrader.render_formgrade(_autograded(graded, "eve"), course, safe=True)
    empty = hostile_formgrader.render_formgrade(new_notebook(), course, safe=True)
    assert hostile_html.active_content(page) == hostile_html.active_content(empty)
    assert "a link" in page and "an output link" in page


@pytest.mark.slow
@pytest.mark.parametrize(("student", "outcome"), [("honest", "passed"), (FORMULA, "failed")])
def test_feedback_withholds_the_hidden_tests(graded, student, outcome):
    """The hidden tests' source is in the graded notebook and in no feedback page: each
    region is a line with its outcome and points.

    Switched off: without RedactHiddenTests the pages show every hidden test's source
    (and a failing one's traceback quotes it).
    """
    visible, hidden = [], []
    for cell in graded["source"].cells:
        lines = cell.source.split("\n")
        inside = {n for a, b in hidden_line_ranges(cell.source) for n in range(a + 1, b)}
        for number, line in enumerate(lines, start=1):
            (hidden if number in inside else visible).append(line.strip())
    secret = [line for line in hidden if len(line) > 25 and line not in visible]
    assert secret
    graded_source = "\n".join(c.source for c in _autograded(graded, student).cells)
    assert all(line in graded_source for line in secret)  # not vacuous
    text = _text(_page(graded, student))
    assert [line for line in secret if line in text] == []
    assert f"hidden tests (source withheld): {outcome}" in text


@pytest.mark.slow
def test_feedback_names_no_folder_of_the_grader(graded):
    """The formula student's printed paths and numpy traceback name the grader's checkout,
    its Python environment and standard library in the graded notebook; the page names
    none of them (``linlib/__init__.py``, ``site-packages/numpy/…``, ``python/json/…``).

    Its warning names the kernel's cell file in the kernel's temporary folder
    (``/tmp/ipykernel_<pid>/``, the pid differing run to run outside the sandbox): the
    page names the file only.

    Switched off: without HideGraderPaths the page holds the repository's and the Python
    installation's absolute folders, and ``/tmp/ipykernel_2/``.
    """
    paths = sysconfig.get_paths()
    folders = {str(REPO_ROOT), sys.prefix, paths["stdlib"], paths["purelib"], "/ipykernel_"}
    folders.add(str(graded["course"]))
    graded_text = json.dumps(_autograded(graded, FORMULA))
    assert str(REPO_ROOT) in graded_text and paths["stdlib"] in graded_text  # not vacuous
    assert "/ipykernel_" in graded_text
    page = _page(graded, FORMULA).read_text(encoding="utf-8")
    assert [folder for folder in folders if folder in page] == []
    text = _text(_page(graded, FORMULA))
    assert "linlib/__init__.py" in text and "LinAlgError" in text
    assert "site-packages/numpy/" in text and "python/json/" in text
    assert re.search(r"\n[0-9]+\.py:[0-9]+: UserWarning: careful", text)


@pytest.mark.slow
def test_a_cells_printed_text_is_one_output_however_the_kernel_flushed_it(graded):
    """The formula student's cell prints a line, flushes, pauses and prints another: two
    stream messages from the kernel. The graded notebook and the page hold them as one
    output (nbconvert's stream coalescing, right after the cells ran), so where the kernel
    happened to flush (timing) shows in no output.

    Switched off (without CoalesceStreams in autograde_config): two stdout outputs, two
    ``output_stdout`` blocks on the page.
    """
    (cell,) = [c for c in _autograded(graded, FORMULA).cells if "printed after" in c.source]
    streams = [(o.name, o.text) for o in cell.outputs if o.output_type == "stream"]
    assert [name for name, _ in streams] == ["stdout", "stderr"]
    assert streams[0][1].endswith(".py\nprinted after a pause\n")
    page = BeautifulSoup(_page(graded, FORMULA).read_text(encoding="utf-8"), "html.parser")
    (printed,) = [
        block
        for block in page.select(".output_stdout")
        if "printed after a pause" in block.get_text()
    ]
    assert "json/__init__.py" in printed.get_text()


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_a_message_over_the_cap_never_reaches_the_grader(graded):
    """mallory's cell sends 80 MiB in one message: the grader's kernel client refuses it
    (ZeroMQ's MAXMSGSIZE drops the connection, which is made again), so the grader never
    holds it; the cell's output is flagged lost, and her score is the solution's.

    Switched off (no MAXMSGSIZE on the client's context, only on the manager's control
    channel): the message arrives whole, its first 256 KiB are kept (the output cap's
    "[output truncated by the autograder]") and no output is flagged lost.
    """
    assert float(graded["rows"]["mallory"]["score"]) == pytest.approx(graded["full"])
    (cell,) = [c for c in _autograded(graded, "mallory").cells if c.source == FLOOD_CODE]
    assert "x" * 1000 not in json.dumps(cell.outputs)
    results = json.loads((graded["out"] / "results.json").read_text(encoding="utf-8"))
    (entry,) = [s for s in results["submissions"] if s["student"] == "mallory"]
    assert [f for f in entry["flags"] if "output lost in cell(s) #2:" in f], entry
    assert not [f for f in entry["flags"] if "output too large" in f], entry


@pytest.mark.slow
def test_grades_csv_is_safe_in_a_spreadsheet(graded):
    """No cell of grades.csv starts like a formula (numbers aside), and none is longer than
    MAX_CELL: the formula student's id is text, their flags (longer than that, all of
    them in results.json) are cut with a count.

    Switched off: without csv_cell the student id cell is ``=cmd|'calc'!A0``; without the
    bound (csv_cell's and flags_cell's) the flags cell is over 2,000 characters.
    """
    with (graded["out"] / "grades.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    cells = [cell for row in rows for cell in row]
    assert [cell[:80] for cell in cells if len(cell) > MAX_CELL] == []
    assert [cell for cell in cells if cell.startswith(_FORMULA_START) and not _number(cell)] == []
    by_id = graded["rows"]
    assert FORMULA not in by_id and "'" + FORMULA in by_id
    flags = by_id["'" + FORMULA]["flags"]
    results = json.loads((graded["out"] / "results.json").read_text(encoding="utf-8"))
    (entry,) = [s for s in results["submissions"] if s["student"] == FORMULA]
    assert len("; ".join(entry["flags"])) > MAX_CELL  # not vacuous
    assert flags.startswith(f"{len(entry['flags'])} flags (all in results.json): ")
    assert flags.endswith(" more")


@pytest.mark.slow
def test_summary_renders_as_text(graded):
    """summary.md rendered by a Markdown renderer that passes HTML through (mistune, as
    nbconvert uses it): eve's flag quotes her grade id, ``<script>`` and all, and the
    rendered summary holds no active content.

    Switched off: without the summary's escaping of flags the rendered summary holds eve's
    ``<script>``.
    """
    import mistune

    results = json.loads((graded["out"] / "results.json").read_text(encoding="utf-8"))
    (eve,) = [s for s in results["submissions"] if s["student"] == "eve"]
    assert "<script>" in " ".join(eve["flags"])  # not vacuous
    summary = (graded["out"] / "summary.md").read_text(encoding="utf-8")
    assert "grade ids not in the instructor's copy" in summary
    rendered = mistune.create_markdown(escape=False)(summary)
    assert hostile_html.active_content(rendered) == []


@pytest.mark.slow
def test_the_hostile_page_runs_nothing_in_chromium(browser, graded):
    """eve's page opened from disk in chromium: no payload ran, no dialog opened (after
    clicking the links and the form and hovering), MathJax typeset the math.

    Switched off: with the sanitiser and the policy both off, the page's scripts run.
    """
    probe = hostile_html.open_and_probe(browser, _page(graded, "eve"))
    assert probe["pwned"] == [] and probe["dialogs"] == []
    assert probe["typeset"] >= 1
