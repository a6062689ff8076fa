"""autograder.recheck.runner: a test cell runs here, the student's functions stay remote."""

from __future__ import annotations

import pytest

from autograder import recheck

pytestmark = pytest.mark.slow  # a sandboxed kernel: seconds to start


def test_a_test_cell_runs_here_with_the_students_function_remote(channel):
    code = recheck.InstructorCode(
        [
            ("code", None, "import numpy as np\nfrom linlib.grading import assert_close"),
            ("solution", "a", "def scale(x, k=2):\n    raise NotImplementedError()"),
            ("test", "t", "assert_close(call_student(scale, [1.0], 3), [3.0])"),
        ]
    )
    source = (
        "from linlib.grading import call_student\n"
        "assert_close(call_student(scale, [1.0], 3), [3.0])\n"
        "### BEGIN HIDDEN TESTS\n"
        "assert_close(call_student(scale, np.arange(3)), [0.0, 2.0, 5.0])\n"
        "### END HIDDEN TESTS\n"
    )
    result = recheck.run_test_cell("t", source, code, channel)
    assert not result.passed and result.where == "hidden"
    assert result.calls == 2
    good = source.replace("5.0", "4.0")
    assert recheck.run_test_cell("t", good, code, channel).passed


def test_a_test_cell_with_use_reference_passes_in_the_recheck(channel):
    code = recheck.InstructorCode(
        [
            ("code", None, "import numpy as np\nfrom linlib.grading import assert_close"),
            ("solution", "a", "def signed_distance(X, w, b):\n    raise NotImplementedError()"),
            (
                "solution",
                "b",
                "def distances_via_own_helper(X, w, b):\n    raise NotImplementedError()",
            ),
            ("test", "t", ""),
        ]
    )
    source = (
        "from linlib.grading import assert_close, call_student\n"
        "assert_close(call_student(distances_via_own_helper, [[3.0, 4.0]], [3.0, 4.0], 0.0,\n"
        "    use_reference=('signed_distance',)), [5.0])\n"
    )
    assert recheck.run_test_cell("t", source, code, channel).passed
    without = source.replace("use_reference=('signed_distance',)", "disable=()")
    result = recheck.run_test_cell("t", without, code, channel)
    assert not result.passed
