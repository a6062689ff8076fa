"""Machine faults: the one place that tells a failure of the machine the grader runs on from
what a student's notebook caused.

A submission that fails because of its own notebook (an error, a time-out, a corrupt file,
a hostile trick) has earned that result: it is flagged, recorded in the ledger and reused.
A failure of the machine — :func:`classify` lists them — is not the student's: nothing is
recorded, so the next run grades that submission again, and the run ends with exit status 1
and one line saying what happened and what to do (:class:`~autograder.models.GraderFault`).

========================  ==========================================================  =====
fault                     what raises it                                              stops
========================  ==========================================================  =====
no space left on device   ``OSError`` ENOSPC or EDQUOT; SQLite's ``SQLITE_FULL``       yes
                          ("database or disk is full")
the disk failed           ``OSError`` EIO or EROFS                                     yes
out of memory             ``OSError`` ENOMEM (a process could not start)               no
too many open files       ``OSError`` EMFILE or ENFILE                                 no
the gradebook is locked   SQLite's ``SQLITE_BUSY`` ("database is locked": another      yes
                          program holds a write transaction past the busy timeout)
the gradebook cannot be   any other ``OperationalError``/``InterfaceError`` of         yes
used                      SQLAlchemy, sqlite3 or psycopg (a lost connection, a server
                          that went away)
the workers' pool broke   ``BrokenProcessPool``                                        yes
the grading worker died   pebble's ``ProcessExpired``, Dask's ``KilledWorker``         no
========================  ==========================================================  =====

A fault that *stops* the run ends it at once (the submissions in flight are not recorded,
the outputs keep their old files); one that does not (a worker that died, a process short of
memory) costs only its own submission in this run: flagged "not graded", the rest of the
class graded and written, exit status 1, and graded again by the next run. In the grader's
own process every fault stops the run. Everything else is the submission's own.

nbgrader's converters catch a notebook's exception and log its traceback as text;
:func:`recording_exceptions` keeps the exception objects themselves (a logging handler that
reads ``sys.exc_info()`` while nbgrader's ``except`` block logs), so a fault is classified by
its type and errno (SQLite's: its result code), never by text a student's notebook could
forge.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import sys
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autograder.text import first_line

#: What to do after any fault, besides its own advice.
AGAIN = "run the same command again; nothing graded is lost"


@dataclass(frozen=True)
class Fault:
    """A failure of the machine: ``what`` happened (one phrase), ``advice`` (what to do
    first, may be empty), ``fatal`` (the run stops), ``where`` (the file or the database it
    happened in, when known)."""

    what: str
    advice: str = ""
    fatal: bool = True
    where: str = ""

    def message(self, doing: str = "") -> str:
        """One line: what happened, while ``doing`` what (e.g. "writing grades.csv"), where,
        and what to do."""
        text = self.what + (f" {self.where}" if self.where.startswith("writing ") else "")
        text += f" {doing}" if doing else ""
        if self.where and self.where not in text:
            text += f" ({self.where})"
        advice = f"{self.advice} and " if self.advice else ""
        return f"{text}: {advice}{AGAIN}"

    def to_dict(self) -> dict[str, Any]:
        """Plain data (a grading worker sends it back with its outcome)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        return cls(**data)


_NO_SPACE = ("no space left on device", "free space on it")
#: errno -> (what, advice, fatal): a disk that failed stops the run; a process that could
#: not get memory or a file descriptor costs (in a grading worker) its own submission only
_OS_FAULTS = {
    errno.ENOSPC: (*_NO_SPACE, True),
    errno.EDQUOT: (*_NO_SPACE, True),
    errno.EIO: ("the disk failed (input/output error)", "check the disk", True),
    errno.EROFS: ("the file system is read-only", "make it writable", True),
    errno.ENOMEM: ("out of memory", "free memory", False),
    errno.EMFILE: ("too many open files", "raise the limit (ulimit -n)", False),
    errno.ENFILE: ("too many open files on this machine", "close some programs", False),
}
#: The faults of the disk written to (of a copy's two files, the destination's).
_WRITING = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})
#: The database errors of a gradebook that cannot be used (not a notebook's doing):
#: (module, class name) anywhere in the exception's class hierarchy.
_DATABASE_FAULTS = {
    ("sqlalchemy.exc", "OperationalError"),
    ("sqlalchemy.exc", "InterfaceError"),
    ("sqlalchemy.exc", "DisconnectionError"),
    ("sqlalchemy.exc", "TimeoutError"),
    ("sqlite3", "OperationalError"),
    ("sqlite3", "InterfaceError"),
    ("psycopg", "OperationalError"),
    ("psycopg", "InterfaceError"),
}


