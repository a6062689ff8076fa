"""The grader's side of the plain-data codec: its encoding of a call's arguments, and the
strict decoder of replies (what ``linlib.grader_kernel_wire.encode`` produced).

A reply from the student's kernel is untrusted: only the tagged forms the encoder makes
are accepted, with a budget on the number of values and the nesting depth, and only
plain dtypes (booleans, integers, floats, complex, str); anything else raises
:class:`NotPlainData`. The encoder itself is one function both sides share,
``linlib.grader_kernel_wire.encode``.

Functions cross by reference (:func:`encode_call`): a graded function as its ``fn`` tag,
a public function of linlib, numpy or math as a ``ref`` tag (the allow-list is
``linlib.grader_kernel_wire.allowed_function``), a ``functools.partial`` of these with plain-data
arguments as a ``partial`` tag. A function tag in a reply is accepted only where the grader
sent it, equal to what it sent (the arguments after a call): it decodes to the very object
sent; anywhere else it is not plain data.

A call's result may name one of the call's own arguments (an ``arg`` tag: the student's
function returned the array, list or dict it was given, not a new one): it decodes to the
grader's own argument object, and only where :func:`decode` is given the call's arguments.

What is not plain data crosses by reference: an object of the kernel as an ``obj`` tag
(its handle, its kind and its type's name; :func:`decode` checks each field and hands the
tag to *refs*, which gives the proxy), a function of the grader's as a ``cb`` tag the
kernel calls back (made by the *callback* of :func:`encode_call`, and accepted back only
as sent).
"""

from __future__ import annotations

import base64
import functools
import inspect
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from linlib.grader_kernel_wire import (
    CALLBACK_TAG,
    FUNCTION_TAGS,
    MAX_DEPTH,
    PLAIN_KINDS,
    REF_MODULES,
    REFERENCE_TAG,
    NotPlainData,
    allowed_function,
    encode,
)

__all__ = ["NotPlainData", "call_request", "decode", "encode_call", "function_ref"]


def function_ref(value: Any) -> dict[str, str] | None:
    """The ``ref`` tag of a function that may cross by reference (linlib, numpy, math)."""
    if not (isinstance(value, np.ufunc) or inspect.isroutine(value)):
        return None
    name = getattr(value, "__name__", None)
    if not isinstance(name, str):
        return None
    for module in REF_MODULES:
        if allowed_function(module, name) is value:
            return {"__ag__": "ref", "module": module, "name": name}
    return None


