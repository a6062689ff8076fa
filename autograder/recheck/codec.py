"""The grader's strict decoder of plain data (what ``linlib._remote.encode`` produced).

A reply from the student's kernel is untrusted: only the tagged forms the encoder makes
are accepted, with a budget on the number of values and the nesting depth, and only
plain dtypes (booleans, integers, floats, complex, str); anything else raises
:class:`NotPlainData`. The encoder itself is one function both sides share,
``linlib._remote.encode``.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from linlib._remote import MAX_DEPTH, PLAIN_KINDS, NotPlainData

__all__ = ["NotPlainData", "decode"]


@dataclass
class _Budget:
    nodes: int = 2_000_000
    depth: int = MAX_DEPTH

    def take(self) -> None:
        self.nodes -= 1
        if self.nodes < 0:
            raise NotPlainData("too many values")


def _dtype(text: Any) -> np.dtype:
    if not isinstance(text, str) or len(text) > 16:
        raise NotPlainData("bad dtype")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError):
        raise NotPlainData("bad dtype") from None
    if dtype.kind not in PLAIN_KINDS or dtype.hasobject or dtype.fields is not None:
        raise NotPlainData(f"dtype {dtype} is not plain data")
    if dtype.itemsize == 0 or dtype.subdtype is not None:
        raise NotPlainData(f"dtype {dtype} is not plain data")
    return dtype


def decode(obj: Any, budget: _Budget | None = None, _depth: int = 0) -> Any:
    """Strictly decode what :func:`linlib._remote.encode` produced (on either side).

    Only the tagged forms above are accepted; anything else raises :class:`NotPlainData`.
    """
    budget = budget or _Budget()
    budget.take()
    if _depth > budget.depth:
        raise NotPlainData("nesting too deep")
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, list):
        return [decode(v, budget, _depth + 1) for v in obj]
    if not isinstance(obj, dict) or not isinstance(obj.get("__ag__"), str):
        raise NotPlainData(f"unexpected {type(obj).__name__} in a reply")
    tag = obj["__ag__"]
    if tag == "float":
        text = obj.get("v")
        if text not in ("nan", "inf", "-inf"):
            raise NotPlainData("bad float")
        return float(text)
    if tag == "complex":
        return complex(
            float(decode(obj.get("re"), budget, _depth + 1)),
            float(decode(obj.get("im"), budget, _depth + 1)),
        )
    if tag in ("tuple", "set", "frozenset"):
        items = obj.get("items")
        if not isinstance(items, list):
            raise NotPlainData("bad sequence")
        values = [decode(v, budget, _depth + 1) for v in items]
        if tag == "tuple":
            return tuple(values)
        try:
            return set(values) if tag == "set" else frozenset(values)
        except TypeError as exc:
            raise NotPlainData(str(exc)) from None
    if tag == "dict":
        items = obj.get("items")
        if not isinstance(items, list):
            raise NotPlainData("bad dict")
        out = {}
        for pair in items:
            if not isinstance(pair, list) or len(pair) != 2:
                raise NotPlainData("bad dict item")
            key = decode(pair[0], budget, _depth + 1)
            try:
                out[key] = decode(pair[1], budget, _depth + 1)
            except TypeError as exc:
                raise NotPlainData(str(exc)) from None
        return out
    if tag in ("nd", "np"):
        dtype = _dtype(obj.get("dtype"))
        raw = obj.get("b64")
        if not isinstance(raw, str):
            raise NotPlainData("bad array data")
        data = base64.b64decode(raw.encode("ascii"), validate=True)
        if tag == "np":
            if len(data) != dtype.itemsize:
                raise NotPlainData("bad numpy scalar")
            return np.frombuffer(data, dtype=dtype)[0]
        shape = obj.get("shape")
        if not isinstance(shape, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
        ):
            raise NotPlainData("bad array shape")
        count = math.prod(shape)
        if count * dtype.itemsize != len(data):
            raise NotPlainData("array data does not match its shape")
        budget.nodes -= count // 64
        return np.frombuffer(data, dtype=dtype).reshape(shape).copy()
    raise NotPlainData(f"unknown tag {tag!r}")
