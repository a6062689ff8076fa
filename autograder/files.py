"""Files the grader writes whole or not at all, and the one digest of a folder's files.

:func:`write_atomic` is the one way an output file (``grades.csv``, ``results.json``,
``summary.md``, a feedback page, an LMS's export, the course's ``nbgrader_config.py``) is
written: into a temporary file beside it (``.<name>.<pid>-<random>.tmp``, in the same folder,
so on the same file system; ``pid``: the writer's), flushed to disk, then renamed over the old
one with ``os.replace``. Whatever stops the writer — a full disk, SIGKILL, a power cut — the
file is the old one or the new one, never a torn mix; a failed write removes its temporary
file (on a full disk it would hold the space the next attempt needs). A writer killed
between the two steps leaves its hidden temporary file behind, nothing else, and
:func:`sweep_temp_files` removes it once that writer no longer runs (the next run, where it
writes the same outputs).

:func:`append_line` is the ledger's append: one ``write`` of the whole line at the file's
end, and on a failure (a full disk writes part of it) the file cut back to its old length,
so no half line is left for the next run to read.

Written by hand: the stdlib's ``tempfile`` and ``os.replace`` are the whole of it
(``atomicwrites``, the package that did this, is no longer maintained).

:func:`folder_digest` hashes what a result was made from (the grader's code, an
assignment's source, what a release zip is built of): every file's name and bytes, the
caches Python and Jupyter write beside them aside (:data:`CACHES`).

:func:`owned_tempdir` makes each of the grader's temporary folders (a worker's warm box
``ag-warm-*``, a sandbox ``ag-sbx-*``, a Dask worker's course ``autograde-*``: the prefixes
of :data:`TEMP_PREFIXES`) with a record of its owner, the process that made it and removes
it at its end: its pid and its start, read with psutil, and the machine, boot and PID
namespace they hold in. A process that does not end normally (SIGKILL, the OOM killer, the
parent-death signal of a killed grader, a Dask nanny) cannot remove its folder;
:func:`sweep_orphans` removes every such folder of a temporary folder whose owner no longer
runs, and leaves alone any whose owner runs (two grading runs on one machine are normal),
any it cannot judge (no record yet, or one from another machine or PID namespace) and any
of another user. A grading run sweeps at its start and at its end, a warm box and a Dask
worker's grading process when they start.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

#: What a digest passes over: folders of caches (Python's bytecode, Jupyter's checkpoints)
#: and bytecode files; they change without their source changing.
CACHES = frozenset({"__pycache__", ".ipynb_checkpoints"})
CACHE_SUFFIXES = frozenset({".pyc"})


def write_atomic(path: str | os.PathLike, data: bytes | str, *, mode: int = 0o644) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` so that ``path`` is always either its old
    content or the new one (see the module docstring); returns the path. The folder must
    exist. ``mode``: the new file's permissions."""
    path = Path(path)
    content = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}-", suffix=TEMP_SUFFIX, dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)
    return path


#: The end of :func:`write_atomic`'s temporary files' names.
TEMP_SUFFIX = ".tmp"
#: A temporary file of :func:`write_atomic`: ``.<name>.<pid>-<random>.tmp``.
_TEMP_FILE = re.compile(r"\.(?P<name>.+)\.(?P<pid>[0-9]+)-[^./]+" + re.escape(TEMP_SUFFIX))


