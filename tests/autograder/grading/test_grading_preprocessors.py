"""autograder.grading.preprocessors.ShowRubric: the grader's rubric of a written answer
beside the student's answer in formgrader's submission view, and nowhere a student looks.

- fast: a submission of a notebook with a written answer rendered as formgrader's view
  renders it (nbconvert's HTMLExporter, nbgrader's formgrade template, the course's
  ``nbgrader_config.py``): the rubric of the course's source notebook is there once, right
  under the answer, its table rendered, sanitised like the rest of the view; without a
  source notebook the view still renders. The feedback pages (the command line's and
  formgrader's "Generate feedback", built from the same configuration file) have none of
  it, with nbgrader's own converter resources naming the notebook.
- slow: the submission graded by the command line, JupyterLab started on the course
  directory and the submission's formgrader page opened in chromium: the rubric shows
  beside the answer; the feedback pages written by the command line and by the page's
  "Generate feedback" do not show it.

The release never carries a rubric: ``tests/autograder/release/test_release_zips.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from autograder.course import Course
from autograder.grading.preprocessors import RUBRIC_LABEL
from autograder.notebook import notebook_bytes, rubrics
from autograder.release import ensure_released
from autograder.samples import make_submission
from course_common.rubric import is_written_answer
from tests.autograder import test_hostile_formgrader as formgrader
from tests.autograder import test_hostile_html as hostile_html

pytestmark = pytest.mark.slow  # a released course and its pages: seconds a test

#: A notebook of the course with a written answer (and its rubric).
ASSIGNMENT = "05_xor_separability"
ANSWER = "xor_convexity_answer"
#: Words of every rubric of the course, never of a student's page.
RUBRIC_WORDS = "Typical partial answers"

browser = formgrader.browser


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, nbformat.NotebookNode]:
    """A course with the assignment released, and a submission of it (the model answers,
    as a student would hand them in: without the rubric)."""
    course_dir = tmp_path_factory.mktemp("rubric") / "course"
    ensure_released(Course(course_dir), [ASSIGNMENT], zips=False)
    release = course_dir / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source = course_dir / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert ANSWER in rubrics(nbformat.read(source, as_version=4))
    return course_dir, make_submission(release, source)


def _view(nb: nbformat.NotebookNode, course_dir: Path) -> str:
    return formgrader.render_formgrade(
        nb, course_dir, safe=True, assignment=ASSIGNMENT, notebook=ASSIGNMENT
    )


def _source_rubric(course_dir: Path) -> str:
    source = course_dir / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    return rubrics(nbformat.read(source, as_version=4))[ANSWER]


def test_formgrader_view_shows_the_rubric_under_the_answer(released):
    course_dir, submission = released
    (answer,) = [c for c in submission.cells if is_written_answer(c)]
    assert RUBRIC_WORDS not in answer.source  # the student's answer carries none
    soup = BeautifulSoup(_view(submission, course_dir), features="html.parser")
    boxes = soup.find_all("div", class_="autograder-rubric")
    assert len(boxes) == 1
    box = boxes[0]
    assert RUBRIC_LABEL in box.get_text() and ANSWER in box.get_text()
    assert RUBRIC_WORDS in box.get_text()
    table = [
        line
        for line in _source_rubric(course_dir).splitlines()
        if line.startswith("|") and not set(line) <= set("|-: ")
    ]
    assert len(box.find("table").find_all("tr")) == len(table)  # the header and each element
    # beside the answer: after the student's words, before the next cell of the notebook
    text = soup.get_text()
    first_words = " ".join(answer.source.split()[:2])
    assert text.index(first_words) < text.index(RUBRIC_LABEL) < text.index("An exact test")


def test_the_view_sanitises_the_rubric(released, tmp_path):
    """The rubric goes through the view's cleaning like the student's cells: a script in a
    source notebook's rubric does not run in the grader's session."""
    course_dir, submission = released
    copy = tmp_path / "course"
    shutil.copytree(course_dir, copy)
    source = copy / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(source, as_version=4)
    (cell,) = [c for c in nb.cells if is_written_answer(c)]
    cell.source += f"\n\n<script>{hostile_html.pwn('rubric')}</script>"
    cell.source += f'\n<img src="x" onerror="{hostile_html.pwn("rubric-img")}">'
    source.write_bytes(notebook_bytes(nb))
    page = _view(submission, copy)
    assert RUBRIC_WORDS in page
    template_only = formgrader.render_formgrade(
        nbformat.v4.new_notebook(), copy, safe=True, assignment=ASSIGNMENT, notebook=ASSIGNMENT
    )
    assert hostile_html.active_content(page) == hostile_html.active_content(template_only)


def test_without_its_source_notebook_the_view_renders_without_rubric(released, tmp_path):
    course_dir, submission = released
    copy = tmp_path / "course"
    shutil.copytree(course_dir, copy)
    shutil.rmtree(copy / "source" / ASSIGNMENT)
    page = _view(submission, copy)
    assert 'class="score tabbable"' in page  # the grading inputs are there
    assert RUBRIC_LABEL not in page and RUBRIC_WORDS not in page


def _feedback_page(config, nb: nbformat.NotebookNode, config_dir: Path) -> str:
    """*nb* rendered by GenerateFeedback's exporter under *config*, with the resources
    nbgrader's converters pass (they name the assignment and the notebook)."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import GetGrades

    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = app.exporter_class(parent=app, config=app.config)
    resources = {
        "nbgrader": {
            "assignment": ASSIGNMENT,
            "notebook": ASSIGNMENT,
            "student": "eve",
            "score": 0,
            "max_score": 1,
            "late_penalty": 0,
        },
        "config_dir": str(config_dir),
    }
    for cell in nb.cells:  # what GetGrades reads from the gradebook
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("grade"):
            grading["score"] = 0.0
        if grading.get("solution"):
            cell.metadata["nbgrader"]["comment"] = None
    for cls in app.preprocessors:  # those that need no gradebook
        if cls is not GetGrades:
            nb, resources = cls(parent=app, config=app.config).preprocess(nb, resources)
    page, _ = exporter.from_notebook_node(nb, resources=resources)
    return page


