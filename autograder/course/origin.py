"""Which course a course folder holds: the source recorded when it was built, else this
repository's (its ``notebooks/``, read from :data:`NOTEBOOKS_DIR` when asked, so that a test
may point it at a snapshot); the course folders this grader built that lie around a place
(:func:`course_near`); and the assignments of a notebooks folder."""

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


def built_course(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a course folder this grader built: it holds the record of its
    source (:meth:`Course.make` writes it; stock nbgrader's course folders have none)."""
    return (Path(path) / RECORD_NAME).is_file()


def holds_a_course(path: str | os.PathLike) -> bool:
    """Whether the course folder ``path`` has been built already: by this grader, or
    before the record of its source existed (its gradebook or its copy of the source)."""
    root = Path(path)
    return built_course(root) or (root / "gradebook.db").exists() or (root / "source").is_dir()


def _children(folder: Path) -> list[Path]:
    try:
        return sorted(child for child in folder.iterdir() if child.is_dir())
    except OSError:
        return []


def course_near(place: str | os.PathLike) -> tuple[Path, str] | None:
    """The nearest course folder this grader built around ``place`` (a folder or a file),
    and how it lies: ``inside`` (``place`` is that folder or lies in it: the folder or one
    above it) or ``beside`` (a folder next to ``place``, in the folder that holds it); for
    a folder, also ``holds`` (a folder right in it). None: there is none."""
    path = Path(place).resolve()
    folder = path if path.is_dir() else path.parent
    for above in (folder, *folder.parents):
        if built_course(above):
            return above, "inside"
    if path.is_dir():
        for child in _children(path):
            if built_course(child):
                return child, "holds"
    for sibling in _children(path.parent):
        if sibling != path and built_course(sibling):
            return sibling, "beside"
    return None
