"""Grading on a Dask cluster (``--dask``, :mod:`autograder.grading.dask_batch`, issue 13).

Fast: the ``--dask`` forms, the refusals (a bad value; a scheduler with an SQLite gradebook:
one line, exit 2, nothing written), the files a worker sends back.

Slow: the demo class of two assignments plus two more students graded with
``--dask local:2 --db postgresql+psycopg://…`` (sandboxed when the sandbox can run) gives
exactly the grades.csv and results.json of the default run (the process pool, SQLite);
a worker killed (SIGKILL) while it grades loses nothing and records nothing twice; a
submission that runs past the per-submission wall-clock bound is stopped and flagged, and
the honest one graded after it by the same worker keeps full marks; a ``dask worker`` in a
mount namespace of its own, which cannot open the course folder or the submissions, grades
the batch through ``--dask tcp://...`` with the default run's results.

Fast: the dashboard's link is printed only when the scheduler can draw a dashboard.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.course import list_assignments
from autograder.grading import parse_dask_target
from autograder.grading.dask_batch import read_tree, write_tree
from autograder.models import GradingError, SubmissionsError
from autograder.options import GradeOptions
from devtools.postgres import submission_counts
from tests.autograder.fault_helpers import described, refusal, temp_leftovers
from tests.needs import require, sandbox_args

ASSIGNMENTS = list_assignments()[:2]
SANDBOX_ARGS = sandbox_args()


# ------------------------------------------------------------------------------- fast


@pytest.mark.parametrize(
    ("text", "target"),
    [("local:1", 1), ("local:8", 8), ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786")],
)
def test_dask_targets(text, target):
    assert parse_dask_target(text) == target


@pytest.mark.parametrize(
    "text", ["local:0", "local:", "local:two", "8786", "tcp://host", "tcp://:8786", "http://h:1"]
)
def test_a_bad_dask_target_is_the_instructors_mistake(text):
    with pytest.raises(SubmissionsError, match="is not 'local:N'"):
        parse_dask_target(text)


def _cli(tmp_path: Path, *extra: str) -> int:
    folder = tmp_path / "submissions"
    folder.mkdir(exist_ok=True)
    course, out = tmp_path / "course", tmp_path / "out"
    return main(["grade", str(folder), "--course", str(course), "--out", str(out), *extra])


def test_a_bad_dask_value_is_one_line_and_exit_2(tmp_path, capsys):
    assert _cli(tmp_path, "--dask", "local:zero") == 2
    assert "--dask 'local:zero' is not 'local:N'" in refusal(capsys.readouterr().err)
    assert not (tmp_path / "out").exists() and not (tmp_path / "course").exists()


def test_a_scheduler_with_an_sqlite_gradebook_is_refused(tmp_path, capsys):
    assert _cli(tmp_path, "--dask", "tcp://127.0.0.1:8786") == 2
    line = refusal(capsys.readouterr().err)
    assert "cannot share an SQLite gradebook" in line and "--db postgresql+psycopg://" in line
    assert _cli(tmp_path, "--dask", "tcp://127.0.0.1:8786", "--db", "sqlite:///x.db") == 2
    assert not (tmp_path / "out").exists() and not (tmp_path / "course").exists()


def test_files_travel_as_bytes_and_stay_in_their_folder(tmp_path):
    files = {"a.ipynb": b"{}", "data/x.csv": b"1,2\n"}
    write_tree(tmp_path / "one", files)
    assert read_tree(tmp_path / "one") == files
    write_tree(tmp_path / "one", {"b.txt": b"b"})  # replaces what was there
    assert read_tree(tmp_path / "one") == {"b.txt": b"b"}
    assert read_tree(tmp_path / "absent") == {}
    with pytest.raises(GradingError, match="outside its folder"):
        write_tree(tmp_path / "two", {"../escape.txt": b"x"})
    assert not (tmp_path / "escape.txt").exists()


@pytest.mark.slow
def test_an_unreachable_scheduler_is_the_graders_error():
    from autograder.grading.dask_batch import dask_client

    with pytest.raises(GradingError, match="cannot reach the Dask scheduler"):
        with dask_client("tcp://127.0.0.1:9", connect_timeout=1):
            pass


# ------------------------------------------------------------------------------- slow


def _release(root: Path, db: list[str]) -> None:
    args = [arg for assignment in ASSIGNMENTS for arg in ("--assignment", assignment)]
    assert main(["release", "--course", str(root / "course"), *args, *db]) == 0


def _grade(folder: Path, root: Path, *extra: str) -> int:
    course, out = str(root / "course"), str(root / "out")
    return main(["grade", str(folder), "--course", course, "--out", out, "--no-progress", *extra])


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    """The demo class of two assignments and two more students (copies of full marks and
    of typical bugs), so that both workers have work at once."""
    from autograder.samples.demo import build_demo_submissions

    root = tmp_path_factory.mktemp("dask-batch")
    _release(root, [])
    folder = root / "submissions"
    build_demo_submissions(root / "course", folder, ASSIGNMENTS)
    for student in ("full_marks", "typical_bugs"):
        shutil.copytree(folder / student, folder / f"{student}_2")
    return folder


@pytest.fixture(scope="module")
def default_run(batch, tmp_path_factory) -> Path:
    """The batch graded as today: the process pool, the SQLite gradebook."""
    root = tmp_path_factory.mktemp("default")
    _release(root, [])
    assert _grade(batch, root, "--workers", "2", *SANDBOX_ARGS) == 0
    return root / "out"


def _expected(batch: Path) -> dict[tuple[str, str], int]:
    # what was handed in: a student of the class without a folder for an assignment has
    # "no submission" (in grades.csv, not in the gradebook)
    return {(a, s.name): 1 for a in ASSIGNMENTS for s in batch.iterdir() if (s / a).is_dir()}


def _grade_unsandboxed(batch: Path, root: Path, url: str, target: str, **kwargs) -> None:
    """The batch graded through the API (``kwargs``: e.g. ``on_result``) on ``target``."""
    from autograder.api import grade_path

    options = GradeOptions(
        layout="nbgrader",
        course_dir=root / "course",
        out_dir=root / "out",
        sandbox=False,
        db_url=url,
        dask=target,
    )
    grade_path(batch, options, **kwargs)


def _without_diagnoses(results_json: Path) -> dict:
    """results.json less the misconceptions' diagnoses: the trusted re-check, which makes
    them, runs in the sandbox only, so an ``--unsandboxed`` run has none (by design); every
    score, flag and test outcome must still be the default run's."""
    data = json.loads(results_json.read_text())
    for submission in data["submissions"]:
        submission.pop("diagnoses", None)
    return data


