"""Preparing submissions (autograder.intake.prepare): files matched to the assignment's
notebooks, corrupt notebooks told apart, the assignment guessed, the submission's digest."""

from __future__ import annotations

import io
import json

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from autograder.intake import check_notebook, guess_assignment, prepare
from autograder.models import RawSubmission
from autograder.notebook import notebook_bytes

NB = notebook_bytes(new_notebook(cells=[new_code_cell("x = 1")]))


def test_prepare_flags_missing_corrupt_and_extra():
    raw = RawSubmission(
        "alice",
        "01_hyperplanes",
        files={"01_hyperplanes.ipynb": NB[: len(NB) // 2], "numpy.py": b"x = 1"},
    )
    prepared = prepare(raw, "01_hyperplanes", ["01_hyperplanes"])
    assert prepared.notebooks == {} and prepared.missing == ["01_hyperplanes"]
    assert any("corrupt" in f for f in prepared.flags)
    assert any("numpy.py" in f for f in prepared.flags)
    empty = prepare(RawSubmission("bob", "01_hyperplanes"), "01_hyperplanes", ["01_hyperplanes"])
    assert empty.missing == ["01_hyperplanes"]
    assert any("missing" in f for f in empty.flags)


def test_check_notebook():
    assert check_notebook(NB) is None
    assert "not a readable notebook" in check_notebook(b"{")
    assert "not UTF-8" in check_notebook(b"\xff\xfe")
    invalid = nbformat.v4.new_notebook()
    invalid.cells = [{"cell_type": "code", "source": "x"}]  # no outputs, no metadata
    buffer = io.StringIO()
    json.dump(invalid, buffer)
    assert "not a valid notebook" in check_notebook(buffer.getvalue().encode())


def test_guess_assignment():
    notebooks = {"01_hyperplanes": ["01_hyperplanes"], "06_svm_margins": ["06_svm_margins"]}
    assert guess_assignment(["06_SVM_margins (2).ipynb"], notebooks) == "06_svm_margins"
    assert guess_assignment(["essay.docx"], notebooks) is None


def test_digest_changes_with_content_and_salt():
    raw = RawSubmission("alice", "a", files={"a.ipynb": NB})
    one = prepare(raw, "a", ["a"])
    assert one.digest("s") == prepare(raw, "a", ["a"]).digest("s")
    assert one.digest("s") != one.digest("t")
    changed = prepare(RawSubmission("alice", "a", files={"a.ipynb": NB + b" "}), "a", ["a"])
    assert changed.digest("s") != one.digest("s")
