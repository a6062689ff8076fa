"""The kernel side of the autograder's trusted re-check, and the one plain-data encoder.

The autograder re-runs each test cell outside the student's (sandboxed) kernel; the
student's functions stay in the kernel. Each request the grader sends is one short call,
``__import__('linlib._remote', fromlist=['main']).main(globals(), request)``: :func:`main`
answers it (call a function of the notebook's namespace, or describe some of its names)
and publishes the reply as display data of type :data:`REPLY_MIME`.

:func:`encode` turns plain data (numbers, strings, booleans, None, numeric/boolean/string
arrays and numpy scalars, and lists/tuples/dicts/sets of these) into JSON-ready objects;
the grader uses it for the arguments it sends and the kernel for what it sends back. The
grader decodes replies strictly (``autograder.recheck.codec.decode``): nothing the kernel
answers is trusted, so this side only has to work for honest students.

An array, list or dict that a call returns and that is one of the call's own arguments (the
very object, as when a student returns the ``w`` given) is sent as ``{"__ag__": "arg",
"index": i}`` (or ``"key": name``): the grader decodes it as its own argument object, so a
test can tell a new array from the one it passed in.

Functions cross by reference only, never pickled or as source: a student's function as
``{"__ag__": "fn", "name": ...}`` (the kernel's own), a public function of linlib, numpy or
math as ``{"__ag__": "ref", "module": ..., "name": ...}`` (resolved here through
:func:`allowed_function`, the one allow-list both sides use), and a ``functools.partial``
of either with plain-data arguments as ``{"__ag__": "partial", ...}``. The arguments sent
back after a call carry these as the very tags that were received.
"""

from __future__ import annotations

import base64
import functools
import importlib
import inspect
import json
import math
import types
from collections.abc import Callable, MutableMapping
from typing import Any

import numpy as np

__all__ = [
    "FUNCTION_TAGS",
    "MAX_DEPTH",
    "PLAIN_KINDS",
    "REF_MODULES",
    "REPLY_MIME",
    "NotPlainData",
    "allowed_function",
    "answer",
    "encode",
    "main",
]

#: The MIME type of the display data that carries a reply to the grader.
REPLY_MIME = "application/x-autograder-reply"
#: numpy dtype kinds that are plain data: booleans, integers, floats, complex, str.
PLAIN_KINDS = frozenset("biufcU")
#: Deepest nesting of containers that crosses.
MAX_DEPTH = 64
#: The tags that stand for a function: a student's (``fn``), a library's (``ref``), a
#: ``functools.partial`` of either (``partial``).
FUNCTION_TAGS = frozenset({"fn", "ref", "partial"})
#: Modules whose public functions cross by reference.
REF_MODULES = ("linlib", "numpy", "math")
# numpy functions that read or write files, or change or report numpy's global state:
# never referenced.
_NUMPY_EXCLUDED = frozenset(
    {
        "fromfile",
        "fromregex",
        "genfromtxt",
        "get_include",
        "info",
        "load",
        "loadtxt",
        "printoptions",
        "save",
        "savetxt",
        "savez",
        "savez_compressed",
        "set_printoptions",
        "setbufsize",
        "seterr",
        "seterrcall",
        "show_config",
        "show_runtime",
        "test",
    }
)

# Builtin types whose subclasses the kernel side sends as the base type (an honest
# student's IntEnum or namedtuple); the grader's strict side refuses them.
_BASES = (bool, int, float, str, complex, tuple, list, dict)


class NotPlainData(TypeError):
    """A value that may not cross between the student's kernel and the grader."""


def _b64(data: np.ndarray) -> str:
    return base64.b64encode(data.tobytes(order="C")).decode("ascii")


