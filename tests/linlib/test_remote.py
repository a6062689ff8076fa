"""linlib._remote, the kernel side of the re-check, run in-process: its one encoder
round-trips through the grader's strict decoder (``autograder.recheck.codec``), and its
answers to call and describe requests are what the grader expects."""

from __future__ import annotations

import enum
import json
import math
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given

from autograder.recheck.codec import decode
from linlib import _remote
from linlib._remote import REPLY_MIME, NotPlainData, answer, encode
from tests.linlib.plain_values import NUMPY_ARRAYS, NUMPY_SCALARS, plain, same, same_numpy

# --------------------------------------------------------------------------- the encoder


@given(plain)
def test_plain_data_round_trips_exactly(value):
    assert same(decode(encode(value)), value)


@given(plain)
def test_the_kernels_lenient_encoding_of_plain_data_is_the_graders(value):
    """One encoder: on plain data, what the kernel sends is what the grader would send."""
    assert encode(value, lenient=True) == encode(value)


@pytest.mark.parametrize(
    "value",
    [np.float64(2.5), np.int32(-3), np.bool_(True), float("nan"), -math.inf, {1, 2}],
)
def test_special_values_round_trip(value):
    back = decode(encode(value))
    assert type(back) is type(value)
    assert back == value or (value != value and back != back)


@pytest.mark.parametrize("value", NUMPY_SCALARS, ids=lambda v: f"{type(v).__name__}-{v!r}")
def test_numpy_scalars_of_every_plain_dtype_round_trip(value):
    back = decode(json.loads(json.dumps(encode(value))))
    assert same_numpy(back, value), (back, value)


@pytest.mark.parametrize("value", NUMPY_ARRAYS, ids=lambda v: f"{v.dtype.str}-{v.shape}")
def test_numpy_arrays_of_every_plain_dtype_round_trip(value):
    back = decode(json.loads(json.dumps(encode(value))))
    assert same_numpy(back, value), (back, value)
    assert back.flags.writeable  # a copy the grader may change, not a view of the reply


def test_numpy_values_inside_containers_round_trip():
    words = np.array(["spam", "ham"])
    value = {"top": [words[0], words[1]], "index": (np.intp(1), np.int32(2)), "ok": np.bool_(1)}
    back = decode(encode(value))
    assert type(back["top"][0]) is np.str_ and back["top"] == ["spam", "ham"]
    assert [type(v) for v in back["index"]] == [np.intp, np.int32]
    assert type(back["ok"]) is np.bool_


class AlwaysEqual:
    def __eq__(self, other):
        return True


class ArraySubclass(np.ndarray):
    def __eq__(self, other):
        return True


@pytest.mark.parametrize(
    "value",
    [
        AlwaysEqual(),
        np.zeros(3).view(ArraySubclass),
        np.array([AlwaysEqual()], dtype=object),
        [1, 2, lambda: 3],
        {"key": object()},
    ],
    ids=["object", "array-subclass", "object-array", "lambda", "object-in-dict"],
)
def test_objects_that_are_not_plain_data_are_refused(value):
    with pytest.raises(NotPlainData):
        encode(value)


