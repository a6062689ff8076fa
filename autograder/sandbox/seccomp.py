"""The seccomp filter of the sandbox: no new namespaces, no mounts, a few risky calls refused.

Bubblewrap loads the compiled classic-BPF program (``--seccomp FD``) before it starts the
sandbox's first process.
"""

from __future__ import annotations

import os
import struct

# struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JSET_K = 0x45
_BPF_RET_K = 0x06
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
_CLONE_NAMESPACES = 0x10000000 | 0x20000000 | 0x40000000 | 0x04000000 | 0x08000000 | 0x00020000
# CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS
_CLONE_NEWCGROUP = 0x02000000

_ARCHES = {
    # machine: (AUDIT_ARCH, {syscall: number})
    "x86_64": (
        0xC000003E,
        {
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
    ),
    "aarch64": (
        0xC00000B7,
        {
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
    ),
}


def seccomp_filter(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp program refusing namespaces, mounts and a few risky calls.

    A process in the sandbox could otherwise create a user namespace of its own and mount
    a tmpfs there, i.e. use memory no rlimit or watchdog sees. ``clone3`` gets ``ENOSYS`` so
    that the C library falls back to ``clone``, whose flags a filter can inspect.

    Returns None on an architecture this module has no syscall table for.
    """
    machine = machine or os.uname().machine
    if machine not in _ARCHES:
        return None
    audit_arch, nr = _ARCHES[machine]
    deny_eperm = [
        nr[n]
        for n in (
            "unshare",
            "setns",
            "mount",
            "umount2",
            "pivot_root",
            "fsopen",
            "fsmount",
            "open_tree",
            "move_mount",
            "bpf",
            "userfaultfd",
            "perf_event_open",
            "keyctl",
            "add_key",
            "request_key",
        )
    ]
    prog: list[tuple[int, int, int, int]] = []

    def ins(code: int, jt: int, jf: int, k: int) -> None:
        prog.append((code, jt, jf, k))

    ret_allow = (_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW)
    ret_eperm = (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | _EPERM)
    ret_enosys = (_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | _ENOSYS)
    # seccomp_data: int nr (0); u32 arch (4); u64 ip (8); u64 args[6] (16...)
    ins(_BPF_LD_W_ABS, 0, 0, 4)
    ins(_BPF_JEQ_K, 1, 0, audit_arch)
    prog.append(ret_eperm)  # a foreign ABI (e.g. x32/i386 on x86_64): refuse everything
    ins(_BPF_LD_W_ABS, 0, 0, 0)
    # Layout after the loads: one JEQ per denied number jumping to the EPERM return at the
    # end, then clone3, then clone's flag test.
    n_deny = len(deny_eperm)
    # indexes relative to after each instruction; built below with fixed tail:
    #   [deny JEQs] [JEQ clone3] [JEQ clone] [ALLOW] [clone: LD args0] [JSET] [ALLOW]
    #   [ENOSYS] [EPERM]
    tail_len = 7  # instructions after the deny block up to and including ENOSYS
    for i, number in enumerate(deny_eperm):
        # jump to EPERM: skip remaining deny JEQs and the tail
        ins(_BPF_JEQ_K, (n_deny - 1 - i) + tail_len, 0, number)
    ins(_BPF_JEQ_K, 5, 0, nr["clone3"])  # -> ENOSYS
    ins(_BPF_JEQ_K, 1, 0, nr["clone"])  # -> LD args0
    prog.append(ret_allow)
    ins(_BPF_LD_W_ABS, 0, 0, 16)  # low 32 bits of args[0] (little endian)
    ins(_BPF_JSET_K, 2, 0, _CLONE_NAMESPACES | _CLONE_NEWCGROUP)  # -> EPERM
    prog.append(ret_allow)
    prog.append(ret_enosys)
    prog.append(ret_eperm)
    return b"".join(struct.pack("=HBBI", *i) for i in prog)
