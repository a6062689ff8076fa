"""A small crash-tolerant pool of grading worker processes.

Each worker is a long-lived process (nbgrader is imported once per worker) that runs one
task at a time. Unlike :class:`concurrent.futures.ProcessPoolExecutor`, a worker that dies
(or a task that exceeds its wall-clock budget) costs only its own task: the pool reports
that task as failed, starts a fresh worker and carries on with the rest of the batch.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any


class WorkerPoolBroken(RuntimeError):
    """Workers die before doing any work: the grader cannot run."""


@dataclass
class Task:
    """One unit of work: ``func(*args)`` run in a worker, identified by ``key``."""

    key: Any
    func: Callable[..., Any]
    args: tuple = ()
    timeout: float | None = None


@dataclass
class Outcome:
    """What came back from a task: ``ok`` with ``value``, or ``error`` (readable text)."""

    key: Any
    ok: bool
    value: Any = None
    error: str = ""
    seconds: float = 0.0


def _worker_main(conn: Connection, log_path: str | None, initializer, initargs) -> None:
    # Kernels and nbgrader write to the inherited stdout/stderr; send that to a log file so
    # the parent's terminal (and its progress bar) stays clean.
    if log_path:
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if message is None:
            return
        func, args = message
        try:
            value = func(*args)
            reply = (True, value, "")
        except BaseException as exc:  # the task failed, the worker lives on
            reply = (False, None, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        try:
            conn.send(reply)
        except Exception as exc:  # e.g. an unpicklable value
            conn.send((False, None, f"could not return the result: {exc}"))


def _child_entry() -> None:
    """Entry point of a worker process: ``python -m autograder.workers FD``."""
    fd = int(sys.argv[1])
    conn = Connection(fd)
    log_path, initializer, initargs = conn.recv()
    _worker_main(conn, log_path, initializer, initargs)


@dataclass
class _Worker:
    process: subprocess.Popen
    conn: Connection
    task: Task | None = None
    started: float = 0.0
    index: int = 0
    done: int = field(default=0)


class WorkerPool:
    """Run tasks on ``n_workers`` processes; iterate results as they finish.

    Parameters
    ----------
    n_workers : int
        Number of worker processes.
    log_dir : path, optional
        Each worker's stdout/stderr go to ``log_dir/worker-<i>.log``.
    initializer, initargs
        Called once in every new worker (e.g. to import nbgrader ahead of the first task).
    """

    def __init__(
        self,
        n_workers: int,
        *,
        log_dir: str | os.PathLike | None = None,
        initializer: Callable[..., None] | None = None,
        initargs: tuple = (),
    ) -> None:
        self.n_workers = max(1, int(n_workers))
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.initializer = initializer
        self.initargs = initargs
        self._workers: list[_Worker] = []
        self._next_index = 0
        self._stillborn = 0

    def _start_worker(self) -> _Worker:
        # A fresh interpreter (`python -m autograder.workers`) rather than multiprocessing's
        # spawn: spawn re-imports the caller's __main__, which breaks scripts without a
        # `__main__` guard; fork would copy the parent's threads and kernels.
        parent_sock, child_sock = socket.socketpair()
        log_path = None
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log_path = str(self.log_dir / f"worker-{self._next_index}.log")
        process = subprocess.Popen(
            [sys.executable, "-m", "autograder.grading.pool", str(child_sock.fileno())],
            pass_fds=(child_sock.fileno(),),
            stdin=subprocess.DEVNULL,
        )
        child_sock.close()
        conn = Connection(parent_sock.detach())
        conn.send((log_path, self.initializer, self.initargs))
        worker = _Worker(process=process, conn=conn, index=self._next_index)
        self._next_index += 1
        return worker

    def _stop_worker(self, worker: _Worker, *, kill: bool = False) -> None:
        if kill:
            worker.process.kill()
        else:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        try:
            worker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait(timeout=5)
        worker.conn.close()

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield an :class:`Outcome` for every task, in completion order."""
        pending = deque(tasks)
        if not pending:
            return
        while len(self._workers) < min(self.n_workers, len(pending)):
            self._workers.append(self._start_worker())
        try:
            yield from self._loop(pending)
        finally:
            for worker in self._workers:
                self._stop_worker(worker, kill=worker.task is not None)
            self._workers = []

    def _loop(self, pending: deque[Task]) -> Iterator[Outcome]:
        while pending or any(w.task is not None for w in self._workers):
            for worker in self._workers:
                if worker.task is None and pending:
                    worker.task = pending.popleft()
                    worker.started = time.monotonic()
                    worker.conn.send((worker.task.func, worker.task.args))
            busy = [w for w in self._workers if w.task is not None]
            if not busy:
                continue
            deadlines = [
                w.started + w.task.timeout - time.monotonic()
                for w in busy
                if w.task is not None and w.task.timeout is not None
            ]
            wait_for = max(0.0, min(deadlines)) if deadlines else None
            ready = wait([w.conn for w in busy], timeout=wait_for)
            for worker in list(busy):
                task = worker.task
                assert task is not None
                elapsed = time.monotonic() - worker.started
                if worker.conn in ready:
                    try:
                        ok, value, error = worker.conn.recv()
                    except (EOFError, OSError):
                        ok, value, error = False, None, "the grading worker died"
                        yield Outcome(task.key, ok, value, error, elapsed)
                        self._replace(worker)
                        continue
                    worker.task = None
                    worker.done += 1
                    yield Outcome(task.key, ok, value, error, elapsed)
                elif worker.process.poll() is not None:
                    code = worker.process.returncode
                    yield Outcome(
                        task.key,
                        False,
                        None,
                        f"the grading worker died (exit code {code})",
                        elapsed,
                    )
                    self._replace(worker)
                elif task.timeout is not None and elapsed > task.timeout:
                    yield Outcome(
                        task.key,
                        False,
                        None,
                        f"grading took longer than {task.timeout:.0f} s and was stopped",
                        elapsed,
                    )
                    self._replace(worker)

    def _replace(self, worker: _Worker) -> None:
        if worker.done == 0:
            self._stillborn += 1
            # workers that die before finishing anything, again and again, mean the grader
            # itself is broken (not one submission): stop instead of failing every task
            if self._stillborn > 2 * self.n_workers:
                raise WorkerPoolBroken(
                    "grading workers keep dying before finishing a task; see "
                    f"{self.log_dir or 'their stderr'}"
                )
        else:
            self._stillborn = 0
        self._stop_worker(worker, kill=True)
        position = self._workers.index(worker)
        self._workers[position] = self._start_worker()


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


if __name__ == "__main__":
    _child_entry()
