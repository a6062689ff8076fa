"""Where a graded notebook's seconds go: the wall-clock and CPU seconds of each phase of
grading, recorded per submission (and per run), when asked for.

Off unless the environment variable ``AUTOGRADER_PROFILE`` names a file (then a run of
``python -m autograder grade`` writes the profile there as JSON, see
:func:`write_profile`); while off, :func:`phase` is one dictionary look-up and a ``yield``,
so the instrument stays in the code for good.

A phase is timed with :func:`phase` (a context manager): its wall clock, this process's
CPU time (``time.process_time``: every thread of the grading process) and, when a kernel
is given (:class:`KernelCPU`), the kernel's CPU time (its processes' own accounting, read
with psutil: the cells run in the kernel, not in the grader). Phases nest: an inner
phase's seconds are taken out of the outer one's, so the phases of a submission add up to
its total (``other`` is what no phase claimed). The grading worker starts a record per
submission (:func:`start_record`) and sends it back with the outcome (:func:`take_record`);
the grader collects them (:func:`collect`) with its own phases (intake, reports, the
gradebook it reads) and writes the profile at the end of the run.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

#: The environment variable that switches the profile on: the file it is written to.
ENV_PROFILE = "AUTOGRADER_PROFILE"

# The phases, in the order a submission meets them (the profile's rows).
INTAKE = "intake and preparation"
GRADEBOOK = "gradebook"
KERNEL_COLD = "kernel start (cold)"
KERNEL_WARM = "kernel start (warm)"
CELLS_INSTRUCTOR = "cells: instructor's"
CELLS_STUDENT = "cells: student's"
CELLS_TESTS = "cells: tests"
RECHECK = "trusted re-check"
DIAGNOSIS = "diagnosis"
SCAN = "scan"
KERNEL_STOP = "kernel stop"
NBGRADER = "nbgrader's other steps"
FEEDBACK = "feedback (nbconvert)"
REPORTS = "writing reports"
WORKER_START = "worker start"
OTHER = "other"

ORDER = (
    INTAKE,
    GRADEBOOK,
    KERNEL_COLD,
    KERNEL_WARM,
    CELLS_INSTRUCTOR,
    CELLS_STUDENT,
    CELLS_TESTS,
    RECHECK,
    DIAGNOSIS,
    SCAN,
    KERNEL_STOP,
    NBGRADER,
    FEEDBACK,
    REPORTS,
    WORKER_START,
    OTHER,
)


def enabled() -> bool:
    """Whether this process records phases (``AUTOGRADER_PROFILE`` is set)."""
    return bool(os.environ.get(ENV_PROFILE))


class KernelCPU:
    """The CPU seconds a kernel's processes have used so far (user and system, their
    waited-for children's included), read with psutil from the processes found under
    ``pid`` when :meth:`snapshot` was called (a kernel's later subprocesses count once
    it has waited for them)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self._procs: list[Any] = []
        self._last: dict[int, float] = {}
        self.snapshot()

    def snapshot(self) -> None:
        import psutil

        self._procs = []
        if self.pid is None:
            return
        try:
            root = psutil.Process(self.pid)
            self._procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            self._procs = []

    def run_delay(self) -> float:
        """Seconds the kernel's processes waited for a CPU (see :func:`run_delay`)."""
        return sum(run_delay(proc.pid) for proc in self._procs)

    def seconds(self) -> float:
        import psutil

        for proc in self._procs:
            try:
                t = proc.cpu_times()
                self._last[proc.pid] = t.user + t.system + t.children_user + t.children_system
            except psutil.Error:
                pass  # gone: its last reading stands
        return sum(self._last.values())


