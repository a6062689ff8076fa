"""autograder.recheck.diagnosis: the student's functions, in the sandboxed kernel, called on
the catalogue's probes for the exercises whose tests failed (notebook 01's catalogue)."""

from __future__ import annotations

import nbformat
import pytest

from autograder.misconceptions import load_catalogue
from autograder.notebook import is_test_cell
from autograder.recheck import KernelChannel
from autograder.recheck.channel import HungCall
from autograder.recheck.diagnosis import diagnose_failures, failed_exercises
from autograder.recheck.runner import CheckResult
from course_common.paths import REPO_ROOT
from tests.needs import require_sandbox

pytestmark = pytest.mark.slow  # a sandboxed kernel: seconds to start

ROOT = REPO_ROOT
FOLDER = ROOT / "notebooks" / "01_hyperplanes"

STUDENT_CODE = """
import numpy as np

def activation(X, w, b):  # forgets the bias
    return np.asarray(X, dtype=float) @ np.asarray(w, dtype=float)

def predict(X, w, b):  # the release's stub
    raise NotImplementedError()

def signed_distance(X, w, b):  # a mistake the catalogue does not know
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    return (np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w) + 1.0

def augment_bias(X):  # never answers
    import time
    time.sleep(10**6)
"""


@pytest.fixture(scope="module")
def kernel():
    require_sandbox()
    from jupyter_core.utils import run_sync

    from autograder.sandbox import SandboxedKernelManager

    km = SandboxedKernelManager()
    run_sync(km.start_kernel)()
    kc = km.client()
    kc.start_channels()
    run_sync(kc.wait_for_ready)(timeout=60)
    reply = run_sync(kc.execute_interactive)(STUDENT_CODE, timeout=60, output_hook=lambda m: None)
    assert reply["content"]["status"] == "ok"
    # the first request imports the kernel's side of the channel: not timed by the tests
    KernelChannel(km, kc, call_timeout=120).describe(["activation"])
    yield km, kc
    kc.stop_channels()
    run_sync(km.shutdown_kernel)(now=True)


def _tests() -> dict[str, str]:
    nb = nbformat.read(FOLDER / "01_hyperplanes.ipynb", as_version=4)
    return {c.metadata.nbgrader["grade_id"]: c.source for c in nb.cells if is_test_cell(c)}


def _results(failed: dict[str, str]) -> dict[str, CheckResult]:
    """Every test of the notebook, the named ones failed (with that ename)."""
    return {
        g: CheckResult(g, g not in failed, failed.get(g, ""), "", "visible" if g in failed else "")
        for g in _tests()
    }


def test_failed_exercises_in_catalogue_order():
    catalogue = load_catalogue(FOLDER)
    results = _results({"predict_hidden": "AssertionError", "activation_visible": "X"})
    assert failed_exercises(catalogue, results) == {
        "activation": ["activation_visible"],
        "predict": ["predict_hidden"],
    }


def test_a_failed_exercise_is_diagnosed_in_the_kernel(kernel):
    km, kc = kernel
    calls = []

    def restart():
        calls.append("restart")
        raise AssertionError("a diagnosis never restarts the kernel")

    channel = KernelChannel(km, kc, call_timeout=30, interrupt_grace=2, restart=restart)
    results = _results(
        {
            "activation_visible": "AssertionError",
            "predict_hidden": "AssertionError",
            "signed_distance_hidden": "AssertionError",
        }
    )
    records = diagnose_failures(load_catalogue(FOLDER), results, _tests(), channel)
    # the misconception the student's activation shows, its probe as the student sees it
    activation = records["activation"]
    assert activation["misconception"] == "forgets_bias"
    assert activation["call"] == "activation([[1.0, 2.0], [0.0, 0.0]], [3.0, 4.0], 5.0)"
    assert (activation["got"], activation["rule"]) == ("array([11.0, 0.0])", "array([16.0, 5.0])")
    assert activation["tests"] == ["activation_visible"]
    assert activation["says"] and activation["hint"]
    # no catalogued misconception: the smallest failing probe, what came back, the rule
    distance = records["signed_distance"]
    assert distance["misconception"] is None
    calls_of = load_catalogue(FOLDER).exercises["signed_distance"].calls()
    failing = [c for c in calls_of if "[0.0, 0.0], 1.0" not in c]  # the w = 0 probe passes
    assert distance["call"] == min(failing, key=lambda c: (len(c), c))
    assert distance["got"].startswith("array([") and distance["rule"].startswith("array([")
    # the stub is not diagnosed, the passed exercise not even called
    assert "predict" not in records and "augment_bias" not in records
    assert calls == [] and channel.restart is restart


def test_a_function_that_hung_in_the_tests_is_not_called_again(kernel):
    km, kc = kernel
    channel = KernelChannel(km, kc, call_timeout=30, interrupt_grace=2)
    channel.hung["augment_bias"] = HungCall("augment_bias", 30.0, False)
    results = _results(
        {"augment_bias_visible": "KernelCallTimeout", "augment_bias_hidden": "KernelCallTimeout"}
    )
    before = channel.calls
    records = diagnose_failures(load_catalogue(FOLDER), results, _tests(), channel)
    assert channel.calls == before
    assert records["augment_bias"]["timed_out"] == 30
    assert records["augment_bias"]["tests"] == ["augment_bias_hidden", "augment_bias_visible"]


def test_a_probe_that_hangs_ends_the_exercise_without_a_record(kernel):
    """The probe call times out (the function sleeps): no record, and it took one call
    limit, not one per probe."""
    import time

    km, kc = kernel
    channel = KernelChannel(km, kc, call_timeout=4, interrupt_grace=3)
    results = _results({"augment_bias_hidden": "AssertionError"})
    start = time.monotonic()
    records = diagnose_failures(load_catalogue(FOLDER), results, _tests(), channel)
    assert records == {}
    assert time.monotonic() - start < 2 * (4 + 3)  # one call limit (and its grace), not four
    assert "augment_bias" in channel.hung
