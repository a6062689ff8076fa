"""The students' feedback pages: nbgrader's feedback HTML copied into the run's output, and
a short page for each notebook that could not be graded (plain text, no scripts allowed)."""

from __future__ import annotations

import html
import shutil
from collections.abc import Iterable
from pathlib import Path

from autograder.course import Course
from autograder.models import SubmissionResult
from lecture.assets import FEEDBACK_MATHJAX, copy_mathjax, mathjax_available

_NOT_GRADED = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{title}</title></head>
<body><h1>{title}</h1><p>This notebook could not be graded and scored 0 points:</p>
<ul>{items}</ul></body></html>
"""


def copy_feedback(course: Course, results: Iterable[SubmissionResult], out_dir: Path) -> int:
    """Copy each graded submission's feedback HTML to ``out_dir/feedback/<student>/
    <assignment>/<notebook>.html``, and write a short page for each notebook that could not
    be graded (missing or corrupt) saying why; returns how many files were written.
    MathJax, when installed, is copied once to ``out_dir/feedback/_mathjax/``."""
    count = 0
    for result in results:
        src = course.feedback_dir(result.student, result.assignment)
        dest = out_dir / "feedback" / result.student / result.assignment
        if dest.exists():
            shutil.rmtree(dest)
        if src.is_dir():
            for page in sorted(src.glob("*.html")):
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(page, dest / page.name)
                count += 1
        for notebook in result.missing:
            target = dest / f"{notebook}.html"
            if target.exists():
                continue
            dest.mkdir(parents=True, exist_ok=True)
            items = "".join(f"<li>{html.escape(flag)}</li>" for flag in result.flags)
            title = html.escape(f"{result.assignment}: {notebook} ({result.student})")
            target.write_text(_NOT_GRADED.format(title=title, items=items), encoding="utf-8")
            count += 1
    if count and mathjax_available():
        # The pages load MathJax from feedback/_mathjax/ (see autograder.grading's feedback_config).
        copy_mathjax(out_dir / "feedback" / FEEDBACK_MATHJAX)
    return count
