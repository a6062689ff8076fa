"""The re-check follows the notebook: test cells in order in one trusted namespace, the
student's objects reached by reference, the test's functions called back, and a verdict
that the student's own code decides recorded as such (issue 44, kinds 1-5)."""

from __future__ import annotations

import pytest

from autograder import recheck
from autograder.recheck import KernelChannel
from autograder.recheck.runner import NotebookCheck
from tests.needs import require_sandbox

pytestmark = pytest.mark.slow  # a sandboxed kernel: seconds to start

STUDENT = """
import numpy as np

def squares(n):
    for i in range(n):
        yield i * i

class Counter:
    def __init__(self, start=0):
        self.n = start
    def __call__(self, k=1):
        self.n += k
        return self.n
    def __getitem__(self, i):
        return i * 10
    def __len__(self):
        return self.n
    def __eq__(self, other):
        return isinstance(other, Counter) and other.n == self.n

class Tally(dict):
    def total(self):
        return sum(self.values())

def apply_all(f, xs):
    return [f(x) for x in xs]

class Anything:
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0

def lies():
    return Anything()

np = None  # the student's cell rebinds np: the test's np is the instructor's import
"""

#: The instructor's notebook: np imported in the given lines of an answer cell.
CODE = recheck.InstructorCode(
    [
        (
            "solution",
            "gen",
            "import numpy as np\n\ndef squares(n):\n    ### BEGIN SOLUTION\n    yield 0\n"
            "    ### END SOLUTION",
        ),
        ("test", "t_gen", ""),
        (
            "solution",
            "cls",
            "class Counter:\n    ### BEGIN SOLUTION\n    pass\n    ### END SOLUTION",
        ),
        ("test", "t_cls", ""),
        ("test", "t_later", ""),
        ("solution", "tally", "class Tally(dict):\n    pass"),
        ("solution", "apply", "def apply_all(f, xs):\n    pass"),
        ("test", "t_cb", ""),
        ("solution", "lies", "def lies():\n    pass"),
        ("test", "t_lies", ""),
    ]
)


@pytest.fixture(scope="module")
def channel():
    require_sandbox()
    from jupyter_core.utils import run_sync

    from autograder.sandbox import SandboxedKernelManager

    km = SandboxedKernelManager()
    run_sync(km.start_kernel)()
    kc = km.client()
    kc.start_channels()
    run_sync(kc.wait_for_ready)(timeout=60)
    reply = run_sync(kc.execute_interactive)(STUDENT, timeout=60, output_hook=lambda m: None)
    assert reply["content"]["status"] == "ok"
    yield KernelChannel(km, kc, call_timeout=10, interrupt_grace=2)
    kc.stop_channels()
    run_sync(km.shutdown_kernel)(now=True)


def test_test_cells_share_one_namespace_and_reach_the_students_objects(channel):
    check = NotebookCheck(CODE, channel)
    gen = check.run(
        "t_gen",
        "g = squares(4)\nassert next(g) == 0\n"
        "### BEGIN HIDDEN TESTS\nassert list(g) == [1, 4, 9]\nseen = np.arange(3).sum()\n"
        "### END HIDDEN TESTS",
    )
    assert gen.passed and gen.decided, gen
    counter = check.run(
        "t_cls",
        "c = Counter(2)\nassert c(3) == 5 and c[4] == 40 and len(c) == 5\n"
        "assert isinstance(c, Counter) and type(c) is Counter\n",
    )
    assert counter.passed and counter.decided, counter
    # what the earlier cells bound (a hidden part's too) is there; an equality decided by the
    # student's own __eq__ is recorded as such
    later = check.run("t_later", "assert seen == 3\nassert c == Counter(5)")
    assert later.passed and not later.decided
    assert later.decided_by == ["Counter.__eq__"]
    assert "rests on the student's own code (Counter.__eq__)" in later.why_undecided()


def test_a_dict_subclass_of_the_students_keeps_its_methods(channel):
    result = recheck.run_test_cell(
        "t_tally", "t = Tally()\nt['a'] = 2\nt['b'] = 3\nassert t.total() == 5", CODE, channel
    )
    assert result.passed and result.decided, result


def test_a_function_the_test_passes_is_called_back_in_the_grader(channel):
    source = (
        "calls = []\n"
        "def record(x):\n"
        "    calls.append(x)\n"
        "    return x + 1\n"
        "assert apply_all(record, [1, 2]) == [2, 3]\n"
        "assert calls == [1, 2]\n"
        "assert apply_all(lambda v: v * 2, [3]) == [6]\n"
    )
    result = recheck.run_test_cell("t_cb", source, CODE, channel)
    assert result.passed and result.decided, result
    wrong = source.replace("calls == [1, 2]", "calls == [2, 1]")
    assert not recheck.run_test_cell("t_cb", wrong, CODE, channel).passed


def test_an_always_equal_object_decides_nothing_by_itself(channel):
    for check in ("assert lies() == 42", "assert abs(lies() - 42) < 1e-9"):
        result = recheck.run_test_cell("t_lies", check, CODE, channel)
        assert not result.decided, check  # the outcome rests on the student's object
        assert result.decided_by[0].startswith("Anything.__")
    # compared as data by the test's own code, it cannot pass
    result = recheck.run_test_cell("t_lies", "assert float(lies()) == 42", CODE, channel)
    assert not result.passed and result.decided