def _assert_each_graded_once(batch: Path, root: Path, url: str, default_run: Path) -> None:
    """The default run's results (unsandboxed: without the diagnoses); one ledger line and
    one gradebook submission for every (assignment, student) of the batch."""
    results = _without_diagnoses(root / "out" / "results.json")
    assert results == _without_diagnoses(default_run / "results.json")
    lines = (root / "course" / "ledger.jsonl").read_text().splitlines()
    keys = [(json.loads(line)["assignment"], json.loads(line)["student"]) for line in lines]
    assert sorted(keys) == sorted(_expected(batch))
    assert submission_counts(url) == _expected(batch)


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_dask_on_postgres_gives_the_default_runs_results(batch, default_run, postgres, tmp_path):
    url = postgres.create_database("dask_equal")
    _release(tmp_path, ["--db", url])
    assert _grade(batch, tmp_path, "--dask", "local:2", "--db", url, *SANDBOX_ARGS) == 0
    out = tmp_path / "out"
    assert (out / "grades.csv").read_text() == (default_run / "grades.csv").read_text()
    assert (out / "results.json").read_text() == (default_run / "results.json").read_text()
    assert (out / "summary.md").read_text() == (default_run / "summary.md").read_text()
    # graded for real, each submission once in the gradebook; the workers' autograded
    # notebooks and feedback pages came back into the course and the out folder
    results = json.loads((out / "results.json").read_text())
    got = {(r["assignment"], r["student"]): r for r in results["submissions"]}
    for assignment in ASSIGNMENTS:
        full = got[(assignment, "full_marks")]
        assert full["score"] == full["max_score"] > 0
        autograded = tmp_path / "course" / "autograded" / "full_marks" / assignment
        assert list(autograded.glob("*.ipynb"))
        pages = sorted((out / "feedback" / "full_marks" / assignment).glob("*.html"))
        assert pages and str(tmp_path) not in pages[0].read_text()
    assert submission_counts(url) == _expected(batch)


def _dask_workers() -> list:
    """The local cluster's worker processes: this process's spawned children."""
    import psutil

    workers = []
    for child in psutil.Process().children():
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                workers.append(child)
        except psutil.Error:
            continue
    return workers


