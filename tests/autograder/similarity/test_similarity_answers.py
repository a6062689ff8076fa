"""What a student wrote, read from a notebook: the release's stub left out, hostile notebooks
flagged, never a crash."""

from __future__ import annotations

import json

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.notebook import notebook_bytes
from autograder.similarity.answers import (
    MAX_ANSWER_CHARS,
    read_assignment,
    student_answers,
    written_part,
)

STUB = '''def f(x, w):
    """Weighted sum.

    Parameters
    ----------
    x : array
    """
    # YOUR CODE HERE
    raise NotImplementedError()'''

SOURCE = '''def f(x, w):
    """Weighted sum.

    Parameters
    ----------
    x : array
    """
    ### BEGIN SOLUTION
    return x @ w
    ### END SOLUTION'''


def _cell(source: str, grade_id: str = "f", solution: bool = True):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": solution, "grade": False}
    return cell


def _assignment():
    source = new_notebook(cells=[new_code_cell("import numpy as np"), _cell(SOURCE)])
    release = new_notebook(cells=[new_code_cell("import numpy as np"), _cell(STUB)])
    return read_assignment("01_x", notebook_bytes(source), notebook_bytes(release))


def test_exercises_and_boilerplate_come_from_the_source_and_release():
    assignment = _assignment()
    assert [e.key for e in assignment.exercises] == ["01_x/f"]
    assert assignment.exercises[0].stub == STUB
    # the course's own code: the instructor's cells, the reference solution, the stub
    for text in ("import numpy as np", "return x @ w", "raise NotImplementedError()"):
        assert text in assignment.boilerplate


def test_written_part_drops_what_the_release_put_in_the_cell():
    answer = STUB.replace(
        "    # YOUR CODE HERE\n    raise NotImplementedError()",
        "    total = 0\n    for a, b in zip(x, w):\n        total += a * b\n    return total",
    )
    assert written_part(answer, STUB) == (
        "    total = 0\n    for a, b in zip(x, w):\n        total += a * b\n    return total"
    )
    # a student who rewrote the docstring keeps it as their own
    own_doc = answer.replace("Weighted sum.", "Sum of products, by hand.")
    assert "Sum of products, by hand." in written_part(own_doc, STUB)
    assert written_part(STUB, STUB) == ""


def test_answers_are_read_by_grade_id_not_position():
    (exercise,) = _assignment().exercises
    nb = new_notebook(
        cells=[
            new_code_cell("x = 1"),
            _cell("return x @ w + 0", "other"),
            _cell(STUB.replace("raise NotImplementedError()", "return w @ x")),
        ]
    )
    answers, flags = student_answers("ann", notebook_bytes(nb), [exercise])
    assert flags == [] and len(answers) == 1
    assert answers[0].code.strip() == "return w @ x"


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"\xff\xfe\x00junk \x80\x81", "not UTF-8"),
        (bytes(range(256)) * 20, "not UTF-8"),
        (b'{"cells": [', "not a JSON notebook"),
        (b"[1, 2, 3]", "without notebook cells"),
        (json.dumps({"cells": "nope"}).encode(), "without notebook cells"),
        (b"[" * 100_000, "not a JSON notebook"),
    ],
)
def test_an_unreadable_notebook_is_flagged_not_a_crash(content, why):
    answers, flags = student_answers("eve", content, _assignment().exercises)
    assert answers == []
    assert len(flags) == 1 and why in flags[0] and "not compared" in flags[0]


def test_malformed_cells_and_metadata_are_skipped():
    (exercise,) = _assignment().exercises
    data = {
        "cells": [
            "a string, not a cell",
            {"cell_type": "code", "metadata": "junk", "source": "x"},
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "f", "solution": "yes"}}},
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": ["f"], "solution": True}}},
            {
                "cell_type": "code",
                "source": ["return ", "1\0", "\ud800"],
                "metadata": {"nbgrader": {"grade_id": "f", "solution": True}},
            },
        ]
    }
    answers, flags = student_answers("eve", json.dumps(data).encode(), [exercise])
    assert flags == [] and len(answers) == 1
    assert "\0" not in answers[0].code and "\ud800" not in answers[0].code


def test_an_enormous_cell_is_cut_and_flagged():
    (exercise,) = _assignment().exercises
    nb = new_notebook(cells=[_cell("x = 1  # padding\n" * 100_000)])
    answers, _ = student_answers("eve", notebook_bytes(nb), [exercise])
    assert len(answers[0].code) <= MAX_ANSWER_CHARS
    assert any("compared" in flag and f"{MAX_ANSWER_CHARS:,}" in flag for flag in answers[0].flags)


def test_a_grade_id_in_two_notebooks_of_an_assignment_is_two_exercises():
    """nbgrader's grade ids are unique within a notebook only: the cell ``f`` copied into a
    second notebook of the assignment is another exercise, its answers compared apart."""
    from autograder.similarity import NotebookSource, compare_class

    source = notebook_bytes(new_notebook(cells=[_cell(SOURCE)]))
    release = notebook_bytes(new_notebook(cells=[_cell(STUB)]))
    extra = notebook_bytes(new_notebook(cells=[_cell(SOURCE, "g")]))
    extra_release = notebook_bytes(new_notebook(cells=[_cell(STUB, "g")]))
    notebooks = [
        NotebookSource("01_x", "main.ipynb", source, release),
        NotebookSource("01_x", "again.ipynb", source, release),
        NotebookSource("01_x", "more.ipynb", extra, extra_release),
    ]
    body = "    total = 0\n    for a, b in zip(x, w):\n        total += a * b\n    return total"
    answer = notebook_bytes(new_notebook(cells=[_cell(STUB.replace("    # YOUR", body + "\n#"))]))
    submissions = [
        (s, "01_x", {"main.ipynb": answer, "again.ipynb": release}) for s in ("ann", "bob")
    ]
    run = compare_class(submissions, notebooks, workers=1)
    answers = {e.exercise: e.answers for e in run.exercises}
    assert answers == {"01_x/again/f": 2, "01_x/main/f": 2, "01_x/g": 0}
    (pair,) = [p for e in run.exercises for p in e.pairs]
    assert pair.exercise == "01_x/main/f"  # the same answer in main, the stub in again
