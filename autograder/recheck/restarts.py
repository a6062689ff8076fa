"""Restarting a sandboxed kernel that was killed because it ignored an interrupt.

``SafeExecute`` (:mod:`autograder.grading.safe_execute`) mixes this in. A hung answer that
ignores SIGINT makes the grader kill its kernel; without a kernel, every later exercise
could no longer be re-checked. So the kernel is started again in a fresh sandbox (at most
``max_restarts`` times per notebook), the cells that had finished in the old kernel (test
cells excepted: the trusted re-check decides those) are run again in it, and grading goes
on: in the kernel phase with the later answer cells, in the re-check with the next call
(:class:`~autograder.recheck.channel.KernelChannel`'s ``restart``).
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from autograder.notebook import FLAGS_KEY
from autograder.phases import ExecutorMixinBase
from autograder.recheck.channel import KernelUnavailable
from autograder.recheck.outcomes import RunState, short

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["KernelRestarts"]


class KernelRestarts(ExecutorMixinBase):
    """The restart part of ``SafeExecute`` (a mixin: it uses the client's kernel, cells
    and settings)."""

    # set by SafeExecute for each notebook
    _finished: list[int]
    _replaying: bool
    _restarts: int
    _replay_seconds: float  # left for re-running cells, over all restarts
    _replay_budget: float  # when the current re-run must end (monotonic clock)
    _notebook: NotebookNode
    _resources: Any
    _run_state: RunState
    _timed_out: bool
    max_restarts: int
    _responsive: Callable[[], bool]

    def _lock_sandbox(self) -> None:
        box = getattr(self.km, "sandbox", None)
        if box is not None:
            box.lock_run_dir()
            record = self._notebook.metadata[FLAGS_KEY].setdefault("sandbox", {})
            record["uid"] = box.uid
            record.setdefault("uids", []).append(box.uid)

    def _restart(self, resources: Any) -> str | None:
        """A fresh sandboxed kernel in which the cells that had finished are run again;
        None, or why that failed."""
        old = getattr(self.km, "sandbox", None)

        async def start() -> None:
            if self.km is not None:
                with contextlib.suppress(Exception):
                    await ensure_async(self.km.shutdown_kernel(now=True))
            if self.kc is not None:
                with contextlib.suppress(Exception):
                    self.kc.stop_channels()
            self.create_kernel_manager()  # the old one's zmq context is gone with it
            await self.async_start_new_kernel()
            await self.async_start_new_kernel_client()

        if old is not None:
            old.cleanup()
        try:
            run_sync(start)()
        except Exception as exc:
            return f"the new kernel did not start ({type(exc).__name__}: {short(str(exc))})"
        self._lock_sandbox()
        self._replaying = True
        started = time.monotonic()
        self._replay_budget = started + self._replay_seconds
        try:
            for index in self._finished:
                if time.monotonic() >= self._replay_budget:
                    return "re-running the cells that had finished took too long"
                replay = copy.deepcopy(self.nb.cells[index])
                self._timed_out = False
                try:
                    self.preprocess_cell(replay, resources, index)
                except (CellTimeoutError, DeadKernelError) as exc:
                    return f"cell #{index + 1} failed when run again ({type(exc).__name__})"
                if self._timed_out and not self._responsive():
                    return f"cell #{index + 1} did not finish when run again"
        finally:
            self._replaying = False
            self._replay_seconds -= time.monotonic() - started
        return None

    def _may_restart(self) -> bool:
        """At most ``max_restarts`` restarts per notebook."""
        if self._restarts >= self.max_restarts:
            return False
        self._restarts += 1
        return True

    def _restart_for_recheck(self) -> tuple[Any, Any]:
        """The re-check's restart (:class:`KernelChannel`): a fresh kernel, or why not."""
        if not self._may_restart():
            raise KernelUnavailable("no restart left")
        failed = self._restart(self._resources)
        if failed is not None:
            raise KernelUnavailable(failed)
        self._run_state.restarted_in_recheck = True
        return self.km, self.kc
