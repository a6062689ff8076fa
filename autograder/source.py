"""An nbgrader course's source, as its instructor wrote it: the assignments, their notebooks
and the files beside them, the header and footer notebooks, and the course's
``nbgrader_config.py``. The grader builds its course folder from one
(:meth:`autograder.course.Course.make`); by default this repository's ``notebooks/``.

A source given on the command line (``--source DIR``) is an nbgrader course root (its
``nbgrader_config.py`` and the source folder it names, ``source/`` by default), or that
source folder itself, with the ``nbgrader_config.py`` in the folder above it.

What a course adds for this grader on top of nbgrader lives beside each assignment's
notebooks, under the names of :data:`COURSE_DATA`; none of it is released to students nor
copied where their code runs.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config

from autograder.models import SourceError

log = logging.getLogger(__name__)

__all__ = [
    "CATALOGUE_NAME",
    "CONFIG_NAME",
    "COURSE_DATA",
    "RECORD_NAME",
    "SAMPLES_NAME",
    "CourseSource",
    "SourceError",
]

#: The course's nbgrader configuration, at its root.
CONFIG_NAME = "nbgrader_config.py"

#: The files beside an assignment's notebooks that are the grader's, not the students':
#: the misconception catalogue (:mod:`autograder.misconceptions`) and the sample answers
#: (:mod:`autograder.samples`). Left out of the release and of the graded folders.
CATALOGUE_NAME = "misconceptions.toml"
SAMPLES_NAME = "sample_answers.py"
COURSE_DATA = (CATALOGUE_NAME, SAMPLES_NAME)

#: nbgrader's own default ``CourseDirectory.ignore``: what is never released nor copied.
NBGRADER_IGNORE = (".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback")

#: Where a course folder records the source it was built from (:meth:`CourseSource.record`).
RECORD_NAME = ".source.json"


def _load_config(path: Path) -> Config:
    """An ``nbgrader_config.py``, loaded as nbgrader loads it (traitlets' Python loader)."""
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    try:
        return PyFileConfigLoader(path.name, path=str(path.parent)).load_config()
    except ConfigFileNotFound:
        return Config()
    except Exception as exc:  # the instructor's Python: any error is theirs to fix
        line = str(exc).strip().splitlines()
        raise SourceError(
            f"cannot read {path.name} of the course: {type(exc).__name__}"
            + (f": {line[0]}" if line else "")
        ) from None


def _read_notebook(path: Path, where: str) -> dict:
    """A source notebook as JSON, or :class:`SourceError` saying why it is not one."""
    import nbformat

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = nbformat.read(str(path), as_version=4)
            nbformat.validate(nb)
    except Exception as exc:  # nbformat's reader raises many kinds
        line = str(exc).strip().splitlines()
        raise SourceError(
            f"--source: {where} is not a Jupyter notebook nbgrader can read"
            + (f" ({line[0][:120]})" if line else "")
        ) from None
    return nb


def _check_metadata(nb: dict, where: str) -> None:
    """nbgrader's own check of a source notebook's cells (the one ``generate_assignment``
    runs: grade ids of letters, digits, ``_`` and ``-``, unique within the notebook, points
    on graded cells), refused here in one line instead of in the release's traceback."""
    import copy

    import jsonschema
    from nbgrader.nbgraderformat import MetadataValidator, ValidationError
    from nbgrader.nbgraderformat.common import SchemaMismatchError

    try:
        validator = MetadataValidator()
        validator.validate_nb(validator.upgrade_notebook_metadata(copy.deepcopy(nb)))
    except (ValidationError, jsonschema.ValidationError, SchemaMismatchError) as exc:
        line = str(getattr(exc, "message", None) or exc).strip().splitlines()
        detail = line[0][:200] if line else type(exc).__name__
        # nbgrader's schema's rule for grade ids, as jsonschema names the rule and the field
        # (nbgrader's own checks raise the same class, with neither)
        is_pattern = isinstance(exc, jsonschema.ValidationError) and exc.validator == "pattern"
        if is_pattern and "grade_id" in getattr(exc, "path", ()):
            detail += " (nbgrader's grade ids are letters, digits, _ and -)"
        elif detail.startswith("Duplicate grade id"):  # nbgrader's own check's words
            detail += " (nbgrader's grade ids are unique within a notebook)"
        raise SourceError(f"--source: {where}: nbgrader refuses its cells: {detail}") from None


@dataclass(frozen=True)
class CourseSource:
    """Where a course's source is and what its ``nbgrader_config.py`` says.

    Parameters
    ----------
    root : Path
        The course root: the folder of ``nbgrader_config.py``, against which nbgrader
        resolves the header's and the footer's paths.
    folder : Path
        The source folder: one sub-folder per assignment.
    config_file : Path or None
        The course's ``nbgrader_config.py`` (None: nbgrader's defaults).
    own : bool
        This repository's course (its notebooks import ``linlib``; its release zips carry
        a student build of it).
    """

    root: Path
    folder: Path
    config_file: Path | None
    own: bool = False

    # ------------------------------------------------------------------ finding one

    @classmethod
    def this_course(cls, notebooks: Path, config_file: Path) -> CourseSource:
        """This repository's course: ``notebooks/`` and the repository's configuration."""
        notebooks = Path(notebooks).resolve()
        config = Path(config_file).resolve()
        return cls(config.parent, notebooks, config if config.is_file() else None, own=True)

    @classmethod
    def open(cls, path: str | os.PathLike) -> CourseSource:
        """The course at *path*: its root (with ``nbgrader_config.py``) or its source
        folder. Raises :class:`SourceError` (one line) when it is neither."""
        given = Path(path)
        if not given.exists():
            raise SourceError(f"--source: no such folder: {given}")
        if not given.is_dir():
            raise SourceError(f"--source: not a folder: {given}")
        given = given.resolve()
        if (given / CONFIG_NAME).is_file():
            root = given
            config = _load_config(root / CONFIG_NAME)
            folder = root / config.CourseDirectory.get("source_directory", "source")
            if not folder.is_dir():
                raise SourceError(
                    f"--source: {given.name}/ has {CONFIG_NAME} but no source folder "
                    f"{folder.relative_to(root) if folder.is_relative_to(root) else folder}/"
                )
        elif (given.parent / CONFIG_NAME).is_file():
            root, folder = given.parent, given
        else:
            raise SourceError(
                f"--source: no {CONFIG_NAME} in {given.name}/ or the folder above it "
                "(an nbgrader course root holds one; an empty one gives nbgrader's defaults)"
            )
        source = cls(root, folder, root / CONFIG_NAME)
        source.check()
        return source

    # ------------------------------------------------------------------ its settings

    def config(self) -> Config:
        """The course's nbgrader configuration (a fresh copy each call)."""
        return _load_config(self.config_file) if self.config_file is not None else Config()

    def _course_directory(self) -> Config:
        return self.config().get("CourseDirectory", Config())

    def notebook_glob(self) -> str:
        """nbgrader's ``CourseDirectory.notebook_id``: which notebooks an assignment has."""
        return str(self._course_directory().get("notebook_id", "*"))

    def ignore(self) -> list[str]:
        """The course's ``CourseDirectory.ignore`` (nbgrader's default if unset)."""
        return list(self._course_directory().get("ignore", list(NBGRADER_IGNORE)))

    def _ignored(self, name: str) -> bool:
        return any(fnmatch.fnmatch(name, pattern) for pattern in self.ignore())

    def header_footer(self) -> dict[str, Path]:
        """``IncludeHeaderFooter``'s header and footer notebooks, by trait name."""
        section = self.config().get("IncludeHeaderFooter", Config())
        out = {}
        for trait in ("header", "footer"):
            value = section.get(trait, "")
            if value:
                path = Path(value)
                out[trait] = path if path.is_absolute() else self.root / path
        return out

    # ------------------------------------------------------------------ its assignments

    def assignments(self) -> list[str]:
        """The assignments: the source folder's sub-folders with a notebook nbgrader
        would release, sorted by name."""
        if not self.folder.is_dir():
            return []
        return sorted(
            p.name
            for p in self.folder.iterdir()
            if p.is_dir()
            and not p.name.startswith(".")
            and not self._ignored(p.name)
            and self.notebooks(p.name)
        )

    def assignment_dir(self, assignment: str) -> Path:
        """``<source>/<assignment>``."""
        return self.folder / assignment

    def notebooks(self, assignment: str) -> list[str]:
        """The names (no ``.ipynb``) of the assignment's notebooks, as nbgrader finds them
        (``CourseDirectory.notebook_id``), sorted."""
        folder = self.assignment_dir(assignment)
        pattern = self.notebook_glob() + ".ipynb"
        return sorted(
            p.stem
            for p in folder.glob("*.ipynb")
            if p.is_file() and fnmatch.fnmatch(p.name, pattern)
        )

    def notebook_paths(self, assignment: str) -> list[Path]:
        """The assignment's notebooks (:meth:`notebooks`) as paths."""
        folder = self.assignment_dir(assignment)
        return [folder / f"{name}.ipynb" for name in self.notebooks(assignment)]

    # ------------------------------------------------------------------ checks

    def check(self) -> None:
        """What the grader cannot grade, refused in one line: no assignment, a notebook
        that is not an nbgrader notebook (a grade id used twice in one notebook among
        them), hidden-test markers of its own.

        A grade id in several notebooks, of one assignment or of several, is nbgrader's to
        allow (its ids are unique within a notebook only; an instructor who copied a cell
        from one assignment to the next kept its id): a submission's assignment is told by
        its folder and file names first (:mod:`autograder.intake.match`)."""
        from autograder.notebook import graded_ids

        names = self.assignments()
        if not names:
            raise SourceError(
                f"--source: no assignment in {self.folder.name}/ (an assignment is a folder "
                "of notebooks: source/<assignment>/<notebook>.ipynb)"
            )
        section = self.config().get("ClearHiddenTests", Config())
        for trait in ("begin_test_delimeter", "end_test_delimeter"):
            if trait in section:
                raise SourceError(
                    f"--source: ClearHiddenTests.{trait} is set in {CONFIG_NAME}: this grader "
                    "reads nbgrader's default hidden-test markers only"
                )
        kernels: dict[str, str] = {}
        for assignment in names:
            ids: set[str] = set()
            for path in self.notebook_paths(assignment):
                where = f"{assignment}/{path.name}"
                nb = _read_notebook(path, where)
                _check_metadata(nb, where)
                ids |= graded_ids(nb)
                spec = (nb.get("metadata") or {}).get("kernelspec") or {}
                language = str(spec.get("language") or "python").lower()
                if language != "python":
                    raise SourceError(
                        f"--source: {where} is a {language} notebook (its kernel "
                        f"{spec.get('name', '?')}): this grader's sandbox runs Python kernels only"
                    )
                kernels.setdefault(str(spec.get("name") or "python3"), where)
            if not ids:
                raise SourceError(
                    f"--source: {assignment}/ has no graded cell: not an nbgrader assignment "
                    "(mark its cells with nbgrader's Create Assignment toolbar)"
                )
        _note_kernels(kernels, self.config())

    # ------------------------------------------------------------------ the record

    def record(self) -> str:
        """The source as a course folder records it (JSON)."""
        return json.dumps(
            {
                "root": str(self.root),
                "folder": str(self.folder),
                "config": str(self.config_file) if self.config_file else None,
                "own": self.own,
            },
            sort_keys=True,
        )

    @classmethod
    def from_record(cls, text: str) -> CourseSource:
        """A source from :meth:`record`'s JSON."""
        data = json.loads(text)
        config = data.get("config")
        return cls(
            Path(data["root"]),
            Path(data["folder"]),
            Path(config) if config else None,
            own=bool(data.get("own")),
        )

    def same_as(self, other: CourseSource) -> bool:
        """The same course source (its folder and configuration)."""
        return (self.folder, self.config_file, self.own) == (
            other.folder,
            other.config_file,
            other.own,
        )

    def describe(self) -> str:
        """How a message names this source."""
        return "this repository's notebooks/" if self.own else f"{self.folder}"


def _note_kernels(kernels: dict[str, str], config: Config) -> None:
    """Say where the notebooks name a Python kernel this machine does not have (nbgrader
    cannot start it, unless ``Execute.kernel_name`` names one it has): the sandbox runs
    them in the grader's own Python kernel, as ``c.Execute.kernel_name = "python3"`` has
    nbgrader do."""
    if config.get("Execute", Config()).get("kernel_name"):
        return
    from jupyter_client.kernelspec import KernelSpecManager

    installed = set(KernelSpecManager().find_kernel_specs()) | {"python3", "python"}
    for name, where in sorted(kernels.items()):
        if name not in installed:
            log.warning(
                "%s names the kernel %r, which is not installed here: graded in the grader's "
                'Python kernel (stock nbgrader needs c.Execute.kernel_name = "python3" for it)',
                where,
                name,
            )
