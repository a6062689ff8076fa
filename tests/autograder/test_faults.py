"""autograder.faults: what counts as a failure of the machine (never recorded as a student's
result) and what is the notebook's own, told by the exceptions' types, not their text."""

from __future__ import annotations

import errno
import sqlite3
from concurrent.futures.process import BrokenProcessPool

import nbformat
import pytest
from nbformat.reader import NotJSONError
from pebble import ProcessExpired
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError, OperationalError

from autograder.faults import AGAIN, Fault, classify, faults_as_errors, recording_exceptions
from autograder.models import GraderFault


def _locked(tmp_path) -> OperationalError:
    """A real "database is locked" from SQLAlchemy: another connection holds a write."""
    path = tmp_path / "gradebook.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO t VALUES (1)")
    engine = create_engine(f"sqlite:///{path}?timeout=0.1")
    try:
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO t VALUES (2)"))
    except OperationalError as exc:
        return exc
    finally:
        holder.execute("ROLLBACK")
        engine.dispose()
    raise AssertionError("not locked")


def _full(tmp_path) -> OperationalError:
    """A real "database or disk is full" from SQLAlchemy: the file may not grow past two
    pages."""
    engine = create_engine(f"sqlite:///{tmp_path / 'small.db'}")
    try:
        with engine.begin() as connection:
            connection.execute(text("PRAGMA max_page_count = 2"))
            connection.execute(text("CREATE TABLE t (x)"))
            for _ in range(10):
                connection.execute(text("INSERT INTO t VALUES (:x)"), {"x": b"x" * 4000})
    except OperationalError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("not full")


def test_machine_faults(tmp_path):
    full = classify(OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "x")))
    assert full.what == "no space left on device" and full.fatal
    assert classify(OSError(errno.EDQUOT, "Disk quota exceeded")).what == full.what
    # a copy onto a full disk (shutil.copyfile's: the source, then the file written) names
    # the file written; an input/output error, the first
    copied = OSError(errno.ENOSPC, "No space left on device", "/src/a.js", None, "/dst/a.js")
    assert classify(copied).where == "/dst/a.js"
    read = OSError(errno.EIO, "Input/output error", "/src/a.js", None, "/dst/a.js")
    assert classify(read).where == "/src/a.js"
    assert classify(OSError(errno.EIO, "I/O error")).fatal
    locked = classify(_locked(tmp_path))
    assert locked.what.startswith("the gradebook is locked by another program") and locked.fatal
    gradebook_full = classify(_full(tmp_path))
    assert gradebook_full.what == full.what and gradebook_full.where == "writing the gradebook"
    died = classify(ProcessExpired("Abnormal termination", code=-9))
    assert died.what == "the grading worker died (exit code -9)" and not died.fatal
    assert classify(BrokenProcessPool("gone")).fatal
    # a cause further down the chain counts
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as inner:
            raise RuntimeError("nbgrader failed") from inner
    except RuntimeError as outer:
        assert classify(outer).what == "no space left on device"


def test_the_notebooks_own_failures(tmp_path):
    """What a notebook causes is not a fault of the machine, whatever its text says."""
    corrupt = tmp_path / "corrupt.ipynb"
    corrupt.write_text('{"cells": [')
    with pytest.raises(NotJSONError) as raised:
        nbformat.read(corrupt, as_version=4)
    assert classify(raised.value) is None
    assert classify(ValueError("OSError: [Errno 28] No space left on device")) is None
    assert classify(RuntimeError("database is locked")) is None
    # a database error is told by SQLite's result code, not by its words
    worded = classify(sqlite3.OperationalError("database is locked"))
    assert worded.what.startswith("the gradebook cannot be used")
    assert classify(TimeoutError("grading took longer than 900 s")) is None
    assert classify(OSError(errno.ENOENT, "No such file or directory")) is None
    assert classify(IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed"))) is None
    assert classify(None) is None


def test_messages_say_what_happened_and_what_to_do():
    fault = Fault("no space left on device", "free space on it")
    assert fault.message("writing grades.csv") == (
        f"no space left on device writing grades.csv: free space on it and {AGAIN}"
    )
    assert Fault.from_dict(fault.to_dict()) == fault
    with pytest.raises(GraderFault) as raised:
        with faults_as_errors("writing summary.md"):
            raise OSError(errno.ENOSPC, "No space left on device")
    assert str(raised.value).startswith("no space left on device writing summary.md: ")
    with pytest.raises(KeyError):  # anything else passes through
        with faults_as_errors("writing summary.md"):
            raise KeyError("x")


def test_exceptions_nbgrader_only_logs_are_kept(tmp_path):
    """nbgrader catches a notebook's exception and logs its traceback as text; the recorder
    keeps the exception object, and the one app.start() raises."""
    from nbgrader.converters import Autograde
    from nbgrader.utils import capture_log

    app = Autograde()

    def start():
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            app.log.error("There was an error processing assignment")  # as nbgrader does
        raise RuntimeError("Please see the above traceback")

    app.start = start
    with recording_exceptions(app) as seen:
        result = capture_log(app)
    assert not result["success"]
    assert [type(e) for e in seen] == [OSError, RuntimeError]
    assert classify(seen[0]).what == "no space left on device"
    assert app.start is start  # the app is left as it was
