"""Whether the sandbox can start here (:func:`sandbox_unavailable_reason`), and with which
uids (:func:`uid_mode`); :func:`new_sandbox` makes a sandbox with them. Whether a run
grades in the sandbox (:func:`resolve_sandbox`, from :func:`sandbox_status`) is decided
here too.

The probe runs a tiny Python in a sandbox once per process (cached). With root, it also
finds which uids a sandbox may use (:mod:`~.uids`): a fresh random one, or ``nobody`` where
fresh uids are not mapped (a user-namespaced container). The answer is kept in this process,
never written into the environment: a process that makes a sandbox without having probed (a
grading worker) probes first. ``AUTOGRADER_SANDBOX_UID`` still forces one uid.

The probe sits above :mod:`~.box` (it runs its program in a :class:`~.box.Sandbox`); a
sandbox asks nothing of the probe: whoever makes one passes the uid mode
(:func:`new_sandbox`).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from typing import Any

from autograder.files import SANDBOX_PREFIX, WARM_PREFIX
from autograder.models import SandboxUnavailable
from autograder.sandbox.box import Sandbox
from autograder.sandbox.limits import Limits
from autograder.sandbox.mounts import bwrap_path
from autograder.sandbox.seccomp import MACHINES, libseccomp_missing
from autograder.sandbox.uids import UidMode
from autograder.sandbox.watchdog import uid_pids

_PROBE_CODE = (
    "import socket,sys; s=socket.socket(); s.settimeout(1)\n"
    "try:\n s.connect(('1.1.1.1', 53)); sys.exit(3)\nexcept OSError: pass\n"
    "print('sandbox-ok')"
)


def _try(mode: UidMode) -> tuple[str | None, bool]:
    """Run the probe's program in a sandbox using *mode*: (failure or None, privileged)."""
    box = Sandbox(uid_mode=mode)
    try:
        cmd, kw = box.popen_kwargs(box.command([sys.executable, "-I", "-c", _PROBE_CODE]))
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **kw
            )
        finally:
            box.close_launch_fds()
        if proc.returncode == 0 and "sandbox-ok" in proc.stdout:
            return None, box.privileged
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [
            f"exit status {proc.returncode}"
        ]
        return f"bubblewrap failed: {last[0]}", box.privileged
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not run: {exc}", box.privileged
    finally:
        box.cleanup()


#: A Unix socket's longest path (``sun_path``: 108 bytes with the closing NUL).
SOCKET_PATH_MAX = 107
#: What a sandboxed kernel's sockets (ZeroMQ ipc) add to the temporary folder's path: a warm
#: box's folder, the sandbox's, its run folder, and the socket ("k-" and a port).
SOCKET_PATH_TAIL = len(f"/{WARM_PREFIX}12345678/{SANDBOX_PREFIX}12345678/run/k-65535")


def temp_too_long() -> str | None:
    """Why the temporary folder's path is too long for the sandboxed kernels' sockets, or
    None (the kernel would fail to bind them, and every notebook with it)."""
    temp = os.fsencode(os.path.realpath(tempfile.gettempdir()))
    room = SOCKET_PATH_MAX - SOCKET_PATH_TAIL
    if len(temp) <= room:
        return None
    return (
        f"the temporary folder's path is {len(temp)} bytes long, and the sandboxed kernels' "
        f"sockets in it need at most {room}: set TMPDIR to a shorter folder (e.g. /tmp)"
    )


@functools.lru_cache(maxsize=1)
def _probe() -> tuple[str | None, UidMode | None]:
    """(why the sandbox cannot start or None, the uid mode that works or None)."""
    if not sys.platform.startswith("linux"):
        return "the sandbox needs Linux (namespaces)", None
    if (too_long := temp_too_long()) is not None:
        return too_long, None
    if bwrap_path() is None:
        return (
            "bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap)",
            None,
        )
    if os.uname().machine in MACHINES and (missing := libseccomp_missing()) is not None:
        return missing, None
    last: str | None = "unknown error"
    for mode in ("random", "nobody"):
        last, privileged = _try(mode)
        if last is None:
            return None, mode
        if not privileged:
            break
    return last, None


def uid_mode() -> UidMode | None:
    """Which uids a sandbox may use here, as the probe found (None: it found none)."""
    return _probe()[1]


def new_sandbox(limits: Limits | None = None, **kwargs: Any) -> Sandbox:
    """A :class:`~.box.Sandbox` whose uid (with root) is of the mode the probe found here
    (probing first if need be); *kwargs* are the sandbox's other keyword arguments."""
    return Sandbox(limits, uid_mode=uid_mode(), **kwargs)


def clear_cache() -> None:
    """Forget the probe's answer (the next question probes again)."""
    _probe.cache_clear()


def sandbox_unavailable_reason() -> str | None:
    """Why the grading sandbox cannot start here, or None when it can.

    Runs a tiny sandboxed Python once per process (cached) to find out.
    """
    return _probe()[0]


def sandbox_status() -> tuple[bool, str | None]:
    """(available, reason-if-not) for the grading sandbox."""
    reason = sandbox_unavailable_reason()
    return reason is None, reason


def resolve_sandbox(sandbox: bool | None) -> bool:
    """``None`` means "sandbox if available"; ``True`` requires it (raises
    :class:`~autograder.models.SandboxUnavailable` when it cannot start); ``False`` turns
    it off."""
    if sandbox is False:
        return False
    available, reason = sandbox_status()
    if sandbox and not available:
        raise SandboxUnavailable(f"the grading sandbox cannot start: {reason}")
    return available


def sandbox_pids(uid: int) -> list[int]:
    """Host pids of processes running as *uid* (for tests: nothing may be left behind)."""
    return uid_pids(uid)
