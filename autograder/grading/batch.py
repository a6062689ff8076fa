"""A grading batch: prepared submissions of any assignments graded in parallel worker
processes (:mod:`autograder.grading.pool`, one submission per task,
:mod:`autograder.grading.task` in the worker), results read back from the gradebook, and
the ledger (:mod:`autograder.grading.ledger`) that lets an interrupted run resume.

A notebook that carries none of its assignment's graded cells (another course's, another
assignment's) is not graded: it scores 0 with one flag. A submission nbgrader could not
grade is flagged with the real exception, and its full log is written to
``<course>/logs/<assignment>/<student>.log`` (named in the flag).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from autograder import phases
from autograder.course import Course
from autograder.faults import Fault, faults_as_errors
from autograder.files import folder_digest, sweep_orphans, write_atomic
from autograder.grading.canary import canary_verdict, refusal, remove_canary
from autograder.grading.gradebook import share_engines
from autograder.grading.hold import discard, make_held, transfer, verdict_marker
from autograder.grading.ledger import LEDGER_VERSION, Ledger
from autograder.grading.pool import Run, Task, WorkerPool, WorkerPoolBroken, default_workers
from autograder.grading.task import autograde_task, failed_outcome, failure_cause, worker_init
from autograder.models import (
    CanaryFailed,
    GraderFault,
    GradingError,
    PreparedSubmission,
    SubmissionResult,
)
from autograder.notebook import carried_ids
from autograder.options import GradeOptions
from course_common.paths import LINLIB_DIR

log = logging.getLogger(__name__)

#: Generous outer wall-clock bound for grading one submission (the sandbox has tighter ones).
SUBMISSION_TIMEOUT = 900.0


@contextlib.contextmanager
def pool_executor(
    course: Course,
    options: GradeOptions,
    *,
    workers: int,
    timeout: float = SUBMISSION_TIMEOUT,
    prewarm: bool = True,
) -> Iterator[Run]:
    """The local worker pool of ``workers`` processes, kept for several steps of one batch
    (the grading canary, then the class), grading as ``options`` say (the sandbox or not,
    the feedback pages): yields ``run(jobs, feedback=None)``, which grades
    ``(assignment, student)`` pairs already in ``submitted/`` (their students in the
    gradebook) on the same workers, warm kernels and all (their feedback pages if
    ``feedback``, None: as ``options`` say), yielding ``(assignment, student, outcome)`` as
    each finishes (``outcome``: ``success``, ``error``, ``log``, ``flags``, ``feedback``,
    ``seconds``). A submission that crashes its worker or exceeds ``timeout`` is reported as
    failed; the rest go on. ``prewarm`` forks kernels from a pre-warmed template process in
    each worker: without the sandbox :mod:`autograder.grading.prewarm`'s, with it a warm
    box's (:mod:`autograder.sandbox.warm`)."""
    prewarm_log = str(course.root / "logs" / "kernels.log") if prewarm else None
    pool = WorkerPool(
        workers,
        log_dir=course.root / "logs",
        initializer=worker_init,
        initargs=(prewarm_log, options),
    )

    def run(
        jobs: list[tuple[str, str]],
        feedback: bool | None = None,
        *,
        no_pages: Collection[tuple[str, str]] = (),
        hold: tuple[Course, str, Collection[tuple[str, str]]] | None = None,
        kernel_graded: dict[str, Any] | None = None,
    ) -> Iterator[tuple[str, str, dict[str, Any]]]:
        pages = options if feedback is None else dataclasses.replace(options, feedback=feedback)
        no_page = dataclasses.replace(options, feedback=False)

        def held(key: tuple[str, str]) -> tuple[Course | None, str] | None:
            if hold is None or key in no_pages:
                return None
            return (hold[0] if key in hold[2] else None, hold[1])

        tasks = [
            Task(
                key=(assignment, student),
                func=autograde_task,
                args=(
                    course,
                    assignment,
                    student,
                    no_page if (assignment, student) in no_pages else pages,
                    prewarm,
                    held((assignment, student)),
                    kernel_graded,
                ),
                timeout=timeout,
            )
            for assignment, student in jobs
        ]
        try:
            for outcome in pool.run(tasks):
                assignment, student = outcome.key
                if outcome.ok:
                    value = dict(outcome.value)
                    value["seconds"] = outcome.seconds
                else:
                    value = failed_outcome(outcome.error, outcome.seconds, outcome.exception)
                yield assignment, student, value
        except WorkerPoolBroken as exc:
            raise GradingError(str(exc)) from exc

    with pool:
        yield Run(run, holds=True)


