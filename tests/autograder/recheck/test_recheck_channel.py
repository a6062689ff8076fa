"""autograder.recheck.channel: calls of a student's function in the sandboxed kernel bring
back plain data, exceptions and in-place changes; names are described, not taken."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autograder import recheck
from autograder.recheck.channel import _request_code
from autograder.recheck.mirror import mirror as _mirror
from linlib.grader_kernel_wire import REPLY_MIME
from tests.linlib.plain_values import NUMPY_ARRAYS, NUMPY_SCALARS, same_numpy


def test_a_request_is_one_call_of_the_kernel_side_module(monkeypatch):
    """The code sent to the kernel calls linlib._remote on the notebook's namespace, and
    binds nothing in it."""
    import IPython.display

    published = []
    monkeypatch.setattr(IPython.display, "publish_display_data", published.append)
    namespace = {"__builtins__": __builtins__, "answer": [1, 2.5]}
    code = _request_code({"op": "describe", "names": ["answer"], "nonce": "n1"})
    assert "linlib._remote" in code and len(code.splitlines()) == 1
    exec(code, namespace)
    (data,) = published
    reply = json.loads(data[REPLY_MIME])
    assert reply["nonce"] == "n1"
    assert recheck.decode(reply["names"]["answer"]["value"]) == [1, 2.5]
    assert set(namespace) == {"__builtins__", "answer"}


def test_list_holding_arrays_is_mirrored_without_ambiguous_truth_value():
    """A list of arrays (e.g. perceptron states) compares element-wise, never with ``==``."""
    old = [np.array([1.0, 2.0]), np.array([3.0])]
    _mirror(old, [np.array([1.0, 2.0]), np.array([4.0])])
    assert len(old) == 2
    assert np.array_equal(old[1], [4.0])


def test_unchanged_list_of_arrays_keeps_its_elements():
    """Nothing changed in the kernel: the trusted side's objects stay the very same objects."""
    first = np.array([1.0, np.nan])
    old = [first, {"w": np.zeros(2)}]
    _mirror(old, [np.array([1.0, np.nan]), {"w": np.zeros(2)}])
    assert old[0] is first


def test_dict_of_arrays_is_mirrored():
    """A dict argument changed in place by the student is changed on the trusted side too."""
    old = {"w": np.zeros(2), "b": 0.0}
    _mirror(old, {"w": np.ones(2), "b": 1.0})
    assert old["b"] == 1.0
    assert np.array_equal(old["w"], [1.0, 1.0])


def test_a_remote_call_brings_back_plain_values(channel):
    from linlib.grading import assert_close, call_student

    scale = recheck.RemoteFunction(channel, "scale")
    result = call_student(scale, [1, 2, 3], k=-1.5)
    assert isinstance(result, np.ndarray)
    assert_close(result, [-1.5, -3.0, -4.5])
    value, info = recheck.RemoteFunction(channel, "pair")(7)
    assert type(value) is np.float32 and value == 7 and info == {"n": 7}


def test_in_place_changes_to_arguments_are_mirrored(channel):
    items, arr = [1, 2], np.zeros(2)
    assert recheck.RemoteFunction(channel, "grow")(items, arr) is None
    assert items == [1, 2, 99]
    assert arr.tolist() == [-1.0, 0.0]


def test_an_array_returned_as_given_is_the_graders_own_argument(channel):
    """A test can tell whether the student returned a new array or the one it passed."""
    w = np.array([1.0, 2.0])
    same, _ = recheck.RemoteFunction(channel, "keep_or_copy")(w, False)
    assert same is w
    new, _ = recheck.RemoteFunction(channel, "keep_or_copy")(w, True)
    assert new is not w and new.tolist() == [1.0, 2.0]
    w_list = [1, 2]  # np.asarray of a list is a new array: not the list given
    assert recheck.RemoteFunction(channel, "keep_or_copy")(w_list, False)[0] is not w_list


def test_the_students_exceptions_come_back_as_ordinary_ones(channel):
    from linlib.grading import assert_raises

    fails = recheck.RemoteFunction(channel, "fails")
    assert_raises(ValueError, fails, "value")
    error = assert_raises(ValueError, fails, "sneaky")
    assert "Sneaky" in " ".join(getattr(error, "__notes__", []))
    with pytest.raises(recheck.StudentCodeError):
        fails("interrupt")


