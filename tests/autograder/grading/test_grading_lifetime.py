"""Helper processes die with their parent (autograder/grading/lifetime.py, used by the pool
and the pre-warmed kernel template).

Each test builds a small chain of real processes, SIGKILLs the middle one and checks that
the processes below it are gone soon after (a zombie waiting to be reaped counts as gone).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

#: Seconds a process may take to go once its parent is killed (generous: a busy machine).
GONE_TIMEOUT = 15.0

#: The middle of a chain: starts CHILD (with its own pid as the expected parent), prints
#: the child's pid once the child is tied, then waits to be killed.
MIDDLE = """\
import os, subprocess, sys, time
child = subprocess.Popen(
    [sys.executable, "-c", sys.argv[1], str(os.getpid())], stdout=subprocess.PIPE, text=True
)
assert child.stdout.readline().strip() == "ready"
print(child.pid, flush=True)
time.sleep(120)
"""

CHILD_TIED = """\
import sys, time
from autograder.grading.lifetime import die_with_parent
die_with_parent(int(sys.argv[1]))
print("ready", flush=True)
time.sleep(120)
"""

CHILD_UNTIED = """\
import time
print("ready", flush=True)
time.sleep(120)
"""


def _gone(pid: int, timeout: float = GONE_TIMEOUT) -> bool:
    """True once *pid* has ended (or is a zombie), within *timeout* seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("tied", [True, False], ids=["tied", "untied"])
def test_child_dies_with_its_killed_parent(tied):
    middle = subprocess.Popen(
        [sys.executable, "-c", MIDDLE, CHILD_TIED if tied else CHILD_UNTIED],
        stdout=subprocess.PIPE,
        text=True,
    )
    child = int(middle.stdout.readline())
    try:
        middle.kill()
        middle.wait()
        # untied, the same child outlives its parent: the check below can tell
        assert _gone(child, GONE_TIMEOUT if tied else 1.0) is tied
    finally:
        _kill(child)
        middle.stdout.close()


def test_child_whose_parent_is_already_gone_exits_at_once():
    # What a child sees when its parent died before it could tie itself: another parent.
    code = (
        "import os; from autograder.grading.lifetime import die_with_parent; "
        "die_with_parent(os.getppid() + 1); print('still here')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "still here" not in done.stdout


#: A grader in miniature: a pool of one worker, which first makes a folder (so the test
#: knows the worker has started) and then sleeps.
POOL = """\
import sys, time, os
from autograder.grading.pool import Task, WorkerPool
if __name__ == "__main__":
    tasks = [Task("mark", os.mkdir, (sys.argv[1],)), Task("sleep", time.sleep, (120,))]
    for outcome in WorkerPool(1).run(tasks):
        pass
"""


def test_pool_worker_dies_with_the_grader(tmp_path):
    marker = tmp_path / "worker-started"
    script = tmp_path / "grader.py"
    script.write_text(POOL)
    grader = subprocess.Popen([sys.executable, str(script), str(marker)], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert grader.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        workers = [
            p
            for p in psutil.Process(grader.pid).children()
            if "resource_tracker" not in " ".join(p.cmdline())
        ]
        assert workers
        grader.kill()
        grader.wait()
        for worker in workers:
            assert _gone(worker.pid)
    finally:
        grader.kill()
        grader.wait()


@pytest.mark.slow
def test_forked_kernel_dies_with_its_killed_template(tmp_path):
    """A kernel busy in C code holding the GIL (so ipykernel's own parent poller, a Python
    thread, cannot run) still dies when its template is killed."""
    from jupyter_client.blocking import BlockingKernelClient
    from jupyter_client.utils import run_sync

    from autograder.grading import prewarm

    template = prewarm.start_template(str(tmp_path / "kernels.log"))
    km = prewarm.PrewarmedKernelManager()
    run_sync(km.start_kernel)(cwd=str(tmp_path))
    kernel = km.provisioner.pid
    kc = BlockingKernelClient()
    kc.load_connection_info(km.get_connection_info())
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        busy = psutil.Process(kernel)
        before = sum(busy.cpu_times()[:2])
        kc.execute("sum(range(10**15))")
        # until the kernel has spent half a second in the cell (an idle kernel spends none):
        # its CPU, not its IOPub messages, which a subscription not yet joined can miss
        deadline = time.monotonic() + 60
        while sum(busy.cpu_times()[:2]) - before < 0.5:
            assert time.monotonic() < deadline, "the kernel never started on the cell"
            time.sleep(0.05)
        template.process.kill()
        template.process.wait()
        assert _gone(kernel)
    finally:
        kc.stop_channels()
        _kill(kernel)
        with contextlib.suppress(Exception):
            run_sync(km.shutdown_kernel)(now=True)
        prewarm.stop_template()