def _writer_runs(pid: int, written: float) -> bool:
    """Whether process *pid* runs and is the one that last wrote a file at *written* (the
    epoch's seconds): it started before then (a process that took the pid later is not)."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return process.create_time() <= written + _START_SLACK
    except psutil.Error:
        return False


def sweep_temp_files(folder: str | os.PathLike, *, recursive: bool = False) -> list[Path]:
    """Remove the temporary files :func:`write_atomic` left in *folder* (with *recursive*,
    in its sub-folders too) whose writer no longer runs on this machine — a writer killed
    between writing and renaming (SIGKILL, the OOM killer, a power cut) — and leave those of
    a writer that runs (another run writing there now). The files removed."""
    removed: list[Path] = []
    root = Path(folder)
    try:
        paths = root.rglob(f".*{TEMP_SUFFIX}") if recursive else root.glob(f".*{TEMP_SUFFIX}")
        candidates = sorted(paths)
    except OSError:
        return removed
    for path in candidates:
        match = _TEMP_FILE.fullmatch(path.name)
        if match is None:
            continue
        try:
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                continue
            if _writer_runs(int(match["pid"]), info.st_mtime):
                continue
            path.unlink()
        except OSError:
            continue  # gone already, or not ours to remove
        removed.append(path)
    return removed


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append ``line`` (a newline is added) to ``path`` durably, whole or not at all: when the
    file's last line is torn (a writer killed mid-line by an older version, a crash of the
    machine), the new line starts on a line of its own; when the write fails, the file is
    cut back to its old length and the error raised. An interrupt (Ctrl-C, SIGTERM) that
    arrives once the whole line is in the file, while it is flushed, keeps the line: only a
    part of a line is ever cut back."""
    path = Path(path)
    body = line.rstrip("\n").encode("utf-8") + b"\n"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            body = b"\n" + body
        try:
            written = os.write(fd, body)
            if written != len(body):  # a full disk takes part of it
                raise OSError(28, os.strerror(28), str(path))
            os.fsync(fd)
        except BaseException as error:
            if isinstance(error, OSError) or not _holds(fd, size, body):
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _holds(fd: int, offset: int, body: bytes) -> bool:
    """Whether the file ``fd`` ends with exactly ``body``, from ``offset`` on."""
    try:
        return (
            os.fstat(fd).st_size == offset + len(body) and os.pread(fd, len(body), offset) == body
        )
    except OSError:
        return False


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (the folder's entry flushed); best effort."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def folder_files(folder: Path) -> list[Path]:
    """Every file under ``folder``, caches aside (:data:`CACHES`), sorted."""
    return sorted(
        path
        for path in Path(folder).rglob("*")
        if path.is_file()
        and CACHES.isdisjoint(path.relative_to(folder).parts)
        and path.suffix not in CACHE_SUFFIXES
    )


def files_digest(named: Iterable[tuple[str, Path]]) -> str:
    """SHA-256 of files, each as its name, a NUL and its bytes, in the order given."""
    h = hashlib.sha256()
    for name, path in named:
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def folder_digest(*folders: Path) -> str:
    """SHA-256 of every file under ``folders`` (caches aside), each named relative to its
    folder: a file renamed, changed, added or removed changes it."""
    return files_digest(
        (path.relative_to(folder).as_posix(), path)
        for folder in folders
        for path in folder_files(folder)
    )


# ------------------------------------------------------------------- owned temporary folders

#: The grader's temporary folders: a warm box's, a sandbox's, a Dask worker's batch.
WARM_PREFIX, SANDBOX_PREFIX, BATCH_PREFIX = "ag-warm-", "ag-sbx-", "autograde-"
#: The prefixes of the grader's temporary folders (:func:`sweep_orphans` looks at no other).
TEMP_PREFIXES = (WARM_PREFIX, SANDBOX_PREFIX, BATCH_PREFIX)
#: The file in an owned folder that names its owner (:func:`owned_tempdir`).
OWNER_FILE = ".owner"
#: Seconds two readings of one process's start may differ by (both are whole clock ticks
#: since boot; another process reusing the pid starts later than that).
_START_SLACK = 0.5


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return None


def _machine() -> dict[str, str | None]:
    """Where a pid means something: this host, its boot, this process's PID namespace."""
    pid_ns = None
    with contextlib.suppress(OSError):
        pid_ns = os.readlink("/proc/self/ns/pid")
    return {
        "host": socket.gethostname(),
        "boot": _read_text("/proc/sys/kernel/random/boot_id"),
        "pid_ns": pid_ns,
    }


def _started(pid: int) -> float | None:
    """When process *pid* started, in seconds since the machine booted (so a change of the
    wall clock does not move it); None when it does not run (a zombie has ended)."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return process.create_time() - psutil.boot_time()
    except psutil.Error:
        return None


def owned_tempdir(prefix: str, dir: str | os.PathLike | None = None) -> Path:
    """A new temporary folder (``tempfile.mkdtemp``: *prefix*, in *dir* or the system's
    temporary folder) whose :data:`OWNER_FILE` names this process as its owner; the caller
    removes it at its end, :func:`sweep_orphans` when the caller could not."""
    pid = os.getpid()
    record = json.dumps({**_machine(), "pid": pid, "started": _started(pid)})
    attempts = 3
    while True:
        attempts -= 1
        root = Path(tempfile.mkdtemp(prefix=prefix, dir=dir)).resolve()
        try:
            # whole or not at all, as write_atomic, without its flush to disk: after a crash
            # of the machine the record is of no use (another boot)
            fd, tmp = tempfile.mkstemp(prefix=f"{OWNER_FILE}.", dir=root)
        except FileNotFoundError:
            # a sweep took the folder for a leftover in the instant before its record (an
            # empty folder without one): make another
            if not attempts:
                raise
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(record)
        os.replace(tmp, root / OWNER_FILE)
        return root


def owner_runs(folder: str | os.PathLike) -> bool | None:
    """Whether the owner of *folder* (:func:`owned_tempdir`) still runs: True or False, or
    None when that cannot be told here (no record, or not yet one; a record of another
    host or PID namespace)."""
    try:
        with open(Path(folder) / OWNER_FILE, encoding="utf-8") as fh:
            record = json.loads(fh.read(4096))
        pid, started = int(record["pid"]), record["started"]
        here = _machine()
        if record["host"] != here["host"]:
            return None
        if record["boot"] != here["boot"]:
            return False  # the machine has restarted since: every process of then is gone
        if record["pid_ns"] != here["pid_ns"] or started is None:
            return None
        now = _started(pid)
        return now is not None and abs(now - float(started)) <= _START_SLACK
    except (OSError, ValueError, TypeError, KeyError):
        return None


def sweep_orphans(
    dir: str | os.PathLike | None = None, prefixes: Iterable[str] = TEMP_PREFIXES
) -> list[Path]:
    """Remove the folders of *dir* (default: the system's temporary folder) named with one
    of *prefixes* whose owner no longer runs (:func:`owner_runs` False), and the empty ones
    that no record names an owner of (a maker killed between making the folder and writing
    its record, or between removing the record and the folder; a live maker that loses its
    folder so makes another, :func:`owned_tempdir`), only those this user owns; the folders
    removed."""
    base = Path(dir if dir is not None else tempfile.gettempdir())
    prefixes = tuple(prefixes)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(prefixes):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        runs = owner_runs(entry.path)
        if runs is False:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
        elif runs is None:
            with contextlib.suppress(OSError):  # not empty: it stays
                os.rmdir(entry.path)
                removed.append(Path(entry.path))
    return removed