def test_nesting_deeper_than_the_limit_is_refused():
    deep: list = []
    for _ in range(_remote.MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(NotPlainData, match="nesting too deep"):
        encode(deep)


class Colour(enum.IntEnum):
    RED = 3


Point = namedtuple("Point", "x y")


def test_the_kernel_side_sends_subclasses_of_plain_types_as_their_base():
    """An honest answer of an IntEnum, a namedtuple or an array view travels as plain data
    from the kernel; the grader's own (strict) encoding refuses them."""
    value = [Colour.RED, Point(1, 2.5), np.zeros(2).view(ArraySubclass)]
    back = decode(encode(value, lenient=True))
    assert back[0] == 3 and type(back[0]) is int
    assert back[1] == (1, 2.5) and type(back[1]) is tuple
    assert type(back[2]) is np.ndarray and back[2].tolist() == [0.0, 0.0]
    with pytest.raises(NotPlainData, match="Colour"):
        encode(value)


def test_default_encodes_what_no_rule_accepts():
    marker = object()

    def default(value):
        return {"__ag__": "fn", "name": "f"} if value is marker else None

    assert encode([1, (marker,)], default=default) == [
        1,
        {"__ag__": "tuple", "items": [{"__ag__": "fn", "name": "f"}]},
    ]
    with pytest.raises(NotPlainData, match=r"builtins\.object"):
        encode(object(), default=default)


# --------------------------------------------------------------------------- the requests


def _ask(namespace: dict, request: dict) -> dict:
    """The kernel's answer to *request*, as JSON, read back as the channel reads it."""
    return json.loads(json.dumps(answer(namespace, json.dumps(dict(request, nonce="n")))))


def _call(namespace: dict, name: str, *args, **kwargs) -> dict:
    request = {
        "op": "call",
        "name": name,
        "args": encode(list(args)),
        "kwargs": encode(kwargs),
        "disable": [],
    }
    return _ask(namespace, request)


@pytest.mark.parametrize(
    "value", NUMPY_SCALARS + NUMPY_ARRAYS, ids=lambda v: f"{type(v).__name__}-{v.dtype.str}"
)
def test_the_kernel_side_codec_agrees_with_the_graders_both_ways(value):
    # grader -> kernel: the argument arrives with its type and dtype; kernel -> grader:
    # the echoed value decodes strictly to the same thing.
    seen = []

    def echo(x):
        seen.append(x)
        return x

    reply = _call({"echo": echo}, "echo", value)
    assert reply["nonce"] == "n" and reply["status"] == "ok", reply
    assert same_numpy(seen[0], value)
    assert same_numpy(decode(reply["value"]), value)


def test_a_call_brings_back_its_result_and_its_arguments_after_the_call():
    def grow(items, *, extra):
        items.append(extra)
        return (len(items), np.float32(0.5))

    reply = _call({"grow": grow}, "grow", [1], extra=2)
    assert reply["status"] == "ok"
    assert decode(reply["value"]) == (2, np.float32(0.5))
    assert decode(reply["args"]) == [[1, 2]]
    assert decode(reply["kwargs"]) == {"extra": 2}


def test_a_graded_function_passed_as_an_argument_is_the_kernels_own():
    """The ``fn`` tag stands for the kernel's function of that name. (The arguments sent
    back after the call then hold a function, which is not plain data: such a call is
    reported ``unplain``, as it always was.)"""
    results = []

    def twice(f, x):
        results.append(f(f(x)))
        return results[-1]

    def inc(x):
        return x + 1

    request = {
        "op": "call",
        "name": "twice",
        "args": [{"__ag__": "fn", "name": "inc"}, 1],
        "kwargs": encode({}),
        "disable": [],
    }
    reply = _ask({"twice": twice, "inc": inc}, request)
    assert results == [3]
    assert reply["status"] == "unplain" and "function" in reply["message"]


def test_the_students_exception_comes_back_with_its_classes():
    class Sneaky(ValueError):
        pass

    def fails():
        raise Sneaky("subclass")

    reply = _call({"fails": fails}, "fails")
    assert reply["status"] == "error" and reply["ename"] == "Sneaky"
    assert reply["mro"][:3] == ["Sneaky", "ValueError", "Exception"]
    assert reply["message"] == "subclass"


def test_an_unknown_name_is_a_name_error():
    reply = _call({}, "nowhere")
    assert (reply["status"], reply["ename"]) == ("error", "NameError")
    assert reply["message"] == "name 'nowhere' is not defined"


def test_a_result_that_is_not_plain_data_is_reported_not_sent():
    reply = _call({"lies": AlwaysEqual}, "lies")
    assert reply["status"] == "unplain" and "AlwaysEqual" in reply["message"]
    assert "value" not in reply


def test_disabled_references_raise_in_the_call():
    import linlib

    def uses_reference(X, w, b):
        return linlib.signed_distance(X, w, b)

    request = {
        "op": "call",
        "name": "uses_reference",
        "args": encode([[[3.0, 4.0]], [3.0, 4.0], 0.0]),
        "kwargs": encode({}),
        "disable": ["signed_distance"],
    }
    reply = _ask({"uses_reference": uses_reference}, request)
    assert (reply["status"], reply["ename"]) == ("error", "ReferenceDisabledError")
    request["disable"] = []
    assert decode(_ask({"uses_reference": uses_reference}, request)["value"]).tolist() == [5.0]


def test_describe_says_what_each_name_holds():
    namespace = {"answer": [1, 2.5, "three"], "f": len, "np": np, "odd": AlwaysEqual()}
    reply = _ask(namespace, {"op": "describe", "names": ["answer", "f", "np", "odd", "gone"]})
    found = reply["names"]
    assert reply["status"] == "ok"
    assert decode(found["answer"]["value"]) == [1, 2.5, "three"]
    assert found["f"] == {"kind": "callable"}
    assert found["np"] == {"kind": "module", "module": "numpy"}
    assert found["odd"]["kind"] == "other" and "AlwaysEqual" in found["odd"]["message"]
    assert found["gone"] == {"kind": "missing"}


def test_main_publishes_the_answer_as_display_data(monkeypatch):
    import IPython.display

    published = []
    monkeypatch.setattr(IPython.display, "publish_display_data", published.append)
    request = json.dumps({"op": "describe", "names": ["x"], "nonce": "abc"})
    assert _remote.main({"x": 1.5}, request) is None
    (data,) = published
    assert json.loads(data[REPLY_MIME]) == answer({"x": 1.5}, request)
    assert json.loads(data[REPLY_MIME])["names"]["x"] == {"kind": "data", "value": 1.5}
