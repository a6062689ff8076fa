"""The library's answers a student build carries (autograder.release.replays, issue 41):
recorded from the release's test cells run with the instructor's solutions, only for the
stubbed references, equal to what the library answers, and nothing of the hidden tests.

The student build's side (a recorded call answered, another one sent to the student's own
function) is ``tests/linlib/test_grading.py``; every release test cell passing on a wheel
with wrong earlier answers is ``test_release_answers.py``."""

from __future__ import annotations

import nbformat
import numpy as np
import pytest

import linlib
from autograder.notebook import strip_hidden_tests
from autograder.release.answers import AnswersError
from autograder.release.replays import record_replays, solution_namespace
from course_common.paths import REPO_ROOT
from linlib.grader_kernel_wire import decode

SECOND = "02_perceptron_update"
SOURCE = REPO_ROOT / "notebooks" / SECOND / f"{SECOND}.ipynb"
UPDATE = "linlib.perceptron.perceptron_update"
EPOCH = "linlib.perceptron.perceptron_epoch"


def _release_like(tmp_path, source=SOURCE, name=f"{SECOND}.ipynb"):
    """The source notebook with its hidden tests cut out, as the release has them."""
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = strip_hidden_tests(cell.source)
    path = tmp_path / "release" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def test_the_namespace_holds_the_notebooks_imports_and_solutions():
    ns = solution_namespace(nbformat.read(SOURCE, as_version=4))
    assert ns["np"] is np and ns["linlib"] is linlib
    w, b, n_updates = ns["perceptron_epoch"]([[2, 1], [5, 2]], [1, 1], [0.0, 0.0], 0.0)
    assert (w.tolist(), b, n_updates) == ([2.0, 1.0], 1.0, 1)
    own = solution_namespace(
        nbformat.read(SOURCE, as_version=4),
        {"perceptron_update": "def perceptron_update(w, b, x, y):\n    return 'own'\n"},
    )
    assert own["perceptron_update"](None, None, None, None) == "own"


def test_the_record_is_the_librarys_answers_to_the_visible_tests_calls(tmp_path):
    """Recorded: the update and the epoch (02's stubs), each call's result what the library
    gives for its arguments; the first epoch of Bast's toy run among them (w = 0 on the
    first row); nothing else. A hidden test's start, w = (-1, -4), is not in the record."""
    recorded = record_replays([SOURCE], [_release_like(tmp_path)], [UPDATE, EPOCH])
    assert set(recorded) == {UPDATE, EPOCH}
    for label, reference in ((UPDATE, linlib.perceptron_update), (EPOCH, linlib.perceptron_epoch)):
        assert recorded[label]
        for arguments, result in recorded[label]:
            args = decode(arguments)
            expected = reference(**args)
            got = decode(result)
            assert len(got) == len(expected)
            for mine, theirs in zip(got, expected, strict=True):
                assert np.array_equal(mine, theirs) and type(mine) is type(theirs)
    starts = [decode(a) for a, _ in recorded[UPDATE]]
    assert any(s["w"].tolist() == [0.0, 0.0] and s["x"].tolist() == [2.0, 1.0] for s in starts)
    epochs = [decode(a) for a, _ in recorded[EPOCH]]
    assert not any(np.array_equal(e["w"], [-1, -4]) for e in epochs)
    # only the labels asked for
    assert set(record_replays([SOURCE], [_release_like(tmp_path)], [EPOCH])) == {EPOCH}
    assert record_replays([SOURCE], [_release_like(tmp_path)], []) == {}


def test_a_test_cell_that_fails_with_the_solutions_stops_the_release(tmp_path):
    nb = nbformat.read(SOURCE, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "perceptron_epoch":
            cell.source = "def perceptron_epoch(X, y, w, b):\n    return None\n"
    broken = tmp_path / "source" / f"{SECOND}.ipynb"
    broken.parent.mkdir(parents=True)
    nbformat.write(nb, broken)
    with pytest.raises(AnswersError, match=r"perceptron_epoch_visible.*fails with the instructor"):
        record_replays([broken], [_release_like(tmp_path, broken)], [UPDATE])
