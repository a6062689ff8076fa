"""The trusted re-check: run a test cell in the grader, with the student's code kept remote.

A result decided inside the student's kernel can be forged from inside it (patch
``np.testing``, install an AST transformer that deletes asserts, return an object whose
``__eq__`` is always true). So the grader runs each autograded test cell's *full* source
(visible and hidden tests; it is the instructor's code) once more, in its own process, in a
fresh namespace with its own numpy, linlib and scikit-learn. What the cell needs from the
notebook comes in three ways:

- the **graded functions** (the names a solution cell of the instructor's notebook defines
  with ``def``) become :class:`RemoteFunction` proxies: a call sends its plain-data
  arguments to the student's still-running, sandboxed kernel, runs the student's function
  there (through the kernel's ``linlib.grading.call_student``, which disables the named
  references) and brings back plain data only;
- names the **instructor's code** binds (imports, function definitions, assignments in
  cells that are not solution cells) are re-made here by running those statements;
- anything else must be **plain data** in the kernel (numbers, strings, booleans, None,
  numeric/boolean/string arrays and numpy scalars, and lists/tuples/dicts/sets of these),
  decoded strictly here; other objects are refused.

The checks themselves (``assert_close``, ``assert``, numpy comparisons) therefore run on
genuine values with genuine code. Every request carries a fresh nonce; replies are size
capped; a call that errors, times out or returns something that is not plain data makes
the test fail.
"""

from __future__ import annotations

import ast
import base64
import builtins
import contextlib
import io
import json
import math
import secrets
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from queue import Empty
from typing import Any

import numpy as np

# Test cells import these; doing it once here keeps the first re-check in a worker fast.
import linlib.grading  # noqa: F401
from autograder.notebook import hidden_line_ranges
from autograder.recheck.scan import parse_cell as _parse

__all__ = [
    "DEFAULT_MODULE_ALIASES",
    "CheckResult",
    "InstructorCode",
    "KernelCallTimeout",
    "KernelChannel",
    "KernelUnavailable",
    "NotPlainData",
    "RemoteFunction",
    "StudentCodeError",
    "decode",
    "encode",
    "free_names",
    "run_test_cell",
]

REPLY_MIME = "application/x-autograder-reply"

#: Conventional module aliases used when the instructor's notebook is not at hand.
DEFAULT_MODULE_ALIASES: Mapping[str, str] = {
    "np": "numpy",
    "numpy": "numpy",
    "linlib": "linlib",
    "math": "math",
}

_PLAIN_KINDS = frozenset("biufcU")
_MAX_DEPTH = 64


class NotPlainData(TypeError):
    """A value that may not cross between the student's kernel and the grader."""


class KernelUnavailable(RuntimeError):
    """The student's kernel is gone (died, killed, or never started)."""


class KernelCallTimeout(TimeoutError):
    """The student's code did not answer in time."""


class StudentCodeError(Exception):
    """The student's function raised an exception of a type the grader does not map."""


# --------------------------------------------------------------------------- plain data


