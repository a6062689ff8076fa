"""The sandbox itself: what a process inside sees, may do, and what is left afterwards.

Each test runs a short Python program with ``Sandbox.command`` (no kernel), so the whole
file takes a few seconds.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import autograder.sandbox as sb
from autograder.sandbox import Limits, new_sandbox
from course_common.paths import REPO_ROOT

pytestmark = pytest.mark.needs_sandbox

REPO = REPO_ROOT
MiB = 1024 * 1024


def run(code: str, limits: Limits | None = None, files: Path | None = None, timeout=60):
    """Run *code* with the sandbox's Python inside a fresh sandbox; return the process."""
    box = new_sandbox(limits)
    try:
        box.stage_files(files)
        cmd, kw = box.popen_kwargs(box.command([sys.executable, "-c", textwrap.dedent(code)]))
        try:
            return subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw
            )
        finally:
            box.close_launch_fds()
    finally:
        box.cleanup()


@pytest.mark.slow
def test_the_course_and_the_repository_are_invisible(tmp_path):
    course = tmp_path / "course"
    (course / "source").mkdir(parents=True)
    (course / "gradebook.db").write_text("secret")
    hidden = [
        course,
        REPO / "notebooks",
        REPO / ".git",
        REPO / "autograder",
        REPO / "tests",
        Path.home() / ".bash_history",
    ]
    proc = run(
        f"""
        import os
        for path in {[str(p) for p in hidden]!r}:
            print(path, os.path.exists(path))
        import linlib, numpy  # what a student needs is there
        print("imports ok")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "imports ok" in proc.stdout
    for line in proc.stdout.splitlines()[:-1]:
        assert line.endswith(" False"), line


def test_only_the_scratch_folder_and_tmp_are_writable():
    targets = ["/usr/x", "/etc/x", f"{sys.prefix}/x", f"{REPO / 'linlib'}/x", "/x"]
    proc = run(
        f"""
        import os
        for path in {targets!r}:
            try:
                open(path, "w").write("x")
                print("WROTE", path)
            except OSError:
                pass
        open("mine.txt", "w").write("ok")
        open("/tmp/mine.txt", "w").write("ok")
        print(os.getcwd(), sorted(os.listdir(".")))
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "WROTE" not in proc.stdout
    assert f"{sb.WORK_DIR} ['mine.txt']" in proc.stdout


@pytest.mark.slow
def test_no_network_not_even_the_graders_loopback():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(3)
    port = server.getsockname()[1]
    try:
        proc = run(
            f"""
            import socket
            for host in ("127.0.0.1", "::1"):
                try:
                    socket.create_connection((host, {port}), timeout=2)
                    print("CONNECTED")
                except OSError as exc:
                    print("refused", type(exc).__name__)
            try:
                socket.create_connection(("1.1.1.1", 53), timeout=2)
                print("CONNECTED")
            except OSError as exc:
                print("refused", type(exc).__name__)
            """
        )
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr
    assert "CONNECTED" not in proc.stdout
    assert proc.stdout.count("refused") == 3


def test_identity_has_no_privileges():
    proc = run(
        """
        import os
        status = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
        print(os.getuid(), int(status["CapEff"].strip(), 16), status["NoNewPrivs"].strip())
        print(len([p for p in os.listdir("/proc") if p.isdigit()]))
        """
    )
    assert proc.returncode == 0, proc.stderr
    uid, caps, nnp = proc.stdout.split()[:3]
    assert caps == "0" and nnp == "1"
    if os.geteuid() == 0:
        assert int(uid) != 0
    # its own PID namespace: bubblewrap's init and this process
    assert int(proc.stdout.split()[3]) <= 3


@pytest.mark.skipif(sb.seccomp_filter() is None, reason="no seccomp table for this machine")
def test_new_namespaces_and_mounts_are_refused():
    proc = run(
        """
        import ctypes, errno, os
        libc = ctypes.CDLL(None, use_errno=True)
        for flag in (0x10000000, 0x40000000, 0x00020000):  # NEWUSER, NEWNET, NEWNS
            print("unshare", libc.unshare(flag), ctypes.get_errno() == errno.EPERM)
        print("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
        pid = os.fork()  # an ordinary fork still works
        if pid == 0:
            os._exit(7)
        print("fork", os.waitpid(pid, 0)[1] >> 8)
        """
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["unshare -1 True"] * 3
    assert lines[3] == "mount -1"
    assert lines[4] == "fork 7"


def test_rlimits_are_set():
    limits = Limits(address_space=1536 * MiB, cpu_seconds=77, file_size=5 * MiB, processes=40)
    proc = run(
        """
        import resource as r
        for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE", "RLIMIT_NPROC"):
            print(name, r.getrlimit(getattr(r, name))[1])
        """,
        limits,
    )
    assert proc.returncode == 0, proc.stderr
    got = dict(line.split() for line in proc.stdout.splitlines())
    assert int(got["RLIMIT_AS"]) == 1536 * MiB
    assert int(got["RLIMIT_CPU"]) == 77
    assert int(got["RLIMIT_FSIZE"]) == 5 * MiB
    assert int(got["RLIMIT_CORE"]) == 0
    if os.geteuid() == 0:
        assert int(got["RLIMIT_NPROC"]) == 40


@pytest.mark.skipif(os.geteuid() != 0, reason="RLIMIT_NPROC needs a uid of the sandbox's own")
def test_a_fork_bomb_hits_the_process_limit():
    proc = run(
        """
        import os, time
        made = refused = 0
        for _ in range(200):  # bounded, whatever happens
            try:
                pid = os.fork()
            except OSError:
                refused += 1
                continue
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            made += 1
        print(made, refused)
        """,
        Limits(processes=24),
    )
    assert proc.returncode == 0, proc.stderr
    made, refused = map(int, proc.stdout.split())
    assert made < 24 and refused > 150


def test_one_huge_allocation_fails_with_memory_error():
    proc = run(
        """
        try:
            block = bytearray(4 * 1024**3)
            print("allocated")
        except MemoryError:
            print("MemoryError")
        """,
        Limits(address_space=1024 * MiB),
    )
    assert proc.stdout.strip() == "MemoryError", proc.stderr


def test_the_watchdog_kills_processes_that_use_too_much_memory_together():
    box = new_sandbox(Limits(total_memory=300 * MiB))
    code = """
        import os, time
        for _ in range(4):  # 4 x 150 MiB, touched; each alone is within RLIMIT_AS
            if os.fork() == 0:
                block = bytearray(150 * 1024**2)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(60)
                os._exit(0)
        time.sleep(60)
    """
    try:
        cmd, kw = box.popen_kwargs(box.command([sys.executable, "-c", textwrap.dedent(code)]))
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, **kw)
        box.close_launch_fds()
        box.start_watchdog(proc.pid, interval=0.1)
        start = time.monotonic()
        proc.wait(timeout=30)
        assert time.monotonic() - start < 20
        assert box.kill_reason and "memory" in box.kill_reason
    finally:
        box.cleanup()
    assert box.pids() == []


def test_cleanup_kills_detached_processes_and_removes_the_folder():
    box = new_sandbox()
    code = """
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                         start_new_session=True)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(600)
            os._exit(0)
        print("started", flush=True)
        time.sleep(600)
    """
    cmd, kw = box.popen_kwargs(box.command([sys.executable, "-c", textwrap.dedent(code)]))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, **kw)
    box.close_launch_fds()
    box.outer_pid = proc.pid
    assert proc.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 10
    while len(box.pids()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    inside = box.pids()
    assert len(inside) >= 4  # bubblewrap's init, the program, two sleepers
    box.kill()
    proc.wait(timeout=10)
    box.cleanup()
    assert box.pids() == []
    assert not box.root.exists()
    if box.uid is not None:
        assert sb.sandbox_pids(box.uid) == []


def test_only_the_students_own_files_are_copied_in(tmp_path):
    (tmp_path / "data.csv").write_text("1,2\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "more.txt").write_text("x")
    (tmp_path / "01_hyperplanes.ipynb").write_text("{}")  # the graded copy: never
    (tmp_path / "link").symlink_to("/etc/hostname")
    proc = run(
        """
        import os
        for root, dirs, files in os.walk("."):
            for name in sorted(files):
                print(os.path.join(root, name))
        """,
        files=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split()) == ["./data.csv", "./sub/more.txt"]
