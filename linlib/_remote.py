"""The kernel side of the autograder's trusted re-check.

The autograder re-runs each test cell outside the student's (sandboxed) kernel; the
student's functions stay in the kernel. Each request the grader sends is one short call,
``__import__('linlib._remote', fromlist=['main']).main(globals(), request)``: :func:`main`
answers it (call a function of the notebook's namespace, or describe some of its names)
and publishes the reply as display data of type
:data:`~linlib.grader_kernel_wire.REPLY_MIME`. What crosses, and how it is encoded, is the
wire format both sides share (:mod:`linlib.grader_kernel_wire`); the grader decodes the
replies strictly, so this side only has to work for honest students.
"""

from __future__ import annotations

import functools
import json
import os
import types
from collections.abc import Callable, MutableMapping
from typing import Any

from linlib.grader_kernel_wire import (
    COMM_TARGET,
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
    """The reply to one request (JSON text with ``op`` ``call``, ``describe``, ``bind`` or
    ``listen`` and a ``nonce``) about the namespace *ns*."""
    req = json.loads(request)
    out: dict[str, Any] = {"nonce": req["nonce"]}
    if req["op"] == "listen":
        out.update(_listen(ns))
    elif req["op"] == "call":
        out.update(_call(ns, req))
    elif req["op"] == "describe":
        out.update(_describe(ns, req["names"]))
    elif req["op"] == "bind":
        out.update(_bind(ns, req))
    return out


def main(ns: MutableMapping[str, Any], request: str) -> None:
    """Answer *request* about the notebook's namespace *ns* and publish the reply."""
    os.environ["IPYKERNEL_CELL_NAME"] = CELL_NAME
    out = answer(ns, request)
    from IPython.display import publish_display_data

    publish_display_data({REPLY_MIME: json.dumps(out)})
