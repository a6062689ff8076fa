"""Warm sandboxed kernels: a *warm box* per grading worker, from which each notebook's
kernel is forked, in namespaces of its own.

A cold sandboxed kernel pays bubblewrap, a fresh Python, ipykernel and the course's imports
(numpy, scipy, scikit-learn, matplotlib, linlib) for every notebook. A :class:`WarmBox` is a
bubblewrap sandbox like a kernel's (:func:`~.mounts.bwrap_arguments`: the same read-only
view of the system, no network), started once per grading worker ahead of need, whose
program is a *template* (:mod:`autograder.sandbox.warm_template`) that imports those
modules once and then waits for its worker. It runs as root with the box's capabilities
and without the seccomp filter: it needs them to make each kernel's sandbox, which is what
keeps one notebook from the next:

- **namespaces**: each kernel gets new mount, PID, IPC, network and UTS namespaces; the
  kernel is PID 2 under an init of its own (the template is in no kernel's PID namespace:
  a kernel cannot see, signal or trace it), and when that init ends, everything the kernel
  started ends;
- **files**: fresh size-limited tmpfs on the working folder (the student's files copied
  in), ``/tmp`` and ``/dev/shm``; the kernel sees its own run folder and nothing of the
  others the box holds; SysV and POSIX IPC objects live and die with its IPC namespace;
- **identity and limits**: a fresh uid per kernel (:func:`~.uids.sandbox_uid`), the same
  rlimits and the same seccomp filter (:func:`~.seccomp.seccomp_filter`, loaded by the
  kernel itself) as a cold sandbox, and the grader's memory watchdog
  (:mod:`~.watchdog`) on the kernel's processes;
- **memory**: a kernel's memory is a copy-on-write copy of the template's; nothing it
  changes (``numpy.pi = 3``, ``sys.modules``) reaches the template or the next kernel.

:class:`~.kernel.SandboxProvisioner` asks the worker's box (:func:`current_warm_box`) for
the kernel when there is one, and otherwise, or when the box fails in any way (not root,
no bubblewrap, the box died, a request timed out), starts the cold sandbox as before; a
dead box is started again for the next notebook. The grading worker starts its box with
:func:`start_warm_box` (the box dies with the thread that starts it: bubblewrap's
``--die-with-parent``).

:class:`ForkedKernelProcess` (and :func:`adopt_forked_kernel`) and :func:`launcher_args` are
shared with the unsandboxed template (:mod:`autograder.grading.prewarm`).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.files import OWNER_FILE, WARM_PREFIX, owned_tempdir, sweep_orphans
from autograder.sandbox.box import Sandbox
from autograder.sandbox.limits import Limits
from autograder.sandbox.mounts import WORK_DIR, WRAPPER_PATH, bwrap_arguments, bwrap_path
from autograder.sandbox.seccomp import seccomp_filter
from autograder.sandbox.watchdog import children, descendants, kill_all

if TYPE_CHECKING:
    from jupyter_client.provisioning import LocalProvisioner

log = logging.getLogger(__name__)

#: The template on the host, and where it is bound (read-only) in the box.
TEMPLATE_SOURCE = str(Path(__file__).with_name("warm_template.py"))
TEMPLATE_PATH = "/run/sandbox-warm.py"
#: Seconds a kernel request may take once the box is ready (the template itself gives a
#: kernel's setup 20 s), and the box to become ready.
REQUEST_SECONDS = 30.0
READY_SECONDS = 60.0


class WarmBoxError(RuntimeError):
    """The warm box cannot give this kernel (the caller starts a cold sandbox instead)."""


def ns_pids(pid: int) -> list[int]:
    """The pids of host process *pid* in each PID namespace it is in, outermost first
    (``NSpid`` of ``/proc/<pid>/status``); empty when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("NSpid:"):
                    return [int(x) for x in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return []


def _host_pid(box_pid: int, candidates: Sequence[int]) -> int | None:
    """The host pid, among *candidates*, of the process that is *box_pid* in the box."""
    for pid in candidates:
        nspids = ns_pids(pid)
        if len(nspids) >= 2 and nspids[1] == box_pid:
            return pid
    return None


class WarmBox:
    """One warm box: bubblewrap running the template, and the worker's end of its socket.

    Parameters
    ----------
    preload : sequence of str
        Modules the template imports once (:data:`autograder.grading.prewarm.PRELOAD`).
    base_dir : path, optional
        Where the box's host folder is made (default: the system's temporary folder); the
        kernels' sandbox folders are made in it.
    log_path : path, optional
        Where the box's own output goes (the kernels' goes to each sandbox's log).
    """

    def __init__(
        self,
        preload: Sequence[str],
        *,
        base_dir: str | os.PathLike | None = None,
        log_path: str | os.PathLike | None = None,
    ) -> None:
        bwrap = bwrap_path()
        if bwrap is None:
            raise WarmBoxError("bubblewrap (bwrap) is not installed")
        if os.geteuid() != 0:
            raise WarmBoxError("the warm box needs root (to give each kernel its namespaces)")
        # what boxes and sandboxes of processes that no longer run left there goes first;
        # this box's folder records its owner, this process, for the next sweep
        sweep_orphans(base_dir)
        self.root = owned_tempdir(WARM_PREFIX, base_dir)
        os.chmod(self.root, 0o711)
        empty = self.root / "empty"
        empty.mkdir(mode=0o755)
        args, self.copies = bwrap_arguments(
            bwrap,
            Limits(),
            privileged=True,
            extra_ro_paths=(),
            stage_dir=empty,
            run_dir=self.root,
        )
        args += ["--ro-bind", TEMPLATE_SOURCE, TEMPLATE_PATH]
        env = Sandbox.kernel_env()
        # what a kernel would get: ipykernel picks the inline backend unless MPLBACKEND is set
        env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        for name, value in env.items():
            args += ["--setenv", name, value]
        parent, child = socket.socketpair()
        log_file = open(log_path, "ab") if log_path else None
        try:
            self.process = subprocess.Popen(
                [*args, "--", sys.executable, "-s", "-P", TEMPLATE_PATH, str(child.fileno())],
                pass_fds=(child.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=log_file if log_file is not None else subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
        finally:
            child.close()
            if log_file is not None:
                log_file.close()
        self.conn = Connection(parent.detach())
        self.conn.send(
            {
                "preload": list(preload),
                "seccomp": seccomp_filter(),
                "wrapper": WRAPPER_PATH,
                "copies": self.copies,
            }
        )
        self._template: int | None = None  # the template's host pid, once ready
        self._lock = threading.Lock()  # one request at a time (a worker may have threads)

    # -- state ------------------------------------------------------------------------

    def alive(self) -> bool:
        """Whether bubblewrap (and so the template) still runs."""
        return self.process.poll() is None

    @property
    def ready(self) -> bool:
        """Whether the template has said it is ready."""
        return self._template is not None

    def wait_ready(self, timeout: float = READY_SECONDS) -> None:
        """Wait until the template has imported everything; WarmBoxError if it does not."""
        if self._template is not None:
            return
        try:
            if not self.conn.poll(timeout):
                raise WarmBoxError(f"the warm box was not ready after {timeout:g} s")
            word, box_pid = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise WarmBoxError(f"the warm box ended ({exc or type(exc).__name__})") from exc
        host = _host_pid(box_pid, descendants(self.process.pid))
        if word != "ready" or host is None:
            raise WarmBoxError("the warm box's template was not found")
        self._template = host

    # -- kernels ----------------------------------------------------------------------

    def new_kernel(self, sandbox: Sandbox, argv: Sequence[str]) -> int:
        """Fork a kernel (``ipykernel_launcher <argv>``) into *sandbox*, which must have
        been made in :attr:`root`; the host pid of its outer process (which the sandbox's
        watchdog and kill go by). WarmBoxError when the box cannot."""
        if sandbox.root.parent != self.root:
            raise WarmBoxError("the sandbox is not in this warm box")
        with self._lock:
            self.wait_ready()
            return self._request(sandbox, argv)

    def _request(self, sandbox: Sandbox, argv: Sequence[str]) -> int:
        limits = sandbox.limits
        request = {
            "root": str(sandbox.root),
            "box_root": str(self.root),
            "log": str(sandbox.log_path),
            "work": WORK_DIR,
            "uid": sandbox.uid,
            "rlimits": sandbox.rlimits(),
            "sizes": {
                "work": limits.scratch_size,
                "tmp": limits.tmp_size,
                "shm": limits.shm_size,
            },
            "copies": self.copies,
            "argv": list(argv),
            "env": sandbox.kernel_env(),
        }
        try:
            self.conn.send(request)
            if not self.conn.poll(REQUEST_SECONDS):
                self.close()  # a box that does not answer is of no more use
                raise WarmBoxError(f"the warm box did not answer in {REQUEST_SECONDS:g} s")
            box_pid, error = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise WarmBoxError(f"the warm box ended ({exc or type(exc).__name__})") from exc
        if error is not None:
            raise WarmBoxError(f"the warm kernel could not start: {error}")
        assert self._template is not None
        host = _host_pid(box_pid, children(self._template))
        if host is None:
            raise WarmBoxError("the warm kernel ended as it started")
        return host

    def close(self) -> None:
        """End the template (and every kernel still running), remove the box's folder (once
        no sandbox is left in it: see :meth:`remove_folder`)."""
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_all([self.process.pid, *descendants(self.process.pid)])
            self.process.wait()
        self.conn.close()
        shutil.rmtree(self.root / "empty", ignore_errors=True)
        self.remove_folder()

    def remove_folder(self) -> None:
        """Remove the box's folder if the box is closed and no sandbox is left in it (a
        kernel that fell back to a cold start when the box failed keeps its sandbox there
        until it ends)."""
        if not self.alive():
            with contextlib.suppress(OSError):
                if {entry.name for entry in self.root.iterdir()} <= {OWNER_FILE}:
                    shutil.rmtree(self.root)


# --------------------------------------------------------------------------- this process's box

_BOX: WarmBox | None = None
#: How this process's box was started (to start it again after it died).
_START: dict | None = None


def start_warm_box(
    preload: Sequence[str],
    *,
    base_dir: str | os.PathLike | None = None,
    log_path: str | os.PathLike | None = None,
) -> WarmBox | None:
    """Start this process's warm box (idempotent); it warms up in the background.

    Returns None where a warm box cannot run (not root, no bubblewrap): kernels are then
    cold. The box dies with the thread that calls this (bubblewrap's ``--die-with-parent``):
    call it from a thread that lives as long as the box is needed (a worker's main one).
    """
    global _BOX, _START
    _START = {"preload": tuple(preload), "base_dir": base_dir, "log_path": log_path}
    if _BOX is not None and _BOX.alive():
        return _BOX
    try:
        _BOX = WarmBox(preload, base_dir=base_dir, log_path=log_path)
    except (WarmBoxError, OSError) as exc:
        log.debug("no warm box: %s", exc)
        _BOX = None
        return None
    atexit.register(stop_warm_box)
    return _BOX


def stop_warm_box() -> None:
    """Stop this process's warm box (and forget how it was started)."""
    global _BOX, _START
    _START = None
    if _BOX is not None:
        box, _BOX = _BOX, None
        box.close()


def current_warm_box() -> WarmBox | None:
    """This process's warm box when it runs; None when it was never started or has died
    (a dead one is started again, for the next kernel)."""
    global _BOX
    if _BOX is not None and _BOX.alive():
        return _BOX
    if _BOX is not None and _START is not None:
        log.warning("the warm box died; starting a new one")
        with contextlib.suppress(Exception):
            _BOX.close()
        _BOX = None
        start_warm_box(**_START)
    return None


def warm_kernel(box: WarmBox, sandbox: Sandbox, cmd: Sequence[str]) -> int | None:
    """The host pid of a kernel forked from *box* into *sandbox* for the kernel command
    *cmd*; None when it must be started cold (another kernel command, or the box failed:
    what the attempt left is killed first)."""
    argv = launcher_args(list(cmd))
    if argv is None:
        return None
    try:
        return box.new_kernel(sandbox, argv)
    except WarmBoxError as exc:
        log.warning("%s; starting the kernel cold", exc)
    deadline = time.monotonic() + 5
    while (left := sandbox.pids()) and time.monotonic() < deadline:
        kill_all(left)
        time.sleep(0.02)
    if not box.ready:  # not ready in time: of no use, as a box that died
        box.close()
    if not box.alive():
        current_warm_box()  # start it again for the next kernel
    return None


# --------------------------------------------------------------------------- shared with prewarm


class ForkedKernelProcess:
    """The parts of ``subprocess.Popen`` jupyter_client uses, for a kernel that is not our
    child (a template forked it and reaps it)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = -signal.SIGKILL
            except PermissionError:  # pragma: no cover - the pid was reused by another user
                self.returncode = -signal.SIGKILL
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout or 0)
            time.sleep(0.02)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


def adopt_forked_kernel(provisioner: LocalProvisioner, pid: int, cwd: str | Path | None) -> None:
    """Record in ``provisioner`` what ``LocalProvisioner.launch_kernel`` records for a kernel
    it started with ``Popen``, for the kernel ``pid`` a template forked."""
    # jupyter_client's provisioner infers ``process`` to be a Popen; it only polls, waits
    # for, signals and kills it, which ForkedKernelProcess does
    provisioner.process = ForkedKernelProcess(pid)  # type: ignore[assignment]
    provisioner.pid = provisioner.pgid = pid
    provisioner.cwd = cwd


def launcher_args(cmd: list[str]) -> list[str] | None:
    """The arguments after ``-m ipykernel_launcher`` if ``cmd`` runs this Python's
    ipykernel; None for any other kernel command."""
    if len(cmd) < 3 or cmd[1:3] != ["-m", "ipykernel_launcher"]:
        return None
    if os.path.realpath(cmd[0]) != os.path.realpath(sys.executable) and cmd[0] not in (
        "python",
        "python3",
    ):
        return None
    return list(cmd[3:])
