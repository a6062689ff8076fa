"""Grading: prepared submissions graded by nbgrader in parallel worker processes.

``batch`` (the batch and the ledger's resume), ``pool`` (the crash-tolerant worker pool),
``dask_batch`` (the batch on a Dask cluster instead: ``--dask``), ``canary`` (the
instructor's solution graded first: a broken grading environment refuses the batch),
``task`` (what a worker runs), ``gradebook`` (one gradebook engine per process and URL),
``config`` (nbgrader's preprocessor lists with ours, the feedback pages' from
:mod:`autograder.feedback`),
``safe_execute`` (``SafeExecute``, nbgrader's ``Execute`` in the sandbox: one notebook's run
with its time limits, kernel restarts and output caps, then the trusted re-check),
``preprocessors`` (the other preprocessors), ``prewarm`` (kernels forked from a pre-warmed
template), ``ledger`` (graded submissions on disk).

The names below are imported on first use (``lazy_loader``): a grading worker that
imports :mod:`autograder.grading.pool` does not pay for nbformat and nbgrader before its
initializer, and ``python -m autograder --help`` stays quick.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "batch": ["SUBMISSION_TIMEOUT", "grade_prepared", "grader_fingerprint", "grading_salt"],
        "canary": ["CANARY_PREFIX", "canary_student"],
        "config": ["autograde_config", "feedback_config", "formgrader_config"],
        "dask_batch": ["check_dask_gradebook", "parse_dask_target"],
        "gradebook": ["open_stats", "share_engines"],
        "ledger": ["LEDGER_VERSION", "Ledger"],
        "pool": ["Outcome", "Task", "WorkerPool", "WorkerPoolBroken", "default_workers"],
        "safe_execute": ["ENV_CONFIG", "SafeExecute"],
        "task": ["autograde_task", "generate_feedback", "worker_init"],
    },
)
