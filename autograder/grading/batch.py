"""Thin wrappers over nbgrader's own API, converters and configuration.

Everything here drives nbgrader 0.9's classes (``GenerateAssignment``, ``Autograde``,
``GenerateFeedback``, ``Validator``, the ``Gradebook``) with a course directory built at run
time: nothing of nbgrader's grading logic is re-implemented. What is added goes in through
nbgrader's configuration (its preprocessor lists): :mod:`autograder.preprocessors`, helper
F's ``SafeExecute`` (sandbox) or :mod:`autograder.prewarm` in place of ``Execute``. Grading
runs in parallel worker processes (:mod:`autograder.workers`), one submission per task.

Layout of a course directory made by :func:`make_course`::

    <course_dir>/nbgrader_config.py        same settings as the repository's nbgrader_config.py
    <course_dir>/source/<assignment>/...   copy of the repository's notebooks/<assignment>/
    <course_dir>/release/<assignment>/...  student versions (generate_assignment)
    <course_dir>/submitted/<student>/<assignment>/<notebook>.ipynb
    <course_dir>/autograded/..., feedback/...
    <course_dir>/gradebook.db              nbgrader's gradebook (SQLite, busy timeout set)
    <course_dir>/ledger.jsonl              graded submissions, for resuming (autograder.ledger)
    <course_dir>/logs/                     the workers' and kernels' stderr
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from traitlets.config import Config

from autograder.course import (
    course_config,
    ensure_env_bin_on_path,
    ensure_students,
    read_scores,
    record_zero_scores,
    write_submission,
)
from autograder.grading.ledger import LEDGER_VERSION, Ledger
from autograder.models import GradingError, PreparedSubmission, SandboxUnavailable, SubmissionResult
from autograder.notebook import collect_notebook_flags

#: Generous outer wall-clock bound for grading one submission (the sandbox has tighter ones).
SUBMISSION_TIMEOUT = 900.0


# --------------------------------------------------------------------------- configuration


# --------------------------------------------------------------------------- course setup


# --------------------------------------------------------------------------- sandbox


def sandbox_status() -> tuple[bool, str | None]:
    """(available, reason-if-not) for helper F's sandbox (autograder.sandbox/safe_execute)."""
    try:
        import autograder.recheck.execute  # noqa: F401
        from autograder.sandbox import sandbox_unavailable_reason
    except ImportError as exc:
        return False, f"the sandbox modules are not installed ({exc})"
    reason = sandbox_unavailable_reason()
    return reason is None, reason


def resolve_sandbox(sandbox: bool | None) -> bool:
    """``None`` means "sandbox if available"; ``True`` requires it; ``False`` turns it off."""
    if sandbox is False:
        return False
    available, reason = sandbox_status()
    if sandbox and not available:
        raise SandboxUnavailable(f"the grading sandbox cannot start: {reason}")
    return available


# --------------------------------------------------------------------------- grading


def autograde_config(
    course_dir: str | os.PathLike,
    *,
    sandbox: bool,
    db_url: str | None = None,
    prewarm: bool = False,
):
    """The Autograde configuration: nbgrader's preprocessor lists plus ours (see below).

    - sanitize: :class:`~.preprocessors.RecordSubmissionFlags` first (flags deleted,
      duplicated or edited test cells), and :class:`~.preprocessors.RestoreTestCells` in place
      of ``OverwriteCells`` (also puts back deleted test cells, from the gradebook);
    - autograde: ``Execute`` becomes the re-check's ``SafeExecute`` when ``sandbox`` is on, or
      :class:`~.prewarm.PrewarmedExecute` (kernels forked from a pre-warmed template) when it
      is off and ``prewarm`` is on; before ``SaveAutoGrades``,
      :class:`~.preprocessors.StderrToStdout` keeps the points of a passing test cell whose
      code wrote warnings to stderr.
    """
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import DeduplicateIds, Execute, OverwriteCells, SaveAutoGrades

    from autograder.grading import preprocessors as pp

    config = course_config(course_dir, db_url)
    sanitize = list(Autograde.class_traits()["sanitize_preprocessors"].default())
    sanitize[sanitize.index(OverwriteCells)] = pp.RestoreTestCells
    sanitize[sanitize.index(DeduplicateIds)] = pp.DeduplicateCells
    sanitize.insert(0, pp.RecordSubmissionFlags)
    auto = list(Autograde.class_traits()["autograde_preprocessors"].default())
    if sandbox:
        from autograder.recheck.execute import SafeExecute

        auto[auto.index(Execute)] = SafeExecute
    elif prewarm:
        from autograder.grading.prewarm import PrewarmedExecute

        auto[auto.index(Execute)] = PrewarmedExecute
    auto.insert(auto.index(SaveAutoGrades), pp.StderrToStdout)
    config.Autograde.sanitize_preprocessors = sanitize
    config.Autograde.autograde_preprocessors = auto
    # Kernel shutdown is a large share of a notebook's grading time; nothing of the kernel's
    # state is needed after the last cell, so stop it at once.
    config.Execute.shutdown_kernel = "immediate"
    return config


