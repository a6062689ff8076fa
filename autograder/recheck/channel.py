"""The channel to the student's kernel, and the proxies the trusted namespace holds.

:class:`KernelChannel` sends each request (a call of a student's function, or "what do
these names hold") into the still-running, sandboxed kernel as one short call of
``linlib._remote.main``, and waits for the reply: a fresh nonce per request, a size cap,
a per-call timeout (interrupt, then kill). :class:`RemoteFunction` is a student's function
as the test cell sees it: its arguments are plain data, graded functions, and linlib, numpy
and math functions and partials of them, by reference
(:func:`~autograder.recheck.codec.encode_call`); the changes the call made to its
arguments are mirrored here (:mod:`~autograder.recheck.mirror`); the exception it raised
comes back as an ordinary one. :class:`Unavailable` stands for a
name the re-check could not obtain: using it fails the test.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from queue import Empty
from typing import Any

import numpy as np

from autograder.recheck.codec import NotPlainData, call_request, decode, encode_call
from autograder.recheck.mirror import apply_mutations
from autograder.recheck.remote import Proxies, RecheckLimit
from linlib.grader_kernel_wire import (
    CALLBACK_PROMPT,
    CALLBACK_TAG,
    COMM_TARGET,
    KERNEL_MODULE,
    REFERENCE_TAG,
    REPLY_MIME,
    encode,
)

__all__ = [
    "HungCall",
    "KernelCallTimeout",
    "KernelChannel",
    "KernelUnavailable",
    "RemoteFunction",
    "StudentCodeError",
]


#: Seconds the kernel has to start listening for the requests as comm messages.
LISTEN_TIMEOUT = 10.0


class KernelUnavailable(RuntimeError):
    """The student's kernel is gone (died, killed, or never started)."""


class KernelCallTimeout(TimeoutError):
    """The student's code did not answer in time.

    *seconds*: how long the call ran before it was interrupted (None: it was not sent, the
    time had run out before); *killed*: it ignored the interrupt, and the kernel was killed;
    *function*: the student's function whose call it was (None: a request of no function).
    """

    def __init__(
        self,
        message: str,
        *,
        seconds: float | None = None,
        killed: bool = False,
        function: str | None = None,
    ) -> None:
        super().__init__(message)
        self.seconds = seconds
        self.killed = killed
        self.function = function


@dataclass
class HungCall:
    """A student's function that did not return in time during the re-check."""

    name: str
    seconds: float
    killed: bool  # it ignored the interrupt: the kernel was killed


class StudentCodeError(Exception):
    """The student's function raised an exception of a type the grader does not map;
    ``ename``: that type's name, as the kernel reported it."""

    def __init__(self, message: str, ename: str) -> None:
        super().__init__(message)
        self.ename = ename


def _kernel_tag(value: Any) -> dict[str, Any] | None:
    """What the kernel holds travels as its own: a graded function as its name, a proxy
    as its handle."""
    if isinstance(value, RemoteFunction):
        return {"__ag__": "fn", "name": value.name}
    handle = Proxies.handle(value)
    if handle is not None:
        return {"__ag__": REFERENCE_TAG, "id": handle}
    return None