def run_delay(pid: int) -> float:
    """Seconds process ``pid``'s main thread has spent runnable but waiting for a CPU
    (``/proc/<pid>/task/<pid>/schedstat``); 0 when unknown. What the machine's other load
    added to a wall clock: taken out, the wall clock a quiet machine would show."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class _Frame:
    __slots__ = ("cpu", "inner", "kernel", "kernel_start", "name", "wall")

    def __init__(self, name: str, kernel: KernelCPU | None) -> None:
        self.name = name
        self.kernel = kernel
        self.kernel_start = kernel.seconds() if kernel is not None else 0.0
        self.inner = [0.0, 0.0]  # wall, cpu claimed by nested phases
        self.wall = time.perf_counter()
        self.cpu = time.process_time()


class Record:
    """One submission's (or the run's) phases: name -> [wall, cpu, kernel cpu, count]."""

    def __init__(self) -> None:
        self.phases: dict[str, list[float]] = {}
        # when, for the run's timeline; its end is this instant plus the monotonic clock's
        # seconds, so that a preemption between two clock readings never makes the
        # timeline's length disagree with the record's wall time
        self.began = time.time()
        self.started = (time.perf_counter(), time.process_time())
        self.delay = run_delay(os.getpid())
        self.kernel_delay = 0.0

    def add(self, name: str, wall: float, cpu: float, kernel: float = 0.0) -> None:
        row = self.phases.setdefault(name, [0.0, 0.0, 0.0, 0])
        row[0] += wall
        row[1] += cpu
        row[2] += kernel
        row[3] += 1

    def as_dict(self) -> dict[str, Any]:
        """The phases and the record's whole time, ``other`` being what no phase claimed."""
        wall = time.perf_counter() - self.started[0]
        cpu = time.process_time() - self.started[1]
        phases = {
            name: [round(v[0], 6), round(v[1], 6), round(v[2], 6), v[3]]
            for name, v in self.phases.items()
        }
        claimed_wall = sum(v[0] for v in self.phases.values())
        claimed_cpu = sum(v[1] for v in self.phases.values())
        phases[OTHER] = [round(wall - claimed_wall, 6), round(cpu - claimed_cpu, 6), 0.0, 1]
        return {
            "wall": round(wall, 6),
            "cpu": round(cpu, 6),
            "began": round(self.began, 6),
            "ended": round(self.began + wall, 6),
            "phases": phases,
            # seconds the grading process's main thread and the kernels waited for a CPU
            "waits": [
                round(run_delay(os.getpid()) - self.delay, 6),
                round(self.kernel_delay, 6),
            ],
        }


_STATE: dict[str, Any] = {"record": None}
_LOCAL = threading.local()


def start_record() -> Record | None:
    """Start this process's record of the next submission (None when the profile is off)."""
    _STATE["record"] = Record() if enabled() else None
    return _STATE["record"]


def take_record() -> dict[str, Any] | None:
    """The current record as plain data (sent back with a submission's outcome), and stop
    it; the first record of a worker carries the worker's start (:func:`worker_started`)."""
    record, _STATE["record"] = _STATE["record"], None
    if record is None:
        return None
    data = record.as_dict()
    start = _STATE.pop("worker_start", None)
    if start is not None:
        template = _STATE.get("template")
        data["worker_start"] = [*start, tree_cpu(template() if template else None)]
    return data


def tree_cpu(pid: int | None) -> float:
    """The CPU seconds process ``pid`` and its descendants have used themselves (not the
    children they waited for: a warm kernel template's own imports, not its kernels)."""
    import psutil

    if pid is None:
        return 0.0
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return round(total, 6)


def worker_template(pid: Callable[[], int | None]) -> None:
    """Where this worker's warm kernel template runs (its process id, asked for when the
    worker's first submission is done): its CPU counts with the worker's start."""
    _STATE["template"] = pid


def worker_started() -> None:
    """A grading worker's own start, from its process's start until now (its imports, its
    warm kernels launched): a cost per worker, not per submission, reported with the
    worker's first submission."""
    if enabled():
        import psutil

        wall = time.time() - psutil.Process().create_time()
        _STATE["worker_start"] = [round(wall, 6), round(time.process_time(), 6)]


@contextlib.contextmanager
def phase(name: str, kernel: KernelCPU | None = None) -> Iterator[None]:
    """Time the block as phase ``name`` of the current record (nothing when none is kept)."""
    record = _STATE["record"]
    if record is None:
        yield
        return
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    frame = _Frame(name, kernel)
    stack.append(frame)
    try:
        yield
    finally:
        wall = time.perf_counter() - frame.wall
        cpu = time.process_time() - frame.cpu
        kernel_cpu = kernel.seconds() - frame.kernel_start if kernel is not None else 0.0
        while stack and stack.pop() is not frame:
            pass
        if stack:
            stack[-1].inner[0] += wall
            stack[-1].inner[1] += cpu
        if _STATE["record"] is record:
            record.add(name, wall - frame.inner[0], cpu - frame.inner[1], kernel_cpu)