def _executor(
    course: Course, options: GradeOptions, *, workers: int, timeout: float
) -> contextlib.AbstractContextManager[Run]:
    """The local pool's executor (of ``workers`` processes), or with ``options.dask`` the
    Dask cluster's."""
    if options.dask is None:
        return pool_executor(course, options, workers=workers, timeout=timeout)
    from autograder.grading.dask_batch import dask_executor

    return dask_executor(course, options, timeout=timeout)


def grade_prepared(
    course: Course,
    prepared: Iterable[PreparedSubmission],
    options: GradeOptions | None = None,
    *,
    ledger: Ledger | None = None,
    timeout: float = SUBMISSION_TIMEOUT,
    on_result: Callable[[SubmissionResult], None] | None = None,
    canaries: Iterable[PreparedSubmission] = (),
    on_canary: Callable[[list[str], float], None] | None = None,
    instructor_failures: dict[str, dict[str, str]] | None = None,
) -> dict[tuple[str, str], SubmissionResult]:
    """Grade prepared submissions (any assignments) in one parallel batch, as ``options``
    say (:class:`~autograder.options.GradeOptions`; None: its defaults, the sandbox on):
    in the local process pool of ``options.workers`` processes (None: one per core), or
    with ``options.dask`` on a Dask cluster (:mod:`autograder.grading.dask_batch`); each
    submission's feedback page with ``options.feedback``. Of the options, the grading layer
    reads these; the rest are the use cases' (:mod:`autograder.api`).

    With a ``ledger``, a submission whose files, assignment source and grading settings
    are unchanged since it was last graded is not graded again: its recorded result is
    reused (``skipped``), so an interrupted run, run again, resumes where it stopped.
    ``options.regrade``: True grades every submission again, a collection of student ids
    those students' (their new results replace the recorded ones). ``timeout``: the
    wall-clock bound of one submission (not an option of a run: the grader's own bound).

    ``canaries``: the instructor's solution of each assignment, as a submission of
    :func:`~.canary.canary_student`. Before any student is graded or anything is
    written, the solution of every assignment that has a submission to grade is graded
    on the same workers; one that does not get every autograded point raises
    :class:`~autograder.models.CanaryFailed` (:mod:`autograder.grading.canary`).
    ``on_canary(assignments, seconds)`` is called when they all passed. A test the
    instructor's solution fails outside the sandbox too, as under stock nbgrader, refuses
    nothing: it is put in ``instructor_failures`` (assignment -> grade id -> why) and
    logged.

    Only what a notebook earned is recorded: a failure of the machine
    (:mod:`autograder.faults`) never is. One that stops the run (a full disk, the gradebook
    locked or gone) raises :class:`~autograder.models.GraderFault` at once; a grading
    worker that died costs its submission in this run only (``fault`` set, flagged).

    The system's temporary folder is swept (:func:`autograder.files.sweep_orphans`) before
    the workers start and once they have stopped: what a killed grader's workers left there
    goes first, what this run's killed workers (or workers stopped before their warm box
    was closed) left goes at its end, however it ends.

    Returns
    -------
    dict
        (assignment, student) -> :class:`SubmissionResult`, in the order given.
    """
    options = GradeOptions() if options is None else options
    share_engines()
    prepared = list(prepared)
    sweep_orphans()
    try:
        with faults_as_errors("while grading"):
            results = _grade(
                course,
                prepared,
                options,
                ledger,
                timeout,
                on_result,
                canaries,
                on_canary,
                instructor_failures,
            )
    finally:
        sweep_orphans()
    return {(p.assignment, p.student): results[(p.assignment, p.student)] for p in prepared}


