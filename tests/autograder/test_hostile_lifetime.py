"""Nothing outlives the grader (issue 16): every process a grading run starts ends with it.

Real grading runs of the command line (``python -m autograder grade``, two workers) on a
small class of the first assignment, each in a copy of one released course. While the run
grades, its process tree is recorded with psutil (workers, kernel templates, kernels,
bubblewrap and everything inside). Then the grader is killed with SIGKILL (sandboxed and
without the sandbox, where kernels are forked from the pre-warmed templates), or stopped
with Ctrl-C (SIGINT to its process group) or SIGTERM, or left to finish; afterwards no
recorded process may be alive, and none whose command line names the run's folder or the
daemon's token. In the sandbox, one student's answer double-forks a daemon in a session of
its own: it must be gone too. After a clean stop the grades written so far (the ledger's
lines) are kept; after a finished run every honest student has the assignment's full points.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import nbformat
import psutil
import pytest

from autograder.course import Course, list_assignments
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import make_submission, solution_sources

ASSIGNMENTS = list_assignments()
HONEST = tuple(f"{letter}_honest" for letter in "bcdefghi")

#: Seconds a run may take to reach the state a test waits for (grading is slow on a busy
#: machine), and for its processes to go once the grader is gone.
START_TIMEOUT = 300.0
GONE_TIMEOUT = 15.0

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")

needs_sandbox = pytest.mark.needs_sandbox

#: A student's answer that leaves a daemon behind: fork, new session, fork again, and the
#: grandchild becomes a sleeping Python process whose command line carries a token.
DAEMON = """\
import os as _os, sys as _sys, time as _time
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execv(_sys.executable, [_sys.executable, "-c",
                  "import time\\nwhile True: time.sleep(1)", "{token}"])
    _os._exit(0)
