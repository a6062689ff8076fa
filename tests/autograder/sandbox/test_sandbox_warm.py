"""Warm sandboxed kernels (autograder/sandbox/warm.py, warm_template.py): the box starts, a
kernel comes from it already warm and confined like a cold one, the next kernel finds
nothing of the last, and every failure of the box falls back to the cold sandbox."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from jupyter_core.utils import run_sync

from autograder.grading.prewarm import PRELOAD
from autograder.options import GradeOptions
from autograder.sandbox import (
    SandboxedKernelManager,
    sandbox_pids,
    warm,
)
from autograder.sandbox.warm import ForkedKernelProcess, WarmBox, launcher_args

pytestmark = pytest.mark.slow  # warm boxes, each a template that imports the course: seconds

ROOT = os.geteuid() == 0


def needs_box(test):
    """The warm box needs the sandbox (else skipped, failed in CI) and root."""
    test = pytest.mark.skipif(not ROOT, reason="no warm box here: not root")(test)
    return pytest.mark.needs_sandbox(test)


#: What a kernel sees of itself, as one JSON line.
LOOK = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines())
print(json.dumps({
    "warm": "sandbox-warm" in open("/proc/1/cmdline").read(),
    "preloaded": "sklearn" in sys.modules and "linlib" in sys.modules,
    "pid": os.getpid(),
    "uid": os.getuid(),
    "cwd": os.getcwd(),
    "files": sorted(os.listdir(".")),
    "tmp": sorted(os.listdir("/tmp")),
    "shm": sorted(os.listdir("/dev/shm")),
    "procs": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "seccomp": status["Seccomp"].strip(),
    "no_new_privs": status["NoNewPrivs"].strip(),
    "cap_eff": status["CapEff"].strip(),
    "unshare": libc.unshare(0x10000000),
    "hostname": os.uname().nodename,
}))
"""

#: A student who leaves everything it can behind (run in the first kernel).
LEAVE = r"""
import ctypes, os, signal, socket, sys, time
import numpy
libc = ctypes.CDLL(None, use_errno=True)
for path in ("left.txt", "/tmp/left.txt", "/dev/shm/left"):
    open(path, "w").write("A was here")
shm = libc.shmget(0xA11CE, 4096, 0o1666)
msq = libc.msgget(0xA11CE, 0o1666)
os.environ["LEFT_BY_A"] = "1"
numpy.pi = 3
sys.modules["json"] = None
listener = socket.socket()
listener.bind(("127.0.0.1", 47011))
listener.listen()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time\nwhile True: time.sleep(1)",
                                  "left-by-a"])
    os._exit(0)
time.sleep(0.5)
me = os.getpid()
killed = []
for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
    if pid != me:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
print("LEFT", shm >= 0, msq >= 0, killed)
"""

#: What the next student looks for.
FIND = r"""
import ctypes, json, os, socket, sys
import numpy
libc = ctypes.CDLL(None, use_errno=True)
found = []
for path in ("left.txt", "/tmp/left.txt", "/dev/shm/left"):
    if os.path.exists(path):
        found.append(path)
if libc.shmget(0xA11CE, 0, 0) >= 0:
    found.append("shm")
if libc.msgget(0xA11CE, 0) >= 0:
    found.append("msg")
if "LEFT_BY_A" in os.environ:
    found.append("env")
if numpy.pi != 3.141592653589793:
    found.append("numpy.pi")
if sys.modules.get("json") is None:
    found.append("sys.modules")
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        if "left-by-a" in open(f"/proc/{pid}/cmdline").read():
            found.append("process")
    except OSError:
        pass
try:
    socket.create_connection(("127.0.0.1", 47011), timeout=1).close()
    found.append("socket")
except OSError:
    pass
print("FOUND", json.dumps(found))
"""


def _run(km: SandboxedKernelManager, code: str) -> str:
    kc = km.client()
    kc.start_channels()
    try:
        run_sync(kc.wait_for_ready)(timeout=60)
        out: list[str] = []

        def keep(msg):
            content = msg["content"]
            if msg["msg_type"] == "stream":
                out.append(content["text"])
            elif msg["msg_type"] == "error":
                out.append("\n".join(content["traceback"]))

        run_sync(kc.execute_interactive)(code, timeout=60, output_hook=keep)
        return "".join(out)
    finally:
        kc.stop_channels()


def _kernel(cwd, **traits) -> tuple[SandboxedKernelManager, type]:
    """A started sandboxed kernel, and the type of its process (the provisioner forgets it
    at shutdown)."""
    km = SandboxedKernelManager(**traits)
    run_sync(km.start_kernel)(cwd=str(cwd))
    return km, type(km.provisioner.process)


