"""autograder.files: a file written whole or not at all, a ledger line appended whole or not
at all — on a real full disk (a small tmpfs in a private mount namespace) and under
SIGKILL."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from autograder.files import append_line, write_atomic


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
