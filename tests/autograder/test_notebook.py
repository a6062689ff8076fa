"""autograder.notebook: the one hidden-test parser (checked against nbgrader's own
ClearHiddenTests on every course notebook), the redaction derived from it, the one rubric
parser of written answers, a notebook as .ipynb bytes, and the references a test cell
disables."""

from __future__ import annotations

import copy
import warnings

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from nbgrader.preprocessors import ClearHiddenTests

from autograder.notebook import (
    HIDDEN_BEGIN,
    HIDDEN_END,
    disabled_names,
    hidden_line_ranges,
    is_test_cell,
    notebook_bytes,
    redact_hidden_source,
    rubrics,
    strip_hidden_tests,
)
from course_common.paths import REPO_ROOT
from course_common.rubric import RUBRIC_HEADING, is_written_answer, split_rubric

REPO = REPO_ROOT
SOURCE_NOTEBOOKS = sorted(REPO.glob("notebooks/*/*.ipynb"))


def _test_cells():
    for path in SOURCE_NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        for cell in nb.cells:
            if is_test_cell(cell):
                yield path.stem, cell


def test_the_hidden_test_markers_are_nbgraders():
    """The markers are written out (the module does not import nbgrader); they are
    nbgrader's defaults, the only ones a course may use."""
    assert HIDDEN_BEGIN == ClearHiddenTests.begin_test_delimeter.default_value
    assert HIDDEN_END == ClearHiddenTests.end_test_delimeter.default_value


def test_strip_hidden_tests_matches_nbgrader():
    cells = list(_test_cells())
    if not cells:
        pytest.skip("no course notebooks yet")
    clearer = ClearHiddenTests()
    stripped = 0
    for _, cell in cells:
        reference = copy.deepcopy(cell)
        removed = clearer._remove_hidden_test_region(reference)
        assert strip_hidden_tests(cell.source) == reference.source
        stripped += removed
    assert stripped > 0


def test_hidden_line_ranges_cover_the_hidden_lines():
    source = "a = 1\n### BEGIN HIDDEN TESTS\nb = 2\nc = 3\n### END HIDDEN TESTS\nd = 4"
    assert hidden_line_ranges(source) == [(2, 5)]


def test_redact_hidden_source_keeps_the_rest_and_indentation():
    source = (
        "def test_x():\n"
        "    assert f(1) == 1\n"
        "    ### BEGIN HIDDEN TESTS\n"
        "    assert f(2) == 2  # secret one\n"
        "    ### END HIDDEN TESTS\n"
        "    ### BEGIN HIDDEN TESTS\n"
        "    assert f(3) == 3  # secret two\n"
        "    ### END HIDDEN TESTS\n"
        "test_x()"
    )
    new, changed = redact_hidden_source(source, "# withheld")
    assert changed
    assert new == ("def test_x():\n    assert f(1) == 1\n    # withheld\n    # withheld\ntest_x()")
    unterminated, changed = redact_hidden_source("a = 1\n### BEGIN HIDDEN TESTS\nsecret", "# w")
    assert changed and "secret" not in unterminated and unterminated.startswith("a = 1")
    assert redact_hidden_source("a = 1", "# w") == ("a = 1", False)


def test_notebook_bytes_read_back_as_the_same_notebook():
    nb = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("y = 'é'")])
    twin = copy.deepcopy(nb.cells[0])  # a student copied a cell: the same cell id twice
    nb.cells.append(twin)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        content = notebook_bytes(nb)
    back = nbformat.reads(content.decode("utf-8"), as_version=4)
    assert [c.source for c in back.cells] == ["x = 1", "y = 'é'", "x = 1"]
    assert len({c.id for c in back.cells}) == 3  # nbformat repaired the duplicate id


def test_disabled_names_reads_literals_and_the_names_bound_to_them():
    source = """
from linlib.grading import call_student
import linlib


def test_x():
    off = ("Perceptron", "sklearn.linear_model.Perceptron")
    call_student(f, 1, disable=off, use_reference=("perceptron_update",))
    linlib.grading.call_student(g, disable="signed_distance")
    call_student(h, disable=["linlib.geometry.augment"])
    call_student(k)  # nothing disabled
    other(f, disable=("not_a_call_student",))


test_x()
"""
    assert disabled_names(source) == {
        "Perceptron",
        "sklearn.linear_model.Perceptron",
        "signed_distance",
        "linlib.geometry.augment",
    }
    assert disabled_names("%matplotlib inline\nx = 1") == set()


def test_disabled_names_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="not a literal"):
        disabled_names("call_student(f, disable=names_from_elsewhere)")
    with pytest.raises(ValueError, match="not a literal"):
        disabled_names('call_student(f, disable=("a",) + extra)')
    with pytest.raises(SyntaxError):
        disabled_names("call_student(f, disable=(")


def test_every_course_test_cell_disables_names_the_grader_accepts():
    """Each name read from a course test cell is one ``call_student`` resolves at run time
    (a typo would raise there); most test cells disable something."""
    from linlib.grading import _resolve

    cells = list(_test_cells())
    if not cells:
        pytest.skip("no course notebooks yet")
    disabling = 0
    for _stem, cell in cells:
        names = disabled_names(cell.source)
        disabling += bool(names)
        for name in names:
            _resolve(name)  # ValueError for a name that is no function or class
    assert disabling >= len(cells) * 3 // 4


def _written_answer(source: str, grade_id: str = "answer") -> nbformat.NotebookNode:
    cell = new_markdown_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": grade_id,
        "locked": False,
        "points": 2,
        "schema_version": 3,
        "solution": True,
        "task": False,
    }
    return cell


def test_split_rubric_at_its_own_line_only():
    answer, rubric = split_rubric("Because $a \\le 0$.\n\n#### Rubric\n\n| x | 1 |\n")
    assert (answer, rubric) == ("Because $a \\le 0$.", "| x | 1 |")
    assert split_rubric("Because.\n#### Rubric   \n* one") == ("Because.", "* one")
    # the words in a sentence, another heading, or no rubric at all: nothing is split off
    for source in ("See the #### Rubric below.", "#### Rubrics\nx", "### Rubric\nx", "Just this."):
        assert split_rubric(source) == (source, None)


def test_rubrics_of_written_answers_only():
    code = new_code_cell(f"# {RUBRIC_HEADING}")
    nb = new_notebook(
        cells=[
            _written_answer("A.\n\n#### Rubric\n\nfull: 2", "with_rubric"),
            _written_answer("B.", "without_rubric"),
            new_markdown_cell(f"Prose.\n\n{RUBRIC_HEADING}\n\nnot an answer"),
            code,
        ]
    )
    assert [is_written_answer(c) for c in nb.cells] == [True, True, False, False]
    assert rubrics(nb) == {"with_rubric": "full: 2"}
