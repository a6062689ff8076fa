"""autograder.recheck.outcomes: time-outs, killed kernels and restarts become one flag line
each, naming the exercise of a hung function and the tests it cost."""

from __future__ import annotations

from autograder.recheck import CheckResult, HungCall, InstructorCode
from autograder.recheck.outcomes import RunState, hang_flags

CODE = InstructorCode(
    [
        ("code", None, "import numpy as np"),
        ("solution", "fit_answer", "def fit(X):\n    raise NotImplementedError()"),
        ("test", "fit_visible", "fit([1])"),
        ("solution", "predict_answer", "def predict(X):\n    raise NotImplementedError()"),
        ("test", "predict_visible", "predict([1])"),
    ]
)


def test_nothing_happened_nothing_is_flagged():
    assert hang_flags(RunState(), {"fit_visible": CheckResult("fit_visible", True)}, CODE) == []


def test_a_hung_function_is_one_line_naming_its_exercise_and_its_lost_tests():
    state = RunState(timeouts=[(7, 10), (8, 2)], hung=[HungCall("fit", 5, False)])
    results = {
        "fit_visible": CheckResult(
            "fit_visible",
            False,
            "KernelCallTimeout",
            "fit: no answer within 5 s (interrupted)",
            timed_out="fit",
        ),
        "fit_hidden": CheckResult(
            "fit_hidden",
            False,
            "KernelCallTimeout",
            "fit did not return within 5 s earlier; not called again",
            timed_out="fit",
        ),
        "predict_visible": CheckResult("predict_visible", True),
    }
    flags = hang_flags(state, results, CODE)
    assert flags == [
        "time-out: cell(s) #8 (10 s), #9 (2 s) did not finish in the student's kernel and "
        "were interrupted; the tests are decided by the trusted re-check",
        "exercise fit_answer: fit did not return within 5 s when re-checked (timed out; its "
        "tests fit_visible, fit_hidden scored 0)",
    ]


def test_a_killed_and_restarted_kernel_is_said_once_per_cause():
    state = RunState(
        timeouts=[(7, 10)],
        killed=[8],
        restarted=8,
        restarted_in_recheck=True,
        hung=[HungCall("predict", 5, True)],
    )
    flags = hang_flags(state, {}, CODE)
    assert len(flags) == 3 and all("\n" not in f for f in flags)
    assert flags[1].startswith("cell #8 did not stop when interrupted: the kernel was killed")
    assert flags[2] == (
        "exercise predict_answer: predict did not return within 5 s when re-checked (timed "
        "out; its tests scored 0); it ignored the interrupt, so the kernel was killed and "
        "restarted for the other exercises"
    )


def test_the_tests_a_hung_function_cost_are_those_of_its_own_calls():
    """A test that timed out in another function, whose name starts with the hung one's,
    is not counted against it."""
    state = RunState(hung=[HungCall("fit", 5, False)])
    results = {
        "fit_visible": CheckResult(
            "fit_visible", False, "KernelCallTimeout", "fit: no answer", timed_out="fit"
        ),
        "fit_more_visible": CheckResult(
            "fit_more_visible",
            False,
            "KernelCallTimeout",
            "fit_more: no answer",
            timed_out="fit_more",
        ),
    }
    (flag,) = hang_flags(state, results, CODE)
    assert "its tests fit_visible scored 0" in flag