def encode(value: Any, _depth: int = 0) -> Any:
    """Encode plain data as JSON-ready objects (tagged dicts for non-JSON types)."""
    if _depth > _MAX_DEPTH:
        raise NotPlainData("nesting too deep")
    kind = type(value)
    if value is None or kind is bool or kind is str or kind is int:
        return value
    if kind is float:
        if math.isfinite(value):
            return value
        return {"__ag__": "float", "v": repr(value)}
    if kind is complex:
        return {"__ag__": "complex", "re": encode(value.real), "im": encode(value.imag)}
    if kind is list:
        return [encode(v, _depth + 1) for v in value]
    if kind is tuple:
        return {"__ag__": "tuple", "items": [encode(v, _depth + 1) for v in value]}
    if kind is dict:
        return {
            "__ag__": "dict",
            "items": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in value.items()],
        }
    if kind in (set, frozenset):
        return {
            "__ag__": "set" if kind is set else "frozenset",
            "items": [encode(v, _depth + 1) for v in value],
        }
    if kind is np.ndarray:
        if value.dtype.kind not in _PLAIN_KINDS:
            raise NotPlainData(f"an array of dtype {value.dtype} is not plain data")
        return {
            "__ag__": "nd",
            "dtype": value.dtype.str,
            "shape": list(value.shape),
            "b64": base64.b64encode(value.tobytes(order="C")).decode("ascii"),
        }
    if isinstance(value, np.generic) and type(value).__module__ == "numpy":
        # The scalar's own dtype, not np.dtype(type(value)): for a string (np.str_) the
        # type alone gives "<U0", which says nothing of its length.
        data = np.asarray(value)
        if data.dtype.kind not in _PLAIN_KINDS:
            raise NotPlainData(f"a numpy scalar of dtype {data.dtype} is not plain data")
        return {
            "__ag__": "np",
            "dtype": data.dtype.str,
            "b64": base64.b64encode(data.tobytes()).decode("ascii"),
        }
    if isinstance(value, RemoteFunction):
        return {"__ag__": "fn", "name": value.name}
    raise NotPlainData(f"a value of type {kind.__module__}.{kind.__qualname__} is not plain data")


@dataclass
class _Budget:
    nodes: int = 2_000_000
    depth: int = _MAX_DEPTH

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
    if dtype.kind not in _PLAIN_KINDS or dtype.hasobject or dtype.fields is not None:
        raise NotPlainData(f"dtype {dtype} is not plain data")
    if dtype.itemsize == 0 or dtype.subdtype is not None:
        raise NotPlainData(f"dtype {dtype} is not plain data")
    return dtype


