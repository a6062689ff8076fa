"""Scale-out: the grading engine's own cost on Dask with a PostgreSQL gradebook (issue 13).

``python -m benchmarks scale`` (10,000 submissions) or ``python -m benchmarks.bench_scale
[--n N] [--workers 1 2 4 8] [--real N] [--keep DIR]``; ``--equality`` instead grades a real
batch twice and compares (below).

Throughput: ``--n`` simulated submissions of a cheap stand-in assignment (one notebook of a
few cells, no heavy imports, released like a course assignment so that nbgrader's Autograde
really runs: sanitising, executing, saving grades) go through the real path of ``python -m
autograder grade``: :func:`autograder.grading.grade_prepared` with ``--dask local:N``
(a scheduler and N worker processes, each grading in its own process with warm kernels),
the gradebook in PostgreSQL (a throw-away cluster, :mod:`devtools.postgres`, a new database
per run) and the ledger. Without the sandbox (``--unsandboxed``): kernels fork from the
pre-warmed template, so that what is measured is the engine, not a kernel's start.

Printed: for each worker count, wall seconds, submissions per minute and CPU seconds per
submission (:func:`cpu_seconds`: the grader, its workers, kernels and the PostgreSQL
server); the same for the stand-ins graded by the local process pool with SQLite at the
cores' worker count; the per-submission overhead of Dask + PostgreSQL (the difference of
CPU per submission at that worker count: the scheduler, the nannies, the transfers, the
server: each grader graded ``--n`` and ``--n / 2`` stand-ins, the difference divided by
``--n / 2``, so that start-up cancels out; the cluster's start-up printed apart) and that
overhead as a share of a real notebook's CPU per submission (the course's 04 notebook
graded by the pool in the same run, ``2 x --real`` less ``--real`` submissions); and the
cost of one gradebook open, nbgrader's own against the shared engine
(:mod:`autograder.grading.gradebook`), on SQLite and on PostgreSQL, and the number of opens
per submission. CPU rather than wall clock for the
overhead: on a shared machine the wall clock mostly measures the other load.

Equality (``--equality``): the demo class of every assignment plus ``--per-notebook``
submissions of every notebook (:func:`benchmarks.bench_grading.build_batch`) graded by
``python -m autograder grade`` as by default (the pool, SQLite) and with ``--dask local:2
--db postgresql+psycopg://...``; prints ``identical`` or the differences of grades.csv and
of results.json's scores and flags.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import Course, ensure_env_bin_on_path, list_assignments
from autograder.grading import default_workers, grade_prepared
from autograder.grading.ledger import Ledger
from autograder.models import PreparedSubmission
from autograder.notebook import notebook_bytes
from autograder.sandbox import sandbox_status
from devtools.postgres import PostgresCluster

STANDIN = "standin"
#: The real notebook whose grading time the overhead is compared with.
REAL = "04_naive_bayes_linear"


def _cell(kind: str, source: str, grade_id: str, **nbgrader: object) -> nbformat.NotebookNode:
    cell = new_markdown_cell(source) if kind == "markdown" else new_code_cell(source)
    meta = {"grade_id": grade_id, "schema_version": 3, "grade": False, "solution": False}
    meta.update(nbgrader)
    meta.setdefault("locked", not meta["solution"])
    cell.metadata["nbgrader"] = meta
    return cell


def standin_notebook() -> nbformat.NotebookNode:
    """The stand-in assignment's source: two answers, three graded tests (one hidden)."""
    solution = {"solution": True}
    cells = [
        _cell("markdown", "# Stand-in\n\nA few cells, no heavy imports.", "intro"),
        _cell(
            "code",
            "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION",
            "add",
            **solution,
        ),
        _cell("code", "assert add(1, 2) == 3", "test_add", grade=True, points=1),
        _cell(
            "code",
            "def sign(x):\n    ### BEGIN SOLUTION\n    return 1 if x > 0 else -1\n"
            "    ### END SOLUTION",
            "sign",
            **solution,
        ),
        _cell("code", "assert sign(2) == 1", "test_sign", grade=True, points=1),
        _cell(
            "code",
            "assert sign(-3) == -1\n### BEGIN HIDDEN TESTS\nassert sign(0) == -1\n"
            "### END HIDDEN TESTS",
            "test_sign_hidden",
            grade=True,
            points=2,
        ),
    ]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


