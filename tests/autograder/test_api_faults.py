"""No grade lost to a fault, end to end through ``python -m autograder grade``.

Each test grades a small class of real submissions of 01_hyperplanes (the instructor's
solution and two typical bugs, expected scores from the notebook's points and the sample
answers' lost tests), makes the machine fail in one way while a run is under way, and checks
that

- the run ends with one line saying what happened and what to do (exit status 1; 2 for a
  course another run holds, with ``--no-wait``), never exit 0 with honest students
  "could not be graded";
- every output is its old file or its new one, never a torn one;
- the ledger holds only what the notebooks earned (a failure of the machine is not recorded);
- the same command run once more gives the whole class, every grade correct.

The faults are real: a tmpfs disk filled up (in a private mount namespace), SIGKILL at
chosen system calls (strace injects it: the grader is stopped exactly while it writes an
output), an SQLite write transaction held open by another process past the busy timeout,
a grading worker killed, two runs started at the same moment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from autograder.grading import CANARY_PREFIX
from course_common.assets import mathjax_available
from tests.autograder.fault_helpers import (
    ASSIGNMENT,
    SANDBOX_ARGS,
    SECOND,
    assert_complete,
    assert_ledger_holds_only_earned,
    assert_old_or_new,
    cli_command,
    described,
    environment,
    ledger_entries,
    one_line_error,
    run_cli,
    sample_class,
    snapshot,
    temp_leftovers,
    wait_for,
)
from tests.needs import require

AGAIN = "run the same command again; nothing graded is lost"


@pytest.fixture
def sample(tmp_path):
    return sample_class(tmp_path)


@pytest.fixture
def tmpdir_of_its_own():
    """A fresh temporary folder for the test's runs (their TMPDIR), removed after. Not under
    ``tmp_path``: a sandboxed kernel's IPC sockets are made two folders below it, and a
    socket's path has at most 107 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="grader-tmp-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def grade_args(sample, course: Path, out: Path, *extra: str) -> list:
    return ["grade", sample.folder, "--course", course, "--out", out, "--workers", "2", *extra]


# --------------------------------------------------------------------------- two runs at once