def decode(obj: Any, budget: _Budget | None = None, _depth: int = 0) -> Any:
    """Strictly decode what :func:`encode` (or the kernel's helper) produced.

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


# --------------------------------------------------------------------------- kernel side

# Sent with every request and run in the student's kernel (in a throw-away namespace; the
# user namespace comes in as _ag_ns). Nothing here is trusted: whatever it answers is
# decoded strictly by the grader. It only has to work for honest students.
# Its encoder mirrors encode() above (the kernel cannot import autograder, which the
# sandbox does not show): change the two together.
_KERNEL_HELPER = r"""
def _ag_main(ns, request):
    import base64, json, math, types
    try:
        import numpy as np
    except Exception:
        np = None
    req = json.loads(request)
    plain_kinds = "biufcU"

    def enc(v, depth=0):
        if depth > 64:
            raise TypeError("nesting too deep")
        t = type(v)
        if v is None or t is bool or t is str or t is int:
            return v
        if t is float:
            return v if math.isfinite(v) else {"__ag__": "float", "v": repr(v)}
        if t is complex:
            return {"__ag__": "complex", "re": enc(v.real), "im": enc(v.imag)}
        if t is list:
            return [enc(x, depth + 1) for x in v]
        if t is tuple:
            return {"__ag__": "tuple", "items": [enc(x, depth + 1) for x in v]}
        if t is dict:
            return {"__ag__": "dict",
                    "items": [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()]}
        if t is set or t is frozenset:
            return {"__ag__": t.__name__, "items": [enc(x, depth + 1) for x in v]}
        if np is not None and isinstance(v, np.ndarray):
            a = np.asarray(v)
            if a.dtype.kind not in plain_kinds or a.dtype.fields is not None:
                raise TypeError("an array of dtype %s is not plain data" % a.dtype)
            return {"__ag__": "nd", "dtype": a.dtype.str, "shape": list(a.shape),
                    "b64": base64.b64encode(a.tobytes(order="C")).decode("ascii")}
        if np is not None and isinstance(v, np.generic):
            a = np.asarray(v)  # its own dtype: np.str_'s type alone gives "<U0"
            if a.dtype.kind not in plain_kinds:
                raise TypeError("a numpy scalar of dtype %s is not plain data" % a.dtype)
            return {"__ag__": "np", "dtype": a.dtype.str,
                    "b64": base64.b64encode(a.tobytes()).decode("ascii")}
        for base in (bool, int, float, str, complex, tuple, list, dict):
            if isinstance(v, base):
                return enc(base(v), depth)
        raise TypeError("a value of type %s.%s is not plain data"
                        % (t.__module__, t.__qualname__))

    def dec(v):
        if isinstance(v, list):
            return [dec(x) for x in v]
        if not isinstance(v, dict):
            return v
        tag = v["__ag__"]
        if tag == "float":
            return float(v["v"])
        if tag == "complex":
            return complex(dec(v["re"]), dec(v["im"]))
        if tag == "tuple":
            return tuple(dec(x) for x in v["items"])
        if tag == "set":
            return set(dec(x) for x in v["items"])
        if tag == "frozenset":
            return frozenset(dec(x) for x in v["items"])
        if tag == "dict":
            return {dec(k): dec(x) for k, x in v["items"]}
        if tag == "nd":
            data = base64.b64decode(v["b64"])
            return np.frombuffer(data, dtype=np.dtype(v["dtype"])).reshape(v["shape"]).copy()
        if tag == "np":
            return np.frombuffer(base64.b64decode(v["b64"]), dtype=np.dtype(v["dtype"]))[0]
        if tag == "fn":
            return ns[v["name"]]
        raise ValueError(tag)

    def error(exc):
        return {"status": "error", "ename": type(exc).__name__,
                "mro": [c.__name__ for c in type(exc).__mro__],
                "module": type(exc).__module__, "message": str(exc)[:4000]}

    out = {"nonce": req["nonce"]}
    if req["op"] == "call":
        args = dec(req["args"])
        kwargs = dec(req["kwargs"])
        try:
            fn = ns[req["name"]]
        except KeyError:
            out.update(error(NameError("name %r is not defined" % req["name"])))
        else:
            try:
                try:
                    from linlib.grading import call_student
                except Exception:
                    call_student = None
                references = req.get("use_reference") or {}
                if call_student is not None and references:
                    result = call_student(fn, *args, disable=tuple(req["disable"]),
                                          use_reference=dict(references), **kwargs)
                elif call_student is not None:
                    result = call_student(fn, *args, disable=tuple(req["disable"]), **kwargs)
                else:
                    result = fn(*args, **kwargs)
            except BaseException as exc:
                out.update(error(exc))
            else:
                try:
                    out.update(status="ok", value=enc(result), args=enc(list(args)),
                               kwargs=enc(kwargs))
                except BaseException as exc:
                    out.update(status="unplain", message=str(exc)[:2000])
    elif req["op"] == "describe":
        found = {}
        for name in req["names"]:
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
                    found[name] = {"kind": "data", "value": enc(value)}
                except BaseException as exc:
                    found[name] = {"kind": "other", "message": str(exc)[:500]}
        out.update(status="ok", names=found)
    from IPython.display import publish_display_data
    publish_display_data({MIME: json.dumps(out)})
