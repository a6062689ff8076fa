"""Pieces of the autograder on their own: the worker pool, the feedback redaction, the
stderr preprocessor and the pre-warmed kernels."""

from __future__ import annotations

import math
import operator
import os
import time
from pathlib import Path

import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.grading.pool import Task, WorkerPool, WorkerPoolBroken
from autograder.grading.preprocessors import HideGraderPaths, RedactHiddenTests, StderrToStdout
from course_common.paths import REPO_ROOT

# --------------------------------------------------------------------------- worker pool


def test_the_class_is_graded_longest_assignment_first():
    from autograder.grading.batch import longest_first

    jobs = [("01", "a"), ("01", "b"), ("02", "a"), ("03", "a"), ("03", "b"), ("04", "a")]
    costs = {"01": 1.8, "02": 1.5, "03": 3.0}  # 04: no canary seconds, last
    assert longest_first(jobs, costs) == [
        ("03", "a"),
        ("03", "b"),
        ("01", "a"),
        ("01", "b"),
        ("02", "a"),
        ("04", "a"),
    ]
    assert longest_first(jobs, {}) == jobs


@pytest.mark.slow
def test_pool_survives_failing_dying_and_hanging_tasks(tmp_path):
    tasks = [
        Task("add", operator.add, (1, 2)),
        Task("raises", math.sqrt, (-1.0,)),
        Task("dies", os._exit, (3,)),
        Task("hangs", time.sleep, (60,), timeout=2.0),
        Task("after", operator.mul, (6, 7)),
        Task("shouts", os.write, (2, b"to the log, not the terminal")),
    ]
    start = time.monotonic()
    outcomes = {o.key: o for o in WorkerPool(2, log_dir=tmp_path).run(tasks)}
    assert time.monotonic() - start < 30
    assert outcomes["add"].ok and outcomes["add"].value == 3
    assert not outcomes["raises"].ok and "ValueError" in outcomes["raises"].error
    assert not outcomes["dies"].ok and "worker died" in outcomes["dies"].error
    assert not outcomes["hangs"].ok and "longer than 2 s" in outcomes["hangs"].error
    assert outcomes["after"].ok and outcomes["after"].value == 42
    assert outcomes["shouts"].value == 28
    logs = "".join(p.read_text() for p in tmp_path.glob("worker-*.log"))
    assert "to the log, not the terminal" in logs


def test_a_pool_held_open_runs_each_step_on_the_same_workers(tmp_path):
    """Inside ``with``, the canary's step and the class's run on one set of workers (their
    warm kernels started once); a step left early has its other tasks cancelled, and the
    workers are stopped when the block ends."""
    with WorkerPool(1, log_dir=tmp_path) as pool:
        (first,) = [o.value for o in pool.run([Task("pid", os.getpid)])]
        steps = pool.run([Task("pid", os.getpid), Task("slow", time.sleep, (60,))])
        assert next(steps).value == first  # the same worker
        start = time.monotonic()
        steps.close()  # the caller stopped (a failed canary): the sleeper is cancelled
        (after,) = pool.run([Task("add", operator.add, (1, 2))])
        assert after.value == 3 and time.monotonic() - start < 30
    assert pool._open is None
    import psutil

    assert not psutil.pid_exists(first) or psutil.Process(first).status() == "zombie"


def test_pool_stops_when_workers_cannot_start(tmp_path):
    pool = WorkerPool(1, log_dir=tmp_path, initializer=os._exit, initargs=(1,))
    with pytest.raises(WorkerPoolBroken, match="keep dying"):
        list(pool.run([Task(i, operator.neg, (i,)) for i in range(5)]))


# --------------------------------------------------------------------------- preprocessors


def _test_cell(source, outputs, score, points=2):
    cell = new_code_cell(source, outputs=outputs)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "locked": True,
        "grade_id": "t",
        "points": points,
        "score": score,
    }
    return cell


