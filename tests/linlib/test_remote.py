"""linlib._remote, the kernel side of the re-check, run in-process, with the wire format it
shares with the grader (linlib.grader_kernel_wire): the one encoder round-trips through the
grader's strict decoder (``autograder.recheck.codec``), and its
answers to call and describe requests are what the grader expects."""

from __future__ import annotations

import enum
import json
import math
from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given

from autograder.recheck.codec import call_request, decode
from linlib import _remote, grader_kernel_wire
from linlib._remote import answer
from linlib.grader_kernel_wire import REPLY_MIME, NotPlainData, encode
from tests.linlib.plain_values import NUMPY_ARRAYS, NUMPY_SCALARS, plain, same, same_numpy

# --------------------------------------------------------------------------- the encoder


@given(plain)
@pytest.mark.slow
def test_plain_data_round_trips_exactly(value):
    assert same(decode(encode(value)), value)


@given(plain)
@pytest.mark.slow
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
    for _ in range(grader_kernel_wire.MAX_DEPTH + 1):
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
    # the echoed value decodes strictly to the same thing (a copy is echoed: the argument
    # itself would come back as a reference to the grader's own).
    seen = []

    def echo(x):
        seen.append(x)
        return x.copy()

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


def test_an_argument_returned_as_it_was_given_comes_back_as_the_graders_own():
    """A result that is the very array, list or dict the call was given (not a copy) is
    sent as an ``arg`` tag, which the grader reads as its own argument object."""

    def keep(w, items, *, table):
        return (w, [items, table], np.array(w))

    w, items, table = np.array([1.0, 2.0]), [3], {"a": 1}
    reply = _call({"keep": keep}, "keep", w, items, table=table)
    assert reply["status"] == "ok", reply
    value = reply["value"]["items"]
    assert value[0] == {"__ag__": "arg", "index": 0}
    assert value[1] == [{"__ag__": "arg", "index": 1}, {"__ag__": "arg", "key": "table"}]
    assert value[2]["__ag__"] == "nd"  # a new array: sent by value
    back = decode(reply["value"], arguments=((w, items), {"table": table}))
    assert back[0] is w and back[1][0] is items and back[1][1] is table
    assert back[2] is not w and back[2].tolist() == [1.0, 2.0]


def test_an_argument_that_is_not_an_array_list_or_dict_is_sent_by_value():
    def first(t, x):
        return t, x

    reply = _call({"first": first}, "first", (1, 2), 2.5)
    assert reply["status"] == "ok", reply
    assert decode(reply["value"]) == ((1, 2), 2.5)


class _Graded:
    """Stands for the grader's proxy of a graded function (its ``fn`` tag is its name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args, **kwargs):
        raise AssertionError("a graded function runs in the kernel")


def _graded_tag(value):
    return {"__ag__": "fn", "name": value.name} if isinstance(value, _Graded) else None


def _call_with_functions(namespace: dict, name: str, *args, **kwargs):
    """Call *name* with arguments that hold functions, encoded as the grader encodes them;
    returns the reply and the grader's view of the arguments after the call."""
    request, sent = call_request(name, args, kwargs, _graded_tag)
    reply = _ask(namespace, request)
    if reply["status"] != "ok":
        return reply, None
    return reply, (decode(reply["args"], sent=sent), decode(reply["kwargs"], sent=sent))


def test_a_graded_function_passed_as_an_argument_is_the_kernels_own():
    """The ``fn`` tag stands for the kernel's function of that name, and the arguments
    sent back after the call carry it as the same tag: the grader reads its own proxy."""

    def twice(f, x):
        return f(f(x))

    def inc(x):
        return x + 1

    proxy = _Graded("inc")
    reply, (args, kwargs) = _call_with_functions({"twice": twice, "inc": inc}, "twice", proxy, 1)
    assert reply["status"] == "ok" and decode(reply["value"]) == 3
    assert reply["args"][0] == {"__ag__": "fn", "name": "inc"}
    assert args[0] is proxy and args[1] == 1 and kwargs == {}


def gram(X, kernel):
    """A student's Gram matrix: calls the kernel it is given, pair by pair."""
    return np.array([[kernel(a, b) for b in X] for a in X])