""".replace("MIME", repr(REPLY_MIME))


def _request_code(request: Mapping[str, Any]) -> str:
    payload = json.dumps(request)
    return (
        f"exec({_KERNEL_HELPER!r} + '\\n_ag_main(_ag_ns, _ag_req)\\n', "
        f"{{'_ag_ns': globals(), '_ag_req': {payload!r}}})"
    )


# --------------------------------------------------------------------------- the channel


class KernelChannel:
    """Send requests to a student's kernel and wait for its plain-data replies.

    Parameters
    ----------
    km, kc
        The kernel manager and (async) kernel client nbclient used for the notebook.
    call_timeout : float
        Seconds one call may take before the kernel is interrupted.
    interrupt_grace : float
        Seconds to wait after an interrupt before the kernel is killed.
    max_reply_bytes : int
        Largest reply accepted.
    """

    def __init__(
        self,
        km: Any,
        kc: Any,
        *,
        call_timeout: float = 30.0,
        interrupt_grace: float = 3.0,
        max_reply_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        self.km = km
        self.kc = kc
        self.call_timeout = call_timeout
        self.interrupt_grace = interrupt_grace
        self.max_reply_bytes = max_reply_bytes
        self.dead_reason: str | None = None if km is not None else "no kernel"
        self.deadline: float | None = None
        self.calls = 0

    def request(self, request: dict[str, Any]) -> dict[str, Any]:
        """Run one request (``op``: ``call`` or ``describe``) and return the reply dict."""
        from jupyter_core.utils import run_sync

        if self.dead_reason is not None:
            raise KernelUnavailable(self.dead_reason)
        timeout = self.call_timeout
        if self.deadline is not None:
            timeout = min(timeout, self.deadline - time.monotonic())
            if timeout <= 0:
                raise KernelCallTimeout("the time for re-checking this test cell ran out")
        request = dict(request, nonce=secrets.token_hex(16))
        self.calls += 1
        return run_sync(self._request)(request, timeout)

    async def _is_alive(self) -> bool:
        try:
            alive = self.km.is_alive()
            if hasattr(alive, "__await__"):
                alive = await alive
            return bool(alive)
        except Exception:
            return False

    async def _request(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        if not await self._is_alive():
            self.dead_reason = "the student's kernel is no longer running"
            raise KernelUnavailable(self.dead_reason)
        msg_id = self.kc.execute(
            _request_code(request),
            silent=False,
            store_history=False,
            allow_stdin=False,
            stop_on_error=False,
        )
        reply: dict[str, Any] | None = None
        errors: list[str] = []
        deadline = time.monotonic() + timeout
        interrupted = False
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if interrupted:
                    self.dead_reason = "the student's code did not stop after an interrupt"
                    await self._kill()
                    raise KernelCallTimeout(
                        f"no answer within {timeout:.0f} s, and the kernel ignored the interrupt"
                    )
                interrupted = True
                with contextlib.suppress(Exception):
                    result = self.km.interrupt_kernel()
                    if hasattr(result, "__await__"):
                        await result
                deadline = time.monotonic() + self.interrupt_grace
                continue
            try:
                msg = await self.kc.iopub_channel.get_msg(timeout=min(remaining, 1.0))
            except Empty:
                if not await self._is_alive():
                    self.dead_reason = "the student's kernel died"
                    raise KernelUnavailable(self.dead_reason) from None
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg.get("msg_type")
            content = msg.get("content", {})
            if kind in ("display_data", "execute_result") and reply is None:
                data = content.get("data", {}).get(REPLY_MIME)
                if isinstance(data, str):
                    if len(data) > self.max_reply_bytes:
                        raise NotPlainData(
                            f"the reply is larger than {self.max_reply_bytes // 1024} KiB"
                        )
                    try:
                        candidate = json.loads(data)
                    except (ValueError, RecursionError):
                        candidate = None
                    if isinstance(candidate, dict) and candidate.get("nonce") == request["nonce"]:
                        reply = candidate
            elif kind == "error":
                errors.append(f"{content.get('ename', '')}: {content.get('evalue', '')}")
            elif kind == "status" and content.get("execution_state") == "idle":
                break
        if interrupted:
            raise KernelCallTimeout(f"no answer within {timeout:.0f} s (interrupted)")
        if reply is None:
            detail = f" ({errors[0][:300]})" if errors else ""
            raise KernelUnavailable(f"the kernel gave no answer{detail}")
        return reply

    async def _kill(self) -> None:
        with contextlib.suppress(Exception):
            result = self.km.shutdown_kernel(now=True)
            if hasattr(result, "__await__"):
                await result
        box = getattr(self.km, "sandbox", None)
        if box is not None:
            box.kill("the student's code did not stop after an interrupt")

    # -- high-level ---------------------------------------------------------------------

    def call(
        self,
        name: str,
        args: Sequence[Any],
        kwargs: Mapping[str, Any],
        disable: Sequence[str] = (),
        use_reference: Mapping[str, str] | None = None,
    ) -> Any:
        """Call the kernel's function *name*; return its result or raise its exception.

        *use_reference* maps names of the student's namespace to library references that
        stand in for them during the call (``linlib.grading.references_in_place_of``).
        """
        request = {
            "op": "call",
            "name": name,
            "args": encode(list(args)),
            "kwargs": encode(dict(kwargs)),
            "disable": [str(d) for d in disable],
        }
        if use_reference:
            request["use_reference"] = {str(k): str(v) for k, v in use_reference.items()}
        reply = self.request(request)
        status = reply.get("status")
        if status == "ok":
            result = decode(reply.get("value"))
            _apply_mutations(args, reply.get("args"))
            _apply_mutations_kw(kwargs, reply.get("kwargs"))
            return result
        if status == "unplain":
            raise NotPlainData(
                f"{name} returned something that is not plain data: {reply.get('message', '')}"
            )
        if status == "error":
            raise _rebuild_exception(name, reply)
        raise KernelUnavailable(f"unexpected reply status {status!r}")

    def describe(self, names: Iterable[str]) -> dict[str, dict[str, Any]]:
        """What the kernel holds under each name: missing, module, callable, data, other."""
        names = sorted(set(names))
        if not names:
            return {}
        reply = self.request({"op": "describe", "names": names})
        found = reply.get("names")
        if not isinstance(found, dict):
            raise KernelUnavailable("malformed reply")
        return {n: found.get(n, {"kind": "missing"}) for n in names}


def _apply_mutations(args: Sequence[Any], after: Any) -> None:
    """Mirror in-place changes the student's function made to its arguments."""
    try:
        new = decode(after)
    except NotPlainData:
        return
    if not isinstance(new, list) or len(new) != len(args):
        return
    for old, value in zip(args, new, strict=True):
        _mirror(old, value)


