"""autograder.files: a file written whole or not at all, a ledger line appended whole or not
at all — on a real full disk (a small tmpfs in a private mount namespace) and under
SIGKILL; the grader's temporary folders swept once their owner (a real process) has ended,
never while it runs."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from autograder.files import (
    OWNER_FILE,
    append_line,
    owned_tempdir,
    owner_runs,
    sweep_orphans,
    sweep_temp_files,
    write_atomic,
)


def test_write_atomic_replaces_the_file(tmp_path):
    target = tmp_path / "grades.csv"
    target.write_text("old\n")
    write_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    write_atomic(target, b"\x00bytes")
    assert target.read_bytes() == b"\x00bytes"
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"]  # no temporary file left
    assert (target.stat().st_mode & 0o777) == 0o644


def test_append_line_starts_after_a_torn_line(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    append_line(ledger, '{"a": 1}')
    with ledger.open("a") as fh:
        fh.write('{"a": ')  # torn by a crash
    append_line(ledger, '{"a": 2}')
    assert ledger.read_text().splitlines() == ['{"a": 1}', '{"a": ', '{"a": 2}']


def _interrupted(real: object, after: int | None = None):
    """``real`` (``os.write`` or ``os.fsync``) with a real Ctrl-C (SIGINT, Python's own
    handler) raised in the process as it returns; ``after``: ``os.write`` writes only that
    many bytes of what it is given first (a line cut in two by the interrupt)."""

    def call(fd, *args):
        if after is not None:
            args = (args[0][:after],)
        value = real(fd, *args)
        signal.raise_signal(signal.SIGINT)
        return value

    return call


def test_an_interrupt_while_a_whole_line_is_flushed_keeps_it(tmp_path, monkeypatch):
    """Ctrl-C in the fsync after a whole ledger line was written (a grader stopped as a
    grade comes in): the line stays, since its grade is in the gradebook; the run stops."""
    ledger = tmp_path / "ledger.jsonl"
    append_line(ledger, '{"a": 1}')
    monkeypatch.setattr(os, "fsync", _interrupted(os.fsync))
    with pytest.raises(KeyboardInterrupt):
        append_line(ledger, '{"a": 2}')
    assert ledger.read_text().splitlines() == ['{"a": 1}', '{"a": 2}']


def test_an_interrupt_in_the_middle_of_a_line_cuts_it_back(tmp_path, monkeypatch):
    ledger = tmp_path / "ledger.jsonl"
    append_line(ledger, '{"a": 1}')
    monkeypatch.setattr(os, "write", _interrupted(os.write, after=4))
    with pytest.raises(KeyboardInterrupt):
        append_line(ledger, '{"a": 2}')
    assert ledger.read_text() == '{"a": 1}\n'


_FULL_DISK = """
import errno, os, sys
from pathlib import Path
from autograder.files import append_line, write_atomic
folder = Path(sys.argv[1])
target = folder / "results.json"
write_atomic(target, "old")
ledger = folder / "ledger.jsonl"
append_line(ledger, "first")
ballast = folder / "ballast"
with ballast.open("wb", buffering=0) as fh:  # fill the disk
    try:
        while True:
            fh.write(b"x" * 4096)
    except OSError:
        pass
for call in (lambda: write_atomic(target, "x" * 200_000),
             lambda: append_line(ledger, "y" * 200_000)):
    try:
        call()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc
    else:
        raise AssertionError("the disk was not full")
print(repr(target.read_text()), repr(ledger.read_text()), sorted(os.listdir(folder)))
"""


def test_a_full_disk_leaves_the_old_file_and_no_half_line(tmp_path):
    """On a full tmpfs, write_atomic fails with ENOSPC leaving the old file (and no
    temporary file), and append_line leaves the ledger as it was (no half line)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare for a private tmpfs")
    folder = tmp_path / "disk"
    folder.mkdir()
    mount = f"mount -t tmpfs -o size=64k tmpfs {folder}"
    script = f'{mount} && exec {sys.executable} -c "$0" {folder}'
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script, _FULL_DISK],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "'old' 'first\\n' ['ballast', 'ledger.jsonl', 'results.json']"


_KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from autograder.files import write_atomic
    new = sys.argv[2].encode() * 4_000_000  # tens of MB: seconds of writing
    print("go", flush=True)
    while True:
        write_atomic(sys.argv[1], new)
    """
)


@pytest.mark.parametrize("delay", [0.02, 0.3])
def test_a_killed_writer_leaves_the_old_or_the_new_file(tmp_path, delay):
    """A writer SIGKILLed at varied moments of writing big files over and over: the file is
    always one of the whole versions."""
    import time

    target = tmp_path / "grades.csv"
    old = b"old" * 1000
    target.write_bytes(old)
    writer = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target), "n"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout.readline().strip() == "go"
    time.sleep(delay)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    content = target.read_bytes()
    assert content in (old, b"n" * 4_000_000)


def test_folder_digest_follows_names_and_bytes_and_skips_caches(tmp_path):
    from autograder.files import folder_digest

    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / ".ipynb_checkpoints").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    before = folder_digest(tmp_path / "pkg")
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"cache")
    (tmp_path / "pkg" / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text("{}")
    (tmp_path / "pkg" / "old.pyc").write_bytes(b"cache")
    assert folder_digest(tmp_path / "pkg") == before
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")
    changed = folder_digest(tmp_path / "pkg")
    assert changed != before
    (tmp_path / "pkg" / "a.py").rename(tmp_path / "pkg" / "b.py")
    assert folder_digest(tmp_path / "pkg") not in (before, changed)


_KILLED_BEFORE_ITS_RENAME = """
import os, signal, sys
from autograder import files
os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed before the rename
files.write_atomic(sys.argv[1], b"new")
"""


def test_the_temporary_file_of_a_killed_writer_goes_with_the_next_sweep(tmp_path):
    """A writer killed between writing its temporary file and renaming it leaves that file
    (hidden, named ``.<name>.<pid>-<random>.tmp``); the sweep removes it once the writer has
    ended, and leaves those of a writer that runs, the files, and hidden files of other
    names. A pid another process took since the file was written is not its writer."""
    (tmp_path / "page").mkdir()
    target = tmp_path / "page" / "01_x.html"
    target.write_bytes(b"old")
    killed = subprocess.run([sys.executable, "-c", _KILLED_BEFORE_ITS_RENAME, str(target)])
    assert killed.returncode == -signal.SIGKILL
    [left] = [p for p in (tmp_path / "page").iterdir() if p.name != target.name]
    assert re.fullmatch(r"\.01_x\.html\.[0-9]+-\w+\.tmp", left.name), left.name
    assert left.read_bytes() == b"new"
    # this process's own, being written: it runs, it stays
    fd, own = tempfile.mkstemp(prefix=f".grades.csv.{os.getpid()}-", suffix=".tmp", dir=tmp_path)
    os.close(fd)
    # written by another process that had this process's pid before it started
    fd, reused = tempfile.mkstemp(prefix=f".summary.md.{os.getpid()}-", suffix=".tmp", dir=tmp_path)
    os.close(fd)
    before = psutil.Process().create_time() - 60
    os.utime(reused, (before, before))
    for other in (".hidden.tmp", ".x.tmp", "x.1-ab.tmp", ".ledger.jsonl"):
        (tmp_path / other).write_bytes(b"")
    assert sweep_temp_files(tmp_path) == [Path(reused)]  # the folder alone
    assert sweep_temp_files(tmp_path, recursive=True) == [left]
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".hidden.tmp", ".x.tmp", "x.1-ab.tmp", ".ledger.jsonl", "page", Path(own).name]
    )


# ------------------------------------------------------------------ owned temporary folders

_OWN_A_FOLDER = """
import sys
from autograder.files import owned_tempdir
print(owned_tempdir(sys.argv[1], sys.argv[2]), flush=True)
sys.stdin.read()  # runs until its stdin is closed
"""


def _owned_by_a_child(prefix: str, base: Path) -> tuple[subprocess.Popen, Path]:
    """A child process that has made a folder with owned_tempdir and runs on."""
    child = subprocess.Popen(
        [sys.executable, "-c", _OWN_A_FOLDER, prefix, str(base)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    return child, Path(child.stdout.readline().strip())


def _ended(prefix: str, base: Path) -> Path:
    """A folder of a child process that has ended (and been reaped)."""
    child, folder = _owned_by_a_child(prefix, base)
    child.stdin.close()
    assert child.wait() == 0
    return folder


def _record(folder: Path) -> dict:
    return json.loads((folder / OWNER_FILE).read_text())


def _write_record(folder: Path, record: dict) -> None:
    (folder / OWNER_FILE).write_text(json.dumps(record))


def test_a_folder_goes_once_its_owner_no_longer_runs(tmp_path):
    """A folder of a process that runs stays; once that process has ended (a zombie its
    parent has not reaped has ended too) the sweep removes it, what it holds and nothing
    else."""
    child, folder = _owned_by_a_child("ag-warm-", tmp_path)
    try:
        (folder / "ag-sbx-x" / "stage").mkdir(parents=True)
        mine = owned_tempdir("ag-sbx-", tmp_path)  # this process's own: it runs
        assert owner_runs(folder) is True and owner_runs(mine) is True
        assert sweep_orphans(tmp_path) == [] and folder.is_dir()
        child.kill()
        deadline = time.monotonic() + 10
        while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the child did not end"
            time.sleep(0.01)
        assert owner_runs(folder) is False
        ended = _ended("autograde-", tmp_path)
        assert sorted(sweep_orphans(tmp_path)) == sorted([folder, ended])
        assert [p.name for p in tmp_path.iterdir()] == [mine.name]
    finally:
        child.kill()
        child.wait()


def test_a_pid_run_by_another_process_is_not_the_owner(tmp_path):
    """The owner's pid names a process that started at another time (the pid was used
    again): the owner has ended, its folder goes. A record of another boot likewise."""
    reused = owned_tempdir("ag-sbx-", tmp_path)
    rebooted = owned_tempdir("ag-warm-", tmp_path)
    kept = owned_tempdir("ag-warm-", tmp_path)
    record = _record(reused)
    _write_record(reused, {**record, "started": record["started"] - 60})
    _write_record(rebooted, {**record, "boot": "another boot"})
    assert owner_runs(reused) is False and owner_runs(rebooted) is False
    assert sorted(sweep_orphans(tmp_path)) == sorted([reused, rebooted])
    assert [p.name for p in tmp_path.iterdir()] == [kept.name]


def test_an_empty_folder_without_a_record_is_a_leftover(tmp_path, monkeypatch):
    """A maker killed between making its folder and writing its record (or between removing
    the record and the folder) leaves it empty with no owner: the sweep removes it; one
    that holds anything stays (a grader of an older version may use it). A live maker
    whose folder a sweep took in that instant makes another. Seen in a full test suite: a
    killed grader's run left such a folder, which no later run removed."""
    for name in ("ag-warm-killed", "ag-warm-older"):
        (tmp_path / name).mkdir()
    (tmp_path / "ag-warm-older" / "empty").mkdir()
    assert sweep_orphans(tmp_path) == [tmp_path / "ag-warm-killed"]
    assert [p.name for p in tmp_path.iterdir()] == ["ag-warm-older"]

    made = []
    real_mkdtemp = tempfile.mkdtemp

    def swept_at_once(*args, **kwargs):
        folder = real_mkdtemp(*args, **kwargs)
        made.append(folder)
        if len(made) == 1:
            sweep_orphans(tmp_path)  # another run's sweep, before the record is written
        return folder

    monkeypatch.setattr(tempfile, "mkdtemp", swept_at_once)
    mine = owned_tempdir("ag-sbx-", tmp_path)
    assert len(made) == 2 and not Path(made[0]).exists()
    assert owner_runs(mine) is True and sweep_orphans(tmp_path) == []


