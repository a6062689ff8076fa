"""What is bound into the sandbox: the bubblewrap argument list and the host paths it shows.

A read-only view of the system made from an allow-list (``/usr``, ``/etc``, the Python
installation and its packages, ``linlib``), private size-limited tmpfs folders (``/tmp``,
``/dev/shm``, the working directory), the staged submission (read-only), the grader's
matplotlib font list (copied in by the wrapper), the run folder (connection file and sockets)
and the wrapper itself (:mod:`autograder.sandbox.wrapper`, read-only).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import site
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from autograder.sandbox.limits import Limits

#: Where the student's files are, inside the sandbox (the kernel's working directory).
WORK_DIR = "/home/student"
#: Where the copy of the submission is mounted read-only before it is copied to WORK_DIR.
STAGE_DIR = "/run/submission"
#: Where the wrapper (the sandbox's first process) is mounted read-only.
WRAPPER_PATH = "/run/sandbox-wrapper.py"
#: The wrapper on the host.
WRAPPER_SOURCE = str(Path(__file__).with_name("wrapper.py"))

_TOP_LEVEL = ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")


def bwrap_path() -> str | None:
    """The bubblewrap executable, or None."""
    return shutil.which("bwrap")


def python_paths() -> list[str]:
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


def matplotlib_font_cache() -> str | None:
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


def is_within(path: str, root: str) -> bool:
    """Whether *path* is *root* or lies under it (plain string comparison)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


class _Binds:
    """A bubblewrap argument list that makes each mount point's parents only once."""

    def __init__(self, args: list[str]) -> None:
        self.args = args
        self.made: set[str] = {"/"}
        self.bound: list[str] = []

    def ensure_parents(self, dest: str) -> None:
        current = ""
        for part in Path(dest).parts[1:-1]:
            current += "/" + part
            if current in self.made or any(is_within(current, b) for b in self.bound):
                continue
            self.args.extend(["--perms", "0755", "--dir", current])
            self.made.add(current)

    def ro_bind(self, src: str, dest: str | None = None) -> None:
        dest = dest or src
        if any(is_within(dest, b) for b in self.bound):
            return  # already visible through an enclosing bind
        self.ensure_parents(dest)
        self.args.extend(["--ro-bind", src, dest])
        self.bound.append(dest)
        self.made.add(dest)


def bwrap_arguments(
    bwrap: str,
    limits: Limits,
    *,
    privileged: bool,
    extra_ro_paths: Sequence[str],
    stage_dir: str | os.PathLike,
    run_dir: str | os.PathLike,
) -> tuple[list[str], list[list[str]]]:
    """The bubblewrap options (namespaces, mounts, environment cleared) of one sandbox.

    Returns the argument list (ending with ``--clearenv``; the seccomp option and the
    program follow) and the ``[file, folder]`` copies the wrapper makes inside.
    """
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
    if not privileged:
        args += ["--unshare-user", "--disable-userns"]
    binds = _Binds(args)
    for top in _TOP_LEVEL:
        if os.path.islink(top):
            args.extend(["--symlink", os.readlink(top), top])
            binds.made.add(top)
    binds.ro_bind("/usr")
    for top in _TOP_LEVEL:
        if not os.path.islink(top) and os.path.isdir(top):
            binds.ro_bind(top)
    binds.ro_bind("/etc")
    args += ["--dev", "/dev", "--proc", "/proc"]
    binds.made.update({"/dev", "/proc"})
    # The private /tmp and /dev/shm are mounted before Python's own directories are bound:
    # a checkout (and its .venv) may itself live under /tmp, and a tmpfs mounted later
    # would hide it. POSIX semaphores and shared memory (joblib, multiprocessing) need
    # /dev/shm.
    args += ["--size", str(limits.shm_size), "--perms", "1777", "--tmpfs", "/dev/shm"]
    args += ["--size", str(limits.tmp_size), "--perms", "1777", "--tmpfs", "/tmp"]
    binds.made.add("/tmp")
    for path in sorted(python_paths() + list(extra_ro_paths), key=len):
        if os.path.isdir(path):
            binds.ro_bind(path)
    binds.ensure_parents(WORK_DIR)
    args += ["--size", str(limits.scratch_size), "--perms", "0700"]
    args += ["--tmpfs", WORK_DIR]
    binds.made.add(WORK_DIR)
    binds.ensure_parents(STAGE_DIR)
    args += ["--ro-bind", str(stage_dir), STAGE_DIR]
    copies = []
    font_cache = matplotlib_font_cache()
    if font_cache is not None:
        inside = "/run/fontcache/" + os.path.basename(font_cache)
        binds.ensure_parents(inside)
        args += ["--ro-bind", font_cache, inside]
        copies.append([inside, "/tmp/.matplotlib"])
    run = str(run_dir)
    binds.ensure_parents(run)
    args += ["--bind", run, run]
    binds.ensure_parents(WRAPPER_PATH)
    args += ["--ro-bind", WRAPPER_SOURCE, WRAPPER_PATH]
    args += ["--chdir", WORK_DIR, "--clearenv"]
    return args, copies