def test_an_always_equal_object_comes_back_as_a_proxy_whose_comparisons_are_noted(channel):
    value = recheck.RemoteFunction(channel, "lies")()
    assert type(value).__name__ == "Anything"  # the kernel's object, by its handle
    channel.reset_notes()
    assert value == 3  # the student's own __eq__ says so...
    assert channel.decisions == ["Anything.__eq__"]  # ...and the channel notes who decided
    channel.reset_notes()
    assert str(value).startswith("<__main__.Anything object")
    assert channel.decisions == []  # a repr decides nothing


def test_disabled_references_stay_disabled_in_the_kernel(channel):
    from linlib.grading import ReferenceDisabledError, call_student

    fn = recheck.RemoteFunction(channel, "uses_reference")
    X, w = [[3.0, 4.0]], [3.0, 4.0]
    assert call_student(fn, X, w, 0.0)[0] == pytest.approx(5.0)
    with pytest.raises(ReferenceDisabledError):
        call_student(fn, X, w, 0.0, disable=("signed_distance",))


def test_plain_data_names_are_fetched_and_the_rest_by_reference(channel):
    found = channel.describe(["answer", "scale", "np", "nothing_here"])
    assert recheck.decode(found["answer"]["value"]) == [1, 2.5, "three"]
    scale = found["scale"]["value"]
    assert (scale["__ag__"], scale["kind"], scale["name"]) == ("obj", "function", "function")
    np_ref = found["np"]["value"]
    assert (np_ref["kind"], np_ref["name"]) == ("module", "numpy")
    assert found["nothing_here"]["kind"] == "missing"
    with pytest.raises(recheck.NotPlainData, match="object of the kernel"):
        recheck.decode(scale)  # a reference is not plain data where none is expected


def test_numpy_values_of_every_plain_dtype_come_back_from_the_kernel(channel):
    got = recheck.RemoteFunction(channel, "typed_answers")()
    expected = {
        "top_word": (np.str_, "<U3"),
        "top_words": (np.ndarray, "<U4"),
        "order": (np.ndarray, np.dtype(np.intp).str),
        "best": (np.intp, np.dtype(np.intp).str),
        "total": (np.int64, "<i8"),
        "int32": (np.int32, "<i4"),
        "scores": (np.ndarray, "<f4"),
        "mask": (np.ndarray, "|b1"),
        "any": (np.bool_, "|b1"),
    }
    for key, (kind, dtype) in expected.items():
        assert type(got[key]) is kind and got[key].dtype.str == dtype, (key, got[key])
    assert got["top_word"] == "ham" and got["top_words"].tolist() == ["ham", "eggs"]
    assert got["order"].tolist() == [1, 2, 0] and got["best"] == 1 and got["total"] == 3
    assert got["mask"].tolist() == [False, True, True] and got["any"]
    assert [type(v) for v in got["listed"]] == [np.str_, np.float32]


def test_numpy_arguments_of_every_plain_dtype_reach_the_kernel_and_come_back(channel):
    values = NUMPY_SCALARS + NUMPY_ARRAYS
    sent = list(values)
    back = recheck.RemoteFunction(channel, "echo_copy")(sent)
    assert back is not sent
    assert len(back) == len(values)
    for got, value in zip(back, values, strict=True):
        assert same_numpy(got, value), (got, value)


def test_use_reference_runs_the_librarys_reference_in_the_kernel(channel):
    from linlib.grading import call_student

    fn = recheck.RemoteFunction(channel, "distances_via_own_helper")
    X, w = [[3.0, 4.0]], [3.0, 4.0]
    assert call_student(fn, X, w, 0.0).tolist() == [123.0]  # the student's own helper
    got = call_student(fn, X, w, 0.0, use_reference=("signed_distance",))
    assert got.tolist() == pytest.approx([5.0])
    mapped = {"signed_distance": "linlib.geometry.signed_distance"}
    assert call_student(fn, X, w, 0.0, use_reference=mapped).tolist() == pytest.approx([5.0])
    # Only during the call: the student's namespace is restored afterwards.
    assert call_student(fn, X, w, 0.0).tolist() == [123.0]
    found = channel.describe(["signed_distance"])
    assert found["signed_distance"]["value"]["kind"] == "function"