def test_what_cannot_be_judged_here_is_left_alone(tmp_path):
    """A folder with no record that holds anything (a grader of an older version), a torn
    record, a record of a pid on another host or in another PID namespace: its owner may
    run, so it stays, though that pid has ended here; so do a folder of another name, a
    symlink to an owner's folder that has ended, and (with root) another user's folder."""
    (tmp_path / "elsewhere").mkdir()
    dead = _ended("ag-sbx-", tmp_path / "elsewhere")
    record = _record(dead)
    cases = {
        "ag-warm-host": {**record, "host": "another-host"},
        "ag-warm-ns": {**record, "pid_ns": "pid:[1]"},
        "ag-sbx-none": None,
        "ag-sbx-torn": None,
        "other-x": record,
        "ag-sbx-user": record,
    }
    for name, content in cases.items():
        (tmp_path / name).mkdir()
        if content is not None:
            _write_record(tmp_path / name, content)
    (tmp_path / "ag-sbx-none" / "stage").mkdir()
    (tmp_path / "ag-sbx-torn" / OWNER_FILE).write_text('{"pid": 1')
    (tmp_path / "ag-sbx-link").symlink_to(dead)
    if os.geteuid() == 0:
        os.chown(tmp_path / "ag-sbx-user", 65534, 65534)
    else:
        shutil.rmtree(tmp_path / "ag-sbx-user")
    for name in ("ag-warm-host", "ag-warm-ns", "ag-sbx-none", "ag-sbx-torn"):
        assert owner_runs(tmp_path / name) is None, name
    before = sorted(p.name for p in tmp_path.iterdir())
    assert sweep_orphans(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before and dead.is_dir()
    assert sweep_orphans(tmp_path / "elsewhere") == [dead]
