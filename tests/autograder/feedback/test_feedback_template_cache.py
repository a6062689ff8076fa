"""The feedback pages' compiled templates, kept for a worker's life
(:mod:`autograder.feedback.template_cache`): the same pages, byte for byte, for less.

- Through ``python -m autograder grade``: one worker grades several students' submissions
  of one assignment (the cache warm from the second page on); each student's page is the
  page a fresh exporter without the cache writes for that student's graded notebook, and
  the students' pages differ from each other (their notebooks do). A cache keyed wrongly
  fails it: code kept under one key for every template (every template rendered with
  the first one's code), or a page kept per assignment and notebook (a student gets
  another's page).
- The cache itself: a second exporter compiles nothing and writes the same page; an
  environment whose compiler settings differ (the syntax, a filter that takes the
  context) gets its own code; a template whose source changed is compiled again.
- Highlighted code cells kept (:class:`~autograder.feedback.template_cache.RememberedHighlight`):
  the same source in another language, with another cell magic or other formatter
  options gets its own HTML, that of nbconvert's ``Highlight2HTML``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jinja2
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from pygments.styles import get_style_by_name

from autograder import phases
from autograder.course import Course, list_assignments
from autograder.feedback.template_cache import COMPILED_TEMPLATES, CompiledTemplates
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import VARIANTS, make_submission

ASSIGNMENTS = list_assignments()


def _exporter(course: Course, *, reuse: bool):
    """GenerateFeedback's exporter as nbgrader builds it for a submission, its
    preprocessors registered as nbgrader registers them (``GetGrades``, which needs a
    gradebook, left out)."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import GetGrades

    from autograder.grading import feedback_config

    config = feedback_config(course)
    config.SafeHTMLExporter.reuse_compiled_templates = reuse
    config.SafeHTMLExporter.reuse_highlighted_cells = reuse
    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = app.exporter_class(parent=app, config=app.config)
    for preprocessor in app.preprocessors:
        if preprocessor is not GetGrades:
            exporter.register_preprocessor(preprocessor)
    return exporter


def _notebook(answer: str) -> nbformat.NotebookNode:
    code = new_code_cell(f"def margin(w):\n    return {answer}\nmargin(2)", execution_count=1)
    code.outputs = [new_output("execute_result", data={"text/plain": answer}, execution_count=1)]
    nb = new_notebook(cells=[new_markdown_cell("# The margin\n\n$m = 2/\\|w\\|$"), code])
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    for number, cell in enumerate(nb.cells):  # not nbformat's random ids: pages to compare
        cell.id = f"cell-{number}"
    return nb


def _page(exporter, nb: nbformat.NotebookNode) -> str:
    resources = {"nbgrader": {"notebook": "n", "score": 1, "max_score": 2, "late_penalty": 0}}
    page, _ = exporter.from_notebook_node(nb, resources=resources)
    return page


@pytest.mark.slow
def test_a_second_exporter_compiles_nothing_and_writes_the_same_page(tmp_path, monkeypatch):
    course = Course(tmp_path / "course")
    COMPILED_TEMPLATES.clear()
    compiled = []
    compile_template = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, *args, **kwargs):
        compiled.append(name)
        return compile_template(self, source, name, filename, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    first = _page(_exporter(course, reuse=True), _notebook("2 / abs(w)"))
    assert compiled and len(COMPILED_TEMPLATES) == len(compiled)
    compiled.clear()
    second = _page(_exporter(course, reuse=True), _notebook("1 / w"))
    assert compiled == []  # every template's code came from the cache
    assert first == _page(_exporter(course, reuse=False), _notebook("2 / abs(w)"))
    assert second == _page(_exporter(course, reuse=False), _notebook("1 / w"))
    assert compiled  # without the cache the exporter compiles its templates again
    assert "1 / w" in second and "1 / w" not in first


def _shout(value):
    return str(value).upper()


@jinja2.pass_context
def _shout_with_context(context, value):
    return f"{context.get('who')}:{value}"


TEMPLATE = "{% if x %}\n  <{{ y | shout }}>\n{% endif %}\n"


@pytest.mark.parametrize(
    ("settings", "shout"),
    [
        ({}, _shout),
        ({"trim_blocks": True, "lstrip_blocks": True}, _shout),
        ({"variable_start_string": "[[", "variable_end_string": "]]"}, _shout),
        ({}, _shout_with_context),
    ],
)
def test_an_environment_with_other_compiler_settings_gets_its_own_code(settings, shout):
    """All four environments load the same template (name, source) through one cache,
    the plain one first: each renders what it renders without a cache."""
    cache = CompiledTemplates()

    def render(settings: dict, shout, bytecode_cache) -> str:
        env = jinja2.Environment(
            loader=jinja2.DictLoader({"t": TEMPLATE}), bytecode_cache=bytecode_cache, **settings
        )
        env.filters["shout"] = shout
        return env.get_template("t").render(x=True, y="ok", who="ann")

    render({}, _shout, cache)  # the plain environment's code is in the cache first
    assert render(settings, shout, cache) == render(settings, shout, None)


def test_a_changed_template_is_compiled_again(tmp_path):
    cache = CompiledTemplates()
    (tmp_path / "t.j2").write_text("one {{ x }}")

    def render() -> str:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(tmp_path), bytecode_cache=cache)
        return env.get_template("t.j2").render(x=1)

    assert render() == "one 1"
    (tmp_path / "t.j2").write_text("two {{ x }}")
    assert render() == "two 1"


