"""autograder.recheck.codec: the grader's strict decoder refuses whatever the encoder
does not make (round trips are tested with the encoder, in tests/linlib/test_remote.py)."""

from __future__ import annotations

import pytest

from autograder.recheck import NotPlainData, decode


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
