"""Kernels forked from a pre-warmed template process, for unsandboxed grading.

Most of a course notebook's grading time is the kernel getting ready: starting Python and
ipykernel, then importing numpy, scipy, scikit-learn, matplotlib and linlib. Each grading
worker therefore starts, ahead of need, one *template* process (``python -m
autograder.grading.prewarm``) that imports all of that once and then waits. A kernel is a
``fork()`` of the template that goes on to run ipykernel with the connection file
jupyter_client wrote: it starts with those modules already imported (copy-on-write), in
a few milliseconds instead of seconds. Every kernel is a fresh fork of the same untouched
template, so no state passes from one student's notebook to the next.

This template is for grading without the sandbox. Sandboxed grading has its own, inside a
sandbox (:mod:`autograder.sandbox.warm`: a *warm box* per worker, whose template imports the
same :data:`PRELOAD` and forks each kernel into namespaces, a scratch and a uid of its own);
:func:`start_warm` starts whichever of the two a worker needs.

:class:`PrewarmedProvisioner` is a jupyter_client kernel provisioner (the documented hook
for launching kernels differently; registered in pyproject.toml under
``jupyter_client.kernel_provisioners``): ``LocalProvisioner`` with a forked kernel in place
of a ``Popen``'d one. :class:`PrewarmedKernelManager` is an ``AsyncKernelManager`` whose
kernel spec names that provisioner; :class:`PrewarmedExecute` is nbgrader's ``Execute``
using it. When the template is not available or the kernel command is not this Python's
ipykernel, the kernel is launched the ordinary way.

Nothing outlives the grader: the template and each kernel set Linux's parent-death signal
first thing (:mod:`autograder.grading.lifetime`), so a template dies with its worker and a
kernel with its template, however they die; a template whose worker closes the connection
kills its kernels' process groups. The signal rather than the connection alone: a kernel
does not watch the template's connection, and the template does not watch it while it
imports. (Processes a kernel starts in a session of its own are not tied: grading without
the sandbox is for trusted code.)
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from nbgrader.preprocessors import Execute
from traitlets import default

from autograder import phases
from autograder.grading.lifetime import die_with_parent
from autograder.grading.preprocessors import KernelStartRetry
from autograder.options import GradeOptions
from autograder.sandbox import (
    QuickKill,
    ReadyClient,
    adopt_forked_kernel,
    launcher_args,
    preload,
    reaper,
    serve,
)

#: Imported once in the template; a notebook importing them again finds them loaded.
PRELOAD = (
    "numpy",
    "scipy",
    "scipy.optimize",
    "scipy.spatial",
    "sklearn",
    "sklearn.linear_model",
    "sklearn.naive_bayes",
    "sklearn.svm",
    "sklearn.feature_extraction.text",
    "matplotlib",
    "matplotlib.pyplot",
    "matplotlib_inline.backend_inline",
    "linlib",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    # what a kernel's start imports besides (ipykernel's debugger loads debugpy: over half
    # of a warm kernel's start)
    "ipykernel.debugger",
    "IPython",
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.extensions.storemagic",
    "sqlite3",
    "tornado.platform.asyncio",
)

_INLINE = "module://matplotlib_inline.backend_inline"


# --------------------------------------------------------------------------- template side


def _child(
    template: int, conn: Connection, argv: list[str], env: dict[str, str], cwd: str, log: str
) -> None:
    """In the forked process: become the kernel (never returns)."""
    code = 1
    try:
        die_with_parent(template)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # not the template's reaper
        conn.close()
        os.setsid()  # own process group, as jupyter_client's launcher gives a kernel
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        out = os.open(log or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.chdir(cwd)
        # watch the template, which lives exactly as long as the grading worker
        env = {**env, "JPY_PARENT_PID": str(os.getppid())}
        os.environ.clear()
        os.environ.update(env)
        sys.argv = [sys.executable, *argv]
        # a kernel started in `cwd` imports the student's own modules from there first
        sys.path[0] = ""
        from ipykernel.kernelapp import launch_new_instance

        launch_new_instance(argv=argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


def template_main(fd: int, parent_pid: int) -> None:
    """The template process: import everything, then fork a kernel per request."""
    die_with_parent(parent_pid)
    conn = Connection(fd)
    # what a kernel would get: ipykernel picks the inline backend unless MPLBACKEND is set
    os.environ.setdefault("MPLBACKEND", _INLINE)
    preload(PRELOAD)
    children: set[int] = set()
    signal.signal(signal.SIGCHLD, reaper(children))

    def kernel(request: tuple) -> int:
        argv, env, cwd, log = request
        template = os.getpid()
        pid = os.fork()
        if pid == 0:
            _child(template, conn, argv, env, cwd, log)
        children.add(pid)
        return pid

    conn.send("ready")
    serve(conn, kernel)
    for pid in children:  # the worker is gone: so are its kernels
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


class Template:
    """The worker's handle on its template process."""

    def __init__(self, log_path: str | None = None) -> None:
        parent, child = socket.socketpair()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "autograder.grading.prewarm",
                str(child.fileno()),
                str(os.getpid()),
            ],
            pass_fds=(child.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        child.close()
        self.conn = Connection(parent.detach())
        self.log_path = log_path
        self._ready = False

    def fork_kernel(self, argv: list[str], env: dict[str, str], cwd: str) -> int:
        """A new kernel process running ``ipykernel_launcher <argv>``; its pid."""
        if not self._ready:
            if self.conn.recv() != "ready":
                raise RuntimeError("kernel template did not start")
            self._ready = True
        self.conn.send((list(argv), dict(env), cwd, self.log_path or ""))
        return int(self.conn.recv())

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.conn.close()


_TEMPLATE: Template | None = None


def start_template(log_path: str | None = None) -> Template:
    """Start this process's template (idempotent); it warms up in the background.

    The template dies with the thread that calls this (Linux's parent-death signal): call
    it from a thread that lives as long as the template is needed (a worker's main one).
    """
    global _TEMPLATE
    if _TEMPLATE is None or not _TEMPLATE.alive():
        _TEMPLATE = Template(log_path)
        atexit.register(stop_template)  # wait for it (and so count its CPU time) on exit
    return _TEMPLATE


def start_warm(log_path: str | None, options: GradeOptions) -> None:
    """Start this worker's warm kernels for a run with ``options``: the warm box
    (:func:`autograder.sandbox.warm.start_warm_box`, sandboxed grading; none where it cannot
    run) or the template."""
    if options.sandbox:
        from autograder.sandbox import start_warm_box

        start_warm_box(PRELOAD, log_path=log_path)
    else:
        start_template(log_path)


def stop_template() -> None:
    global _TEMPLATE
    if _TEMPLATE is not None:
        _TEMPLATE.close()
        _TEMPLATE = None


# --------------------------------------------------------------------------- kernel side


#: The provisioner's name in the ``jupyter_client.kernel_provisioners`` entry points.
PROVISIONER_NAME = "autograder-prewarmed"


class PrewarmedProvisioner(QuickKill, LocalProvisioner):
    """jupyter_client's ``LocalProvisioner`` whose kernels are forks of the worker's
    template (when there is one and the kernel is this Python's ipykernel)."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        args = launcher_args(cmd)
        template = _TEMPLATE
        if args is None or template is None or not template.alive():
            return await super().launch_kernel(cmd, **kwargs)
        env = dict(kwargs.get("env") or os.environ)
        cwd = str(kwargs.get("cwd") or os.getcwd())
        adopt_forked_kernel(self, template.fork_kernel(args, env, cwd), Path(cwd))
        return self.connection_info


class PrewarmedKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` whose kernels come from :class:`PrewarmedProvisioner`
    (unless the kernel spec names a provisioner of its own), its clients the sandbox's
    :class:`~autograder.sandbox.ReadyClient` (no idle wait once the kernel answered)."""

    @default("client_factory")
    def _default_client_factory(self) -> type:
        return ReadyClient

    @property
    def kernel_spec(self) -> KernelSpec | None:
        spec = super().kernel_spec
        if spec is not None and "kernel_provisioner" not in spec.metadata:
            spec.metadata = {
                **spec.metadata,
                "kernel_provisioner": {"provisioner_name": PROVISIONER_NAME},
            }
        return spec


class PrewarmedExecute(KernelStartRetry, phases.TimedCells, Execute):
    """nbgrader's ``Execute`` with kernels forked from the pre-warmed template."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", PrewarmedKernelManager)
        super().__init__(*args, **kwargs)


if __name__ == "__main__":
    template_main(int(sys.argv[1]), int(sys.argv[2]))
