"""How long each source notebook takes to execute in a fresh kernel.

Run with ``./run times`` (or ``python -m benchmarks.notebook_times [--repeat N] [NAME ...]``).
Each notebook in ``notebooks/*/*.ipynb`` is executed ``--repeat`` times (default 3), each
time in a new kernel, exactly as nbval and nbgrader run it; the table gives the median of
the wall-clock time including kernel start-up ("total"), of the time from the first
cell's start to the last cell's end ("cells"), and of the kernel's CPU time ("cpu", which
other work on the machine disturbs much less than the wall clock). The course's budget
is 8 s per notebook on a 2-core machine; wall-clock figures taken while other work runs
on the machine are noisy.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from course_common.paths import NOTEBOOKS_DIR

BUDGET_SECONDS = 8.0


def notebooks(names: Sequence[str] = ()) -> list[Path]:
    """Source notebooks, optionally only those whose name contains one of *names*."""
    found = sorted(NOTEBOOKS_DIR.glob("*/*.ipynb"))
    if names:
        found = [p for p in found if any(n in p.stem for n in names)]
    return found


def _cells_seconds(nb: nbformat.NotebookNode) -> float:
    """First cell start to last cell end, from nbclient's recorded timestamps."""
    starts, ends = [], []
    for cell in nb.cells:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in timing and "shell.execute_reply" in timing:
            starts.append(datetime.fromisoformat(timing["iopub.execute_input"].rstrip("Z")))
            ends.append(datetime.fromisoformat(timing["shell.execute_reply"].rstrip("Z")))
    if not starts:
        return float("nan")
    return (max(ends) - min(starts)).total_seconds()


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_notebook(path: Path, repeat: int = 3, timeout: int = 120) -> tuple[float, float, float]:
    """Median (total, cells, kernel CPU) seconds over *repeat* runs, each in a fresh kernel.

    The kernel's CPU time (user + system, read from the finished child process) is much
    less sensitive than wall-clock time to other work on a shared machine.
    """
    totals, cells, cpus = [], [], []
    for _ in range(repeat):
        cpu_before = _children_cpu_seconds()
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            record_timing=True,
            resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        client.execute()
        totals.append(time.perf_counter() - start)
        cells.append(_cells_seconds(nb))
        cpus.append(_children_cpu_seconds() - cpu_before)
    return statistics.median(totals), statistics.median(cells), statistics.median(cpus)


def main(argv: Sequence[str] | None = None) -> int:
    """Print a table of execution times; exit status 1 if a notebook is over budget."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only notebooks whose name contains these")
    parser.add_argument("--repeat", type=int, default=3, help="executions per notebook")
    # No argv means "all notebooks", not sys.argv: callers such as `python -m autograder
    # times` have their own command line.
    args = parser.parse_args([] if argv is None else list(argv))
    # The notebooks select the inline backend themselves; an inherited non-interactive
    # backend (./run exports MPLBACKEND=Agg) must not leak into the kernels' start-up.
    os.environ.pop("MPLBACKEND", None)
    paths = notebooks(args.names)
    if not paths:
        print("no notebooks found", file=sys.stderr)
        return 2
    print(
        f"{'notebook':<28} {'total s':>8} {'cells s':>8} {'cpu s':>8}   (median of {args.repeat})"
    )
    over = []
    for path in paths:
        total, cells, cpu = time_notebook(path, repeat=args.repeat)
        flag = "" if total <= BUDGET_SECONDS else f"  over the {BUDGET_SECONDS:g} s budget"
        print(f"{path.stem:<28} {total:8.2f} {cells:8.2f} {cpu:8.2f}{flag}", flush=True)
        if flag:
            over.append(path.stem)
    print(f"cpu count: {os.cpu_count()}; the machine may be shared, so figures are noisy.")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
