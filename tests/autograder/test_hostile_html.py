"""Hostile HTML in a submission: the feedback page carries none of it, in a real browser.

A student's notebook can carry active content in its markdown (script tags, event
handlers, ``javascript:`` links, SVG, frames, plugins, forms, ``<base>``, ``<meta>``
refresh, attachments that are HTML) and in its outputs (HTML, SVG, JavaScript, widget
views, images whose data or metadata break out of the ``<img>`` tag). Every payload here,
if it ran, would append its name to ``window.__pwned`` or open a dialog.

- fast: a hostile notebook rendered by the feedback exporter
  (:func:`autograder.grading.feedback_config`) is checked with an HTML parser: no script but
  the template's own, no event handler, no ``javascript:`` or ``data:text/html`` URL, none
  of the active tags; a Content-Security-Policy in ``<head>``;
- slow: the same page opened in chromium: no payload ran, no dialog, MathJax typeset the
  math, the PNG plot shows; a page of math alone, opened from disk, is typeset offline and
  requests nothing but files.

:func:`grade_hostile_batch` grades the hostile submission next to an honest one through
the command line; ``test_defences`` (every page it writes, parsed and in chromium) and
``test_hostile_formgrader`` (formgrader on that course) use it.
"""

from __future__ import annotations

import base64
import csv
import io
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from autograder.course import Course
from autograder.models import SubmissionResult
from autograder.report import copy_feedback
from tests.e2e import test_lecture_site as lecture_site

#: The browser tests' one chromium fixture (Debian's chromium, the lecture's MathJax).
browser = lecture_site.browser


def pwn(name: str) -> str:
    """JavaScript that records that payload *name* ran."""
    return f"window.__pwned=(window.__pwned||'')+'{name};'"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


MATH = r"The margin is $\gamma = 1/\lVert w \rVert$."

MARKDOWN_PAYLOADS = f"""{MATH}

<script>{pwn("md-script")}</script>
<img src="x" onerror="{pwn("md-onerror")}">
<a id="js-link" href="javascript:{pwn("md-href")}">a link</a>
<a id="data-link" href="data:text/html;base64,{_b64("<script>alert(1)</script>")}">data</a>
<svg onload="{pwn("md-svg")}"><script>{pwn("md-svg-script")}</script></svg>
<iframe srcdoc="<script>parent.{pwn("md-iframe")}</script>"></iframe>
<object data="data:text/html;base64,{_b64("<script>alert(2)</script>")}"></object>
<embed src="data:text/html;base64,{_b64("<script>alert(3)</script>")}">
<form action="javascript:{pwn("md-form")}"><button id="form-button">go</button></form>
<base href="javascript:{pwn("md-base")}//">
<meta http-equiv="refresh" content="0;url=javascript:{pwn("md-meta")}">
<details open ontoggle="{pwn("md-ontoggle")}"><summary>more</summary>text</details>
<div style="background:url(javascript:{pwn("md-style")})"
     onmouseover="{pwn("md-hover")}">hover</div>

![attached](attachment:evil.html)
"""

# A 1x1 PNG (a plot stand-in).
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5"
    "ErkJggg=="
)

#: What a student's code can display (MIME bundle, output metadata), each hostile: every
#: output kind nbconvert renders, and metadata the template writes into a tag.
DISPLAYS: list[tuple[dict, dict]] = [
    (
        {
            "text/html": f"<script>{pwn('out-script')}</script>"
            f'<img src=x onerror="{pwn("out-onerror")}">'
            f'<a id="out-js-link" href="javascript:{pwn("out-href")}">an output link</a>'
            f'<embed src="data:text/html;base64,{_b64("<script>alert(4)</script>")}">'
            f'<iframe srcdoc="<script>parent.{pwn("out-iframe")}</script>"></iframe>',
            "text/plain": "<HTML>",
        },
        {},
    ),
    ({"application/javascript": pwn("out-js"), "text/plain": "<Javascript>"}, {}),
    (
        {
            "image/svg+xml": f'<svg xmlns="http://www.w3.org/2000/svg" '
            f'onload="{pwn("out-svg")}"><script>{pwn("out-svg-script")}</script>'
            '<circle r="4"/></svg>'
        },
        {},
    ),
    ({"text/markdown": f'<img src=x onerror="{pwn("out-md")}">'}, {}),
    ({"text/latex": f"$x$ </div><script>{pwn('out-latex')}</script>"}, {}),
    (
        {
            "application/vnd.jupyter.widget-view+json": {
                "model_id": "x",
                "version_major": 2,
                "version_minor": 0,
            },
            "text/plain": "a widget",
        },
        {},
    ),
    ({"text/vnd.mermaid": f"graph TD; A[<img src=x onerror={pwn('out-mermaid')}>]"}, {}),
    (
        {"text/html": f"<p>isolated</p><script>{pwn('out-isolated')}</script>"},
        {"text/html": {"isolated": True}},
    ),
    ({"image/png": f'AAAA" onerror="{pwn("out-png")}', "text/plain": "png"}, {}),
    (
        {"image/png": PNG, "text/plain": "<Figure>"},
        {
            "image/png": {
                "width": f"1 onerror={pwn('out-width')}",
                "alt": f'x" onerror="{pwn("out-alt")}',
            },
            "filenames": {"image/png": f'x" onerror="{pwn("out-filename")}'},
        },
    ),
]
#: What a student's object shows as a cell's result (an ``execute_result``).
REPR_HTML = f'<b>result</b><img src=x onerror="{pwn("out-repr")}">'