def feedback_config(course_dir: str | os.PathLike, db_url: str | None = None) -> Config:
    """GenerateFeedback configuration: nbgrader's, with hidden-test source redacted."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    from autograder.grading.preprocessors import RedactHiddenTests

    config = course_config(course_dir, db_url)
    config.GenerateFeedback.preprocessors = [
        GetGrades,
        RedactHiddenTests,
        CSSHTMLHeaderPreprocessor,
    ]
    from lecture.assets import TEMPLATES, mathjax_available

    if mathjax_available():
        # Formulas typeset without a network: the lecture build's base/mathjax.html.j2
        # shadows nbconvert's MathJax from a CDN with the copy that report.copy_feedback
        # ships beside the pages. nbgrader's own templates stay (it sets this only when
        # the configuration does not).
        import nbgrader.converters

        nbgrader_templates = (
            Path(nbgrader.converters.__file__).parent.parent
            / "server_extensions"
            / "formgrader"
            / "templates"
        )
        config.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(nbgrader_templates)]
    return config


def _autograde_task(
    course_dir: str,
    assignment: str,
    student: str,
    sandbox: bool,
    db_url: str | None,
    feedback: bool = False,
    prewarm: bool = False,
) -> dict[str, Any]:
    """Worker side: autograde one submission with nbgrader's Autograde converter, then
    (optionally) write its feedback with GenerateFeedback."""
    import resource

    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    def cpu() -> float:
        # this worker and the kernels it started (reaped children), user + system
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    cpu_start = cpu()
    config = autograde_config(course_dir, sandbox=sandbox, db_url=db_url, prewarm=prewarm)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    coursedir = CourseDirectory(config=config)
    app = Autograde(coursedir=coursedir, config=config)
    app.force = True
    app.create_student = True
    result = capture_log(app)
    flags = collect_notebook_flags(Path(course_dir) / "autograded" / student / assignment)
    out = {
        "success": bool(result.get("success")),
        "error": result.get("error", ""),
        "log": result.get("log", ""),
        "flags": flags,
        "feedback": False,
    }
    if feedback and out["success"]:
        config = feedback_config(course_dir, db_url)
        config.CourseDirectory.assignment_id = assignment
        config.CourseDirectory.student_id = student
        app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
        app.force = True
        fb = capture_log(app)
        out["feedback"] = bool(fb.get("success"))
        if not out["feedback"]:
            out["log"] += "\n" + fb.get("error", "")
    out["cpu_seconds"] = cpu() - cpu_start
    return out


def _worker_init(prewarm_log: str | None = None) -> None:
    # Start the kernel template first (it warms up while this worker imports nbgrader),
    # then import nbgrader (and nbconvert, jupyter_client) once per worker, not per notebook.
    if prewarm_log is not None:
        from autograder.grading.prewarm import start_template

        start_template(prewarm_log)
    import nbgrader.converters
    import nbgrader.preprocessors  # noqa: F401

    ensure_env_bin_on_path()

    import autograder.grading.preprocessors  # noqa: F401


def run_autograde_batch(
    course_dir: str | os.PathLike,
    jobs: Iterable[tuple[str, str]],
    *,
    workers: int = 2,
    sandbox: bool = False,
    db_url: str | None = None,
    timeout: float = SUBMISSION_TIMEOUT,
    feedback: bool = False,
    prewarm: bool = True,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Autograde ``(assignment, student)`` pairs already in ``submitted/``, in parallel.

    Yields ``(assignment, student, outcome)`` as each finishes; ``outcome`` has ``success``,
    ``error``, ``log``, ``flags``, ``feedback``, ``seconds``. A submission that crashes its
    worker or exceeds ``timeout`` is reported as failed; the rest of the batch goes on.
    Without the sandbox, ``prewarm`` forks kernels from a pre-warmed template process
    (:mod:`autograder.prewarm`).
    """
    from autograder.grading.pool import Task, WorkerPool, WorkerPoolBroken

    course_dir = Path(course_dir).resolve()
    jobs = list(jobs)
    if not jobs:
        return
    ensure_students(course_dir, sorted({s for _, s in jobs}), db_url)
    prewarm = prewarm and not sandbox
    prewarm_log = str(course_dir / "logs" / "kernels.log") if prewarm else None
    pool = WorkerPool(
        min(workers, len(jobs)),
        log_dir=course_dir / "logs",
        initializer=_worker_init,
        initargs=(prewarm_log,),
    )
    tasks = [
        Task(
            key=(assignment, student),
            func=_autograde_task,
            args=(str(course_dir), assignment, student, sandbox, db_url, feedback, prewarm),
            timeout=timeout,
        )
        for assignment, student in jobs
    ]
    try:
        for outcome in pool.run(tasks):
            assignment, student = outcome.key
            if outcome.ok:
                value = dict(outcome.value)
            else:
                value = {"success": False, "error": outcome.error, "log": "", "flags": []}
                value["feedback"] = False
            value["seconds"] = outcome.seconds
            yield assignment, student, value
    except WorkerPoolBroken as exc:
        raise GradingError(str(exc)) from exc