def test_library_functions_and_partials_cross_by_reference_and_are_called_in_the_kernel():
    """np.dot, a linlib function and a partial of it reach the kernel as the library's own
    functions (not pickled, not as source); the student's code calls them there."""
    import functools

    import linlib

    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]])
    reply, (args, _) = _call_with_functions({"gram": gram}, "gram", X, np.dot)
    assert reply["args"][1] == {"__ag__": "ref", "module": "numpy", "name": "dot"}
    np.testing.assert_allclose(decode(reply["value"]), X @ X.T)
    assert args[1] is np.dot

    def margins(kernel, X):
        return kernel(X)

    w, b = [3.0, 4.0], -5.0
    by_partial = functools.partial(linlib.signed_distance, w=w, b=b)
    reply, (args, kwargs) = _call_with_functions({"margins": margins}, "margins", by_partial, X=X)
    assert reply["status"] == "ok", reply
    # the closed form of the signed distance: (X w + b) / |w|
    np.testing.assert_allclose(decode(reply["value"]), (X @ w + b) / 5.0)
    assert args[0] is by_partial and kwargs["X"].tolist() == X.tolist()
    assert reply["args"][0]["__ag__"] == "partial"
    assert reply["args"][0]["func"] == {
        "__ag__": "ref",
        "module": "linlib",
        "name": "signed_distance",
    }


def test_math_functions_and_a_partial_of_a_students_function_cross():
    import functools

    def apply(f, x):
        return f(x)

    def power(x, k):
        return x**k

    reply, _ = _call_with_functions({"apply": apply}, "apply", math.sqrt, 2.25)
    assert decode(reply["value"]) == 1.5
    squared = functools.partial(_Graded("power"), k=2)
    reply, (args, _) = _call_with_functions({"apply": apply, "power": power}, "apply", squared, 3)
    assert decode(reply["value"]) == 9 and args[0] is squared


def test_a_function_passed_in_and_returned_comes_back_as_it_was_sent():
    """A function the grader sent comes back as the tag it came as; any other function
    of the kernel as a handle (the grader's codec decides what it may be)."""

    def give_back(f):
        return f

    reply, _ = _call_with_functions({"give_back": give_back}, "give_back", np.dot)
    assert reply["status"] == "ok"
    assert reply["value"] == {"__ag__": "ref", "module": "numpy", "name": "dot"}
    reply, _ = _call_with_functions({"give_back": lambda f: len}, "give_back", np.dot)
    assert reply["value"]["__ag__"] == "obj" and reply["value"]["kind"] == "function"


def test_a_function_the_grader_did_not_send_comes_back_in_the_arguments_as_a_handle():
    def sneak(items):
        items.append(np.sum)

    request, _ = call_request("sneak", ([1],), {}, _graded_tag)
    reply = _ask({"sneak": sneak}, request)
    assert reply["status"] == "ok"
    assert reply["args"][0][1]["__ag__"] == "obj"  # never as a library reference


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("os", "system"),
        ("builtins", "eval"),
        ("numpy", "save"),
        ("numpy", "load"),
        ("numpy", "_core"),
        ("numpy", "ndarray"),
        ("linlib", "Perceptron"),
        ("linlib", "grading"),
        ("linlib", "np"),
        ("math", "pi"),
        ("math", "__import__"),
        ("linlib", "signed_distance.__globals__"),
    ],
)
def test_only_public_library_functions_may_be_referenced(module, name):
    assert grader_kernel_wire.allowed_function(module, name) is None
    request = {
        "op": "call",
        "name": "apply",
        "args": [{"__ag__": "ref", "module": module, "name": name}],
        "kwargs": encode({}),
        "disable": [],
    }
    called = []
    reply = _ask({"apply": called.append}, request)
    assert reply["status"] == "error" and reply["ename"] == "NotPlainData" and not called


def test_the_allowed_functions_are_the_librarys_own():
    import linlib

    allowed = grader_kernel_wire.allowed_function
    assert allowed("linlib", "signed_distance") is linlib.signed_distance
    assert grader_kernel_wire.allowed_function("numpy", "dot") is np.dot
    assert grader_kernel_wire.allowed_function("numpy", "exp") is np.exp
    assert grader_kernel_wire.allowed_function("math", "sqrt") is math.sqrt


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


def test_a_result_that_is_not_plain_data_stays_in_the_kernel_under_a_handle():
    reply = _call({"lies": AlwaysEqual}, "lies")
    assert reply["status"] == "ok"
    tag = reply["value"]
    assert (tag["__ag__"], tag["kind"], tag["type_name"]) == ("obj", "object", "AlwaysEqual")
    again = _ask({}, {"op": "apply", "fn": "eq", "args": [{"__ag__": "obj", "id": tag["id"]}, 3]})
    assert again == {"nonce": "n", "status": "ok", "value": True}  # its own __eq__ decides


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
    assert found["f"]["value"]["kind"] == "function"
    assert (found["np"]["value"]["kind"], found["np"]["value"]["name"]) == ("module", "numpy")
    assert found["odd"]["value"]["type_name"] == "AlwaysEqual"
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