def test_feedback_pages_never_show_the_rubric(released):
    """Neither the command line's feedback nor formgrader's "Generate feedback" (the
    course's nbgrader_config.py, loaded as formgrader loads it) puts the rubric in a
    student's page, although its exporter is an HTMLExporter like the view's."""
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.grading import feedback_config

    course_dir, submission = released
    by_the_button = FormgradeExtension().build_extra_config()
    by_the_button.merge(
        PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config()
    )
    # what nbgrader's API sets for the button (NbGraderAPI.generate_feedback)
    by_the_button.merge(Config({"HTMLExporter": {"template_name": "feedback"}}))
    for config in (feedback_config(Course(course_dir)), by_the_button):
        page = _feedback_page(config, nbformat.from_dict(submission), course_dir)
        assert RUBRIC_LABEL not in page and RUBRIC_WORDS not in page
        assert "element of a full answer" not in page
        assert "An exact test" in page  # the page itself is there


# --------------------------------------------------------------------------- in chromium


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """The assignment's model answers graded by the command line, with feedback."""
    from autograder.__main__ import main

    root = tmp_path_factory.mktemp("rubric_graded")
    course_dir = root / "course"
    ensure_released(Course(course_dir), [ASSIGNMENT], zips=False)
    release = course_dir / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source = course_dir / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    target = root / "submitted" / "ann" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    target.parent.mkdir(parents=True)
    target.write_bytes(notebook_bytes(make_submission(release, source)))
    argv = ["grade", str(root / "submitted"), "--course", str(course_dir), "--out"]
    assert main([*argv, str(root / "out"), "--workers", "1", "--unsandboxed"]) == 0
    with Course(course_dir).gradebook() as gb:
        submission_id = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "ann").id
    return {"course": course_dir, "out": root / "out", "submission": submission_id}


@pytest.mark.slow
def test_formgrader_shows_the_rubric_and_feedback_does_not(browser, graded, tmp_path):
    course = graded["course"]
    feedback = course / "feedback" / "ann" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    by_the_cli = graded["out"] / "feedback" / "ann" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert RUBRIC_WORDS not in by_the_cli.read_text(encoding="utf-8")
    feedback.unlink()
    probe = formgrader.open_formgrader(
        browser, course, graded["submission"], tmp_path / "lab.log", (ASSIGNMENT, "ann")
    )
    text = probe["text"]
    assert text.count(RUBRIC_LABEL) == 1 and RUBRIC_WORDS in text
    assert text.index("Suppose") < text.index(RUBRIC_LABEL) < text.index("An exact test")
    assert probe["pwned"] == [] and probe["dialogs"] == []
    assert probe["feedback"]["success"], probe["feedback"]
    by_the_button = feedback.read_text(encoding="utf-8")
    assert RUBRIC_LABEL not in by_the_button and RUBRIC_WORDS not in by_the_button