def _has_a_kernel(worker) -> bool:
    """Whether a Dask worker is grading: below it (its grading process, that process's
    kernel template) runs a kernel, forked from the template or started cold."""
    for process in worker.children(recursive=True):
        command = " ".join(process.cmdline())
        parent = process.parent()
        if "ipykernel" in command or (
            parent is not None and "autograder.grading.prewarm" in " ".join(parent.cmdline())
        ):
            return True
    return False


def _kill_a_busy_worker(stop: threading.Event, killed: list[int]) -> None:
    """SIGKILL the first worker seen grading (it has a kernel running), once."""
    import psutil

    while not stop.wait(0.2):
        for worker in _dask_workers():
            try:
                if _has_a_kernel(worker):
                    worker.send_signal(signal.SIGKILL)
                    killed.append(worker.pid)
                    return
            except psutil.Error:
                continue


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_a_worker_killed_while_grading_loses_nothing(
    batch, default_run, postgres, tmp_path, monkeypatch, request
):
    """A Dask worker SIGKILLed while it grades: its task runs again on another worker, each
    submission is graded once; and the killed worker's temporary course (``autograde-*``,
    which it could not remove) is gone when the run ends (the grader's sweep: without it,
    it stays). The run's temporary folder (TMPDIR, which the workers inherit) is the
    test's own."""
    tmpdir = Path(tempfile.mkdtemp(prefix="grader-tmp-"))
    request.addfinalizer(lambda: shutil.rmtree(tmpdir, ignore_errors=True))
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    monkeypatch.setattr(tempfile, "tempdir", None)  # this process's, read again from TMPDIR
    url = postgres.create_database("dask_kill")
    _release(tmp_path, ["--db", url])
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_busy_worker, args=(stop, killed), daemon=True)
    try:
        # a student's submission is killed: the killer starts once the canary (the
        # instructor's solution, graded first) has passed
        _grade_unsandboxed(batch, tmp_path, url, "local:2", on_canary=lambda *_: killer.start())
    finally:
        stop.set()
        if killer.is_alive():
            killer.join()
    assert len(killed) == 1, "no worker was seen grading"
    # every submission graded once: the killed worker's task ran again elsewhere, with
    # the results of the default run
    _assert_each_graded_once(batch, tmp_path, url, default_run)
    left = temp_leftovers(tmpdir)
    assert not left, "the run left in its TMPDIR:\n" + described(left)


