"""autograder.grading.safe_execute: SafeExecute gives the kernel only the visible tests (the
hidden-test parser of autograder.notebook matches nbgrader's), and the trusted re-check
decides each test cell."""

from __future__ import annotations

import json
import time

import nbformat
import pytest

from course_common.paths import REPO_ROOT

REPO = REPO_ROOT
SOURCE_NOTEBOOKS = sorted(REPO.glob("notebooks/*/*.ipynb"))


def _meta(**kw):
    base = {"grade": False, "solution": False, "locked": False, "schema_version": 3}
    base.update(kw)
    return {"nbgrader": base}


def _tiny_notebook(answer: str) -> nbformat.NotebookNode:
    """Setup, one answer cell, one test cell with a hidden part that prints a marker."""
    cells = [
        nbformat.v4.new_code_cell(
            "import numpy as np\nfrom linlib.grading import assert_close, call_student",
            metadata=_meta(grade_id="setup", locked=True),
        ),
        nbformat.v4.new_code_cell(answer, metadata=_meta(grade_id="scale_answer", solution=True)),
        nbformat.v4.new_code_cell(
            '"""scale: doubles."""\n'
            "assert_close(call_student(scale, [1.0, 2.0]), [2.0, 4.0])\n"
            "### BEGIN HIDDEN TESTS\n"
            "print('HIDDEN-MARKER')\n"
            "assert_close(call_student(scale, [-3.0]), [-6.0])\n"
            "### END HIDDEN TESTS",
            metadata=_meta(grade_id="scale_tests", grade=True, locked=True, points=1),
        ),
    ]
    return nbformat.v4.new_notebook(
        cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    )


def _safe_execute(nb, tmp_path, **settings):
    from autograder.grading.safe_execute import SafeExecute

    pp = SafeExecute(**{"timeout": 20, **settings})
    nb, _ = pp.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    return nb


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_safe_execute_passes_a_correct_answer_and_never_runs_hidden_tests_in_the_kernel(
    tmp_path,
):
    nb = _safe_execute(_tiny_notebook("def scale(x):\n    return np.asarray(x) * 2.0"), tmp_path)
    test = nb.cells[2]
    assert [o for o in test.outputs if o.output_type == "error"] == []
    assert "HIDDEN-MARKER" not in json.dumps(test.outputs)
    assert "BEGIN HIDDEN TESTS" in test.source  # the graded copy keeps the instructor's source
    meta = nb.metadata["autograder"]
    assert meta["checks"]["scale_tests"]["kernel"] == "pass"
    assert meta["checks"]["scale_tests"]["trusted"] == "pass"
    assert meta["checks"]["scale_tests"]["calls"] == 2
    assert meta["flags"] == []


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_safe_execute_fails_a_tampered_wrong_answer_and_flags_it(tmp_path):
    answer = (
        "import linlib.grading\n"
        "linlib.grading.assert_close = lambda *a, **k: None\n"
        "assert_close = linlib.grading.assert_close\n"
        "def assert_close(*args, **kwargs):  # must not stand in for the real one\n"
        "    return None\n"
        "def scale(x):\n"
        "    return np.abs(np.asarray(x)) * 2.0\n"
    )
    nb = _safe_execute(_tiny_notebook(answer), tmp_path)
    errors = [o for o in nb.cells[2].outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "AssertionError"
    assert "HIDDEN-MARKER" not in json.dumps(nb.cells[2].outputs)
    assert "assert_close(call_student(scale, [-3.0])" not in json.dumps(errors)
    check = nb.metadata["autograder"]["checks"]["scale_tests"]
    assert (check["kernel"], check["trusted"], check["where"]) == ("pass", "fail", "hidden")
    flags = nb.metadata["autograder"]["flags"]
    assert any("patches" in f for f in flags), flags
    assert any("rebinds assert_close" in f for f in flags), flags


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_safe_execute_stops_an_uninterruptible_cell_and_scores_what_follows_zero(tmp_path):
    answer = (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "def scale(x):\n    return np.asarray(x) * 2.0\n"
        "while True:\n    pass\n"
    )
    start = time.monotonic()
    nb = _safe_execute(_tiny_notebook(answer), tmp_path, timeout=3, interrupt_grace=1)
    assert time.monotonic() - start < 60
    assert any(o.output_type == "error" for o in nb.cells[2].outputs)
    check = nb.metadata["autograder"]["checks"]["scale_tests"]
    assert check["kernel"] == "not run" and check["trusted"] == "fail"
    assert any("did not stop when interrupted" in f for f in nb.metadata["autograder"]["flags"])


def test_leftover_process_helpers_see_children_and_ignore_zombies():
    """psutil stands for the /proc reads: a direct child is listed while it exists, a
    finished child nobody waited for (a zombie) is not running, a gone pid neither."""
    import os
    import subprocess

    from autograder.grading.safe_execute import _children, _running

    child = subprocess.Popen(["sleep", "30"])
    try:
        assert child.pid in _children(os.getpid())
        assert _running(child.pid)
    finally:
        child.kill()
    deadline = time.monotonic() + 10
    while _running(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child.pid)  # killed, not yet waited for: a zombie
    child.wait()
    assert not _running(child.pid) and _children(child.pid) == []


def test_after_a_time_out_only_answer_cells_keep_the_full_cell_limit():
    """A hang costs its own exercise: once a cell timed out, every later cell but the
    answers gets ``after_timeout``; past the notebook's time, answers get it too; a cell
    run again after a restart gets the full limit within what is left for re-runs."""
    from autograder.grading.safe_execute import SafeExecute
    from autograder.recheck.outcomes import RunState

    pp = SafeExecute(timeout=30, after_timeout=5)
    pp._replaying = False
    pp._run_state = RunState()
    pp._deadline = time.monotonic() + 300
    answer = nbformat.v4.new_code_cell("def f(): pass", metadata=_meta(solution=True))
    other = nbformat.v4.new_code_cell("f()", metadata=_meta())
    assert (pp._cell_timeout(answer), pp._cell_timeout(other)) == (30, 30)
    pp._run_state.timeouts.append((3, 30))
    assert (pp._cell_timeout(answer), pp._cell_timeout(other)) == (30, 5)
    pp._deadline = time.monotonic() - 1
    assert (pp._cell_timeout(answer), pp._cell_timeout(other)) == (5, 5)
    pp._replaying = True
    pp._replay_budget = time.monotonic() + 300
    assert pp._cell_timeout(other) == 30
    pp._replay_budget = time.monotonic() + 10
    assert pp._cell_timeout(other) == 10
