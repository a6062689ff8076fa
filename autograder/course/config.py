"""A course folder's nbgrader settings: its source's own, with the folder's step directories,
its gradebook's URL (SQLite with a busy timeout) and its copies of the header and footer
notebooks."""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from autograder.course.database import SQLITE_BUSY_TIMEOUT
from autograder.source import COURSE_DATA, CourseSource

_STEP_DIRS = {
    "source_directory": "source",
    "release_directory": "release",
    "submitted_directory": "submitted",
    "autograded_directory": "autograded",
    "feedback_directory": "feedback",
    "solution_directory": "solution",
    "source_with_tests_directory": "source_with_tests",
}

#: A copy of the course's header and footer notebooks, in the course folder.
HEADERS_DIR = "headers"


def course_config(root: Path, db_url: str | None, source: CourseSource) -> Config:
    """The course's own nbgrader settings with this course directory's paths and gradebook
    URL (and, where nbgrader reads a file of the source, the course folder's copy of it)."""
    config = source.config()
    config.CourseDirectory.root = str(root)
    for trait, name in _STEP_DIRS.items():
        setattr(config.CourseDirectory, trait, name)
    if db_url and db_url.startswith("sqlite") and "timeout=" not in db_url:
        db_url += ("&" if "?" in db_url else "?") + f"timeout={SQLITE_BUSY_TIMEOUT}"
    # Default: the embedded SQLite gradebook, with a busy timeout that lets parallel
    # workers wait for each other's short writes instead of failing with "database is
    # locked".
    config.CourseDirectory.db_url = (
        db_url or f"sqlite:///{root / 'gradebook.db'}?timeout={SQLITE_BUSY_TIMEOUT}"
    )
    # The notebooks under source/ are copies; students' extra files must not be graded.
    # What the course keeps for the grader beside a notebook (its catalogue of
    # misconceptions, its sample answers) is not released, nor copied to a graded folder.
    ignore = [*source.ignore(), *COURSE_DATA]
    config.CourseDirectory.ignore = list(dict.fromkeys(ignore))
    for trait in source.header_footer():
        setattr(config.IncludeHeaderFooter, trait, str(root / HEADERS_DIR / f"{trait}.ipynb"))
    return config
