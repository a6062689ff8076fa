"""Grading: prepared submissions graded by nbgrader in parallel worker processes.

``batch`` (the batch and the ledger's resume), ``pool`` (the crash-tolerant worker pool),
``dask_batch`` (the batch on a Dask cluster instead: ``--dask``), ``canary`` (the
instructor's solution graded first: a broken grading environment refuses the batch),
``task`` (what a worker runs), ``gradebook`` (one gradebook engine per process and URL),
``config`` (nbgrader's preprocessor lists with ours),
``safe_execute`` (``SafeExecute``, nbgrader's ``Execute`` in the sandbox: one notebook's run
with its time limits, kernel restarts and output caps, then the trusted re-check),
``preprocessors`` (the other preprocessors), ``prewarm`` (kernels forked from a pre-warmed
template), ``ledger`` (graded submissions on disk), ``sanitise`` (the feedback pages'
cleaning and Content-Security-Policy; the similarity report uses them too).

The names below are imported on first use (PEP 562): a grading worker that imports
:mod:`autograder.grading.pool` does not pay for nbformat and nbgrader before its
initializer, and ``python -m autograder --help`` stays quick.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "CANARY_PREFIX": "canary",
    "ENV_CONFIG": "safe_execute",
    "SafeExecute": "safe_execute",
    "SUBMISSION_TIMEOUT": "batch",
    "grade_prepared": "batch",
    "grader_fingerprint": "batch",
    "grading_salt": "batch",
    "canary_student": "canary",
    "check_dask_gradebook": "dask_batch",
    "parse_dask_target": "dask_batch",
    "autograde_config": "config",
    "feedback_config": "config",
    "formgrader_config": "config",
    "open_stats": "gradebook",
    "share_engines": "gradebook",
    "LEDGER_VERSION": "ledger",
    "Ledger": "ledger",
    "Outcome": "pool",
    "Task": "pool",
    "WorkerPool": "pool",
    "WorkerPoolBroken": "pool",
    "default_workers": "pool",
    "clean_html": "sanitise",
    "content_security_policy": "sanitise",
    "autograde_task": "task",
    "worker_init": "task",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