# Code a student could run: it displays DISPLAYS and ends with an object whose HTML is
# hostile (so the cell's outputs are hostile_outputs()).
HOSTILE_CODE = f"""
from IPython.display import display
for data, metadata in {DISPLAYS!r}:
    display(data, metadata=metadata, raw=True)
class Result:
    def __repr__(self):
        return "<Result>"
    def _repr_html_(self):
        return {REPR_HTML!r}
Result()
""".strip()


def hostile_outputs() -> list:
    """The outputs HOSTILE_CODE produces, as a kernel stores them."""
    outputs = []
    for data, metadata in DISPLAYS:
        outputs.append(new_output("display_data", data=data, metadata=metadata))
    outputs.append(
        new_output(
            "execute_result",
            data={"text/html": REPR_HTML, "text/plain": "<Result>"},
            execution_count=1,
        )
    )
    return outputs


def hostile_cells(extra_markdown: str = "") -> list[nbformat.NotebookNode]:
    """Cells a student adds to a notebook: the markdown payloads (and *extra_markdown*) with
    an attachment that is HTML, HOSTILE_CODE (not run), a raw HTML cell, and a markdown
    cell marked as a graded answer under a grade id that breaks out of the attributes
    nbgrader's templates write it into; every one tagged with a tag that tries the same."""
    markdown = new_markdown_cell(MARKDOWN_PAYLOADS + extra_markdown)
    markdown.attachments = {"evil.html": {"text/html": _b64(f"<script>{pwn('attach')}</script>")}}
    raw = new_raw_cell(f"<script>{pwn('raw')}</script>", metadata={"raw_mimetype": "text/html"})
    graded = new_markdown_cell("an answer")
    graded.metadata["nbgrader"] = {
        "grade": True,
        "solution": True,
        "locked": False,
        "points": 1,
        "schema_version": 3,
        "grade_id": f'x"><script>{pwn("grade-id")}</script>',
    }
    cells = [markdown, new_code_cell(HOSTILE_CODE), raw, graded]
    for cell in cells:
        cell.metadata["tags"] = [f'x"><script>{pwn("tag")}</script>']
    return cells


