"""autograder.course.database: a gradebook URL checked before use (its parsing, dialect
and driver; the connections and SQLite's folders through the command line:
tests/autograder/test_db_check.py)."""

from __future__ import annotations


def test_gradebook_urls_checked_before_use(tmp_path):
    from autograder.course import check_db_url

    # usable: the embedded SQLite file, and PostgreSQL through psycopg 3 (installed)
    assert check_db_url(f"sqlite:///{tmp_path / 'gradebook.db'}") is None
    assert check_db_url("postgresql+psycopg://grader@localhost/course") is None
    assert "not an SQLAlchemy URL" in check_db_url("gradebook.db")
    assert "no database dialect" in check_db_url("nosuchdb://x/y")
    problem = check_db_url("postgresql+psycopg2://grader:secret@localhost/course")
    assert "not installed" in problem and "secret" not in problem