def _grade(
    course: Course,
    prepared: list[PreparedSubmission],
    options: GradeOptions,
    ledger: Ledger | None,
    timeout: float,
    on_result: Callable[[SubmissionResult], None] | None,
    canaries: Iterable[PreparedSubmission],
    on_canary: Callable[[list[str], float], None] | None,
    instructor_failures: dict[str, dict[str, str]] | None = None,
) -> dict[tuple[str, str], SubmissionResult]:
    """:func:`grade_prepared`'s work: (assignment, student) -> result, as they finish."""
    regrade = options.regrade
    results: dict[tuple[str, str], SubmissionResult] = {}
    digests: dict[tuple[str, str], str] = {}
    salts: dict[str, str] = {}
    jobs: list[tuple[str, str]] = []
    by_key = {(p.assignment, p.student): p for p in prepared}
    if len(by_key) != len(prepared):
        raise GradingError("the same student appears twice for one assignment")
    canary_of = {c.assignment: c for c in canaries}
    reserved = {c.student for c in canary_of.values()} & {p.student for p in prepared}
    if reserved:
        raise GradingError(f"a student's id is the grader's reserved id {sorted(reserved)[0]}")

    def finish(result: SubmissionResult) -> None:
        key = (result.assignment, result.student)
        results[key] = result
        if ledger is not None and not result.skipped and not result.fault:
            ledger.record(result.assignment, result.student, digests[key], result.to_dict())
        if on_result is not None:
            on_result(result)

    # What needs grading, read without writing anything (the canary comes first).
    pending: list[SubmissionResult] = []
    zeros: list[PreparedSubmission] = []
    graded_ids: dict[str, dict[str, set[str]]] = {}
    for sub in prepared:
        key = (sub.assignment, sub.student)
        if sub.assignment not in salts:
            salts[sub.assignment] = grading_salt(course, sub.assignment, options)
            graded_ids[sub.assignment] = released_graded_ids(course, sub.assignment)
        digests[key] = sub.digest(salts[sub.assignment])
        sub = by_key[key] = set_aside_foreign(sub, graded_ids[sub.assignment])
        again = regrade is True or (regrade and sub.student in regrade)
        if ledger is not None and not again:
            previous = ledger.lookup(sub.assignment, sub.student, digests[key])
            if previous is not None:
                reused = SubmissionResult.from_dict(sub.student, sub.assignment, previous)
                reused.skipped = True
                pending.append(reused)
                continue
        if sub.notebooks:
            jobs.append(key)
        else:
            zeros.append(sub)
    checked = [canary_of[a] for a in sorted({a for a, _ in jobs}) if a in canary_of]

    def start_class(jobs: list[tuple[str, str]]) -> None:
        """What follows a verdict (or comes first, with no canary): the zero scores, the
        submissions in the course, the reused results recorded, the students."""
        for sub in zeros:
            course.record_zero_scores(sub.assignment, sub.student)
            scores = course.read_scores(sub.assignment, [sub.student], per_notebook=True)
            result = SubmissionResult(sub.student, sub.assignment, flags=list(sub.flags))
            result.scores = scores.get(sub.student, {})
            result.missing = list(sub.missing)
            pending.append(result)
        for assignment, student in jobs:
            sub = by_key[(assignment, student)]
            with faults_as_errors(f"writing {course.root.name}/submitted/{student}"):
                course.write_submission(assignment, student, sub.notebooks)
        for result in pending:
            finish(result)
        if jobs:
            course.ensure_students(sorted({s for _, s in jobs}))

    def graded(assignment: str, student: str, value: dict[str, Any]) -> None:
        held = bool(value.get("held"))
        phases.collect(assignment, student, value.get("profile"), canary=False, held=held)
        finish(_result(course, by_key[(assignment, student)], value, options.feedback))

    workers = min(options.workers or default_workers(), len(jobs))
    with contextlib.ExitStack() as stack:
        if checked:  # entered first, so left last: after the workers stopped
            stack.enter_context(_canary_cleanup(course, checked[0].student))
            # the scratch course of the students held beside the canary, removed once no
            # worker writes in it: a cancelled Dask task runs on to its end, and its
            # gradebook's journal, written as the folder was removed, outlived a refusal
            stack.callback(discard, course)
        if jobs:
            run = stack.enter_context(_executor(course, options, workers=workers, timeout=timeout))
        if checked and run.holds:
            # the canary beside the class: the students it leaves room for are held
            jobs = longest_first(jobs, recorded_costs(course))
            outcomes = _beside_the_canary(
                course,
                checked,
                jobs,
                by_key,
                run,
                options,
                stack,
                start_class,
                on_canary,
                workers,
                instructor_failures,
            )
        else:
            profile: dict[str, Any] | None = None
            if checked:  # the canary first, alone: its verdict before any student starts
                started = time.monotonic()
                costs, profile = _check_canaries(course, checked, run, options, instructor_failures)
                jobs = longest_first(jobs, costs)
                if on_canary is not None:
                    on_canary([c.assignment for c in checked], time.monotonic() - started)
            start_class(jobs)
            outcomes = run(jobs, kernel_graded=profile) if jobs else iter(())
        try:
            for assignment, student, value in outcomes:
                graded(assignment, student, value)
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:  # stops the workers now, not when the generator is collected
                close()
    return results