@pytest.mark.slow
def test_two_runs_started_together_take_turns(sample, tmp_path):
    """Two instructors (or a cron job and a person) start the same grade command on one
    fresh course at the same moment. One holds the course while the other waits, saying so
    with the holder's process id; both finish with exit 0 and the whole class correctly
    graded, each submission graded once (three ledger lines). Without the lock (today's
    main) both release and grade at once: a run fails (nbgrader finds no notebook another
    run is copying, or the gradebook's UNIQUE constraint), or students are flagged
    "could not be graded"; and neither says it waits."""
    course, out = tmp_path / "course", tmp_path / "out"
    command = cli_command(*grade_args(sample, course, out))
    runs = [
        subprocess.Popen(
            command,
            cwd=tmp_path,
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(run.pid, *run.communicate(timeout=900), run.returncode) for run in runs]
    for _pid, _stdout, stderr, status in results:
        assert status == 0, stderr[-3000:]
    waited = [
        (pid, stderr) for pid, _, stderr, _ in results if "waiting for the other run" in stderr
    ]
    assert len(waited) == 1, [stderr[-500:] for _, _, stderr, _ in results]
    waiter, stderr = waited[0]
    holder = next(pid for pid, *_ in results if pid != waiter)
    assert f"course folder course/ (process {holder}) to finish" in stderr
    assert_complete(out, sample)
    assert len(ledger_entries(course)) == 3  # graded once each: the second run reused them


@pytest.mark.slow
def test_no_wait_refuses_a_course_in_use(sample, tmp_path):
    """With --no-wait, a run on a course another run holds is refused at once: exit 2, one
    line naming the other run's process id, nothing written. The holder here is another
    process holding the course's lock, as a run does; once it is killed (SIGKILL: no chance
    to clean up) its lock file is left behind and the next run is not refused."""
    course, out = tmp_path / "course", tmp_path / "out"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from autograder.course import Course\n"
            "with Course(sys.argv[1]).lock():\n print('held', flush=True); time.sleep(600)",
            str(course),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        refused = run_cli(*grade_args(sample, course, out, "--no-wait"), cwd=tmp_path)
        assert refused.returncode == 2, refused.stderr[-2000:]
        line = one_line_error(refused.stderr)
        assert f"another run (process {holder.pid}) is using the course folder course/" in line
        assert not out.exists() and not (course / "ledger.jsonl").exists()
        assert sorted(p.name for p in course.iterdir()) == [".lock"]
    finally:
        holder.kill()
        holder.wait()
    graded = run_cli(*grade_args(sample, course, out, "--no-wait"), cwd=tmp_path)
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert_complete(out, sample)


# --------------------------------------------------------------------------- a full disk


@pytest.mark.slow
@pytest.mark.parametrize("leave_kb", [0, 100])
def test_full_output_folder(sample, tmp_path, namespace, leave_kb):
    """The output folder's disk fills up while the outputs are written (a 24 MiB tmpfs,
    filled to ``leave_kb`` KiB after a first run wrote the old outputs; then a student hands
    in again): one line "no space left on device writing …: free space on it and run the
    same command again; nothing graded is lost", exit 1; each output is the old file or the
    new one (0 KiB: results.json cannot be written; 100 KiB: it can, a feedback page of
    ~250 KiB cannot); the grading itself is kept (the ledger); after freeing the space, the
    same command gives the whole class, correctly, grading nothing again. Today's main ends
    in a Python traceback (0 KiB) or exits 0 having written nothing whole but what fits
    where it first deleted the old file (100 KiB: it removes a page before copying)."""
    course, out = tmp_path / "course", tmp_path / "out"
    namespace.mount_tmpfs(out, 24 * 1024)  # MathJax (12 MiB) and the pages
    first = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert first.returncode == 0, first.stderr[-3000:]
    old = snapshot(namespace.view(out))
    sample.hand_in(SECOND)
    ballast = namespace.fill(out, leave_kb)
    full = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert full.returncode == 1, full.stderr[-3000:]
    line = one_line_error(full.stderr)
    assert re.search(r"error: no space left on device writing \S+", line), line
    assert line.endswith(f": free space on it and {AGAIN}"), line
    graded = len(ledger_entries(course))
    assert graded == 4  # the resubmission was graded and kept, though not written out
    ballast.unlink()
    mid = snapshot(namespace.view(out))
    again = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(ledger_entries(course)) == graded  # nothing graded twice
    assert_complete(namespace.view(out), sample)
    assert_old_or_new(mid, old, snapshot(namespace.view(out)))


@pytest.mark.slow
@pytest.mark.parametrize("leave_kb", [8, 500])
def test_full_course_folder(sample, tmp_path, namespace, leave_kb):
    """The course folder's disk fills up during a run (a 24 MiB tmpfs, released into, then
    filled to ``leave_kb`` KiB): the submissions cannot all be written, graded or recorded.
    One line "no space left on device …: free space on it and run the same command again;
    nothing graded is lost", exit 1, and the ledger holds only what notebooks earned; after
    freeing the space, the same command gives the whole class, correctly. Today's main exits
    0 with honest students flagged "could not be graded: OSError: [Errno 28] No space left
    on device" and records that in the ledger, so every later run replays it."""
    course, out = tmp_path / "course", tmp_path / "out"
    namespace.mount_tmpfs(course, 24 * 1024)  # MathJax (12 MiB) and the course
    release = run_cli(
        "release",
        "--assignment",
        ASSIGNMENT,
        "--course",
        course,
        cwd=tmp_path,
        prefix=namespace.prefix,
    )
    assert release.returncode == 0, release.stderr[-3000:]
    ballast = namespace.fill(course, leave_kb)
    full = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert full.returncode == 1, (full.stdout[-3000:], full.stderr[-3000:])
    line = one_line_error(full.stderr)
    assert "error: no space left on device" in line, line
    assert line.endswith(f": free space on it and {AGAIN}"), line
    assert_ledger_holds_only_earned(namespace.view(course), sample)
    ballast.unlink()
    again = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_complete(out, sample)
    assert_ledger_holds_only_earned(namespace.view(course), sample)


@pytest.mark.slow
def test_a_new_course_folder_on_a_full_disk(sample, tmp_path, namespace):
    """A new --course on a disk too small for it: a 5 MiB tmpfs holds the gradebook, the
    source and MathJax's two single files, and fills up while MathJax's folders are copied
    into feedback/_mathjax/. One line "no space left on device releasing the assignments
    (…): free space on it and run the same command again; nothing graded is lost", exit 1,
    no traceback; with room (the tmpfs made larger) the same command grades the class.
    Before, shutil.copytree's shutil.Error (every failed file listed as text, no errno) was
    no fault the grader knew, and the run ended in a Python traceback."""
    require(mathjax_available(), "MathJax is not installed (./run installs it: npm ci)")
    course, out = tmp_path / "course", tmp_path / "out"
    namespace.mount_tmpfs(course, 5 * 1024)
    full = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert full.returncode == 1, (full.stdout[-3000:], full.stderr[-3000:])
    line = one_line_error(full.stderr)
    assert re.search(r"error: no space left on device releasing the assignments \(\S*", line)
    assert "feedback/_mathjax/" in line, line  # the file written, not node_modules' own
    assert line.endswith(f": free space on it and {AGAIN}"), line
    assert ledger_entries(namespace.view(course)) == []
    namespace.resize(course, 64 * 1024)
    again = run_cli(*grade_args(sample, course, out), cwd=tmp_path, prefix=namespace.prefix)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_complete(out, sample)


# --------------------------------------------------------------------------- SIGKILL


_TRACED = "write,pwrite64,sendfile,rename,renameat,renameat2"
_CALL = re.compile(r"^(\w+)\((.*)$")


def _traced_calls(log: Path, out: Path) -> list[tuple[str, int, str]]:
    """(system call, its number among the calls of that name, the output file it writes)
    for each traced call of the grader's main thread that writes into ``out``."""
    counts: dict[str, int] = {}
    found = []
    prefix = str(out.resolve()) + "/"
    for line in log.read_text(errors="replace").splitlines():
        match = _CALL.match(line)
        if not match:
            continue
        name, rest = match.groups()
        counts[name] = counts.get(name, 0) + 1
        if name.startswith("rename"):
            paths = re.findall(r'"([^"]*)"', rest)
            target = paths[-1] if paths else ""
        else:
            fd = re.match(r"\d+<([^>]*)>", rest)
            target = fd.group(1) if fd else ""
        if target.startswith(prefix):
            found.append((name, counts[name], _output_name(target[len(prefix) :])))
    return found


def _output_name(relative: str) -> str:
    """The output a written path stands for: a temporary file's final name."""
    folder, _, name = relative.rpartition("/")
    temporary = re.fullmatch(r"\.(.+)\.[^.]+\.tmp", name)
    name = temporary.group(1) if temporary else name.removesuffix(".tmp")
    return f"{folder}/{name}" if folder else name


def _kill_points(calls: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """For each output (of the feedback pages, the first): the first call that writes its
    bytes, and the rename that puts it in place (when there is one)."""
    points, seen = [], set()
    pages = [o for _, _, o in calls if o.startswith("feedback/")]
    for name, number, output in calls:
        kind = "rename" if name.startswith("rename") else "write"
        if output.startswith("feedback/") and output != pages[0]:
            continue
        if (kind, output) not in seen:
            seen.add((kind, output))
            points.append((name, number, output))
    return points


@pytest.mark.slow
def test_grader_killed_while_writing_outputs(sample, tmp_path):
    """SIGKILL while the grader writes grades.csv, results.json, summary.md or a feedback
    page: strace injects SIGKILL into the grader's main thread at the very system call that
    writes the file's bytes, and at the rename that puts it in place, one run per point.
    After each kill every output is its old or its new file; the next run is not refused
    (the killed run's lock went with it); and one more run of the same command gives the
    whole class, correctly — also when the ledger's last line was torn by a crash (ignored,
    with a note). Today's main writes grades.csv, summary.md and the pages in place: killed
    at that write, grades.csv is left empty."""
    strace = shutil.which("strace")
    require(strace is not None, "strace is not installed (Debian: apt-get install strace)")
    course, out = tmp_path / "course", tmp_path / "out"
    args = grade_args(sample, course, out)
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    old = snapshot(out)
    sample.hand_in(SECOND)
    second = run_cli(*args, cwd=tmp_path)  # grades the resubmission
    assert second.returncode == 0, second.stderr[-3000:]
    log = tmp_path / "strace.log"
    traced = [strace, "-o", str(log), "-y", "-e", f"trace={_TRACED}"]

    def restore_old() -> None:
        shutil.rmtree(out)
        for name, content in old.items():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_bytes(content)

    restore_old()
    # what a run writes, call by call, and the new outputs (every result from the ledger,
    # as in the runs below: a fresh result lists its tests in another order in summary.md)
    dry = run_cli(*args, cwd=tmp_path, prefix=traced)
    assert dry.returncode == 0, dry.stderr[-3000:]
    new = snapshot(out)
    assert new != old
    points = _kill_points(_traced_calls(log, out))
    written = {output for _, _, output in points}
    assert {"results.json", "grades.csv", "summary.md"} <= written, points
    assert any(o.startswith("feedback/") for o in written), points
    for name, number, output in points:
        restore_old()
        inject = ["-e", f"inject={name}:signal=SIGKILL:when={number}"]
        killed = run_cli(*args, cwd=tmp_path, prefix=[*traced, *inject])
        assert killed.returncode != 0, (name, number, output)
        lines = log.read_text(errors="replace").splitlines()
        assert lines[-1] == "+++ killed by SIGKILL +++", lines[-3:]
        last = _traced_calls(log, out)[-1]
        assert (last[0], last[2]) == (name, output), (last, name, number, output)
        assert_old_or_new(snapshot(out), old, new)
    with (course / "ledger.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"assignment": "01_hyperplanes", "stud')  # a crash mid-line
    again = run_cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "ledger.jsonl has 1 unreadable line(s)" in again.stderr
    assert_complete(out, sample)
    # the outputs are the new ones; the hidden temporary files the killed runs left between
    # writing a file and renaming it went with the last run (their writers have ended)
    assert snapshot(out) == new


@pytest.mark.slow
def test_a_page_killed_before_its_rename_leaves_nothing_after_the_next_run(sample, tmp_path):
    """SIGKILL at the rename that puts a feedback page in place (strace injects it into the
    grader's main thread): the killed run leaves the page's hidden temporary file
    (``.<page>.<pid>-<random>.tmp``) beside the old page; the next run of the same command
    removes it, its writer having ended, and writes the class whole. Before, nothing ever
    removed it: every run passed hidden files over in feedback/."""
    strace = shutil.which("strace")
    require(strace is not None, "strace is not installed (Debian: apt-get install strace)")
    course, out = tmp_path / "course", tmp_path / "out"
    args = grade_args(sample, course, out)
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    log = tmp_path / "strace.log"
    traced = [strace, "-o", str(log), "-y", "-e", f"trace={_TRACED}"]
    dry = run_cli(*args, cwd=tmp_path, prefix=traced)  # which rename puts a page in place
    assert dry.returncode == 0, dry.stderr[-3000:]
    renames = [c for c in _traced_calls(log, out) if c[0].startswith("rename")]
    name, number, page = next(c for c in renames if c[2].startswith("feedback/"))
    inject = ["-e", f"inject={name}:signal=SIGKILL:when={number}"]
    killed = run_cli(*args, cwd=tmp_path, prefix=[*traced, *inject])
    assert killed.returncode != 0, killed.stderr[-3000:]
    left = [p for p in (out / "feedback").rglob(".*") if p.is_file()]
    assert [p.parent / re.sub(r"^\.|\.[^.]+\.tmp$", "", p.name) for p in left] == [out / page], left
    again = run_cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_complete(out, sample)
    assert [p for p in out.rglob(".*") if p.is_file()] == []


# --------------------------------------------------------------------------- the gradebook


_HOLD = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
db.execute("UPDATE student SET first_name = first_name")
print("held", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


@pytest.mark.slow
def test_gradebook_locked_past_its_timeout(sample, tmp_path):
    """Another program (a formgrader, an sqlite3 shell) holds a write transaction on the
    SQLite gradebook for longer than the busy timeout (2 s here, through --db) while a
    resubmission is graded: one line "the gradebook is locked by another program …: close
    the program that holds it … and run the same command again; nothing graded is lost",
    exit 1; nothing recorded for the resubmission, the outputs untouched; once the
    transaction ends, the same command gives the whole class, correctly. Today's main exits
    0 with the student flagged "could not be graded" (nbgrader's "error accessing the
    nbgrader database") and records that, so every later run replays it."""
    course, out = tmp_path / "course", tmp_path / "out"
    url = f"sqlite:///{course / 'gradebook.db'}?timeout=2"
    args = grade_args(sample, course, out, "--db", url)
    first = run_cli(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    old = snapshot(out)
    sample.hand_in(SECOND)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(course / "gradebook.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        locked = run_cli(*args, cwd=tmp_path)
        assert holder.poll() is None  # held all along
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert locked.returncode == 1, (locked.stdout[-2000:], locked.stderr[-3000:])
    line = one_line_error(locked.stderr)
    assert "error: the gradebook is locked by another program" in line, line
    assert line.endswith(f"and {AGAIN}"), line
    assert len(ledger_entries(course)) == 3  # the first run's, nothing of the failed one
    assert_ledger_holds_only_earned(course, sample)
    assert snapshot(out) == old
    again = run_cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_complete(out, sample)


# --------------------------------------------------------------------------- a killed worker


@pytest.mark.slow
def test_killed_worker_is_graded_again(sample, tmp_path, tmpdir_of_its_own):
    """A grading worker is killed (SIGKILL, as the kernel's OOM killer would) while it grades
    a submission: that submission is flagged "not graded: the grading worker died …" in this
    run's outputs, the rest of the class graded and written, exit 1 with one line; nothing
    is recorded for it, so the same command run again grades it and gives the whole class,
    correctly. Today's main exits 0 and records "could not be graded: the grading worker
    died" as the student's result, replayed by every later run.

    Neither run leaves a temporary folder behind (the runs' own TMPDIR): the killed worker
    could not remove its warm box and the sandbox in it (the student's staged files), nor
    could the worker started in its place, stopped before its warm box was closed; the run
    removes both at its end. Without the sweep (autograder.files.sweep_orphans) both stay,
    one more per run."""
    course, out = tmp_path / "course", tmp_path / "out"
    tmpdir = tmpdir_of_its_own
    args = ["grade", sample.folder, "--course", course, "--out", out, "--workers", "1"]
    run = subprocess.Popen(
        cli_command(*args),
        cwd=tmp_path,
        env=environment(tmpdir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    grader = psutil.Process(run.pid)

    def grading_worker():
        # the pool's one worker, once nbgrader has started on a student's submission (it
        # makes the submission's autograded/ folder first; the canary's comes before)
        started = (course / "autograded").glob(f"*/{ASSIGNMENT}")
        if not [p for p in started if not p.parent.name.startswith(CANARY_PREFIX)]:
            return None
        try:
            workers = [c for c in grader.children() if "spawn_main" in " ".join(c.cmdline())]
        except psutil.Error:
            return None
        return workers[0] if len(workers) == 1 else None

    try:
        worker = wait_for(grading_worker, 600, "a grading worker at work", step=0.05)
        at_work = temp_leftovers(tmpdir)
        worker.send_signal(signal.SIGKILL)
        stdout, stderr = run.communicate(timeout=900)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 1, (stdout[-2000:], stderr[-3000:])
    line = one_line_error(stderr)
    assert re.search(r"error: the grading worker died \(exit code -9\) grading ", line), line
    assert line.endswith(AGAIN), line
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    flagged = [s for s in data["submissions"] if not s["ok"]]
    assert len(flagged) == 1 and "not graded: the grading worker died" in flagged[0]["flags"][-1]
    assert_ledger_holds_only_earned(course, sample)
    assert len(ledger_entries(course)) == 2
    if not SANDBOX_ARGS:  # sandboxed: the worker had its folders there when it was killed
        assert at_work, "the grading worker had no temporary folder in the run's TMPDIR"
    left = temp_leftovers(tmpdir)
    assert not left, "the run left in its TMPDIR:\n" + described(left)
    again = run_cli(*args, cwd=tmp_path, tmpdir=tmpdir)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_complete(out, sample)
    assert len(ledger_entries(course)) == 3
    assert os.path.exists(course / ".lock")
    left = temp_leftovers(tmpdir)
    assert not left, "the next run left in its TMPDIR:\n" + described(left)


# --------------------------------------------------------------------------- a killed grader

#: Another process that holds a temporary folder of the grader's kind while it runs (as a
#: second grading run on the machine does): the folder made as the grader makes its own.
LIVE_OWNER = """\
import sys, time
from autograder.files import owned_tempdir
folder = owned_tempdir("ag-sbx-")
(folder / "stage").mkdir()
(folder / "stage" / "answer.py").write_text("x = 1\\n")
print(folder, flush=True)
time.sleep(3600)
"""


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_a_killed_graders_temporary_folders_go_with_the_next_run(
    sample, tmp_path, tmpdir_of_its_own
):
    """The grader is killed (SIGKILL: an instructor's kill -9, the OOM killer) while a
    notebook runs in its sandbox: its workers die with it (the parent-death signal) and
    none of them can remove its warm box or sandbox (the student's staged files), which
    stay in the temporary folder (the runs' own TMPDIR). The next run removes them,
    grades the whole class and leaves nothing of its own; it leaves alone the folder of a
    process that still runs (another grading run: two on one machine are normal), and one
    whose owner it cannot tell (a grader of an older version, which may be running).
    Without the sweep the killed run's folders stay; a sweep that does not ask whether a
    folder's owner runs removes the live one."""
    course, out = tmp_path / "course", tmp_path / "out"
    tmpdir = tmpdir_of_its_own
    args = ["grade", sample.folder, "--course", course, "--out", out, "--workers", "2"]
    run = subprocess.Popen(
        cli_command(*args),
        cwd=tmp_path,
        env=environment(tmpdir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    grader = psutil.Process(run.pid)

    def a_notebook_in_its_sandbox():
        return [*tmpdir.glob("ag-warm-*/ag-sbx-*/stage"), *tmpdir.glob("ag-sbx-*/stage")]

    try:
        wait_for(a_notebook_in_its_sandbox, 600, "a notebook in its sandbox", step=0.05)
        tree = grader.children(recursive=True)
        run.send_signal(signal.SIGKILL)
        assert run.wait(timeout=60) == -signal.SIGKILL
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    _, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive, alive  # nothing of the killed run can remove anything any more
    killed_left = temp_leftovers(tmpdir)
    sandboxes = [f for f in killed_left if f.name.startswith("ag-sbx-") or [*f.glob("ag-sbx-*")]]
    assert sandboxes, "the killed run left no sandbox in its TMPDIR: " + described(killed_left)

    legacy = tmpdir / "ag-warm-older"  # no owner recorded
    (legacy / "empty").mkdir(parents=True)
    owner = subprocess.Popen(
        [sys.executable, "-c", LIVE_OWNER],
        env=environment(tmpdir),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        live = Path(owner.stdout.readline().strip())
        assert live.parent.samefile(tmpdir), live
        again = run_cli(*args, cwd=tmp_path, tmpdir=tmpdir)
        assert again.returncode == 0, again.stderr[-3000:]
        assert_complete(out, sample)
        left = temp_leftovers(tmpdir)
        assert [f.name for f in left] == sorted([legacy.name, live.name]), (
            "left in the TMPDIR:\n" + described(left)
        )
        assert (live / "stage" / "answer.py").read_text() == "x = 1\n"
    finally:
        owner.kill()
        owner.wait()


# --------------------------------------------------------------------------- a kernel's start

#: An IPython start-up file: a kernel started in a folder for the first time ends before it
#: answers (as one whose port another process took at the last moment does), the next one
#: in that folder starts.
_DIES_ONCE = """
import hashlib, os
marker = os.path.join(os.environ["AG_TEST_MARKERS"], hashlib.sha1(os.getcwd().encode()).hexdigest())
if not os.path.exists(marker):
    open(marker, "w").close()
    os._exit(3)
"""


@pytest.mark.slow
def test_a_kernel_that_dies_as_it_starts_is_started_again(sample, tmp_path):
    """Every notebook's first kernel ends before it answers, before any of the notebook's
    code runs (jupyter_client's port race does so now and then: 3 kernels in 10,000): the
    grader starts another and the whole class is graded, every grade right. Without the
    retry the canary's kernel dies first and the run refuses to grade; where only a
    student's kernel died (the scale benchmark's 3), that student "could not be graded",
    0 recorded in the ledger for good."""
    ipython = tmp_path / "ipython"
    startup = ipython / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-dies-once.py").write_text(_DIES_ONCE, encoding="utf-8")
    markers = tmp_path / "markers"
    markers.mkdir()
    course, out = tmp_path / "course", tmp_path / "out"
    # unsandboxed: the sandbox gives its kernels an environment of their own
    args = grade_args(sample, course, out, "--unsandboxed")
    env = dict(environment(), IPYTHONDIR=str(ipython), AG_TEST_MARKERS=str(markers))
    run = subprocess.run(
        cli_command(*args), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert len(list(markers.iterdir())) >= len(sample.answers)  # each died once
    assert_complete(out, sample)
    assert_ledger_holds_only_earned(course, sample)


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_a_temporary_folder_too_long_for_the_kernels_sockets_is_said_at_once(sample, tmp_path):
    """A sandboxed kernel's sockets are files below the temporary folder, and a socket's
    path has at most 107 bytes: under a long TMPDIR no kernel could start. The run says so
    in one line before anything is graded or written (without the check: every kernel
    fails to bind, and the canary refuses the class with a cause that names no folder)."""
    long = tmp_path / ("t" * 60)
    long.mkdir()
    course, out = tmp_path / "course", tmp_path / "out"
    result = run_cli(*grade_args(sample, course, out), cwd=tmp_path, tmpdir=long)
    assert result.returncode == 1, result.stderr[-3000:]
    line = one_line_error(result.stderr)
    assert "temporary folder's path is" in line and "set TMPDIR to a shorter folder" in line
    assert not out.exists() and not ledger_entries(course)
    assert temp_leftovers(long) == []
