"""autograder.course.Course on its own: the configuration loaded once, the gradebook URL,
copies for converters, and the course sent to a worker process."""

from __future__ import annotations

import pickle

import nbformat
import pytest
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# --------------------------------------------------------------------------- the class at once


def _class_gradebook(course: Course, students: list[str]) -> None:
    """Two assignments; A of two notebooks (an autograded test, a written answer graded by
    hand), B of one; every student handed in A, the first also B; penalties and
    timestamps on some."""
    import datetime
    import warnings

    course.root.mkdir(parents=True, exist_ok=True)
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's autoflush warnings
        gb.add_assignment("A")
        gb.add_assignment("B")
        gb.add_notebook("n1", "A")
        gb.add_notebook("n2", "A")
        gb.add_notebook("m", "B")
        gb.add_grade_cell("t1", "n1", "A", max_score=3.0, cell_type="code")
        gb.add_grade_cell("w2", "n2", "A", max_score=2.5, cell_type="markdown")
        gb.add_grade_cell("t3", "m", "B", max_score=4.0, cell_type="code")
        for i, student in enumerate(students):
            gb.add_student(student)
            submission = gb.add_submission("A", student)
            submission.timestamp = datetime.datetime(2026, 1, 1) + datetime.timedelta(hours=i)
            gb.find_grade("t1", "n1", "A", student).auto_score = float(i % 4)
            gb.find_grade("t1", "n1", "A", student).needs_manual_grade = False
            written = gb.find_grade("w2", "n2", "A", student)
            written.needs_manual_grade = i % 2 == 0
            written.manual_score = None if i % 2 == 0 else 1.5
            gb.find_submission_notebook("n1", "A", student).late_submission_penalty = i * 0.25
        gb.add_submission("B", students[0])
        gb.find_grade("t3", "m", "B", students[0]).auto_score = 4.0
        gb.db.commit()


def _what_reports_read(submission) -> tuple:
    return (
        submission.score,
        submission.late_submission_penalty,
        submission.timestamp,
        sorted(
            (
                nb.name,
                nb.score,
                nb.max_score,
                nb.late_submission_penalty,
                sorted((g.name, g.needs_manual_grade, g.max_score) for g in nb.grades),
            )
            for nb in submission.notebooks
        ),
    )


@pytest.mark.slow
def test_the_class_loaded_at_once_is_what_nbgrader_finds_one_by_one(tmp_path):
    from autograder.course import load_submissions

    course = Course(tmp_path / "c")
    students = ["ann", "bo", "cy", "di", "ed"]
    _class_gradebook(course, students)
    with course.gradebook() as gb:
        found = load_submissions(gb, ["A", "B"])
        got = {key: _what_reports_read(s) for key, s in found.items()}
    with course.gradebook() as gb:  # a fresh session: nothing shared with the one above
        expected = {
            (a, s): _what_reports_read(gb.find_submission(a, s))
            for a, s in [*(("A", s) for s in students), ("B", "ann")]
        }
    assert got == expected
    assert got[("A", "di")][1] == 0.75  # the penalty is there, not a default
    with course.gradebook() as gb:
        assert set(load_submissions(gb, ["B", "nothing-such"])) == {("B", "ann")}
        assert load_submissions(gb, []) == {}


@pytest.mark.slow
def test_the_class_is_loaded_in_as_many_queries_for_5_students_as_for_40(tmp_path):
    from sqlalchemy import event

    from autograder.course import load_submissions

    def statements(students: list[str]) -> int:
        course = Course(tmp_path / f"c{len(students)}")
        _class_gradebook(course, students)
        with course.gradebook() as gb:
            count = []
            event.listen(gb.db.get_bind(), "before_cursor_execute", lambda *a: count.append(1))
            for submission in load_submissions(gb, ["A", "B"]).values():
                _what_reports_read(submission)
        return len(count)

    few, many = statements([f"s{i}" for i in range(5)]), statements([f"s{i}" for i in range(40)])
    assert few == many
    assert many < 40  # fewer than one a student (nbgrader's find_submission: about ten)


def test_ensure_students_adds_the_missing_once_and_keeps_the_rest(tmp_path):
    course = Course(tmp_path / "c")
    course.root.mkdir()
    with course.gradebook() as gb:
        gb.add_student("bo", first_name="Bo")
    course.ensure_students(["ann", "bo", "ann", "cy"])
    course.ensure_students(["cy"])
    with course.gradebook() as gb:
        students = {s.id: s.first_name for s in gb.students}
    assert students == {"ann": None, "bo": "Bo", "cy": None}


def test_the_gradebook_gets_the_indexes_its_scores_look_up(tmp_path):
    """nbgrader's tables have no index on the columns its scores are looked up by (a
    submission's notebooks, a notebook's grades): ensure_students makes them, once."""
    from sqlalchemy import create_engine, inspect

    from autograder.course import GRADEBOOK_INDEXES

    course = Course(tmp_path / "c")
    course.root.mkdir()
    course.ensure_students(["ann"])
    course.ensure_students(["bo"])  # again: nothing to do, no error
    engine = create_engine(course.db_url)
    try:
        found = {
            index["name"]: (table, index["column_names"])
            for table in {t for t, _ in GRADEBOOK_INDEXES.values()}
            for index in inspect(engine).get_indexes(table)
        }
    finally:
        engine.dispose()
    for name, (table, column) in GRADEBOOK_INDEXES.items():
        assert found[name] == (table, [column])


@pytest.mark.slow
def test_a_new_gradebook_gets_the_revision_alembic_heads_prints_without_running_it(
    tmp_path, monkeypatch
):
    """nbgrader runs ``alembic heads`` in a subprocess for each new gradebook; after
    prepare_nbgrader the revision is read in the process, and it is the one the command
    prints (run here as nbgrader runs it)."""
    import subprocess
    import sys
    from pathlib import Path

    import nbgrader.api
    from nbgrader.dbutil import _temp_alembic_ini
    from sqlalchemy import create_engine, text

    from autograder.course import prepare_nbgrader

    alembic = str(Path(sys.executable).parent / "alembic")
    with _temp_alembic_ini("sqlite://") as ini:
        printed = subprocess.check_output([alembic, "-c", ini, "heads"], text=True)
    expected = printed.split()[0]
    prepare_nbgrader()

    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"a subprocess for the gradebook: {args}")

    monkeypatch.setattr(nbgrader.api.sp, "check_output", no_subprocess)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with nbgrader.api.Gradebook(url):
        pass
    with create_engine(url).connect() as db:
        (stored,) = db.execute(text("SELECT version_num FROM alembic_version")).one()
    assert stored == expected