#: The stand-in's answers, cycled through the submissions: right, one bug, another.
STANDIN_ANSWERS = (
    {},
    {"sign": "def sign(x):\n    return 1 if x >= 0 else -1"},
    {"add": "def add(a, b):\n    return a - b"},
)


def standin_course(root: Path, db_url: str | None = None) -> Course:
    """A course directory of the stand-in assignment, released (into the gradebook)."""
    source = root / "standin-source" / STANDIN
    source.mkdir(parents=True, exist_ok=True)
    nbformat.write(standin_notebook(), source / f"{STANDIN}.ipynb")
    course = Course(root / "course", db_url).make([STANDIN], source_dir=source.parent)
    course.release(STANDIN)
    return course


def submissions(course: Course, assignment: str, n: int, answers: list[dict]) -> list:
    """``n`` prepared submissions of ``assignment``, cycling through ``answers``."""
    from autograder.samples import make_submission

    release = course.root / "release" / assignment / f"{assignment}.ipynb"
    source = course.source_dir(assignment) / f"{assignment}.ipynb"
    contents = [notebook_bytes(make_submission(release, source, a)) for a in answers]
    out = []
    for i in range(n):
        sub = PreparedSubmission(f"s{i:05d}", assignment)
        sub.notebooks[f"{assignment}.ipynb"] = contents[i % len(contents)]
        out.append(sub)
    return out


def grade_timed(
    course: Course, prepared: list, pg: PostgresCluster | None = None, **kwargs: object
) -> tuple[float, float, dict]:
    """Grade through :func:`grade_prepared` with a fresh ledger; (wall seconds, CPU seconds
    (:func:`cpu_seconds`), results)."""
    ledger = Ledger(course.root / "ledger.jsonl")
    cpu = cpu_seconds(pg)
    start = time.perf_counter()
    results = grade_prepared(course, prepared, ledger=ledger, sandbox=False, **kwargs)
    return time.perf_counter() - start, cpu_seconds(pg) - cpu, results


def cpu_seconds(pg: PostgresCluster | None = None) -> float:
    """CPU seconds so far of this process (the grader, a local Dask scheduler), its ended
    children (the pool's workers or Dask's nannies and workers, with their grading
    processes, kernel templates and kernels) and, with ``pg``, the PostgreSQL server (its
    postmaster and backends, ended ones included). On a shared machine CPU time is what
    the engine costs; wall clock mostly measures the other load."""
    import psutil

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    if pg is not None:
        pid = int((pg.data_dir / "postmaster.pid").read_text().split()[0])
        server = psutil.Process(pid)
        times = server.cpu_times()
        total += times.user + times.system + times.children_user + times.children_system
        for backend in server.children():
            with contextlib.suppress(psutil.Error):
                total += sum(backend.cpu_times()[:2])
    return total


def check_all_graded(results: dict, label: str) -> None:
    bad = [key for key, r in results.items() if not r.ok or r.flags]
    if bad:
        first = results[bad[0]]
        raise RuntimeError(f"{label}: {len(bad)} not graded cleanly, e.g. {first.flags[:1]}")


def open_costs(urls: dict[str, str], repeat: int = 30) -> dict[str, tuple[float, float]]:
    """name -> (ms per gradebook open, nbgrader's own; ms with the shared engine)."""
    from nbgrader.api import Gradebook

    from autograder.grading.gradebook import share_engines, unshare_engines

    out = {}
    for name, url in urls.items():
        times = []
        for shared in (False, True):
            (share_engines if shared else unshare_engines)()
            with Gradebook(url):
                pass
            start = time.perf_counter()
            for _ in range(repeat):
                with Gradebook(url):
                    pass
            times.append(1000 * (time.perf_counter() - start) / repeat)
        out[name] = (times[0], times[1])
    unshare_engines()
    return out


