"""The course: an nbgrader course directory built from the repository's notebooks, its
configuration (loaded once, in :class:`Course`), the nbgrader release of an assignment, and
the gradebook.

Layout of a course directory made by :meth:`Course.make`::

    <course_dir>/nbgrader_config.py        same settings as the repository's nbgrader_config.py
                                           (+ formgrader's: grading.formgrader_config)
    <course_dir>/source/<assignment>/...   copy of the repository's notebooks/<assignment>/
    <course_dir>/release/<assignment>/...  student versions (generate_assignment)
    <course_dir>/submitted/<student>/<assignment>/<notebook>.ipynb
    <course_dir>/autograded/..., feedback/...
    <course_dir>/feedback/_mathjax/        MathJax, for the feedback pages and formgrader
    <course_dir>/gradebook.db              nbgrader's gradebook (SQLite, busy timeout set)
    <course_dir>/ledger.jsonl              graded submissions, for resuming (grading.ledger)
    <course_dir>/logs/                     the workers' and kernels' stderr
    <course_dir>/.lock                     held by the run using the directory (Course.lock)

Everything here drives nbgrader 0.9's own classes (``GenerateAssignment``, ``Validator``,
the ``Gradebook``); nothing of nbgrader's logic is re-implemented.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import fcntl
import functools
import os
import shutil
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from nbformat import NotebookNode
from traitlets.config import Config

from autograder import COURSE_DIR
from autograder.faults import driver_message, first_fault, recording_exceptions
from autograder.files import write_atomic
from autograder.models import CourseBusy, GraderFault, GradingError
from autograder.notebook import folder_grade_order
from autograder.source import COURSE_DATA, RECORD_NAME, CourseSource, SourceError
from course_common.paths import NOTEBOOKS_DIR, REPO_ROOT

if TYPE_CHECKING:
    from nbgrader.api import Gradebook, SubmittedAssignment

#: Where the command line builds the course directory unless told otherwise.
DEFAULT_COURSE_DIR = COURSE_DIR


REPO_CONFIG = REPO_ROOT / "nbgrader_config.py"


#: Seconds an SQLite connection waits for another worker's write before giving up.
SQLITE_BUSY_TIMEOUT = 120


_STEP_DIRS = {
    "source_directory": "source",
    "release_directory": "release",
    "submitted_directory": "submitted",
    "autograded_directory": "autograded",
    "feedback_directory": "feedback",
    "solution_directory": "solution",
    "source_with_tests_directory": "source_with_tests",
}


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


def prepare_nbgrader() -> None:
    """Ready this process for nbgrader's gradebook: this environment's ``bin/`` on ``PATH``
    (nbgrader's commands; calling .venv/bin/python directly does not put it there), and the
    schema revision nbgrader writes into a new gradebook read here, in this process.

    nbgrader's ``Gradebook`` asks for that revision by running ``alembic heads`` in a
    subprocess (``nbgrader.api.get_alembic_version``) whenever it creates a gradebook: a
    Python start that imports nbgrader again, about 3 s, for every new course. The same
    revision is read with alembic's own API from the same scripts (nbgrader's alembic.ini),
    once per process. Idempotent."""
    bin_dir = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if bin_dir not in path.split(os.pathsep):
        os.environ["PATH"] = bin_dir + (os.pathsep + path if path else "")
    import nbgrader.api

    nbgrader.api.get_alembic_version = alembic_head


@functools.cache
def alembic_head() -> str:
    """The head revision of nbgrader's gradebook migrations (what ``alembic heads`` prints
    for nbgrader's alembic.ini), read with alembic's API."""
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite://") as ini:
        head = ScriptDirectory.from_config(AlembicConfig(ini)).get_current_head()
    if not head:
        raise GradingError("nbgrader's gradebook migrations have no head revision")
    return head


def default_source() -> CourseSource:
    """This repository's course: ``notebooks/`` and the repository's ``nbgrader_config.py``
    (read when called, so a test may point :data:`NOTEBOOKS_DIR` at a snapshot)."""
    return CourseSource.this_course(NOTEBOOKS_DIR, REPO_CONFIG)


def recorded_source(root: Path) -> CourseSource | None:
    """The source a course folder was built from (:meth:`Course.make` records it), or None
    for a folder not built yet (or built before the record existed: this course)."""
    try:
        return CourseSource.from_record((Path(root) / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def open_course(
    path: str | os.PathLike, db_url: str | None = None, source: CourseSource | None = None
) -> Course:
    """The course folder *path* for a run of *source* (None: the course it was built from,
    else this repository's). A folder built from another course is refused
    (:class:`SourceError`, one line): its gradebook and grades are that course's."""
    root = Path(path).resolve()
    recorded = recorded_source(root)
    if source is not None:
        built = (
            recorded
            if recorded is not None
            else (
                default_source()
                if (root / "gradebook.db").exists() or (root / "source").is_dir()
                else None
            )
        )
        if built is not None and not built.same_as(source):
            raise SourceError(
                f"the course folder {root.name}/ holds the course of {built.describe()}, not "
                f"{source.describe()}: give another --course for it (or the same --source)"
            )
    return Course(root, db_url, source)


#: A copy of the course's header and footer notebooks, in the course folder.
HEADERS_DIR = "headers"


def _course_config(root: Path, db_url: str | None, source: CourseSource) -> Config:
    """The course's own nbgrader settings with this course directory's paths and gradebook
    URL (and, where nbgrader reads a file of the source, the course folder's copy of it)."""
    config = source.config()
    config.CourseDirectory.root = str(root)
    for trait, name in _STEP_DIRS.items():
        setattr(config.CourseDirectory, trait, name)
    if db_url and db_url.startswith("sqlite") and "timeout=" not in db_url:
        db_url += ("&" if "?" in db_url else "?") + f"timeout={SQLITE_BUSY_TIMEOUT}"
    # Default: the embedded SQLite gradebook, with a busy timeout that lets parallel
    # workers wait for each other's short writes instead of failing with "database is
    # locked".
    config.CourseDirectory.db_url = (
        db_url or f"sqlite:///{root / 'gradebook.db'}?timeout={SQLITE_BUSY_TIMEOUT}"
    )
    # The notebooks under source/ are copies; students' extra files must not be graded.
    # What the course keeps for the grader beside a notebook (its catalogue of
    # misconceptions, its sample answers) is not released, nor copied to a graded folder.
    ignore = [*source.ignore(), *COURSE_DATA]
    config.CourseDirectory.ignore = list(dict.fromkeys(ignore))
    for trait in source.header_footer():
        setattr(config.IncludeHeaderFooter, trait, str(root / HEADERS_DIR / f"{trait}.ipynb"))
    return config


def _literal(value: object) -> bool:
    """A setting Python's ``repr`` writes back as the same value."""
    import ast

    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _write_config_file(course_dir: Path, config: Config, *, stock: bool = False) -> None:
    # A real nbgrader_config.py so that stock `nbgrader ...` commands work in this directory
    # too (the benchmark runs the stock CLI); paths are this run's, never committed.
    lines = [
        '"""nbgrader configuration written by autograder.course (Course.make)."""',
        "",
        "c = get_config()  # noqa: F821",
    ]
    first = ("CourseDirectory", "ClearSolutions", "ClearHiddenTests", "Execute")
    others = sorted(name for name in config if name not in first)
    for section in (*first, *others):
        if section not in config or not isinstance(config[section], Config):
            continue
        for key, value in sorted(config[section].items()):
            if key == "root" or not _literal(value):
                continue  # a class or a function of the course's file: not written again
            lines.append(f"c.{section}.{key} = {value!r}")
    if stock:  # plain nbgrader, as its users run it: the benchmark's baseline
        write_atomic(course_dir / "nbgrader_config.py", "\n".join(lines) + "\n")
        return
    lines += [
        "",
        "# nbgrader's formgrader (jupyter lab in this folder) renders a submission sanitised and",
        "# its Generate feedback makes the pages `python -m autograder grade` makes",
        "from pathlib import Path  # noqa: E402",
        "",
        "from autograder.course import Course  # noqa: E402",
        "from autograder.grading import formgrader_config  # noqa: E402",
        "",
        "c.merge(formgrader_config(Course(Path(__file__).parent)))",
    ]
    write_atomic(course_dir / "nbgrader_config.py", "\n".join(lines) + "\n")


#: The lock file of a course directory (:meth:`Course.lock`).
LOCK_NAME = ".lock"
#: course root -> [thread holding its lock in this process, depth]: a use case that calls
#: another (the demo grades) takes the lock once.
_HELD: dict[Path, list[int]] = {}
_HELD_LOCK = threading.Lock()


def lock_holder(path: Path) -> int | None:
    """The process id holding the ``flock`` on ``path`` (Linux's ``/proc/locks``), else the
    id the holder wrote into the file, else None."""
    try:
        info = os.stat(path)
        with open("/proc/locks", encoding="ascii") as fh:
            for line in fh:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 4711 fd:01:1234 0 EOF" ("->" marks a waiter)
                if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
                    continue
                major, minor, inode = fields[5].split(":")
                if (int(inode), int(major, 16), int(minor, 16)) == (
                    info.st_ino,
                    os.major(info.st_dev),
                    os.minor(info.st_dev),
                ):
                    return int(fields[4])
    except (OSError, ValueError):
        pass
    try:
        text = path.read_text(encoding="ascii").strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None


def _ship_mathjax(course_dir: Path) -> None:
    """MathJax in ``feedback/_mathjax/`` of the course directory, when the lecture's npm
    assets are installed: what the course's own feedback pages load (from beside them)
    and what formgrader's submission view loads (through the Jupyter server's ``/files/``,
    :data:`autograder.grading.config.FORMGRADER_MATHJAX_URL`), so neither needs a network.
    Hard links to ``node_modules/`` where the file system allows (no copy per course)."""
    from course_common.assets import FEEDBACK_MATHJAX, copy_mathjax, mathjax_available

    if mathjax_available():
        copy_mathjax(course_dir / "feedback" / FEEDBACK_MATHJAX, link=True)


def id_length_limit() -> int:
    """The longest student id nbgrader's gradebook stores (its id columns' length; SQLite
    ignores it, PostgreSQL refuses a longer one)."""
    from nbgrader.api import Student

    return Student.__table__.c.id.type.length


def list_assignments(source_dir: str | os.PathLike | None = None) -> list[str]:
    """Assignments in a notebooks folder: ``<name>/<name>.ipynb``, sorted by name."""
    root = Path(source_dir) if source_dir is not None else NOTEBOOKS_DIR
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}.ipynb").is_file())