def _apply_mutations_kw(kwargs: Mapping[str, Any], after: Any) -> None:
    try:
        new = decode(after)
    except NotPlainData:
        return
    if isinstance(new, dict):
        for key, old in kwargs.items():
            if key in new:
                _mirror(old, new[key])


def _mirror(old: Any, new: Any) -> None:
    if isinstance(old, np.ndarray) and isinstance(new, np.ndarray):
        if (
            old.shape == new.shape
            and old.flags.writeable
            and not np.array_equal(old, new, equal_nan=old.dtype.kind in "fc")
        ):
            with contextlib.suppress(TypeError, ValueError):
                old[...] = new
    elif type(old) is list and isinstance(new, list):
        if not _plain_equal(old, new):
            old[:] = new
    elif type(old) is dict and isinstance(new, dict):
        if not _plain_equal(old, new):
            old.clear()
            old.update(new)


def _plain_equal(a: Any, b: Any) -> bool:
    """Equality of decoded plain data; arrays inside lists compare element-wise, never by ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc")
        )
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_plain_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_plain_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


_MAPPED_EXCEPTIONS: dict[str, type[BaseException]] = {
    name: obj
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, Exception)
}
_MAPPED_EXCEPTIONS["LinAlgError"] = np.linalg.LinAlgError


def _rebuild_exception(name: str, reply: Mapping[str, Any]) -> BaseException:
    """The trusted counterpart of the exception the student's function raised."""
    message = str(reply.get("message", ""))[:4000]
    ename = str(reply.get("ename", "Exception"))
    mro = [str(n) for n in reply.get("mro", []) if isinstance(n, str)]
    if ename == "ReferenceDisabledError":
        from linlib.grading import ReferenceDisabledError

        return ReferenceDisabledError(message)
    if ename in ("KeyboardInterrupt", "SystemExit", "GeneratorExit"):
        return StudentCodeError(f"{name} raised {ename} {message}".strip())
    for candidate in mro:
        cls = _MAPPED_EXCEPTIONS.get(candidate)
        if cls is not None and cls is not Exception:
            try:
                exc = cls(message)
            except Exception:
                continue
            if ename != candidate:
                exc.add_note(f"(raised as {ename} in the student's code)")
            return exc
    return StudentCodeError(f"{name} raised {ename}: {message}")


