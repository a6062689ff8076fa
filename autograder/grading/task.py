"""The worker side of a grading batch: what each grading worker process runs once when it
starts (:func:`worker_init`) and for each submission (:func:`autograde_task`: nbgrader's
``Autograde``, then optionally ``GenerateFeedback``), and the real cause of a failed
``Autograde`` read from its log (:func:`failure_cause`)."""

from __future__ import annotations

import functools
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from autograder import phases
from autograder.course import Course, prepare_nbgrader
from autograder.faults import classify, first_fault, recording_exceptions
from autograder.grading.config import autograde_config, feedback_config
from autograder.notebook import (
    collect_notebook_diagnoses,
    collect_notebook_flags,
    collect_undecided,
)
from autograder.options import GradeOptions


def autograde_task(
    course: Course,
    assignment: str,
    student: str,
    options: GradeOptions,
    prewarm: bool = False,
    hold: tuple[Course | None, str] | None = None,
    kernel_graded: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Autograde one submission with nbgrader's Autograde converter, as ``options`` say (in
    the sandbox or not), then, with ``options.feedback``, write its feedback with
    GenerateFeedback.

    ``hold``: (the scratch course of held students, the verdict's marker file): while the
    marker does not exist (the canary has not passed yet), the submission is graded in the
    scratch course, and the outcome says so (``held``; :mod:`autograder.grading.hold`);
    with no scratch course (a submission not copied there), it waits for the marker.

    ``kernel_graded``: the test cells the re-check leaves to the kernel's verdict, as the
    canary found them (:func:`read_verdict`; None: not known yet, unless the verdict's
    marker holds them).

    Returns ``success``, ``error``, ``log``, ``cause`` (one line: the real exception of a
    failure, see :func:`failure_cause`), ``flags`` (the notebook's flags), ``diagnoses``
    (exercise -> what its failed tests look like, from the re-check), ``feedback`` (written
    or not) and ``fault`` (a failure of the machine, as plain data, or None:
    :mod:`autograder.faults`).
    """
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    phases.start_record()
    held = False
    if hold is not None and not os.path.exists(hold[1]):
        if hold[0] is not None:
            course, held = hold[0], True
        else:
            wait_for(hold[1])
    if hold is not None and not held and kernel_graded is None:
        kernel_graded = read_verdict(hold[1])
    config = autograde_config(course, options, prewarm=prewarm)
    config.SafeExecute.kernel_graded = kernel_graded
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
        "undecided": collect_undecided(course.autograded_dir(student, assignment)),
        "feedback": False,
        "held": held,
    }
    out["cause"] = "" if out["success"] else failure_cause(out["error"], out["log"])
    if options.feedback and out["success"]:
        out["feedback"], error, seen_feedback = generate_feedback(course, assignment, student)
        seen += seen_feedback
        if not out["feedback"]:
            out["log"] += "\n" + error
    # a failure of the machine (a full disk, the gradebook locked or gone), told from the
    # notebook's own by the exceptions themselves (autograder.faults), even where nbgrader
    # carried on: the grader records nothing for it and grades it again next time
    fault = first_fault(seen)
    out["fault"] = fault.to_dict() if fault is not None else None
    out["profile"] = phases.take_record()
    return out


def read_verdict(marker: str) -> dict[str, Any] | None:
    """The test cells the canary leaves to the kernel's verdict, as its marker records them
    (assignment -> notebook -> grade id -> why; None: the marker holds none)."""
    try:
        data = json.loads(Path(marker).read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def wait_for(marker: str, step: float = 0.05) -> None:
    """Wait until the file *marker* exists (the canary's verdict; the task's own time limit
    bounds the wait, and a refusal stops the worker)."""
    while not os.path.exists(marker):
        time.sleep(step)


def generate_feedback(
    course: Course, assignment: str, student: str
) -> tuple[bool, str, list[BaseException]]:
    """Write one graded submission's feedback pages with nbgrader's GenerateFeedback (the
    scores, and the late penalty, that the gradebook holds now); returns whether it
    succeeded, nbgrader's error if not, and the exceptions it met
    (:func:`autograder.faults.recording_exceptions`)."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    config = feedback_config(course)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    app.force = True
    with recording_exceptions(app) as seen, phases.phase(phases.FEEDBACK):
        result = capture_log(app)
    ok = bool(result.get("success"))
    return ok, "" if ok else result.get("error", ""), list(seen)


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


def worker_init(prewarm_log: str | None, options: GradeOptions) -> None:
    """Once per worker: start its warm kernels first (they warm up while this worker imports
    nbgrader): the warm box when ``options`` grade in the sandbox, else the kernel template
    (:func:`~.prewarm.start_warm`); then import nbgrader (and nbconvert, jupyter_client) once
    per worker, not per notebook, and open every gradebook of this worker on one engine per
    URL (:mod:`autograder.grading.gradebook`). ``prewarm_log`` None: no warm kernels."""
    if prewarm_log is not None:
        from autograder.grading.prewarm import start_warm

        start_warm(prewarm_log, options)
    import nbgrader.converters
    import nbgrader.preprocessors  # noqa: F401

    from autograder.grading.gradebook import share_engines

    prepare_nbgrader()
    share_engines()
    check_schemas_once()

    import autograder.grading.preprocessors  # noqa: F401

    phases.worker_started()
    if prewarm_log is not None and phases.enabled():
        phases.worker_template(functools.partial(_template_pid, options))


def _template_pid(options: GradeOptions) -> int | None:
    """The process id of this worker's warm kernel template (the warm box's bubblewrap with
    the sandbox), None when it has none."""
    if options.sandbox:
        from autograder.sandbox import current_warm_box

        box = current_warm_box()
        return box.process.pid if box is not None else None
    from autograder.grading import prewarm

    template = prewarm._TEMPLATE
    return template.process.pid if template is not None else None


class _SchemaCheckedOnce:
    """``jsonschema`` as nbgrader's metadata validator uses it (its module's ``jsonschema``),
    with a ``validate`` that makes a schema's validator, and checks the schema against its
    meta-schema, once per process, not on every call. The steps are ``jsonschema.validate``'s
    own (``validator_for``, ``check_schema``, ``best_match`` of ``iter_errors``): the same
    errors, raised the same way; anything else is ``jsonschema``'s."""

    def __init__(self) -> None:
        self._validators: dict[str, Any] = {}

    def validate(self, instance: Any, schema: dict, *args: Any, **kwargs: Any) -> None:
        import json

        import jsonschema

        if args or kwargs:
            jsonschema.validate(instance, schema, *args, **kwargs)
            return
        key = json.dumps(schema, sort_keys=True)
        validator = self._validators.get(key)
        if validator is None:
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            validator = self._validators[key] = cls(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
        if error is not None:
            raise error

    def __getattr__(self, name: str) -> Any:
        import jsonschema

        return getattr(jsonschema, name)


def check_schemas_once() -> None:
    """nbgrader checks every graded cell's metadata (``CheckCellMetadata``, before and after
    the cells run) with ``jsonschema.validate``, which checks the schema itself against its
    meta-schema each time: 9/10 of the check's time. Here that schema is checked once per
    process (:class:`_SchemaCheckedOnce`); what is checked of a cell, and what is raised,
    is unchanged. nbgrader has no hook for its validator: its module's ``jsonschema`` is
    replaced. Idempotent."""
    from nbgrader.nbgraderformat import common

    if not isinstance(common.jsonschema, _SchemaCheckedOnce):
        common.jsonschema = _SchemaCheckedOnce()
