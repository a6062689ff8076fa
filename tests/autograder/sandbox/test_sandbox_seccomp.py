"""The seccomp filter (autograder/sandbox/seccomp.py), loaded by a plain process with prctl.

A small Python loads the exported BPF program itself (``PR_SET_SECCOMP``, as bubblewrap
does) and then makes each refused call with arguments the kernel would reject in another way
(a bad address, a bad descriptor, an invalid flag combination): what comes back tells
whether the filter or the kernel answered, and nothing is actually mounted or created. The
same program without the filter is the control. The syscall numbers are the kernel's
tables, written here independently of libseccomp.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap

import pytest

from autograder.sandbox import seccomp_filter

NUMBERS = {
    "x86_64": {
        "unshare": 272,
        "setns": 308,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "clone": 56,
        "clone3": 435,
        "fsopen": 430,
        "fsmount": 432,
        "open_tree": 428,
        "move_mount": 429,
        "bpf": 321,
        "userfaultfd": 323,
        "perf_event_open": 298,
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
    },
    "aarch64": {
        "unshare": 97,
        "setns": 268,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "clone": 220,
        "clone3": 435,
        "fsopen": 430,
        "fsmount": 432,
        "open_tree": 428,
        "move_mount": 429,
        "bpf": 280,
        "userfaultfd": 282,
        "perf_event_open": 241,
        "keyctl": 219,
        "add_key": 217,
        "request_key": 218,
    },
}
MACHINE = os.uname().machine
BAD = 1  # an address nothing is mapped at
CLONE_SIGHAND = 0x00000800  # without CLONE_VM: EINVAL from the kernel, before any process
NAMESPACES = {
    "user": 0x10000000,
    "pid": 0x20000000,
    "net": 0x40000000,
    "uts": 0x04000000,
    "ipc": 0x08000000,
    "mount": 0x00020000,
    "cgroup": 0x02000000,
}

# (label, call, arguments) -> the errno expected under the filter
REFUSED = [
    ("unshare", "unshare", [-1], errno.EPERM),
    ("setns", "setns", [-1, 0], errno.EPERM),
    ("mount", "mount", [BAD, BAD, BAD, 0, BAD], errno.EPERM),
    ("umount2", "umount2", [BAD, 0], errno.EPERM),
    ("pivot_root", "pivot_root", [BAD, BAD], errno.EPERM),
    ("fsopen", "fsopen", [BAD, 0], errno.EPERM),
    ("fsmount", "fsmount", [-1, 0, 0], errno.EPERM),
    ("open_tree", "open_tree", [-1, BAD, 0], errno.EPERM),
    ("move_mount", "move_mount", [-1, BAD, -1, BAD, 0], errno.EPERM),
    ("bpf", "bpf", [-1, 0, 0], errno.EPERM),
    ("userfaultfd", "userfaultfd", [-1], errno.EPERM),
    ("perf_event_open", "perf_event_open", [BAD, 0, -1, -1, 0], errno.EPERM),
    ("keyctl", "keyctl", [-1, 0, 0, 0, 0], errno.EPERM),
    ("add_key", "add_key", [BAD, BAD, 0, 0, 0], errno.EPERM),
    ("request_key", "request_key", [BAD, BAD, BAD, 0], errno.EPERM),
    ("clone3", "clone3", [0, 0], errno.ENOSYS),
] + [
    (f"clone new {name}", "clone", [flag | CLONE_SIGHAND, 0, 0, 0, 0], errno.EPERM)
    for name, flag in NAMESPACES.items()
]
# clone without a namespace flag reaches the kernel (which refuses the flag combination)
PASSED = [("clone plain", "clone", [CLONE_SIGHAND, 0, 0, 0, 0], errno.EINVAL)]

PROGRAM = """
import ctypes, json, os, socket, subprocess, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
spec = json.loads(sys.argv[1])
if spec["filter"]:
    program = open(spec["filter"], "rb").read()
    buf = ctypes.create_string_buffer(program, len(program))
    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fprog = Fprog(len(program) // 8, ctypes.addressof(buf))
    assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
    assert libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0  # PR_SET_SECCOMP, FILTER
results = {}
for label, number, args in spec["calls"]:
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    results[label] = ctypes.get_errno() if ret == -1 else "ok"
# what a kernel needs: threads (clone3 -> clone fallback), fork, a child program, sockets
box = []
thread = threading.Thread(target=box.append, args=(1,))
thread.start(); thread.join()
pid = os.fork()
if pid == 0:
    os._exit(7)
results["thread"] = box == [1]
results["fork"] = os.waitpid(pid, 0)[1] >> 8
results["exec"] = subprocess.run([sys.executable, "-c", "print(6 * 7)"],
                                 capture_output=True, text=True).stdout.strip()
a, b = socket.socketpair(); a.send(b"x"); results["socket"] = b.recv(1).decode()
print(json.dumps(results))
"""


def run_calls(filter_path: str | None) -> dict:
    numbers = NUMBERS[MACHINE]
    calls = [[label, numbers[name], args] for label, name, args, _ in REFUSED + PASSED]
    spec = json.dumps({"filter": filter_path, "calls": calls})
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROGRAM), spec],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(MACHINE not in NUMBERS, reason="no filter for this machine")
def test_the_filter_refuses_exactly_the_policy_and_lets_a_kernel_work(tmp_path):
    path = tmp_path / "filter.bpf"
    path.write_bytes(seccomp_filter())
    filtered = run_calls(str(path))
    control = run_calls(None)
    for label, _, _, expected in REFUSED + PASSED:
        assert filtered[label] == expected, (label, filtered[label])
    for key, value in {"thread": True, "fork": 7, "exec": "42", "socket": "x"}.items():
        assert filtered[key] == value == control[key], key
    if os.geteuid() == 0:
        # with root nothing of these is refused with EPERM/ENOSYS by the kernel itself:
        # each answer above came from the filter
        for label, _, _, expected in REFUSED:
            assert control[label] != expected, (label, control[label])
    assert control["clone plain"] == errno.EINVAL


def test_a_filter_for_each_known_machine_and_none_for_others():
    x86, arm = seccomp_filter("x86_64"), seccomp_filter("aarch64")
    assert x86 and arm and x86 != arm
    assert len(x86) % 8 == 0 and len(arm) % 8 == 0  # whole sock_filter instructions
    assert seccomp_filter("sparc64") is None