def grade_prepared(
    course_dir: str | os.PathLike,
    prepared: Iterable[PreparedSubmission],
    *,
    workers: int = 2,
    sandbox: bool = False,
    db_url: str | None = None,
    feedback: bool = False,
    ledger: Ledger | None = None,
    timeout: float = SUBMISSION_TIMEOUT,
    on_result: Callable[[SubmissionResult], None] | None = None,
) -> dict[tuple[str, str], SubmissionResult]:
    """Grade prepared submissions (any assignments) in one parallel batch.

    With a ``ledger``, a submission whose files, assignment source and grading settings
    are unchanged since it was last graded is not graded again: its recorded result is
    reused (``skipped``), so an interrupted run, run again, resumes where it stopped.

    Returns
    -------
    dict
        (assignment, student) -> :class:`SubmissionResult`, in the order given.
    """
    course_dir = Path(course_dir).resolve()
    prepared = list(prepared)
    results: dict[tuple[str, str], SubmissionResult] = {}
    digests: dict[tuple[str, str], str] = {}
    salts: dict[str, str] = {}
    jobs: list[tuple[str, str]] = []
    by_key = {(p.assignment, p.student): p for p in prepared}
    if len(by_key) != len(prepared):
        raise GradingError("the same student appears twice for one assignment")

    def finish(result: SubmissionResult) -> None:
        key = (result.assignment, result.student)
        results[key] = result
        if ledger is not None and not result.skipped:
            ledger.record(result.assignment, result.student, digests[key], result.to_dict())
        if on_result is not None:
            on_result(result)

    pending: list[SubmissionResult] = []
    for sub in prepared:
        key = (sub.assignment, sub.student)
        if sub.assignment not in salts:
            salts[sub.assignment] = grading_salt(course_dir, sub.assignment, sandbox, db_url)
        digests[key] = sub.digest(salts[sub.assignment])
        if ledger is not None:
            previous = ledger.lookup(sub.assignment, sub.student, digests[key])
            if previous is not None:
                reused = SubmissionResult.from_dict(sub.student, sub.assignment, previous)
                reused.skipped = True
                pending.append(reused)
                continue
        if sub.notebooks:
            write_submission(course_dir, sub.assignment, sub.student, sub.notebooks)
            jobs.append(key)
        else:
            record_zero_scores(course_dir, sub.assignment, sub.student, db_url)
            scores = read_scores(course_dir, sub.assignment, [sub.student], db_url)
            result = SubmissionResult(sub.student, sub.assignment, flags=list(sub.flags))
            result.scores = scores.get(sub.student, {})
            result.missing = list(sub.missing)
            pending.append(result)
    for result in pending:
        finish(result)
    for assignment, student, value in run_autograde_batch(
        course_dir,
        jobs,
        workers=workers,
        sandbox=sandbox,
        db_url=db_url,
        timeout=timeout,
        feedback=feedback,
    ):
        sub = by_key[(assignment, student)]
        result = SubmissionResult(student, assignment, flags=list(sub.flags))
        result.missing = list(sub.missing)
        for flag in value["flags"]:
            if flag not in result.flags:
                result.flags.append(flag)
        result.ok = bool(value["success"])
        result.error = value["error"]
        result.seconds = value["seconds"]
        if not result.ok:
            result.flags.append("could not be graded: " + _first_line(value["error"]))
        result.scores = read_scores(course_dir, assignment, [student], db_url).get(student, {})
        finish(result)
    return {(p.assignment, p.student): results[(p.assignment, p.student)] for p in prepared}