def encode(
    value: Any,
    *,
    lenient: bool = False,
    default: Callable[[Any], Any] | None = None,
    alias: Callable[[Any], Any] | None = None,
    _depth: int = 0,
) -> Any:
    """Encode plain data as JSON-ready objects (tagged dicts for non-JSON types).

    Strict by default (the grader's side): only exact ``numpy.ndarray`` arrays and numpy's
    own scalar types. ``lenient=True`` (the kernel's side) also sends array subclasses as
    arrays, any numpy scalar, and subclasses of the builtin types as their base type.
    *default*, if given, is asked for the encoding of a value no rule accepts; a ``None``
    answer refuses it. *alias*, if given, is asked first about every array, list and dict:
    a tag it returns is sent in the value's place. Raises :class:`NotPlainData` for
    anything else.
    """
    if _depth > MAX_DEPTH:
        raise NotPlainData("nesting too deep")
    kind = type(value)
    if alias is not None and (kind is list or kind is dict or isinstance(value, np.ndarray)):
        tag = alias(value)
        if tag is not None:
            return tag
    if value is None or kind is bool or kind is str or kind is int:
        return value
    if kind is float:
        if math.isfinite(value):
            return value
        return {"__ag__": "float", "v": repr(value)}
    if kind is complex:
        return {"__ag__": "complex", "re": encode(value.real), "im": encode(value.imag)}

    def inner(item: Any) -> Any:
        return encode(item, lenient=lenient, default=default, alias=alias, _depth=_depth + 1)

    if kind is list:
        return [inner(v) for v in value]
    if kind is tuple:
        return {"__ag__": "tuple", "items": [inner(v) for v in value]}
    if kind is dict:
        return {"__ag__": "dict", "items": [[inner(k), inner(v)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"__ag__": kind.__name__, "items": [inner(v) for v in value]}
    if kind is np.ndarray or (lenient and isinstance(value, np.ndarray)):
        data = np.asarray(value)
        if data.dtype.kind not in PLAIN_KINDS or data.dtype.fields is not None:
            raise NotPlainData(f"an array of dtype {data.dtype} is not plain data")
        return {
            "__ag__": "nd",
            "dtype": data.dtype.str,
            "shape": list(data.shape),
            "b64": _b64(data),
        }
    if isinstance(value, np.generic) and (lenient or kind.__module__ == "numpy"):
        # The scalar's own dtype, not np.dtype(type(value)): for a string (np.str_) the
        # type alone gives "<U0", which says nothing of its length.
        data = np.asarray(value)
        if data.dtype.kind not in PLAIN_KINDS:
            raise NotPlainData(f"a numpy scalar of dtype {data.dtype} is not plain data")
        return {"__ag__": "np", "dtype": data.dtype.str, "b64": _b64(data)}
    if lenient:
        for base in _BASES:
            if isinstance(value, base):
                return encode(base(value), lenient=True, default=default, _depth=_depth)
    if default is not None:
        encoded = default(value)
        if encoded is not None:
            return encoded
    raise NotPlainData(f"a value of type {kind.__module__}.{kind.__qualname__} is not plain data")


def allowed_function(module: Any, name: Any) -> Callable[..., Any] | None:
    """The function *module*.*name* if it may cross by reference, else None.

    Allowed: linlib's public functions (names in ``linlib.__all__``), numpy's top-level
    functions and ufuncs (but not its file input/output or global settings), math's
    functions. Classes, modules and anything else are not.
    """
    if module not in REF_MODULES or not isinstance(name, str):
        return None
    if not name.isidentifier() or name.startswith("_") or len(name) > 64:
        return None
    if module == "numpy" and name in _NUMPY_EXCLUDED:
        return None
    namespace = importlib.import_module(module)
    if module == "linlib" and name not in getattr(namespace, "__all__", ()):
        return None
    try:
        value = getattr(namespace, name)
    except AttributeError:
        return None
    if isinstance(value, np.ufunc) or (inspect.isroutine(value) and not isinstance(value, type)):
        return value
    return None


#: What the kernel decoded from a function tag: id -> (the object, the tag it came as).
_Tags = dict[int, tuple[Any, dict[str, Any]]]


def _decode_function(value: dict[str, Any], ns: MutableMapping[str, Any], tags: _Tags) -> Any:
    tag = value["__ag__"]
    if tag == "fn":
        fn = ns[value["name"]]
    elif tag == "ref":
        fn = allowed_function(value.get("module"), value.get("name"))
        if fn is None:
            raise NotPlainData(f"{value.get('module')}.{value.get('name')} may not be referenced")
    else:
        fn = functools.partial(
            _decode(value["func"], ns, tags),
            *_decode(value["args"], ns, tags),
            **_decode(value["kwargs"], ns, tags),
        )
    tags[id(fn)] = (fn, value)
    return fn


def _decode(value: Any, ns: MutableMapping[str, Any], tags: _Tags) -> Any:
    """The grader's arguments (well formed: the grader's encoder made them); function tags
    stand for the namespace's functions and the allowed library functions, and *tags*
    records each function decoded with its tag."""
    if isinstance(value, list):
        return [_decode(x, ns, tags) for x in value]
    if not isinstance(value, dict):
        return value
    tag = value["__ag__"]
    if tag == "float":
        return float(value["v"])
    if tag == "complex":
        return complex(_decode(value["re"], ns, tags), _decode(value["im"], ns, tags))
    if tag == "tuple":
        return tuple(_decode(x, ns, tags) for x in value["items"])
    if tag == "set":
        return {_decode(x, ns, tags) for x in value["items"]}
    if tag == "frozenset":
        return frozenset(_decode(x, ns, tags) for x in value["items"])
    if tag == "dict":
        return {_decode(k, ns, tags): _decode(x, ns, tags) for k, x in value["items"]}
    if tag == "nd":
        data = base64.b64decode(value["b64"])
        array = np.frombuffer(data, dtype=np.dtype(value["dtype"]))
        return array.reshape(value["shape"]).copy()
    if tag == "np":
        return np.frombuffer(base64.b64decode(value["b64"]), dtype=np.dtype(value["dtype"]))[0]
    if tag in FUNCTION_TAGS:
        return _decode_function(value, ns, tags)
    raise ValueError(tag)


def _error(exc: BaseException) -> dict[str, Any]:
    return {
        "status": "error",
        "ename": type(exc).__name__,
        "mro": [c.__name__ for c in type(exc).__mro__],
        "module": type(exc).__module__,
        "message": str(exc)[:4000],
    }


def _call(ns: MutableMapping[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    """Call ``ns[req["name"]]`` through ``linlib.grading.call_student`` (the references
    named in ``disable`` raise); encode its result (an argument returned as itself as an
    ``arg`` tag) and its arguments after the call (the functions among them as the tags they
    came as; a function as the result is refused)."""
    tags: _Tags = {}
    try:
        args = _decode(req["args"], ns, tags)
        kwargs = _decode(req["kwargs"], ns, tags)
    except KeyError as exc:
        return _error(NameError(f"name {exc} is not defined"))
    except Exception as exc:
        return _error(exc)
    try:
        fn = ns[req["name"]]
    except KeyError:
        return _error(NameError(f"name {req['name']!r} is not defined"))
    try:
        try:
            from linlib.grading import call_student
        except Exception:
            call_student = None
        references = req.get("use_reference") or {}
        if call_student is not None and references:
            result = call_student(
                fn,
                *args,
                disable=tuple(req["disable"]),
                use_reference=dict(references),
                **kwargs,
            )
        elif call_student is not None:
            result = call_student(fn, *args, disable=tuple(req["disable"]), **kwargs)
        else:
            result = fn(*args, **kwargs)
    except BaseException as exc:
        return _error(exc)

    def sent_tag(value: Any) -> dict[str, Any] | None:
        known = tags.get(id(value))
        return known[1] if known is not None and known[0] is value else None

    given = {id(v): (v, {"__ag__": "arg", "index": i}) for i, v in enumerate(args)}
    given.update({id(v): (v, {"__ag__": "arg", "key": k}) for k, v in kwargs.items()})

    def argument_tag(value: Any) -> dict[str, Any] | None:
        known = given.get(id(value))
        return known[1] if known is not None and known[0] is value else None

    try:
        return {
            "status": "ok",
            "value": encode(result, lenient=True, alias=argument_tag),
            "args": encode(list(args), lenient=True, default=sent_tag),
            "kwargs": encode(kwargs, lenient=True, default=sent_tag),
        }
    except BaseException as exc:
        return {"status": "unplain", "message": str(exc)[:2000]}


def _describe(ns: MutableMapping[str, Any], names: list[str]) -> dict[str, Any]:
    """What *ns* holds under each name: missing, module, callable, data (encoded), other."""
    found: dict[str, Any] = {}
    for name in names:
        if name not in ns:
            found[name] = {"kind": "missing"}
            continue
        value = ns[name]
        if isinstance(value, types.ModuleType):
            found[name] = {"kind": "module", "module": value.__name__}
        elif callable(value):
            found[name] = {"kind": "callable"}
        else:
            try:
                found[name] = {"kind": "data", "value": encode(value, lenient=True)}
            except BaseException as exc:
                found[name] = {"kind": "other", "message": str(exc)[:500]}
    return {"status": "ok", "names": found}


def answer(ns: MutableMapping[str, Any], request: str) -> dict[str, Any]:
    """The reply to one request (JSON text with ``op`` ``call`` or ``describe`` and a
    ``nonce``) about the namespace *ns*."""
    req = json.loads(request)
    out: dict[str, Any] = {"nonce": req["nonce"]}
    if req["op"] == "call":
        out.update(_call(ns, req))
    elif req["op"] == "describe":
        out.update(_describe(ns, req["names"]))
    return out


def main(ns: MutableMapping[str, Any], request: str) -> None:
    """Answer *request* about the notebook's namespace *ns* and publish the reply."""
    out = answer(ns, request)
    from IPython.display import publish_display_data

    publish_display_data({REPLY_MIME: json.dumps(out)})