def _tag_key(tag: Any) -> str:
    try:
        return json.dumps(tag, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise NotPlainData("a malformed function tag") from None


def encode_call(
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    graded: Callable[[Any], dict[str, Any] | None],
    callback: Callable[[Any], dict[str, Any] | None] | None = None,
) -> tuple[Any, Any, dict[str, Any]]:
    """The grader's (strict) encoding of a call's arguments: ``(args, kwargs, sent)``.

    *graded* gives the tag of what the kernel holds (a graded function's ``fn`` tag, a
    proxy's ``obj`` tag; None for anything else); *callback*, if given, the ``cb`` tag of
    any other function of the grader's (asked last: a library function crosses as a
    ``ref``). *sent* maps each function and callback tag sent to the object it stands
    for: the only such tags :func:`decode` accepts back.
    """
    sent: dict[str, Any] = {}

    def function_tag(value: Any) -> dict[str, Any] | None:
        tag: dict[str, Any] | None = graded(value)
        if tag is not None and tag.get("__ag__") == REFERENCE_TAG:
            return tag  # the kernel's own object: it comes back as the kernel's reference
        tag = tag or function_ref(value)
        if tag is None and type(value) is functools.partial:
            tag = {
                "__ag__": "partial",
                "func": encode(value.func, default=function_tag),
                "args": encode(list(value.args), default=function_tag),
                "kwargs": encode(dict(value.keywords), default=function_tag),
            }
        if tag is None and callback is not None and callable(value):
            tag = callback(value)
        if tag is not None:
            sent[_tag_key(tag)] = value
        return tag

    encoded_args = encode(list(args), default=function_tag)
    encoded_kwargs = encode(dict(kwargs), default=function_tag)
    return encoded_args, encoded_kwargs, sent


def call_request(
    name: str,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    graded: Callable[[Any], dict[str, Any] | None],
    disable: Sequence[str] = (),
    use_reference: Mapping[str, str] | None = None,
    callback: Callable[[Any], dict[str, Any] | None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request that calls the kernel's function *name* (``linlib._remote``'s ``call``),
    its arguments encoded by :func:`encode_call`; returns ``(request, sent)``."""
    encoded_args, encoded_kwargs, sent = encode_call(args, kwargs, graded, callback)
    request: dict[str, Any] = {
        "op": "call",
        "name": name,
        "args": encoded_args,
        "kwargs": encoded_kwargs,
        "disable": [str(d) for d in disable],
    }
    if use_reference:
        request["use_reference"] = {str(k): str(v) for k, v in use_reference.items()}
    return request, sent


def _check_allowed(tag: Any) -> None:
    """A function tag names only allowed functions (the grader's own tags always do)."""
    kind = tag.get("__ag__") if isinstance(tag, dict) else None
    if kind == "ref" and allowed_function(tag.get("module"), tag.get("name")) is not None:
        return
    if kind == "fn" and isinstance(tag.get("name"), str):
        return
    if kind == "partial":
        _check_allowed(tag.get("func"))
        return
    if kind == CALLBACK_TAG and type(tag.get("id")) is int:
        return
    raise NotPlainData("a function that may not cross")


#: What an object of the kernel may be, as its reference says.
REFERENCE_KINDS = frozenset({"class", "module", "generator", "function", "object"})
_REFERENCE_FIELDS = frozenset({"__ag__", "id", "type", "kind", "name", "type_name"})


def _reference(tag: dict[str, Any], refs: Callable[[dict[str, Any]], Any] | None) -> Any:
    """The proxy of the kernel's object that a reference tag names (checked field by
    field: the kernel is not trusted)."""
    if refs is None:
        raise NotPlainData(f"an object of the kernel ({tag.get('type_name')!s:.60}) here")
    if set(tag) != _REFERENCE_FIELDS or tag.get("kind") not in REFERENCE_KINDS:
        raise NotPlainData("a malformed reference")
    for key in ("id", "type"):
        if type(tag[key]) is not int or not 0 < tag[key] < 2**53:
            raise NotPlainData("a malformed reference")
    for key in ("name", "type_name"):
        if not isinstance(tag[key], str) or len(tag[key]) > 100:
            raise NotPlainData("a malformed reference")
    return refs(tag)


#: The argument types a result may return as themselves (an ``arg`` tag): the mutable ones.
_ALIASABLE = (np.ndarray, list, dict)


def _argument(
    tag: dict[str, Any], arguments: tuple[Sequence[Any], Mapping[str, Any]] | None
) -> Any:
    """The grader's own argument that an ``arg`` tag names (the call returned it as is)."""
    if arguments is None:
        raise NotPlainData("an argument of the call is not plain data here")
    args, kwargs = arguments
    fields = set(tag) - {"__ag__"}
    index, key = tag.get("index"), tag.get("key")
    if fields == {"index"} and type(index) is int and 0 <= index < len(args):
        value = args[index]
    elif fields == {"key"} and type(key) is str and key in kwargs:
        value = kwargs[key]
    else:
        raise NotPlainData("a malformed argument reference")
    if type(value) not in _ALIASABLE:
        raise NotPlainData("only an array, list or dict argument can come back as itself")
    return value


def _sent_function(tag: dict[str, Any], sent: Mapping[str, Any] | None) -> Any:
    if not sent:
        raise NotPlainData("a function is not plain data")
    key = _tag_key(tag)
    if key not in sent:
        raise NotPlainData("a function the grader did not send")
    _check_allowed(tag)
    return sent[key]


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


def decode(
    obj: Any,
    budget: _Budget | None = None,
    _depth: int = 0,
    *,
    sent: Mapping[str, Any] | None = None,
    arguments: tuple[Sequence[Any], Mapping[str, Any]] | None = None,
    refs: Callable[[dict[str, Any]], Any] | None = None,
) -> Any:
    """Strictly decode what :func:`linlib.grader_kernel_wire.encode` produced (on either side).

    Only the tagged forms above are accepted; anything else raises :class:`NotPlainData`.
    A function or callback tag is accepted only if it is one of *sent* (see
    :func:`encode_call`); an ``arg`` tag only when *arguments*, the call's ``(args,
    kwargs)``, are given, and only for an array, list or dict among them; a reference
    only with *refs*, which makes its proxy.
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
        return [
            decode(v, budget, _depth + 1, sent=sent, arguments=arguments, refs=refs) for v in obj
        ]
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
        values = [
            decode(v, budget, _depth + 1, sent=sent, arguments=arguments, refs=refs) for v in items
        ]
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
            key = decode(pair[0], budget, _depth + 1, sent=sent, arguments=arguments, refs=refs)
            try:
                out[key] = decode(
                    pair[1], budget, _depth + 1, sent=sent, arguments=arguments, refs=refs
                )
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
    if tag in FUNCTION_TAGS or tag == CALLBACK_TAG:
        return _sent_function(obj, sent)
    if tag == REFERENCE_TAG:
        return _reference(obj, refs)
    if tag == "slice":
        items = obj.get("items")
        if set(obj) != {"__ag__", "items"} or not isinstance(items, list) or len(items) != 3:
            raise NotPlainData("bad slice")
        parts = [decode(v, budget, _depth + 1, sent=sent, refs=refs) for v in items]
        if not all(p is None or type(p) is int for p in parts):
            raise NotPlainData("bad slice")
        return slice(*parts)
    if tag == "ellipsis":
        return Ellipsis
    if tag == "arg":
        return _argument(obj, arguments)
    raise NotPlainData(f"unknown tag {tag!r}")
