"""One database engine per process and gradebook URL, shared by every nbgrader
``Gradebook`` opened in that process.

nbgrader's ``Gradebook(db_url)`` creates a new SQLAlchemy engine (a new connection) on every
open, inspects the database and runs ``create_all`` over its tables, and its ``close``
disposes the engine. Grading one submission opens the gradebook about a dozen times
(nbgrader's converter and preprocessors, ours, the re-check, the grader reading the
scores back): on PostgreSQL that is a new server connection and a round of catalogue
queries each time. nbgrader offers no hook for the engine, so :func:`share_engines` (called
once per grading process: each worker, the grader process) patches the two methods of
``nbgrader.api.Gradebook`` that make and drop it:

- the first open of a URL in a process is nbgrader's own, unchanged (it creates the tables
  and the alembic version of a new gradebook), then keeps its engine for the process;
- every later open of that URL binds a new session to the kept engine, without the
  inspection and ``create_all``, and without nbgrader's ``check_course`` (a query and a
  commit that makes the course's row if it is missing) once this process's engine has
  seen that course's row made;
- ``close`` ends the session (its connection goes back to the engine's pool) and keeps the
  engine.

Engines are keyed by process id as well, so a forked child never uses its parent's
connections; an SQLite file removed and made again gets a new engine; pooled connections
are checked before use (``pool_pre_ping``), so a server restart costs a reconnect, not a
failed grade. What a gradebook stores and reads is nbgrader's, unchanged: only the
connection is reused.

:func:`open_stats` counts this process's opens and the time spent in them (the scale
benchmark prints them).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from autograder import phases

#: (process id, URL) -> (the engine every Gradebook of that URL in that process uses, the
#: identity of its SQLite file).
_ENGINES: dict[tuple[int, str], tuple[Any, tuple[int, int] | None]] = {}
_LOCK = threading.Lock()
#: (process id, URL, course id) whose course row this process's engine has seen made.
_COURSES: set[tuple[tuple[int, str], str]] = set()
_STATS = {"opens": 0, "seconds": 0.0}
_ORIGINAL: dict[str, Any] = {}


def _shared_init(
    self: Any, db_url: str, course_id: str = "default_course", authenticator: Any = None
) -> None:
    from sqlalchemy import create_engine
    from sqlalchemy.orm import scoped_session, sessionmaker

    start = time.perf_counter()
    key = (os.getpid(), db_url)
    identity = _sqlite_file(db_url)
    with _LOCK:
        engine, known = _ENGINES.get(key, (None, None))
        if engine is None or identity != known:
            # nbgrader's own first open: creates the tables (and alembic's version) of a new
            # gradebook, exactly as without this module; its engine is then replaced by the
            # process's shared one (same URL, same options, a pool checked before use)
            _ORIGINAL["__init__"](self, db_url, course_id, authenticator)
            self.db.remove()
            self.engine.dispose()
            if engine is not None:
                engine.dispose()
            engine = create_engine(db_url, echo=False, future=True, pool_pre_ping=True)
            _ENGINES[key] = (engine, _sqlite_file(db_url))
            _COURSES.difference_update([c for c in _COURSES if c[0] == key])
            _COURSES.add((key, course_id))  # nbgrader's open checked the course
    self.engine = engine
    self.db = scoped_session(sessionmaker(autoflush=True, bind=engine, future=True))
    if (key, course_id) not in _COURSES:
        # nbgrader's check_course: the course's row made if missing (a query and a
        # commit); once it is there, later opens on this engine need not ask again
        self.check_course(course_id=course_id)
        _COURSES.add((key, course_id))
    self.course_id = course_id
    self.authenticator = authenticator
    _STATS["opens"] += 1
    _STATS["seconds"] += time.perf_counter() - start


def _sqlite_file(db_url: str) -> tuple[int, int] | None:
    """(device, inode) of an SQLite gradebook's file, None if it has none (yet) or the URL is
    not SQLite's: a gradebook file removed and made again under the same name (a course
    directory made afresh) gets a new engine, not the old file's open connection."""
    if not db_url.startswith("sqlite:///"):
        return None
    from sqlalchemy.engine import make_url

    try:
        info = os.stat(make_url(db_url).database or "")
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _shared_close(self: Any) -> None:
    # nbgrader's close also disposes the engine; the shared one stays for the next open
    self.db.remove()


def share_engines() -> None:
    """Make every ``nbgrader.api.Gradebook`` opened in this process from now on reuse one
    engine per URL (see the module docstring). Idempotent."""
    from nbgrader.api import Gradebook

    with _LOCK:
        if _ORIGINAL:
            return
        _ORIGINAL["__init__"] = Gradebook.__init__
        _ORIGINAL["close"] = Gradebook.close
        Gradebook.__init__ = _shared_init
        Gradebook.close = _shared_close
        if phases.enabled():
            _time_gradebook(Gradebook)


def _time_gradebook(gradebook: type) -> None:
    """With the profile on (:mod:`autograder.phases`): every open, method and query of a
    Gradebook timed as the phase ``gradebook`` (the methods wrapped: what they commit
    counts; SQLAlchemy's cursor events: queries made outside them, a lazy load)."""
    import functools
    import inspect

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    def timed(method: Any) -> Any:
        @functools.wraps(method)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with phases.phase(phases.GRADEBOOK):
                return method(*args, **kwargs)

        return wrapper

    for name, value in list(vars(gradebook).items()):
        if inspect.isfunction(value) and (not name.startswith("_") or name == "__init__"):
            setattr(gradebook, name, timed(value))

    def before(conn: Any, *_: Any) -> None:
        timer = phases.phase(phases.GRADEBOOK)
        timer.__enter__()
        conn.info.setdefault("autograder_phases", []).append(timer)

    def after(conn: Any, *_: Any) -> None:
        timers = conn.info.get("autograder_phases")
        if timers:
            timers.pop().__exit__(None, None, None)

    def failed(context: Any) -> None:
        after(context.connection)

    event.listen(Engine, "before_cursor_execute", before)
    event.listen(Engine, "after_cursor_execute", after)
    event.listen(Engine, "handle_error", failed)


def unshare_engines() -> None:
    """Undo :func:`share_engines`: nbgrader's own open and close again, this process's shared
    engines disposed (for tests and the benchmark's before/after)."""
    from nbgrader.api import Gradebook

    with _LOCK:
        if not _ORIGINAL:
            return
        Gradebook.__init__ = _ORIGINAL.pop("__init__")
        Gradebook.close = _ORIGINAL.pop("close")
        for key in [key for key in _ENGINES if key[0] == os.getpid()]:
            _ENGINES.pop(key)[0].dispose()
        _COURSES.difference_update([c for c in _COURSES if c[0][0] == os.getpid()])


def open_stats() -> dict[str, float]:
    """This process's gradebook opens through the shared engines so far: ``opens`` and the
    ``seconds`` spent in them."""
    return dict(_STATS)