class RemoteFunction:
    """A student's function, living in their sandboxed kernel, called with plain data.

    ``linlib.grading.call_student`` recognises the class (``__grading_call__``) and passes
    the names of the references to disable; calling the proxy directly disables nothing.
    """

    def __init__(self, channel: KernelChannel, name: str) -> None:
        self._channel = channel
        self.name = name
        self.__name__ = name
        self.__qualname__ = name

    def __grading_call__(
        self,
        args: Sequence[Any],
        kwargs: Mapping[str, Any],
        disable: Sequence[str] = (),
        use_reference: Mapping[str, str] | None = None,
    ) -> Any:
        return self._channel.call(
            self.name, list(args), dict(kwargs), tuple(disable), use_reference
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__grading_call__(args, kwargs, ())

    def __repr__(self) -> str:
        return f"<student function {self.name}>"


class _Unavailable:
    """Stands for a name the re-check could not obtain; using it fails the test."""

    def __init__(self, name: str, why: str) -> None:
        self._message = f"{name} is not available to the re-check: {why}"

    def _fail(self, *_: Any, **__: Any) -> Any:
        raise AssertionError(self._message)

    __call__ = __getattr__ = __getitem__ = __iter__ = __len__ = _fail
    __eq__ = __lt__ = __gt__ = __le__ = __ge__ = __bool__ = __float__ = __int__ = _fail
    __array__ = _fail
    __hash__ = None  # type: ignore[assignment]


# --------------------------------------------------------------------------- analysis


def free_names(source: str | ast.AST) -> set[str]:
    """Names a piece of code reads but does not bind itself (builtins included)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            if not isinstance(node, ast.ClassDef):
                a = node.args
                for arg in a.posonlyargs + a.args + a.kwonlyargs:
                    bound.add(arg.arg)
                for arg in (a.vararg, a.kwarg):
                    if arg is not None:
                        bound.add(arg.arg)
        elif isinstance(node, ast.Lambda):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs:
                bound.add(arg.arg)
            for arg in (a.vararg, a.kwarg):
                if arg is not None:
                    bound.add(arg.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
    return loaded - bound


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Names a top-level statement binds."""
    names: set[str] = set()
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        for alias in stmt.names:
            if alias.name == "*":
                continue
            names.add((alias.asname or alias.name).split(".")[0])
    elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        names.add(stmt.name)
    elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    names.add(node.id)
    else:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                names.add(node.id)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    names.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
    return names


@dataclass
class _Binding:
    position: int
    stmt: ast.stmt
    kind: str  # "solution" or "instructor"


@dataclass
class InstructorCode:
    """What the instructor's notebook binds where: the basis of the trusted namespace.

    Parameters
    ----------
    cells : sequence of (kind, key, source)
        The instructor's code cells in order; *kind* is ``"solution"`` (an answer cell:
        only what its stub ``def``\\ s is trusted), ``"test"`` (an autograded test cell,
        *key* its grade id) or ``"code"`` (any other cell).
    """

    cells: Sequence[tuple[str, str | None, str]]
    graded_functions: set[str] = field(default_factory=set)
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for position, (kind, key, source) in enumerate(self.cells):
            if kind == "test" and key:
                self.positions[key] = position
            tree = _parse(source)
            if tree is None:
                continue
            for stmt in tree.body:
                if kind == "solution":
                    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                        self.graded_functions.add(stmt.name)
                    for name in _bound_names(stmt):
                        self.bindings.setdefault(name, []).append(
                            _Binding(position, stmt, "solution")
                        )
                    continue
                for name in _bound_names(stmt):
                    self.bindings.setdefault(name, []).append(
                        _Binding(position, stmt, "instructor")
                    )

    def binding_before(self, name: str, position: int | None) -> _Binding | None:
        """The instructor statement that last binds *name* before *position*."""
        candidates = self.bindings.get(name, [])
        if not candidates:
            return None
        if position is None:
            return candidates[-1]
        before = [b for b in candidates if b.position < position]
        return before[-1] if before else candidates[0]


class _Resolver:
    """Builds the trusted namespace of one test cell."""

    def __init__(
        self,
        code: InstructorCode,
        channel: KernelChannel,
        position: int | None,
        aliases: Mapping[str, str],
    ) -> None:
        self.code = code
        self.channel = channel
        self.position = position
        self.aliases = aliases
        self.namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.notes: list[str] = []
        self._busy: set[str] = set()

    def resolve_all(self, names: Iterable[str]) -> dict[str, Any]:
        remote: set[str] = set()
        for name in sorted(names):
            if not self._resolve_local(name, depth=0):
                remote.add(name)
        self._resolve_remote(remote)
        return self.namespace

    def _resolve_local(self, name: str, depth: int) -> bool:
        """Bind *name* without asking the kernel for data; False if that is impossible."""
        if name in self.namespace:
            return True
        if name in self.code.graded_functions:
            self.namespace[name] = RemoteFunction(self.channel, name)
            return True
        binding = self.code.binding_before(name, self.position)
        if binding is None or binding.kind == "solution":
            if binding is None and name in self.aliases:
                with contextlib.suppress(ImportError):
                    self.namespace[name] = __import__(self.aliases[name], fromlist=["_"])
                    return True
            if binding is None and hasattr(builtins, name):
                return True
            return False
        if depth > 8 or name in self._busy:
            return False
        stmt = binding.stmt
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            aliases = [a for a in stmt.names if (a.asname or a.name).split(".")[0] == name]
            node: ast.stmt
            if isinstance(stmt, ast.Import):
                node = ast.Import(names=aliases)
            else:
                node = ast.ImportFrom(module=stmt.module, names=aliases, level=stmt.level)
            return self._run(ast.fix_missing_locations(node), name)
        self._busy.add(name)
        try:
            needed = free_names(ast.Module(body=[stmt], type_ignores=[]))
            if isinstance(stmt, ast.AugAssign):
                return False
            for other in needed:
                if other == name or (hasattr(builtins, other) and other not in self.code.bindings):
                    continue
                if not self._resolve_local(other, depth + 1):
                    return False
            return self._run(stmt, name)
        finally:
            self._busy.discard(name)

    def _run(self, stmt: ast.stmt, name: str) -> bool:
        module = ast.Module(body=[stmt], type_ignores=[])
        try:
            code = compile(module, f"<instructor code for {name}>", "exec")
            with _quiet():
                exec(code, self.namespace)
        except Exception as exc:  # instructor code that does not run here: ask the kernel
            self.notes.append(f"{name}: instructor code failed here ({type(exc).__name__})")
            return False
        return name in self.namespace

    def _resolve_remote(self, names: set[str]) -> None:
        names = {n for n in names if n not in self.namespace}
        if not names:
            return
        try:
            found = self.channel.describe(names)
        except (KernelUnavailable, KernelCallTimeout, NotPlainData) as exc:
            for name in names:
                self.namespace[name] = _Unavailable(name, str(exc))
            return
        for name in names:
            info = found.get(name, {})
            kind = info.get("kind")
            if kind == "data":
                try:
                    self.namespace[name] = decode(info.get("value"))
                except (NotPlainData, ValueError, TypeError) as exc:
                    self.namespace[name] = _Unavailable(name, str(exc))
                    self.notes.append(f"{name}: {exc}")
            elif kind == "missing":
                if not hasattr(builtins, name):
                    self.namespace[name] = _Unavailable(name, "it is not defined")
            else:
                why = {
                    "module": "a module the instructor's notebook does not import",
                    "callable": "a function that is not one of the graded functions",
                }.get(str(kind), str(info.get("message", "not plain data")))
                self.namespace[name] = _Unavailable(name, why)
                self.notes.append(f"{name}: {why}")


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield


# --------------------------------------------------------------------------- checking


@dataclass
class CheckResult:
    """The trusted outcome of one autograded test cell."""

    grade_id: str
    passed: bool
    ename: str = ""
    message: str = ""
    where: str = ""  # "visible", "hidden" or "" (passed, or not located)
    calls: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "ename": self.ename,
            "message": self.message,
            "where": self.where,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
        }