def _highlight(language: str | None = None, **options):
    from nbconvert.filters.highlight import Highlight2HTML

    return Highlight2HTML(pygments_lexer=language, extra_formatter_options=options)


#: The same source as different languages, cell magics and formatter options highlight it.
CELLS = [
    ("ipython3", {}, {}),
    ("ipython3", {}, {"magics_language": "bash"}),
    ("ipython3", {}, {"magics_language": "html"}),
    ("javascript", {}, {}),
    ("ipython3", {"linenos": "inline"}, {}),
    # an option that is not plain data (a style class): not kept, highlighted every time
    ("ipython3", {"noclasses": True, "style": get_style_by_name("monokai")}, {}),
]


def test_a_highlighted_cell_is_the_html_of_its_source_language_and_options():
    from autograder.feedback.template_cache import RememberedHighlight

    source = "%%bash\nx = [i for i in range(3)]  # <b>\necho $x | grep -c '<'"
    fresh = [_highlight(lang, **opts)(source, metadata=meta) for lang, opts, meta in CELLS]
    assert len(set(fresh)) == len(CELLS)  # each of them highlights the source its own way
    for _ in range(2):  # the second round from what the first kept
        kept = [
            RememberedHighlight(_highlight(lang, **opts))(source, metadata=meta)
            for lang, opts, meta in CELLS
        ]
        assert kept == fresh
    # a language the template names wins over the notebook's, as in nbconvert
    named = RememberedHighlight(_highlight("ipython3"))(source, "javascript")
    assert named == _highlight("ipython3")(source, "javascript") == fresh[3]


def _grade(root: Path, batch: Path, out: Path) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    env.pop(phases.ENV_PROFILE, None)
    command = [
        *(sys.executable, "-m", "autograder", "grade", str(batch)),
        *("--course", str(root / "course"), "--out", str(out)),
        *("--workers", "1", "--no-progress"),
    ]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-2000:]


def _fresh_page(course: Course, student: str, assignment: str) -> bytes:
    """The student's page as GenerateFeedback writes it in this process with a fresh
    exporter that compiles every template (no cache), from the graded notebook."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    from autograder.grading import feedback_config

    config = feedback_config(course)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    config.SafeHTMLExporter.reuse_compiled_templates = False
    config.SafeHTMLExporter.reuse_highlighted_cells = False
    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    app.force = True
    result = capture_log(app)
    assert result.get("success"), result.get("error")
    return (course.feedback_dir(student, assignment) / f"{assignment}.html").read_bytes()


@pytest.mark.slow
@pytest.mark.needs_sandbox
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks")
def test_each_students_page_is_the_page_an_uncached_exporter_writes(tmp_path):
    first = ASSIGNMENTS[0]
    course = Course(tmp_path / "course")
    ensure_released(course, [first], zips=False)
    release_nb = course.root / "release" / first / f"{first}.ipynb"
    source_nb = course.source_dir(first) / f"{first}.ipynb"
    bugs = [variant for variant in VARIANTS[first] if variant.lost]
    answers = {
        "ann": make_submission(release_nb, source_nb),
        "ben": make_submission(release_nb, source_nb, bugs[0].replace),
        "cat": make_submission(release_nb, source_nb, bugs[1].replace),
        "dan": nbformat.read(release_nb, as_version=4),  # handed in as released
    }
    for student, nb in answers.items():
        target = tmp_path / "batch" / student / first / f"{first}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_bytes(notebook_bytes(nb))

    _grade(tmp_path, tmp_path / "batch", tmp_path / "out")  # one worker: every page

    written = {s: tmp_path / "out" / "feedback" / s / first / f"{first}.html" for s in answers}
    assert [s for s, page in written.items() if not page.is_file()] == []  # a page each
    pages = {student: page.read_bytes() for student, page in written.items()}
    assert len(set(pages.values())) == len(pages)  # four notebooks, four pages
    for student, page in pages.items():
        assert page == _fresh_page(course, student, first), student
