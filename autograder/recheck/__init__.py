"""The trusted re-check: every autograded test cell re-run outside the student's kernel.

What runs the notebook is grading's ``SafeExecute`` (:mod:`autograder.grading.safe_execute`:
nbgrader's ``Execute`` with the sandboxed kernel, hidden tests kept out of it and this
re-check after it); from this package it uses:

- :mod:`~autograder.recheck.sources`, which gathers the cells,
  :mod:`~autograder.recheck.outcomes`, which writes what the re-check found into the
  notebook, and :mod:`~autograder.recheck.restarts`, which restarts a kernel killed because
  it ignored an interrupt;
- :mod:`~autograder.recheck.scan` (rules in :mod:`~autograder.recheck.scan_rules`): the
  static scan of the student's cells for tampering patterns;
- :mod:`~autograder.recheck.runner`: each test cell run here, in a namespace built by
  :mod:`~autograder.recheck.names`, the student's functions reached through
  :mod:`~autograder.recheck.channel` with plain data and functions by reference only
  (encoded and decoded by :mod:`~autograder.recheck.codec`, changes to arguments mirrored
  by :mod:`~autograder.recheck.mirror`; the kernel side is ``linlib._remote``, the wire
  format both sides share ``linlib.grader_kernel_wire``).
"""

from autograder.recheck.channel import (
    HungCall,
    KernelCallTimeout,
    KernelChannel,
    KernelUnavailable,
    RemoteFunction,
    StudentCodeError,
)
from autograder.recheck.codec import NotPlainData, decode
from autograder.recheck.names import DEFAULT_MODULE_ALIASES, InstructorCode, free_names
from autograder.recheck.runner import CheckResult, check_cells, run_test_cell
from autograder.recheck.scan import Finding, imported_names, scan_notebook, scan_source

__all__ = [
    "DEFAULT_MODULE_ALIASES",
    "CheckResult",
    "Finding",
    "HungCall",
    "InstructorCode",
    "KernelCallTimeout",
    "KernelChannel",
    "KernelUnavailable",
    "NotPlainData",
    "RemoteFunction",
    "StudentCodeError",
    "check_cells",
    "decode",
    "free_names",
    "imported_names",
    "run_test_cell",
    "scan_notebook",
    "scan_source",
]
