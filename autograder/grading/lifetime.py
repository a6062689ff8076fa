"""Tie a helper process's life to its parent's: Linux's parent-death signal.

The grader's helper processes (the pool's workers, each worker's pre-warmed kernel
template, the kernels forked from it) call :func:`die_with_parent` first thing: when the
process that started them dies, however it dies (SIGKILL included), the kernel sends them
SIGKILL, and their own helpers follow in turn. The sandbox's bubblewrap does the same for
itself (``--die-with-parent``) and its PID namespace takes everything inside along.

Linux sends the signal when the *thread* that started the process ends, not the whole
process: a helper must be started from a thread that lives as long as it is needed (a
worker's main thread, pebble's pool threads, the template's only thread).

``prctl`` is called through ctypes on libc: the PyPI wrappers are unmaintained (pyprctl,
prctl) or a C extension that needs libcap's headers to build (python-prctl), for a call of
one line.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

#: ``<linux/prctl.h>``
PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """SIGKILL this process when its parent dies; exit now if the parent is already gone.

    Parameters
    ----------
    parent_pid : int
        The pid of the process that started this one. Between that start and this call,
        the parent may have died already (no signal would ever come): then this process
        is no longer its child, and it exits at once.
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"prctl(PR_SET_PDEATHSIG): {os.strerror(error)}")
    if os.getppid() != parent_pid:
        os._exit(1)
