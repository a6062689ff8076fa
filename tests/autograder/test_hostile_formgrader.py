"""Hostile HTML in a submission: nbgrader's formgrader shows it inert, in a real browser.

An instructor grades written answers in nbgrader's formgrader (JupyterLab opened in the
course directory). Its submission view is rendered by the Jupyter server from the
autograded notebook, in the instructor's session: a student's script there could call the
Jupyter API with the instructor's token. The course directory's ``nbgrader_config.py``
(written by :meth:`autograder.course.Course.make`) puts the sanitiser in
(:func:`autograder.grading.formgrader_config`).

- fast: the hostile notebook rendered as the submission view renders it (the course's
  config file, nbgrader's formgrade template) has nothing that could run but what the
  template itself writes; without the course's lines it has the student's payloads;
- slow: a batch (one hostile submission with the payloads of ``test_hostile_html``, one
  honest one) is graded by the command line; JupyterLab is started on the course directory and the
  hostile submission's formgrader page is opened in chromium with the network blocked
  (every request off 127.0.0.1 aborted): no payload ran, no dialog opened, the title is
  the notebook's, the page works (its grading inputs get the scores formgrader's own
  scripts fetch from the gradebook), its math is typeset by the course's own MathJax and
  nothing was requested off the machine; its "Generate feedback" writes the very page the
  command line wrote. The same view without the course's formgrader lines runs the
  student's payloads and typesets nothing (MathJax from a CDN): the test can fail.
- slow, offline too: a notebook with a written answer (formulas in it) graded for two
  students, one who answered and one who handed the release back: the answer's formulas
  are typeset in formgrader's manual-grading view; the "Needs Manual Grade?" column of
  the submission list marks (a check mark of an icon font: no text) exactly the
  submission whose answer awaits grading; the course's JupyterLab shows no "Jupyter
  news?" toast, and does when the environment's page configuration is overridden.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path
from urllib.parse import urljoin

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_markdown_cell, new_notebook
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from autograder.course import Course
from autograder.grading.config import formgrader_config
from autograder.models import SubmissionResult
from course_common.assets import mathjax_available
from tests.autograder import test_hostile_html as hostile_html
from tests.e2e.browser import jupyterlab_server

#: The browser tests' one chromium fixture (Debian's chromium).
browser = hostile_html.browser
TOKEN = "formgrader-test-token"
#: The marker of the lines Course.make writes for the formgrader.
FORMGRADER_LINES = f"from {formgrader_config.__module__} import {formgrader_config.__qualname__}"
#: MathJax typeset the page (waiting for it to load, at most 10 s): how many formulas.
TYPESET = """async () => {
  for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
    await new Promise((done) => setTimeout(done, 50));
  }
  if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return 0;
  await MathJax.startup.promise;
  return document.querySelectorAll("mjx-container").length;
}"""


def offline_context(browser, token: str) -> tuple:
    """A browser context that sends *token* with every request and aborts every request
    leaving 127.0.0.1 (an offline machine); returns it and the list of what it aborted."""
    context = browser.new_context(extra_http_headers={"Authorization": f"token {token}"})
    blocked: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith("http://127.0.0.1:"):
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort()

    context.route("**/*", route)
    return context, blocked


def render_formgrade(
    nb: nbformat.NotebookNode,
    course_dir: Path,
    *,
    safe: bool,
    assignment: str = "a",
    notebook: str = "nb",
) -> str:
    """*nb* rendered as formgrader's submission view renders it: nbconvert's HTMLExporter
    with nbgrader's formgrade template and the course's nbgrader_config.py (or, with
    *safe* false, the same file without the formgrader lines), for the submission of
    *notebook* of *assignment* (the names formgrader's handler passes)."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension
    from traitlets.config.loader import PyFileConfigLoader

    text = (course_dir / "nbgrader_config.py").read_text()
    if not safe:
        (course_dir / "stock").mkdir(exist_ok=True)
        course_dir = course_dir / "stock"
        (course_dir / "nbgrader_config.py").write_text(text[: text.index("# nbgrader's")])
    config = FormgradeExtension().build_extra_config()  # formgrader's, then the file's
    config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config())
    resources = {"base_url": "", "submission_id": "s", "index": 0, "total": 1}
    resources |= {"notebook_id": notebook, "assignment_id": assignment, "student": "eve"}
    page, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=resources)
    return page


