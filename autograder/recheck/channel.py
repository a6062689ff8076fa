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

from autograder.recheck.codec import NotPlainData, call_request, decode
from autograder.recheck.mirror import apply_mutations
from linlib.grader_kernel_wire import COMM_TARGET, KERNEL_MODULE, REPLY_MIME

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


def _graded_function_tag(value: Any) -> dict[str, str] | None:
    """A graded function passed as an argument travels as its name (the kernel's own)."""
    if isinstance(value, RemoteFunction):
        return {"__ag__": "fn", "name": value.name}
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
        request, sent = call_request(
            name, args, kwargs, _graded_function_tag, disable, use_reference
        )
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
            result = decode(reply.get("value"), arguments=(args, kwargs))
            apply_mutations(args, kwargs, reply.get("args"), reply.get("kwargs"), sent)
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