#: Indexes the gradebook's tables lack (nbgrader's unique constraints start with another
#: column), each on a column nbgrader's own scores look up row by row: a submission's
#: notebooks, a notebook's grades and comments, a student's submissions. Without them every
#: score PostgreSQL or SQLite computes reads the whole table: 10,000 students' reports took
#: minutes. Extra indexes change nothing nbgrader reads or writes.
GRADEBOOK_INDEXES = {
    "ix_autograder_submitted_notebook_assignment": ("submitted_notebook", "assignment_id"),
    "ix_autograder_grade_notebook": ("grade", "notebook_id"),
    "ix_autograder_comment_notebook": ("comment", "notebook_id"),
    "ix_autograder_submitted_assignment_student": ("submitted_assignment", "student_id"),
}


def load_submissions(
    gb: Gradebook, assignments: Iterable[str]
) -> dict[tuple[str, str], SubmittedAssignment]:
    """Every submission of ``assignments`` in the gradebook ``gb``, keyed (assignment,
    student), as nbgrader's ``find_submission`` gives it, with what the reports read already
    loaded: its notebooks and their grades, and the scores nbgrader computes in SQL (a
    submission's score and late penalty, a notebook's score and maximum, a grade's maximum).

    A handful of queries for the whole class: ``find_submission`` costs one query per
    submission and one more per score read (about ten a student for recording the
    penalties, what awaits manual grading and grades.csv; 100 s of 10,000 students' run)."""
    from nbgrader.api import Assignment, Grade, Student, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy.orm import contains_eager, selectinload, undefer

    names = sorted(set(assignments))
    if not names:
        return {}
    query = (
        gb.db.query(SubmittedAssignment)
        .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
        .join(Student, Student.id == SubmittedAssignment.student_id)
        .filter(Assignment.name.in_(names))
        .options(
            contains_eager(SubmittedAssignment.assignment),
            contains_eager(SubmittedAssignment.student),
            undefer(SubmittedAssignment.score),
            undefer(SubmittedAssignment.late_submission_penalty),
            selectinload(SubmittedAssignment.notebooks).options(
                undefer(SubmittedNotebook.score),
                undefer(SubmittedNotebook.max_score),
                selectinload(SubmittedNotebook.grades).options(undefer(Grade.max_score)),
            ),
        )
    )
    return {(s.assignment.name, s.student.id): s for s in query}


