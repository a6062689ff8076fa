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

Its modules import nbformat, nbgrader, nbconvert and Dask inside the functions that use
them: a grading worker that starts (:mod:`.pool`, :func:`.task.worker_init`) does not pay
for nbgrader before its initializer has started its warm kernels. ``safe_execute``,
``preprocessors`` and ``prewarm`` subclass nbgrader's classes, so they import it: they are
imported by their own names where they are used, and not from here.
"""

from autograder.grading.batch import (
    SUBMISSION_TIMEOUT,
    grade_prepared,
    grader_fingerprint,
    grading_salt,
)
from autograder.grading.canary import CANARY_PREFIX, canary_student
from autograder.grading.config import autograde_config, feedback_config, formgrader_config
from autograder.grading.dask_batch import check_dask_gradebook, parse_dask_target
from autograder.grading.gradebook import open_stats, share_engines
from autograder.grading.ledger import LEDGER_VERSION, Ledger
from autograder.grading.pool import Outcome, Task, WorkerPool, WorkerPoolBroken, default_workers
from autograder.grading.task import autograde_task, generate_feedback, worker_init

__all__ = [
    "CANARY_PREFIX",
    "LEDGER_VERSION",
    "SUBMISSION_TIMEOUT",
    "Ledger",
    "Outcome",
    "Task",
    "WorkerPool",
    "WorkerPoolBroken",
    "autograde_config",
    "autograde_task",
    "canary_student",
    "check_dask_gradebook",
    "default_workers",
    "feedback_config",
    "formgrader_config",
    "generate_feedback",
    "grade_prepared",
    "grader_fingerprint",
    "grading_salt",
    "open_stats",
    "parse_dask_target",
    "share_engines",
    "worker_init",
]