def _kinds(exc: BaseException) -> set[tuple[str, str]]:
    return {(cls.__module__, cls.__name__) for cls in type(exc).__mro__}


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    """``exc``, then what caused it (``__cause__``, else ``__context__``), and so on."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _classify_one(exc: BaseException) -> Fault | None:
    kinds = _kinds(exc)
    names = {name for _, name in kinds}
    if "ProcessExpired" in names:  # pebble: the worker process died (an OSError)
        code = getattr(exc, "exitcode", None)
        return Fault(f"the grading worker died (exit code {code})", fatal=False)
    if ("distributed.scheduler", "KilledWorker") in kinds:
        return Fault("the Dask workers grading it kept dying", fatal=False)
    if "BrokenProcessPool" in names:
        return Fault("the grading workers' pool broke", "see the logs in the course folder")
    if isinstance(exc, OSError) and exc.errno in _OS_FAULTS:
        what, advice, fatal = _OS_FAULTS[exc.errno]
        named = exc.filename
        if exc.errno in _WRITING and isinstance(exc.filename2, str):
            # of the two files of a copy, a rename or a link, the one written: its disk is
            # the full (or read-only) one (shutil.copyfile names the source first)
            named = exc.filename2
        where = shown_path(named) if isinstance(named, str) else ""
        return Fault(what, advice, fatal, where)
    if kinds & _DATABASE_FAULTS:
        import sqlite3

        # SQLite's result code (the driver's error, under SQLAlchemy's wrapper; its extended
        # codes add bits above the primary code's 8)
        code = getattr(getattr(exc, "orig", None) or exc, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        if primary == sqlite3.SQLITE_FULL:  # "database or disk is full"
            return Fault(*_NO_SPACE, where="writing the gradebook")
        if primary == sqlite3.SQLITE_BUSY:  # "database is locked"
            return Fault(
                "the gradebook is locked by another program (SQLite: database is locked)",
                "close the program that holds it (a formgrader, an sqlite3 shell)",
            )
        return Fault(
            f"the gradebook cannot be used ({driver_message(exc, 200)})", "check the database"
        )
    return None


def driver_message(exc: BaseException, limit: int | None = None) -> str:
    """The database driver's own message of a database error, its first line (SQLAlchemy's
    wrapper adds the statement and a link), cut to ``limit`` characters."""
    return first_line(getattr(exc, "orig", None) or exc, limit)


def classify(exc: BaseException | None) -> Fault | None:
    """The machine fault ``exc`` is, or was caused by (its ``__cause__``/``__context__``
    chain), or None when it is not one (the submission's own failure)."""
    for link in _chain(exc):
        fault = _classify_one(link)
        if fault is not None:
            return fault
    return None


def first_fault(excs: Iterable[BaseException | None]) -> Fault | None:
    """The first machine fault among ``excs`` (see :func:`classify`), or None."""
    for exc in excs:
        fault = classify(exc)
        if fault is not None:
            return fault
    return None


class _Recorder(logging.Handler):
    """Keeps the exception being handled whenever an error is logged (nbgrader logs a
    failed notebook's traceback from inside its ``except`` block)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[BaseException] = []

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else sys.exc_info()[1]
        if exc is not None and all(exc is not e for e in self.seen):
            self.seen.append(exc)


@contextlib.contextmanager
def recording_exceptions(app: Any) -> Iterator[list[BaseException]]:
    """Within the block, the exceptions of an nbgrader application ``app`` (a converter run
    through nbgrader's ``capture_log``, which keeps only their text) are appended to the
    yielded list, for :func:`first_fault`: each exception being handled when ``app.log``
    logs an error (nbgrader logs a failed notebook's traceback from its ``except`` block),
    and the one ``app.start()`` raises."""
    logger = app.log.logger if isinstance(app.log, logging.LoggerAdapter) else app.log
    recorder = _Recorder()
    start = app.start

    def recorded_start(*args: Any, **kwargs: Any) -> Any:
        try:
            return start(*args, **kwargs)
        except BaseException as exc:
            if all(exc is not e for e in recorder.seen):
                recorder.seen.append(exc)
            raise

    own = "start" in vars(app)  # set on the instance (else the class's method)
    logger.addHandler(recorder)
    app.start = recorded_start
    try:
        yield recorder.seen
    finally:
        logger.removeHandler(recorder)
        if own:
            app.start = start
        else:
            del app.start


@contextlib.contextmanager
def faults_as_errors(doing: str = "") -> Iterator[None]:
    """Turn a machine fault raised in the block into a
    :class:`~autograder.models.GraderFault` whose message says what happened ``doing`` what
    (e.g. "writing grades.csv") and what to do; anything else passes through."""
    from autograder.models import GraderFault

    try:
        yield
    except GraderFault:
        raise
    except Exception as exc:
        fault = classify(exc)
        if fault is None:
            raise
        raise GraderFault(fault.message(doing), fault) from exc


def shown_path(path: str | Path) -> str:
    """``path`` relative to the working directory when it lies inside it (no folder of the
    machine shown), else as it is."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)
