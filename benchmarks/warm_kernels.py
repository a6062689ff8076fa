"""Sandboxed kernel start, cold against warm: ``python -m benchmarks.warm_kernels [N]``.

Starts N sandboxed kernels cold (bubblewrap, a fresh Python, ipykernel) and N forked from a
warm box (:mod:`autograder.sandbox.warm`), one after another, and prints the median seconds
from ``start_kernel`` to the kernel's first reply, and to the end of a first cell importing
what a course notebook imports (numpy, scipy, scikit-learn, matplotlib, linlib), then to
the kernel being gone. Less noisy than the grading benchmark on a shared machine: it
measures one kernel at a time. Needs root and bubblewrap.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

from jupyter_core.utils import run_sync

from autograder.grading.prewarm import PRELOAD
from autograder.sandbox import SandboxedKernelManager, sandbox_unavailable_reason
from autograder.sandbox.warm import start_warm_box, stop_warm_box

IMPORTS = "import numpy, scipy.optimize, sklearn.linear_model, matplotlib.pyplot as plt, linlib"


def one(warm: bool, cwd: str) -> tuple[float, float, float]:
    """(seconds to the first reply, to the imports done, to the kernel gone)."""
    started = time.monotonic()
    km = SandboxedKernelManager(warm=warm)
    run_sync(km.start_kernel)(cwd=cwd)
    kc = km.client()
    kc.start_channels()
    try:
        run_sync(kc.wait_for_ready)(timeout=120)
        ready = time.monotonic() - started
        reply = run_sync(kc.execute_interactive)(IMPORTS, timeout=120)
        assert reply["content"]["status"] == "ok", reply["content"]
        imported = time.monotonic() - started
    finally:
        kc.stop_channels()
        run_sync(km.shutdown_kernel)(now=True)
    return ready, imported, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 5
    reason = sandbox_unavailable_reason()
    if reason is not None:
        print(f"no sandbox here: {reason}")
        return 1
    with tempfile.TemporaryDirectory() as cwd:
        one(False, cwd)  # the first kernel of a process pays for loading jupyter_client
        cold = [one(False, cwd) for _ in range(n)]
        box = start_warm_box(PRELOAD)
        if box is None:
            print("no warm box here (it needs root)")
            return 1
        box.wait_ready()
        try:
            warm = [one(True, cwd) for _ in range(n)]
        finally:
            stop_warm_box()
    print(f"{n} kernels each, one at a time; median seconds from start_kernel:")
    print(f"  {'':6} {'first reply':>12} {'imports done':>13} {'kernel gone':>12}")
    for label, runs in (("cold", cold), ("warm", warm)):
        cols = [statistics.median(r[i] for r in runs) for i in range(3)]
        print(f"  {label:6} {cols[0]:12.2f} {cols[1]:13.2f} {cols[2]:12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