def test_functions_passed_as_arguments_cross_by_reference(channel):
    """A graded function, numpy's and linlib's functions and partials of them are called
    in the kernel by the student's code; they come back (a list of them reversed in place)
    as the very objects the grader sent."""
    import functools

    import linlib

    X = np.array([[1.0, 2.0], [3.0, -1.0]])
    gram = recheck.RemoteFunction(channel, "gram")
    np.testing.assert_allclose(gram(X, np.dot), X @ X.T)
    w, b = np.array([3.0, 4.0]), -5.0
    by_partial = functools.partial(linlib.signed_distance, w=w, b=b)
    scale = recheck.RemoteFunction(channel, "scale")
    functions = [by_partial, scale, functools.partial(scale, k=3), np.exp]
    before = list(functions)
    got = recheck.RemoteFunction(channel, "apply_all")(functions, X)
    assert functions == before[::-1] and all(
        a is b for a, b in zip(functions, before[::-1], strict=True)
    )
    np.testing.assert_allclose(got[0], np.exp(X))
    np.testing.assert_allclose(got[1], 3 * X)
    np.testing.assert_allclose(got[2], 2 * X)
    np.testing.assert_allclose(got[3], (X @ w + b) / 5.0)  # the closed form


def test_a_function_returned_by_the_student_is_the_one_sent_or_the_kernels(channel):
    assert recheck.RemoteFunction(channel, "give_back")(np.dot) is np.dot  # as sent
    square = lambda v: v * v  # noqa: E731 (a function of the grader's: a callback)
    assert recheck.RemoteFunction(channel, "give_back")(square) is square
    theirs = recheck.RemoteFunction(channel, "give_back")(recheck.RemoteFunction(channel, "echo"))
    assert isinstance(theirs, recheck.RemoteFunction) and theirs.name == "echo"


def test_requests_are_named_by_a_constant_and_the_students_cells_keep_their_names(kernel, channel):
    """ipykernel names each cell's code after a hash of its text, in pure Python: from the
    first request on, the kernel names cells by linlib._remote's constant instead; the
    student's cells, run before, keep theirs, so a traceback through a student's function
    still shows the student's own line."""
    import re

    from jupyter_core.utils import run_sync

    from linlib._remote import CELL_NAME

    _km, kc = kernel
    assert recheck.RemoteFunction(channel, "echo")(np.zeros((40, 40))).shape == (40, 40)
    seen: list[dict] = []
    run_sync(kc.execute_interactive)(
        "import linecache\nprint(sorted(linecache.cache).count(" + repr(CELL_NAME) + "))\n"
        "fails('value')",
        timeout=30,
        output_hook=seen.append,
    )
    printed = "".join(m["content"]["text"] for m in seen if m["msg_type"] == "stream")
    assert printed.strip() == "1"  # this very cell went under the constant
    (error,) = [m["content"] for m in seen if m["msg_type"] == "error"]
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error["traceback"]))
    assert 'raise ValueError("bad input")' in traceback


def test_requests_go_as_comm_messages_once_the_kernel_listens(kernel):
    """The first request asks the kernel's side to listen on a comm; every later one is a
    comm message, answered without a cell (1.2 ms of the kernel's CPU a request instead of
    3.1), with the same replies."""
    from jupyter_core.utils import run_sync

    km, kc = kernel
    channel = recheck.KernelChannel(km, kc, call_timeout=5, interrupt_grace=2)
    assert not channel.listening
    assert recheck.RemoteFunction(channel, "echo")(3) == 3
    assert channel.listening
    count = run_sync(kc.execute_interactive)("pass", timeout=30)["content"]["execution_count"]
    assert recheck.RemoteFunction(channel, "echo")([1, {"a": 1.5}]) == [1, {"a": 1.5}]
    assert same_numpy(recheck.RemoteFunction(channel, "echo")(np.arange(3)), np.arange(3))
    with pytest.raises(ValueError, match="bad input"):
        recheck.RemoteFunction(channel, "fails")("value")
    # no cell ran for those requests: the kernel's count of cells did not move
    after = run_sync(kc.execute_interactive)("pass", timeout=30)["content"]["execution_count"]
    assert after == count + 1


def test_a_function_that_timed_out_is_not_called_again(kernel):
    """One hung answer costs one call limit: its later calls fail at once, the kernel still
    answers for the other functions."""
    import time

    km, kc = kernel
    channel = recheck.KernelChannel(km, kc, call_timeout=1, interrupt_grace=2)
    with pytest.raises(recheck.KernelCallTimeout, match="sleeps: no answer within 1 s") as first:
        recheck.RemoteFunction(channel, "sleeps")()
    calls = channel.calls
    start = time.monotonic()
    with pytest.raises(
        recheck.KernelCallTimeout, match="did not return within 1 s earlier"
    ) as again:
        recheck.RemoteFunction(channel, "sleeps")()
    assert first.value.function == again.value.function == "sleeps"
    assert time.monotonic() - start < 1 and channel.calls == calls  # nothing was sent
    assert list(channel.hung) == ["sleeps"] and not channel.hung["sleeps"].killed
    assert recheck.RemoteFunction(channel, "echo")(7) == 7
    assert channel.dead_reason is None


