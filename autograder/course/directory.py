"""The course directory: an nbgrader course folder built from a course's source, its
configuration loaded once (:class:`Course`), its folders, and the nbgrader release of an
assignment; its gradebook is :mod:`autograder.course.gradebook`'s, mixed in.

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

import copy
import dataclasses
import os
import shutil
import warnings
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from traitlets.config import Config

from autograder import COURSE_DIR
from autograder.course.config import HEADERS_DIR, course_config
from autograder.course.config_file import write_config_file
from autograder.course.database import gradebook_problem
from autograder.course.gradebook import CourseGradebook
from autograder.course.lock import hold
from autograder.course.nbgrader_env import prepare_nbgrader
from autograder.course.origin import default_source, holds_a_course, recorded_source
from autograder.faults import first_fault, recording_exceptions
from autograder.files import write_atomic
from autograder.models import GraderFault, GradingError
from autograder.source import RECORD_NAME, CourseSource, SourceError
from course_common.assets import copy_tree

if TYPE_CHECKING:
    from nbformat import NotebookNode

#: Where the command line builds the course directory unless told otherwise.
DEFAULT_COURSE_DIR = COURSE_DIR


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
            else (default_source() if holds_a_course(root) else None)
        )
        if built is not None and not built.same_as(source):
            raise SourceError(
                f"the course folder {root.name}/ holds the course of {built.describe()}, not "
                f"{source.describe()}: give another --course for it (or the same --source)"
            )
    return Course(root, db_url, source)


def _ship_mathjax(course_dir: Path) -> None:
    """MathJax in ``feedback/_mathjax/`` of the course directory, when the lecture's npm
    assets are installed: what the course's own feedback pages load (from beside them)
    and what formgrader's submission view loads (through the Jupyter server's ``/files/``,
    :data:`autograder.grading.config.FORMGRADER_MATHJAX_URL`), so neither needs a network.
    Hard links to ``node_modules/`` where the file system allows (no copy per course)."""
    from course_common.assets import FEEDBACK_MATHJAX, copy_mathjax, mathjax_available

    if mathjax_available():
        copy_mathjax(course_dir / "feedback" / FEEDBACK_MATHJAX, link=True)


class Course(CourseGradebook):
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
        self._config = course_config(self.root, db_url, self.source)

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

    def release_dir(self, assignment: str) -> Path:
        """``release/<assignment>``: the assignment as the students are given it (the
        instructor's files: never a student's)."""
        return self.root / "release" / assignment

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

    def lock(
        self, *, wait: bool = True, on_wait: Callable[[int | None], None] | None = None
    ) -> AbstractContextManager[None]:
        """Hold this course directory for one run (:func:`autograder.course.lock.hold`: an
        exclusive ``flock`` on ``<course>/.lock``, re-entrant in the thread that holds it;
        another run holding it is waited for, or refused with ``wait`` false)."""
        return hold(self.root, wait=wait, on_wait=on_wait)

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
            # file by file: a full disk is the OSError it is (one line, autograder.faults)
            copy_tree(src, dest, ignore=(".ipynb_checkpoints", "__pycache__"))
        headers = self.root / HEADERS_DIR
        for trait, path in source.header_footer().items():
            if not path.is_file():
                raise SourceError(f"the course's IncludeHeaderFooter.{trait} is missing: {path}")
            headers.mkdir(exist_ok=True)
            shutil.copyfile(path, headers / f"{trait}.ipynb")
        write_atomic(self.root / RECORD_NAME, self.source.record() + "\n")
        write_config_file(self.root, self._config, Course, stock=stock)
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

    # ----------------------------------------------------------------------- submissions

    def write_submission(
        self, assignment: str, student: str, files: Mapping[str, NotebookNode | bytes | str]
    ) -> Path:
        """Write one submission into nbgrader's submitted layout, replacing an older one."""
        import nbformat

        folder = self.submitted_dir(student, assignment)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for name, content in files.items():
            target = folder / name
            if not target.resolve().is_relative_to(folder):
                raise GradingError(f"refusing to write outside the submission folder: {name!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, dict):  # a NotebookNode is a dict
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
