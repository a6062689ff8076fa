"""The sandbox's processes seen from the host, and the watchdog that bounds their memory.

psutil reads memory, threads and kills; the two scans the watchdog makes every 0.2 s (the
process tree below bubblewrap, the processes of the sandbox's uid) read ``/proc`` directly,
at a fraction of psutil's cost (psutil has neither a children list nor a uid index).

Memory is counted as proportional resident memory (PSS: pages shared after ``fork()`` count
once overall), falling back to the resident set where PSS cannot be read; a zombie counts 0.
A process belongs to the sandbox when it descends from bubblewrap's process or (with root)
runs as the sandbox's own uid — zombies included, until they are reaped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import psutil

from autograder.sandbox.limits import Limits, MiB


def children(pid: int) -> list[int]:
    """Pids of the direct children of *pid* (of any of its threads), zombies included.

    Read from the kernel's own lists (``/proc/<pid>/task/<tid>/children``) rather than
    psutil's ``children()``, which reads every process's stat file to build a parent map:
    the watchdog asks every 0.2 s, and that costs about 40 times more.
    """
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


def descendants(pid: int) -> list[int]:
    """Pids of every process below *pid* (children, their children, ...)."""
    seen: list[int] = []
    stack = [pid]
    while stack:
        for child in children(stack.pop()):
            if child not in seen:
                seen.append(child)
                stack.append(child)
    return seen


def uid_pids(uid: int) -> list[int]:
    """Pids of the processes whose (effective) uid is *uid*.

    The owner of ``/proc/<pid>`` rather than psutil's ``uids()``: the watchdog asks every
    0.2 s, and reading every process's status file costs 10-20 times more than a stat.
    """
    found = []
    for pid in psutil.pids():
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                found.append(pid)
    return found


def threads_of(uid: int) -> int:
    """How many threads the processes running as *uid* have together."""
    total = 0
    for proc in psutil.process_iter(["uids", "num_threads"]):
        uids, threads = proc.info["uids"], proc.info["num_threads"]
        if uids is not None and uids.effective == uid and threads:
            total += threads
    return total


def memory_bytes(pid: int) -> int:
    """Proportional resident memory (PSS) of *pid*, else its resident set; 0 when gone."""
    try:
        proc = psutil.Process(pid)
    except psutil.Error:
        return 0
    try:
        return int(proc.memory_full_info().pss)
    except (psutil.Error, AttributeError, OSError):
        pass
    try:
        return int(proc.memory_info().rss)
    except (psutil.Error, OSError):
        return 0


def resident_bytes(pid: int) -> int:
    """Resident set size of *pid* (``/proc/<pid>/statm``); 0 when gone. Never less than
    :func:`memory_bytes` (a process's proportional share of its pages is at most all of
    them), and about 250 times cheaper to read than the proportional size, for which the
    kernel walks every mapping of the process (``smaps_rollup``)."""
    try:
        return int(psutil.Process(pid).memory_info().rss)
    except (psutil.Error, OSError):
        return 0


def kill_all(pids: Iterable[int]) -> None:
    """SIGKILL each pid still there (a pid that is gone is no error)."""
    for pid in pids:
        with contextlib.suppress(psutil.Error, OSError):
            psutil.Process(pid).send_signal(signal.SIGKILL)


def dir_bytes(path: Path, limit_entries: int = 10_000) -> int:
    """Bytes of the files under *path*; absurdly many entries count as over any limit."""
    total = 0
    count = 0
    for root, dirs, files in os.walk(path):
        for name in files + dirs:
            count += 1
            if count > limit_entries:
                return 1 << 62
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


class Watchdog:
    """A thread that kills the sandbox when its memory or its run folder grow too large.

    Parameters
    ----------
    pids : callable
        Returns the host pids of the sandbox's processes.
    kill : callable
        Kills the sandbox, given the reason.
    limits : Limits
        ``total_memory`` and ``run_dir_bytes`` are watched.
    run_dir : Path
        The sandbox's run folder on the host.
    interval : float
        Seconds between two looks at the memory (the folder: every fifth look).
    """

    def __init__(
        self,
        pids: Callable[[], list[int]],
        kill: Callable[[str], None],
        limits: Limits,
        run_dir: Path,
        interval: float = 0.2,
    ) -> None:
        self._pids, self._kill = pids, kill
        self.limits, self.run_dir, self.interval = limits, run_dir, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="sandbox-watchdog", daemon=True)

    def _watch(self) -> None:
        ticks = 0
        while not self._stop.wait(self.interval):
            ticks += 1
            pids = self._pids()
            # the resident sizes first: while they stay under the limit, so does the
            # proportional size (never larger), the one a kill is decided on, which costs
            # milliseconds of the grader's CPU per process to read (a forked kernel shares
            # its template's pages, so only its proportional share counts)
            if sum(resident_bytes(p) for p in pids) <= self.limits.total_memory:
                pss = 0
            else:
                pss = sum(memory_bytes(p) for p in pids)
            if pss > self.limits.total_memory:
                self._kill(
                    f"the notebook's processes used more than "
                    f"{self.limits.total_memory // MiB} MiB of memory"
                )
                return
            if ticks % 5 == 0 and dir_bytes(self.run_dir) > self.limits.run_dir_bytes:
                self._kill("the notebook wrote into the sandbox's run folder")
                return

    def start(self) -> None:
        """Start watching (in a daemon thread)."""
        self._thread.start()

    def stop(self) -> None:
        """Stop watching; wait for the thread unless called from it."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
