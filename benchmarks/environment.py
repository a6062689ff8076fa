"""The environment a benchmark's child processes run in (the grader's command line, stock
``nbgrader``, the kernels they start): this Python's scripts first on ``PATH``, so that
``nbgrader`` and ``jupyter`` are the project's, and the hash seed and matplotlib backend
``./run`` sets, unless the caller set them."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def child_env() -> dict[str, str]:
    """A copy of this process's environment for a benchmark's child processes."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("MPLBACKEND", "Agg")
    return env
