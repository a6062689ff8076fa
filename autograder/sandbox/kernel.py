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
  init dies, everything inside dies); ``--die-with-parent`` ties the sandbox to the grader.
- **identity**: when the grader runs as root, the kernel runs as a fresh unprivileged uid
  (so ``RLIMIT_NPROC`` applies and no capability is left); otherwise bubblewrap's user
  namespace. A seccomp filter refuses new namespaces and mounts inside.
- **limits**: address space, number of processes/threads, CPU seconds, file size, open
  files, no core dumps (rlimits set by a tiny wrapper before the kernel starts); a watchdog
  in the grader kills the whole sandbox when the sandbox's processes together use more
  memory than allowed or fill the run folder.

:class:`SandboxedKernelManager` is a jupyter_client ``AsyncKernelManager`` that starts the
kernel this way; :class:`autograder.recheck.execute.SafeExecute` uses it.
:func:`sandbox_unavailable_reason` says why the sandbox cannot start on this machine (or
``None`` when it can).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.util
import json
import os
import secrets
import shutil
import signal
import site
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.manager import AsyncKernelManager
from traitlets import Any as AnyTrait
from traitlets import Unicode, default

__all__ = [
    "Limits",
    "Sandbox",
    "SandboxedKernelManager",
    "bwrap_path",
    "sandbox_pids",
    "sandbox_unavailable_reason",
]

MiB = 1024 * 1024
GiB = 1024 * MiB