@pytest.mark.slow
def test_formgrade_view_keeps_only_the_templates_own_scripts(tmp_path):
    """The hostile notebook in formgrader's view: what could run is exactly what the same
    view of an empty notebook has (formgrader's own scripts and handlers)."""
    Course(tmp_path / "course").make([])
    nb = hostile_html.hostile_notebook()
    nb.cells[0].metadata["nbgrader"] = {"grade": True, "solution": True, "grade_id": "answer"}
    nb.cells[0].metadata["nbgrader"] |= {"points": 1, "schema_version": 3}
    page = render_formgrade(nb, tmp_path / "course", safe=True)
    template_only = render_formgrade(new_notebook(), tmp_path / "course", safe=True)
    assert hostile_html.active_content(page) == hostile_html.active_content(template_only)
    assert 'class="score tabbable" id="answer"' in page  # the grading input
    assert "a link" in page and r"\gamma" in page
    # without the course's lines the same view is full of the student's payloads
    stock = render_formgrade(nb, tmp_path / "course", safe=False)
    assert len(hostile_html.active_content(stock)) > len(hostile_html.active_content(page))


@pytest.mark.skipif(not mathjax_available(), reason="node_modules/mathjax not installed")
def test_formgrade_view_loads_the_courses_own_mathjax(tmp_path):
    """The view's MathJax is the course directory's copy (the one its feedback pages load),
    reached through the Jupyter server's /files/; stock formgrader's is a CDN's."""
    course_dir = tmp_path / "course"
    Course(course_dir).make([])
    nb = new_notebook(cells=[new_markdown_cell(hostile_html.MATH)])

    def mathjax_scripts(page: str) -> list[str]:
        sources = re.findall(r'<script[^>]*\bsrc="([^"]*)"', page)
        return [src for src in sources if "mathjax" in src.lower()]

    (src,) = mathjax_scripts(render_formgrade(nb, course_dir, safe=True))
    # from the view's address, {base_url}/formgrader/submissions/<id>/
    address = urljoin("http://127.0.0.1:8888/formgrader/submissions/42/", src)
    assert address == "http://127.0.0.1:8888/files/feedback/_mathjax/tex-chtml-full.js"
    assert (course_dir / "feedback" / "_mathjax" / "tex-chtml-full.js").is_file()
    (stock,) = mathjax_scripts(render_formgrade(nb, course_dir, safe=False))
    assert stock.startswith("https://")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A course with one hostile and one honest submission graded by the command line
    (the hostile one also changes the page's title)."""
    title = f"<img src=x onerror=\"document.title='pwned';{hostile_html.pwn('md-title')}\">"
    course_dir, _, assignment, _, _ = hostile_html.grade_hostile_batch(
        tmp_path_factory.mktemp("formgrader"), unsandboxed=True, extra_markdown=f"\n{title}\n"
    )
    with Course(course_dir).gradebook() as gb:
        submission_id = gb.find_submission_notebook(assignment, assignment, "eve").id
    assert FORMGRADER_LINES in (course_dir / "nbgrader_config.py").read_text()
    return {"course": course_dir, "assignment": assignment, "submission": submission_id}


def open_formgrader(
    browser,
    course_dir: Path,
    submission_id: str,
    log: Path,
    feedback_for: tuple[str, str] | None = None,
) -> dict:
    """Start JupyterLab on *course_dir*, open the submission's formgrader page, then (if
    *feedback_for* is an assignment and a student) press "Generate feedback" for them (the
    API call the button makes); what ran, which dialogs opened, the title, the grading
    inputs and the scores formgrader's scripts loaded into them, the feedback call's
    answer."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={course_dir}"]
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(log.parent / "runtime")}
    with jupyterlab_server(command, cwd=course_dir, env=env, log_path=log, token=TOKEN) as url:
        # the token on every request, formgrader's API calls included; offline
        context, blocked = offline_context(browser, TOKEN)
        ran: list[str] = []
        dialogs: list[str] = []
        context.expose_binding("__reportPwned", lambda source, value: ran.append(value))
        context.add_init_script(hostile_html._REPORT_PWNED)
        page = context.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        try:
            address = f"{url}/formgrader/submissions/{submission_id}/"
            response = page.goto(address, wait_until="load")
            assert response is not None and response.ok, response and response.status
            inputs = page.locator("input.score")
            # formgrader's own scripts fetch the grades from its API: the autograded
            # scores become the inputs' placeholders
            with contextlib.suppress(PlaywrightTimeout):  # the scores are asserted below
                page.wait_for_function(
                    "() => Array.from(document.querySelectorAll('input.score'))"
                    ".some(i => i.placeholder !== '')",
                    timeout=30_000,
                )
            typeset = page.evaluate(TYPESET)
            page.mouse.move(5, 5)
            for selector in ("#js-link", "#data-link", "#form-button"):
                if page.locator(selector).count():
                    page.locator(selector).first.click(no_wait_after=True)
                    page.wait_for_timeout(200)
                    if not page.url.startswith(f"{url}/formgrader/submissions/"):
                        page.goto(address, wait_until="load")
            page.wait_for_timeout(500)
            # formgrader's "Generate feedback" button for this submission: the API it calls
            feedback = None
            if feedback_for is not None:
                assignment, student = feedback_for
                button = context.request.post(
                    f"{url}/formgrader/api/assignment/{assignment}/{student}/generate_feedback"
                )
                feedback = button.json() if button.ok else button.status
            return {
                "feedback": feedback,
                "typeset": typeset,
                "blocked": blocked,
                "pwned": ran,
                "dialogs": dialogs,
                "title": page.title(),
                "inputs": inputs.count(),
                "scores": [
                    inputs.nth(i).get_attribute("placeholder") for i in range(inputs.count())
                ],
                "text": page.inner_text("body"),
            }
        finally:
            context.close()


@pytest.mark.slow
def test_formgrader_shows_the_hostile_submission_inert(browser, graded, tmp_path):
    course, assignment = graded["course"], graded["assignment"]
    page = course / "feedback" / "eve" / assignment / f"{assignment}.html"
    by_the_cli = page.read_text(encoding="utf-8")
    page.unlink()
    probe = open_formgrader(
        browser,
        course,
        graded["submission"],
        tmp_path / "lab.log",
        feedback_for=(assignment, "eve"),
    )
    assert probe["pwned"] == []
    assert probe["dialogs"] == []
    assert probe["title"] == assignment
    assert "a link" in probe["text"]  # the hostile markdown cell is shown, inert
    # offline: its formula typeset by the course's MathJax, nothing asked of the network
    assert probe["typeset"] >= 1 and "\\gamma" not in probe["text"]
    assert probe["blocked"] == []
    assert probe["inputs"] >= 1 and all(probe["scores"]), probe["scores"]
    # "Generate feedback" writes the page `python -m autograder grade` wrote: sanitised,
    # with its Content-Security-Policy (test_hostile_html opens that page in chromium)
    assert probe["feedback"]["success"], probe["feedback"]
    by_the_button = page.read_text(encoding="utf-8")
    assert hostile_html.active_content(by_the_button) == []
    assert 'http-equiv="Content-Security-Policy"' in by_the_button
    assert by_the_button == by_the_cli


@pytest.mark.slow
def test_without_the_course_settings_a_payload_runs(browser, graded, tmp_path):
    """The same page with the formgrader lines taken out of nbgrader_config.py: the
    student's script runs (so the test above can fail)."""
    config = graded["course"] / "nbgrader_config.py"
    text = config.read_text()
    stock = text[: text.index("# nbgrader's formgrader")]
    config.write_text(stock)
    try:
        probe = open_formgrader(
            browser, graded["course"], graded["submission"], tmp_path / "lab.log"
        )
    finally:
        config.write_text(text)
    assert probe["pwned"], "no payload ran on the unsanitised formgrader page"
    # stock formgrader's MathJax comes from a CDN: offline, nothing is typeset
    assert probe["typeset"] == 0 and probe["blocked"]


def _attachment_cell() -> nbformat.NotebookNode:
    """A markdown cell copied from another notebook: it names two attachments it lost and
    carries one."""
    text = "Lost ![lost picture](attachment:gone.png), ![spaced](<attachment:a b.png>); kept "
    cell = new_markdown_cell(text + "![kept picture](attachment:kept.png)")
    cell.attachments = {"kept.png": {"image/png": hostile_html.PNG}}
    return cell


def _images(page: str) -> dict[str, str | None]:
    soup = BeautifulSoup(page, features="html.parser")
    return {img.get("alt"): img.get("src") for img in soup.find_all("img") if img.get("alt")}


def test_an_image_naming_a_missing_attachment_does_not_break_the_pages(tmp_path):
    """nbconvert refuses the whole page for one image naming an attachment the cell lost
    (HTTP 500 in formgrader, no feedback page): both views render, the lost images show
    their alt text, the attachment the cell carries still shows."""
    Course(tmp_path / "course").make([])
    nb = new_notebook(cells=[_attachment_cell()])
    view = _images(render_formgrade(nb, tmp_path / "course", safe=True))
    feedback = _images(
        hostile_html.render_feedback(nb, tmp_path / "fb").read_text(encoding="utf-8")
    )
    for images in (view, feedback):
        assert images == {
            "lost picture": None,
            "spaced": None,
            "kept picture": f"data:image/png;base64,{hostile_html.PNG}",
        }


# --- a written answer, graded by a person in formgrader, offline ------------------------

#: The assignment with a written answer (formulas in it) that a person grades.
WRITTEN = "03_convergence_proof"
#: The written answer's grade id in it.
ANSWER_ID = "proof_step_norm_growth_answer"

# What a reader sees in the "Needs Manual Grade?" column of formgrader's submission list:
# per row, the submission's link text and whether a check mark is drawn there (an icon of
# Bootstrap's Glyphicons font: drawn when the font has loaded, it has no text).
NEEDS_MANUAL_GRADE = """async () => {
  for (let i = 0; i < 300 && !document.querySelector("tbody tr .needs-manual-grade"); i++) {
    await new Promise((done) => setTimeout(done, 100));
  }
  await document.fonts.ready;
  return Array.from(document.querySelectorAll("tbody tr")).map((row) => {
    const mark = row.querySelector(".needs-manual-grade .glyphicon-ok");
    const glyph = mark ? getComputedStyle(mark, "::before").content : "";
    return {
      name: row.querySelector("td a") ? row.querySelector("td a").textContent.trim() : "",
      marked: mark !== null && mark.getBoundingClientRect().width > 0 && glyph !== "none",
      font: document.fonts.check('14px "Glyphicons Halflings"'),
    };
  });
}"""


# The written answer in formgrader's view (the panel holding its score input): how many
# formulas MathJax typeset in it, and its text without them.
ANSWER = """(id) => {
  const panel = document.getElementById(id).closest(".nbgrader_cell");
  const body = panel.querySelector(".panel-body").cloneNode(true);
  body.querySelectorAll("mjx-container, script").forEach((node) => node.remove());
  return {math: panel.querySelectorAll("mjx-container").length, text: body.textContent};
}"""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The written-answer assignment graded by the command line for 'alice' (the
    solutions: her answer awaits a person) and 'blank' (the release handed back: nbgrader
    scores the untouched answer 0 itself)."""
    from autograder.__main__ import main
    from autograder.notebook import notebook_bytes
    from autograder.release import ensure_released
    from autograder.report import manual_pending
    from autograder.samples import make_submission
    from tests.needs import sandbox_args

    root = tmp_path_factory.mktemp("written")
    course = Course(root / "course")
    ensure_released(course, [WRITTEN])
    release_nb = course.root / "release" / WRITTEN / f"{WRITTEN}.ipynb"
    source_nb = course.root / "source" / WRITTEN / f"{WRITTEN}.ipynb"
    submissions = {
        "alice": notebook_bytes(make_submission(release_nb, source_nb)),
        "blank": release_nb.read_bytes(),
    }
    for student, content in submissions.items():
        target = root / "submitted" / student / WRITTEN / f"{WRITTEN}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_bytes(content)
    argv = ["grade", str(root / "submitted"), "--course", str(course.root)]
    argv += ["--out", str(root / "out"), "--workers", "2"]
    assert main([*argv, *sandbox_args()]) == 0
    results = [SubmissionResult(student=s, assignment=WRITTEN) for s in submissions]
    pending = {s: p.answers for (_, s), p in manual_pending(course, results).items()}
    assert pending == {"alice": 1, "blank": 0}  # the gradebook's own answer
    with course.gradebook() as gb:
        ids = {s: gb.find_submission_notebook(WRITTEN, WRITTEN, s).id for s in submissions}
    return {"course": course.root, "ids": ids, "pending": pending}


def _lab(course_dir: Path, log: Path, env: dict[str, str] | None = None):
    """The course's JupyterLab as docs/instructor/manual-grading.md starts it (in the course
    directory), with user settings of its own (nothing answered yet)."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={course_dir}"]
    settings = log.parent / "lab-settings"
    settings.mkdir(parents=True, exist_ok=True)
    environ = {
        **os.environ,
        "JUPYTER_RUNTIME_DIR": str(log.parent / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        **(env or {}),
    }
    return jupyterlab_server(command, cwd=course_dir, env=environ, log_path=log, token=TOKEN)


def _news_toast(page, url: str) -> int:
    """Open JupyterLab and count the "Jupyter news?" toasts shown once it is ready."""
    page.goto(f"{url}/lab", wait_until="load")
    page.locator(".jp-LabShell").wait_for(timeout=120_000)
    page.wait_for_timeout(8_000)  # the question comes once the application has started
    return page.get_by_text("official Jupyter news").count()


@pytest.mark.slow
def test_formgrader_offline_typesets_a_written_answer_and_marks_it(browser, written, tmp_path):
    with _lab(written["course"], tmp_path / "lab.log") as url:
        context, blocked = offline_context(browser, TOKEN)
        page = context.new_page()
        try:
            # the manual-grading view of alice's submission: her answer's formulas typeset
            page.goto(f"{url}/formgrader/submissions/{written['ids']['alice']}/", wait_until="load")
            assert page.evaluate(TYPESET) >= 3
            answer = page.evaluate(ANSWER, ANSWER_ID)
            assert answer["math"] >= 3, answer
            assert "$" not in answer["text"] and "\\lVert" not in answer["text"]
            # the submission list: the check mark where an answer awaits grading, only there
            page.goto(f"{url}/formgrader/gradebook/{WRITTEN}/{WRITTEN}", wait_until="load")
            rows = page.evaluate(NEEDS_MANUAL_GRADE)
            assert len(rows) == 2 and all(row["font"] for row in rows), rows
            assert sum(row["marked"] for row in rows) == sum(
                1 for n in written["pending"].values() if n
            )
            # the course's JupyterLab: no "Jupyter news?" toast
            assert _news_toast(page, url) == 0
            assert blocked == []
        finally:
            context.close()


@pytest.mark.slow
def test_the_news_toast_comes_without_the_environments_page_config(browser, written, tmp_path):
    """The course's JupyterLab with the environment's page configuration overridden by a
    user-level one that turns the announcements back on: the toast comes (the test above
    can fail)."""
    config_dir = tmp_path / "jupyter-config"
    (config_dir / "labconfig").mkdir(parents=True)
    (config_dir / "labconfig" / "page_config.json").write_text(
        '{"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": false}}'
    )
    env = {"JUPYTER_CONFIG_DIR": str(config_dir), "JUPYTER_PREFER_ENV_PATH": "0"}
    with _lab(written["course"], tmp_path / "lab.log", env) as url:
        context, _ = offline_context(browser, TOKEN)
        try:
            assert _news_toast(context.new_page(), url) >= 1
        finally:
            context.close()
