"""The grading sandbox: every student kernel runs inside bubblewrap (Linux namespaces).

What a student's kernel (and anything it starts) sees and may do:

- **files**: a read-only view of the system *made from an allow-list* — ``/usr``, ``/etc``,
  the Python installation and its packages, and ``linlib`` — so the course's source
  notebooks, the gradebook, the output folder, other students' work, the repository's
  ``.git`` and ``/root`` simply do not exist inside. Writable: a private scratch folder
  (the working directory, a size-limited tmpfs holding a copy of the student's own
  submission files, notebooks excluded) and a size-limited ``/tmp``.
- **network**: none (its own network namespace with only a loopback of its own); the
  grader talks to the kernel over IPC (Unix) sockets in a private run folder.
- **processes**: its own PID namespace (nothing outside is visible, and when the sandbox's
  init dies, everything inside dies); ``--die-with-parent`` ties the sandbox to the grader,
  and the wrapper does not start the kernel when the grader died before bubblewrap could
  tie itself to it (a pipe only the grader holds open, :func:`~.box.lifeline_fd`).
- **identity**: when the grader runs as root, the kernel runs as a fresh unprivileged uid
  (so ``RLIMIT_NPROC`` applies and no capability is left); otherwise bubblewrap's user
  namespace. A seccomp filter refuses new namespaces and mounts inside.
- **limits**: address space, number of processes/threads, CPU seconds, file size, open
  files, no core dumps (rlimits set by a tiny wrapper before the kernel starts); a watchdog
  in the grader kills the whole sandbox when the sandbox's processes together use more
  memory than allowed or fill the run folder.

The modules, in the order a kernel meets them:

- :mod:`~.limits` — :class:`Limits`;
- :mod:`~.uids` — which uid a sandbox runs as;
- :mod:`~.mounts` — what is bound into the sandbox: the bubblewrap argument list;
- :mod:`~.seccomp` — the seccomp filter bubblewrap loads;
- :mod:`~.wrapper` — the sandbox's first process (copy in, rlimits, drop, exec);
- :mod:`~.watchdog` — the sandbox's processes seen from the host, and the memory watchdog;
- :mod:`~.box` — :class:`Sandbox`: one sandbox, from its folder to its cleanup;
- :mod:`~.probe` — :func:`sandbox_unavailable_reason` (can a sandbox start here?) and
  :func:`resolve_sandbox` (does this run grade in one?), the uids a sandbox may use here,
  and :func:`new_sandbox` (a sandbox with them);
- :mod:`~.kernel` — the kernel provisioner (jupyter_client's hook) and
  :class:`SandboxedKernelManager`, the kernel manager that
  :class:`autograder.grading.safe_execute.SafeExecute` uses;
- :mod:`~.warm` and :mod:`~.warm_template` — warm kernels: a sandbox per grading worker
  (the *warm box*) whose template has imported the course's modules and forks each
  kernel into namespaces, a scratch and a uid of its own (same limits, same filter); the
  kernel provisioner uses it when the worker has one, and the cold sandbox otherwise.
"""

from autograder.sandbox.box import Sandbox
from autograder.sandbox.kernel import QuickKill, ReadyClient, SandboxedKernelManager
from autograder.sandbox.limits import Limits
from autograder.sandbox.mounts import WORK_DIR, bwrap_path
from autograder.sandbox.probe import (
    new_sandbox,
    resolve_sandbox,
    sandbox_pids,
    sandbox_status,
    sandbox_unavailable_reason,
)
from autograder.sandbox.seccomp import seccomp_filter
from autograder.sandbox.warm import (
    ForkedKernelProcess,
    WarmBox,
    adopt_forked_kernel,
    current_warm_box,
    launcher_args,
    start_warm_box,
    stop_warm_box,
)
from autograder.sandbox.warm_template import preload, reaper, serve

__all__ = [
    "WORK_DIR",
    "ForkedKernelProcess",
    "Limits",
    "QuickKill",
    "ReadyClient",
    "Sandbox",
    "SandboxedKernelManager",
    "WarmBox",
    "adopt_forked_kernel",
    "bwrap_path",
    "current_warm_box",
    "launcher_args",
    "new_sandbox",
    "preload",
    "reaper",
    "resolve_sandbox",
    "sandbox_pids",
    "sandbox_status",
    "sandbox_unavailable_reason",
    "seccomp_filter",
    "serve",
    "start_warm_box",
    "stop_warm_box",
]
