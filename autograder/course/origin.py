"""Which course a course folder holds: the source recorded when it was built, else this
repository's (its ``notebooks/``, read from :data:`NOTEBOOKS_DIR` when asked, so that a test
may point it at a snapshot); and the assignments of a notebooks folder."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.source import RECORD_NAME, CourseSource
from course_common.paths import NOTEBOOKS_DIR, REPO_ROOT

REPO_CONFIG = REPO_ROOT / "nbgrader_config.py"


def default_source() -> CourseSource:
    """This repository's course: ``notebooks/`` and the repository's ``nbgrader_config.py``
    (read when called, so a test may point :data:`NOTEBOOKS_DIR` at a snapshot)."""
    return CourseSource.this_course(NOTEBOOKS_DIR, REPO_CONFIG)


def recorded_source(root: Path) -> CourseSource | None:
    """The source a course folder was built from (:meth:`Course.make` records it), or None
    for a folder not built yet (or built before the record existed: this course)."""
    try:
        return CourseSource.from_record((Path(root) / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_assignments(source_dir: str | os.PathLike | None = None) -> list[str]:
    """Assignments in a notebooks folder: ``<name>/<name>.ipynb``, sorted by name."""
    root = Path(source_dir) if source_dir is not None else NOTEBOOKS_DIR
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}.ipynb").is_file())