@pytest.mark.slow
def test_a_call_that_ignores_interrupts_times_out_and_the_kernel_is_killed(kernel):
    # last: it kills the module's kernel
    km, kc = kernel
    channel = recheck.KernelChannel(km, kc, call_timeout=2, interrupt_grace=1)
    with pytest.raises(recheck.KernelCallTimeout):
        recheck.RemoteFunction(channel, "hang")()
    assert channel.dead_reason
    with pytest.raises(recheck.KernelUnavailable):
        recheck.RemoteFunction(channel, "scale")([1])
    assert km.sandbox is not None and km.sandbox.pids() == []


class _Timeouts(recheck.KernelChannel):
    """A channel whose requests time out as told (no kernel): *killed* ones kill it."""

    def __init__(self, killed: bool, restart=None):
        super().__init__(object(), object(), call_timeout=3, restart=restart)
        self.killed = killed
        self.sent = 0

    def request(self, request):
        self.sent += 1
        if self.killed:
            self.dead_reason = "the student's code did not stop after an interrupt"
        raise recheck.KernelCallTimeout("no answer within 3 s", seconds=3, killed=self.killed)


def test_a_timed_out_function_fails_fast_afterwards_without_a_kernel():
    channel = _Timeouts(killed=False)
    for _ in range(3):
        with pytest.raises(recheck.KernelCallTimeout):
            channel.call("slow", [], {})
    assert channel.sent == 1
    assert channel.hung["slow"] == recheck.HungCall("slow", 3, False)


def test_a_killed_kernel_is_replaced_by_the_restart_and_the_calls_go_on():
    fresh = (object(), object())
    restarts = []

    def restart():
        restarts.append(1)
        return fresh

    channel = _Timeouts(killed=True, restart=restart)
    with pytest.raises(recheck.KernelCallTimeout) as info:
        channel.call("stuck", [], {})
    assert info.value.killed and restarts == [1]
    assert (channel.km, channel.kc) == fresh and channel.dead_reason is None
    assert channel.restarts == 1 and channel.hung["stuck"].killed


def test_a_killed_kernel_without_a_restart_stays_dead_with_the_reason():
    def refuse():
        raise recheck.KernelUnavailable("no restart left")

    channel = _Timeouts(killed=True, restart=refuse)
    with pytest.raises(recheck.KernelCallTimeout):
        channel.call("stuck", [], {})
    assert channel.dead_reason.endswith("(not restarted: no restart left)")
    with pytest.raises(recheck.KernelCallTimeout, match="not called again"):
        channel.call("stuck", [], {})


class _Forged(recheck.KernelChannel):
    """A kernel (no real one) whose reply is forged: a hostile student's kernel."""

    def __init__(self, reply):
        super().__init__(object(), object())
        self.reply = reply

    def request(self, request):
        return dict(self.reply, nonce=request.get("nonce"))


OS_SYSTEM = {"__ag__": "ref", "module": "os", "name": "system"}


@pytest.mark.parametrize("where", ["value", "args", "kwargs"])
def test_a_forged_reply_naming_os_system_is_refused(where):
    reply = {
        "status": "ok",
        "value": None,
        "args": [[1]],
        "kwargs": {"__ag__": "dict", "items": []},
    }
    if where == "value":
        reply["value"] = OS_SYSTEM
    elif where == "args":
        reply["args"] = [OS_SYSTEM]
    else:
        reply["kwargs"] = {"__ag__": "dict", "items": [["f", OS_SYSTEM]]}
    items = [1]
    with pytest.raises(recheck.NotPlainData):
        _Forged(reply).call("f", [items], {"f": np.dot})
    assert items == [1]


def test_a_forged_reply_cannot_swap_the_function_sent():
    reply = {
        "status": "ok",
        "value": None,
        "args": [{"__ag__": "ref", "module": "numpy", "name": "sum"}],
        "kwargs": {"__ag__": "dict", "items": []},
    }
    with pytest.raises(recheck.NotPlainData, match="did not send"):
        _Forged(reply).call("f", [np.dot], {})