def grading_salt(
    course_dir: Path, assignment: str, sandbox: bool, db_url: str | None = None
) -> str:
    """What else decides a grade besides the submission: the assignment's source files, the
    grading settings and the gradebook the grades go to. A change makes the ledger grade
    again."""
    import hashlib

    url = course_config(course_dir, db_url).CourseDirectory.db_url
    h = hashlib.sha256(f"{LEDGER_VERSION}|sandbox={bool(sandbox)}|{url}".encode())
    source = course_dir / "source" / assignment
    for path in sorted(source.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def grade_submissions(
    course_dir: str | os.PathLike,
    assignment: str,
    submissions: Mapping[str, Mapping[str, NotebookNode]],
    *,
    workers: int = 2,
    sandbox: bool | None = None,
    db_url: str | None = None,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Autograde a batch of submissions of one assignment with nbgrader, in parallel.

    Parameters
    ----------
    course_dir : path
        A course directory where ``assignment`` has been released
        (:func:`release_assignment`).
    assignment : str
        The assignment name.
    submissions : mapping
        student -> (notebook name -> notebook), e.g. ``{"alice": {"01_hyperplanes": nb}}``;
        names may omit ".ipynb". Written into ``submitted/<student>/<assignment>/``.
    workers : int
        Worker processes executing notebooks at the same time.
    sandbox : bool or None
        ``None``: grade in F's sandbox if it is available; ``True``: require it;
        ``False``: nbgrader's stock ``Execute``.

    Returns
    -------
    dict
        student -> grade_id -> (score, max_score) for every autograded test cell.
    """
    results = grade_submission_results(
        course_dir, assignment, submissions, workers=workers, sandbox=sandbox, db_url=db_url
    )
    return {student: result.scores for student, result in results.items()}


def grade_submission_results(
    course_dir: str | os.PathLike,
    assignment: str,
    submissions: Mapping[str, Mapping[str, NotebookNode | bytes]],
    *,
    workers: int = 2,
    sandbox: bool | None = None,
    db_url: str | None = None,
    feedback: bool = False,
) -> dict[str, SubmissionResult]:
    """Like :func:`grade_submissions`, with each submission's flags and errors."""
    from autograder.notebook import notebook_bytes

    prepared = []
    for student, files in submissions.items():
        sub = PreparedSubmission(student, assignment)
        for name, content in files.items():
            name = name if name.endswith(".ipynb") else f"{name}.ipynb"
            sub.notebooks[name] = content if isinstance(content, bytes) else notebook_bytes(content)
        prepared.append(sub)
    results = grade_prepared(
        course_dir,
        prepared,
        workers=workers,
        sandbox=resolve_sandbox(sandbox),
        db_url=db_url,
        feedback=feedback,
    )
    return {student: results[(assignment, student)] for student in submissions}


def _first_line(text: str) -> str:
    for line in reversed(text.strip().splitlines()):
        if line.strip():
            return line.strip()
    return "unknown error"
