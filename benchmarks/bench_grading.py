"""Grading throughput: this autograder against stock ``nbgrader autograde``, same batch.

``python -m benchmarks grading`` (defaults) or ``python -m benchmarks.bench_grading
[--per-notebook N] [--workers N] [--mode both|sandbox|unsandboxed] [--assignment A ...]
[--keep DIR] [--source DIR [--copies N]]``.

``--source DIR``: another nbgrader course (its root, as ``python -m autograder grade
--source`` takes it); the batch is its own class, ``DIR/submitted/``, ``--copies`` times
over (default 10), each copy under new student ids.

``--instructor``: the ratio as an instructor meets it: every other submission the blank
release (students who handed in nothing of their own), feedback pages on both sides (stock:
``nbgrader autograde`` then ``nbgrader generate_feedback`` per assignment), and our time
including building the course folder from the source (stock's course folder is released
first, untimed, as an instructor releases it before the students hand in); with
``--per-notebook 6``, a class of 42 notebooks.

The batch: for every notebook, ``--per-notebook`` submissions (default 12) cycling through
the instructor's solution and the ``autograder.samples`` variants (correct and buggy). Stock
nbgrader grades it with its real command line (``nbgrader autograde <assignment>`` per
assignment, one after another, as an instructor would run it) in one course directory; this
autograder grades the same files with ``python -m autograder grade`` in another, once
with the sandbox and trusted re-check and once without (``--mode``); its times include its
canary (the instructor's solution of each assignment, graded first), whose step is
printed too. All course
directories are released from the same source first (not timed). Printed: wall seconds,
notebooks per minute and CPU seconds per notebook (the grader and its kernels), the ratio
ours/stock of throughput and of CPU per notebook, and whether the scores agree with stock
(they differ where stock nbgrader scores a correct answer 0 because it warned on stderr).
On a shared machine the wall-clock figures mostly measure the other load; the lead takes
the final figures on a quiet machine.
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

from autograder.course import Course, list_assignments
from autograder.grading import default_workers
from autograder.notebook import notebook_bytes
from autograder.options import GradeOptions
from autograder.phases import ENV_PROFILE
from autograder.release import ensure_released
from autograder.sandbox import sandbox_status
from autograder.source import CourseSource
from benchmarks.environment import child_env
from benchmarks.machine import BusySampler


def build_batch(
    course_dir: Path, assignments: list[str], per_notebook: int, blank_half: bool = False
) -> Path:
    """Write the batch in nbgrader's submitted layout; returns the folder. ``blank_half``:
    every other submission is the release as handed out."""
    from autograder.samples import VARIANTS, make_submission

    batch = course_dir.parent.parent / "batch"
    for assignment in assignments:
        release_nb = course_dir / "release" / assignment / f"{assignment}.ipynb"
        source_nb = course_dir / "source" / assignment / f"{assignment}.ipynb"
        replacements: list[dict[str, str]] = [{}]
        replacements += [dict(v.replace) for v in VARIANTS.get(assignment, [])]
        for i in range(per_notebook):
            folder = batch / f"student{i:03d}" / assignment
            folder.mkdir(parents=True, exist_ok=True)
            if blank_half and i % 2:
                shutil.copyfile(release_nb, folder / f"{assignment}.ipynb")
                continue
            j = i // 2 if blank_half else i
            nb = make_submission(release_nb, source_nb, replacements[j % len(replacements)])
            (folder / f"{assignment}.ipynb").write_bytes(notebook_bytes(nb))
    return batch


def copy_class(submitted: Path, dest: Path, copies: int) -> Path:
    """A course's own class (nbgrader's submitted layout) *copies* times over, each copy's
    students renamed (``<student>-<n>``); returns the batch folder."""
    for number in range(1, copies + 1):
        for student in sorted(p for p in submitted.iterdir() if p.is_dir()):
            shutil.copytree(student, dest / f"{student.name}-{number:02d}")
    return dest


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_stock(
    course_dir: Path, batch: Path, assignments: list[str], feedback: bool = False
) -> tuple[float, float]:
    """Copy the batch into submitted/ and time ``nbgrader autograde`` per assignment (with
    ``feedback``, then ``nbgrader generate_feedback`` per assignment)."""
    shutil.copytree(batch, course_dir / "submitted", dirs_exist_ok=True)
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    cpu = _children_cpu()
    start = time.perf_counter()
    for assignment in assignments:
        proc = subprocess.run(
            [nbgrader, "autograde", assignment, "--force"],
            cwd=course_dir,
            env=child_env(),
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            # stock nbgrader exits non-zero when any submission failed; it still graded
            # the others, which is what is timed
            tail = proc.stderr.strip().splitlines()[-1:] or [""]
            print(f"  (nbgrader autograde {assignment} exit {proc.returncode}: {tail[0]})")
    for assignment in assignments if feedback else []:
        proc = subprocess.run(
            [nbgrader, "generate_feedback", assignment, "--force"],
            cwd=course_dir,
            env=child_env(),
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or [""]
            print(f"  (nbgrader generate_feedback {assignment} exit {proc.returncode}: {tail[0]})")
    return time.perf_counter() - start, _children_cpu() - cpu


def run_ours(
    batch: Path,
    options: GradeOptions,
    profile: Path | None = None,
    spans: dict[str, tuple[float, float, BusySampler]] | None = None,
) -> tuple[float, float]:
    """Time ``python -m autograder grade`` on the batch with the command line of
    ``options`` (those a timed run sets: the course, the output folder, the workers, the
    sandbox, the feedback and ``regrade`` True, to grade again what the course's ledger
    holds in a second run on the same course; never a progress bar): (wall, CPU of its
    process tree); ``spans``: filled with the run's (start, end, the machine's busy cores
    sampled) under the key ``"run"``, for the profile's timeline."""
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        str(batch),
        "--course",
        str(options.course_dir),
        "--out",
        str(options.out_dir),
        "--workers",
        str(options.workers),
        "--no-progress",
    ]
    if not options.feedback:
        command.append("--no-feedback")
    if options.regrade is True:
        command.append("--regrade")
    if not options.sandbox:
        command.append("--unsandboxed")
    if options.source is not None:
        command += ["--source", str(options.source.root)]
    env = child_env()
    if profile is not None:
        env[ENV_PROFILE] = str(profile)
    cpu = _children_cpu()
    with BusySampler() as busy:
        began = time.time()
        start = time.perf_counter()
        proc = subprocess.run(command, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        ended = time.time()
    if spans is not None:
        spans["run"] = (began, ended, busy)
    if proc.returncode != 0:
        raise RuntimeError(f"autograder grade failed:\n{proc.stderr[-2000:]}")
    for line in proc.stderr.splitlines():  # the canary's step, included in the wall time
        if line.startswith("grading environment checked"):
            print(f"    ({line.split(': ', 1)[0]}: {line.rsplit('(', 1)[-1].rstrip(')')})")
    return elapsed, _children_cpu() - cpu


def totals(
    course_dir: Path, assignments: list[str], students: list[str], source: CourseSource | None
) -> dict:
    scores = {}
    course = Course(course_dir, source=source)
    for assignment in assignments:
        for student, per_test in course.read_scores(assignment, students).items():
            scores[(assignment, student)] = sum(s for s, _ in per_test.values())
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_grading")
    parser.add_argument("--per-notebook", type=int, default=12)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument(
        "--mode",
        choices=["both", "sandbox", "unsandboxed"],
        default="both",
        help="grade with the sandbox (and trusted re-check), without, or both (default)",
    )
    parser.add_argument("--assignment", action="append")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--skip-stock", action="store_true")
    parser.add_argument(
        "--source",
        type=Path,
        metavar="DIR",
        help="another nbgrader course (its root): its own class, submitted/, is the batch",
    )
    parser.add_argument(
        "--copies", type=int, default=10, help="with --source: the class this many times over"
    )
    parser.add_argument(
        "--instructor",
        action="store_true",
        help="as an instructor meets it: half the class blank, feedback pages on both sides, "
        "our course folder built from the source in the timed run",
    )
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="with --profile: also grade with one worker, and print the ratio at 1 and at "
        "--workers, and the model of it at 4, 8 and 16 cores",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also print where our grader's seconds go, phase by phase, and the floor: the "
        "CPU seconds the notebooks' own cells need in a warm kernel",
    )
    args = parser.parse_args([] if argv is None else argv)
    workers = args.workers or default_workers()
    source = CourseSource.open(args.source) if args.source is not None else None
    if source is not None:
        assignments = args.assignment or source.assignments()
    else:
        assignments = args.assignment or list_assignments()
    modes = {"both": [False, True], "sandbox": [True], "unsandboxed": [False]}[args.mode]
    available, reason = sandbox_status()
    if True in modes and not available:
        print(f"sandbox unavailable ({reason}): measuring without it only")
        modes = [False]
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-grading-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        courses = {"stock": root / "stock" / "course"}
        for sandbox in modes:
            courses[_label(sandbox)] = root / _label(sandbox).replace(" ", "-") / "course"
        for name, course in courses.items():
            if course.exists():
                shutil.rmtree(course)
            if name == "stock" and source is not None:
                # the instructor's own course, released by nbgrader's command line
                shutil.copytree(source.root, course, ignore=shutil.ignore_patterns("submitted"))
                for assignment in assignments:
                    _nbgrader(course, "generate_assignment", assignment, "--force")
            elif name == "stock":
                built = Course(course).make(assignments, stock=True)
                for assignment in assignments:
                    built.release(assignment)
            elif not args.instructor:
                # as `python -m autograder release` leaves it (with its stamps and the
                # students' zips): the timed run grades, it does not release again
                ensure_released(Course(course, source=source), assignments)
        if source is not None:
            batch = copy_class(source.root / "submitted", root / "batch", args.copies)
            n = len(list(batch.glob("*/*/*.ipynb")))
            what = f"{args.copies} copies of {source.root.name}'s class"
        else:
            batch = build_batch(
                courses["stock"], assignments, args.per_notebook, blank_half=args.instructor
            )
            n = len(assignments) * args.per_notebook
            what = f"{args.per_notebook} per notebook x {len(assignments)}"
            if args.instructor:
                what += ", half of them blank; feedback pages; our course folder built"
        print(
            f"batch: {n} notebooks ({what}); "
            f"ours: {workers} workers; cores: {default_workers()}; load average "
            + " ".join(f"{x:.1f}" for x in os.getloadavg())
        )
        line = "  {:16}: {:7.1f} s wall  {:6.1f} notebooks/min  {:5.2f} CPU s per notebook"
        timings: dict[str, tuple[float, float]] = {}
        spans: dict[str, dict[str, tuple[float, float, BusySampler]]] = {}
        if not args.skip_stock:
            timings["stock"] = run_stock(
                courses["stock"], batch, assignments, feedback=args.instructor
            )
            print(line.format("stock nbgrader", timings["stock"][0], *_rates(timings["stock"], n)))
        for sandbox in modes:
            label = _label(sandbox)
            profile = root / f"profile-{label.replace(' ', '-')}.json" if args.profile else None
            spans[label] = {}
            # no feedback pages: stock nbgrader's autograde writes none (as an instructor
            # meets it, both write them)
            options = GradeOptions(
                course_dir=courses[label],
                out_dir=root / "out",
                workers=workers,
                sandbox=sandbox,
                feedback=args.instructor,
                source=source if args.instructor else None,
            )
            timings[label] = run_ours(batch, options, profile, spans[label])
            text = line.format(label, timings[label][0], *_rates(timings[label], n))
            if sandbox:
                # a sandboxed kernel runs under another uid in its own PID namespace; its
                # CPU time does not reach this process tree's accounting
                text = text.rsplit("  ", 1)[0] + "  (CPU of sandboxed kernels not counted)"
            print(text)
        students = sorted(p.name for p in batch.iterdir())
        if "stock" in timings:
            stock_wall, stock_cpu = timings["stock"]
            reference = totals(courses["stock"], assignments, students, source)
            for sandbox in modes:
                label = _label(sandbox)
                wall, cpu = timings[label]
                # on a busy machine wall clock mostly measures the other load; CPU per
                # notebook does not: on the same cores, ideal throughput is 1 / CPU each
                cpu_ratio = f"; CPU per notebook stock/ours {stock_cpu / cpu:.2f}x"
                cpu_ratio = "" if sandbox else cpu_ratio
                print(
                    f"{label}: throughput ratio ours/stock {stock_wall / wall:.2f}x "
                    f"(wall clock){cpu_ratio}"
                )
                got = totals(courses[label], assignments, students, None)
                differ = sorted(k for k in got if abs(got[k] - reference.get(k, -1)) > 1e-9)
                print(f"  same total score as stock for {len(got) - len(differ)} of {len(got)}")
                if differ:
                    print(f"  differ: {differ[:6]}")
        if args.profile:
            print_profile(root, modes, timings, batch, courses, n, spans, workers)
        if args.profile and args.scaling and True in modes and "stock" in timings:
            print_scaling(root, timings, batch, courses, n, spans, workers)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def print_profile(
    root: Path,
    modes: list[bool],
    timings: dict[str, tuple[float, float]],
    batch: Path,
    courses: dict[str, Path],
    n: int,
    spans: dict[str, dict[str, tuple[float, float, BusySampler]]],
    workers: int,
) -> None:
    """The profile of each of our runs, its timeline, the floor, and the ratios side by
    side."""
    from benchmarks import grading_profile as gp

    summaries = {}
    for sandbox in modes:
        label = _label(sandbox)
        profile = gp.load(root / f"profile-{label.replace(' ', '-')}.json")
        summaries[label] = gp.summarise(profile)
        print(f"\nprofile, {label}:\n")
        print(gp.profile_tables(summaries[label]))
        began, ended, busy = spans[label]["run"]
        print()
        print(gp.timeline(profile, busy, began, ended, default_workers(), workers))
    source = next(iter(courses.values())) / "source"
    floors = gp.measure_floor(batch, source)
    floor = sum(sum(v) for v in floors.values())
    print(
        f"\nfloor: the notebooks' own cells, run once each in a warm kernel: {floor:.1f} CPU s "
        f"({floor / n:.3f} per notebook); per notebook: "
        + ", ".join(f"{a[:2]} {sum(v) / len(v):.3f}" for a, v in sorted(floors.items()))
    )
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    for label, summary in summaries.items():
        cpu = gp.run_cpu(summary)
        wall = timings[label][0]
        stock = timings.get("stock")
        ratio = "stock not run"
        if stock:
            ratio = (
                f"{stock[0] / wall:.2f}x stock nbgrader (wall clock; stock {stock[1] / n:.3f} "
                f"CPU s per notebook: {stock[1] / cpu:.2f}x ours)"
            )
        print(
            f"{label}: {ratio}; {cpu:.1f} CPU s = {cpu / floor:.2f}x the floor "
            f"({cpu / n:.3f} CPU s per notebook against {floor / n:.3f}); "
            f"load average {load}"
        )
        began, ended, busy = spans[label]["run"]
        used = busy.busy(began, ended)
        cores = default_workers()
        idle = max(cores * (ended - began) - used, 0.0)
        stock_wall = stock[0] if stock else None
        print(gp.targets(summary, n, floor, wall, stock_wall, used, idle, cores))


