"""autograder.course.config through Course: the configuration loaded once, the gradebook
URL (SQLite with a busy timeout), copies for converters with the folder's own step folders."""

from __future__ import annotations

from autograder.course import Course
from autograder.course.database import SQLITE_BUSY_TIMEOUT


def test_default_gradebook_is_sqlite_in_the_course_with_a_busy_timeout(tmp_path):
    course = Course(tmp_path / "c")
    assert course.root == (tmp_path / "c").resolve()
    assert (
        course.db_url == f"sqlite:///{course.root / 'gradebook.db'}?timeout={SQLITE_BUSY_TIMEOUT}"
    )
    assert course.course_id == "linear-classifiers"  # the repository's nbgrader_config.py


def test_given_urls_get_a_timeout_only_when_sqlite_without_one(tmp_path):
    assert Course(tmp_path, "sqlite:///x.db").db_url == "sqlite:///x.db?timeout=120"
    assert Course(tmp_path, "sqlite:///x.db?a=1").db_url == "sqlite:///x.db?a=1&timeout=120"
    assert Course(tmp_path, "sqlite:///x.db?timeout=5").db_url == "sqlite:///x.db?timeout=5"
    assert Course(tmp_path, "postgresql://h/db").db_url == "postgresql://h/db"


def test_config_is_a_copy_with_local_step_folders(tmp_path):
    course = Course(tmp_path)
    config = course.config()
    assert config.CourseDirectory.root == str(course.root)
    assert config.CourseDirectory.submitted_directory == "submitted"
    config.CourseDirectory.assignment_id = "changed"
    config.CourseDirectory.ignore.append("x")
    assert "assignment_id" not in course.config().CourseDirectory
    assert "x" not in course.config().CourseDirectory.ignore
