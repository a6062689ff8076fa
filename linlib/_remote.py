"""The kernel side of the autograder's trusted re-check.

The autograder re-runs each test cell outside the student's (sandboxed) kernel; the
student's functions stay in the kernel. Each request the grader sends is one short call,
``__import__('linlib._remote', fromlist=['main']).main(globals(), request)``: :func:`main`
answers it (call a function of the notebook's namespace, or describe some of its names)
and publishes the reply as display data of type
:data:`~linlib.grader_kernel_wire.REPLY_MIME`. What crosses, and how it is encoded, is the
wire format both sides share (:mod:`linlib.grader_kernel_wire`); the grader decodes the
replies strictly, so this side only has to work for honest students.

What is not plain data stays here and crosses as a handle (:data:`_HANDLES`): the grader
asks for operations on it (``op`` ``apply``: an attribute, a call, an item, the next value
of a generator, a comparison, ...), each answered as plain data or as another handle. A
function of the grader's that a test passes to the student's code is a stub here
(:func:`_callback`) that asks the grader to call it, through the kernel's stdin channel.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import json
import operator
import os
import types
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from linlib.grader_kernel_wire import (
    CALLBACK_PROMPT,
    CALLBACK_TAG,
    COMM_TARGET,
    REFERENCE_TAG,
    REPLY_MIME,
    NotPlainData,
    allowed_function,
    decode,
    encode,
)

__all__ = ["answer", "main"]

#: ipykernel names the code of every cell it runs after a hash of its text
#: (``ipykernel.compiler.get_file_name``), computed in pure Python, character by character:
#: a request carrying an array of 1,600 numbers spent 3 of its 9 ms in the kernel on that
#: name. From the first request on (the notebook's own cells have all run by then), the
#: kernel names cells by this constant instead, through ipykernel's own switch
#: ``IPYKERNEL_CELL_NAME``; the cells run before keep their names, so tracebacks through a
#: student's functions still show the student's lines.
CELL_NAME = "<grader request>"

#: What the kernel decoded from a function tag: id -> (the object, the tag it came as).
_Tags = dict[int, tuple[Any, dict[str, Any]]]

#: The objects the grader holds a handle to: handle -> object (kept for the kernel's life,
#: so that a handle never names another object), and id(object) -> its handle.
_HANDLES: dict[int, Any] = {}
_HANDLE_OF: dict[int, int] = {}
#: The callback stubs made so far: id(stub) -> (the stub, its tag), so that one sent back
#: (returned, or left in an argument) crosses as the tag it came as.
_CALLBACKS: _Tags = {}
#: The notebook's namespace the last request was about (what a callback's answer names).
_NAMESPACE: dict[str, MutableMapping[str, Any]] = {}


def _handle(obj: Any) -> int:
    """The handle of *obj*, made the first time it crosses."""
    known = _HANDLE_OF.get(id(obj))
    if known is not None and _HANDLES.get(known) is obj:
        return known
    handle = len(_HANDLES) + 1
    _HANDLES[handle] = obj
    _HANDLE_OF[id(obj)] = handle
    return handle


def _kind(obj: Any) -> str:
    if isinstance(obj, type):
        return "class"
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, types.GeneratorType):
        return "generator"
    if callable(obj):
        return "function"
    return "object"


def _reference(obj: Any) -> dict[str, Any]:
    """The tag of *obj* as a handle (a callback stub as the tag it came as)."""
    known = _CALLBACKS.get(id(obj))
    if known is not None and known[0] is obj:
        return known[1]
    label = obj.__name__ if isinstance(obj, type | types.ModuleType) else type(obj).__name__
    return {
        "__ag__": REFERENCE_TAG,
        "id": _handle(obj),
        "type": _handle(type(obj)),
        "kind": _kind(obj),
        "name": str(label)[:100],
        "type_name": str(type(obj).__name__)[:100],
    }


def _callback(value: dict[str, Any]) -> Callable[..., Any]:
    """A stub for the grader's function *value* (a ``cb`` tag): calling it asks the grader,
    as an input request on the stdin channel, and waits for its answer."""

    def callback(*args: Any, **kwargs: Any) -> Any:
        from IPython import get_ipython

        kernel = get_ipython().kernel
        request = {
            "id": value["id"],
            "args": encode(list(args), lenient=True, default=_reference),
            "kwargs": encode(kwargs, lenient=True, default=_reference),
        }
        text = kernel._input_request(
            CALLBACK_PROMPT + json.dumps(request),
            kernel._parent_ident["shell"],
            kernel.get_parent("shell"),
            password=False,
        )
        reply = json.loads(text)
        if reply.get("status") == "ok":
            return _decode(reply["value"], _NAMESPACE.get("ns", {}), {})
        cls = getattr(builtins, str(reply.get("ename", "")), None)
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            cls = RuntimeError
        raise cls(str(reply.get("message", "")))

    callback.__name__ = callback.__qualname__ = str(value.get("name") or "callback")[:100]
    _CALLBACKS[id(callback)] = (callback, value)
    return callback


def _decode_function(value: dict[str, Any], ns: MutableMapping[str, Any], tags: _Tags) -> Any:
    tag = value["__ag__"]
    if tag == REFERENCE_TAG:
        return _HANDLES[value["id"]]
    if tag == CALLBACK_TAG:
        return _callback(value)
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
    return decode(value, lambda tag: _decode_function(tag, ns, tags))


def _error(exc: BaseException) -> dict[str, Any]:
    return {
        "status": "error",
        "ename": type(exc).__name__,
        "mro": [c.__name__ for c in type(exc).__mro__],
        "module": type(exc).__module__,
        "message": str(exc)[:4000],
    }


def _call_student() -> Callable[..., Any] | None:
    """``linlib.grading.call_student``, or None where it cannot be imported."""
    try:
        from linlib.grading import call_student
    except Exception:
        return None
    return call_student


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
        call_student = _call_student()
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
        return known[1] if known is not None and known[0] is value else _reference(value)

    given = {id(v): (v, {"__ag__": "arg", "index": i}) for i, v in enumerate(args)}
    given.update({id(v): (v, {"__ag__": "arg", "key": k}) for k, v in kwargs.items()})

    def argument_tag(value: Any) -> dict[str, Any] | None:
        known = given.get(id(value))
        return known[1] if known is not None and known[0] is value else None

    try:
        return {
            "status": "ok",
            "value": _result(result, alias=argument_tag, tags=tags),
            "args": encode(list(args), lenient=True, default=sent_tag),
            "kwargs": encode(kwargs, lenient=True, default=sent_tag),
        }
    except BaseException as exc:
        return {"status": "unplain", "message": str(exc)[:2000]}


def _result(
    value: Any, alias: Callable[[Any], Any] | None = None, tags: _Tags | None = None
) -> Any:
    """*value* encoded as plain data, what is not plain data in it as handles (a function
    the grader sent as the tag it came as, *tags*); a class's instance, a module, a
    function and an iterator always as a handle."""
    sent = (tags or {}).get(id(value))
    if sent is not None and sent[0] is value:
        return sent[1]
    if isinstance(value, type | types.ModuleType | types.GeneratorType) or callable(value):
        return _reference(value)
    if type(value).__module__ == "__main__" and not isinstance(value, tuple | int | float | str):
        # a class of the notebook's that subclasses dict or list has methods of its own (a
        # named tuple or an enum is a value: it crosses as its base type)
        return _reference(value)
    return encode(value, lenient=True, alias=alias, default=_reference)


def _describe(ns: MutableMapping[str, Any], names: list[str]) -> dict[str, Any]:
    """What *ns* holds under each name: missing, data (encoded, handles inside), or a
    handle (a module, a function, a class, an instance)."""
    found: dict[str, Any] = {}
    for name in names:
        if name not in ns:
            found[name] = {"kind": "missing"}
            continue
        try:
            found[name] = {"kind": "data", "value": _result(ns[name])}
        except BaseException as exc:
            found[name] = {"kind": "other", "message": str(exc)[:500]}
    return {"status": "ok", "names": found}


def _call_any(fn: Any, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _as_array(value: Any) -> Any:
    import numpy as np

    return np.asarray(value)


#: The operations the grader may ask for on the kernel's objects (``op`` ``apply``).
_OPERATIONS: dict[str, Callable[..., Any]] = {
    "call": _call_any,
    "getattr": getattr,
    "setattr": setattr,
    "delattr": delattr,
    "getitem": operator.getitem,
    "setitem": operator.setitem,
    "delitem": operator.delitem,
    "len": len,
    "iter": iter,
    "next": next,
    "contains": operator.contains,
    "bool": bool,
    "hash": hash,
    "repr": repr,
    "str": str,
    "format": format,
    "float": float,
    "int": int,
    "complex": complex,
    "index": operator.index,
    "round": round,
    "array": _as_array,
    "isinstance": isinstance,
    "issubclass": issubclass,
    "dir": dir,
    **{
        name: getattr(operator, name)
        for name in (
            "eq ne lt le gt ge add sub mul matmul truediv floordiv mod pow lshift rshift "
            "and_ or_ xor neg pos abs invert"
        ).split()
    },
}


def _apply(ns: MutableMapping[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    """One operation on the kernel's objects: ``fn`` (a name of :data:`_OPERATIONS`) on
    ``args`` and ``kwargs`` (plain data, handles and callbacks); the result as plain data or
    a handle (``array``: plain data only)."""
    name = req.get("fn")
    operation = _OPERATIONS.get(name) if isinstance(name, str) else None
    if operation is None:
        return _error(ValueError(f"no operation {name!r}"))
    tags: _Tags = {}
    try:
        args = _decode(req["args"], ns, tags)
        kwargs = _decode(req.get("kwargs") or {"__ag__": "dict", "items": []}, ns, tags)
        result = operation(*args, **kwargs)
    except BaseException as exc:
        return _error(exc)
    try:
        if name == "array":
            value = encode(result, lenient=True)
        elif name == "call" and isinstance(args[0], type):
            value = _reference(result)  # an instance of the class called
        else:
            value = _result(result, tags=tags)
    except BaseException as exc:
        return {"status": "unplain", "message": str(exc)[:2000]}
    return {"status": "ok", "value": value}


def _bind(ns: MutableMapping[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    """What a test cell did to a graded function's name, done to the notebook's: ``name``
    bound to what ``source`` names (the source's name removed with ``move``), as a test
    cell that deletes a function and puts it back does in the student's kernel."""
    source, name = req["source"], req["name"]
    if source not in ns:
        return _error(NameError(f"name {source!r} is not defined"))
    ns[name] = ns.pop(source) if req.get("move") else ns[source]
    return {"status": "ok"}


def _listen(ns: MutableMapping[str, Any]) -> dict[str, Any]:
    """Answer the later requests as comm messages on :data:`COMM_TARGET` (a comm the
    grader opens): each is answered as :func:`answer` answers it, the reply sent as the
    comm's message. Cheaper than a cell per request: no code compiled, no history, no
    display hook."""
    from comm import get_comm_manager

    def opened(comm: Any, _open: dict[str, Any]) -> None:
        def received(msg: dict[str, Any]) -> None:
            data = msg.get("content", {}).get("data", {})
            comm.send({"reply": json.dumps(answer(ns, data.get("request", "{}")))})

        comm.on_msg(received)

    get_comm_manager().register_target(COMM_TARGET, opened)
    return {"status": "ok"}


def answer(ns: MutableMapping[str, Any], request: str) -> dict[str, Any]:
    """The reply to one request (JSON text with ``op`` ``call``, ``describe``, ``apply``,
    ``bind`` or ``listen`` and a ``nonce``) about the namespace *ns*."""
    req = json.loads(request)
    _NAMESPACE["ns"] = ns
    with _versions(ns, req.get("versions") or {}):
        return _answer(ns, req)


@contextlib.contextmanager
def _versions(ns: MutableMapping[str, Any], versions: dict[str, str]) -> Iterator[None]:
    """The names of *versions* bound, for the request, to the earlier definitions the kernel
    kept (the function a test met before a later answer cell defined it again)."""
    saved = {}
    for name, kept in versions.items():
        if kept in ns:
            saved[name] = ns.get(name, _MISSING)
            ns[name] = ns[kept]
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is _MISSING:
                ns.pop(name, None)
            else:
                ns[name] = value


_MISSING = object()


def _answer(ns: MutableMapping[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"nonce": req["nonce"]}
    if req["op"] == "listen":
        out.update(_listen(ns))
    elif req["op"] == "call":
        out.update(_call(ns, req))
    elif req["op"] == "describe":
        out.update(_describe(ns, req["names"]))
    elif req["op"] == "apply":
        out.update(_apply(ns, req))
    elif req["op"] == "bind":
        out.update(_bind(ns, req))
    return out


def main(ns: MutableMapping[str, Any], request: str) -> None:
    """Answer *request* about the notebook's namespace *ns* and publish the reply."""
    os.environ["IPYKERNEL_CELL_NAME"] = CELL_NAME
    out = answer(ns, request)
    from IPython.display import publish_display_data

    publish_display_data({REPLY_MIME: json.dumps(out)})