def test_grade_path_refuses_a_bad_target_before_reading(tmp_path):
    from autograder.api import grade_path

    with pytest.raises(SubmissionsError):
        grade_path(tmp_path / "nowhere", GradeOptions(course_dir=tmp_path / "c", dask="local:-1"))


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_a_running_scheduler_grades_with_a_postgres_gradebook(
    batch, default_run, postgres, tmp_path
):
    """``--dask tcp://...``: a scheduler and two workers already running (as ``dask
    scheduler`` and ``dask worker`` would be), the gradebook in PostgreSQL."""
    from distributed import LocalCluster

    url = postgres.create_database("dask_tcp")
    _release(tmp_path, ["--db", url])
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://")
        assert _grade(batch, tmp_path, "--dask", address, "--db", url, "--unsandboxed") == 0
    out = tmp_path / "out"
    assert _without_diagnoses(out / "results.json") == _without_diagnoses(
        default_run / "results.json"
    )
    assert (out / "grades.csv").read_text() == (default_run / "grades.csv").read_text()
    assert submission_counts(url) == _expected(batch)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_cluster(log: Path, workers: int = 2) -> tuple[str, list]:
    """``dask scheduler`` and ``dask worker`` (``workers`` single-threaded processes; 0: no
    worker), as an instructor starts them: their address and processes."""
    import subprocess
    import sys
    import time

    dask_cli = str(Path(sys.executable).parent / "dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    out = log.open("ab")
    scheduler = subprocess.Popen(
        [dask_cli, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=out,
        stderr=out,
    )
    procs = [scheduler]
    if workers:
        procs.append(
            subprocess.Popen(
                [
                    dask_cli,
                    "worker",
                    address,
                    "--nworkers",
                    str(workers),
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                stdout=out,
                stderr=out,
            )
        )
    from distributed import Client

    try:
        with Client(address, timeout=60) as client:
            if workers:
                client.wait_for_workers(workers, timeout=120)
    except BaseException:
        _stop(procs)  # no scheduler or worker left behind
        raise
    time.sleep(0.1)
    return address, procs


def _stop(procs: list) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_a_run_whose_scheduler_dies_resumes(batch, default_run, postgres, tmp_path):
    """The scheduler killed (SIGKILL) once a first submission is back: the run stops with
    the grader's error, the ledger keeps what came back, and the same command with a new
    scheduler grades the rest: each submission once in the ledger and the gradebook."""
    url = postgres.create_database("dask_resume")
    _release(tmp_path, ["--db", url])
    address, procs = _start_cluster(tmp_path / "dask.log")
    back = []

    def on_result(result) -> None:
        if result.seconds > 0 and not back:  # graded by a worker (not a corrupt notebook)
            back.append(result)
            procs[0].send_signal(signal.SIGKILL)

    try:
        with pytest.raises(GradingError, match="lost the Dask scheduler"):
            _grade_unsandboxed(batch, tmp_path, url, address, on_result=on_result)
    finally:
        _stop(procs)
    ledger = tmp_path / "course" / "ledger.jsonl"
    first = ledger.read_text().splitlines()
    assert back and 1 <= len(first) < len(_expected(batch))
    address, procs = _start_cluster(tmp_path / "dask.log")
    try:
        _grade_unsandboxed(batch, tmp_path, url, address)
    finally:
        _stop(procs)
    assert ledger.read_text().splitlines()[: len(first)] == first
    _assert_each_graded_once(batch, tmp_path, url, default_run)


# ------------------------------------------------------------ a worker that shares nothing


#: A shell command line run in a mount namespace of its own (mounts made there stay there).
_IN_A_MOUNT_NAMESPACE = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c"]


def _namespace_problem() -> str | None:
    """Why a worker cannot be started in a mount namespace of its own here (None: it can):
    ``unshare --mount`` and ``mount -t tmpfs`` need root (CI runs as root)."""
    import shutil
    import subprocess

    if os.geteuid() != 0:
        return "a mount namespace of its own needs root (unshare --mount, mount -t tmpfs)"
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(
        [
            *_IN_A_MOUNT_NAMESPACE,
            "mount -t tmpfs probe /mnt",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"cannot mount in a namespace of its own: {probe.stderr.strip()}"
    return None


#: Run inside ``unshare --mount``: an empty, read-only tmpfs over each folder of $HIDE (the
#: grader's course folders and the submissions), a private tmpfs as the worker's $TMPDIR,
#: then the worker.
_HIDE_AND_RUN = """set -e
mount -t tmpfs -o size=2g,mode=1777 worker-tmp "$TMPDIR"
IFS=:
for folder in $HIDE; do mount -t tmpfs -o ro,size=1m,mode=755 hidden "$folder"; done
unset IFS
exec "$@"
"""


def _start_isolated_worker(address: str, hide: list[Path], log: Path) -> object:
    """``dask worker ADDRESS`` (two grading workers, as on another machine) in a mount
    namespace of its own, where every folder of ``hide`` is an empty tmpfs and its
    temporary folder is its own."""
    import subprocess
    import sys
    import tempfile

    from course_common.paths import REPO_ROOT

    dask_cli = str(Path(sys.executable).parent / "dask")
    own_tmp = tempfile.mkdtemp(prefix="isolated-worker-tmp-")
    env = dict(
        os.environ,
        HIDE=":".join(str(folder) for folder in hide),
        TMPDIR=own_tmp,
        PYTHONPATH=str(REPO_ROOT),  # the grading machine's own clone (the tests package too)
    )
    out = log.open("ab")
    return subprocess.Popen(
        [
            *_IN_A_MOUNT_NAMESPACE,
            _HIDE_AND_RUN,
            "sh",
            dask_cli,
            "worker",
            address,
            "--nworkers",
            "2",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        stdout=out,
        stderr=out,
        env=env,
        cwd=REPO_ROOT,
    )


def what_this_process_reads(paths: list[str]) -> dict[str, str]:
    """Run in a Dask worker: each path -> ``"read"`` or the error that opening it raised;
    and ``"mount namespace"`` -> this process's."""
    out = {}
    for path in paths:
        try:
            with open(path, "rb") as fh:
                fh.read(1)
            out[path] = "read"
        except OSError as exc:
            out[path] = type(exc).__name__
    out["mount namespace"] = os.readlink("/proc/self/ns/mnt")
    return out


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_a_worker_that_shares_no_file_system_grades_the_class(
    batch, default_run, postgres, tmp_path, tmp_path_factory
):
    """``--dask tcp://...`` with a ``dask worker`` in a mount namespace of its own, where the
    course folders and the submissions are empty (a tmpfs over the test session's
    temporary folder) and its temporary folder is its own: the worker cannot open a course
    file or a submission (shown below), yet grades the class with the default run's
    results. So workers on other machines need no shared file system: the submissions,
    the release's source notebooks and the graded outputs travel through Dask, the grades
    through the gradebook's URL."""
    from distributed import Client

    problem = _namespace_problem()
    require(problem is None, f"no mount namespace for the worker: {problem}")
    url = postgres.create_database("dask_isolated")
    _release(tmp_path, ["--db", url])
    hidden = tmp_path_factory.getbasetemp()
    assert tmp_path.is_relative_to(hidden) and batch.is_relative_to(hidden)
    assert not Path(url.split("host=")[1]).is_relative_to(hidden)  # the gradebook's socket
    course_files = [
        tmp_path / "course" / "source" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb",
        tmp_path / "course" / "release" / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb",
        tmp_path / "course" / "nbgrader_config.py",
        next(batch.glob(f"*/{ASSIGNMENTS[0]}/*.ipynb")),
    ]
    assert all(path.is_file() for path in course_files)  # here, in the grader's process
    address, procs = _start_cluster(tmp_path / "dask.log", workers=0)
    procs.append(_start_isolated_worker(address, [hidden], tmp_path / "dask.log"))
    try:
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=180)
            seen = client.run(what_this_process_reads, [str(p) for p in course_files])
        assert len(seen) == 2
        for worker in seen.values():
            assert worker.pop("mount namespace") != os.readlink("/proc/self/ns/mnt")
            assert worker == {str(p): "FileNotFoundError" for p in course_files}
        assert _grade(batch, tmp_path, "--dask", address, "--db", url, *SANDBOX_ARGS) == 0
    finally:
        _stop(procs)
    out = tmp_path / "out"
    assert (out / "results.json").read_text() == (default_run / "results.json").read_text()
    assert (out / "grades.csv").read_text() == (default_run / "grades.csv").read_text()
    assert submission_counts(url) == _expected(batch)
    full = json.loads((out / "results.json").read_text())["submissions"]
    assert any(r["score"] == r["max_score"] > 0 for r in full)
    assert list((out / "feedback" / "full_marks" / ASSIGNMENTS[0]).glob("*.html"))


# ------------------------------------------------------------------ the dashboard's link


class _FakeClient:
    """What :func:`dashboard_link` asks of a ``distributed.Client``."""

    dashboard_link = "http://127.0.0.1:8787/status"

    def __init__(self, services: dict, bokeh: bool | Exception) -> None:
        self.services, self.bokeh = services, bokeh

    def scheduler_info(self) -> dict:
        return {"services": self.services}

    def run_on_scheduler(self, function):
        if isinstance(self.bokeh, Exception):
            raise self.bokeh
        return self.bokeh


def test_the_dashboard_link_is_printed_when_the_scheduler_draws_one(capsys):
    from autograder.grading.dask_batch import dashboard_link

    assert dashboard_link(_FakeClient({"dashboard": 8787}, True)) == _FakeClient.dashboard_link
    # a scheduler that cannot say: Dask's own behaviour, the link
    assert dashboard_link(_FakeClient({"dashboard": 8787}, OSError("no"))) is not None
    # no dashboard service, or one without bokeh (its pages are not drawn): no link
    assert dashboard_link(_FakeClient({}, True)) is None
    assert dashboard_link(_FakeClient({"dashboard": 8787}, False)) is None


# ------------------------------------------------------------- the wall-clock bound on Dask

#: The bound in the test: an honest stand-in grades well within it, even in a grading
#: process that has just been started again (nbgrader imported, the kernel template warmed).
BOUND = 45
#: Each of the hanging submission's three test cells sleeps this long: under the per-cell
#: timeout (30 s), so only the submission's bound can stop it.
NAP = 28


@pytest.mark.slow
def test_a_submission_past_the_bound_is_stopped_and_flagged(tmp_path, capsys):
    """One Dask worker grades a submission whose every test sleeps (three cells of 28 s:
    past a 45 s bound, though no cell reaches nbgrader's per-cell timeout), then an honest
    one: the first is stopped at the bound and flagged with the pool's text, the second is
    graded by the worker's new grading process with full marks."""
    import dataclasses
    import importlib.util

    from autograder.grading import grade_prepared
    from benchmarks.bench_scale import STANDIN, standin_course, standin_notebook, submissions

    course = standin_course(tmp_path)
    slow = f"import time\ndef add(a, b):\n    time.sleep({NAP})\n    return a + b\n"
    slow_sign = f"import time\ndef sign(x):\n    time.sleep({NAP})\n    return 1 if x > 0 else -1\n"
    hanging, honest = submissions(course, STANDIN, 2, [{"add": slow, "sign": slow_sign}, {}])
    hanging = dataclasses.replace(hanging, student="hangs")
    honest = dataclasses.replace(honest, student="honest")
    options = GradeOptions(sandbox=False, dask="local:1", feedback=False)
    results = grade_prepared(course, [hanging, honest], options, timeout=BOUND)

    stopped = results[(STANDIN, "hangs")]
    assert not stopped.ok
    assert any(
        flag.startswith(f"could not be graded: grading took longer than {BOUND} s and was stopped")
        for flag in stopped.flags
    ), stopped.flags

    kept = results[(STANDIN, "honest")]
    assert kept.ok and not kept.flags
    points = {
        cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"]
        for cell in standin_notebook().cells
        if cell.metadata["nbgrader"]["grade"]
    }
    assert kept.scores == {name: (float(p), float(p)) for name, p in points.items()}
    if importlib.util.find_spec("bokeh") is None:  # Dask's dashboard cannot be drawn
        assert "Dask dashboard" not in capsys.readouterr().err


def test_the_equality_benchmark_names_every_difference(tmp_path):
    """``python -m benchmarks scale --equality`` compares two output folders: identical
    ones give no difference; a changed score, flag or CSV cell is named."""
    from benchmarks.bench_scale import compare_outputs

    def write(folder: Path, score: float, flags: list[str]) -> Path:
        folder.mkdir()
        entry = {"student": "ada", "assignment": "01", "score": score, "max_score": 2.0}
        entry.update(tests={"t": {"score": score, "max_score": 2.0}}, flags=flags)
        (folder / "results.json").write_text(json.dumps({"format": 1, "submissions": [entry]}))
        (folder / "grades.csv").write_text(f"assignment,student_id,score\n01,ada,{score}\n")
        return folder

    same = write(tmp_path / "a", 2.0, []), write(tmp_path / "b", 2.0, [])
    assert compare_outputs(*same) == []
    differences = compare_outputs(same[0], write(tmp_path / "c", 1.0, ["late"]))
    assert any(d.startswith("grades.csv:") for d in differences)
    assert any(d.startswith("results.json ('01', 'ada')") for d in differences)


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_the_scale_benchmark_stops_its_grader_and_its_postgresql(stop, tmp_path):
    """``python -m benchmarks scale`` stopped (SIGTERM, or Ctrl-C's SIGINT sent to it
    alone) while its grader runs stops that grader with everything it started and the
    throw-away PostgreSQL server, and removes its work folder. (Without the benchmark's
    handlers, SIGTERM ended the benchmark alone: the grader and the server ran on.)"""
    import subprocess
    import sys
    import time

    import psutil

    from course_common.paths import REPO_ROOT
    from devtools.postgres import postgres_bindir

    require(postgres_bindir() is not None, "PostgreSQL is not installed")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    bench = subprocess.Popen(
        [sys.executable, "-m", "benchmarks", "scale", "--n", "30", "--sizes", "--no-kill"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # the signal goes to the benchmark alone
    )
    started: list[psutil.Process] = []
    try:
        server = None
        for line in bench.stdout:
            if "PostgreSQL server: pid" in line:
                server = psutil.Process(int(line.split("pid")[1].split()[0]))
                break
        assert server is not None, "the benchmark did not start its server"
        benchmark = psutil.Process(bench.pid)
        deadline = time.monotonic() + 300
        grader = None
        while time.monotonic() < deadline:  # the grader, once its Dask workers run
            graders = [p for p in benchmark.children() if "--as-grader" in p.cmdline()]
            if graders and len(graders[0].children(recursive=True)) >= 2:
                grader = graders[0]
                break
            time.sleep(0.5)
        assert grader is not None, "the grader did not start its workers"
        started = [server, grader, *grader.children(recursive=True)]
        work = [p for p in tmp_path.iterdir() if p.name.startswith("bench-scale-")]
        assert work
        bench.send_signal(stop)
        bench.wait(timeout=180)
        _, alive = psutil.wait_procs(started, timeout=30)
        assert not alive, [p.pid for p in alive]
        assert not any(p.exists() for p in work)
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        for process in started:
            with contextlib.suppress(psutil.Error):
                process.kill()