def _request_code(request: Mapping[str, Any]) -> str:
    """The code the kernel runs for one request: a call of ``linlib._remote.main`` on the
    notebook's namespace (``__import__``: no name of the notebook is bound or read)."""
    payload = json.dumps(request)
    return f"__import__({KERNEL_MODULE!r}, fromlist=['main']).main(globals(), {payload!r})"


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
    restart : callable, optional
        Called when a call had to kill the kernel; returns a fresh ``(km, kc)`` (the
        student's answers defined again) or raises :class:`KernelUnavailable`. The calls
        after it go to the new kernel.

    A function that timed out once (:attr:`hung`) is not called again: its later calls
    fail at once with :class:`KernelCallTimeout`, so one hung answer costs one call limit,
    not one per call.
    """

    def __init__(
        self,
        km: Any,
        kc: Any,
        *,
        call_timeout: float = 30.0,
        interrupt_grace: float = 3.0,
        max_reply_bytes: int = 16 * 1024 * 1024,
        restart: Callable[[], tuple[Any, Any]] | None = None,
    ) -> None:
        self.km = km
        self.kc = kc
        self.call_timeout = call_timeout
        self.interrupt_grace = interrupt_grace
        self.max_reply_bytes = max_reply_bytes
        self.dead_reason: str | None = None if km is not None else "no kernel"
        self.deadline: float | None = None
        self.calls = 0
        self.restart = restart
        self.restarts = 0
        #: Functions that did not return in time, in the order it happened.
        self.hung: dict[str, HungCall] = {}
        #: The comm the requests go on once the kernel listens (None: a cell per request;
        #: see :meth:`_listen`), and whether that was tried on this kernel.
        self._comm_id: str | None = None
        self._comm_tried = False
        #: The proxies of the kernel's objects (:mod:`autograder.recheck.remote`).
        self.proxies = Proxies(self)
        #: Where the student's code decided an outcome itself (a proxy's ``__eq__``, ...),
        #: and what the re-check could not do as the kernel did, since :meth:`reset_notes`.
        self.decisions: list[str] = []
        self.limits: list[str] = []
        #: The grader's functions the kernel may call back: id -> function.
        self._callbacks: dict[int, Any] = {}
        self._callback_ids: dict[int, int] = {}
        self._in_callback = False
        #: graded function -> the name of the definition the current test cell met in the
        #: kernel, where a later answer cell defined it again (the kernel's side puts it in
        #: place during each request)
        self.versions: dict[str, str] = {}

    def reset_notes(self) -> None:
        """Forget the decisions and limits noted so far (a new test cell starts)."""
        self.decisions, self.limits = [], []

    def note_decision(self, text: str) -> None:
        """The student's code decided an outcome itself (*text*: which method)."""
        if text not in self.decisions:
            self.decisions.append(text)

    def limit(self, why: str) -> RecheckLimit:
        """Note that the re-check cannot do what the kernel did (*why*); the exception to
        raise."""
        if why not in self.limits:
            self.limits.append(why)
        return RecheckLimit(why)

    def _callback_tag(self, value: Any) -> dict[str, Any]:
        """A function of the grader's, sent as a callback the kernel asks for."""
        number = self._callback_ids.get(id(value))
        if number is None or self._callbacks.get(number) is not value:
            number = len(self._callbacks) + 1
            self._callbacks[number] = value
            self._callback_ids[id(value)] = number
        name = getattr(value, "__name__", "callback")
        return {"__ag__": CALLBACK_TAG, "id": number, "name": str(name)[:60]}

    def request(self, request: dict[str, Any]) -> dict[str, Any]:
        """Run one request (``op``: ``call`` or ``describe``) and return the reply dict."""
        from jupyter_core.utils import run_sync

        if self.dead_reason is not None:
            raise KernelUnavailable(self.dead_reason)
        if self._in_callback:
            raise self.limit(
                "a function the test passed to the student's code calls the student's code in turn"
            )
        timeout = self.call_timeout
        if self.deadline is not None:
            timeout = min(timeout, self.deadline - time.monotonic())
            if timeout <= 0:
                raise KernelCallTimeout("the time for re-checking this test cell ran out")
        request = dict(request, nonce=secrets.token_hex(16))
        if self.versions:
            request["versions"] = dict(self.versions)
        self.calls += 1
        if not self._comm_tried:
            self._comm_tried = True
            run_sync(self._listen)(min(timeout, LISTEN_TIMEOUT))
        return run_sync(self._request)(request, timeout)

    async def _listen(self, timeout: float) -> None:
        """Ask the kernel to answer the requests as comm messages (cheaper than a cell each:
        about 1.2 ms of the kernel's CPU instead of 3.1), and open the comm; the requests go
        as cells when it cannot (an answer that did not come in time, an error)."""
        try:
            reply = await self._exchange({"op": "listen", "nonce": secrets.token_hex(16)}, timeout)
        except (KernelCallTimeout, KernelUnavailable, NotPlainData):
            return
        if reply.get("status") != "ok":
            return
        comm_id = secrets.token_hex(16)
        content = {"comm_id": comm_id, "target_name": COMM_TARGET, "data": {}}
        self.kc.shell_channel.send(self.kc.session.msg("comm_open", content))
        self._comm_id = comm_id

    async def _is_alive(self) -> bool:
        try:
            alive = self.km.is_alive()
            if hasattr(alive, "__await__"):
                alive = await alive
            return bool(alive)
        except Exception:
            return False

    async def _request(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        return await self._exchange(request, timeout, comm=self._comm_id)

    def _send(self, request: dict[str, Any], comm: str | None) -> str:
        """Send *request*: as a cell, or as a message of the comm *comm*; its message id."""
        if comm is None:
            return self.kc.execute(
                _request_code(request),
                silent=False,
                store_history=False,
                allow_stdin=False,
                stop_on_error=False,
            )
        content = {"comm_id": comm, "data": {"request": json.dumps(request)}}
        msg = self.kc.session.msg("comm_msg", content)
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    async def _exchange(
        self, request: dict[str, Any], timeout: float, comm: str | None = None
    ) -> dict[str, Any]:
        """Send one request and wait for its reply (the first that carries its nonce)."""
        if not await self._is_alive():
            self.dead_reason = "the student's kernel is no longer running"
            raise KernelUnavailable(self.dead_reason)
        msg_id = self._send(request, comm)
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
                        f"no answer within {timeout:.0f} s, and the kernel ignored the interrupt",
                        seconds=timeout,
                        killed=True,
                    )
                interrupted = True
                with contextlib.suppress(Exception):
                    result = self.km.interrupt_kernel()
                    if hasattr(result, "__await__"):
                        await result
                deadline = time.monotonic() + self.interrupt_grace
                continue
            try:
                if self._callbacks and await self._answer_callback(min(remaining, 1.0)):
                    continue
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
            data = None
            if kind in ("display_data", "execute_result") and comm is None:
                data = content.get("data", {}).get(REPLY_MIME)
            elif kind == "comm_msg" and comm is not None and content.get("comm_id") == comm:
                data = (content.get("data") or {}).get("reply")
            if data is not None and reply is None:
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
            raise KernelCallTimeout(
                f"no answer within {timeout:.0f} s (interrupted)", seconds=timeout
            )
        if reply is None:
            detail = f" ({errors[0][:300]})" if errors else ""
            raise KernelUnavailable(f"the kernel gave no answer{detail}")
        return reply

    async def _answer_callback(self, timeout: float) -> bool:
        """Wait up to *timeout* for a message on IOPub or stdin; answer a callback request
        that came on stdin (True), or leave an IOPub message to be read (False)."""
        import zmq
        import zmq.asyncio

        poller = zmq.asyncio.Poller()
        poller.register(self.kc.iopub_channel.socket, zmq.POLLIN)
        poller.register(self.kc.stdin_channel.socket, zmq.POLLIN)
        ready = dict(await poller.poll(int(timeout * 1000)))
        if self.kc.stdin_channel.socket not in ready:
            if not ready:
                raise Empty
            return False
        msg = await self.kc.stdin_channel.get_msg(timeout=0)
        prompt = msg.get("content", {}).get("prompt", "")
        if msg.get("msg_type") != "input_request" or not isinstance(prompt, str):
            return True
        if not prompt.startswith(CALLBACK_PROMPT) or len(prompt) > self.max_reply_bytes:
            self.kc.input("\x04")  # not ours: end of input
            return True
        self.kc.input(json.dumps(self._run_callback(prompt[len(CALLBACK_PROMPT) :])))
        return True

    def _run_callback(self, text: str) -> dict[str, Any]:
        """Call the grader's function a callback request names, with its arguments decoded
        strictly; its answer (plain data, or what the kernel holds) or its exception."""
        try:
            request = json.loads(text)
            function = self._callbacks[request["id"]]
            refs = self.proxies.get
            args = decode(request.get("args"), refs=refs)
            kwargs = decode(request.get("kwargs"), refs=refs)
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise NotPlainData("malformed arguments")
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            return {"status": "error", "ename": "TypeError", "message": f"bad callback: {exc}"}
        self._in_callback = True
        try:
            result = function(*args, **kwargs)
            value = encode(result, default=lambda v: _kernel_tag(v) or self._callback_tag(v))
        except Exception as exc:
            return {"status": "error", "ename": type(exc).__name__, "message": str(exc)[:2000]}
        finally:
            self._in_callback = False
        return {"status": "ok", "value": value}

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
        try:
            request, sent = call_request(
                name, args, kwargs, _kernel_tag, disable, use_reference, self._callback_tag
            )
        except NotPlainData as exc:
            raise self.limit(f"a value the test passes to {name} cannot be sent: {exc}") from None
        earlier = self.hung.get(name)
        if earlier is not None:
            raise KernelCallTimeout(
                f"{name} did not return within {earlier.seconds:.0f} s earlier; not called again",
                function=name,
            )
        try:
            reply = self.request(request)
        except KernelCallTimeout as exc:
            if exc.seconds is not None:  # it was called, and interrupted
                self.hung[name] = HungCall(name, exc.seconds, exc.killed)
                if exc.killed:
                    self._restart()
            raise KernelCallTimeout(
                f"{name}: {exc}", seconds=exc.seconds, killed=exc.killed, function=name
            ) from None
        status = reply.get("status")
        if status == "ok":
            refs = self.proxies.get
            result = decode(reply.get("value"), arguments=(args, kwargs), sent=sent, refs=refs)
            apply_mutations(args, kwargs, reply.get("args"), reply.get("kwargs"), sent, refs)
            return result
        if status == "unplain":
            raise NotPlainData(
                f"{name} returned something that is not plain data: {reply.get('message', '')}"
            )
        if status == "error":
            raise _rebuild_exception(name, reply)
        raise KernelUnavailable(f"unexpected reply status {status!r}")

    def _restart(self) -> None:
        """After a kill: a fresh kernel with the student's answers, if a restart is allowed."""
        if self.restart is None:
            return
        try:
            self.km, self.kc = self.restart()
        except KernelUnavailable as exc:
            self.dead_reason = f"{self.dead_reason} (not restarted: {exc})"
            return
        self.restarts += 1
        self.dead_reason = None
        self._comm_id, self._comm_tried = None, False  # a new kernel listens on no comm

    @property
    def listening(self) -> bool:
        """The requests go as comm messages (the kernel listens), not as cells."""
        return self._comm_id is not None

    def bind(self, name: str, source: str, *, move: bool = False) -> None:
        """Bind the kernel's *name* to what its *source* names (``move``: and remove
        *source*): a test cell's ``del f`` and ``f = saved`` of a graded function, done in
        the student's namespace too, where the student's other functions look ``f`` up."""
        reply = self.request({"op": "bind", "name": name, "source": source, "move": move})
        if reply.get("status") == "error":
            raise _rebuild_exception(name, reply)

    def apply(self, fn: str, args: list[Any], kwargs: dict[str, Any] | None = None) -> Any:
        """One operation *fn* (``linlib._remote``'s list: ``getattr``, ``call``, ``next``,
        ``eq``, ...) on the kernel's objects among *args*; its result, as plain data or a
        proxy, or the exception it raised."""
        try:
            encoded_args, encoded_kwargs, sent = encode_call(
                args, kwargs or {}, _kernel_tag, self._callback_tag
            )
        except NotPlainData as exc:
            raise self.limit(f"a value the test uses with the student's code: {exc}") from None
        reply = self.request(
            {"op": "apply", "fn": fn, "args": encoded_args, "kwargs": encoded_kwargs}
        )
        status = reply.get("status")
        if status == "ok":
            return decode(reply.get("value"), sent=sent, refs=self.proxies.get)
        if status == "error":
            raise _rebuild_exception(fn, reply)
        if status == "unplain":
            raise NotPlainData(f"not plain data: {reply.get('message', '')}")
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
        return StudentCodeError(f"{name} raised {ename} {message}".strip(), ename)
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
    return StudentCodeError(f"{name} raised {ename}: {message}", ename)


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


class Unavailable:
    """Stands for a name the re-check could not obtain; using it fails the test."""

    def __init__(self, name: str, why: str) -> None:
        self._message = f"{name} is not available to the re-check: {why}"

    def _fail(self, *_: Any, **__: Any) -> Any:
        raise AssertionError(self._message)

    __call__ = __getattr__ = __getitem__ = __iter__ = __len__ = _fail
    __eq__ = __lt__ = __gt__ = __le__ = __ge__ = __bool__ = __float__ = __int__ = _fail
    __array__ = _fail
    # unhashable, as Python spells it (typeshed has object.__hash__ a method, never None)
    __hash__ = None  # type: ignore[assignment]