def test_redaction_preprocessor_shows_outcome_and_cuts_tracebacks():
    error = new_output(
        "error",
        ename="AssertionError",
        evalue="expected 2, got 3",
        traceback=["Traceback", "----> 3 assert f(2) == 2  # SECRET_LINE", "AssertionError"],
    )
    failed = _test_cell(
        "### BEGIN HIDDEN TESTS\nassert f(2) == 2  # SECRET_LINE\n### END HIDDEN TESTS",
        [error],
        score=0,
    )
    passed = _test_cell("x = 1\n### BEGIN HIDDEN TESTS\nassert True\n### END HIDDEN TESTS", [], 2)
    nb = new_notebook(cells=[failed, passed])
    nb, _ = RedactHiddenTests().preprocess(nb, {})
    assert nb.cells[0].source == "# hidden tests (source withheld): failed, 0 of 2 points"
    assert nb.cells[0].outputs[0].traceback == ["AssertionError: expected 2, got 3"]
    assert "SECRET_LINE" not in str(nb)
    assert nb.cells[1].source == "x = 1\n# hidden tests (source withheld): passed, 2 of 2 points"


def test_feedback_names_no_folder_of_the_grader_machine(tmp_path):
    import sysconfig

    numpy_file = str(Path(np.__file__).parent / "linalg" / "linalg.py")
    grading_file = str(REPO_ROOT / "linlib" / "grading.py")
    course_file = str(tmp_path / "course" / "source" / "a" / "a.ipynb")
    stdlib_file = str(Path(sysconfig.get_paths()["stdlib"]) / "json" / "decoder.py")
    traceback = [
        f"\x1b[36mFile \x1b[0m\x1b[32m{grading_file}:662\x1b[0m, in call_student",
        f"File {numpy_file}:10 and {stdlib_file}:3",
    ]
    error = new_output("error", ename="E", evalue=f"see {course_file}", traceback=traceback)
    printed = new_output("stream", name="stdout", text=f"read {course_file}\n")
    shown = new_output("execute_result", data={"text/plain": repr(grading_file)})
    other = "/elsewhere/linlib/grading.py"  # not a folder of this machine: kept
    # a warning raised in a cell names the kernel's cell file, in a folder with its pid
    warned = new_output(
        "stream",
        name="stderr",
        text="/tmp/ipykernel_29289/1189467442.py:12: RuntimeWarning: invalid value\n"
        "  /var/tmp/run.d/ipykernel_7/55.py:3: UserWarning\n",
    )
    outputs = [error, printed, shown, new_output("stream", text=other), warned]
    cell = new_code_cell("f()", outputs=outputs)
    hide = HideGraderPaths(course_root=str(tmp_path / "course"))
    nb, _ = hide.preprocess(new_notebook(cells=[cell]), {})
    outputs = nb.cells[0].outputs
    assert outputs[0].traceback[0].endswith("linlib/grading.py:662\x1b[0m, in call_student")
    assert outputs[0].traceback[1] == (
        "File site-packages/numpy/linalg/linalg.py:10 and python/json/decoder.py:3"
    )
    assert outputs[0].evalue == "see source/a/a.ipynb"
    assert outputs[1].text == "read source/a/a.ipynb\n"
    assert outputs[2].data["text/plain"] == repr("linlib/grading.py")
    assert outputs[3].text == other
    assert outputs[4].text == (
        "1189467442.py:12: RuntimeWarning: invalid value\n  55.py:3: UserWarning\n"
    )
    for folder in (str(REPO_ROOT), str(tmp_path), sysconfig.get_paths()["purelib"]):
        assert folder not in str(nb)


