"""One run at a time in a course folder: an exclusive ``flock`` on its ``.lock``, re-entrant
in the thread that holds it, and which process holds it."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from autograder.models import CourseBusy

log = logging.getLogger(__name__)

#: The lock file of a course directory (:func:`hold`).
LOCK_NAME = ".lock"
#: course root -> [thread holding its lock in this process, depth]: a use case that calls
#: another (the demo grades) takes the lock once.
_HELD: dict[Path, list[int]] = {}
_HELD_LOCK = threading.Lock()


@contextlib.contextmanager
def hold(
    root: Path, *, wait: bool = True, on_wait: Callable[[int | None], None] | None = None
) -> Iterator[None]:
    """Hold the course directory *root* for one run: an exclusive ``flock`` on its ``.lock``.

    Another run holding it: with ``wait``, ``on_wait(its process id or None)`` is called
    once (default: a line on stderr saying so) and this one waits for it; without,
    :class:`CourseBusy` at once. The lock is
    the operating system's: it goes with the process that holds it, however that process
    ends (SIGKILL included), so a lock file left behind is no obstacle. Re-entrant in the
    thread that holds it (a use case calling another); grading workers and Dask workers
    take none (the grader that drives them holds it).
    """
    with _HELD_LOCK:
        held = _HELD.get(root)
        if held is not None and held[0] == threading.get_ident():
            held[1] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _HELD_LOCK:
                _HELD[root][1] -= 1
        return
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = lock_holder(path)
            if not wait:
                who = f"process {pid}" if pid else "another process"
                raise CourseBusy(
                    f"another run ({who}) is using the course folder {root.name}/", pid
                ) from None
            (on_wait or functools.partial(_say_waiting, root))(pid)
            fcntl.flock(fd, fcntl.LOCK_EX)
        with contextlib.suppress(OSError):  # only informative: a full disk may refuse it
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        with _HELD_LOCK:
            _HELD[root] = [threading.get_ident(), 1]
        try:
            yield
        finally:
            with _HELD_LOCK:
                _HELD.pop(root, None)
    finally:
        os.close(fd)  # releases the lock


def _say_waiting(root: Path, pid: int | None) -> None:
    who = f"process {pid}" if pid else "another process"
    log.info("waiting for the other run using the course folder %s/ (%s) to finish", root.name, who)


def lock_holder(path: Path) -> int | None:
    """The process id holding the ``flock`` on ``path`` (Linux's ``/proc/locks``), else the
    id the holder wrote into the file, else None."""
    try:
        info = os.stat(path)
        with open("/proc/locks", encoding="ascii") as fh:
            for line in fh:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 4711 fd:01:1234 0 EOF" ("->" marks a waiter)
                if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
                    continue
                major, minor, inode = fields[5].split(":")
                if (int(inode), int(major, 16), int(minor, 16)) == (
                    info.st_ino,
                    os.major(info.st_dev),
                    os.minor(info.st_dev),
                ):
                    return int(fields[4])
    except (OSError, ValueError):
        pass
    try:
        text = path.read_text(encoding="ascii").strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None
