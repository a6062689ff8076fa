"""The seccomp filter of the sandbox: no new namespaces, no mounts, a few risky calls refused.

Written as a libseccomp policy (through ``pyseccomp``, a ctypes binding of the system's
libseccomp) and compiled by libseccomp to a classic-BPF program, which bubblewrap loads
(``--seccomp FD``) before it starts the sandbox's first process.

The policy: every call is allowed except

- ``unshare``, ``setns``, the mount calls (``mount``, ``umount2``, ``pivot_root``,
  ``fsopen``, ``fsmount``, ``open_tree``, ``move_mount``), ``bpf``, ``userfaultfd``,
  ``perf_event_open`` and the key calls (``keyctl``, ``add_key``, ``request_key``): EPERM;
- ``clone`` with any namespace flag (user, pid, net, uts, ipc, mount, cgroup): EPERM;
- ``clone3``: ENOSYS, so that the C library falls back to ``clone``, whose flags a filter
  can inspect (``clone3`` passes them in memory);
- any call of a foreign ABI (i386 or x32 on x86_64, arm32 on aarch64): EPERM.

A process in the sandbox could otherwise create a user namespace of its own and mount a
tmpfs there, i.e. use memory no rlimit or watchdog sees.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile

#: Refused with EPERM whatever their arguments.
DENIED = (
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
#: clone's flags that make a new namespace: USER, PID, NET, UTS, IPC, NS (mounts), CGROUP.
CLONE_NAMESPACE_FLAGS = (
    0x10000000,
    0x20000000,
    0x40000000,
    0x04000000,
    0x08000000,
    0x00020000,
    0x02000000,
)
#: The machines (``os.uname().machine``) the filter is made for, and libseccomp's name.
MACHINES = {"x86_64": "X86_64", "aarch64": "AARCH64"}


def libseccomp_missing() -> str | None:
    """Why the filter cannot be built here (libseccomp not found), or None."""
    try:
        import pyseccomp  # noqa: F401  (loads the system's libseccomp)
    except (ImportError, RuntimeError, OSError) as exc:
        return f"libseccomp cannot be loaded ({exc}); install it (e.g. apt-get install libseccomp2)"
    return None


@functools.lru_cache(maxsize=4)
def seccomp_filter(machine: str | None = None) -> bytes | None:
    """The compiled classic-BPF program of the policy above, for *machine* (default: this one).

    Returns None on a machine this module makes no filter for.
    """
    machine = machine or os.uname().machine
    if machine not in MACHINES:
        return None
    import pyseccomp as sc  # the system's libseccomp, loaded when a filter is first made

    policy = sc.SyscallFilter(sc.ALLOW)
    arch = getattr(sc.Arch, MACHINES[machine])
    if arch != sc.system_arch():
        # Rules name calls by their native number; libseccomp translates them per arch.
        policy.add_arch(arch)
        policy.remove_arch(sc.Arch.NATIVE)
    policy.set_attr(sc.Attr.ACT_BADARCH, sc.ERRNO(errno.EPERM))
    for name in DENIED:
        policy.add_rule(sc.ERRNO(errno.EPERM), name)
    policy.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for flag in CLONE_NAMESPACE_FLAGS:
        policy.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    with tempfile.TemporaryFile() as out:
        policy.export_bpf(out)
        out.seek(0)
        return out.read()