def test_stderr_becomes_stdout_only_in_passing_test_cells():
    warning = new_output("stream", name="stderr", text="UserWarning: careful\n")
    error = new_output("error", ename="E", evalue="", traceback=[])
    passing = _test_cell("f()", [dict(warning)], score=None)
    failing = _test_cell("f()", [dict(warning), error], score=None)
    plain = new_code_cell("g()", outputs=[dict(warning)])
    nb = new_notebook(cells=[passing, failing, plain])
    nb, _ = StderrToStdout().preprocess(nb, {})
    assert nb.cells[0].outputs[0]["name"] == "stdout"
    assert nb.cells[1].outputs[0]["name"] == "stderr"
    assert nb.cells[2].outputs[0]["name"] == "stderr"


# --------------------------------------------------------------------------- pre-warmed kernels


def _run(kc, code: str) -> str:
    chunks = []

    def keep(msg):
        if msg["msg_type"] == "stream":
            chunks.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            chunks.append(msg["content"]["ename"])

    kc.execute_interactive(code, output_hook=keep, timeout=60)
    return "".join(chunks)


@pytest.mark.slow
def test_prewarmed_kernels_are_fresh_forks(tmp_path):
    from jupyter_client.blocking import BlockingKernelClient
    from jupyter_client.utils import run_sync

    from autograder.grading import prewarm
    from autograder.sandbox import ForkedKernelProcess

    template = prewarm.start_template(str(tmp_path / "kernels.log"))
    try:
        pids = []
        for value in ("1", "2"):
            km = prewarm.PrewarmedKernelManager()
            run_sync(km.start_kernel)(cwd=str(tmp_path))
            assert isinstance(km.provisioner.process, ForkedKernelProcess)
            kc = BlockingKernelClient()
            kc.load_connection_info(km.get_connection_info())
            kc.start_channels()
            kc.wait_for_ready(timeout=60)
            try:
                # numpy came with the template; nothing of the previous kernel is left
                out = _run(kc, "import sys, os; print('numpy' in sys.modules, os.getcwd())")
                assert out.split() == ["True", str(tmp_path)]
                assert _run(kc, "print(globals().get('leftover'))").strip() == "None"
                _run(kc, f"leftover = {value}")
                pids.append(km.provisioner.pid)
            finally:
                kc.stop_channels()
                run_sync(km.shutdown_kernel)(now=True)
        assert pids[0] != pids[1]
        for pid in pids:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
    finally:
        prewarm.stop_template()
    assert template.process.poll() is not None


def test_nbgraders_cell_check_with_the_schema_checked_once_raises_what_stock_raises():
    """:func:`~autograder.grading.task.check_schemas_once`: nbgrader's metadata check of a
    cell passes and fails as with stock ``jsonschema.validate`` (the same error text), and
    the schema is checked against its meta-schema once, not per cell."""
    import jsonschema
    from nbformat.v4 import new_code_cell
    from nbgrader.nbgraderformat import common
    from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

    from autograder.grading.task import check_schemas_once

    good, bad = new_code_cell("x = 1"), new_code_cell("x = 1")
    meta = {"grade_id": "a", "schema_version": 3, "grade": True, "solution": False}
    good.metadata["nbgrader"] = {**meta, "locked": True, "points": 1}
    bad.metadata["nbgrader"] = {**meta, "grade_id": 3, "locked": "yes", "points": 1}
    validator = MetadataValidatorV3()
    saved = common.jsonschema
    try:
        with pytest.raises(jsonschema.ValidationError) as stock:
            validator.validate_cell(bad)
        check_schemas_once()
        checks = []
        real = jsonschema.validators.Draft4Validator.check_schema
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(
                jsonschema.validators.Draft4Validator,
                "check_schema",
                classmethod(lambda cls, schema, **kw: checks.append(1) or real(schema, **kw)),
            )
            for _ in range(3):
                validator.validate_cell(good)
            with pytest.raises(jsonschema.ValidationError) as once:
                validator.validate_cell(bad)
        assert str(once.value) == str(stock.value)
        assert len(checks) <= 1
    finally:
        common.jsonschema = saved
