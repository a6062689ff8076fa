"""The canary's cost: what grading the instructor's solution of each assignment before the
class adds to a run.

``python -m benchmarks canary`` or ``python -m benchmarks.bench_canary [--per-notebook N]
[--assignment A ...] [--workers N] [--repeats R] [--unsandboxed]``.

The batch: ``--per-notebook`` submissions of every notebook (default 4; the instructor's
solution and the ``autograder.samples`` variants, :func:`benchmarks.bench_grading.
build_batch`), graded by :func:`autograder.grading.grade_prepared` as ``python -m autograder
grade`` grades them (sandboxed by default, every submission graded: no ledger), once with
the canaries of :func:`autograder.api.instructor_submissions` and once without, in
alternating order ``--repeats`` times. Printed per run: wall seconds, CPU seconds of the
grader and its workers (a sandboxed kernel's CPU does not reach this process tree's
accounting), and with the canary the canary step's wall seconds (from the workers' start
until its verdict: the first notebook of each worker pays the worker's start, as the class
would without the canary); then the medians and the difference, the canary's cost per run.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autograder.api import instructor_submissions
from autograder.course import Course, list_assignments
from autograder.grading import default_workers, grade_prepared
from autograder.intake import prepare, read_submissions
from autograder.options import GradeOptions
from autograder.sandbox import sandbox_status
from benchmarks.bench_grading import build_batch


def _cpu() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_canary")
    parser.add_argument("--per-notebook", type=int, default=4)
    parser.add_argument("--assignment", action="append")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--unsandboxed", action="store_true")
    args = parser.parse_args([] if argv is None else argv)
    workers = args.workers or default_workers()
    assignments = args.assignment or list_assignments()
    sandbox = not args.unsandboxed
    if sandbox and not sandbox_status()[0]:
        print(f"sandbox unavailable ({sandbox_status()[1]}): measuring without it")
        sandbox = False
    root = Path(tempfile.mkdtemp(prefix="bench-canary-"))
    try:
        course = Course(root / "c" / "course").make(assignments)
        for assignment in assignments:
            course.release(assignment)
        batch = build_batch(course.root, assignments, args.per_notebook)
        raws = read_submissions(batch)
        prepared = []
        for raw in raws:
            assert raw.assignment is not None  # nbgrader's layout names each one's assignment
            prepared.append(prepare(raw, raw.assignment, [raw.assignment]))
        canaries = instructor_submissions(course, assignments)
        n = len(prepared)
        print(
            f"batch: {n} notebooks ({args.per_notebook} per notebook x {len(assignments)}), "
            f"{'sandboxed' if sandbox else 'unsandboxed'}, {workers} workers; "
            f"canary: {len(canaries)} notebooks"
        )
        runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        steps: list[float] = []
        for repeat in range(args.repeats):
            for with_canary in (True, False) if repeat % 2 == 0 else (False, True):
                start, cpu = time.monotonic(), _cpu()
                grade_prepared(
                    course,
                    prepared,
                    GradeOptions(workers=workers, sandbox=sandbox, feedback=False),
                    canaries=canaries if with_canary else (),
                    on_canary=lambda _a, seconds: steps.append(seconds),
                )
                wall, used = time.monotonic() - start, _cpu() - cpu
                runs[with_canary].append((wall, used))
                step = f"  canary step {steps[-1]:5.1f} s" if with_canary else ""
                label = "with canary" if with_canary else "without"
                print(f"  {label:12}: {wall:6.1f} s wall  {used:6.1f} CPU s{step}", flush=True)
        on = [statistics.median(x) for x in zip(*runs[True], strict=True)]
        off = [statistics.median(x) for x in zip(*runs[False], strict=True)]
        print(
            f"median: with canary {on[0]:.1f} s wall / {on[1]:.1f} CPU s, without "
            f"{off[0]:.1f} s / {off[1]:.1f} CPU s; canary step {statistics.median(steps):.1f} s"
        )
        print(
            f"the canary's cost per run: {on[0] - off[0]:+.1f} s wall ({len(canaries)} "
            f"notebooks, {(on[0] - off[0]) / max(off[0], 1e-9):+.1%} of this batch), "
            f"{on[1] - off[1]:+.1f} CPU s of the grader and its workers"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
