"""autograder.course.Course on its own: the configuration loaded once, the gradebook URL,
copies for converters, and the course sent to a worker process."""

from __future__ import annotations

import pickle

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import SQLITE_BUSY_TIMEOUT, Course


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


def test_a_course_pickles_to_the_same_course(tmp_path):
    course = Course(tmp_path, "sqlite:///elsewhere.db")
    again = pickle.loads(pickle.dumps(course))
    assert (again.root, again.db_url, again.config()) == (
        course.root,
        course.db_url,
        course.config(),
    )


def test_make_copies_the_source_and_writes_the_config(tmp_path):
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    (tmp_path / "src" / "a1").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "src" / "a1" / "a1.ipynb")
    course = Course(tmp_path / "c", "sqlite:///other.db").make(source_dir=tmp_path / "src")
    assert (course.source_dir("a1") / "a1.ipynb").is_file()
    text = (course.root / "nbgrader_config.py").read_text()
    assert "c.CourseDirectory.db_url = 'sqlite:///other.db?timeout=120'" in text
    assert course.submitted_dir("s", "a1") == course.root / "submitted" / "s" / "a1"


def test_gradebook_urls_checked_before_use(tmp_path):
    from autograder.course import check_db_url

    # usable: the embedded SQLite file, and PostgreSQL through psycopg 3 (installed)
    assert check_db_url(f"sqlite:///{tmp_path / 'gradebook.db'}") is None
    assert check_db_url("postgresql+psycopg://grader@localhost/course") is None
    assert "not an SQLAlchemy URL" in check_db_url("gradebook.db")
    assert "no database dialect" in check_db_url("nosuchdb://x/y")
    problem = check_db_url("postgresql+psycopg2://grader:secret@localhost/course")
    assert "not installed" in problem and "secret" not in problem


# --------------------------------------------------------------------------- one run at a time

_HOLD = (
    "import sys, time\n"
    "from autograder.course import Course\n"
    "with Course(sys.argv[1]).lock():\n"
    "    print('held', flush=True)\n"
    "    time.sleep(float(sys.argv[2]))\n"
)


def _holder(course_dir, seconds: float = 600):
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(course_dir), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "held"
    return process


def test_a_course_held_by_another_process_refuses_or_waits(tmp_path):
    """Course.lock is the operating system's lock: another process that holds it makes a
    run without ``wait`` fail at once (CourseBusy, with that process's id), and a run with
    ``wait`` say so (with the id) and go on once it is let go."""
    import time

    import pytest

    from autograder.models import CourseBusy

    course = Course(tmp_path / "c")
    holder = _holder(course.root, seconds=2)
    held_at = time.monotonic()
    try:
        with pytest.raises(CourseBusy) as refused:
            with course.lock(wait=False):
                pass
        assert refused.value.pid == holder.pid
        assert f"(process {holder.pid})" in str(refused.value)
        waited: list = []
        with course.lock(on_wait=waited.append):
            assert waited == [holder.pid]
            assert time.monotonic() - held_at > 1.5  # not before the other let it go
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_leaves_no_lock(tmp_path):
    """A run killed with SIGKILL cannot clean up: its lock goes with it, and the lock file it
    leaves (holding its process id) is no obstacle."""
    course = Course(tmp_path / "c")
    holder = _holder(course.root)
    holder.kill()
    holder.wait()
    assert (course.root / ".lock").read_text().strip() == str(holder.pid)
    with course.lock(wait=False):
        assert (course.root / ".lock").read_text().strip() == str(__import__("os").getpid())


def test_the_lock_is_reentrant_in_its_thread(tmp_path):
    """A use case that calls another (the demo grades) takes the course once; another
    thread of the same process still waits for it."""
    import threading

    course = Course(tmp_path / "c")
    order: list[str] = []

    def other_thread() -> None:
        with course.lock(on_wait=lambda pid: order.append(f"waits for {pid}")):
            order.append("t")

    with course.lock(wait=False):
        with Course(tmp_path / "c").lock(wait=False):
            order.append("nested")
        other = threading.Thread(target=other_thread)
        other.start()
        other.join(0.5)
        assert other.is_alive()  # waiting for this thread
    other.join(5)
    assert order == ["nested", f"waits for {__import__('os').getpid()}", "t"]
