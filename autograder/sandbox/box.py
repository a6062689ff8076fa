"""One sandbox (:class:`Sandbox`): its host folder, its uid, its bubblewrap command, its end.

The student's files are staged into the host folder, then copied into the sandbox's private
working directory by the wrapper (:mod:`autograder.sandbox.wrapper`), which also sets the
rlimits and drops to the sandbox's uid before it execs the program. A watchdog
(:mod:`autograder.sandbox.watchdog`) bounds the memory of all the sandbox's processes;
:meth:`Sandbox.cleanup` kills whatever is left and removes the folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from autograder.files import SANDBOX_PREFIX, owned_tempdir
from autograder.sandbox.limits import Limits
from autograder.sandbox.mounts import STAGE_DIR, WORK_DIR, WRAPPER_PATH, bwrap_arguments, bwrap_path
from autograder.sandbox.seccomp import seccomp_filter
from autograder.sandbox.uids import UidMode, sandbox_uid
from autograder.sandbox.watchdog import (
    Watchdog,
    descendants,
    kill_all,
    threads_of,
    uid_pids,
)

#: Stands for the seccomp file descriptor in a command, until :meth:`Sandbox.popen_kwargs`.
SECCOMP_FD = "{seccomp_fd}"

#: The lifeline pipe of the process that made it: (pid, read end, write end); see
#: :func:`lifeline_fd`.
_LIFELINE: tuple[int, int, int] | None = None


def lifeline_fd() -> int:
    """The read end of this process's lifeline pipe, for a sandbox's wrapper to check.

    Its write end stays open, in this process only (not inherited), for as long as this
    process lives: the wrapper that finds it closed knows its grader died before bubblewrap
    tied itself to it (``--die-with-parent``) and does not start the program.
    """
    global _LIFELINE
    if _LIFELINE is None or _LIFELINE[0] != os.getpid():  # none yet, or a fork's copy
        read_end, write_end = os.pipe()
        _LIFELINE = (os.getpid(), read_end, write_end)
    return _LIFELINE[1]


class Sandbox:
    """One sandbox: its host folder, its uid, its bubblewrap command, its watchdog.

    Parameters
    ----------
    limits : Limits
        Resource limits.
    base_dir : path, optional
        Where the sandbox's host folder is made (default: the system's temporary folder).
    extra_ro_paths : sequence of str
        More host directories to show read-only at the same path.
    uid_mode : "random" or "nobody", optional
        With root, which uid the sandbox runs as (default: a fresh random one). Where
        fresh uids are not mapped only ``"nobody"`` works: make sandboxes with
        :func:`autograder.sandbox.probe.new_sandbox`, which passes what the probe found.
    """

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        base_dir: str | os.PathLike | None = None,
        extra_ro_paths: Sequence[str] = (),
        uid_mode: UidMode | None = None,
    ) -> None:
        self.limits = limits or Limits()
        # its owner recorded: a worker killed while it grades cannot remove it, the next
        # sweep does (autograder.files.sweep_orphans)
        self.root = owned_tempdir(SANDBOX_PREFIX, base_dir)
        os.chmod(self.root, 0o711)
        self.run_dir = self.root / "run"
        self.stage_dir = self.root / "stage"
        self.run_dir.mkdir(mode=0o700)
        self.stage_dir.mkdir(mode=0o755)
        self.log_path = self.root / "kernel.log"
        self.extra_ro_paths = list(extra_ro_paths)
        self.privileged = os.geteuid() == 0
        self.uid: int | None = sandbox_uid(uid_mode) if self.privileged else None
        if self.uid is not None:
            os.chown(self.run_dir, self.uid, self.uid)
        self.outer_pid: int | None = None
        self.kill_reason: str | None = None
        self.staged_skipped: list[str] = []
        self._watchdog: Watchdog | None = None
        self._seccomp_file: Path | None = None
        self._seccomp_fd: int | None = None
        self.log_head: str | None = None

    def read_log(self, limit: int = 4000) -> str:
        """The beginning of what the sandbox's first process wrote to stdout/stderr."""
        if self.log_head is not None:
            return self.log_head[:limit]
        try:
            with open(self.log_path, "rb") as fh:
                return fh.read(limit).decode("utf-8", "replace")
        except OSError:
            return ""

    # -- files ------------------------------------------------------------------------

    def stage_files(self, folder: str | os.PathLike | None) -> None:
        """Copy the student's own files from *folder* (not notebooks, not symlinks)."""
        if not folder or not os.path.isdir(folder):
            return
        budget = self.limits.submission_bytes
        folder = os.path.realpath(folder)
        for root, dirs, files in os.walk(folder, followlinks=False):
            dirs[:] = [d for d in dirs if not d.startswith(".ipynb_checkpoints")]
            rel = os.path.relpath(root, folder)
            for name in files:
                src = os.path.join(root, name)
                rel_name = os.path.normpath(os.path.join(rel, name))
                if name.endswith(".ipynb") or os.path.islink(src) or not os.path.isfile(src):
                    continue
                size = os.path.getsize(src)
                if size > budget:
                    self.staged_skipped.append(rel_name)
                    continue
                budget -= size
                dest = self.stage_dir / rel_name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)
                os.chmod(dest, 0o644)
        for root, dirs, _ in os.walk(self.stage_dir):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)

    # -- command ----------------------------------------------------------------------

    @staticmethod
    def kernel_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The kernel's whole environment (nothing of the grader's leaks in)."""
        bin_dir = os.path.dirname(sys.executable)
        env = {
            "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
            "HOME": WORK_DIR,
            "USER": "student",
            "LOGNAME": "student",
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
            "MPLCONFIGDIR": "/tmp/.matplotlib",
            "IPYTHONDIR": "/tmp/.ipython",
            "XDG_CACHE_HOME": "/tmp/.cache",
            "JUPYTER_RUNTIME_DIR": "/tmp/.jupyter",
            "JUPYTER_PLATFORM_DIRS": "1",
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            # One thread per BLAS: workers already use every core, and threads count
            # against RLIMIT_NPROC.
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        # NBGRADER_EXECUTION lets a notebook skip slow cells while it is graded.
        for name in ("MPLBACKEND", "PYTHONHASHSEED", "NBGRADER_EXECUTION"):
            if name in os.environ:
                env[name] = os.environ[name]
        if extra:
            env.update(extra)
        return env

    def rlimits(self) -> dict[str, int]:
        """The rlimits the sandbox's processes get (``{"RLIMIT_X": value}``)."""
        lim = self.limits
        limits = {
            "RLIMIT_AS": lim.address_space,
            "RLIMIT_CPU": lim.cpu_seconds,
            "RLIMIT_FSIZE": lim.file_size,
            "RLIMIT_NOFILE": lim.open_files,
            "RLIMIT_CORE": 0,
        }
        if self.uid is not None:
            limits["RLIMIT_NPROC"] = lim.processes
        else:
            # Not root: the sandbox shares the grader's uid, and (before Linux 5.14) the
            # limit counts every thread of that uid, so allow what already runs plus ours.
            limits["RLIMIT_NPROC"] = threads_of(os.getuid()) + lim.processes
        return limits

    def command(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
        """The bubblewrap command line that runs *argv* in this sandbox."""
        bwrap = bwrap_path()
        if bwrap is None:
            raise RuntimeError("bubblewrap (bwrap) is not installed")
        args, copies = bwrap_arguments(
            bwrap,
            self.limits,
            privileged=self.privileged,
            extra_ro_paths=self.extra_ro_paths,
            stage_dir=self.stage_dir,
            run_dir=self.run_dir,
        )
        program = seccomp_filter()
        if program is not None:
            self._seccomp_file = self.root / "seccomp.bpf"
            self._seccomp_file.write_bytes(program)
            args += ["--seccomp", SECCOMP_FD]
        spec = {
            "uid": self.uid,
            "stage": STAGE_DIR,
            "work": WORK_DIR,
            "rlimits": self.rlimits(),
            "copies": copies,
            "argv": list(argv),
            "env": dict(env if env is not None else self.kernel_env()),
            "lifeline": lifeline_fd(),
        }
        args += ["--", sys.executable, "-I", "-S", WRAPPER_PATH, json.dumps(spec)]
        return args

    def popen_kwargs(self, command: list[str]) -> tuple[list[str], dict[str, Any]]:
        """Fill in the seccomp file descriptor; Popen keyword arguments to pass it and the
        lifeline's."""
        lifeline = (lifeline_fd(),)
        if self._seccomp_file is None or SECCOMP_FD not in command:
            return command, {"pass_fds": lifeline}
        fd = os.open(self._seccomp_file, os.O_RDONLY)
        self._seccomp_fd = fd
        command = [str(fd) if a == SECCOMP_FD else a for a in command]
        return command, {"pass_fds": (fd, *lifeline)}

    def close_launch_fds(self) -> None:
        """Close the seccomp file descriptor once bubblewrap has started."""
        fd = self._seccomp_fd
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
            self._seccomp_fd = None

    # -- running ------------------------------------------------------------------------

    def pids(self) -> list[int]:
        """Host pids of every process inside the sandbox (not bubblewrap's outer one)."""
        found: list[int] = []
        if self.outer_pid is not None:
            found.extend(descendants(self.outer_pid))
        if self.uid is not None:
            found.extend(p for p in uid_pids(self.uid) if p not in found)
        return found

    def start_watchdog(self, outer_pid: int, interval: float = 0.2) -> None:
        """Kill the sandbox when its processes' memory or its run folder grow too large."""
        self.outer_pid = outer_pid
        self._watchdog = Watchdog(self.pids, self.kill, self.limits, self.run_dir, interval)
        self._watchdog.start()

    def kill(self, reason: str | None = None) -> None:
        """SIGKILL every process of the sandbox (the PID namespace goes with its init)."""
        if reason and self.kill_reason is None:
            self.kill_reason = reason
        targets = self.pids()
        if self.outer_pid is not None:
            targets.append(self.outer_pid)
        kill_all(targets)

    def stop_watchdog(self) -> None:
        """Stop the watchdog (if it runs)."""
        if self._watchdog is not None:
            self._watchdog.stop()
        self._watchdog = None

    def lock_run_dir(self) -> None:
        """Once the kernel has made its sockets, the sandbox may no longer change the folder."""
        if self.privileged:
            with contextlib.suppress(OSError):
                os.chown(self.run_dir, 0, 0)
                os.chmod(self.run_dir, 0o755)

    def cleanup(self, timeout: float = 5.0) -> list[int]:
        """Kill what is left, wait until it is gone, remove the host folder.

        Returns the pids that were still alive when cleanup began (empty when the kernel
        had shut down cleanly).
        """
        self.stop_watchdog()
        self.close_launch_fds()
        if self.log_head is None:
            self.log_head = self.read_log()
        leftover = self.pids()
        deadline = time.monotonic() + timeout
        while True:
            alive = self.pids()
            if not alive:
                break
            kill_all(alive)
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        shutil.rmtree(self.root, ignore_errors=True)
        return leftover
