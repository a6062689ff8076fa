"""The worker side of a grading batch: what each grading worker process runs once when it
starts (:func:`worker_init`) and for each submission (:func:`autograde_task`: nbgrader's
``Autograde``, then optionally ``GenerateFeedback``), and the real cause of a failed
``Autograde`` read from its log (:func:`failure_cause`)."""

from __future__ import annotations

import functools
import re
from typing import Any

from autograder import phases
from autograder.course import Course, ensure_env_bin_on_path
from autograder.faults import classify, first_fault, recording_exceptions
from autograder.grading.config import autograde_config, feedback_config
from autograder.notebook import collect_notebook_diagnoses, collect_notebook_flags


def autograde_task(
    course: Course,
    assignment: str,
    student: str,
    sandbox: bool,
    feedback: bool = False,
    prewarm: bool = False,
) -> dict[str, Any]:
    """Autograde one submission with nbgrader's Autograde converter, then (optionally)
    write its feedback with GenerateFeedback.

    Returns ``success``, ``error``, ``log``, ``cause`` (one line: the real exception of a
    failure, see :func:`failure_cause`), ``flags`` (the notebook's flags), ``diagnoses``
    (exercise -> what its failed tests look like, from the re-check), ``feedback`` (written
    or not) and ``fault`` (a failure of the machine, as plain data, or None:
    :mod:`autograder.faults`).
    """
    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    phases.start_record()
    config = autograde_config(course, sandbox=sandbox, prewarm=prewarm)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    coursedir = CourseDirectory(config=config)
    app = Autograde(coursedir=coursedir, config=config)
    app.force = True
    app.create_student = True
    with recording_exceptions(app) as seen, phases.phase(phases.NBGRADER):
        result = capture_log(app)
    flags = collect_notebook_flags(course.autograded_dir(student, assignment))
    out = {
        "success": bool(result.get("success")),
        "error": result.get("error", ""),
        "log": result.get("log", ""),
        "flags": flags,
        "diagnoses": collect_notebook_diagnoses(course.autograded_dir(student, assignment)),
        "feedback": False,
    }
    out["cause"] = "" if out["success"] else failure_cause(out["error"], out["log"])
    if feedback and out["success"]:
        config = feedback_config(course)
        config.CourseDirectory.assignment_id = assignment
        config.CourseDirectory.student_id = student
        app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
        app.force = True
        with recording_exceptions(app) as seen_feedback, phases.phase(phases.FEEDBACK):
            fb = capture_log(app)
        seen += seen_feedback
        out["feedback"] = bool(fb.get("success"))
        if not out["feedback"]:
            out["log"] += "\n" + fb.get("error", "")
    # a failure of the machine (a full disk, the gradebook locked or gone), told from the
    # notebook's own by the exceptions themselves (autograder.faults), even where nbgrader
    # carried on: the grader records nothing for it and grades it again next time
    fault = first_fault(seen)
    out["fault"] = fault.to_dict() if fault is not None else None
    out["profile"] = phases.take_record()
    return out


def failed_outcome(
    error: str, seconds: float, exception: BaseException | None = None
) -> dict[str, Any]:
    """The outcome of a task that did not return (its worker died, it timed out, it raised),
    in :func:`autograde_task`'s form; ``exception``: what the task raised, to tell a fault of
    the machine (:func:`autograder.faults.classify`) from the submission's."""
    fault = classify(exception)
    return {
        "success": False,
        "error": error,
        "log": "",
        "flags": [],
        "cause": failure_cause(error),
        "feedback": False,
        "seconds": seconds,
        "fault": fault.to_dict() if fault is not None else None,
    }


_TRACEBACK = "Traceback (most recent call last):"
#: nbgrader's own summary of a failed notebook, which hides the exception that failed it.
_WRAPPERS = ("NbGraderException", "nbgrader.converters.base.NbGraderException")


def failure_cause(error: str, log: str = "") -> str:
    """The real exception of a failed nbgrader run, as one line ``"SomeError: message"``.

    nbgrader logs the exception that failed a notebook (its traceback, in ``log``), then
    raises ``NbGraderException: Please see the above traceback`` (``error``): the cause is
    the last exception line of the tracebacks that is not that summary. Falls back to the
    last line of ``error``.
    """
    lines = [line for text in (log, error) for line in _exception_lines(text)]
    real = [line for line in lines if not line.startswith(_WRAPPERS)]
    if real:
        return real[-1]
    for line in reversed((error or "").strip().splitlines()):
        if line.strip():
            return line.strip()
    return "unknown error"


def _exception_lines(text: str) -> list[str]:
    """The exception line ("Name: message") that ends each traceback in ``text``, whatever
    the traceback's indentation (nbgrader's log indents a logged traceback)."""
    out = []
    lines = (text or "").splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].rstrip().endswith(_TRACEBACK):
            i += 1
            continue
        base = None
        i += 1
        while i < len(lines):
            line = lines[i]
            indent = len(line) - len(line.lstrip())
            if base is None and line.lstrip().startswith('File "'):
                base = max(indent - 2, 0)
            elif base is not None and line.strip() and indent <= base:
                if re.match(r"[A-Za-z_][\w.]*(:|$)", line.strip()):
                    out.append(line.strip())
                break
            i += 1
    return out


def worker_init(prewarm_log: str | None = None, sandbox: bool = False) -> None:
    """Once per worker: start its warm kernels first (they warm up while this worker imports
    nbgrader): the warm box with ``sandbox``, else the kernel template
    (:func:`~.prewarm.start_warm`); then import nbgrader (and nbconvert, jupyter_client) once
    per worker, not per notebook, and open every gradebook of this worker on one engine per
    URL (:mod:`autograder.grading.gradebook`). ``prewarm_log`` None: no warm kernels."""
    if prewarm_log is not None:
        from autograder.grading.prewarm import start_warm

        start_warm(prewarm_log, sandbox=sandbox)
    import nbgrader.converters
    import nbgrader.preprocessors  # noqa: F401

    from autograder.grading.gradebook import share_engines

    ensure_env_bin_on_path()
    share_engines()

    import autograder.grading.preprocessors  # noqa: F401

    phases.worker_started()
    if prewarm_log is not None and phases.enabled():
        phases.worker_template(functools.partial(_template_pid, sandbox))


def _template_pid(sandbox: bool) -> int | None:
    """The process id of this worker's warm kernel template (the warm box's bubblewrap with
    the sandbox), None when it has none."""
    if sandbox:
        from autograder.sandbox import current_warm_box

        box = current_warm_box()
        return box.process.pid if box is not None else None
    from autograder.grading import prewarm

    template = prewarm._TEMPLATE
    return template.process.pid if template is not None else None
