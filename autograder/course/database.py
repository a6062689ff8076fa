"""Whether a gradebook's database can be used, told before anything is written: its
SQLAlchemy URL and driver, then a connection (an SQLite file checked without creating or
changing anything)."""

from __future__ import annotations

import os
from pathlib import Path

from autograder.faults import driver_message

#: Seconds an SQLite connection waits for another worker's write before giving up.
SQLITE_BUSY_TIMEOUT = 120


def check_db_url(url: str) -> str | None:
    """Why the gradebook URL *url* cannot be used (one line), or None.

    Checked before anything is written: the URL parses, SQLAlchemy knows its dialect and
    the dialect's driver is installed (``postgresql+psycopg://`` needs psycopg 3). The URL
    itself is not repeated (it may hold a password).
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return "not an SQLAlchemy URL (for example sqlite:///gradebook.db or postgresql+psycopg://user@host/db)"
    try:
        parsed.get_dialect().import_dbapi()
    except NoSuchModuleError:
        return f"SQLAlchemy has no database dialect {parsed.drivername!r}"
    except ImportError as exc:
        return f"the driver of {parsed.drivername!r} is not installed ({exc})"
    return None


#: Seconds a PostgreSQL server (or another server's database) has to answer the check.
CONNECT_TIMEOUT = 10


def gradebook_problem(url: str, *, course_dir: Path | None = None) -> str | None:
    """Why the gradebook URL *url* cannot be used (one line), or None: :func:`check_db_url`,
    then a connection. Checked before anything is released, graded or written.
    ``course_dir``: the course folder the run creates when it is missing, so an SQLite
    gradebook inside it may sit in a folder that does not exist yet.

    An SQLite gradebook is checked without creating or changing anything: an existing file
    is opened read-only and must be a database the grader may write; a new one needs an
    existing folder it may create files in. Any other database is connected to (``SELECT
    1``; a PostgreSQL server gets :data:`CONNECT_TIMEOUT` seconds unless the URL sets
    ``connect_timeout``). The URL itself is not repeated (it may hold a password).
    """
    problem = check_db_url(url)
    if problem is not None:
        return problem
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_problem(parsed.database, course_dir)
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.pool import NullPool

    connect_args = {}
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT
    try:
        engine = create_engine(parsed, poolclass=NullPool, connect_args=connect_args)
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        finally:
            engine.dispose()
    except (SQLAlchemyError, OSError) as exc:
        return f"cannot connect to the gradebook's database: {driver_message(exc)}"
    return None


def _sqlite_problem(database: str | None, course_dir: Path | None = None) -> str | None:
    import sqlite3

    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return "an in-memory SQLite gradebook is not shared by the grading workers: name a file"
    path = Path(database).expanduser()
    if path.exists():
        if not path.is_file():
            return f"the SQLite gradebook {path} is not a file"
        try:
            connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            try:
                connection.execute("PRAGMA schema_version").fetchone()
            finally:
                connection.close()
        except sqlite3.Error as exc:
            return f"cannot open the SQLite gradebook {path}: {exc}"
        if not os.access(path, os.R_OK | os.W_OK):
            return f"the SQLite gradebook {path} is read-only"
        return None
    folder = path.parent
    if course_dir is not None and folder.resolve() == Path(course_dir).resolve():
        while not folder.exists():  # the run makes the course folder: its nearest parent
            folder = folder.parent
    if not folder.is_dir():
        return f"the folder of the SQLite gradebook does not exist: {folder}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot create the SQLite gradebook in {folder}: no permission to write there"
    return None
