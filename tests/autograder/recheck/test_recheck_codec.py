"""autograder.recheck.codec: the grader's strict decoder refuses whatever the encoder
does not make (round trips are tested with the encoder, in tests/linlib/test_remote.py);
functions cross by reference, only the allowed ones, and come back only as sent."""

from __future__ import annotations

import json
import math
import os
from functools import partial

import numpy as np
import pytest

from autograder.recheck import NotPlainData, decode
from autograder.recheck.codec import encode_call


@pytest.mark.parametrize(
    "obj",
    [
        {"__ag__": "nd", "dtype": "|O", "shape": [1], "b64": "AAAAAAAAAAA="},
        {"__ag__": "nd", "dtype": "<f8", "shape": [3], "b64": "AAAAAAAAAAA="},
        {"__ag__": "nd", "dtype": "<f8", "shape": [-1], "b64": ""},
        {"__ag__": "pickle", "data": "gASVAAAAAAAAAAA="},
        {"__ag__": "float", "v": "__import__('os')"},
        {"not": "tagged"},
        {"__ag__": "np", "dtype": "<f8", "b64": "AAAA"},
        {"__ag__": "np", "dtype": "<U0", "b64": ""},
        {"__ag__": "nd", "dtype": "<U0", "shape": [10**12], "b64": ""},
        {"__ag__": "np", "dtype": "<U2", "b64": "AAAA"},
        {"__ag__": "nd", "dtype": "|S3", "shape": [1], "b64": "YWJj"},
        {"__ag__": "nd", "dtype": "<M8[s]", "shape": [1], "b64": "AAAAAAAAAAA="},
        {"__ag__": "nd", "dtype": "not a dtype", "shape": [0], "b64": ""},
    ],
    ids=[
        "object-dtype",
        "short-data",
        "negative-shape",
        "unknown-tag",
        "bad-float",
        "untagged",
        "short-scalar",
        "empty-string-dtype",
        "huge-shape-of-nothing",
        "string-of-wrong-length",
        "bytes-dtype",
        "datetime-dtype",
        "unknown-dtype",
    ],
)
def test_decoding_is_strict(obj):
    with pytest.raises((NotPlainData, ValueError)):
        decode(obj)


def test_decoding_refuses_deep_nesting():
    deep = 1
    for _ in range(200):
        deep = [deep]
    with pytest.raises(NotPlainData):
        decode(deep)


# --------------------------------------------------------------------------- functions


def _partial_of(func_tag):
    return {
        "__ag__": "partial",
        "func": func_tag,
        "args": [],
        "kwargs": {"__ag__": "dict", "items": []},
    }


OS_SYSTEM = {"__ag__": "ref", "module": "os", "name": "system"}


def _no_graded(value):
    return None


@pytest.mark.parametrize(
    "tag",
    [
        OS_SYSTEM,
        {"__ag__": "ref", "module": "linlib", "name": "signed_distance"},
        {"__ag__": "ref", "module": "numpy", "name": "dot"},
        {"__ag__": "fn", "name": "inc"},
        _partial_of({"__ag__": "ref", "module": "numpy", "name": "dot"}),
    ],
    ids=["os-system", "linlib", "numpy", "graded", "partial"],
)
def test_a_function_the_grader_did_not_send_is_refused(tag):
    """No function crosses by itself: not in a result, not in arguments that carried none,
    not where the grader sent another one."""
    with pytest.raises(NotPlainData):
        decode(tag)
    with pytest.raises(NotPlainData):
        decode([1, tag])
    _, _, sent = encode_call([np.sum], {}, _no_graded)
    with pytest.raises(NotPlainData, match="did not send"):
        decode([tag], sent=sent)


