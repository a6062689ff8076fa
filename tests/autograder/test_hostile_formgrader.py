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
  hostile submission's formgrader page is opened in chromium: no payload ran, no dialog
  opened, the title is the notebook's, and the page works (its grading inputs get the
  scores formgrader's own scripts fetch from the gradebook); its "Generate feedback" writes
  the very page the command line wrote. The same view without the course's formgrader
  lines runs the student's payloads (the test can fail).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_markdown_cell, new_notebook
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from autograder.course import Course
from tests.autograder import test_hostile_html as hostile_html
from tests.e2e.browser import jupyterlab_server

#: The browser tests' one chromium fixture (Debian's chromium).
browser = hostile_html.browser
TOKEN = "formgrader-test-token"
#: The marker of the lines Course.make writes for the formgrader.
FORMGRADER_LINES = "from autograder.grading import formgrader_config"


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
        # the token on every request, formgrader's API calls included
        context = browser.new_context(extra_http_headers={"Authorization": f"token {TOKEN}"})
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