def _result(
    course: Course, sub: PreparedSubmission, value: dict[str, Any], feedback: bool
) -> SubmissionResult:
    """A graded submission's result, from its outcome and the course's gradebook."""
    assignment, student = sub.assignment, sub.student
    fault = Fault.from_dict(value["fault"]) if value.get("fault") else None
    if fault is not None and fault.fatal:
        raise GraderFault(fault.message(f"while grading {assignment}/{student}"), fault)
    result = SubmissionResult(student, assignment, flags=list(sub.flags))
    result.missing = list(sub.missing)
    for flag in value["flags"]:
        if flag not in result.flags:
            result.flags.append(flag)
    result.ok = bool(value["success"])
    result.seconds = value["seconds"]
    result.diagnoses = dict(value.get("diagnoses") or {})
    result.unchecked = {
        gid: str(record.get("why", ""))
        for cells in (value.get("undecided") or {}).values()
        for gid, record in cells.items()
        if record.get("kernel")
    }
    if fault is not None:  # a worker died: not this notebook's result
        result.ok = False
        result.error = fault.what
        result.fault = fault.what
        result.flags.append(f"not graded: {fault.what}; the next run grades it again")
    elif not result.ok:
        cause = value.get("cause") or failure_cause(value["error"], value["log"])
        result.error = cause.replace(str(course.root), "<course>")
        log = write_failure_log(course, assignment, student, value)
        result.flags.append(f"could not be graded: {result.error} (full log: {log})")
    elif feedback and not value.get("feedback"):
        log = write_failure_log(course, assignment, student, value)
        result.flags.append(f"no feedback page: it could not be written (full log: {log})")
    result.scores = course.read_scores(assignment, [student], per_notebook=True).get(student, {})
    return result