def print_scaling(
    root: Path,
    timings: dict[str, tuple[float, float]],
    batch: Path,
    courses: dict[str, Path],
    n: int,
    spans: dict[str, dict[str, tuple[float, float, BusySampler]]],
    workers: int,
) -> None:
    """Our sandboxed run again with one worker, in the same run as the others: the ratio
    at 1 and at ``workers``, measured, and the model of it at 4, 8 and 16 cores (from the
    ``workers`` run's profile: stock nbgrader is sequential, ours spreads its CPU)."""
    from benchmarks import grading_profile as gp

    label = _label(True)
    stock = timings["stock"][0]
    profile = root / "profile-one-worker.json"
    shutil.rmtree(root / "out", ignore_errors=True)
    single: dict[str, tuple[float, float, BusySampler]] = {}
    options = GradeOptions(
        course_dir=courses[label], out_dir=root / "out", workers=1, feedback=False, regrade=True
    )
    wall, _ = run_ours(batch, options, profile, single)
    print(f"\nours sandboxed, 1 worker: {wall:.1f} s, {stock / wall:.2f}x stock nbgrader")
    print(
        f"ours sandboxed, {workers} workers: {timings[label][0]:.1f} s, "
        f"{stock / timings[label][0]:.2f}x stock nbgrader"
    )
    summary = gp.summarise(gp.load(root / f"profile-{label.replace(' ', '-')}.json"))
    began, ended, _ = spans[label]["run"]
    first, last = gp.span(gp.load(root / f"profile-{label.replace(' ', '-')}.json")) or (
        began,
        ended,
    )
    serial = (first - began) + (ended - last)
    print(
        f"\nThe model (from the {workers}-worker run: {serial:.1f} s before the first "
        f"notebook and after the last; stock {stock:.1f} s):\n"
    )
    print(gp.model(summary, serial, stock, [1, workers, 4, 8, 16]))


def _nbgrader(course: Path, *args: str) -> None:
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    proc = subprocess.run(
        [nbgrader, *args], cwd=course, env=child_env(), capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{proc.stderr[-2000:]}")


def _label(sandbox: bool) -> str:
    return "ours sandboxed" if sandbox else "ours unsandboxed"


def _rates(timing: tuple[float, float], n: int) -> tuple[float, float]:
    wall, cpu = timing
    return 60 * n / wall, cpu / n


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