_time.sleep({linger})
"""

#: A student's answer that keeps its kernel busy (longer than GONE_TIMEOUT: the run cannot
#: just end by itself while the test waits), once it has left a mark that it runs.
SLOW = """\
open({marker!r}, "w").close()
import time as _time
_time.sleep(120)
"""


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, str]:
    """A course with the first assignment released (copied for each run)."""
    assignment = ASSIGNMENTS[0]
    course_dir = tmp_path_factory.mktemp("lifetime") / "course"
    ensure_released(Course(course_dir), [assignment])
    return course_dir, assignment


def _full_points(source_nb: Path) -> float:
    nb = nbformat.read(source_nb, as_version=4)
    return sum(
        float(c.metadata["nbgrader"].get("points", 0))
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )


def _write_class(
    released: tuple[Path, str], root: Path, honest: int, prefix: str | None = None
) -> tuple[Path, Path]:
    """A copy of the released course, and a submissions folder: ``honest`` students with
    the instructor's solution, plus (with a ``prefix``) student ``a_hostile``, whose first
    code answer starts with that code."""
    course_dir, assignment = released
    run_course = root / "course"
    shutil.copytree(course_dir, run_course)
    release_nb = run_course / "release" / assignment / f"{assignment}.ipynb"
    source_nb = run_course / "source" / assignment / f"{assignment}.ipynb"
    subs = root / "submissions"
    assert honest <= len(HONEST), f"only {len(HONEST)} honest students are named"
    students = {name: {} for name in HONEST[:honest]}
    if prefix is not None:
        source = nbformat.read(source_nb, as_version=4)
        code_ids = {
            c.metadata["nbgrader"]["grade_id"]
            for c in source.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
        }
        grade_id, answer = next(
            (k, v) for k, v in solution_sources(source).items() if k in code_ids
        )
        students["a_hostile"] = {grade_id: prefix + answer}
    for name, replace in students.items():
        path = subs / name / assignment / f"{assignment}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_bytes(notebook_bytes(make_submission(release_nb, source_nb, replace)))
    return run_course, subs


class Run:
    """One grading run of the command line in a subprocess, and the processes it starts."""

    def __init__(self, root: Path, course: Path, subs: Path, *, sandboxed: bool) -> None:
        self.root, self.course = root, course
        argv = [sys.executable, "-m", "autograder", "grade", str(subs)]
        argv += ["--course", str(course), "--out", str(root / "out"), "--workers", "2"]
        argv += ["--no-feedback", "--no-progress"]
        if not sandboxed:
            argv.append("--unsandboxed")
        with (root / "grader.out").open("wb") as out, (root / "grader.err").open("wb") as err:
            self.proc = subprocess.Popen(
                argv,
                cwd=root,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group, as a terminal's job
            )
        self.seen: dict[int, psutil.Process] = {}

    def record(self) -> list[psutil.Process]:
        """The run's processes now (all recorded for the checks at the end)."""
        try:
            found = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        for p in found:
            self.seen.setdefault(p.pid, p)
        return found

    def wait_for(self, what: str, ready: Callable[[list[psutil.Process]], bool]) -> None:
        """Record the tree until ``ready(tree)``; fail if the run ends or takes too long."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            tree = self.record()
            if ready(tree):
                return
            if self.proc.poll() is not None:
                pytest.fail(f"the run ended before {what}:\n{self.stderr()}")
            time.sleep(0.2)
        self.proc.kill()
        pytest.fail(f"no {what} after {START_TIMEOUT:.0f} s")

    def stderr(self) -> str:
        return (self.root / "grader.err").read_text(errors="replace")

    def finish(self, timeout: float) -> int:
        """Wait for the grader to end; its exit status."""
        return self.proc.wait(timeout=timeout)

    def left(self, *tokens: str) -> list[psutil.Process]:
        """Processes of the run still alive: recorded ones, and any naming its folder or a
        token."""
        alive = [p for p in self.seen.values() if _alive(p)]
        marks = [str(self.root), *tokens]
        for p in psutil.process_iter(["cmdline"]):
            cmdline = " ".join(p.info["cmdline"] or [])
            if p.pid != os.getpid() and any(m in cmdline for m in marks) and _alive(p):
                if p.pid not in {q.pid for q in alive}:
                    alive.append(p)
        return alive

    def wait_gone(self, *tokens: str) -> list[str]:
        """Wait until nothing of the run is left; what is still there at the deadline."""
        deadline = time.monotonic() + GONE_TIMEOUT
        left = self.left(*tokens)
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = self.left(*tokens)
        described = [_describe(p) for p in left]
        for p in left:  # a failing test leaves nothing behind either
            try:
                p.kill()
            except psutil.Error:
                pass
        return described


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _describe(p: psutil.Process) -> str:
    try:
        return f"{p.pid}: {' '.join(p.cmdline())[:160]}"
    except psutil.Error:
        return f"{p.pid}: (gone)"


def _cmdline(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:
        return ""


def _sandboxed_kernels(tree: list[psutil.Process]) -> list[psutil.Process]:
    """Started cold (bubblewrap runs ipykernel_launcher), or forked from a warm box's
    template (its command line, under a sandbox's uid)."""
    return [p for p in tree if "ipykernel_launcher" in _cmdline(p) or _warm_kernel(p)]


def _warm_kernel(p: psutil.Process) -> bool:
    try:
        return "sandbox-warm" in _cmdline(p) and p.uids().real != 0
    except psutil.Error:
        return False


def _forked_kernels(tree: list[psutil.Process]) -> list[psutil.Process]:
    templates = {p.pid for p in tree if "autograder.grading.prewarm" in _cmdline(p)}
    kernels = []
    for p in tree:
        try:
            if p.ppid() in templates:
                kernels.append(p)
        except psutil.Error:
            continue
    return kernels


def _has_token(token: str) -> Callable[[list[psutil.Process]], bool]:
    def check(tree: list[psutil.Process]) -> bool:
        return any(token in _cmdline(p) for p in tree)

    return check


def _ledger(course: Path) -> list[dict]:
    path = course / "ledger.jsonl"
    if not path.exists():
        return []
    lines = []
    for line in path.read_text().splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            continue
    return lines


def _kill_run(run: Run) -> None:
    os.kill(run.proc.pid, signal.SIGKILL)
    assert run.finish(timeout=30) == -signal.SIGKILL


@pytest.mark.slow
@needs_sandbox
def test_sigkill_sandboxed_leaves_nothing(released, tmp_path):
    """SIGKILL mid-batch: workers, bubblewrap, sandboxed kernels and a student's
    double-forked daemon inside the sandbox all go."""
    token = f"ag-daemon-{uuid.uuid4().hex}"
    course, subs = _write_class(released, tmp_path, 2, DAEMON.format(token=token, linger=120))
    run = Run(tmp_path, course, subs, sandboxed=True)
    run.wait_for("sandboxed kernel", lambda tree: bool(_sandboxed_kernels(tree)))
    run.wait_for("student daemon", _has_token(token))
    assert any("bwrap" in _cmdline(p) for p in run.record())
    _kill_run(run)
    left = run.wait_gone(token)
    assert not left, "still running:\n" + "\n".join(left)


@pytest.mark.slow
def test_sigkill_unsandboxed_leaves_nothing(released, tmp_path):
    """SIGKILL mid-batch without the sandbox: workers, pre-warmed kernel templates and the
    kernels forked from them all go (one kernel is busy in a long cell meanwhile)."""
    marker = tmp_path / "slow-cell-runs"
    course, subs = _write_class(released, tmp_path, 2, SLOW.format(marker=str(marker)))
    run = Run(tmp_path, course, subs, sandboxed=False)
    run.wait_for("busy forked kernel", lambda tree: marker.exists() and bool(_forked_kernels(tree)))
    _kill_run(run)
    left = run.wait_gone()
    assert not left, "still running:\n" + "\n".join(left)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "sandboxed"),
    [
        pytest.param(signal.SIGINT, True, marks=needs_sandbox, id="ctrl-c-sandboxed"),
        pytest.param(signal.SIGTERM, False, id="sigterm-unsandboxed"),
    ],
)
def test_clean_stop_keeps_grades_and_leaves_nothing(released, tmp_path, signum, sandboxed):
    """Ctrl-C (SIGINT to the grader's process group, as a terminal sends it) or SIGTERM
    (to the grader alone) once a grade is in: exit 130, the ledger's lines kept, and no
    process left. Eight students: with four, the first grade could come in while the last
    notebook ran, and the run end (exit 0) before the signal reached it (seen once in a full
    suite beside a benchmark)."""
    course, subs = _write_class(released, tmp_path, 8)
    run = Run(tmp_path, course, subs, sandboxed=sandboxed)
    kernels = _sandboxed_kernels if sandboxed else _forked_kernels
    run.wait_for(
        "first grade",
        lambda tree: 0 < len(_ledger(course)) <= 4 and bool(kernels(tree)),
    )
    before = _ledger(course)
    if signum == signal.SIGINT:
        os.killpg(run.proc.pid, signum)
    else:
        os.kill(run.proc.pid, signum)
    assert run.finish(timeout=120) == 130, run.stderr()
    assert "interrupted" in run.stderr()
    after = _ledger(course)
    kept = {(e["assignment"], e["student"]) for e in after}
    assert {(e["assignment"], e["student"]) for e in before} <= kept
    left = run.wait_gone()
    assert not left, "still running:\n" + "\n".join(left)


@pytest.mark.slow
@needs_sandbox
def test_finished_run_leaves_nothing(released, tmp_path):
    """A run that ends normally leaves no process, the daemon a student started in the
    sandbox included; every honest student has the assignment's full points."""
    token = f"ag-daemon-{uuid.uuid4().hex}"
    course, subs = _write_class(released, tmp_path, 2, DAEMON.format(token=token, linger=3))
    run = Run(tmp_path, course, subs, sandboxed=True)
    run.wait_for("student daemon", _has_token(token))
    while run.proc.poll() is None:
        run.record()
        time.sleep(0.2)
    assert run.finish(timeout=60) == 0, run.stderr()
    left = run.wait_gone(token)
    assert not left, "still running:\n" + "\n".join(left)
    _, assignment = released
    full = _full_points(course / "source" / assignment / f"{assignment}.ipynb")
    with open(tmp_path / "out" / "grades.csv", newline="", encoding="utf-8") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    for student in HONEST[:2]:
        assert float(rows[student]["score"]) == pytest.approx(full), rows[student]
    assert "a_hostile" in rows