class Course:
    """An nbgrader course directory and its configuration, loaded once.

    Parameters
    ----------
    path : path
        The course directory (it need not exist yet: :meth:`make` builds it).
    db_url : str, optional
        Any SQLAlchemy URL for the gradebook; default an SQLite file in the directory
        (``gradebook.db``). An SQLite URL gets a busy timeout unless it has one.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        db_url: str | None = None,
        source: CourseSource | None = None,
    ) -> None:
        self.root = Path(path).resolve()
        #: the course's source: given, else the one the folder was built from, else this
        #: repository's notebooks
        recorded = recorded_source(self.root) if source is None else None
        if recorded is not None and recorded.own:
            recorded = None  # this repository's course: its notebooks/ where they are now
        self.source = source or recorded or default_source()
        self._config = _course_config(self.root, db_url, self.source)

    def __repr__(self) -> str:
        return f"Course({str(self.root)!r}, {self.db_url!r})"

    def __reduce__(self):
        # sent to grading workers: rebuilt there from the path and the resolved URL
        return (Course, (str(self.root), self.db_url, self.source))

    @property
    def db_url(self) -> str:
        """The gradebook's SQLAlchemy URL (with the SQLite busy timeout)."""
        return self._config.CourseDirectory.db_url

    @property
    def course_id(self) -> str:
        """nbgrader's course id (the repository's configuration names it)."""
        return self._config.CourseDirectory.get("course_id", "default_course")

    def config(self) -> Config:
        """A copy of the nbgrader configuration, for a converter to add its settings to."""
        return copy.deepcopy(self._config)

    # ----------------------------------------------------------------------- folders

    def source_dir(self, assignment: str) -> Path:
        """``source/<assignment>``: the copy of the assignment's source notebooks."""
        return self.root / "source" / assignment

    def submitted_dir(self, student: str, assignment: str) -> Path:
        """``submitted/<student>/<assignment>``: where a submission is written."""
        return self.root / "submitted" / student / assignment

    def autograded_dir(self, student: str, assignment: str) -> Path:
        """``autograded/<student>/<assignment>``: nbgrader's graded notebooks."""
        return self.root / "autograded" / student / assignment

    def feedback_dir(self, student: str, assignment: str) -> Path:
        """``feedback/<student>/<assignment>``: nbgrader's feedback pages."""
        return self.root / "feedback" / student / assignment

    # ----------------------------------------------------------------------- one run at a time

    @contextlib.contextmanager
    def lock(
        self, *, wait: bool = True, on_wait: Callable[[int | None], None] | None = None
    ) -> Iterator[None]:
        """Hold this course directory for one run: an exclusive ``flock`` on ``<course>/.lock``.

        Another run holding it: with ``wait``, ``on_wait(its process id or None)`` is called
        once (default: a line on stderr saying so) and this one waits for it; without,
        :class:`CourseBusy` at once. The lock is
        the operating system's: it goes with the process that holds it, however that process
        ends (SIGKILL included), so a lock file left behind is no obstacle. Re-entrant in the
        thread that holds it (a use case calling another); grading workers and Dask workers
        take none (the grader that drives them holds it).
        """
        root = self.root
        with _HELD_LOCK:
            held = _HELD.get(root)
            if held is not None and held[0] == threading.get_ident():
                held[1] += 1
                nested = True
            else:
                nested = False
        if nested:
            try:
                yield
            finally:
                with _HELD_LOCK:
                    _HELD[root][1] -= 1
            return
        root.mkdir(parents=True, exist_ok=True)
        path = root / LOCK_NAME
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = lock_holder(path)
                if not wait:
                    who = f"process {pid}" if pid else "another process"
                    raise CourseBusy(
                        f"another run ({who}) is using the course folder {root.name}/", pid
                    ) from None
                (on_wait or self._say_waiting)(pid)
                fcntl.flock(fd, fcntl.LOCK_EX)
            with contextlib.suppress(OSError):  # only informative: a full disk may refuse it
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            with _HELD_LOCK:
                _HELD[root] = [threading.get_ident(), 1]
            try:
                yield
            finally:
                with _HELD_LOCK:
                    _HELD.pop(root, None)
        finally:
            os.close(fd)  # releases the lock

    def _say_waiting(self, pid: int | None) -> None:
        who = f"process {pid}" if pid else "another process"
        print(
            f"waiting for the other run using the course folder {self.root.name}/ ({who}) "
            "to finish",
            file=sys.stderr,
            flush=True,
        )

    # ----------------------------------------------------------------------- make, release

    def make(
        self,
        assignments: Iterable[str] | None = None,
        *,
        source_dir: str | os.PathLike | None = None,
        stock: bool = False,
    ) -> Course:
        """Create (or refresh) the directory with a copy of the source notebooks.

        Parameters
        ----------
        assignments : iterable of str, optional
            Assignment names (folders of ``source_dir``); default all of them.
        source_dir : path, optional
            Folder of source assignments; default the repository's ``notebooks/``.
        stock : bool
            Leave formgrader's settings (the sanitised views) out of ``nbgrader_config.py``:
            a course for stock nbgrader alone, the benchmarks' baseline.

        Returns
        -------
        Course
            This course (idempotent). Also writes an ``nbgrader_config.py`` with this
            course's settings (its gradebook URL included).
        """
        source = self.source
        if source_dir is not None:  # another folder of the same course's assignments
            source = dataclasses.replace(source, folder=Path(source_dir).resolve())
        names = list(assignments) if assignments is not None else source.assignments()
        self.root.mkdir(parents=True, exist_ok=True)
        # nbgrader_config.py names the gradebook: only one that works is written into it
        problem = gradebook_problem(self.db_url)
        if problem is not None:
            raise GradingError(f"cannot use the gradebook: {problem}")
        for name in names:
            src = source.assignment_dir(name)
            if not source.notebooks(name):
                raise GradingError(f"no source notebook in {name}/ of {source.folder}")
            dest = self.source_dir(name)
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(
                src, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
            )
        headers = self.root / HEADERS_DIR
        for trait, path in source.header_footer().items():
            if not path.is_file():
                raise SourceError(f"the course's IncludeHeaderFooter.{trait} is missing: {path}")
            headers.mkdir(exist_ok=True)
            shutil.copyfile(path, headers / f"{trait}.ipynb")
        write_atomic(self.root / RECORD_NAME, self.source.record() + "\n")
        _write_config_file(self.root, self._config, stock=stock)
        if not stock:
            _ship_mathjax(self.root)
        return self

    def release(self, assignment: str) -> Path:
        """Generate the student version of ``assignment`` (``nbgrader generate_assignment``).

        Also records the assignment, its notebooks and its test cells (with their source,
        hidden tests included) in the gradebook, which autograding needs.

        Returns
        -------
        Path
            ``<course_dir>/release/<assignment>``, the folder of release notebooks.
        """
        if not self.source_dir(assignment).is_dir():
            self.make([assignment])
        from nbgrader.converters import GenerateAssignment
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.utils import capture_log

        # what NbGraderAPI.generate_assignment does, without its exchange set-up
        prepare_nbgrader()
        config = self.config()
        config.CourseDirectory.assignment_id = assignment
        app = GenerateAssignment(coursedir=CourseDirectory(config=config), config=config)
        app.force = True
        app.create_assignment = True
        with recording_exceptions(app) as seen:
            result = capture_log(app)
        fault = first_fault(seen)
        if fault is not None:  # the machine's failure (a full disk), not the notebook's
            raise GraderFault(fault.message(f"releasing {assignment}"), fault)
        if not result.get("success"):
            raise GradingError(
                f"nbgrader generate_assignment failed for {assignment}:\n"
                f"{result.get('error', '')}\n{result.get('log', '')}"
            )
        return self.root / "release" / assignment

    # ----------------------------------------------------------------------- gradebook

    @contextlib.contextmanager
    def gradebook(self) -> Iterator[Gradebook]:
        """nbgrader's ``Gradebook`` of the course, opened with its URL and course id."""
        from nbgrader.api import Gradebook

        prepare_nbgrader()
        with Gradebook(self.db_url, self.course_id) as gb:
            yield gb

    def read_scores(
        self, assignment: str, students: Iterable[str]
    ) -> dict[str, dict[str, tuple[float, float]]]:
        """Autograded test scores from the gradebook: student -> grade_id -> (score, max).

        A test that has no score (e.g. the notebook could not be graded) counts as 0.
        """
        from nbgrader.api import MissingEntry

        out: dict[str, dict[str, tuple[float, float]]] = {}
        # the gradebook gives a notebook's grades in no set order (PostgreSQL: as its rows
        # were last updated): the tests' order is the source notebooks'
        order = folder_grade_order(self.source_dir(assignment))
        with self.gradebook() as gb:
            for student in students:
                scores: dict[str, tuple[float, float]] = {}
                try:
                    submission = gb.find_submission(assignment, student)
                except MissingEntry:
                    out[student] = scores
                    continue
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.cell.cell_type != "code":
                            continue
                        score = grade.score if grade.score is not None else 0.0
                        scores[grade.name] = (float(score), float(grade.max_score))
                placed = sorted(scores, key=lambda name: (order.get(name, len(order)), name))
                out[student] = {name: scores[name] for name in placed}
        return out

    def ensure_students(self, students: Iterable[str]) -> None:
        """Create the students in the gradebook up front, so workers never race to insert
        them.

        Also nbgrader's ``default_course`` row: its preprocessors (and ours) open the
        gradebook without a course id, which inserts that row on first use; workers doing
        it at the same moment collide on its unique key (on PostgreSQL, and on SQLite).
        And the gradebook's :data:`GRADEBOOK_INDEXES` (:meth:`ensure_indexes`).

        Raises
        ------
        GradingError
            A student id is longer than the gradebook's column (128 characters) on a
            database that enforces it (not SQLite): one line instead of nbgrader's
            ``InvalidEntry`` traceback.
        """
        from nbgrader.api import Gradebook

        students = list(students)
        limit = id_length_limit()
        too_long = [s for s in students if len(s) > limit]
        if too_long and not self.db_url.startswith("sqlite"):
            # SQLite ignores the gradebook's column lengths; PostgreSQL refuses the row
            raise GradingError(
                f"student id longer than {limit} characters, the gradebook's limit: "
                f"{too_long[0][:40]!r}…"
            )
        from nbgrader.api import Student

        with self.gradebook() as gb:
            # one query and one commit for the class (nbgrader's update_or_create_student
            # is a query and a commit a student); nothing else writes while the course is
            # held (Course.lock)
            present = {row.id for row in gb.db.query(Student.id)}
            missing = [s for s in dict.fromkeys(students) if s not in present]
            if missing:
                gb.db.add_all(Student(id=student) for student in missing)
                gb.db.commit()
        with Gradebook(self.db_url):
            pass
        self.ensure_indexes()

    def ensure_indexes(self) -> None:
        """Create the gradebook's :data:`GRADEBOOK_INDEXES` that are not there yet (before
        the workers start: PostgreSQL's ``CREATE INDEX IF NOT EXISTS`` run at the same
        moment by two connections can collide)."""
        from sqlalchemy import text

        with self.gradebook() as gb:
            for name, (table, column) in GRADEBOOK_INDEXES.items():
                gb.db.execute(text(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})"))
            gb.db.commit()

    def record_zero_scores(self, assignment: str, student: str) -> None:
        """A submission with no gradable notebook: every test scores 0, as nbgrader does for
        a missing notebook (its Autograde needs at least one notebook to run at all)."""
        with self.gradebook() as gb, warnings.catch_warnings():
            # nbgrader's add_submission trips SQLAlchemy's autoflush warnings (harmless; the
            # same happens inside `nbgrader autograde`)
            warnings.simplefilter("ignore")
            gb.update_or_create_student(student)
            submission = gb.update_or_create_submission(assignment, student)
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
            gb.db.commit()
        for folder in (
            self.autograded_dir(student, assignment),
            self.feedback_dir(student, assignment),
        ):
            if folder.exists():
                shutil.rmtree(folder)

    def write_submission(
        self, assignment: str, student: str, files: Mapping[str, NotebookNode | bytes | str]
    ) -> Path:
        """Write one submission into nbgrader's submitted layout, replacing an older one."""
        folder = self.submitted_dir(student, assignment)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for name, content in files.items():
            target = folder / name
            if not target.resolve().is_relative_to(folder):
                raise GradingError(f"refusing to write outside the submission folder: {name!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, NotebookNode | dict):
                name_ = name if name.endswith(".ipynb") else f"{name}.ipynb"
                target = folder / name_
                with warnings.catch_warnings():
                    # nbformat repairs e.g. duplicated cell ids (a student copied a cell) and
                    # says so on stderr; the repaired notebook is what gets graded
                    warnings.simplefilter("ignore")
                    nbformat.write(nbformat.from_dict(content), str(target))
            elif isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)
        return folder
