"""The crash-tolerant pool of grading worker processes: ``pebble.ProcessPool`` with the
grader's terms.

Each worker is a long-lived process (nbgrader is imported once per worker, by the
initializer) that runs one task at a time. Unlike :class:`concurrent.futures.ProcessPoolExecutor`,
a worker that dies (pebble's ``ProcessExpired``) or a task that exceeds its wall-clock
budget (pebble stops the worker) costs only its own task: it is reported as failed, pebble
starts a fresh worker and the rest of the batch goes on. Workers that keep dying before
they finish anything mean the grader itself is broken: :class:`WorkerPoolBroken`.

Workers are started with multiprocessing's ``spawn`` (a fresh interpreter, as the kernels
need: ``fork`` would copy the parent's threads, pebble's own among them); their stdout and
stderr go to ``<log_dir>/worker-<pid>.log``. Like any ``spawn`` pool, a worker imports the
caller's ``__main__`` module again: a script that grades must guard its entry point with
``if __name__ == "__main__":`` (the command line, pytest and notebooks do).

A worker dies with the grader: it sets Linux's parent-death signal (SIGKILL) first thing
(:mod:`autograder.grading.lifetime`), so a grader killed in any way, SIGKILL included,
takes its workers along, and each worker its kernel template or sandbox. pebble starts the
first workers from the thread that schedules the tasks and replacements from its pool
manager thread; both live until the pool stops. The signal rather than a pipe the worker
watches: a worker spends its time in nbgrader, with no thread of its own free to watch.

One limit of pebble's bookkeeping: a worker that dies in the instant between taking a task
and pebble hearing of it cannot be matched with its task; that task then ends at its
timeout (every grading task has one, ``batch.SUBMISSION_TIMEOUT``) or, when no other task
is running, pebble declares the pool broken (:class:`WorkerPoolBroken`). A grading task
spends seconds in nbgrader before anything can kill its worker, so this is not expected.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pebble import ProcessExpired, ProcessPool

from autograder.grading.lifetime import die_with_parent

#: Seconds between checks that the pool is still alive while no task finishes.
_POLL = 1.0


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
    """What came back from a task: ``ok`` with ``value``, or ``error`` (readable text) and
    ``exception`` (what it raised, or pebble's ``ProcessExpired`` for a worker that died)."""

    key: Any
    ok: bool
    value: Any = None
    error: str = ""
    seconds: float = 0.0
    exception: BaseException | None = None  # what the task raised (or how its worker died)


@dataclass(frozen=True)
class Run:
    """An executor's ``run(jobs, ...)`` (the local pool's, or Dask's): grades (assignment,
    student) pairs, yielding ``(assignment, student, outcome)`` as each finishes. ``holds``:
    its workers reach the scratch course of the students graded beside the canary
    (:mod:`autograder.grading.hold`); ``takes_files``: each task carries its submission's
    files (``run(..., files=...)``), so none is copied into a course first."""

    grade: Callable[..., Iterator[tuple[str, str, dict[str, Any]]]]
    holds: bool = False
    takes_files: bool = False

    def __call__(self, *args: Any, **kwargs: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
        return self.grade(*args, **kwargs)


def _exit_on_sigterm(_signum: int, _frame: Any) -> None:
    # pebble stops a worker with SIGTERM; run the exit handlers first (e.g. the kernel
    # template is waited for, so its CPU time counts as this worker's children's), as the
    # worker's ordinary end of life would.
    atexit._run_exitfuncs()
    os._exit(0)


def _start_worker(
    parent_pid: int, log_dir: str | None, initializer: Callable[..., None] | None, initargs
):
    """In each new worker: tied to the grader, stdout/stderr to its log file, then the
    caller's initializer."""
    die_with_parent(parent_pid)
    if log_dir is not None:
        # Kernels and nbgrader write to the inherited stdout/stderr; the parent's terminal
        # (and its progress bar) stays clean.
        path = Path(log_dir) / f"worker-{os.getpid()}.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if initializer is not None:
        initializer(*initargs)


def _timed(func: Callable[..., Any], args: tuple) -> tuple[Any, float]:
    start = time.monotonic()
    value = func(*args)
    return value, time.monotonic() - start


class WorkerPool:
    """Run tasks on ``n_workers`` processes; iterate results as they finish.

    Parameters
    ----------
    n_workers : int
        Number of worker processes.
    log_dir : path, optional
        Each worker's stdout/stderr go to ``log_dir/worker-<pid>.log``.
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
        self._open: ProcessPool | None = None

    def __enter__(self) -> WorkerPool:
        """Keep one set of workers for every :meth:`run` until the ``with`` block ends (a
        batch run in steps on the same warm workers: the grading canary, then the class)."""
        self._open = self.pebble_pool()
        return self

    def __exit__(self, *exc_info: object) -> None:
        pool, self._open = self._open, None
        if pool is not None:
            pool.stop()
            pool.join()

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield an :class:`Outcome` for every task, in completion order. Inside a ``with``
        block the tasks go to its workers (a task left when the caller stops iterating is
        cancelled); otherwise a set of workers is started for them and stopped after."""
        tasks = list(tasks)
        if not tasks:
            return
        pool = self._open or self.pebble_pool(min(self.n_workers, len(tasks)))
        scheduled: dict[Future, tuple[Task, float]] = {}
        try:
            for task in tasks:
                future = pool.schedule(_timed, (task.func, task.args), timeout=task.timeout)
                scheduled[future] = (task, time.monotonic())
            yield from self._collect(pool, scheduled)
        finally:
            if pool is self._open:
                for queued in scheduled:
                    queued.cancel()
            else:
                pool.stop()
                pool.join()

    def pebble_pool(self, max_workers: int | None = None) -> ProcessPool:
        """The ``pebble.ProcessPool`` of this pool's workers (``max_workers``, default
        ``n_workers``), each started as :meth:`run`'s are; for a caller that schedules tasks
        itself (a Dask worker's grading process). The caller stops and joins it."""
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        return ProcessPool(
            max_workers=max_workers or self.n_workers,
            initializer=_start_worker,
            initargs=(
                os.getpid(),
                str(self.log_dir) if self.log_dir is not None else None,
                self.initializer,
                self.initargs,
            ),
            context=multiprocessing.get_context("spawn"),
        )

    def _collect(
        self, pool: ProcessPool, scheduled: dict[Future, tuple[Task, float]]
    ) -> Iterator[Outcome]:
        pending = set(scheduled)
        deaths = 0  # workers that died in a row, none finishing anything in between
        while pending:
            done, pending = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
            if not done and not pool.active:
                raise self._broken()
            for future in done:
                task, scheduled_at = scheduled[future]
                outcome = self._outcome(task, future, time.monotonic() - scheduled_at)
                died = isinstance(future.exception(), ProcessExpired)
                deaths = deaths + 1 if died else 0
                if deaths > 2 * self.n_workers:
                    raise self._broken()
                yield outcome

    def _broken(self) -> WorkerPoolBroken:
        return WorkerPoolBroken(
            "grading workers keep dying before finishing a task; see "
            f"{self.log_dir or 'their stderr'}"
        )

    def _outcome(self, task: Task, future: Future, elapsed: float) -> Outcome:
        error = future.exception()
        if error is None:
            value, seconds = future.result()
            return Outcome(task.key, True, value, "", seconds)
        if isinstance(error, BrokenProcessPool):
            # every worker died before taking a task (e.g. the initializer fails)
            raise self._broken() from error
        message = failure_message(error, task.timeout)
        return Outcome(task.key, False, None, message, elapsed, error)


def failure_message(error: BaseException, timeout: float | None) -> str:
    """Readable text for a task that failed in a pebble worker: it died, it ran past its
    ``timeout`` (pebble stopped it), or it raised (with the worker's traceback)."""
    if isinstance(error, ProcessExpired):
        return f"the grading worker died (exit code {error.exitcode})"
    if isinstance(error, TimeoutError):
        return f"grading took longer than {timeout:.0f} s and was stopped"
    return f"{type(error).__name__}: {error}\n{getattr(error, 'traceback', '')}"


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
