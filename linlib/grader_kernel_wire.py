"""The re-check's wire format, shared by the grader and the student's kernel: the one
plain-data encoder, its tags and limits, and the one allow-list of functions that cross by
reference.

The autograder re-runs each test cell outside the student's (sandboxed) kernel; the
student's functions stay in the kernel. Each request the grader sends is one short call of
:data:`KERNEL_MODULE`'s ``main`` (``linlib._remote``, the kernel's side), which answers it
and publishes the reply as display data of type :data:`REPLY_MIME`.

:func:`encode` turns plain data (numbers, strings, booleans, None, numeric/boolean/string
arrays and numpy scalars, and lists/tuples/dicts/sets of these) into JSON-ready objects;
the grader uses it for the arguments it sends (``autograder.recheck.codec``) and the kernel
for what it sends back. The grader decodes replies strictly
(``autograder.recheck.codec.decode``): nothing the kernel answers is trusted, so the
kernel's side only has to work for honest students.

An array, list or dict that a call returns and that is one of the call's own arguments (the
very object, as when a student returns the ``w`` given) is sent as ``{"__ag__": "arg",
"index": i}`` (or ``"key": name``): the grader decodes it as its own argument object, so a
test can tell a new array from the one it passed in.

Functions cross by reference only, never pickled or as source: a student's function as
``{"__ag__": "fn", "name": ...}`` (the kernel's own), a public function of linlib, numpy or
math as ``{"__ag__": "ref", "module": ..., "name": ...}`` (resolved through
:func:`allowed_function` on both sides), and a ``functools.partial`` of either with
plain-data arguments as ``{"__ag__": "partial", ...}``. The arguments sent back after a
call carry these as the very tags that were received.

What is not plain data crosses by reference. An object of the kernel (a student's class,
its instances, a generator, a module, a function that is not graded) travels as
``{"__ag__": "obj", "id": ..., ...}``: a handle the kernel keeps (:data:`REFERENCE_TAG`); the
grader holds a proxy that asks the kernel for each operation on it. A function of the
grader's (a lambda or a function a test cell defines) travels as ``{"__ag__": "cb", "id":
...}`` (:data:`CALLBACK_TAG`): in the kernel it is a stub that asks the grader to call it,
as an input request on the kernel's stdin channel whose prompt starts with
:data:`CALLBACK_PROMPT`, and waits for the answer.

This module imports nothing of the grader: it runs in the student's kernel too.
"""

from __future__ import annotations

import base64
import importlib
import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "CALLBACK_PROMPT",
    "CALLBACK_TAG",
    "COMM_TARGET",
    "FUNCTION_TAGS",
    "KERNEL_MODULE",
    "MAX_DEPTH",
    "PLAIN_KINDS",
    "REFERENCE_TAG",
    "REF_MODULES",
    "REPLY_MIME",
    "NotPlainData",
    "allowed_function",
    "decode",
    "encode",
]

#: The module whose ``main(globals(), request)`` answers the grader in the kernel.
KERNEL_MODULE = "linlib._remote"
#: The MIME type of the display data that carries a reply to the grader.
REPLY_MIME = "application/x-autograder-reply"
#: The comm target the kernel's side listens on once asked (``op`` ``listen``): the later
#: requests come as comm messages, the replies as the comm's messages (no cell is run).
COMM_TARGET = "autograder.recheck"
#: numpy dtype kinds that are plain data: booleans, integers, floats, complex, str.
PLAIN_KINDS = frozenset("biufcU")
#: Deepest nesting of containers that crosses.
MAX_DEPTH = 64
#: The tags that stand for a function: a student's (``fn``), a library's (``ref``), a
#: ``functools.partial`` of either (``partial``).
FUNCTION_TAGS = frozenset({"fn", "ref", "partial"})
#: The tag of an object of the kernel that crosses as a handle the kernel keeps.
REFERENCE_TAG = "obj"
#: The tag of a function of the grader's that the kernel calls back.
CALLBACK_TAG = "cb"
#: How the prompt of the kernel's input request that calls the grader back starts.
CALLBACK_PROMPT = "\x00autograder-callback:"
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
_BASES: tuple[type[Any], ...] = (bool, int, float, str, complex, tuple, list, dict)


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
    if kind is slice:
        return {
            "__ag__": "slice",
            "items": [inner(value.start), inner(value.stop), inner(value.step)],
        }
    if value is Ellipsis:
        return {"__ag__": "ellipsis"}
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


def decode(value: Any, function: Callable[[dict[str, Any]], Any] | None = None) -> Any:
    """Plain data from what :func:`encode` made, trusting it (an encoder of ours made it).

    The kernel's side decodes the grader's arguments with it (``linlib._remote``), and a
    student build of linlib the library's answers it carries (``linlib.grading``); the
    grader decodes the kernel's replies strictly instead (``autograder.recheck.codec``).
    A function tag, a reference or a callback tag is handed to *function*, which returns
    what it stands for; without one, it is refused with :class:`NotPlainData`.
    """
    if isinstance(value, list):
        return [decode(x, function) for x in value]
    if not isinstance(value, dict):
        return value
    tag = value["__ag__"]
    if tag == "float":
        return float(value["v"])
    if tag == "complex":
        return complex(decode(value["re"], function), decode(value["im"], function))
    if tag == "tuple":
        return tuple(decode(x, function) for x in value["items"])
    if tag == "set":
        return {decode(x, function) for x in value["items"]}
    if tag == "frozenset":
        return frozenset(decode(x, function) for x in value["items"])
    if tag == "dict":
        return {decode(k, function): decode(x, function) for k, x in value["items"]}
    if tag == "slice":
        return slice(*(decode(x, function) for x in value["items"]))
    if tag == "ellipsis":
        return Ellipsis
    if tag == "nd":
        data = base64.b64decode(value["b64"])
        array = np.frombuffer(data, dtype=np.dtype(value["dtype"]))
        return array.reshape(value["shape"]).copy()
    if tag == "np":
        return np.frombuffer(base64.b64decode(value["b64"]), dtype=np.dtype(value["dtype"]))[0]
    if tag in FUNCTION_TAGS or tag in (REFERENCE_TAG, CALLBACK_TAG):
        if function is None:
            raise NotPlainData(f"a function ({tag!r} tag) where plain data was expected")
        return function(value)
    raise ValueError(tag)


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