def _stop(km: SandboxedKernelManager) -> None:
    run_sync(km.shutdown_kernel)(now=True)


@pytest.fixture
def box(tmp_path_factory):
    """This process's warm box, ready; stopped afterwards."""
    log_path = tmp_path_factory.mktemp("box") / "box.log"
    started = warm.start_warm_box(PRELOAD, log_path=log_path)
    assert started is not None
    started.wait_ready()
    yield started
    warm.stop_warm_box()


def test_launcher_args_only_for_this_pythons_ipykernel():
    assert launcher_args(["python3", "-m", "ipykernel_launcher", "-f", "c.json"]) == [
        "-f",
        "c.json",
    ]
    assert launcher_args(["/usr/bin/other-kernel", "-f", "c.json"]) is None
    assert launcher_args(["/nowhere/python", "-m", "ipykernel_launcher"]) is None


def test_without_a_box_the_kernel_manager_asks_for_none(monkeypatch):
    monkeypatch.setattr(warm, "_BOX", None)
    monkeypatch.setattr(warm, "_START", None)
    assert warm.current_warm_box() is None


def test_no_box_without_bubblewrap_or_root(monkeypatch, tmp_path):
    monkeypatch.setattr(warm, "_BOX", None)
    monkeypatch.setattr(warm, "_START", None)
    monkeypatch.setattr(warm, "bwrap_path", lambda: None)
    assert warm.start_warm_box(PRELOAD, base_dir=tmp_path) is None
    with pytest.raises(warm.WarmBoxError, match="bubblewrap"):
        WarmBox(PRELOAD, base_dir=tmp_path)
    monkeypatch.setattr(warm, "bwrap_path", lambda: "/usr/bin/bwrap")
    monkeypatch.setattr(warm.os, "geteuid", lambda: 1000)
    with pytest.raises(warm.WarmBoxError, match="root"):
        WarmBox(PRELOAD, base_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing made


@needs_box
def test_a_warm_kernel_is_warm_and_confined_like_a_cold_one(box, tmp_path):
    (tmp_path / "data.csv").write_text("1,2\n")
    started = time.monotonic()
    km, kind = _kernel(tmp_path)
    try:
        seen = json.loads(_run(km, LOOK))
        ready = time.monotonic() - started
    finally:
        _stop(km)
    sandbox = km.sandbox
    assert kind is ForkedKernelProcess
    assert sandbox is not None and sandbox.root.parent == box.root
    print(f"warm kernel: ready and answered in {ready:.2f} s")
    assert seen["warm"] and seen["preloaded"]
    # PID 2 under an init of its own: nothing of the box (the template) is visible
    assert seen["pid"] == 2 and seen["procs"] == [1, 2]
    assert seen["uid"] == sandbox.uid and seen["uid"] != 0
    assert seen["cwd"] == "/home/student" and seen["files"] == ["data.csv"]
    assert seen["shm"] == [] and "data.csv" not in seen["tmp"]
    assert seen["seccomp"] == "2" and seen["no_new_privs"] == "1"
    assert int(seen["cap_eff"], 16) == 0
    assert seen["unshare"] == -1  # the seccomp filter refuses a new user namespace
    assert seen["hostname"] == "sandbox"
    assert not sandbox.root.exists() and sandbox_pids(sandbox.uid) == []
    assert box.alive()


@needs_box
def test_the_next_kernel_finds_nothing_of_the_last(box, tmp_path):
    first, _ = _kernel(tmp_path)
    try:
        left = _run(first, LEAVE)
    finally:
        _stop(first)
    assert "LEFT True True" in left, left  # the attempt itself worked
    assert first.sandbox is not None and sandbox_pids(first.sandbox.uid) == []
    assert box.alive()  # nothing the student killed was the template
    second, kind = _kernel(tmp_path)
    try:
        found = _run(second, FIND + "\n" + LOOK)
    finally:
        _stop(second)
    assert kind is ForkedKernelProcess
    assert "FOUND []" in found, found
    assert json.loads(found.splitlines()[-1])["warm"]
    assert second.sandbox is not None and second.sandbox.uid != first.sandbox.uid


@needs_box
@pytest.mark.slow  # a cold kernel too
def test_a_kernel_the_box_cannot_make_starts_cold(box, tmp_path, monkeypatch):
    # the template cannot mount the working folder there: its setup fails, and says why
    monkeypatch.setattr(warm, "WORK_DIR", "/proc/no-such-folder")
    km, kind = _kernel(tmp_path)
    try:
        seen = json.loads(_run(km, LOOK))
    finally:
        _stop(km)
    assert kind is subprocess.Popen
    assert not seen["warm"] and seen["cwd"] == "/home/student"
    assert box.alive()  # the box itself is fine: the next kernel is warm again
    monkeypatch.undo()
    km, kind = _kernel(tmp_path)
    _stop(km)
    assert kind is ForkedKernelProcess


@needs_box
@pytest.mark.slow  # a cold kernel too
def test_a_dead_box_means_a_cold_kernel_and_a_new_box(box, tmp_path):
    os.kill(box.process.pid, signal.SIGKILL)
    box.process.wait()
    km, kind = _kernel(tmp_path)
    try:
        seen = json.loads(_run(km, LOOK))
    finally:
        _stop(km)
    assert kind is subprocess.Popen and not seen["warm"]
    again = warm.current_warm_box()
    assert again is not None and again is not box and again.alive()
    again.wait_ready()
    km, kind = _kernel(tmp_path)
    try:
        assert kind is ForkedKernelProcess and json.loads(_run(km, LOOK))["warm"]
    finally:
        _stop(km)
    assert not box.root.exists()


@needs_box
@pytest.mark.slow  # a cold kernel too
def test_a_box_that_dies_while_asked_gives_a_cold_kernel_in_the_same_sandbox(
    box, tmp_path, monkeypatch
):
    asked = WarmBox._request

    def die_first(self, sandbox, argv):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        return asked(self, sandbox, argv)

    monkeypatch.setattr(WarmBox, "_request", die_first)
    (tmp_path / "data.csv").write_text("1,2\n")
    km, kind = _kernel(tmp_path)
    try:
        seen = json.loads(_run(km, LOOK))
    finally:
        _stop(km)
    assert kind is subprocess.Popen and not seen["warm"] and seen["files"] == ["data.csv"]
    assert km.sandbox is not None and km.sandbox.root.parent == box.root
    assert not box.root.exists()  # removed with the last sandbox in it
    again = warm.current_warm_box()
    assert again is not None and again is not box and again.alive()


@needs_box
@pytest.mark.slow  # a cold kernel too
def test_the_manager_may_refuse_the_box(box, tmp_path):
    km, kind = _kernel(tmp_path, warm=False)
    _stop(km)
    assert kind is subprocess.Popen


def _warm_box_alive() -> bool:
    """In a grading process: whether it has a live warm box."""
    box = warm.current_warm_box()
    return box is not None and box.alive()


@needs_box
@pytest.mark.slow
@pytest.mark.parametrize("sandbox", [True, False])
def test_a_dask_workers_grading_process_starts_a_warm_box_when_sandboxed(sandbox):
    """A Dask worker grades in a process of its own (``GradingProcess``); sandboxed, that
    process starts its warm box, as a worker of the local pool does."""
    from autograder.grading.dask_batch import GradingProcess

    process = GradingProcess(None, prewarm=True, options=GradeOptions(sandbox=sandbox))
    process.setup()
    try:
        assert process.pool.schedule(_warm_box_alive).result(timeout=120) is sandbox
    finally:
        process.teardown()


#: A failed cell's traceback, formatted by IPython as a kernel formats it; with ``warm``,
#: after a template's imports (:func:`~autograder.sandbox.warm_template.preload`).
#: Prints the traceback's lines and what was cached before it was formatted.
TRACEBACK = r"""
import inspect, json, sys
import IPython
from pygments.lexers import PythonLexer
if sys.argv[1] == "warm":
    from autograder.sandbox.warm_template import preload
    preload(["IPython"])
from IPython.core.ultratb import AutoFormattedTB
def add(a, b):
    return a - b
try:
    assert add(1, 2) == 3
except AssertionError:
    cached = {"modules": len(inspect.modulesbyfile), "lexer": "_tokens" in vars(PythonLexer)}
    lines = AutoFormattedTB(mode="Context").structured_traceback(*sys.exc_info())
print(json.dumps({"lines": lines, **cached}))
"""


def test_the_templates_traceback_warm_up_fills_the_caches_and_changes_no_traceback():
    """A kernel forked from a template formats its first traceback with the caches the
    template filled (``inspect``'s map of the loaded modules' files, pygments' compiled
    Python lexer), and the traceback reads the same as a cold process's."""
    out = {}
    for kind in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, "-c", TRACEBACK, kind], capture_output=True, text=True, check=True
        )
        out[kind] = json.loads(done.stdout.splitlines()[-1])
    assert out["warm"]["lines"] == out["cold"]["lines"]
    assert "AssertionError" in out["warm"]["lines"][-1]
    assert (out["cold"]["modules"], out["cold"]["lexer"]) == (0, False)
    assert out["warm"]["modules"] > 100
    assert out["warm"]["lexer"]
