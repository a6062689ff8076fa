"""Grading throughput: this autograder against stock ``nbgrader autograde``, same batch.

``python -m benchmarks grading`` (defaults) or ``python -m benchmarks.bench_grading
[--per-notebook N] [--workers N] [--unsandboxed] [--assignment A ...] [--keep DIR]``.

The batch: for every notebook, ``--per-notebook`` submissions (default 12) cycling through
the instructor's solution and the ``autograder.samples`` variants (correct and buggy). Stock
nbgrader grades it with its real command line (``nbgrader autograde <assignment>`` per
assignment, one after another, as an instructor would run it) in one course directory; this
autograder grades the same files with ``python -m autograder grade`` in another. Both
course directories are released from the same source first (not timed). Printed: wall
seconds, notebooks per minute, and the ratio ours/stock; plus whether both gave the same
scores (they differ where stock nbgrader scores a correct answer 0 because it warned on
stderr). On a shared machine the times are noisy; the lead takes the final figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import nbgrading
from autograder.submissions import notebook_bytes


def build_batch(course_dir: Path, assignments: list[str], per_notebook: int) -> Path:
    """Write the batch in nbgrader's submitted layout; returns the folder."""
    from autograder.samples import VARIANTS, make_submission

    batch = course_dir.parent / "batch"
    for assignment in assignments:
        release_nb = course_dir / "release" / assignment / f"{assignment}.ipynb"
        source_nb = course_dir / "source" / assignment / f"{assignment}.ipynb"
        replacements = [{}] + [dict(v.replace) for v in VARIANTS.get(assignment, [])]
        for i in range(per_notebook):
            nb = make_submission(release_nb, source_nb, replacements[i % len(replacements)])
            folder = batch / f"student{i:03d}" / assignment
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{assignment}.ipynb").write_bytes(notebook_bytes(nb))
    return batch


def _env() -> dict[str, str]:
    env = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_stock(course_dir: Path, batch: Path, assignments: list[str]) -> tuple[float, float]:
    """Copy the batch into submitted/ and time ``nbgrader autograde`` per assignment."""
    shutil.copytree(batch, course_dir / "submitted", dirs_exist_ok=True)
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    cpu = _children_cpu()
    start = time.perf_counter()
    for assignment in assignments:
        proc = subprocess.run(
            [nbgrader, "autograde", assignment, "--force"],
            cwd=course_dir,
            env=_env(),
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            # stock nbgrader exits non-zero when any submission failed; it still graded
            # the others, which is what is timed
            tail = proc.stderr.strip().splitlines()[-1:] or [""]
            print(f"  (nbgrader autograde {assignment} exit {proc.returncode}: {tail[0]})")
    return time.perf_counter() - start, _children_cpu() - cpu


def run_ours(
    course_dir: Path, batch: Path, out_dir: Path, workers: int, sandbox: bool
) -> tuple[float, float]:
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        str(batch),
        "--course",
        str(course_dir),
        "--out",
        str(out_dir),
        "--workers",
        str(workers),
        "--no-feedback",
        "--no-progress",
    ]
    if not sandbox:
        command.append("--unsandboxed")
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(command, env=_env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"autograder grade failed:\n{proc.stderr[-2000:]}")
    return elapsed, _children_cpu() - cpu


def totals(course_dir: Path, assignments: list[str], students: list[str]) -> dict:
    scores = {}
    for assignment in assignments:
        for student, per_test in nbgrading.read_scores(course_dir, assignment, students).items():
            scores[(assignment, student)] = sum(s for s, _ in per_test.values())
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_grading")
    parser.add_argument("--per-notebook", type=int, default=12)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--unsandboxed", action="store_true")
    parser.add_argument("--assignment", action="append")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--skip-stock", action="store_true")
    args = parser.parse_args([] if argv is None else argv)
    from autograder.workers import default_workers

    workers = args.workers or default_workers()
    assignments = args.assignment or nbgrading.list_assignments()
    sandbox = not args.unsandboxed
    if sandbox and not nbgrading.sandbox_status()[0]:
        print(f"sandbox unavailable ({nbgrading.sandbox_status()[1]}); grading unsandboxed")
        sandbox = False
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-grading-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        ours_dir, stock_dir = root / "ours" / "course", root / "stock" / "course"
        for course in (ours_dir, stock_dir):
            if course.exists():
                shutil.rmtree(course)
            nbgrading.make_course(course, assignments)
            for assignment in assignments:
                nbgrading.release_assignment(course, assignment)
        batch = build_batch(ours_dir, assignments, args.per_notebook)
        n = len(assignments) * args.per_notebook
        print(
            f"batch: {n} notebooks ({args.per_notebook} per notebook x {len(assignments)}); "
            f"ours: {workers} workers, sandbox {'on' if sandbox else 'off'}; cores: "
            f"{default_workers()}"
        )
        ours, ours_cpu = run_ours(ours_dir, batch, root / "out", workers, sandbox)
        line = "  {:5}: {:7.1f} s wall  {:6.1f} notebooks/min  {:5.2f} CPU s per notebook"
        print(line.format("ours", ours, 60 * n / ours, ours_cpu / n))
        if args.skip_stock:
            return 0
        stock, stock_cpu = run_stock(stock_dir, batch, assignments)
        print(line.format("stock", stock, 60 * n / stock, stock_cpu / n))
        print(f"throughput ratio ours/stock: {stock / ours:.2f}x (wall clock)")
        # on a busy machine wall clock mostly measures the other load; CPU per notebook
        # does not: with the same cores, ideal throughput goes as 1 / CPU per notebook
        print(
            f"CPU per notebook stock/ours: {stock_cpu / ours_cpu:.2f}x "
            f"(x {workers} workers = {workers * stock_cpu / ours_cpu:.2f}x ideal on "
            f"{default_workers()} cores)"
        )
        students = sorted(p.name for p in batch.iterdir())
        a, b = totals(ours_dir, assignments, students), totals(stock_dir, assignments, students)
        differ = sorted(k for k in a if abs(a[k] - b.get(k, -1)) > 1e-9)
        print(f"same total score for {len(a) - len(differ)} of {len(a)} submissions", end="")
        print(f"; differ: {differ[:6]}" if differ else "")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
