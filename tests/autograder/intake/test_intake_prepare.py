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


def _graded(files: list[str], notebook: str = "01_hyperplanes"):
    """Which file is graded as ``notebook`` among ``files`` (each with its own content),
    and the flags."""
    contents = {
        name: notebook_bytes(new_notebook(cells=[new_code_cell(f"x = {i}")]))
        for i, name in enumerate(files)
    }
    prepared = prepare(RawSubmission("1", notebook, files=contents), notebook, [notebook])
    (content,) = prepared.notebooks.values()
    return next(n for n, c in contents.items() if c == content), prepared.flags


def test_canvas_reuploads_grade_the_latest():
    chosen, flags = _graded(
        ["01_hyperplanes.ipynb", "01_hyperplanes-1.ipynb", "01_hyperplanes-2.ipynb"]
    )
    assert chosen == "01_hyperplanes-2.ipynb"
    assert flags == [
        "'01_hyperplanes-2.ipynb' was graded as '01_hyperplanes.ipynb' (renamed file)",
        "older upload '01_hyperplanes.ipynb' ignored (graded the latest, '01_hyperplanes-2.ipynb')",
        "older upload '01_hyperplanes-1.ipynb' ignored (graded the latest, "
        "'01_hyperplanes-2.ipynb')",
    ]
    # by number, not by spelling: "-10" is later than "-9"
    assert _graded(["01_hyperplanes-9.ipynb", "01_hyperplanes-10.ipynb"])[0] == (
        "01_hyperplanes-10.ipynb"
    )
    assert _graded(["01_hyperplanes-1.ipynb", "01_hyperplanes.ipynb"])[0] == (
        "01_hyperplanes-1.ipynb"
    )


def test_other_renamed_copies_still_work():
    assert _graded(["Copy of 01_hyperplanes.ipynb"])[0] == "Copy of 01_hyperplanes.ipynb"
    assert _graded(["01_Hyperplanes (1).ipynb"])[0] == "01_Hyperplanes (1).ipynb"
    # a copy the student made loses to the exact name (a re-upload, "-1", does not)
    assert _graded(["01_hyperplanes_v2.ipynb", "01_hyperplanes.ipynb"])[0] == (
        "01_hyperplanes.ipynb"
    )
    assert _graded(["01_hyperplanes (1).ipynb", "01_hyperplanes.ipynb"])[0] == (
        "01_hyperplanes.ipynb"
    )
    assert _graded(["01_hyperplanes (1).ipynb", "01_hyperplanes (2).ipynb"])[0] == (
        "01_hyperplanes (2).ipynb"
    )
    chosen, flags = _graded(["Copy of 01_hyperplanes.ipynb", "01_hyperplanes.ipynb"])
    assert chosen == "01_hyperplanes.ipynb"
    assert flags == [
        "other copy 'Copy of 01_hyperplanes.ipynb' ignored (graded '01_hyperplanes.ipynb')"
    ]
    # two notebooks: each its own copies
    nb = notebook_bytes(new_notebook(cells=[new_code_cell("x = 1")]))
    files = {"a-1.ipynb": nb, "a.ipynb": nb, "b.ipynb": nb, "b (2).ipynb": nb}
    prepared = prepare(RawSubmission("1", "x", files=files), "x", ["a", "b"])
    assert sorted(prepared.notebooks) == ["a.ipynb", "b.ipynb"] and prepared.missing == []


def test_upload_order():
    from autograder.intake import upload_order

    names = ["x.ipynb", "x-1.ipynb", "x (3).ipynb", "x-10.ipynb", "x-2.ipynb", "Copy of x.ipynb"]
    ordered = sorted(names, key=lambda n: upload_order(n, "x.ipynb"))
    assert ordered == [
        "Copy of x.ipynb",
        "x (3).ipynb",
        "x.ipynb",
        "x-1.ipynb",
        "x-2.ipynb",
        "x-10.ipynb",
    ]
