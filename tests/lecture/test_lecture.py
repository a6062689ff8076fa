"""Tests of the lecture build's pieces that need no browser: the slide-metadata rules, the
lecture-mode marks, the notebooks' stored slide metadata, the feedback's local MathJax."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder.notebook import is_written_answer, rubrics
from lecture import course_notebooks, mark_solutions
from lecture.assets import mathjax_available
from lecture.decks import write_deck
from lecture.slides import MAX_LINES, apply, slide_types, stale

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = course_notebooks()

PNG = "iVBORw0KGgo="  # any base64 text: the rules look at the MIME type only


def _figure_cell(source: str = "fig, ax = plt.subplots()") -> nbformat.NotebookNode:
    output = new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})
    return new_code_cell(source, outputs=[output])


def _test_cell() -> nbformat.NotebookNode:
    cell = new_code_cell('"""checks f."""\nassert f(1) == 2')
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": "f_visible",
        "locked": True,
        "points": 1,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    return cell


def _solution_cell(cell_type: str = "code") -> nbformat.NotebookNode:
    cell = new_code_cell("def f(x):\n    return 2 * x") if cell_type == "code" else None
    if cell is None:
        cell = new_markdown_cell("Because $a \\le 0$.")
    cell.metadata["nbgrader"] = {
        "grade": cell_type != "code",
        "grade_id": "f",
        "locked": False,
        "points": 0 if cell_type == "code" else 2,
        "schema_version": 3,
        "solution": True,
        "task": False,
    }
    return cell


def test_course_notebooks_in_course_order():
    expected = sorted(ROOT.glob("notebooks/[0-9][0-9]_*/[0-9][0-9]_*.ipynb"))
    assert NOTEBOOKS == [p for p in expected if p.parent.name == p.stem]
    numbers = [p.stem[:2] for p in NOTEBOOKS]
    assert numbers == sorted(numbers)


def test_slide_rules_headings_figures_tests():
    nb = new_notebook(
        cells=[
            new_markdown_cell("# 01 · Title\n\nWhat this is about."),
            new_code_cell("import numpy as np"),
            new_markdown_cell("## 1 · A section\n\nProse."),
            new_code_cell("x = 1"),
            _figure_cell(),
            new_markdown_cell("What the figure shows."),
            new_markdown_cell("### Exercise 1 — `f` (3 points)"),
            _solution_cell(),
            _test_cell(),
            new_markdown_cell("## Summary"),
        ]
    )
    assert slide_types(nb) == [
        "slide",  # the title
        "-",
        "slide",  # a ## section
        "-",
        "subslide",  # a figure gets its own sub-slide
        "subslide",  # and the cell after it starts another
        "subslide",  # ### exercise
        "-",
        "skip",  # graded tests are not shown on slides
        "slide",
    ]


def test_slide_rules_split_a_long_derivation():
    step = "\n".join(f"$$a_{k} = a_{k - 1} + 1$$" for k in range(6))
    cells = [new_markdown_cell("## Derivation")] + [new_markdown_cell(step) for _ in range(5)]
    types = slide_types(new_notebook(cells=cells))
    assert types[0] == "slide"
    assert "subslide" in types[1:]
    # no (sub)slide is left with more than MAX_LINES lines of source, unless one cell is
    # longer than that by itself
    lines, used = [len(c.source.splitlines()) for c in cells], 0
    for kind, n in zip(types, lines, strict=True):
        used = n if kind != "-" else used + n
        assert used <= MAX_LINES


def test_apply_is_idempotent_and_touches_only_slideshow():
    nb = new_notebook(cells=[new_markdown_cell("# T"), _figure_cell(), _test_cell()])
    before = [{k: v for k, v in c.metadata.items()} for c in nb.cells]
    assert apply(nb) is True
    assert apply(nb) is False
    for cell, meta in zip(nb.cells, before, strict=True):
        assert {k: v for k, v in cell.metadata.items() if k != "slideshow"} == meta
        assert set(cell.metadata["slideshow"]) == {"slide_type"}


def test_mark_solutions_tags_copies_only():
    nb = new_notebook(cells=[_solution_cell(), _solution_cell("markdown"), _test_cell()])
    marked = mark_solutions(nb, fence_markdown=True)
    assert marked.cells[0].metadata["tags"] == ["solution"]
    assert marked.cells[1].source.startswith("::::{admonition} Students write this answer")
    assert marked.cells[2].metadata["tags"] == ["graded-test"]
    assert "tags" not in nb.cells[0].metadata  # the notebook itself is not changed
    plain = mark_solutions(nb, fence_markdown=False)
    assert plain.cells[1].source == nb.cells[1].source


def test_rubric_on_the_site_never_on_the_slides():
    """A written answer's rubric: on the site (for lecturers) after the model answer, in
    an admonition of its own; on the slides (shown in class) not at all, and the slide
    rules count the answer as the deck shows it."""
    answer = _solution_cell("markdown")
    rubric_lines = "\n".join(f"| element {k} | 1 |" for k in range(40))
    answer.source += f"\n\n#### Rubric\n\n{rubric_lines}"
    nb = new_notebook(cells=[new_markdown_cell("## Proof"), answer, new_markdown_cell("Next.")])
    site = mark_solutions(nb, fence_markdown=True).cells[1].source
    assert site.index("Students write this answer") < site.index("Because")
    assert site.index("Because") < site.index("Rubric for the grader") < site.index("element 39")
    assert ":class: grader-rubric" in site
    deck = mark_solutions(nb, fence_markdown=False).cells[1].source
    assert deck == "Because $a \\le 0$."
    without = new_notebook(cells=[nb.cells[0], _solution_cell("markdown"), nb.cells[2]])
    assert slide_types(nb) == slide_types(without) == ["slide", "-", "-"]


@pytest.mark.slow
def test_course_decks_leave_every_rubric_out(tmp_path):
    """The decks of the notebooks with written answers show each model answer, and none
    of their rubrics."""
    with_answers = [p for p in NOTEBOOKS if rubrics(nbformat.read(p, as_version=4))]
    if not with_answers:
        pytest.skip("no written answer with a rubric")
    for path in with_answers:
        nb = nbformat.read(path, as_version=4)
        deck = write_deck(path, tmp_path).read_text(encoding="utf-8")
        assert "Rubric" not in deck and "Typical partial answers" not in deck, path.stem
        for cell in nb.cells:
            if is_written_answer(cell):
                first_words = cell.source.split()[:3]
                assert " ".join(first_words) in deck, (path.stem, first_words)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_carry_the_slide_metadata_of_the_rules(path):
    """Every cell's slideshow metadata is what ``python -m lecture.slides`` writes.

    Fails until the tool has been run on the notebooks (issue 11, phase 2): run
    ``./run python -m lecture.slides`` and commit the notebooks.
    """
    assert not stale(path), (
        f"{path.stem}: slide metadata differs from the rules of lecture/slides.py; run "
        "'./run python -m lecture.slides' (never edit slide types by hand); this fails "
        "until issue 11's phase 2 has run the tool on the notebooks"
    )


@pytest.mark.skipif(not mathjax_available(), reason="node_modules/mathjax not installed")
def test_feedback_pages_load_mathjax_from_beside_them(tmp_path):
    from tests.autograder.test_hostile_html import render_feedback

    nb = new_notebook(cells=[new_markdown_cell("The margin $\\gamma$.")])
    body = render_feedback(nb, tmp_path).read_text(encoding="utf-8")
    sources = re.findall(r'<script[^>]*\bsrc="([^"]*)"', body)
    assert sources == ["../../_mathjax/tex-chtml-full.js"]
    assert "MathJax.Hub" not in body  # nbconvert's MathJax 2 configuration is gone


@pytest.mark.skipif(not mathjax_available(), reason="node_modules/mathjax not installed")
def test_copy_feedback_ships_mathjax(tmp_path):
    from autograder.course import Course
    from autograder.models import SubmissionResult
    from autograder.report import copy_feedback

    course = tmp_path / "course"
    page = course / "feedback" / "alice" / "01_hyperplanes" / "01_hyperplanes.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html></html>", encoding="utf-8")
    result = SubmissionResult(student="alice", assignment="01_hyperplanes")
    out = tmp_path / "out"
    assert copy_feedback(Course(course), [result], out) == 1
    shipped = out / "feedback" / "_mathjax" / "tex-chtml-full.js"
    assert shipped.is_file()
    # the page's relative URL reaches it
    target = (out / "feedback" / "alice" / "01_hyperplanes" / "../../_mathjax").resolve()
    assert target == shipped.parent.resolve()
