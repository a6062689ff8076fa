"""The jupyter_client side of the sandbox: a kernel provisioner and the kernel manager using it.

:class:`SandboxProvisioner` is a jupyter_client kernel provisioner (the documented hook for
how a kernel is started, signalled and cleaned up; entry point ``autograder-sandbox`` of
``jupyter_client.kernel_provisioners``): it launches the kernel through bubblewrap in a
:class:`~.box.Sandbox`, with its watchdog, and kills and removes the whole sandbox at the
end. When the grading worker has a warm box (:mod:`~.warm`) and the manager's ``warm`` is
on, the kernel is forked from the box's template instead of started cold (the cold start is
the fallback whenever the box fails). :class:`SandboxedKernelManager` is an
``AsyncKernelManager`` whose kernel spec names that provisioner and interrupts by message
(SIGINT to bubblewrap would not reach the kernel), and which talks to the kernel over IPC
sockets in the sandbox's run folder; :class:`autograder.grading.safe_execute.SafeExecute` uses it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from queue import Empty
from typing import IO, TYPE_CHECKING, Any, cast

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Any as AnyTrait
from traitlets import Bool, Unicode, default

from autograder.sandbox.box import Sandbox
from autograder.sandbox.limits import Limits, MiB
from autograder.sandbox.probe import new_sandbox
from autograder.sandbox.warm import WarmBox, adopt_forked_kernel, current_warm_box, warm_kernel

#: The provisioner's name (its entry point in pyproject.toml).
PROVISIONER_NAME = "autograder-sandbox"


#: How long a killed kernel is waited for, in short steps, before jupyter_client's own wait.
KILL_WAIT = 0.5


# what QuickKill is mixed into, to a type checker (its super() and poll checked); at run
# time nothing
if TYPE_CHECKING:
    _Provisioner = LocalProvisioner
else:
    _Provisioner = object


class QuickKill(_Provisioner):
    """A provisioner mixin: ``kill`` returns once the kernel has gone (or after
    :data:`KILL_WAIT` seconds), looking every millisecond or so. jupyter_client's
    ``shutdown_kernel(now=True)`` asks whether the kernel still runs right after the kill,
    and while it does, sleeps 0.1 s before asking again: 0.1 s of every graded notebook in
    which nothing runs, since a killed kernel has rarely gone by the first question."""

    async def kill(self, restart: bool = False) -> None:
        await super().kill(restart=restart)
        deadline = time.monotonic() + KILL_WAIT
        delay = 0.001
        while await self.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(delay)
            delay = min(2 * delay, 0.02)


class SandboxProvisioner(QuickKill, LocalProvisioner):
    """Starts the kernel of a :class:`SandboxedKernelManager` (its parent) in a Sandbox.

    ``cwd`` of the launch is the student's folder: its files (never notebooks) are staged
    and copied into the sandbox's private working directory. The kernel's output goes to
    the sandbox's log; the manager's ``sandbox`` is the sandbox, also after shutdown.
    """

    sandbox: Sandbox | None = None
    #: The warm box the kernel is to come from (None: a cold sandbox).
    warm_box: WarmBox | None = None
    #: The kernel's log while it is launched (closed once it runs).
    _log_file: IO[bytes] | None = None

    async def pre_launch(self, **kwargs: Any) -> dict[str, Any]:
        """Make the sandbox; the kernel command becomes the bubblewrap command running it."""
        km = cast("SandboxedKernelManager", self.parent)  # the manager that launches it
        limits = km.limits if isinstance(km.limits, Limits) else Limits.from_mapping(km.limits)
        warm = current_warm_box() if km.warm else None
        self.warm_box = warm
        base_dir = str(warm.root) if warm is not None else km.sandbox_base_dir or None
        box = new_sandbox(limits, base_dir=base_dir)
        self.sandbox = km.sandbox = box
        box.stage_files(kwargs.pop("cwd", None))
        km.connection_file = str(box.run_dir / "kernel.json")
        km.ip = str(box.run_dir / "k")
        km.transport = "ipc"
        kwargs["cwd"] = str(box.root)
        kwargs["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        log = open(box.log_path, "wb")  # closed in launch_kernel
        kwargs["stdout"] = log
        kwargs["stderr"] = subprocess.STDOUT
        kwargs["stdin"] = subprocess.DEVNULL
        self._log_file = log
        kwargs = await super().pre_launch(**kwargs)
        # The kernel runs as the sandbox's uid and must read its connection file.
        if box.uid is not None and os.path.exists(km.connection_file):
            os.chown(km.connection_file, box.uid, box.uid)
        if warm is None:
            kwargs["cmd"] = self._cold(kwargs)
        return kwargs

    def _cold(self, kwargs: dict[str, Any]) -> list[str]:
        """The bubblewrap command for the kernel command in *kwargs* (its Popen keyword
        arguments added to *kwargs*)."""
        assert self.sandbox is not None
        command, extra = self.sandbox.popen_kwargs(self.sandbox.command(kwargs.pop("cmd")))
        kwargs.update(extra)
        return command

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        """Fork the kernel from the warm box, or launch bubblewrap (and close what only it
        needed); start the sandbox's watchdog."""
        box = self.sandbox
        pid = None
        if self.warm_box is not None and box is not None:
            pid = warm_kernel(self.warm_box, box, cmd)
            if pid is None:  # cold after all
                kwargs["cmd"] = cmd
                cmd = self._cold(kwargs)
                kwargs.pop("cmd", None)
        try:
            if pid is not None:
                adopt_forked_kernel(self, pid, kwargs.get("cwd"))
                info = self.connection_info
            else:
                info = await super().launch_kernel(cmd, **kwargs)
        finally:
            if self.sandbox is not None:
                self.sandbox.close_launch_fds()
            log = getattr(self, "_log_file", None)
            if log is not None:
                log.close()
                self._log_file = None
        if self.pid is not None and self.sandbox is not None:
            self.sandbox.start_watchdog(self.pid)
        return info

    async def kill(self, restart: bool = False) -> None:
        """Kill every process of the sandbox, then the launched process."""
        if self.sandbox is not None:
            self.sandbox.kill()
        await super().kill(restart=restart)

    async def cleanup(self, restart: bool = False) -> None:
        """Release the kernel's resources; unless restarting, kill and remove the sandbox."""
        await super().cleanup(restart=restart)
        if self.sandbox is not None and not restart:
            self.sandbox.cleanup()
            if self.warm_box is not None:
                self.warm_box.remove_folder()  # when the box failed meanwhile


