"""The diagnosis of failed exercises (the catalogues of misconceptions): how well and at what
cost, through ``python -m autograder grade`` (sandbox and trusted re-check on).

``python -m benchmarks misconceptions`` (both parts) or ``python -m benchmarks
misconceptions --part samples|cost [--assignment A ...] [--workers N] [--rounds N]
[--keep DIR]``.

- **samples**: every sample answer of :mod:`autograder.samples` graded (the buggy ones of
  different exercises packed into one notebook, the correct ones likewise, as the samples
  are built to allow), and results.json's diagnoses counted: each buggy sample's exercise
  must be diagnosed with the misconception the sample is labelled with, no correct
  sample's exercise at all. Printed: the two shares, and every sample that misses.
- **cost**: the demo class (:mod:`autograder.samples.demo`, feedback included) graded with
  the diagnosis and without it (``AUTOGRADER_SAFE_EXECUTE='{"diagnose": false}'``),
  ``--rounds`` times each, alternating, each run in a fresh course directory (released
  first, not timed). Printed: the wall seconds of each run, the median ratio, and — the
  figure the machine's other load does not move — the seconds the re-check spent
  diagnosing against the seconds it spent on the notebooks (``diagnosis_seconds`` and
  ``seconds`` in the graded notebooks' metadata).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.course import Course, list_assignments
from autograder.grading import default_workers
from autograder.grading.safe_execute import ENV_CONFIG
from autograder.notebook import FLAGS_KEY, notebook_bytes
from autograder.sandbox import sandbox_status
from benchmarks.environment import child_env

#: The share of extra grading time the diagnosis may cost (issue: at most 5 %).
BUDGET = 0.05


def _grade(batch: Path, course: Path, out: Path, workers: int, env: dict[str, str]) -> float:
    command = [
        *(sys.executable, "-m", "autograder", "grade", str(batch)),
        *("--course", str(course), "--out", str(out), "--workers", str(workers)),
        "--no-progress",
    ]
    start = time.perf_counter()
    proc = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"autograder grade failed:\n{proc.stderr[-2000:]}")
    return elapsed


def _env(diagnose: bool = True) -> dict[str, str]:
    env = child_env()
    env.pop(ENV_CONFIG, None)
    if not diagnose:
        env[ENV_CONFIG] = json.dumps({"diagnose": False})
    return env


def _released(root: Path, assignments: list[str]) -> Path:
    course = Course(root).make(assignments)
    for assignment in assignments:
        course.release(assignment)
    return course.root


# --------------------------------------------------------------------------- samples


def _packs(assignment: str) -> list[tuple[str, list]]:
    """(student, variants): the k-th buggy (correct) variant of every exercise together."""
    from autograder.samples import VARIANTS

    by_cell: dict[tuple[bool, str], list] = {}
    for variant in VARIANTS.get(assignment, []):
        if len(variant.replace) == 1:
            (cell,) = variant.replace
            by_cell.setdefault((variant.correct, cell), []).append(variant)
    packs = []
    for correct in (False, True):
        columns = [v for (c, _), v in sorted(by_cell.items()) if c == correct]
        for k in range(max((len(c) for c in columns), default=0)):
            variants = [column[k] for column in columns if k < len(column)]
            packs.append((f"{'correct' if correct else 'bugs'}_{k + 1:02d}", variants))
    return packs


def samples(root: Path, assignments: list[str], workers: int) -> bool:
    from autograder.samples import make_submission

    course = _released(root / "course", assignments)
    batch = root / "samples"
    packs: dict[tuple[str, str], list] = {}
    for assignment in assignments:
        release_nb = course / "release" / assignment / f"{assignment}.ipynb"
        source_nb = course / "source" / assignment / f"{assignment}.ipynb"
        for student, variants in _packs(assignment):
            replace = {c: s for v in variants for c, s in v.replace.items()}
            nb = make_submission(release_nb, source_nb, replace)
            folder = batch / student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{assignment}.ipynb").write_bytes(notebook_bytes(nb))
            packs[(assignment, student)] = variants
    seconds = _grade(batch, course, root / "out", workers, _env())
    data = json.loads((root / "out" / "results.json").read_text(encoding="utf-8"))
    entries = {(e["assignment"], e["student"]): e for e in data["submissions"]}
    buggy = right = correct = wrongly = 0
    misses = []
    for key, variants in packs.items():
        diagnosed = {n: d.get("misconception") for n, d in entries[key]["diagnoses"].items()}
        for variant in variants:
            (cell,) = variant.replace
            if variant.correct:
                correct += 1
                if cell in diagnosed:
                    wrongly += 1
                    misses.append(f"{variant.name} (correct): diagnosed {diagnosed[cell]!r}")
            else:
                buggy += 1
                if diagnosed.get(cell) == variant.misconception:
                    right += 1
                else:
                    misses.append(
                        f"{variant.name}: diagnosed {diagnosed.get(cell)!r}, labelled "
                        f"{variant.misconception!r}"
                    )
    print(
        f"graded {len(packs)} notebooks holding {buggy + correct} sample answers ({seconds:.0f} s)"
    )
    print(
        f"buggy samples diagnosed with their own misconception: {right} of {buggy} "
        f"({100 * right / max(buggy, 1):.0f} %)"
    )
    share = 100 * wrongly / max(correct, 1)
    print(f"correct samples diagnosed: {wrongly} of {correct} ({share:.0f} %)")
    for miss in misses:
        print(f"  miss: {miss}")
    return right == buggy and wrongly == 0


# --------------------------------------------------------------------------- cost


def _notebook_seconds(course: Path) -> tuple[float, float]:
    """(seconds the re-check spent diagnosing, seconds it spent on the notebooks), summed
    over the graded notebooks of a course directory."""
    diagnosing = total = 0.0
    for path in sorted((course / "autograded").glob("*/*/*.ipynb")):
        meta = nbformat.read(str(path), as_version=4).metadata.get(FLAGS_KEY, {})
        diagnosing += float(meta.get("diagnosis_seconds", 0.0))
        total += float(meta.get("seconds", 0.0))
    return diagnosing, total


def cost(root: Path, assignments: list[str], workers: int, rounds: int) -> bool:
    from autograder.samples.demo import build_demo_submissions

    template = _released(root / "template", assignments)
    batch = build_demo_submissions(template, root / "demo", assignments)
    n = sum(1 for _ in batch.glob("*/*/*.ipynb"))
    print(f"the demo class: {n} notebooks, {workers} workers, {rounds} round(s)")
    walls: dict[bool, list[float]] = {True: [], False: []}
    shares = []
    for round_ in range(rounds):
        order = (True, False) if round_ % 2 == 0 else (False, True)
        for diagnose in order:
            course = _released(root / f"course-{round_}-{int(diagnose)}", assignments)
            wall = _grade(batch, course, root / "out", workers, _env(diagnose))
            walls[diagnose].append(wall)
            label = "with diagnosis   " if diagnose else "without diagnosis"
            line = f"  round {round_ + 1}, {label}: {wall:6.1f} s wall"
            if diagnose:
                diagnosing, total = _notebook_seconds(course)
                shares.append(diagnosing / total)
                line += (
                    f"; the re-check diagnosed for {diagnosing:.2f} s of its {total:.1f} s "
                    f"on the notebooks ({100 * diagnosing / total:.2f} %)"
                )
            print(line, flush=True)
            shutil.rmtree(course, ignore_errors=True)
    ratio = statistics.median(walls[True]) / statistics.median(walls[False])
    share = statistics.median(shares)
    print(
        f"wall clock with / without diagnosis (medians): {ratio:.3f} ({100 * (ratio - 1):+.1f} %)"
    )
    print(
        f"diagnosis's own share of the notebooks' grading time: {100 * share:.2f} % "
        f"(budget {100 * BUDGET:.0f} %: {'met' if share <= BUDGET else 'NOT met'})"
    )
    return share <= BUDGET


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_misconceptions")
    parser.add_argument("--part", choices=["both", "samples", "cost"], default="both")
    parser.add_argument("--assignment", action="append")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args([] if argv is None else argv)
    available, reason = sandbox_status()
    if not available:
        print(f"the diagnosis runs in the sandboxed re-check, which cannot start: {reason}")
        return 1
    workers = args.workers or default_workers()
    assignments = args.assignment or list_assignments()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-misconceptions-"))
    root.mkdir(parents=True, exist_ok=True)
    ok = True
    try:
        if args.part in ("both", "samples"):
            ok &= samples(root / "samples", assignments, workers)
        if args.part in ("both", "cost"):
            ok &= cost(root / "cost", assignments, workers, max(1, args.rounds))
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
