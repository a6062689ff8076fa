"""Grading a batch of notebooks of one assignment straight through
:func:`autograder.grading.grade_prepared`, for tests that need nbgrader's scores without
the command line's folders and outputs; and a notebook checked by nbgrader's own
``Validator`` (what a student's ``nbgrader validate`` runs)."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from pathlib import Path

from nbformat import NotebookNode
from nbgrader.validator import Validator
from traitlets.config import Config

from autograder.course import Course
from autograder.grading import grade_prepared
from autograder.models import PreparedSubmission, SubmissionResult
from autograder.notebook import notebook_bytes
from autograder.options import GradeOptions
from autograder.sandbox import resolve_sandbox


def grade_notebooks(
    course_dir: str | os.PathLike,
    assignment: str,
    submissions: Mapping[str, Mapping[str, NotebookNode | bytes]],
    *,
    workers: int = 2,
    sandbox: bool | None = None,
    db_url: str | None = None,
    feedback: bool = False,
) -> dict[str, SubmissionResult]:
    """Autograde submissions of one released assignment in parallel.

    ``submissions``: student -> (notebook name -> notebook or its bytes); names may omit
    ".ipynb". ``sandbox``: ``None`` grades in the sandbox if it is available, ``True``
    requires it, ``False`` uses nbgrader's stock ``Execute``. Returns student -> result.
    """
    prepared = []
    for student, files in submissions.items():
        sub = PreparedSubmission(student, assignment)
        for name, content in files.items():
            name = name if name.endswith(".ipynb") else f"{name}.ipynb"
            sub.notebooks[name] = content if isinstance(content, bytes) else notebook_bytes(content)
        prepared.append(sub)
    options = GradeOptions(workers=workers, sandbox=resolve_sandbox(sandbox), feedback=feedback)
    results = grade_prepared(Course(course_dir, db_url), prepared, options)
    return {student: results[(assignment, student)] for student in submissions}


def validate_notebook(path: str | os.PathLike, invert: bool = False) -> tuple[bool, str]:
    """Run nbgrader's Validator on one notebook (``nbgrader validate [--invert]``).

    Returns
    -------
    (ok, report)
        ``ok`` is True when validation passed: every test passes (or with ``invert``, none
        does); ``report`` is the text ``nbgrader validate`` would print.
    """
    config = Config()
    config.Validator.invert = invert
    validator = Validator(config=config)
    path = Path(path).resolve()
    results = validator.validate(str(path))
    buffer = io.StringIO()
    # Print those same results with nbgrader's wording instead of executing a second time.
    validator.validate = lambda _filename: results  # type: ignore[method-assign]
    validator.stream = buffer
    validator.validate_and_print(str(path))
    return (not results), buffer.getvalue()