def test_a_hostile_kernel_cannot_slip_os_system_into_a_partial_or_a_container():
    _, _, sent = encode_call([partial(np.dot, b=1.0), math.sqrt], {}, _no_graded)
    for reply in (
        [_partial_of(OS_SYSTEM)],
        {"__ag__": "tuple", "items": [OS_SYSTEM]},
        {"__ag__": "dict", "items": [["f", OS_SYSTEM]]},
        {"__ag__": "complex", "re": {"__ag__": "ref", "module": "math", "name": "sqrt"}, "im": 0},
    ):
        with pytest.raises(NotPlainData):
            decode(reply, sent=sent)


def test_library_functions_and_partials_are_sent_by_reference_and_come_back_as_sent():
    import linlib

    kernel = partial(linlib.signed_distance, w=[3.0, 4.0], b=-1.0)
    args, kwargs, sent = encode_call([np.dot, kernel, [1, 2]], {"f": math.exp}, _no_graded)
    assert args[0] == {"__ag__": "ref", "module": "numpy", "name": "dot"}
    assert args[1]["__ag__"] == "partial" and args[1]["args"] == []
    assert args[1]["func"] == {"__ag__": "ref", "module": "linlib", "name": "signed_distance"}
    assert decode(args[1]["kwargs"]) == {"w": [3.0, 4.0], "b": -1.0}
    assert kwargs["items"][0][1] == {"__ag__": "ref", "module": "math", "name": "exp"}
    # what the kernel sends back after the call: the same tags, read back as JSON
    back = decode(json.loads(json.dumps(args)), sent=sent)
    assert back[0] is np.dot and back[1] is kernel and back[2] == [1, 2]
    assert decode(json.loads(json.dumps(kwargs)), sent=sent) == {"f": math.exp}


def test_a_changed_partial_is_not_the_one_sent():
    _, _, sent = encode_call([partial(np.dot, b=1.0)], {}, _no_graded)
    changed = _partial_of({"__ag__": "ref", "module": "numpy", "name": "dot"})
    with pytest.raises(NotPlainData, match="did not send"):
        decode([changed], sent=sent)


class _Private:
    @staticmethod
    def method(x):
        return x


@pytest.mark.parametrize(
    "value",
    [
        lambda x: x,
        os.system,
        np.save,
        _Private.method,
        partial(np.dot, b=object()),
        partial(lambda x: x, 1),
        partial(os.system, "true"),
    ],
    ids=[
        "lambda",
        "os-system",
        "numpy-io",
        "own-function",
        "partial-object-arg",
        "partial-of-lambda",
        "partial-of-os-system",
    ],
)
def test_the_grader_sends_only_allowed_functions(value):
    with pytest.raises(NotPlainData):
        encode_call([value], {}, _no_graded)


@pytest.mark.parametrize(
    "tag",
    [
        {"__ag__": "arg", "index": 5},
        {"__ag__": "arg", "index": -1},
        {"__ag__": "arg", "index": True},
        {"__ag__": "arg", "index": "0"},
        {"__ag__": "arg", "key": "missing"},
        {"__ag__": "arg", "index": 0, "key": "w"},
        {"__ag__": "arg"},
        {"__ag__": "arg", "index": 1},  # a float argument: never the result itself
        {"__ag__": "arg", "index": 2},  # a tuple
        {"__ag__": "arg", "index": 3},  # a function
    ],
)
def test_an_argument_reference_names_only_an_array_list_or_dict_of_the_call(tag):
    """A hostile reply's ``arg`` tag cannot name what the call was not given, nor an
    argument that a function could not hand back as itself (numbers, tuples, functions)."""
    args = ([1.0], 2.5, (1, 2), np.dot)
    with pytest.raises(NotPlainData):
        decode(tag, arguments=(args, {"w": np.zeros(2)}))


def test_an_argument_reference_needs_the_call_it_belongs_to():
    with pytest.raises(NotPlainData, match="not plain data here"):
        decode({"__ag__": "arg", "index": 0})
    w = np.zeros(2)
    assert decode([{"__ag__": "arg", "key": "w"}], arguments=((), {"w": w}))[0] is w
