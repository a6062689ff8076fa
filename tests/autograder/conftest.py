"""A blank gradebook made once per session (nbgrader runs alembic for each new gradebook,
which is slow) and copied into the course folders of the tests that need one; a private
mount namespace for the tests that fill a small disk."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from autograder.course import Course


@pytest.fixture(scope="session")
def blank_gradebook(tmp_path_factory) -> Path:
    course = Course(tmp_path_factory.mktemp("blank") / "course")
    course.root.mkdir()
    with course.gradebook():
        pass
    return course.root / "gradebook.db"


@pytest.fixture(scope="session")
def new_course(blank_gradebook) -> Callable[[Path], Course]:
    """``new_course(folder)``: a course folder at ``folder`` with an empty gradebook."""

    def make(folder: Path) -> Course:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(blank_gradebook, folder / "gradebook.db")
        return Course(folder)

    return make


@pytest.fixture
def namespace():
    """A private mount namespace for small disks (:class:`~tests.autograder.fault_helpers.
    MountNamespace`), gone with the test; skipped where none can be made."""
    from tests.autograder.fault_helpers import MountNamespace  # imports the grader's samples

    try:
        ns = MountNamespace()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no private mount namespace here: {exc}")
    try:
        yield ns
    finally:
        ns.close()
