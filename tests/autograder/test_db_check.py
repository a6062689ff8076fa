"""``--db`` checked before anything, through the command line: a gradebook that cannot be
used (an SQLite file in a folder that does not exist, a PostgreSQL server nothing answers
for) is one line and exit 2, before anything is released, graded or
written; the course's ``nbgrader_config.py`` names only a gradebook that works.

Switched off (the URL only parsed, not opened: ``check_db_url`` in place of
``gradebook_problem``), these runs go on to release the assignment: the bad URL is written
into ``nbgrader_config.py``, nbgrader fails with its whole log and the exit status is 1.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.course import Course, list_assignments
from autograder.models import GradingError

FIRST = (list_assignments() or ["01_hyperplanes"])[0]


@pytest.fixture
def submissions(tmp_path) -> Path:
    """One student's notebook of the first assignment (what it holds is never graded)."""
    from course_common.paths import NOTEBOOKS_DIR

    target = tmp_path / "batch" / "alice" / FIRST / f"{FIRST}.ipynb"
    target.parent.mkdir(parents=True)
    source = NOTEBOOKS_DIR / FIRST / f"{FIRST}.ipynb"
    if not source.is_file():
        pytest.skip("no course notebooks yet")
    target.write_bytes(source.read_bytes())
    return tmp_path / "batch"


def _free_port() -> int:
    """A TCP port of this machine nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bad_urls(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (URL, what the one line says)."""
    return {
        "sqlite folder missing": (
            f"sqlite:///{tmp_path / 'no-such-folder' / 'gradebook.db'}",
            "the folder of the SQLite gradebook does not exist",
        ),
        "postgres port nothing listens on": (
            f"postgresql+psycopg://grader@127.0.0.1:{_free_port()}/gradebook",
            "cannot connect to the gradebook's database: connection failed",
        ),
        "postgres socket folder missing": (
            f"postgresql+psycopg://grader@/gradebook?host={tmp_path / 'no-such-socket-dir'}",
            "cannot connect to the gradebook's database:",
        ),
    }


CASES = [
    "sqlite folder missing",
    "postgres port nothing listens on",
    "postgres socket folder missing",
]


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err[-3000:]
    return err


@pytest.mark.parametrize("case", CASES)
def test_grade_with_a_gradebook_that_cannot_be_used(case, submissions, tmp_path, capsys):
    url, message = _bad_urls(tmp_path)[case]
    course, out = tmp_path / "course", tmp_path / "out"
    status = main(
        [
            "grade",
            str(submissions),
            "--course",
            str(course),
            "--out",
            str(out),
            "--unsandboxed",
            "--db",
            url,
        ]
    )
    err = _one_line(capsys)
    assert status == 2
    assert err.startswith("python -m autograder: error: cannot use --db: ") and message in err
    assert not course.exists() and not out.exists()


@pytest.mark.parametrize("case", CASES)
def test_release_with_a_gradebook_that_cannot_be_used(case, tmp_path, capsys):
    url, message = _bad_urls(tmp_path)[case]
    course = tmp_path / "course"
    status = main(["release", "--course", str(course), "--assignment", FIRST, "--db", url])
    err = _one_line(capsys)
    assert status == 2 and message in err
    assert not course.exists()


def test_a_bad_url_never_reaches_the_courses_configuration(submissions, tmp_path, capsys):
    """A course set up with a working gradebook keeps it in nbgrader_config.py when a run
    is given one that does not work (through the command line, and through the API)."""
    course = tmp_path / "course"
    good = f"sqlite:///{tmp_path / 'gradebook.db'}"
    Course(course, good).make([])
    config = (course / "nbgrader_config.py").read_text()
    assert "gradebook.db" in config
    url, _ = _bad_urls(tmp_path)["sqlite folder missing"]
    args = ["grade", str(submissions), "--course", str(course), "--unsandboxed", "--db", url]
    assert main(args) == 2
    _one_line(capsys)
    assert (course / "nbgrader_config.py").read_text() == config
    with pytest.raises(GradingError, match="cannot use the gradebook: the folder"):
        Course(course, url).make([])
    assert (course / "nbgrader_config.py").read_text() == config


def test_working_gradebooks_pass_and_nothing_is_created(tmp_path):
    from autograder.course import gradebook_problem

    new = tmp_path / "new.db"
    assert gradebook_problem(f"sqlite:///{new}") is None
    assert not new.exists()  # checked without creating it
    Course(tmp_path / "course", f"sqlite:///{new}").ensure_students(["alice"])
    assert gradebook_problem(f"sqlite:///{new}?timeout=5") is None  # an existing gradebook
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("these are my notes, not a database\n" * 20)
    assert "cannot open the SQLite gradebook" in gradebook_problem(f"sqlite:///{not_a_db}")
    assert "in-memory" in gradebook_problem("sqlite://")
    # a gradebook in the course folder the run is about to create is fine; elsewhere not
    course = tmp_path / "new-course"
    in_course = f"sqlite:///{course / 'gradebook.db'}"
    assert gradebook_problem(in_course, course_dir=course) is None
    assert "does not exist" in gradebook_problem(in_course)
    assert "does not exist" in gradebook_problem(in_course, course_dir=tmp_path / "other")
    assert not course.exists()


@pytest.mark.slow  # starts the session's PostgreSQL server
def test_a_running_postgres_server_passes(postgres_url):
    from autograder.course import gradebook_problem

    assert gradebook_problem(postgres_url) is None
    missing = postgres_url.replace("/gradebook?", "/no_such_database?")
    assert 'database "no_such_database" does not exist' in gradebook_problem(missing)
