"""Tests of the lecture build's pieces that need no browser: the slide-metadata rules, the
lecture-mode marks, the notebooks' stored slide metadata, the feedback's local MathJax."""

from __future__ import annotations

import html as htmllib
import json
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograder.notebook import rubrics
from course_common.assets import mathjax_available
from course_common.paths import REPO_ROOT
from course_common.rubric import is_written_answer
from lecture import course_notebooks, lecture_copy, mark_solutions
from lecture.decks import PieceHighlight, write_deck
from lecture.layout import (
    TYPE,
    code_width,
    figure_text_px,
    fit_image,
    markdown_blocks,
    png_size,
)
from lecture.metrics import text_em
from lecture.slides import (
    apply,
    max_code_chars,
    slide_heights,
    slide_types,
    small_figures,
    split_for_slides,
    stale,
    statement_starts,
    too_wide,
)

ROOT = REPO_ROOT
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


def _piece_sources(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """(slide type, source) of every cell of the deck built from *nb* (notes left out)."""
    deck = split_for_slides(nb)
    return [
        (cell.metadata["slideshow"]["slide_type"], cell.source)
        for cell in deck.cells
        if cell.metadata["slideshow"]["slide_type"] != "notes"
    ]


def test_slides_split_a_long_proof_between_its_numbered_steps():
    steps = "\n".join(
        f"{k}. *Step {k}.* " + "A line of the argument that goes on for a while. " * 6 + "$a_k$."
        for k in range(1, 13)
    )
    nb = new_notebook(cells=[new_markdown_cell("## The proof\n\n**Proof.** By steps.\n\n" + steps)])
    pieces = _piece_sources(nb)
    assert len(pieces) >= 2
    assert pieces[0][0] == "slide" and all(kind == "subslide" for kind, _ in pieces[1:])
    assert pieces[0][1].startswith("## The proof")
    # every later piece starts at a step, and the steps are all there, once, in order
    numbers = []
    for _, source in pieces:
        numbers += [int(line.split(".")[0]) for line in source.splitlines() if line[:1].isdigit()]
    assert numbers == list(range(1, 13))
    assert all(source.split(".")[0].isdigit() for _, source in pieces[1:])
    assert max(slide_heights(nb)) <= TYPE.budget


def test_slides_split_long_code_between_functions_and_keep_the_output_with_it():
    def function(name: str) -> str:
        body = "\n".join(f"    x{k} = {k} * x" for k in range(12))
        return f'def {name}(x):\n    """Docstring."""\n{body}\n    return x'

    source = "\n\n\n".join(function(name) for name in ("first", "second", "third"))
    output = new_output("stream", name="stdout", text="done\n")
    nb = new_notebook(cells=[new_markdown_cell("# T"), new_code_cell(source, outputs=[output])])
    pieces = _piece_sources(nb)[1:]
    assert [piece.split("(")[0] for _, piece in pieces] == ["def first", "def second", "def third"]
    assert "\n\n".join(piece for _, piece in pieces) == source.replace("\n\n\n", "\n\n")
    deck = split_for_slides(nb)
    assert [len(cell.get("outputs", [])) for cell in deck.cells] == [0, 0, 0, 1]  # last piece
    assert max(slide_heights(nb)) <= TYPE.budget


def test_statement_starts_are_never_inside_strings_or_brackets():
    lines = [
        "def f(x):",  # 0
        '    """Doc.',  # 1
        "",  # 2: inside the docstring
        '    More."""',  # 3
        "    y = g(",  # 4
        "        x,",  # 5
        "    )  # a comment",  # 6
        "    # a comment line",  # 7
        "    z = 1 + \\",  # 8
        "        2",  # 9
        "",  # 10
        "    return y",  # 11
    ]
    assert statement_starts(lines) == {0, 1, 4, 7, 8, 10, 11}
    assert statement_starts(['s = """never closed', "x = 1"]) == {0, 1}  # unreadable: all


def test_a_piece_of_a_split_cell_is_highlighted_as_part_of_the_cell():
    """A solution too long for one slide is split inside its docstring; the piece that
    begins inside it is highlighted as the docstring it is, its code as code."""
    doc = "\n".join(f"    line {k} of the documentation" for k in range(30))
    cell = _solution_cell()
    cell.source = f'def f(x):\n    """Twice x.\n\n{doc}\n    """\n    return 2 * x'
    nb = new_notebook(cells=[new_markdown_cell("# T"), cell])
    pieces = [c for c in split_for_slides(nb).cells if c.cell_type == "code"]
    assert len(pieces) >= 2
    highlight = PieceHighlight()
    spans = []
    for piece in pieces:
        html = highlight(piece.source, metadata=piece.metadata)
        text = re.sub(r"<[^>]*>", "", html.split("<pre>", 1)[1].split("</pre>", 1)[0])
        assert htmllib.unescape(text) == piece.source + "\n"
        spans.append(re.findall(r'<span class="(\w+)">([^<]*)</span>', html))
    last = spans[-1]
    assert pieces[-1].source.startswith("    line")  # it begins inside the docstring
    assert last[0][0] == "sd" and ("k", "return") in last  # docstring, then code
    assert ("k", "def") in spans[0]


def _code_lines_per_slide(nb: nbformat.NotebookNode) -> list[int]:
    """The lines of code on every slide of the deck built from *nb*."""
    per_slide: list[int] = []
    for cell in split_for_slides(nb).cells:
        kind = cell.metadata["slideshow"]["slide_type"]
        if kind == "notes":
            continue
        if kind in ("slide", "subslide") or not per_slide:
            per_slide.append(0)
        if cell.cell_type == "code" and cell.source:
            per_slide[-1] += len(cell.source.split("\n"))
    return per_slide


def test_no_slide_shows_more_lines_of_code_than_the_limit():
    """Code cells of 10 and 30 lines, one function with no blank line: no slide has more
    than ``TYPE.max_code_lines`` lines of code, and the 40 lines take three slides."""
    body = "\n".join(f"    x{k} = {k} * x" for k in range(28))
    nb = new_notebook(
        cells=[
            new_markdown_cell("# T"),
            new_code_cell("\n".join(f"a{k} = {k}" for k in range(10))),
            new_code_cell(f"def f(x):\n{body}\n    return x"),
        ]
    )
    lines = _code_lines_per_slide(nb)
    assert max(lines) == TYPE.max_code_lines == 16
    assert lines == [16, 16, 8]  # the function split between statements
    assert max(slide_heights(nb)) <= TYPE.budget


def test_an_output_stays_with_the_code_that_printed_it():
    """A short output that no longer fits under its cell's code takes the cell's last
    statement with it to the next slide; what a figure's cell prints stands with the code,
    before the figure."""
    filler = new_markdown_cell("Words of a paragraph that fill the slide. " * 55)
    code = "\n\n".join(f"x{k} = {k}" for k in range(6)) + "\nx5"
    cell = new_code_cell(code, outputs=[new_output("execute_result", data={"text/plain": "3"})])
    nb = new_notebook(cells=[new_markdown_cell("# T"), filler, cell])
    pieces = [c for c in split_for_slides(nb).cells if c.cell_type == "code"]
    assert len(pieces) == 2 and pieces[0].outputs == []
    last = pieces[-1]
    assert last.source.endswith("x5") and last.outputs[0]["data"]["text/plain"] == "3"
    assert last.metadata["slideshow"]["slide_type"] == "subslide"

    printed = new_output("stream", name="stdout", text="accuracy 0.9\n")
    figure = _figure_cell(
        "\n".join(f"ax.plot(x, y{k}, label='curve {k} of many more curves')" for k in range(8))
    )
    figure.outputs.append(printed)  # printed after the figure
    cells = split_for_slides(new_notebook(cells=[new_markdown_cell("# T"), figure])).cells
    assert [len(c.outputs) for c in cells[1:3]] == [1, 1]
    assert cells[1].outputs[0]["text"] == "accuracy 0.9\n" and cells[1].source == figure.source
    assert "image/png" in cells[2].outputs[0]["data"]


def test_a_long_output_gets_a_slide_of_its_own_and_is_split_between_lines():
    text = "".join(f"row {k}: " + "x " * 20 + "\n" for k in range(60))
    cell = new_code_cell("print(table)", outputs=[new_output("stream", name="stdout", text=text)])
    nb = new_notebook(cells=[new_markdown_cell("# T"), cell])
    deck = split_for_slides(nb)
    shown = [c for c in deck.cells[1:]]
    assert shown[0].source == "print(table)"
    rest = "".join(o["text"] for c in shown for o in c.get("outputs", []))
    assert rest == text  # every line, once, in order
    assert len(shown) >= 3  # 60 lines take more than one slide
    assert all(c.metadata.get("transient", {}).get("remove_source") for c in shown[1:])
    assert max(slide_heights(nb)) <= TYPE.budget


def test_a_figure_whose_code_is_too_long_to_stand_beside_it():
    source = "\n".join(
        f"ax.plot(x, y{k}, label='a long label for curve number {k} of many')" for k in range(8)
    )
    nb = new_notebook(
        cells=[new_markdown_cell("# T"), _figure_cell(source), new_markdown_cell("After.")]
    )
    cells = split_for_slides(nb).cells
    kinds = [c.metadata["slideshow"]["slide_type"] for c in cells]
    assert kinds == ["slide", "subslide", "subslide", "notes", "subslide"]
    code, figure, notes = cells[1], cells[2], cells[3]
    assert code.source == source and code.outputs == []
    assert figure.metadata["transient"] == {"remove_source": True}
    drawn = figure.outputs[0]["metadata"]["image/png"]
    # 640×480 (not a real PNG header) drawn as large as the slide allows, 1.5 times at most
    assert drawn["height"] <= TYPE.budget and drawn["width"] <= TYPE.content_width
    assert drawn["width"] / drawn["height"] == pytest.approx(640 / 480, rel=0.01)
    assert source in notes.source


def test_a_figure_with_short_code_stands_beside_it():
    nb = new_notebook(cells=[new_markdown_cell("# T"), _figure_cell("plt.plot(x, y)")])
    cell = split_for_slides(nb).cells[1]
    assert "slide-beside" in cell.metadata["tags"] and "slide-code-20" in cell.metadata["tags"]
    width, height = (cell.outputs[0]["metadata"]["image/png"][k] for k in ("width", "height"))
    assert height >= TYPE.min_beside_height and width <= TYPE.content_width


@pytest.mark.parametrize(
    ("length", "size"), [(80, "slide-code-20"), (max_code_chars() - 2, "slide-code-18")]
)
def test_code_is_set_as_large_as_its_longest_line_allows(length, size):
    nb = new_notebook(cells=[new_markdown_cell("# T"), new_code_cell("x = 1\n" + "y" * length)])
    assert size in split_for_slides(nb).cells[1].metadata["tags"]
    assert too_wide(nb) == []


def test_too_wide_names_a_line_no_slide_can_show():
    long_line = "z" * (max_code_chars() + 1)
    nb = new_notebook(cells=[new_markdown_cell("# T"), new_code_cell(f"x = 1\n{long_line}")])
    assert too_wide(nb) == [(1, 2, len(long_line))]
    assert 100 <= max_code_chars() < 120  # a ruff-formatted line (100) fits at 18 px


def test_a_heading_is_not_left_at_the_bottom_of_a_slide():
    filler = "Words of a paragraph that fill the slide. " * 40
    nb = new_notebook(
        cells=[
            new_markdown_cell("# T"),
            new_markdown_cell(f"{filler}\n\n#### A minor heading\n\n{filler}"),
        ]
    )
    pieces = _piece_sources(nb)
    # the first slide has room for the heading but not for its paragraph: both move on
    assert [kind for kind, _ in pieces] == ["slide", "-", "subslide"]
    assert pieces[2][1].startswith("#### A minor heading\n\nWords")


def test_the_deck_cells_are_deterministic_and_keep_unique_ids():
    path = NOTEBOOKS[2]
    nb = nbformat.read(path, as_version=4)
    first, second = split_for_slides(nb), split_for_slides(nbformat.read(path, as_version=4))
    assert first == second
    ids = [cell["id"] for cell in first.cells]
    assert len(ids) == len(set(ids))


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


ADVICE = (
    "*If `import linlib` in the first code cell fails (`ModuleNotFoundError`), this notebook is\n"
    "not running in the course's environment: run the cell again.*"
)


def test_the_lecture_leaves_out_the_solution_markers_and_the_setup_advice():
    """Site and slides show a solution without nbgrader's marker lines and a title cell
    without the students' setup advice; everything else stays as it was."""
    title = new_markdown_cell(f"# 01 · Title\n\nWhat this is about.\n\n{ADVICE}\n\n## Next\nMore.")
    solution = _solution_cell()
    solution.source = (
        'def f(x):\n    """Twice x."""\n'
        "    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
    )
    nb = new_notebook(cells=[title, solution, _test_cell()])
    for site in (True, False):
        shown = lecture_copy(nb, site=site)
        assert shown.cells[0].source == "# 01 · Title\n\nWhat this is about.\n\n## Next\nMore."
        assert shown.cells[1].source == 'def f(x):\n    """Twice x."""\n    return 2 * x'
        assert shown.cells[2].source == nb.cells[2].source  # a test is not a solution
    assert "BEGIN SOLUTION" in nb.cells[1].source  # the notebook itself is not changed
    code = [cell.source for cell in split_for_slides(nb).cells if cell.cell_type == "code"]
    assert code == ['def f(x):\n    """Twice x."""\n    return 2 * x']


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_course_notebooks_setup_advice_is_what_the_lecture_leaves_out(path):
    """Every notebook gives students the advice the lecture leaves out, in the words the
    lecture recognises (``lecture._notebooks.SETUP_ADVICE``), and has solution markers."""
    nb = nbformat.read(path, as_version=4)
    text = "\n".join(cell.source for cell in nb.cells)
    assert "ModuleNotFoundError" in text and "### BEGIN SOLUTION" in text
    for site in (True, False):
        shown = "\n".join(cell.source for cell in lecture_copy(nb, site=site).cells)
        assert "ModuleNotFoundError" not in shown
        assert "BEGIN SOLUTION" not in shown and "END SOLUTION" not in shown


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
    """Every cell's slideshow metadata is what ``python -m lecture.slides`` writes (after
    editing a notebook: ``./run python -m lecture.slides``, and commit the notebooks)."""
    assert not stale(path), (
        f"{path.stem}: slide metadata differs from the rules of lecture/slides.py; run "
        "'./run python -m lecture.slides' (never edit slide types by hand)"
    )


@pytest.mark.skipif(not mathjax_available(), reason="node_modules/mathjax not installed")
@pytest.mark.slow
def test_feedback_pages_load_mathjax_from_beside_them(tmp_path):
    from tests.autograder.test_hostile_html import render_feedback

    nb = new_notebook(cells=[new_markdown_cell("The margin $\\gamma$.")])
    body = render_feedback(nb, tmp_path).read_text(encoding="utf-8")
    sources = re.findall(r'<script[^>]*\bsrc="([^"]*)"', body)
    assert sources == ["../../_mathjax/tex-chtml-full.js"]
    # nbconvert's MathJax 2 configuration and CDN are gone
    assert "MathJax.Hub.Config" not in body and "cdnjs" not in body


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


@pytest.mark.slow
def test_the_deck_has_the_planned_slides_sizes_and_notes(tmp_path):
    """The exported deck (nbconvert, the lecture template) follows the plan: one section per
    slide, the code's size class, the figure's drawn size, the figure's speaker notes."""
    from lecture.decks import write_deck

    long_code = "\n".join(
        f"ax.plot(x, y{k}, label='the curve number {k} of many more')" for k in range(8)
    )
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Title\n\nProse."),
            new_code_cell("print(1)", outputs=[new_output("stream", name="stdout", text="1\n")]),
            _figure_cell(long_code),
            new_markdown_cell("## Next"),
        ]
    )
    folder = tmp_path / "nb"
    folder.mkdir()
    nbformat.write(nb, folder / "nb.ipynb")
    page = write_deck(folder / "nb.ipynb", tmp_path).read_text(encoding="utf-8")
    body = page[page.index('<div class="slides">') :]
    leaves = re.findall(r"<section[^>]*>\s*<section", body)
    assert body.count("<section") - len(leaves) == len(slide_heights(nb))
    assert "celltag_slide-code-20" in body
    drawn = split_for_slides(nb).cells[3].outputs[0]["metadata"]["image/png"]
    assert f"width={drawn['width']}" in body.replace('"', "")
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', body, re.S)
    assert len(notes) == 1 and "the curve number 7 of many more" in notes[0]