def opens_per_submission(course: Course, prepared: PreparedSubmission) -> int:
    """How many times grading one submission opens the gradebook (in the worker, once in
    this process, and the grader reading its scores back)."""
    from autograder.grading.gradebook import open_stats, share_engines
    from autograder.grading.task import autograde_task

    share_engines()
    course.ensure_students([prepared.student])
    course.write_submission(prepared.assignment, prepared.student, prepared.notebooks)
    before = open_stats()["opens"]
    with _quiet():  # the kernel's and nbgrader's chatter
        autograde_task(course, prepared.assignment, prepared.student, sandbox=False)
    course.read_scores(prepared.assignment, [prepared.student])
    return int(open_stats()["opens"] - before)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(null)


def run_throughput(args: argparse.Namespace, root: Path, pg: PostgresCluster) -> None:
    cores = default_workers()
    print(f"stand-ins: {args.n} submissions; cores: {cores}; unsandboxed, warm kernels")
    probe = standin_course(root / "probe")
    costs = open_costs({"SQLite": probe.db_url, "PostgreSQL": pg.create_database("opens")})
    for name, (stock, shared) in costs.items():
        print(f"  gradebook open, {name:10}: nbgrader's {stock:6.1f} ms, shared {shared:5.1f} ms")
    one = submissions(probe, STANDIN, 1, [{}])[0]
    print(f"  gradebook opens per submission: {opens_per_submission(probe, one)}")

    base_workers = args.baseline_workers or cores
    line = "  {:18} {} workers: {:7.1f} s  {:7.1f} per min  {:5.2f} CPU s per submission"

    def run(label: str, count: int, workers: int, dask: bool) -> float:
        """Grade ``count`` stand-ins; print the figures; returns the CPU seconds."""
        name = f"{label}{count}-{workers}"
        url = pg.create_database(f"scale_{count}_{workers}") if dask else None
        course = standin_course(root / name, url)
        prepared = submissions(course, STANDIN, count, list(STANDIN_ANSWERS))
        extra = {"dask": workers} if dask else {"workers": workers}
        wall, cpu, results = grade_timed(course, prepared, pg if dask else None, **extra)
        check_all_graded(results, name)
        text = "Dask + PostgreSQL," if dask else "pool + SQLite,"
        print(line.format(text, workers, wall, 60 * count / wall, cpu / count))
        return cpu

    half = max(1, args.n // 2)
    pool = {count: run("pool", count, base_workers, False) for count in (half, args.n)}
    dask = {}
    for workers in args.workers:
        dask[workers] = run("dask", args.n, workers, True)
    if base_workers not in args.workers:
        dask[base_workers] = run("dask", args.n, base_workers, True)
    dask_half = run("dask", half, base_workers, True)
    real = real_notebook_cpu(root / "real", args.real, base_workers)
    print(f"  a real notebook ({REAL}, pool): {real:.2f} CPU s per submission")
    # one more submission's CPU, start-up cancelled out (n less n/2), Dask's less the pool's
    step = args.n - half
    overhead = (dask[base_workers] - dask_half) / step - (pool[args.n] - pool[half]) / step
    print(
        f"  Dask + PostgreSQL overhead at {base_workers} workers: {overhead * 1000:+.0f} ms "
        f"CPU per submission = {100 * overhead / real:+.1f} % of a real notebook's"
    )
    fixed = dask[base_workers] / args.n - pool[args.n] / args.n - overhead
    print(f"  (and its start-up: {fixed * args.n:.1f} CPU s per run, the cluster's processes)")


def real_notebook_cpu(root: Path, n: int, workers: int) -> float:
    """CPU seconds the pool spends on one more submission of the real notebook: the
    difference of grading ``2 n`` and ``n`` (the workers' start-up, nbgrader's import and
    the kernel template's, cancels out)."""
    from autograder.samples import VARIANTS

    answers = [{}] + [dict(v.replace) for v in VARIANTS.get(REAL, [])]
    cpu = []
    for count in (n, 2 * n):
        course = Course(root / f"course{count}").make([REAL])
        course.release(REAL)
        _, used, _ = grade_timed(course, submissions(course, REAL, count, answers), workers=workers)
        cpu.append(used)
    return (cpu[1] - cpu[0]) / n


# --------------------------------------------------------------------------- equality


def run_equality(args: argparse.Namespace, root: Path, pg: PostgresCluster) -> int:
    from autograder.__main__ import main as autograde
    from autograder.samples.demo import build_demo_submissions
    from benchmarks.bench_grading import build_batch

    assignments = args.assignment or list_assignments()
    url = pg.create_database("equality")
    runs = {"default": [], "dask": ["--dask", "local:2", "--db", url]}
    sandbox = [] if sandbox_status()[0] else ["--unsandboxed"]
    for name, extra in runs.items():
        course = root / name / "course"
        release = ["release", "--course", str(course), *extra[2:]]
        for assignment in assignments:
            release += ["--assignment", assignment]
        assert autograde(release) == 0, f"release ({name}) failed"
    batch = build_batch(root / "default" / "course", assignments, args.per_notebook)
    build_demo_submissions(root / "default" / "course", batch, assignments)
    students = len(list(batch.iterdir()))
    print(f"batch: {students} students x {len(assignments)} assignments; sandbox: {not sandbox}")
    for name, extra in runs.items():
        start = time.perf_counter()
        code = autograde(
            [
                "grade",
                str(batch),
                "--course",
                str(root / name / "course"),
                "--out",
                str(root / name / "out"),
                "--no-progress",
                *sandbox,
                *extra,
            ]
        )
        print(f"  {name:8}: exit {code}, {time.perf_counter() - start:.0f} s")
    differences = compare_outputs(root / "default" / "out", root / "dask" / "out")
    print("identical" if not differences else "\n".join(differences))
    return 1 if differences else 0


def compare_outputs(a: Path, b: Path) -> list[str]:
    """The differences of two output folders' grades.csv rows and results.json scores and
    flags (the course folder's path aside)."""
    out = []
    rows = [list(csv.reader((folder / "grades.csv").open(encoding="utf-8"))) for folder in (a, b)]
    if rows[0] != rows[1]:
        for x, y in zip(rows[0], rows[1], strict=False):
            if x != y:
                out.append(f"grades.csv: {x} != {y}")
        if len(rows[0]) != len(rows[1]):
            out.append(f"grades.csv: {len(rows[0])} rows != {len(rows[1])}")
    results = [_results(folder) for folder in (a, b)]
    for key in sorted(set(results[0]) | set(results[1])):
        if results[0].get(key) != results[1].get(key):
            out.append(f"results.json {key}: {results[0].get(key)} != {results[1].get(key)}")
    return out


def _results(folder: Path) -> dict[tuple[str, str], tuple]:
    data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return {
        (e["assignment"], e["student"]): (
            e.get("score"),
            json.dumps(e.get("tests"), sort_keys=True),
            e.get("flags"),
        )
        for e in data["submissions"]
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_scale")
    parser.add_argument("--n", type=int, default=10_000, help="stand-in submissions per run")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument(
        "--baseline-workers", type=int, help="workers of the pool baseline (default: cores)"
    )
    parser.add_argument(
        "--real", type=int, default=6, help=f"{REAL}: the CPU of grading 2x this less 1x"
    )
    parser.add_argument("--equality", action="store_true", help="compare a real batch instead")
    parser.add_argument("--per-notebook", type=int, default=12)
    parser.add_argument("--assignment", action="append")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args([] if argv is None else argv)
    ensure_env_bin_on_path()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        with PostgresCluster() as pg:
            if args.equality:
                return run_equality(args, root, pg)
            run_throughput(args, root, pg)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
