"""The worker side of a grading batch: what each grading worker process runs once when it
starts (:func:`worker_init`) and for each submission (:func:`autograde_task`: nbgrader's
``Autograde``, then optionally ``GenerateFeedback``)."""

from __future__ import annotations

from typing import Any

from autograder.course import Course, ensure_env_bin_on_path
from autograder.grading.config import autograde_config, feedback_config
from autograder.notebook import collect_notebook_flags


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

    Returns ``success``, ``error``, ``log``, ``flags`` (the notebook's flags) and
    ``feedback`` (written or not).
    """
    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    config = autograde_config(course, sandbox=sandbox, prewarm=prewarm)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    coursedir = CourseDirectory(config=config)
    app = Autograde(coursedir=coursedir, config=config)
    app.force = True
    app.create_student = True
    result = capture_log(app)
    flags = collect_notebook_flags(course.autograded_dir(student, assignment))
    out = {
        "success": bool(result.get("success")),
        "error": result.get("error", ""),
        "log": result.get("log", ""),
        "flags": flags,
        "feedback": False,
    }
    if feedback and out["success"]:
        config = feedback_config(course)
        config.CourseDirectory.assignment_id = assignment
        config.CourseDirectory.student_id = student
        app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
        app.force = True
        fb = capture_log(app)
        out["feedback"] = bool(fb.get("success"))
        if not out["feedback"]:
            out["log"] += "\n" + fb.get("error", "")
    return out


def worker_init(prewarm_log: str | None = None) -> None:
    """Once per worker: start the kernel template first (it warms up while this worker
    imports nbgrader), then import nbgrader (and nbconvert, jupyter_client) once per
    worker, not per notebook."""
    if prewarm_log is not None:
        from autograder.grading.prewarm import start_template

        start_template(prewarm_log)
    import nbgrader.converters
    import nbgrader.preprocessors  # noqa: F401

    ensure_env_bin_on_path()

    import autograder.grading.preprocessors  # noqa: F401