#: Milliseconds after which a kernel client connects again (ZeroMQ's RECONNECT_IVL).
RECONNECT_MS = 5


class ReadyClient(AsyncKernelClient):
    """jupyter_client's ``AsyncKernelClient`` whose wait for a new kernel ends as soon as
    the kernel has answered ``kernel_info`` and its IOPub channel delivers (jupyter_client's
    own two checks), without the wait that follows them in jupyter_client: reading IOPub
    until it has been silent for 0.2 s. That wait is 0.2 s of every notebook's grading in
    which nothing runs; what it would have read is the kernel's start-up chatter, which
    nbclient and the re-check skip anyway (they read only the replies to their own
    requests, by message id)."""

    @default("context")
    def _context_default(self) -> zmq.asyncio.Context:  # the base class's default, replaced
        self._created_context = True
        context = zmq.asyncio.Context()
        # The client connects as the kernel starts, mostly before the kernel has bound its
        # sockets: ZeroMQ tries again after RECONNECT_IVL, 100 ms by default, in which
        # nothing runs. 5 ms, doubling up to 1 s for a kernel that is not there.
        context.setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        context.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        # A sandboxed kernel's messages on the client's channels (shell, IOPub: the cells'
        # output, the re-check's replies) are capped as the manager's own control channel
        # is: a larger one ends that connection (ZeroMQ does not make it again after such a
        # protocol error; SafeExecute connects a new client) instead of being held in the
        # grader's memory. The manager is the client's parent (jupyter_client's
        # KernelManager.client); an unsandboxed kernel's manager has no cap.
        limit = getattr(self.parent, "max_message_bytes", None)
        if limit:
            context.setsockopt(zmq.MAXMSGSIZE, int(limit))
        return context

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            self.kernel_info()
            try:
                msg = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                pass
            else:
                if msg["msg_type"] == "kernel_info_reply":
                    # IOPub is connected when it delivers (else start over, as jupyter_client)
                    try:
                        await self.iopub_channel.get_msg(timeout=0.2)
                    except Empty:
                        pass
                    else:
                        self._handle_kernel_info_reply(msg)
                        return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")


class SandboxKernelSpecManager(KernelSpecManager):
    """Kernel specs that run this Python's ipykernel through :class:`SandboxProvisioner`."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        """The installed spec of *kernel_name* (a Python kernel this machine does not have:
        python3's; a course's notebooks are Python, ``CourseSource.check``), launched and
        interrupted the sandbox's way."""
        try:
            spec = super().get_kernel_spec(kernel_name)
        except NoSuchKernel:
            spec = super().get_kernel_spec("python3")
        spec.argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        spec.interrupt_mode = "message"
        spec.metadata = {
            **spec.metadata,
            "kernel_provisioner": {"provisioner_name": PROVISIONER_NAME, "config": {}},
        }
        return spec


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

    warm = Bool(True, help="Fork the kernel from this process's warm box when it has one").tag(
        config=True
    )

    #: The sandbox of the last kernel started (set by the provisioner; kept after shutdown).
    sandbox: Sandbox | None = None

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("client_factory")
    def _default_client_factory(self) -> type:
        return ReadyClient

    @default("kernel_spec_manager")
    def _default_kernel_spec_manager(self) -> KernelSpecManager:
        return SandboxKernelSpecManager(data_dir=self.data_dir)

    @default("context")
    def _context_default(self) -> zmq.asyncio.Context:  # the base class's default, replaced
        self._created_context = True
        context = zmq.asyncio.Context()
        # A kernel cannot make the grader hold a huge message in memory: the connection
        # is ended instead (the client's channels: ReadyClient's context).
        context.setsockopt(zmq.MAXMSGSIZE, int(self.max_message_bytes))
        return context

    # jupyter_client's AsyncKernelManager makes it a coroutine over KernelManager's plain
    # method with a type: ignore of its own; mypy holds this one to KernelManager's
    async def interrupt_kernel(self) -> None:  # type: ignore[override]
        """Interrupt the kernel (by message, as its spec says); nothing when none runs."""
        if self.has_kernel:
            await super().interrupt_kernel()

    def kernel_log(self, limit: int = 4000) -> str:
        """The beginning of what the kernel process wrote to its stdout/stderr."""
        return self.sandbox.read_log(limit) if self.sandbox is not None else ""
