"""The jupyter_client kernel manager whose kernel runs in a :class:`~.box.Sandbox`.

:class:`SandboxedKernelManager` is an ``AsyncKernelManager`` that starts the kernel through
bubblewrap, talks to it over IPC sockets in the sandbox's run folder and kills the whole
sandbox on shutdown; :class:`autograder.recheck.execute.SafeExecute` uses it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.manager import AsyncKernelManager
from traitlets import Any as AnyTrait
from traitlets import Unicode, default

from autograder.sandbox.box import Sandbox
from autograder.sandbox.limits import Limits, MiB


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel runs in a :class:`Sandbox`, reached over IPC sockets.

    ``start_kernel(cwd=folder)`` copies the student's files from *folder* (never notebooks)
    into the sandbox's private working directory. Interrupts go as messages (a signal to
    bubblewrap would not reach the kernel); a shutdown kills the whole sandbox.
    """

    limits = AnyTrait(None, help="autograder.sandbox.Limits for the kernel").tag(config=True)
    sandbox_base_dir = Unicode("", help="Folder for sandboxes (default: system temp)").tag(
        config=True
    )
    max_message_bytes = AnyTrait(
        64 * MiB, help="Largest message accepted from the kernel (zmq MAXMSGSIZE)"
    ).tag(config=True)

    sandbox: Sandbox | None = None

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    def _context_default(self) -> zmq.asyncio.Context:  # type: ignore[override]
        self._created_context = True
        context = zmq.asyncio.Context()
        # A kernel cannot make the grader hold a huge message in memory: the connection
        # is dropped (and re-made) instead.
        context.setsockopt(zmq.MAXMSGSIZE, int(self.max_message_bytes))
        return context

    async def _async_pre_start_kernel(self, **kw: Any):  # type: ignore[override]
        limits = (
            self.limits if isinstance(self.limits, Limits) else Limits.from_mapping(self.limits)
        )
        self.sandbox = Sandbox(limits, base_dir=self.sandbox_base_dir or None)
        self.sandbox.stage_files(kw.pop("cwd", None))
        self.connection_file = str(self.sandbox.run_dir / "kernel.json")
        self.ip = str(self.sandbox.run_dir / "k")
        self.transport = "ipc"
        kw["cwd"] = str(self.sandbox.root)
        kw["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        log = open(self.sandbox.log_path, "wb")
        kw["stdout"] = log
        kw["stderr"] = subprocess.STDOUT
        kw["stdin"] = subprocess.DEVNULL
        self._log_file = log
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        self._hand_over_connection_file()
        kernel_cmd, extra = self.sandbox.popen_kwargs(kernel_cmd)
        kw.update(extra)
        return kernel_cmd, kw

    def _hand_over_connection_file(self) -> None:
        # The kernel runs as the sandbox's uid and must read its connection file.
        box = self.sandbox
        if box is not None and box.uid is not None and os.path.exists(self.connection_file):
            os.chown(self.connection_file, box.uid, box.uid)

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        assert self.sandbox is not None
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", self.connection_file]
        argv += list(extra_arguments or [])
        return self.sandbox.command(argv)

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            if self.sandbox is not None:
                self.sandbox.close_launch_fds()
            log = getattr(self, "_log_file", None)
            if log is not None:
                log.close()
                self._log_file = None
        assert self.provisioner is not None and self.sandbox is not None
        pid = getattr(self.provisioner, "pid", None)
        if pid is not None:
            self.sandbox.start_watchdog(pid)

    async def _async_interrupt_kernel(self) -> None:
        # Always by message: SIGINT to bubblewrap's process group would not reach the kernel.
        if self.has_kernel:
            msg = self.session.msg("interrupt_request", content={})
            self._connect_control_socket()
            self.session.send(self._control_socket, msg)

    # AsyncKernelManager binds its public names to the base class's coroutines: rebind.
    interrupt_kernel = _async_interrupt_kernel

    async def _async_kill_kernel(self, restart: bool = False) -> None:
        if self.sandbox is not None:
            self.sandbox.kill()
        await super()._async_kill_kernel(restart=restart)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self.sandbox is not None and not restart:
            self.sandbox.cleanup()

    cleanup_resources = _async_cleanup_resources

    def kernel_log(self, limit: int = 4000) -> str:
        """The beginning of what the kernel process wrote to its stdout/stderr."""
        return self.sandbox.read_log(limit) if self.sandbox is not None else ""