def test_the_figures_keep_matplotlibs_tick_label_size():
    """The slides size a figure by its tick labels, matplotlib's default 10 points
    (``TYPE.figure_text_pt``): no notebook and no plotting helper of linlib changes it."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    defaults = matplotlib.rcParamsDefault
    for axis in ("xtick", "ytick"):
        size = FontProperties(size=defaults[f"{axis}.labelsize"]).get_size_in_points()
        assert size == TYPE.figure_text_pt
    changes = re.compile(r"rcParams|rc_context|plt\.rc\(|style\.use|labelsize|set_fontsize")
    sources = [(p.stem, p.read_text(encoding="utf-8")) for p in ROOT.glob("linlib/*.py")]
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        sources += [(path.stem, c.source) for c in nb.cells if c.cell_type == "code"]
    assert [name for name, text in sources if changes.search(text)] == []


def test_a_figure_is_beside_its_code_only_when_its_text_stays_legible():
    """Code of 56 characters a line, set at 19 px, leaves a 480×420 px figure room to be
    drawn 542 px wide beside it: tall enough (474 px), but its 10-point labels would be
    15.7 px (and at 18 or 20 px, 16.7 px or too short). It comes on its own slide instead,
    1.5 times its size (labels of 20.8 px)."""
    png = "iVBORw0KGgoAAAANSUhEUgAAAeAAAAGkCAYAAAA="  # a PNG's header: 480×420 px
    size = png_size(png)
    assert size == (480, 420)
    code = "\n".join(f"ax.plot(x, y{k})  # " + "c" * 38 for k in range(3))
    for px, tall_enough in ((20, False), (19, True), (18, True)):
        beside_room = TYPE.content_width - code_width(56, px) - TYPE.beside_gap
        beside = fit_image(size, beside_room, TYPE.budget)
        assert (beside[1] >= TYPE.min_beside_height) == tall_enough
        assert figure_text_px(size, 100.0, beside[0]) < TYPE.min_figure_text_px
    cell = _figure_cell(code)
    cell.outputs[0]["data"]["image/png"] = png
    cells = split_for_slides(new_notebook(cells=[new_markdown_cell("# T"), cell])).cells
    figure = next(c for c in cells if c.get("outputs") and "image/png" in c.outputs[0]["data"])
    assert "slide-figure" in figure.metadata["tags"] and figure.source == ""
    drawn = figure.outputs[0]["metadata"]["image/png"]
    assert (drawn["width"], drawn["height"]) == (720, 630)
    assert figure_text_px(size, 100.0, drawn["width"]) >= TYPE.min_figure_text_px


def test_small_figures_names_a_figure_too_wide_for_legible_text():
    """Three panels 13 inches wide (1311×486 px at 100 dpi) are drawn 1264 px wide on their
    own slide, their 10-point tick labels at 13.4 px: ``small_figures`` names the figure and
    the largest image that would be legible. Drawn 9.4 inches wide (951 px), it passes."""
    wide = "iVBORw0KGgoAAAANSUhEUgAABR8AAAHmCAYAAA=="  # a PNG's header: 1311×486 px
    narrow = "iVBORw0KGgoAAAANSUhEUgAAA7cAAAF2CAYAAA=="  # 951×374 px
    assert (png_size(wide), png_size(narrow)) == ((1311, 486), (951, 374))
    cell = _figure_cell()
    cell.outputs[0]["data"]["image/png"] = wide
    nb = new_notebook(cells=[new_markdown_cell("# T"), cell])
    [small] = small_figures(nb)
    assert small.cell == 1 and round(small.text_px, 1) == 13.4
    assert "at most 975×503 px (9.8 × 5.0 inches)" in small.advice()
    cell.outputs[0]["data"]["image/png"] = narrow
    assert small_figures(nb) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_course_figure_has_legible_text_on_its_slide(path):
    """No figure of the course's decks draws its tick labels under 18 px at 1280×720 (the
    browser test measures the same in the built deck)."""
    nb = nbformat.read(path, as_version=4)
    assert [(nb.cells[f.cell].get("id"), f.advice()) for f in small_figures(nb)] == []


def test_fit_image_keeps_the_aspect_and_enlarges_at_most_one_and_a_half_times():
    assert fit_image((400, 300), 1200, 650) == (600, 450)  # 1.5 times, not more
    assert fit_image((1300, 500), 1216, 650) == (1216, 467)  # as wide as the slide
    assert fit_image((500, 1000), 1216, 650) == (325, 650)  # as tall as the room


def test_markdown_blocks_a_list_is_split_between_its_items():
    long = " ".join(["two"] * 150)  # wraps over several lines
    source = (
        f"Intro.\n\n1. one\n2. {long}\n   still two\n3. three\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    blocks = markdown_blocks(source)
    assert [b.start for b in blocks] == [0, 2, 7]
    items = blocks[1].parts
    assert [(i.start, i.end) for i in items] == [(2, 3), (3, 5), (5, 7)]
    line = TYPE.prose_px * TYPE.prose_lh
    assert items[1].height > 2 * line and items[0].height == items[2].height >= line
    assert blocks[1].height == pytest.approx(sum(i.height for i in items) + TYPE.par_gap)


def test_prose_wraps_with_the_fonts_own_widths():
    word = "lecture"  # 7 letters of Source Sans Pro
    width = text_em(word) * TYPE.prose_px
    one_line = markdown_blocks(word)[0].height
    per_line = TYPE.prose_px * TYPE.prose_lh
    assert one_line == pytest.approx(per_line + TYPE.par_gap)
    # words that fill exactly three lines of a narrow column
    space = text_em(" ") * TYPE.prose_px
    column = 2 * width + space + 1
    text = " ".join([word] * 6)
    assert markdown_blocks(text, width=column)[0].height == pytest.approx(
        3 * per_line + TYPE.par_gap
    )
    assert markdown_blocks(text, width=column - 2)[0].height == pytest.approx(
        6 * per_line + TYPE.par_gap
    )


def test_the_font_table_is_the_installed_themes():
    """lecture/fonts.json is what ``python -m lecture.metrics`` reads from reveal.js's theme."""
    from course_common.assets import AssetsMissing
    from lecture.assets import REVEAL_THEME, reveal_dir
    from lecture.metrics import FONTS_JSON, read_theme_fonts

    try:
        theme = reveal_dir() / "theme" / f"{REVEAL_THEME}.css"
    except AssetsMissing:
        pytest.skip("node_modules/reveal.js not installed")
    table = read_theme_fonts(theme.read_text(encoding="utf-8"))
    assert sorted(table) == ["400 italic", "400 normal", "600 italic", "600 normal"]
    assert table == json.loads(FONTS_JSON.read_text(encoding="utf-8"))