#: Where the student's files are, inside the sandbox (the kernel's working directory).
WORK_DIR = "/home/student"
#: Where the copy of the submission is mounted read-only before it is copied to WORK_DIR.
STAGE_DIR = "/run/submission"


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox (one notebook's kernel and all it starts).

    Parameters
    ----------
    address_space : int
        ``RLIMIT_AS`` of every process, bytes.
    total_memory : int
        Resident memory of all the sandbox's processes together, bytes (watchdog).
    processes : int
        ``RLIMIT_NPROC``: processes *and threads* of the sandbox's user.
    cpu_seconds : int
        ``RLIMIT_CPU`` of every process (then SIGXCPU, and SIGKILL a little later).
    file_size : int
        ``RLIMIT_FSIZE``: largest file a process may write, bytes.
    open_files : int
        ``RLIMIT_NOFILE``.
    scratch_size : int
        Size of the tmpfs holding the working directory, bytes.
    tmp_size : int
        Size of the tmpfs on ``/tmp``, bytes.
    shm_size : int
        Size of the tmpfs on ``/dev/shm``, bytes.
    submission_bytes : int
        At most this many bytes of the student's files are copied into the sandbox.
    run_dir_bytes : int
        The run folder (connection file and sockets, on the host) may not grow past this.
    """

    address_space: int = 3 * GiB
    total_memory: int = 2 * GiB
    processes: int = 64
    cpu_seconds: int = 600
    file_size: int = 64 * MiB
    open_files: int = 512
    scratch_size: int = 128 * MiB
    tmp_size: int = 128 * MiB
    shm_size: int = 32 * MiB
    submission_bytes: int = 64 * MiB
    run_dir_bytes: int = 1 * MiB

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Limits:
        """Limits with the fields named in *values* changed (unknown names are an error)."""
        if not values:
            return cls()
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(f"unknown sandbox limits: {', '.join(unknown)}")
        return dataclasses.replace(cls(), **{k: int(v) for k, v in values.items()})


# --------------------------------------------------------------------------- the wrapper

# Runs inside the sandbox as the first process (with -I -S: no site, no environment):
# copy the submission in, set the rlimits, drop to the sandbox uid, exec the kernel.
# Self-contained on purpose: nothing of the project is importable inside.
_WRAPPER = r"""
import json, os, resource, shutil, sys
spec = json.loads(sys.argv[1])
uid = spec["uid"]
stage, work = spec["stage"], spec["work"]
if os.path.isdir(stage):
    for root, dirs, files in os.walk(stage):
        rel = os.path.relpath(root, stage)
        dest = os.path.normpath(os.path.join(work, rel))
        os.makedirs(dest, exist_ok=True)
        if uid is not None:
            os.chown(dest, uid, uid)
        for name in files:
            src = os.path.join(root, name)
            if os.path.islink(src) or not os.path.isfile(src):
                continue
            shutil.copyfile(src, os.path.join(dest, name))
            if uid is not None:
                os.chown(os.path.join(dest, name), uid, uid)
for src, dest_dir in spec.get("copies", []):
    try:
        os.makedirs(dest_dir, exist_ok=True)
        dest = os.path.join(dest_dir, os.path.basename(src))
        shutil.copyfile(src, dest)
        if uid is not None:
            os.chown(dest_dir, uid, uid)
            os.chown(dest, uid, uid)
    except OSError:
        pass
if uid is not None:
    os.chown(work, uid, uid)
    os.chmod(work, 0o700)
for name, value in spec["rlimits"].items():
    resource.setrlimit(getattr(resource, name), (value, value))
if uid is not None:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
os.umask(0o077)
argv = spec["argv"]
os.execve(argv[0], argv, spec["env"])
"""


# --------------------------------------------------------------------------- seccomp

# struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JSET_K = 0x45
_BPF_RET_K = 0x06
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
_CLONE_NAMESPACES = 0x10000000 | 0x20000000 | 0x40000000 | 0x04000000 | 0x08000000 | 0x00020000
# CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS
_CLONE_NEWCGROUP = 0x02000000

_ARCHES = {
    # machine: (AUDIT_ARCH, {syscall: number})
    "x86_64": (
        0xC000003E,
        {
            "unshare": 272,
            "setns": 308,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "clone": 56,
            "clone3": 435,
            "fsopen": 430,
            "fsmount": 432,
            "open_tree": 428,
            "move_mount": 429,
            "bpf": 321,
            "userfaultfd": 323,
            "perf_event_open": 298,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "unshare": 97,
            "setns": 268,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "clone": 220,
            "clone3": 435,
            "fsopen": 430,
            "fsmount": 432,
            "open_tree": 428,
            "move_mount": 429,
            "bpf": 280,
            "userfaultfd": 282,
            "perf_event_open": 241,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
        },
    ),
}


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp program refusing namespaces, mounts and a few risky calls.

    A process in the sandbox could otherwise create a user namespace of its own and mount
    a tmpfs there, i.e. use memory no rlimit or watchdog sees. ``clone3`` gets ``ENOSYS`` so
    that the C library falls back to ``clone``, whose flags a filter can inspect.

    Returns None on an architecture this module has no syscall table for.
    """
    machine = machine or os.uname().machine
    if machine not in _ARCHES:
        return None
    audit_arch, nr = _ARCHES[machine]
    deny_eperm = [
        nr[n]
        for n in (
            "unshare",
            "setns",
            "mount",
            "umount2",
            "pivot_root",
            "fsopen",
            "fsmount",
            "open_tree",
            "move_mount",
            "bpf",
            "userfaultfd",
            "perf_event_open",
            "keyctl",
            "add_key",
            "request_key",
        )
    ]
    prog: list[tuple[int, int, int, int]] = []

    def ins(code: int, jt: int, jf: int, k: int) -> None:
        prog.append((code, jt, jf, k))

    ret_allow = (_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW)
    ret_eperm = (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | _EPERM)
    ret_enosys = (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | _ENOSYS)
    # seccomp_data: int nr (0); u32 arch (4); u64 ip (8); u64 args[6] (16...)
    ins(_BPF_LD_W_ABS, 0, 0, 4)
    ins(_BPF_JEQ_K, 1, 0, audit_arch)
    prog.append(ret_eperm)  # a foreign ABI (e.g. x32/i386 on x86_64): refuse everything
    ins(_BPF_LD_W_ABS, 0, 0, 0)
    # Layout after the loads: one JEQ per denied number jumping to the EPERM return at the
    # end, then clone3, then clone's flag test.
    n_deny = len(deny_eperm)
    # indexes relative to after each instruction; built below with fixed tail:
    #   [deny JEQs] [JEQ clone3] [JEQ clone] [ALLOW] [clone: LD args0] [JSET] [ALLOW]
    #   [ENOSYS] [EPERM]
    tail_len = 7  # instructions after the deny block up to and including ENOSYS
    for i, number in enumerate(deny_eperm):
        # jump to EPERM: skip remaining deny JEQs and the tail
        ins(_BPF_JEQ_K, (n_deny - 1 - i) + tail_len, 0, number)
    ins(_BPF_JEQ_K, 5, 0, nr["clone3"])  # -> ENOSYS
    ins(_BPF_JEQ_K, 1, 0, nr["clone"])  # -> LD args0
    prog.append(ret_allow)
    ins(_BPF_LD_W_ABS, 0, 0, 16)  # low 32 bits of args[0] (little endian)
    ins(_BPF_JSET_K, 2, 0, _CLONE_NAMESPACES | _CLONE_NEWCGROUP)  # -> EPERM
    prog.append(ret_allow)
    prog.append(ret_enosys)
    prog.append(ret_eperm)
    return b"".join(struct.pack("=HBBI", *i) for i in prog)


# --------------------------------------------------------------------------- host paths


def bwrap_path() -> str | None:
    """The bubblewrap executable, or None."""
    return shutil.which("bwrap")


def _python_paths() -> list[str]:
    """Host directories the kernel's Python needs (installation, packages, linlib)."""
    paths: list[str] = []
    candidates = [
        sys.prefix,
        sys.exec_prefix,
        sys.base_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        os.path.dirname(sys.executable),
        sysconfig.get_paths().get("stdlib", ""),
        sysconfig.get_paths().get("platstdlib", ""),
    ]
    with contextlib.suppress(Exception):
        candidates.extend(site.getsitepackages())
    for name in ("linlib",):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            candidates.extend(spec.submodule_search_locations)
    for path in candidates:
        if not path:
            continue
        for variant in {os.path.abspath(path), os.path.realpath(path)}:
            if os.path.isdir(variant) and variant not in paths:
                paths.append(variant)
    return paths


def _matplotlib_font_cache() -> str | None:
    """The grader's matplotlib font list, if it has one (saves every kernel rebuilding it)."""
    folders = [os.environ.get("MPLCONFIGDIR", "")]
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    folders += [os.path.join(cache_home, "matplotlib"), os.path.expanduser("~/.matplotlib")]
    for folder in folders:
        if folder and os.path.isdir(folder):
            found = sorted(f for f in os.listdir(folder) if f.startswith("fontlist-v"))
            if found:
                return os.path.join(folder, found[-1])
    return None


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


# --------------------------------------------------------------------------- processes


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return kids
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                kids.extend(int(x) for x in fh.read().split())
        except (OSError, ValueError):
            continue
    return kids


def _descendants(pid: int) -> list[int]:
    seen: list[int] = []
    stack = [pid]
    while stack:
        current = stack.pop()
        for child in _children(current):
            if child not in seen:
                seen.append(child)
                stack.append(child)
    return seen


def _uid_pids(uid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                found.append(int(entry))
        except OSError:
            continue
    return found


def _threads_of(uid: int) -> int:
    total = 0
    for pid in _uid_pids(uid):
        try:
            total += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue
    return total


def _memory_bytes(pid: int) -> int:
    """Proportional resident memory (PSS): pages shared after fork() count once overall."""
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            with open(path) as fh:
                for line in fh:
                    if line.startswith(key):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return 0


def _kill_all(pids: Iterable[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _dir_bytes(path: Path, limit_entries: int = 10_000) -> int:
    total = 0
    count = 0
    for root, dirs, files in os.walk(path):
        for name in files + dirs:
            count += 1
            if count > limit_entries:
                return 1 << 62  # absurdly many entries: over any limit
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


# --------------------------------------------------------------------------- the sandbox


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
    """

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        base_dir: str | os.PathLike | None = None,
        extra_ro_paths: Sequence[str] = (),
    ) -> None:
        self.limits = limits or Limits()
        self.root = Path(tempfile.mkdtemp(prefix="ag-sbx-", dir=base_dir)).resolve()
        os.chmod(self.root, 0o711)
        self.run_dir = self.root / "run"
        self.stage_dir = self.root / "stage"
        self.run_dir.mkdir(mode=0o700)
        self.stage_dir.mkdir(mode=0o755)
        self.log_path = self.root / "kernel.log"
        self.extra_ro_paths = list(extra_ro_paths)
        self.privileged = os.geteuid() == 0
        self.uid: int | None = _sandbox_uid() if self.privileged else None
        if self.uid is not None:
            os.chown(self.run_dir, self.uid, self.uid)
        self.outer_pid: int | None = None
        self.kill_reason: str | None = None
        self.staged_skipped: list[str] = []
        self._watchdog: threading.Thread | None = None
        self._stop = threading.Event()
        self._seccomp_file: Path | None = None
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

    def kernel_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
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

    def _rlimits(self) -> dict[str, int]:
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
            limits["RLIMIT_NPROC"] = _threads_of(os.getuid()) + lim.processes
        return limits

    def command(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
        """The bubblewrap command line that runs *argv* in this sandbox."""
        bwrap = bwrap_path()
        if bwrap is None:
            raise RuntimeError("bubblewrap (bwrap) is not installed")
        args = [
            bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "sandbox",
            "--die-with-parent",
            "--new-session",
        ]
        if not self.privileged:
            args += ["--unshare-user", "--disable-userns"]
        made: set[str] = {"/"}
        bound: list[str] = []

        def ensure_parents(dest: str) -> None:
            parts = Path(dest).parts[1:-1]
            current = ""
            for part in parts:
                current += "/" + part
                if current in made or any(_is_within(current, b) for b in bound):
                    continue
                args.extend(["--perms", "0755", "--dir", current])
                made.add(current)

        def ro_bind(src: str, dest: str | None = None) -> None:
            dest = dest or src
            if any(_is_within(dest, b) for b in bound):
                return  # already visible through an enclosing bind
            ensure_parents(dest)
            args.extend(["--ro-bind", src, dest])
            bound.append(dest)
            made.add(dest)

        for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
            if os.path.islink(top):
                args.extend(["--symlink", os.readlink(top), top])
                made.add(top)
        ro_bind("/usr")
        for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
            if not os.path.islink(top) and os.path.isdir(top):
                ro_bind(top)
        ro_bind("/etc")
        args += ["--dev", "/dev", "--proc", "/proc"]
        made.update({"/dev", "/proc"})
        # The private /tmp and /dev/shm are mounted before Python's own directories are bound:
        # a checkout (and its .venv) may itself live under /tmp, and a tmpfs mounted later
        # would hide it. POSIX semaphores and shared memory (joblib, multiprocessing) need
        # /dev/shm.
        args += ["--size", str(self.limits.shm_size), "--perms", "1777", "--tmpfs", "/dev/shm"]
        args += ["--size", str(self.limits.tmp_size), "--perms", "1777", "--tmpfs", "/tmp"]
        made.add("/tmp")
        for path in sorted(_python_paths() + self.extra_ro_paths, key=len):
            if os.path.isdir(path):
                ro_bind(path)
        ensure_parents(WORK_DIR)
        args += ["--size", str(self.limits.scratch_size), "--perms", "0700"]
        args += ["--tmpfs", WORK_DIR]
        made.add(WORK_DIR)
        ensure_parents(STAGE_DIR)
        args += ["--ro-bind", str(self.stage_dir), STAGE_DIR]
        copies = []
        font_cache = _matplotlib_font_cache()
        if font_cache is not None:
            inside = "/run/fontcache/" + os.path.basename(font_cache)
            ensure_parents(inside)
            args += ["--ro-bind", font_cache, inside]
            copies.append([inside, "/tmp/.matplotlib"])
        run = str(self.run_dir)
        ensure_parents(run)
        args += ["--bind", run, run]
        args += ["--chdir", WORK_DIR, "--clearenv"]
        program = seccomp_filter()
        if program is not None:
            self._seccomp_file = self.root / "seccomp.bpf"
            self._seccomp_file.write_bytes(program)
            args += ["--seccomp", "{seccomp_fd}"]
        spec = {
            "uid": self.uid,
            "stage": STAGE_DIR,
            "work": WORK_DIR,
            "rlimits": self._rlimits(),
            "copies": copies,
            "argv": list(argv),
            "env": dict(env if env is not None else self.kernel_env()),
        }
        args += ["--", sys.executable, "-I", "-S", "-c", _WRAPPER, json.dumps(spec)]
        return args

    def popen_kwargs(self, command: list[str]) -> tuple[list[str], dict[str, Any]]:
        """Fill in the seccomp file descriptor; Popen keyword arguments to pass it."""
        if self._seccomp_file is None or "{seccomp_fd}" not in command:
            return command, {}
        fd = os.open(self._seccomp_file, os.O_RDONLY)
        self._seccomp_fd = fd
        return [str(fd) if a == "{seccomp_fd}" else a for a in command], {"pass_fds": (fd,)}

    def close_launch_fds(self) -> None:
        fd = getattr(self, "_seccomp_fd", None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
            self._seccomp_fd = None

    # -- running ------------------------------------------------------------------------

    def pids(self) -> list[int]:
        """Host pids of every process inside the sandbox (not bubblewrap's outer one)."""
        found: list[int] = []
        if self.outer_pid is not None:
            found.extend(_descendants(self.outer_pid))
        if self.uid is not None:
            found.extend(p for p in _uid_pids(self.uid) if p not in found)
        return found

    def start_watchdog(self, outer_pid: int, interval: float = 0.2) -> None:
        """Kill the sandbox when its processes' memory or its run folder grow too large."""
        self.outer_pid = outer_pid
        self._stop.clear()

        def watch() -> None:
            ticks = 0
            while not self._stop.wait(interval):
                ticks += 1
                pids = self.pids()
                rss = sum(_memory_bytes(p) for p in pids)
                if rss > self.limits.total_memory:
                    self.kill(
                        f"the notebook's processes used more than "
                        f"{self.limits.total_memory // MiB} MiB of memory"
                    )
                    return
                if ticks % 5 == 0 and _dir_bytes(self.run_dir) > self.limits.run_dir_bytes:
                    self.kill("the notebook wrote into the sandbox's run folder")
                    return

        self._watchdog = threading.Thread(target=watch, name="sandbox-watchdog", daemon=True)
        self._watchdog.start()

    def kill(self, reason: str | None = None) -> None:
        """SIGKILL every process of the sandbox (the PID namespace goes with its init)."""
        if reason and self.kill_reason is None:
            self.kill_reason = reason
        targets = self.pids()
        if self.outer_pid is not None:
            targets.append(self.outer_pid)
        _kill_all(targets)

    def stop_watchdog(self) -> None:
        self._stop.set()
        if self._watchdog is not None and self._watchdog is not threading.current_thread():
            self._watchdog.join(timeout=5)
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
            _kill_all(alive)
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        shutil.rmtree(self.root, ignore_errors=True)
        return leftover


def _sandbox_uid() -> int:
    """A uid nobody else uses, so that RLIMIT_NPROC counts only this sandbox."""
    forced = os.environ.get("AUTOGRADER_SANDBOX_UID")
    if forced:
        return int(forced)
    if _UID_MODE.get("mode") == "nobody":
        return 65534
    return 1_000_000_000 + secrets.randbelow(1_000_000_000)


_UID_MODE: dict[str, str] = {}


# --------------------------------------------------------------------------- probing


@functools.lru_cache(maxsize=1)
def _probe() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the sandbox needs Linux (namespaces)"
    if bwrap_path() is None:
        return "bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap)"
    last = "unknown error"
    for mode in ("random", "nobody"):
        _UID_MODE["mode"] = mode
        box = Sandbox()
        try:
            code = "import socket,sys; s=socket.socket(); s.settimeout(1)\n"
            code += "try:\n s.connect(('1.1.1.1', 53)); sys.exit(3)\nexcept OSError: pass\n"
            code += "print('sandbox-ok')"
            cmd, kw = box.popen_kwargs(box.command([sys.executable, "-I", "-c", code]))
            try:
                proc = subprocess.run(
                    cmd,
                    capture_output=True,
                    text=True,
                    timeout=60,
                    stdin=subprocess.DEVNULL,
                    **kw,
                )
            finally:
                box.close_launch_fds()
            if proc.returncode == 0 and "sandbox-ok" in proc.stdout:
                if mode == "nobody" and "AUTOGRADER_SANDBOX_UID" not in os.environ:
                    # Fresh uids are not mapped here (a user-namespaced container): use
                    # nobody, also in grading workers started from now on.
                    os.environ["AUTOGRADER_SANDBOX_UID"] = "65534"
                return None
            last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [
                f"exit status {proc.returncode}"
            ]
            last = f"bubblewrap failed: {last[0]}"
        except (OSError, subprocess.SubprocessError) as exc:
            last = f"bubblewrap could not run: {exc}"
        finally:
            box.cleanup()
        if not box.privileged:
            break
    _UID_MODE.pop("mode", None)
    return last


def sandbox_unavailable_reason() -> str | None:
    """Why the grading sandbox cannot start here, or None when it can.

    Runs a tiny sandboxed Python once per process (cached) to find out.
    """
    return _probe()


def sandbox_pids(uid: int) -> list[int]:
    """Host pids of processes running as *uid* (for tests: nothing may be left behind)."""
    return _uid_pids(uid)


# --------------------------------------------------------------------------- kernel manager


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel runs in a :class:`Sandbox`, reached over IPC sockets.

    ``start_kernel(cwd=folder)`` copies the student's files from *folder* (never notebooks)
    into the sandbox's private working directory. Interrupts go as messages (a signal to
    bubblewrap would not reach the kernel); a shutdown kills the whole sandbox.
    """

    limits = AnyTrait(None, help="autograder.sandbox.kernel.Limits for the kernel").tag(config=True)
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
