"""The sandbox's processes seen from the host (autograder/sandbox/watchdog.py); no sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.sandbox import Limits
from autograder.sandbox.watchdog import (
    Watchdog,
    children,
    descendants,
    dir_bytes,
    kill_all,
    memory_bytes,
    resident_bytes,
    threads_of,
    uid_pids,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")

TREE = """
import subprocess, sys, time
kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(kid.pid, flush=True)
time.sleep(60)
"""


def test_children_and_descendants_follow_the_tree():
    top = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(top.stdout.readline())
        assert children(os.getpid()).count(top.pid) == 1
        assert children(top.pid) == [grandchild]
        assert {top.pid, grandchild} <= set(descendants(os.getpid()))
        assert grandchild not in children(os.getpid())
    finally:
        kill_all([top.pid, grandchild])
        top.wait(timeout=10)
    assert children(top.pid) == []


def test_a_zombie_is_a_child_until_reaped_and_uses_no_memory():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while Path(f"/proc/{proc.pid}/stat").read_text().split(") ")[1][0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert proc.pid in children(os.getpid())
    assert memory_bytes(proc.pid) == 0
    proc.wait()
    assert proc.pid not in children(os.getpid())
    assert memory_bytes(proc.pid) == 0  # gone: no error


def test_memory_is_the_proportional_set_size():
    pss = next(
        int(line.split()[1]) * 1024
        for line in Path("/proc/self/smaps_rollup").read_text().splitlines()
        if line.startswith("Pss:")
    )
    assert abs(memory_bytes(os.getpid()) - pss) < 16 * 1024 * 1024


def test_uid_views_count_this_process_and_its_threads():
    uid = os.geteuid()
    assert os.getpid() in uid_pids(uid)
    tasks = sum(
        len(os.listdir(f"/proc/{pid}/task"))
        for pid in uid_pids(uid)
        if os.path.isdir(f"/proc/{pid}")
    )
    assert abs(threads_of(uid) - tasks) <= 8  # other processes of this uid come and go


def test_kill_all_ignores_pids_that_are_gone():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    kill_all([proc.pid, 2**22 + 12345])
    assert proc.wait(timeout=10) == -9


def test_dir_bytes_counts_files_and_caps_entries(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 1000)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * 24)
    assert dir_bytes(tmp_path) == 1024 + os.lstat(tmp_path / "sub").st_size
    assert dir_bytes(tmp_path, limit_entries=2) == 1 << 62


def test_the_watchdog_kills_over_the_memory_limit(tmp_path):
    reasons: list[str] = []
    dog = Watchdog(lambda: [os.getpid()], reasons.append, Limits(total_memory=1), tmp_path, 0.01)
    dog.start()
    deadline = time.monotonic() + 10
    while not reasons and time.monotonic() < deadline:
        time.sleep(0.01)
    dog.stop()
    assert reasons == ["the notebook's processes used more than 0 MiB of memory"]


@pytest.mark.slow
def test_the_watchdog_decides_on_shared_pages_proportionally(tmp_path):
    """A forked kernel shares its template's pages: two processes sharing 200 MiB hold
    about 400 MiB resident between them but 200 MiB proportionally, which is under a limit
    of 320 MiB (not killed) and over one of 160 MiB (killed). The resident sizes, read
    first because they are cheap, never decide a kill on their own."""
    script = (
        "import os, sys, time\n"
        "block = bytearray(200 * 1024 * 1024)\n"
        "for i in range(0, len(block), 4096): block[i] = 1\n"
        "if os.fork() == 0:\n"
        "    time.sleep(60); os._exit(0)\n"
        "print('ready', flush=True); time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        pids = [proc.pid, *children(proc.pid)]
        assert len(pids) == 2
        assert sum(resident_bytes(p) for p in pids) > 380 * 1024 * 1024
        for limit, killed in ((320, False), (160, True)):
            reasons: list[str] = []
            limits = Limits(total_memory=limit * 1024 * 1024)
            dog = Watchdog(lambda: pids, reasons.append, limits, tmp_path, 0.01)
            dog.start()
            time.sleep(0.5)
            dog.stop()
            assert bool(reasons) is killed, (limit, reasons)
    finally:
        kill_all([proc.pid, *children(proc.pid)])
        proc.wait(timeout=10)