def _beside_the_canary(
    course: Course,
    canaries: list[PreparedSubmission],
    jobs: list[tuple[str, str]],
    by_key: dict[tuple[str, str], PreparedSubmission],
    run: Run,
    options: GradeOptions,
    stack: contextlib.ExitStack,
    start_class: Callable[[list[tuple[str, str]]], None],
    on_canary: Callable[[list[str], float], None] | None,
    workers: int,
    instructor_failures: dict[str, dict[str, str]] | None = None,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The canaries and the class in one stream on the same workers, the canaries first;
    the students that start before the verdict are graded in the scratch course of
    :mod:`autograder.grading.hold` and their outcomes held. Raises :class:`CanaryFailed` at
    the first canary short of full marks (the held results go with the scratch course);
    when every canary passed, starts the class in the course (:func:`start_class`), writes
    the verdict's marker, moves the held results into the course and yields them, then
    yields the others as they finish."""
    student = canaries[0].student
    # the students that may start before the verdict are copied into the scratch course;
    # one after them that starts before it waits for it
    # (a Dask task carries its files: every student may be held, none is copied)
    takes_files = run.takes_files
    holdable = jobs if takes_files else jobs[: HELD_PER_WORKER * workers]
    held = make_held(course, {a for a, _ in holdable}, {s for _, s in holdable})
    marker = verdict_marker(course)
    stack.callback(marker.unlink, missing_ok=True)
    for assignment, who in [] if takes_files else holdable:
        held.write_submission(assignment, who, by_key[(assignment, who)].notebooks)
    for canary in canaries:
        course.write_submission(canary.assignment, student, canary.notebooks)
    course.ensure_students([student])
    checks = [(c.assignment, student) for c in canaries]
    started = time.monotonic()
    hold = (held, str(marker), set(holdable))
    if takes_files:
        files = {key: by_key[key].notebooks for key in jobs}
        stream = run([*checks, *jobs], no_pages=checks, hold=hold, files=files)
    else:
        stream = run([*checks, *jobs], no_pages=checks, hold=hold)
    waiting = set(checks)
    costs: dict[str, float] = {}
    profile: dict[str, Any] = {}
    early: list[tuple[str, str, dict[str, Any]]] = []  # outcomes before the verdict
    again: list[tuple[str, str]] = []  # graded before the verdict said what they needed
    try:
        for assignment, who, value in stream:
            if (assignment, who) in waiting:
                phases.collect(assignment, who, value.get("profile"), canary=True)
                verdict = canary_verdict(course, assignment, who, value, options)
                if verdict.problem is not None:
                    raise CanaryFailed(refusal(verdict.problem, len(early)))
                _own_failures(assignment, verdict.own, instructor_failures)
                costs[assignment] = float(value.get("seconds") or 0.0)
                profile[assignment] = kernel_graded_cells(value)
                waiting.discard((assignment, who))
                if waiting:
                    continue
                remove_canary(course, student)
                record_costs(course, costs)
                start_class(jobs)
                write_atomic(marker, json.dumps(profile, sort_keys=True))
                if on_canary is not None:
                    on_canary(sorted(costs), time.monotonic() - started)
                for item in early:
                    if _grade_again(item[2], profile.get(item[0], {})):
                        again.append(item[:2])
                    else:
                        yield _unhold(held, course, *item)
                early = []
            elif waiting:
                early.append((assignment, who, value))
            elif _grade_again(value, profile.get(assignment, {})):
                again.append((assignment, who))
            else:
                yield _unhold(held, course, assignment, who, value)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if again:  # graded again, now that the canary has said which cells the kernel decides
        extra = {"files": {key: by_key[key].notebooks for key in again}} if takes_files else {}
        yield from run(again, kernel_graded=profile, **extra)


def _own_failures(
    assignment: str, own: dict[str, str], into: dict[str, dict[str, str]] | None
) -> None:
    """Say which tests the instructor's own solution of *assignment* fails as stock nbgrader
    fails them too (a warning; and into *into*, for the run's summary)."""
    if not own:
        return
    if into is not None:
        into[assignment] = dict(own)
    tests = "; ".join(f"{gid} ({why})" for gid, why in list(own.items())[:5])
    more = f" and {len(own) - 5} more" if len(own) > 5 else ""
    log.warning(
        "the instructor's own solution of %s fails %s%s, outside the sandbox too, as under "
        "stock nbgrader: graded as nbgrader grades it",
        assignment,
        tests,
        more,
    )


def kernel_graded_cells(canary: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The test cells of an assignment that the re-check leaves to the kernel's verdict, as
    the canary's outcome shows them (notebook -> grade id -> why): those it could not decide
    by itself in the instructor's own solution."""
    return {
        notebook: {gid: str(record.get("why", "")) for gid, record in cells.items()}
        for notebook, cells in (canary.get("undecided") or {}).items()
    }


def _grade_again(value: dict[str, Any], cells: dict[str, dict[str, str]]) -> bool:
    """An outcome graded before the canary's verdict, of an assignment where the verdict
    leaves test cells to the kernel: graded again, those cells as the kernel runs them."""
    return bool(value.get("held")) and any(cells.values())


def _unhold(
    held: Course, course: Course, assignment: str, student: str, value: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """An outcome graded in the scratch course, made the course's: its result moved in
    (:func:`~autograder.grading.hold.transfer`), its texts naming the course's folder."""
    if value.get("held"):
        transfer(held, course, assignment, student)
        old, new = str(held.root), str(course.root)
        for key in ("error", "log", "cause"):
            if isinstance(value.get(key), str):
                value[key] = value[key].replace(old, new)
        value["flags"] = [flag.replace(old, new) for flag in value.get("flags", [])]
    return assignment, student, value


#: How many students per worker are copied into the scratch course, to be graded beside
#: the canary: more than the canary leaves room for (one that starts later waits for it).
HELD_PER_WORKER = 8

#: The canary's seconds per assignment, from the last run that graded it (the class is
#: graded longest assignment first).
COSTS_NAME = ".canary-seconds.json"


def recorded_costs(course: Course) -> dict[str, float]:
    """Each assignment's canary seconds as the last run recorded them ({}: none)."""
    import json

    try:
        data = json.loads((course.root / COSTS_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)}


def record_costs(course: Course, costs: dict[str, float]) -> None:
    """Keep this run's canary seconds (with the earlier runs' of other assignments)."""
    import json

    merged = {**recorded_costs(course), **{k: round(v, 3) for k, v in costs.items()}}
    with contextlib.suppress(OSError):  # only an order: a full disk costs nothing
        write_atomic(course.root / COSTS_NAME, json.dumps(merged, sort_keys=True) + "\n")


@contextlib.contextmanager
def _canary_cleanup(course: Course, student: str) -> Iterator[None]:
    """Remove the canary *student* before its grading (what a killed run left) and, when
    the grading stopped without a verdict (a failed canary, an interrupt), once the
    executor has stopped: this context is left after the executor's. That last removal
    never hides the error that ended the run (a gradebook gone away fails it too)."""
    remove_canary(course, student)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            remove_canary(course, student)


def _check_canaries(
    course: Course,
    canaries: list[PreparedSubmission],
    run: Run,
    options: GradeOptions,
    instructor_failures: dict[str, dict[str, str]] | None = None,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Grade the canaries (one per assignment, in parallel, on the batch's workers): raise
    :class:`CanaryFailed` at the first that shows a broken grading environment, else remove
    them and return each assignment's seconds and the test cells the re-check leaves to
    the kernel's verdict (:func:`kernel_graded_cells`). No feedback pages: nobody reads a
    canary's, and a class's page that cannot be written is flagged on its own ("no
    feedback page")."""
    student = canaries[0].student
    for canary in canaries:
        course.write_submission(canary.assignment, student, canary.notebooks)
    course.ensure_students([student])
    seconds: dict[str, float] = {}
    profile: dict[str, Any] = {}
    for assignment, _, value in run([(c.assignment, student) for c in canaries], feedback=False):
        phases.collect(assignment, student, value.get("profile"), canary=True)
        verdict = canary_verdict(course, assignment, student, value, options)
        if verdict.problem is not None:
            raise CanaryFailed(refusal(verdict.problem))
        _own_failures(assignment, verdict.own, instructor_failures)
        seconds[assignment] = float(value.get("seconds") or 0.0)
        profile[assignment] = kernel_graded_cells(value)
    remove_canary(course, student)
    return seconds, profile


def longest_first(jobs: list[tuple[str, str]], costs: dict[str, float]) -> list[tuple[str, str]]:
    """``jobs`` (assignment, student) with the assignments that take longest first (by
    ``costs``: each assignment's canary, in seconds; the order given among equals), so that
    the last notebooks the workers take are short ones: fewer seconds at the end of a run
    with one worker busy and the others idle. The order changes no result."""
    return sorted(jobs, key=lambda job: -costs.get(job[0], 0.0))


@functools.cache
def grader_fingerprint() -> str:
    """The grader's own code (autograder, linlib) and nbgrader's version: an upgraded grader
    (a new sanitiser, a new repair) grades again instead of reusing the old results."""
    import nbgrader

    import autograder

    # linlib's folder, not the package: importing linlib imports scikit-learn (3 s of CPU),
    # which the grader's own process does not otherwise need
    roots = [Path(autograder.__file__).parent, LINLIB_DIR]
    return f"nbgrader={nbgrader.__version__}|{folder_digest(*roots)}"


def grading_salt(course: Course, assignment: str, options: GradeOptions) -> str:
    """What else decides a grade besides the submission: the assignment's source files, the
    grading settings (of the options, the sandbox: the rest decide no grade), the grader's
    own code and the gradebook the grades go to. A change makes the ledger grade again."""
    sandbox = bool(options.sandbox)
    h = hashlib.sha256(
        f"{LEDGER_VERSION}|sandbox={sandbox}|{course.db_url}|{grader_fingerprint()}".encode()
    )
    h.update(folder_digest(course.source_dir(assignment)).encode())
    return h.hexdigest()


def released_graded_ids(course: Course, assignment: str) -> dict[str, set[str]]:
    """notebook -> the grade ids of its graded cells (grade, solution and task cells), from
    the gradebook's record of the released assignment ({} if it is not released)."""
    from nbgrader.api import MissingEntry

    with course.gradebook() as gb:
        try:
            notebooks = gb.find_assignment(assignment).notebooks
        except MissingEntry:
            return {}
        return {
            nb.name: {c.name for c in [*nb.grade_cells, *nb.solution_cells, *nb.task_cells]}
            for nb in notebooks
        }


def set_aside_foreign(sub: PreparedSubmission, graded: dict[str, set[str]]) -> PreparedSubmission:
    """``sub`` without its notebooks that carry none of their notebook's graded cells
    (another assignment's or another course's notebook under this name): each scores 0
    with one flag, instead of one "deleted test cell" flag per cell and a graded run of
    the instructor's tests against someone else's code."""
    keep: dict[str, bytes] = {}
    missing, flags = list(sub.missing), list(sub.flags)
    for name, content in sub.notebooks.items():
        stem = PurePosixPath(name).stem
        ids = graded.get(stem)
        if ids and not carried_ids(content) & ids:
            missing.append(stem)
            flags.append(
                f"{name!r} is not {sub.assignment}'s notebook: it carries none of its "
                f"{len(ids)} graded cells (scored 0)"
            )
        else:
            keep[name] = content
    if len(keep) == len(sub.notebooks):
        return sub
    return dataclasses.replace(sub, notebooks=keep, missing=missing, flags=flags)


def safe_file_name(name: str) -> str:
    """``name`` as a file name: letters, digits, ``.``, ``_`` and ``-`` only, no leading dot,
    at most 80 characters; a name that had to change gets a short hash of the original,
    so two students never share a file."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")[:80]
    if safe != name or not safe:
        safe = f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    return safe


def write_failure_log(course: Course, assignment: str, student: str, value: dict) -> str:
    """Write a failed submission's full nbgrader log and error to
    ``<course>/logs/<assignment>/<student>.log``; returns that path, relative to the course."""
    relative = PurePosixPath("logs", safe_file_name(assignment), f"{safe_file_name(student)}.log")
    path = course.root.joinpath(*relative.parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(p for p in (value.get("log", ""), value.get("error", "")) if p)
    path.write_text(text + "\n", encoding="utf-8")
    return str(relative)
