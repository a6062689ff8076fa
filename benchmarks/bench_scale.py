"""Scale: 10,000 submissions to the end, and the grading engine's own cost on Dask with a
PostgreSQL gradebook.

``python -m benchmarks scale [--n 10000] [--sizes 100 1000] [--dask local:2] [--db URL]``
(what ``python -m benchmarks.bench_scale`` runs by default): classes of 100, 1,000 and
``--n`` students, each a folder of submissions in nbgrader's layout, graded by ``python -m
autograder grade SUBMISSIONS --dask local:2 --db postgresql+psycopg://... --unsandboxed
--no-feedback`` in a process of its own: intake, release, the canary, the Dask workers
with warm kernels, nbgrader's Autograde, the gradebook in PostgreSQL (a throw-away cluster,
:mod:`devtools.postgres`, a new database per class; or databases made on ``--db``'s
server), the ledger, results.json, grades.csv and summary.md. The only thing that is not
the course's is the notebook: a stand-in assignment of one answer and one graded test
(:func:`tiny_notebook`), given to the command line as the course's notebooks folder
(:func:`grader_main`); the students cycle through a right answer, a bug and another right
answer. ``--sandbox`` and ``--feedback`` grade sandboxed and write the feedback pages (each
roughly doubles a submission's cost).

Each run is watched from outside (:class:`Watch`, psutil, every 0.25 s): the ledger's
lines, the CPU seconds of the grader process and of everything it started (workers, their
grading processes, kernel templates and kernels) and of the PostgreSQL server, and resident
memory. Printed per class: wall seconds; start-up (to the first ledger line: intake, the
cluster, the canary, the tasks submitted) and end (after the last: the outputs written, the
cluster stopped); and per submission, over the middle 80 % of the ledger's lines (start-up
and end left out), the wall clock, the grader process's CPU, all CPU and PostgreSQL's; the
grader's resident high-water mark (``VmHWM``) and the rest of the tree's peak. The run of
``--n`` is killed (SIGKILL) when the ledger holds half (``--kill-at``), and the same command
run again: the seconds until it grades its first submission are the ledger's resume time
(``--stop-after M`` stops that second run after M more, for a class too large to finish).
After each class: one ledger line and one gradebook submission per student, and
results.json's score of each the score of its answer; the gradebook's rows and bytes
(``pg_database_size``) after ``--n``.

``--throughput``: the older comparison (issue 13), below.

Throughput (``--throughput [--n N] [--workers 1 2 4 8] [--real N]``): ``--n`` simulated
submissions of a cheap stand-in assignment (one notebook of a
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
import dataclasses
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import Course, list_assignments, prepare_nbgrader
from autograder.grading import default_workers, grade_prepared
from autograder.grading.ledger import Ledger
from autograder.models import PreparedSubmission
from autograder.notebook import notebook_bytes
from autograder.options import GradeOptions
from autograder.sandbox import sandbox_status
from benchmarks.machine import machine_busy
from devtools.postgres import PostgresCluster, submission_counts

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
STANDIN_ANSWERS: tuple[dict[str, str], ...] = (
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
    course: Course, prepared: list, options: GradeOptions, pg: PostgresCluster | None = None
) -> tuple[float, float, dict]:
    """Grade through :func:`grade_prepared` with ``options`` and a fresh ledger; (wall
    seconds, CPU seconds (:func:`cpu_seconds`), results)."""
    ledger = Ledger(course.root / "ledger.jsonl")
    cpu = cpu_seconds(pg)
    start = time.perf_counter()
    results = grade_prepared(course, prepared, options, ledger=ledger)
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
        options = GradeOptions(sandbox=False, feedback=False)
        autograde_task(course, prepared.assignment, prepared.student, options)
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
        extra = {"dask": f"local:{workers}"} if dask else {"workers": workers}
        options = GradeOptions(sandbox=False, feedback=False, **extra)
        wall, cpu, results = grade_timed(course, prepared, options, pg if dask else None)
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

    answers: list[dict[str, str]] = [{}] + [dict(v.replace) for v in VARIANTS.get(REAL, [])]
    cpu = []
    for count in (n, 2 * n):
        course = Course(root / f"course{count}").make([REAL])
        course.release(REAL)
        options = GradeOptions(sandbox=False, feedback=False, workers=workers)
        _, used, _ = grade_timed(course, submissions(course, REAL, count, answers), options)
        cpu.append(used)
    return (cpu[1] - cpu[0]) / n


# --------------------------------------------------------------------------- to the end


#: The run-to-the-end stand-in: one answer and one graded test (a visible and a hidden
#: assert); the cheapest notebook nbgrader still autogrades in a kernel.
TINY_ANSWERS: tuple[dict[str, str], ...] = (
    {},
    {"add": "def add(a, b):\n    return a - b"},
    {"add": "def add(a, b):\n    return b + a"},
)
#: The score each of :data:`TINY_ANSWERS` earns (the buggy one fails both asserts).
TINY_SCORES = (1.0, 0.0, 1.0)


def tiny_notebook() -> nbformat.NotebookNode:
    """The run-to-the-end stand-in's source: ``add`` and its test (1 point)."""
    nb = new_notebook(
        cells=[
            _cell(
                "code",
                "def add(a, b):\n    ### BEGIN SOLUTION\n    return a + b\n    ### END SOLUTION",
                "add",
                solution=True,
            ),
            _cell(
                "code",
                "assert add(1, 2) == 3\n### BEGIN HIDDEN TESTS\nassert add(-1, 1) == 0\n"
                "### END HIDDEN TESTS",
                "test_add",
                grade=True,
                points=1,
            ),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


def grader_main(argv: list[str]) -> int:
    """``python -m benchmarks.bench_scale --as-grader NOTEBOOKS ARGS...``: ``python -m
    autograder ARGS...`` with ``NOTEBOOKS`` as the course's notebooks folder (the
    stand-in's, in place of the repository's ``notebooks/``); everything else is the
    command line's own code."""
    import autograder.course.origin
    from autograder.__main__ import main as autograder_main

    autograder.course.origin.NOTEBOOKS_DIR = Path(argv[0]).resolve()
    return autograder_main(argv[1:])


def write_class(root: Path, sizes: list[int]) -> dict[int, Path]:
    """The stand-in's notebooks folder (``root/notebooks``) and, per size, a folder of that
    many students' submissions in nbgrader's layout, cycling through :data:`TINY_ANSWERS`
    (``s00000`` gets the first)."""
    from autograder.samples import make_submission

    notebooks = root / "notebooks" / STANDIN
    notebooks.mkdir(parents=True, exist_ok=True)
    nbformat.write(tiny_notebook(), notebooks / f"{STANDIN}.ipynb")
    scratch = Course(root / "release-scratch").make([STANDIN], source_dir=notebooks.parent)
    scratch.release(STANDIN)
    release = scratch.root / "release" / STANDIN / f"{STANDIN}.ipynb"
    source = notebooks / f"{STANDIN}.ipynb"
    contents = [notebook_bytes(make_submission(release, source, a)) for a in TINY_ANSWERS]
    folders = {}
    for n in sizes:
        folder = folders[n] = root / f"class-{n}"
        for i in range(n):
            target = folder / f"s{i:05d}" / STANDIN
            target.mkdir(parents=True, exist_ok=True)
            (target / f"{STANDIN}.ipynb").write_bytes(contents[i % len(contents)])
    return folders


class Watch:
    """Samples a grading run from outside, every ``interval`` seconds, in a thread: the
    ledger's lines, the CPU seconds of the grader process alone and of its whole tree
    (workers, grading processes, kernel templates and kernels, ended children included),
    the PostgreSQL server's, and the resident memory of the grader and of the rest of the
    tree (psutil)."""

    def __init__(self, pid: int, ledger: Path, server: int | None, interval: float = 0.25):
        import threading

        import psutil

        self.main = psutil.Process(pid)
        self.ledger, self.server, self.interval = ledger, server, interval
        self.samples: list[tuple[float, int, float, float, float, float]] = []
        self.peak_main = self.peak_rest = 0
        self.hwm_main = 0
        self._known: dict[int, object] = {}
        self._lines, self._offset = 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _count(self) -> int:
        if self.ledger.exists():
            with self.ledger.open("rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
            done = chunk.rfind(b"\n") + 1  # whole lines only
            self._lines += chunk[:done].count(b"\n")
            self._offset += done
        return self._lines

    @staticmethod
    def _cpu(process) -> float:
        t = process.cpu_times()
        return t.user + t.system + t.children_user + t.children_system

    def _tree(self) -> list:
        import psutil

        try:
            return [self.main, *self.main.children(recursive=True)]
        except psutil.Error:
            return []

    def sample(self) -> None:
        import psutil

        now = time.monotonic()
        main_cpu = tree_cpu = 0.0
        rss_main = rss_rest = 0
        for process in self._tree():
            try:
                with process.oneshot():
                    cpu = self._cpu(process)
                    rss = process.memory_info().rss
            except psutil.Error:
                continue
            if process.pid == self.main.pid:
                own = process.cpu_times()
                main_cpu = own.user + own.system
                rss_main = rss
                self.hwm_main = max(self.hwm_main, _vm_hwm(process.pid))
            else:
                rss_rest += rss
            tree_cpu += cpu
        server_cpu = 0.0
        if self.server is not None:
            with contextlib.suppress(psutil.Error):
                server = psutil.Process(self.server)
                server_cpu = self._cpu(server) + sum(
                    self._cpu(b) for b in server.children() if b.is_running()
                )
        if tree_cpu:
            self.peak_main = max(self.peak_main, rss_main)
            self.peak_rest = max(self.peak_rest, rss_rest)
            machine = machine_busy()
            self.samples.append((now, self._count(), main_cpu, tree_cpu, server_cpu, machine))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def lines(self) -> int:
        return self.samples[-1][1] if self.samples else 0

    def window(self, low: int, high: int) -> tuple[float, float, float, float, float] | None:
        """(wall, grader CPU, tree CPU, server CPU, the machine's busy CPU) per ledger line
        between the samples
        where the ledger first held ``low`` and ``high`` lines (None: too few samples)."""
        first = next((s for s in self.samples if s[1] >= low), None)
        last = next((s for s in self.samples if s[1] >= high), None)
        if first is None or last is None or last[1] <= first[1]:
            return None
        lines = last[1] - first[1]
        before, after = first[:1] + first[2:], last[:1] + last[2:]
        wall, grader, tree, server, busy = (
            (b - a) / lines for a, b in zip(before, after, strict=True)
        )
        return wall, grader, tree, server, busy


def _vm_hwm(pid: int) -> int:
    """A process's resident memory high-water mark (``VmHWM``), bytes; 0 if unknown."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _postmaster(pg: PostgresCluster | None) -> int | None:
    if pg is None:
        return None
    return int((pg.data_dir / "postmaster.pid").read_text().split()[0])


def _grade_command(args: argparse.Namespace, root: Path, folder: Path, url: str) -> list[str]:
    """``python -m autograder grade`` of ``folder`` (through :func:`grader_main`)."""
    command = [sys.executable, "-m", "benchmarks.bench_scale", "--as-grader"]
    command += [str(root / "notebooks"), "grade", str(folder)]
    command += ["--course", str(root / f"course-{folder.name}")]
    command += ["--out", str(root / f"out-{folder.name}"), "--db", url, "--no-progress"]
    command += ["--dask", args.dask]
    if not args.sandbox:
        command.append("--unsandboxed")
    if not args.feedback:
        command.append("--no-feedback")
    return command


@dataclasses.dataclass
class Run:
    """One grading run's figures, from :class:`Watch`."""

    n: int
    wall: float
    first: float  # seconds to the first ledger line
    last: float  # seconds to the last ledger line
    per: tuple[float, float, float, float, float] | None  # Watch.window
    peak_main: int
    peak_rest: int
    hwm_main: int
    code: int | None


def run_grader(
    command: list[str], ledger: Path, n: int, server: int | None, kill_at: int | None = None
) -> Run:
    """Run the grader to its end (or SIGKILL it once the ledger holds ``kill_at`` lines),
    watched; its output goes to ``<ledger's folder>/../<name>.log``."""
    import subprocess

    log = ledger.parent.parent / f"{ledger.parent.name}.log"
    before = sum(1 for _ in ledger.open("rb")) if ledger.exists() else 0
    with log.open("ab") as out:
        start = time.monotonic()
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        watch = Watch(proc.pid, ledger, server)
        first = None
        try:
            while proc.poll() is None:
                time.sleep(0.1)
                lines = watch.lines()
                if first is None and lines > before:
                    first = time.monotonic() - start
                if kill_at is not None and lines >= kill_at:
                    _kill_tree(proc)
                    break
        finally:
            if proc.poll() is None:  # stopped (Ctrl-C, SIGTERM): so is the grader
                _stop_tree(proc)
            watch.stop()
    watch.sample()
    end = time.monotonic() - start
    stamps = [s for s in watch.samples]
    done = max((s[1] for s in stamps), default=before)
    last_at = next((s[0] for s in stamps if s[1] >= done), start) - start
    graded = done - before
    low, high = before + graded // 10, before + graded - graded // 10
    return Run(
        n=graded,
        wall=end,
        first=first if first is not None else end,
        last=last_at,
        per=watch.window(low, high),
        peak_main=watch.peak_main,
        peak_rest=watch.peak_rest,
        hwm_main=watch.hwm_main,
        code=proc.returncode if kill_at is None else None,
    )


#: Seconds a grader has to stop after SIGTERM (its workers and kernels stopped, the grades
#: so far kept) before it is killed.
STOP_SECONDS = 60


def _stop_tree(proc) -> None:
    """Stop the grader as Ctrl-C or SIGTERM stops ``python -m autograder grade``: SIGTERM,
    then, if it has not ended within :data:`STOP_SECONDS`, :func:`_kill_tree`."""
    import subprocess

    proc.terminate()
    try:
        proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    _kill_tree(proc)


def _interrupt(signum: int, frame: object) -> None:
    # SIGTERM and SIGHUP stop the benchmark as Ctrl-C does; a second signal is ignored, so
    # that the stopping itself (the grader's, the cluster's) is not cut short
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    raise KeyboardInterrupt


def stop_on_signals() -> None:
    """SIGINT (Ctrl-C), SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the benchmark's
    main thread: the grader it runs is stopped (:func:`_stop_tree`), the throw-away
    PostgreSQL cluster too (its context's exit) and the work folder removed. Without it a
    SIGTERM ended the benchmark alone and left both running."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), _interrupt)


def _kill_tree(proc) -> None:
    """SIGKILL the grader alone (its workers, kernels and sandboxes die with it: the
    parent-death signal) and wait until nothing it started is left."""
    import psutil

    try:
        tree = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        tree = []
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    _, alive = psutil.wait_procs(tree, timeout=60)
    if alive:
        raise RuntimeError(f"{len(alive)} processes outlived the killed grader")


def gradebook_size(url: str) -> tuple[int, int, dict[str, int]]:
    """(rows, bytes on disk, rows per table) of the gradebook's database."""
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            tables = inspect(conn).get_table_names()
            rows = {
                t: conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one() for t in tables
            }
            size = conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
    finally:
        engine.dispose()
    return sum(rows.values()), int(size), rows


def check_run(root: Path, folder: Path, url: str, n: int, *, partial: bool = False) -> None:
    """Every student graded once, with the score of its answer: one ledger line per
    student, one gradebook submission, results.json's score. ``partial``: a run stopped
    before its end: no student twice in the ledger or the gradebook, nothing else."""
    lines = (root / f"course-{folder.name}" / "ledger.jsonl").read_text().splitlines()
    keys = [json.loads(line)["student"] for line in lines]
    expected = [f"s{i:05d}" for i in range(n)]
    if partial:
        counts = submission_counts(url)
        if len(set(keys)) != len(keys) or set(counts.values()) != {1}:
            raise RuntimeError(f"{folder.name}: a student graded twice")
        return
    if sorted(keys) != expected:
        raise RuntimeError(f"{folder.name}: {len(keys)} ledger lines, {len(set(keys))} students")
    counts = submission_counts(url)
    if sorted(counts) != [(STANDIN, s) for s in expected] or set(counts.values()) != {1}:
        raise RuntimeError(f"{folder.name}: the gradebook has {sum(counts.values())} submissions")
    results = json.loads((root / f"out-{folder.name}" / "results.json").read_text())
    got = {e["student"]: e["score"] for e in results["submissions"]}
    want = {s: TINY_SCORES[i % len(TINY_SCORES)] for i, s in enumerate(expected)}
    if got != want:
        wrong = sorted(s for s in want if got.get(s) != want[s])
        raise RuntimeError(f"{folder.name}: {len(wrong)} scores differ, e.g. {wrong[:3]}")


def run_to_the_end(args: argparse.Namespace, root: Path, pg: PostgresCluster | None) -> None:
    sizes = sorted({*args.sizes, args.n})
    what = "sandboxed" if args.sandbox else "unsandboxed"
    print(
        f"stand-in: 1 answer + 1 test cell; {', '.join(map(str, sizes))} submissions; "
        f"--dask {args.dask}, PostgreSQL, {what}, feedback {'on' if args.feedback else 'off'}",
        flush=True,
    )
    folders = write_class(root, sizes)
    server = _postmaster(pg)
    if server is not None:
        print(f"the gradebooks' throw-away PostgreSQL server: pid {server}", flush=True)
    head = "  {:>6} {:>6} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10} {:>8} {:>10} {:>9} {:>9}".format(
        "class",
        "graded",
        "wall s",
        "start s",
        "end s",
        "wall ms/sub",
        "grader ms",
        "all CPU ms",
        "db ms",
        "machine ms",
        "grader MB",
        "rest MB",
    )
    print("per submission (the middle 80 % of each run): wall, and CPU of the grader process,")
    print("of everything (grader, workers, kernels, PostgreSQL), of PostgreSQL alone, and of")
    print("the whole machine (every core's busy time: the grading's on an idle machine)")
    print(head, flush=True)
    resume = None
    for n in sizes:
        url = _database(args, pg, f"scale_end_{n}")
        command = _grade_command(args, root, folders[n], url)
        ledger = root / f"course-{folders[n].name}" / "ledger.jsonl"
        partial = False
        if n == args.n and args.kill:
            half = args.kill_at or n // 2
            killed = run_grader(command, ledger, n, server, kill_at=half)
            at_kill = len(ledger.read_text().splitlines())
            in_db = len(submission_counts(url))
            stop = at_kill + args.stop_after if args.stop_after else None
            partial = stop is not None and stop < n
            second = run_grader(command, ledger, n, server, kill_at=stop if partial else None)
            resume = (killed, at_kill, in_db, second, partial)
            runs = [killed, second]
        else:
            runs = [run_grader(command, ledger, n, server)]
        for r in runs:
            if r.code not in (None, 0):
                raise RuntimeError(f"the grader of {n} exited {r.code}: see its log in {root}")
        for r in runs:  # the figures first: a failed check below does not lose them
            _print_run(n, r)
        check_run(root, folders[n], url, n, partial=partial)
        if n == args.n:
            rows, size, per_table = gradebook_size(url)
    if resume is not None:
        killed, at_kill, in_db, second, partial = resume
        rest = (
            f"was stopped after {second.n} more (--stop-after: not to the end), each student "
            "graded so far once in the ledger and the gradebook"
            if partial
            else f"graded the other {second.n}, each student once in the ledger and the "
            "gradebook, every score right"
        )
        print(
            f"  resume: killed (SIGKILL) at {at_kill} of {args.n} ledger lines "
            f"({killed.wall:.0f} s in; the gradebook had {in_db} submissions); the same "
            f"command again graded its first submission after {second.first:.1f} s "
            f"(a fresh run of {args.n}: {killed.first:.1f} s), {rest}"
        )
    biggest = ", ".join(f"{t} {c:,}" for t, c in sorted(per_table.items(), key=lambda x: -x[1])[:4])
    print(f"  gradebook after {args.n:,}: {rows:,} rows ({biggest}, ...), {size / 2**20:.1f} MiB")


def _print_run(n: int, r: Run) -> None:
    per = r.per or (float("nan"),) * 5
    cells = (
        f"{n:>6}",
        f"{r.n:>6}",
        f"{r.wall:>8.0f}",
        f"{r.first:>8.1f}",
        f"{r.wall - r.last:>8.1f}",
        f"{1000 * per[0]:>10.0f}",
        f"{1000 * per[1]:>10.1f}",
        f"{1000 * (per[2] + per[3]):>10.0f}",
        f"{1000 * per[3]:>8.1f}",
        f"{1000 * per[4]:>10.0f}",
        f"{r.hwm_main / 2**20:>9.0f}",
        f"{r.peak_rest / 2**20:>9.0f}",
    )
    print("  " + " ".join(cells), flush=True)


def _database(args: argparse.Namespace, pg: PostgresCluster | None, name: str) -> str:
    """A new empty database ``name``: in the throw-away cluster, or on ``--db``'s server
    (its user may create databases)."""
    if pg is not None:
        return pg.create_database(name)
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    engine = create_engine(args.db, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))
            conn.execute(text(f"CREATE DATABASE {name}"))
    finally:
        engine.dispose()
    return make_url(args.db).set(database=name).render_as_string(hide_password=False)


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
    argv = list([] if argv is None else argv)
    if argv[:1] == ["--as-grader"]:
        return grader_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_scale")
    parser.add_argument("--n", type=int, default=10_000, help="stand-in submissions per run")
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="*",
        default=[100, 1000],
        help="smaller classes graded first (default: 100 1000)",
    )
    parser.add_argument("--dask", default="local:2", help="the grader's --dask (default local:2)")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="a PostgreSQL server whose user may create databases (default: a throw-away "
        "cluster of its own)",
    )
    parser.add_argument(
        "--sandbox",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="grade in the sandbox (default: unsandboxed, warm kernels)",
    )
    parser.add_argument(
        "--feedback",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="write the feedback pages (default: --no-feedback)",
    )
    parser.add_argument(
        "--kill",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="kill the run of --n at half and resume it (default: yes)",
    )
    parser.add_argument(
        "--kill-at", type=int, metavar="K", help="kill the run of --n at K (default: half)"
    )
    parser.add_argument(
        "--stop-after",
        type=int,
        metavar="M",
        help="stop the resumed run after M more submissions (default: to the end)",
    )
    parser.add_argument(
        "--throughput",
        action="store_true",
        help="instead: grade_prepared's throughput on 1 2 4 8 workers against the pool",
    )
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
    args = parser.parse_args(argv)
    prepare_nbgrader()
    if threading.current_thread() is threading.main_thread():
        stop_on_signals()
    root = (args.keep or Path(tempfile.mkdtemp(prefix="bench-scale-"))).resolve()
    root.mkdir(parents=True, exist_ok=True)
    try:
        if args.db is not None and not (args.throughput or args.equality):
            run_to_the_end(args, root, None)
            return 0
        with PostgresCluster() as pg:
            if args.equality:
                return run_equality(args, root, pg)
            if args.throughput:
                run_throughput(args, root, pg)
            else:
                run_to_the_end(args, root, pg)
    except KeyboardInterrupt:
        print("stopped: the grader and the PostgreSQL server were stopped", file=sys.stderr)
        return 130
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