def add_hostile_metadata(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """*nb* with a title and widget state that try to close their tags."""
    nb.metadata["title"] = f"</title><script>{pwn('title')}</script>"
    state = {"x": f"</script><script>{pwn('widget-state')}</script>"}
    nb.metadata["widgets"] = {
        "application/vnd.jupyter.widget-state+json": {
            "state": state,
            "version_major": 2,
            "version_minor": 0,
        }
    }
    return nb


def hostile_notebook() -> nbformat.NotebookNode:
    """hostile_cells(), the code cell with the outputs HOSTILE_CODE produces, in a notebook
    with hostile metadata."""
    cells = hostile_cells()
    cells[1].execution_count = 1
    cells[1].outputs = hostile_outputs()
    cells[3].metadata.nbgrader["score"] = 0.0  # as GetGrades puts it in from the gradebook
    return add_hostile_metadata(new_notebook(cells=cells))


ACTIVE_TAGS = ("script", "iframe", "object", "embed", "form", "base", "svg", "frame", "style")


def active_content(page: str) -> list[str]:
    """What of *page* could run or load active content, besides the template's own MathJax
    (its inline configuration and the script it loads) and the page's own styles."""
    soup = BeautifulSoup(page, features="html.parser")
    found = []
    scripts = soup.find_all("script")
    own = [s for s in scripts if s.get("src", "").endswith("tex-chtml-full.js")]
    config = [s for s in scripts if not s.get("src") and "window.MathJax = {" in (s.string or "")]
    for script in scripts:
        if script not in own and script not in config:
            found.append(f"script: {str(script)[:80]}")
    body = soup.body or soup
    for tag in body.find_all(ACTIVE_TAGS):
        found.append(f"tag: {str(tag)[:80]}")
    for meta in soup.find_all("meta"):
        if meta.get("http-equiv", "").lower() not in ("", "content-security-policy"):
            found.append(f"meta: {meta}")
    for tag in soup.find_all(True):
        for name, value in tag.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            if name.lower().startswith("on"):
                found.append(f"handler: {name}={text[:60]}")
            lowered = "".join(text.split()).lower()
            if "javascript:" in lowered or lowered.startswith("data:text/html"):
                found.append(f"url: {name}={text[:60]}")
    return found


def render_feedback(nb: nbformat.NotebookNode, tmp_path: Path) -> Path:
    """*nb* rendered as the grader renders feedback (GenerateFeedback's exporter, its
    preprocessors registered the way nbgrader registers them: one that is off stays off;
    ``GetGrades``, which needs a gradebook, left out), copied as copy_feedback ships it."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import GetGrades

    from autograder.grading import feedback_config

    config = feedback_config(Course(tmp_path / "course"))
    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = app.exporter_class(parent=app, config=app.config)
    for preprocessor in app.preprocessors:  # as nbgrader's BaseConverter.start does
        if preprocessor is not GetGrades:
            exporter.register_preprocessor(preprocessor)
    resources = {"nbgrader": {"notebook": "01_hyperplanes", "score": 0, "max_score": 1}}
    resources["nbgrader"]["late_penalty"] = 0
    resources["config_dir"] = str(tmp_path)  # CSSHTMLHeaderPreprocessor's custom CSS
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    page = tmp_path / "course" / "feedback" / "eve" / "01_hyperplanes" / "01_hyperplanes.html"
    page.parent.mkdir(parents=True)
    page.write_text(body, encoding="utf-8")
    out = tmp_path / "out"
    copy_feedback(
        Course(tmp_path / "course"),
        [SubmissionResult(student="eve", assignment="01_hyperplanes")],
        out,
    )
    return out / "feedback" / "eve" / "01_hyperplanes" / "01_hyperplanes.html"


def test_rendered_feedback_has_no_active_content(tmp_path):
    page = render_feedback(hostile_notebook(), tmp_path).read_text(encoding="utf-8")
    assert active_content(page) == []
    soup = BeautifulSoup(page, features="html.parser")
    csp = soup.head.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
    policy = csp["content"]
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    for directive in ("object-src 'none'", "base-uri 'none'", "form-action 'none'"):
        assert directive in policy
    # what is not active stays: the text, the math source, the plot as a data: image
    assert "a link" in page and "hover" in page and r"\gamma" in page
    assert f"data:image/png;base64,{PNG}" in page


def test_the_detector_finds_what_it_looks_for():
    """active_content is not blind: it reports each payload of an unsanitised page."""
    page = (
        "<html><head><script>x</script><meta http-equiv='refresh' content='0'></head><body>"
        + MARKDOWN_PAYLOADS
        + "</body></html>"
    )
    found = " ".join(active_content(page))
    for needle in (
        "script:",
        "tag: <iframe",
        "tag: <object",
        "tag: <embed",
        "tag: <form",
        "tag: <base",
        "tag: <svg",
        "meta:",
        "handler: onerror",
        "url: href",
    ):
        assert needle in found


# --- in a real browser --------------------------------------------------------------------


# Every write to window.__pwned (in the page or any frame, before or after a navigation) is
# reported to the test; Playwright's init scripts run whatever the page's policy.
_REPORT_PWNED = """Object.defineProperty(window, "__pwned", {
  get() { return ""; },
  set(value) { window.__reportPwned(String(value)); },
});"""


def open_and_probe(browser, page_path: Path) -> dict:
    """Open *page_path* from disk, wait for MathJax, then click the links and the form and
    hover; what ran, which dialogs opened, how much math was typeset, the PNGs' widths."""
    context = browser.new_context()
    ran: list[str] = []
    dialogs: list[str] = []
    context.expose_binding("__reportPwned", lambda source, value: ran.append(value))
    context.add_init_script(_REPORT_PWNED)
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        page.goto(page_path.as_uri(), wait_until="load")
        typeset = page.evaluate(lecture_site.MATHJAX_DONE)
        images = page.evaluate(
            "Array.from(document.images).filter(i => i.src.startsWith('data:image/png'))"
            ".map(i => i.naturalWidth)"
        )
        page.mouse.move(5, 5)
        for selector in ("#js-link", "#data-link", "#form-button"):
            if page.locator(selector).count():
                page.locator(selector).first.click(no_wait_after=True)
                page.wait_for_timeout(200)
                if page.url != page_path.as_uri():
                    page.goto(page_path.as_uri(), wait_until="load")
        page.wait_for_timeout(300)
        return {"pwned": ran, "dialogs": dialogs, "typeset": typeset, "images": images}
    finally:
        context.close()


@pytest.mark.slow
def test_feedback_page_runs_no_student_script_in_chromium(browser, tmp_path):
    probe = open_and_probe(browser, render_feedback(hostile_notebook(), tmp_path))
    assert probe["pwned"] == []
    assert probe["dialogs"] == []
    assert probe["typeset"] >= 1, "MathJax did not typeset the page's math"
    assert probe["images"] and all(width > 0 for width in probe["images"]), "plot not shown"


@pytest.mark.slow
def test_feedback_page_typesets_offline(browser, tmp_path):
    """A feedback page as the autograder writes it, opened from disk (file://): its math
    typeset by the MathJax shipped beside it, nothing but files requested."""
    shipped = render_feedback(new_notebook(cells=[new_markdown_cell(MATH)]), tmp_path)
    visit = lecture_site.Visit(browser, shipped.as_uri())
    try:
        typeset = visit.page.evaluate(lecture_site.MATHJAX_DONE)
        assert typeset >= 1
        assert [url for url in visit.requests if not url.startswith("file://")] == []
        assert "$" not in visit.page.evaluate(lecture_site.PROSE_TEXT)
    finally:
        visit.close()


@pytest.mark.slow
def test_csp_alone_stops_an_inline_script_in_chromium(browser, tmp_path):
    """The last line of defence on its own: a script and a handler that got past the
    sanitiser (put into the written page by hand) do not run, MathJax still does."""
    page = render_feedback(new_notebook(cells=[new_markdown_cell(MATH)]), tmp_path)
    text = page.read_text(encoding="utf-8")
    injected = f'<script>{pwn("late")}</script><img src=x onerror="{pwn("late-img")}">'
    page.write_text(text.replace("</body>", injected + "</body>"), encoding="utf-8")
    probe = open_and_probe(browser, page)
    assert probe["pwned"] == []
    assert probe["typeset"] >= 1


# --- a graded batch -----------------------------------------------------------------------


def grade_hostile_batch(
    tmp_path: Path,
    *,
    unsandboxed: bool | None = None,
    extra_markdown: str = "",
    more_students: Callable[[Path, Path, nbformat.NotebookNode], None] | None = None,
) -> tuple[Path, Path, str, dict[str, dict[str, str]], float]:
    """Grade one hostile submission ("eve": hostile_cells() with *extra_markdown* put into
    an honest answer, with hostile metadata) and one honest one with the command line, with
    feedback (sandboxed where the sandbox works, unless *unsandboxed* says); the honest row
    is checked full, and eve's graded notebook checked to hold every output of
    HOSTILE_CODE (what the feedback must not show). *more_students*, if given, writes more
    submissions into the class folder first (called with the folder, the release notebook
    and the source notebook). Returns the course folder, the output folder, the
    assignment, the rows of grades.csv by student, and the assignment's full points."""
    from autograder.__main__ import main
    from autograder.course import list_assignments
    from autograder.notebook import notebook_bytes
    from autograder.release import ensure_released
    from autograder.samples import make_submission
    from tests.needs import sandbox_args

    assignment = list_assignments()[0]
    course_dir = tmp_path / "course"
    ensure_released(Course(course_dir), [assignment])
    release_nb = course_dir / "release" / assignment / f"{assignment}.ipynb"
    source_nb = nbformat.read(
        course_dir / "source" / assignment / f"{assignment}.ipynb", as_version=4
    )
    honest = make_submission(release_nb, source_nb)
    hostile = add_hostile_metadata(make_submission(release_nb, source_nb))
    hostile.cells[1:1] = hostile_cells(extra_markdown)
    folder = tmp_path / "submitted"
    for student, nb in (("honest", honest), ("eve", hostile)):
        target = folder / student / assignment / f"{assignment}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_bytes(notebook_bytes(nb))
    if more_students is not None:
        more_students(folder, release_nb, source_nb)
    out = tmp_path / "out"
    sandbox = sandbox_args() if unsandboxed is None else ["--unsandboxed"] if unsandboxed else []
    argv = ["grade", str(folder), "--course", str(course_dir), "--out", str(out), "--workers", "2"]
    assert main([*argv, *sandbox]) == 0

    full = sum(
        float(c.metadata["nbgrader"]["points"])
        for c in source_nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
    )
    rows = {
        r["student_id"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))
    }
    assert float(rows["honest"]["score"]) == pytest.approx(full)
    assert rows["honest"]["flags"] == ""
    graded = nbformat.read(
        Course(course_dir).autograded_dir("eve", assignment) / f"{assignment}.ipynb", 4
    )
    (code,) = [c for c in graded.cells if c.cell_type == "code" and c.source == HOSTILE_CODE]
    assert [o.get("data") for o in code.outputs] == [o.get("data") for o in hostile_outputs()]
    return course_dir, out, assignment, rows, full