def add(name: str, wall: float, cpu: float, kernel: float = 0.0) -> None:
    """Add a phase timed by the caller (it began and ended in different calls) to the
    current record, taking its seconds out of the enclosing phase's."""
    record = _STATE["record"]
    if record is None:
        return
    stack = getattr(_LOCAL, "stack", None)
    if stack:
        stack[-1].inner[0] += wall
        stack[-1].inner[1] += cpu
    record.add(name, wall, cpu, kernel)


def cell_phase(cell: Any) -> str:
    """The phase a code cell's execution belongs to: the student's answer, a test cell (an
    autograded one, nbgrader's "grade" without "solution"), else the instructor's code."""
    from nbgrader.utils import is_grade, is_solution

    if is_solution(cell):
        return CELLS_STUDENT
    if is_grade(cell):
        return CELLS_TESTS
    return CELLS_INSTRUCTOR


# The base of the grader's mixins for nbgrader's Execute (TimedCells here, KernelStartRetry,
# KernelRestarts): to a type checker nbconvert's ExecutePreprocessor, which Execute is, so
# that their super() calls and attributes are checked; at run time nothing.
if TYPE_CHECKING:
    from nbconvert.preprocessors import ExecutePreprocessor as ExecutorMixinBase
else:
    ExecutorMixinBase = object


class TimedCells(ExecutorMixinBase):
    """A mixin for nbgrader's ``Execute`` (nbclient's ``NotebookClient``) that times the
    kernel's start (warm: forked from a template; cold), each cell by its kind (with the
    kernel's CPU) and the kernel's stop, when the profile is on."""

    kernel_cpu: KernelCPU | None = None
    _start_clock: tuple[float, float] | None = None

    def start_new_kernel(self, **kwargs: Any) -> Any:
        self._start_clock = (time.perf_counter(), time.process_time())
        return super().start_new_kernel(**kwargs)

    def start_new_kernel_client(self) -> Any:
        client = super().start_new_kernel_client()
        if _STATE["record"] is not None and self._start_clock is not None:
            provisioner = getattr(getattr(self, "km", None), "provisioner", None)
            process = getattr(provisioner, "process", None)
            self.kernel_cpu = KernelCPU(getattr(provisioner, "pid", None))
            warm = type(process).__name__ == "ForkedKernelProcess"
            wall = time.perf_counter() - self._start_clock[0]
            cpu = time.process_time() - self._start_clock[1]
            add(KERNEL_WARM if warm else KERNEL_COLD, wall, cpu, self.kernel_cpu.seconds())
        self._start_clock = None
        return client

    def preprocess_cell(self, cell: Any, resources: Any, index: int) -> Any:
        if _STATE["record"] is None:
            return super().preprocess_cell(cell, resources, index)
        with phase(cell_phase(cell), self.kernel_cpu):
            return super().preprocess_cell(cell, resources, index)

    def _cleanup_kernel(self) -> None:
        record = _STATE["record"]
        if record is not None and self.kernel_cpu is not None:
            record.kernel_delay += self.kernel_cpu.run_delay()  # before the kernel is gone
        with phase(KERNEL_STOP):
            super()._cleanup_kernel()


# ------------------------------------------------------------------ the grader's side

_COLLECTED: dict[str, Any] = {"submissions": [], "workers": []}


def collect(
    assignment: str,
    student: str,
    record: dict[str, Any] | None,
    canary: bool,
    held: bool = False,
) -> None:
    """Keep a submission's record (from its outcome) for :func:`write_profile`; ``held``:
    graded beside the canary, before its verdict (:mod:`autograder.grading.hold`)."""
    if record:
        _COLLECTED["submissions"].append(
            {"assignment": assignment, "student": student, "canary": canary, "held": held} | record
        )


def write_profile() -> None:
    """Write the collected records and the grader's own (this process's current record,
    which it ends) to the file ``AUTOGRADER_PROFILE`` names."""
    target = os.environ.get(ENV_PROFILE)
    if not target:
        return
    data = {"submissions": _COLLECTED["submissions"], "run": take_record()}
    _COLLECTED["submissions"] = []
    Path(target).write_text(json.dumps(data, indent=1), encoding="utf-8")
