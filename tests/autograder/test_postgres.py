"""The gradebook in PostgreSQL: the tests' throw-away server (devtools/postgres.py), and the
grader with ``--db postgresql+psycopg://…`` against the same batch on the default
SQLite gradebook.

The batch is the demo class (``autograder.samples.demo``: full marks, blank, typical bugs,
a corrupt notebook) of two assignments plus two more students, graded by three workers at
once: on PostgreSQL every worker writes the one gradebook through its own connections, and
the same student is graded in two assignments at the same time. Scores, flags, grades.csv
and results.json must be exactly those of the SQLite run; grading the batch again (every
submission a retry) must leave one submission per (student, assignment) and a ledger that
agrees with the gradebook.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.course import Course, check_db_url, list_assignments
from autograder.grading.task import autograde_task
from autograder.models import GradingError
from autograder.notebook import folder_grade_order
from autograder.options import GradeOptions
from devtools.postgres import PostgresCluster, postgres_bindir, submission_counts
from tests.needs import require, sandbox_args

ASSIGNMENTS = list_assignments()[:2]
SANDBOX_ARGS = sandbox_args()
WORKERS = "3"


@pytest.mark.slow
def test_cluster_runs_unprivileged_on_a_socket_and_is_removed():
    require(
        postgres_bindir() is not None,
        "PostgreSQL is not installed (Debian: apt-get install postgresql)",
    )
    import psycopg

    with PostgresCluster() as cluster:
        folder = cluster.socket_dir
        assert (folder / ".s.PGSQL.5432").is_socket()
        if os.geteuid() == 0:  # PostgreSQL refuses root: the server runs as nobody
            assert (cluster.data_dir / "postmaster.pid").stat().st_uid != 0
        url = cluster.create_database("probe")
        assert url.startswith("postgresql+psycopg://") and f"host={folder}" in url
        with psycopg.connect(dbname="probe", user="postgres", host=str(folder)) as conn:
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)  # no TCP port
            assert conn.execute("SHOW fsync").fetchone() == ("off",)
    assert not folder.exists()
    cluster.stop()  # stopping twice is harmless


LONG_ID = "s" * 129


def _open_gradebook(url: str, barrier, results) -> None:
    # what nbgrader's own preprocessors (SaveAutoGrades, GetGrades, ...) and ours do in
    # every grading worker: open the gradebook without a course id
    from nbgrader.api import Gradebook

    barrier.wait()
    try:
        with Gradebook(url) as gb:
            gb.find_assignment("a")
        results.put("ok")
    except Exception as exc:  # reported to the test
        results.put(f"{type(exc).__name__}: {exc}".splitlines()[0])


@pytest.mark.slow
def test_workers_opening_a_prepared_gradebook_at_once_do_not_collide(postgres, tmp_path):
    """nbgrader's ``Gradebook(url)`` inserts its "default_course" row on first use: workers
    doing that at the same moment collide on PostgreSQL's unique key (UniqueViolation), so
    the course prepares it once before the workers start."""
    url = postgres.create_database("prepared")
    assert check_db_url(url) is None
    course = Course(tmp_path / "course", url)
    with course.gradebook() as gb:
        gb.update_or_create_assignment("a")
    course.ensure_students(["alice", "bob"])
    from nbgrader.api import Course as CourseRow

    with course.gradebook() as gb:
        assert sorted(s.id for s in gb.students) == ["alice", "bob"]
        assert {c.id for c in gb.db.query(CourseRow)} == {course.course_id, "default_course"}
    ctx = multiprocessing.get_context("fork")  # nbgrader already imported: quick
    n = 6
    barrier, results = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_open_gradebook, args=(url, barrier, results)) for _ in range(n)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [results.get(timeout=5) for _ in range(n)] == ["ok"] * n


@pytest.mark.slow
def test_a_student_id_too_long_for_the_gradebook_is_one_clear_error(postgres, tmp_path):
    """nbgrader's gradebook columns hold 128 characters: SQLite ignores that, PostgreSQL
    refuses the row (StringDataRightTruncation); the course says so before grading."""
    course = Course(tmp_path / "course", postgres.create_database("long_ids"))
    with pytest.raises(GradingError, match="longer than 128 characters"):
        course.ensure_students(["alice", "x" * 129])
    course.ensure_students(["x" * 128])
    with course.gradebook() as gb:
        assert [s.id for s in gb.students] == ["x" * 128]


# ------------------------------------------------------------------------------- grading


def _grade(folder: Path, root: Path, db: list[str]) -> int:
    return main(
        [
            "grade",
            str(folder),
            "--course",
            str(root / "course"),
            "--out",
            str(root / "out"),
            "--workers",
            WORKERS,
            "--no-progress",
            *SANDBOX_ARGS,
            *db,
        ]
    )


def _release(root: Path, db: list[str]) -> int:
    args = [arg for assignment in ASSIGNMENTS for arg in ("--assignment", assignment)]
    return main(["release", "--course", str(root / "course"), *args, *db])


@pytest.fixture(scope="module")
def graded(tmp_path_factory, postgres):
    """The batch released and graded through the command line, once on SQLite (the
    default) and once on PostgreSQL. The batch: the demo class of two assignments and two
    more students (copies of full marks and of typical bugs), so that three workers have
    work at once."""
    from autograder.samples.demo import build_demo_submissions

    url = postgres.create_database("graded")
    runs = {}
    folder = tmp_path_factory.mktemp("pg-batch") / "submissions"
    for name, db in (("sqlite", []), ("postgres", ["--db", url])):
        root = tmp_path_factory.mktemp(name)
        assert _release(root, db) == 0
        if not folder.exists():
            build_demo_submissions(root / "course", folder, ASSIGNMENTS)
            for student in ("full_marks", "typical_bugs"):
                shutil.copytree(folder / student, folder / f"{student}_2")
            # a folder name the gradebook cannot hold: that student is flagged, not graded,
            # and the class is graded (PostgreSQL refuses a student id over 128 characters)
            shutil.copytree(folder / "full_marks", folder / LONG_ID)
        assert _grade(folder, root, db) == 0
        runs[name] = root
    return runs, url, folder


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_postgres_gradebook_gives_the_sqlite_results(graded):
    runs, url, submissions = graded
    sqlite_out, pg_out = runs["sqlite"] / "out", runs["postgres"] / "out"
    assert (pg_out / "grades.csv").read_text() == (sqlite_out / "grades.csv").read_text()
    assert (pg_out / "results.json").read_text() == (sqlite_out / "results.json").read_text()
    results = json.loads((pg_out / "results.json").read_text())
    students = sorted(p.name for p in submissions.iterdir() if p.name != LONG_ID)
    assert [u.split("…")[0] for u in results["unmatched"]] == [LONG_ID[:40]] * len(ASSIGNMENTS)
    summary = (pg_out / "summary.md").read_text()
    assert summary.count("student id longer than 128 characters") == len(ASSIGNMENTS)
    # what was handed in ("no submission" is in grades.csv, not in the gradebook)
    expected = {(a, s) for a in ASSIGNMENTS for s in students if (submissions / s / a).is_dir()}
    # graded for real: every submission in the PostgreSQL gradebook once, full marks got
    # every point, the blank release none, the corrupt notebook is flagged
    got = {(r["assignment"], r["student"]): r for r in results["submissions"]}
    assert set(got) == expected
    for assignment in ASSIGNMENTS:
        assert any("corrupt" in flag for flag in got[(assignment, "broken_notebook")]["flags"])
        assert (
            got[(assignment, "full_marks")]["score"] == got[(assignment, "full_marks")]["max_score"]
        )
    assert submission_counts(url) == dict.fromkeys(expected, 1)
    scores = Course(runs["postgres"] / "course", url).read_scores(ASSIGNMENTS[0], students)
    assert all(score == top for score, top in scores["full_marks"].values())
    assert scores["full_marks"] == scores["full_marks_2"]
    assert all(score == 0 for score, _ in scores["blank"].values())
    assert any(score < top for score, top in scores["typical_bugs"].values())
    assert (pg_out / "feedback").is_dir()


def _ledger_entries(path: Path) -> dict[tuple[str, str], dict]:
    """(assignment, student) -> the ledger's entry, without its timing."""
    entries = {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        entry["result"].pop("seconds", None)
        entries[(entry["assignment"], entry["student"])] = entry
    return entries


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_grading_again_records_each_submission_once(graded):
    """Every submission graded a second time (the ledger removed: each task a retry), and
    one submission graded twice more by the worker task itself: still one submission per
    (student, assignment) in the gradebook, the same results, a ledger that agrees."""
    runs, url, submissions = graded
    root = runs["postgres"]
    before = (root / "out" / "results.json").read_text()
    ledger = root / "course" / "ledger.jsonl"
    first = _ledger_entries(ledger)
    ledger.unlink()
    assert _grade(submissions, root, ["--db", url]) == 0
    assert (root / "out" / "results.json").read_text() == before
    course = Course(root / "course", url)
    assignment = ASSIGNMENTS[0]
    for _ in range(2):
        outcome = autograde_task(
            course, assignment, "typical_bugs", GradeOptions(sandbox=False, feedback=False)
        )
        assert outcome["success"], outcome["error"]
    students = sorted(p.name for p in submissions.iterdir() if p.name != LONG_ID)
    handed_in = {(a, s): 1 for a in ASSIGNMENTS for s in students if (submissions / s / a).is_dir()}
    assert submission_counts(url) == handed_in
    # the ledger: one line per submission, the same as the first run's (but the timing),
    # and what it recorded is what the gradebook holds
    lines = ledger.read_text().splitlines()
    assert _ledger_entries(ledger) == first
    assert len(lines) == len(first) == len(handed_in)
    for (assignment_, student), entry in first.items():
        gradebook = course.read_scores(assignment_, [student])[student]
        assert {k: tuple(v) for k, v in entry["result"]["scores"].items()} == gradebook
    # run again with the ledger: nothing is graded, nothing is added
    assert _grade(submissions, root, ["--db", url]) == 0
    assert ledger.read_text().splitlines() == lines
    assert submission_counts(url) == handed_in


@pytest.mark.slow
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_the_tests_keep_the_notebooks_order_however_postgresql_keeps_the_rows(graded):
    """PostgreSQL gives a notebook's grades as their rows lie, and an updated row moves (its
    new version is written elsewhere): a class graded on two workers once had summary.md's
    tests in another order than the same class graded on one. The scores come in the source
    notebook's order, whatever the rows' order."""
    import sqlalchemy

    runs, url, _ = graded
    course = Course(runs["postgres"] / "course", url)
    assignment = ASSIGNMENTS[0]
    order = [
        name
        for name in folder_grade_order(course.source_dir(assignment))
        if name in course.read_scores(assignment, ["full_marks"])["full_marks"]
    ]
    assert len(order) > 2
    query = sqlalchemy.text(
        "SELECT g.id FROM grade g JOIN base_cell c ON g.cell_id = c.id "
        "JOIN submitted_notebook n ON g.notebook_id = n.id "
        "JOIN submitted_assignment a ON n.assignment_id = a.id "
        "WHERE a.student_id = 'full_marks' AND c.name = :name"
    )
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.begin() as db:
            for name in reversed(order):  # each row written again, the last test first
                (row,) = db.execute(query, {"name": name}).all()
                db.execute(
                    sqlalchemy.text("UPDATE grade SET auto_score = auto_score WHERE id = :id"),
                    {"id": row.id},
                )
        with engine.connect() as db:
            rows = db.execute(
                sqlalchemy.text(
                    "SELECT c.name FROM grade g JOIN base_cell c ON g.cell_id = c.id "
                    "JOIN submitted_notebook n ON g.notebook_id = n.id "
                    "JOIN submitted_assignment a ON n.assignment_id = a.id "
                    "WHERE a.student_id = 'full_marks' ORDER BY g.ctid"
                )
            ).all()
    finally:
        engine.dispose()
    # the rows' own order, their places in the table (a join without ORDER BY gives its rows
    # in the order of the planner's choice, which the gradebook's indexes and statistics
    # change), is no longer the notebook's
    stored = [r.name for r in rows if r.name in order]
    assert stored != order
    assert list(course.read_scores(assignment, ["full_marks"])["full_marks"]) == order