def _failure_line(exc: BaseException, filename: str) -> int | None:
    # The innermost frame of the cell's own code: test cells often wrap their checks in
    # functions called at the end, so the outermost frame would always be visible code.
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run_test_cell(
    grade_id: str,
    source: str,
    code: InstructorCode,
    channel: KernelChannel,
    *,
    time_budget: float = 120.0,
    aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
) -> CheckResult:
    """Run one test cell's full source in this (trusted) process; report pass or fail."""
    start = time.monotonic()
    calls_before = channel.calls
    channel.deadline = start + time_budget
    try:
        result = _run_test_cell(grade_id, source, code, channel, aliases)
    finally:
        channel.deadline = None
    result.calls = channel.calls - calls_before
    result.seconds = time.monotonic() - start
    return result


def _run_test_cell(
    grade_id: str,
    source: str,
    code: InstructorCode,
    channel: KernelChannel,
    aliases: Mapping[str, str],
) -> CheckResult:
    filename = f"<test cell {grade_id}>"
    tree = _parse(source)
    if tree is None:
        return CheckResult(grade_id, False, "SyntaxError", "the test cell does not parse")
    resolver = _Resolver(code, channel, code.positions.get(grade_id), aliases)
    namespace = resolver.resolve_all(free_names(tree))
    compiled = compile(tree, filename, "exec")
    try:
        with _quiet():
            exec(compiled, namespace)
    except Exception as exc:
        line = _failure_line(exc, filename)
        where = ""
        if line is not None:
            hidden = any(a <= line <= b for a, b in hidden_line_ranges(source))
            where = "hidden" if hidden else "visible"
        message = str(exc)
        notes = getattr(exc, "__notes__", None)
        if notes:
            message = (message + " " + " ".join(str(n) for n in notes)).strip()
        return CheckResult(
            grade_id, False, type(exc).__name__, message[:2000], where, notes=resolver.notes
        )
    return CheckResult(grade_id, True, notes=resolver.notes)


def check_cells(
    cells: Iterable[tuple[str, str]],
    code: InstructorCode,
    channel: KernelChannel,
    *,
    time_budget: float = 120.0,
    total_budget: float | None = None,
    aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
) -> dict[str, CheckResult]:
    """:func:`run_test_cell` for each ``(grade_id, full source)``.

    Each cell gets *time_budget* seconds, and all of them together *total_budget*: a
    student's function that answers just before every timeout cannot stretch the re-check
    of a notebook without bound.
    """
    results: dict[str, CheckResult] = {}
    end = None if total_budget is None else time.monotonic() + total_budget
    for grade_id, source in cells:
        budget = time_budget
        if end is not None:
            budget = min(budget, end - time.monotonic())
        if budget <= 0:
            results[grade_id] = CheckResult(
                grade_id, False, "TimeoutError", "the time for re-checking this notebook ran out"
            )
            continue
        results[grade_id] = run_test_cell(
            grade_id, source, code, channel, time_budget=budget, aliases=aliases
        )
    return results
