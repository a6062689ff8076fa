"""Thin wrappers over nbgrader's own API, converters and configuration.

Everything here drives nbgrader 0.9's classes (``GenerateAssignment``, ``Autograde``,
``GenerateFeedback``, ``Validator``, the ``Gradebook``) with a course directory built at run
time: nothing of nbgrader's grading logic is re-implemented. What is added goes in through
nbgrader's configuration (its preprocessor lists): :mod:`autograder.preprocessors`, helper
F's ``SafeExecute`` (sandbox) or :mod:`autograder.prewarm` in place of ``Execute``. Grading
runs in parallel worker processes (:mod:`autograder.workers`), one submission per task.

Layout of a course directory made by :func:`make_course`::

    <course_dir>/nbgrader_config.py        same settings as the repository's nbgrader_config.py
    <course_dir>/source/<assignment>/...   copy of the repository's notebooks/<assignment>/
    <course_dir>/release/<assignment>/...  student versions (generate_assignment)
    <course_dir>/submitted/<student>/<assignment>/<notebook>.ipynb
    <course_dir>/autograded/..., feedback/...
    <course_dir>/gradebook.db              nbgrader's gradebook (SQLite, busy timeout set)
    <course_dir>/ledger.jsonl              graded submissions, for resuming (autograder.ledger)
    <course_dir>/logs/                     the workers' and kernels' stderr
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode
from traitlets.config import Config

from autograder.ledger import LEDGER_VERSION, Ledger
from autograder.submissions import PreparedSubmission

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
REPO_CONFIG = REPO_ROOT / "nbgrader_config.py"

#: Seconds an SQLite connection waits for another worker's write before giving up.
SQLITE_BUSY_TIMEOUT = 120

#: Generous outer wall-clock bound for grading one submission (the sandbox has tighter ones).
SUBMISSION_TIMEOUT = 900.0

_STEP_DIRS = {
    "source_directory": "source",
    "release_directory": "release",
    "submitted_directory": "submitted",
    "autograded_directory": "autograded",
    "feedback_directory": "feedback",
    "solution_directory": "solution",
    "source_with_tests_directory": "source_with_tests",
}


def _ensure_env_bin_on_path() -> None:
    # nbgrader runs the `alembic` command (from this environment's bin/) when it creates a
    # gradebook; calling .venv/bin/python directly does not put bin/ on PATH.
    bin_dir = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if bin_dir not in path.split(os.pathsep):
        os.environ["PATH"] = bin_dir + (os.pathsep + path if path else "")


_ensure_env_bin_on_path()


class GradingError(RuntimeError):
    """nbgrader itself could not run (not: a submission failed to grade)."""


class SandboxUnavailable(GradingError):
    """The grading sandbox was required but cannot start."""


# --------------------------------------------------------------------------- configuration


def default_db_url(course_dir: str | os.PathLike) -> str:
    """The embedded SQLite gradebook of a course directory, with a busy timeout.

    The timeout lets parallel workers wait for each other's short writes instead of failing
    with "database is locked".
    """
    path = Path(course_dir).resolve() / "gradebook.db"
    return f"sqlite:///{path}?timeout={SQLITE_BUSY_TIMEOUT}"


def _repo_config() -> Config:
    if not REPO_CONFIG.exists():
        return Config()
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader(REPO_CONFIG.name, path=str(REPO_CONFIG.parent)).load_config()


def course_config(course_dir: str | os.PathLike, db_url: str | None = None) -> Config:
    """nbgrader configuration for ``course_dir``: the repository's settings, local paths.

    Parameters
    ----------
    course_dir : path
        The course directory (made by :func:`make_course`).
    db_url : str, optional
        Any SQLAlchemy URL for the gradebook; default :func:`default_db_url`.
    """
    course_dir = Path(course_dir).resolve()
    config = _repo_config()
    config.CourseDirectory.root = str(course_dir)
    for trait, name in _STEP_DIRS.items():
        setattr(config.CourseDirectory, trait, name)
    if db_url and db_url.startswith("sqlite") and "timeout=" not in db_url:
        db_url += ("&" if "?" in db_url else "?") + f"timeout={SQLITE_BUSY_TIMEOUT}"
    config.CourseDirectory.db_url = db_url or default_db_url(course_dir)
    # The notebooks under source/ are copies; students' extra files must not be graded.
    config.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]
    return config


def _write_config_file(course_dir: Path, config: Config) -> None:
    # A real nbgrader_config.py so that stock `nbgrader ...` commands work in this directory
    # too (the benchmark runs the stock CLI); paths are this run's, never committed.
    lines = [
        '"""nbgrader configuration written by autograder.nbgrading.make_course."""',
        "",
        "c = get_config()  # noqa: F821",
    ]
    for section in ("CourseDirectory", "ClearSolutions", "ClearHiddenTests", "Execute"):
        if section not in config:
            continue
        for key, value in sorted(config[section].items()):
            if key == "root":
                continue
            lines.append(f"c.{section}.{key} = {value!r}")
    (course_dir / "nbgrader_config.py").write_text("\n".join(lines) + "\n")


# --------------------------------------------------------------------------- course setup


def list_assignments(source_dir: str | os.PathLike | None = None) -> list[str]:
    """Assignments in a notebooks folder: ``<name>/<name>.ipynb``, sorted by name."""
    root = Path(source_dir) if source_dir is not None else NOTEBOOKS_DIR
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}.ipynb").is_file())


def make_course(
    course_dir: str | os.PathLike,
    assignments: Iterable[str] | None = None,
    *,
    source_dir: str | os.PathLike | None = None,
    db_url: str | None = None,
) -> Path:
    """Create (or refresh) an nbgrader course directory whose source is the repo's notebooks.

    Parameters
    ----------
    course_dir : path
        Where to build the course; created if missing. Idempotent.
    assignments : iterable of str, optional
        Assignment names (folders of ``source_dir``); default all of them.
    source_dir : path, optional
        Folder of source assignments; default the repository's ``notebooks/``.
    db_url : str, optional
        SQLAlchemy URL of the gradebook written into the directory's nbgrader_config.py;
        default an SQLite file in ``course_dir``.

    Returns
    -------
    Path
        The absolute course directory.
    """
    course_dir = Path(course_dir).resolve()
    source_root = Path(source_dir).resolve() if source_dir is not None else NOTEBOOKS_DIR
    names = list(assignments) if assignments is not None else list_assignments(source_root)
    course_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        src = source_root / name
        if not (src / f"{name}.ipynb").is_file():
            raise GradingError(f"no source notebook {name}/{name}.ipynb in {source_root}")
        dest = course_dir / "source" / name
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(
            src, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
        )
    _write_config_file(course_dir, course_config(course_dir, db_url))
    return course_dir


def release_assignment(
    course_dir: str | os.PathLike, assignment: str, db_url: str | None = None
) -> Path:
    """Generate the student version of ``assignment`` (``nbgrader generate_assignment``).

    Also records the assignment, its notebooks and its test cells (with their source, hidden
    tests included) in the gradebook, which autograding needs.

    Returns
    -------
    Path
        ``<course_dir>/release/<assignment>``, the folder of release notebooks.
    """
    course_dir = Path(course_dir).resolve()
    if not (course_dir / "source" / assignment).is_dir():
        make_course(course_dir, [assignment])
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    # what NbGraderAPI.generate_assignment does, without its exchange set-up
    config = course_config(course_dir, db_url)
    config.CourseDirectory.assignment_id = assignment
    app = GenerateAssignment(coursedir=CourseDirectory(config=config), config=config)
    app.force = True
    app.create_assignment = True
    result = capture_log(app)
    if not result.get("success"):
        raise GradingError(
            f"nbgrader generate_assignment failed for {assignment}:\n"
            f"{result.get('error', '')}\n{result.get('log', '')}"
        )
    return course_dir / "release" / assignment


def validate_notebook(path: str | os.PathLike, invert: bool = False) -> tuple[bool, str]:
    """Run nbgrader's Validator on one notebook (``nbgrader validate [--invert]``).

    Returns
    -------
    (ok, report)
        ``ok`` is True when validation passed: every test passes (or with ``invert``, none
        does); ``report`` is the text ``nbgrader validate`` would print.
    """
    from nbgrader.validator import Validator

    config = Config()
    config.Validator.invert = invert
    validator = Validator(config=config)
    path = Path(path).resolve()
    results = validator.validate(str(path))
    buffer = io.StringIO()
    # Print those same results with nbgrader's wording instead of executing a second time.
    validator.validate = lambda _filename: results  # type: ignore[method-assign]
    validator.stream = buffer
    validator.validate_and_print(str(path))
    return (not results), buffer.getvalue()


# --------------------------------------------------------------------------- sandbox


def sandbox_status() -> tuple[bool, str | None]:
    """(available, reason-if-not) for helper F's sandbox (autograder.sandbox/safe_execute)."""
    try:
        import autograder.safe_execute  # noqa: F401
        from autograder.sandbox import sandbox_unavailable_reason
    except ImportError as exc:
        return False, f"the sandbox modules are not installed ({exc})"
    reason = sandbox_unavailable_reason()
    return reason is None, reason


def resolve_sandbox(sandbox: bool | None) -> bool:
    """``None`` means "sandbox if available"; ``True`` requires it; ``False`` turns it off."""
    if sandbox is False:
        return False
    available, reason = sandbox_status()
    if sandbox and not available:
        raise SandboxUnavailable(f"the grading sandbox cannot start: {reason}")
    return available


# --------------------------------------------------------------------------- grading


@dataclass
class SubmissionResult:
    """The outcome of grading one student's submission of one assignment."""

    student: str
    assignment: str
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    ok: bool = True
    error: str = ""
    seconds: float = 0.0
    skipped: bool = False  # True when a ledger entry made re-grading unnecessary
    missing: list[str] = field(default_factory=list)  # notebooks not gradable (scored 0)

    @property
    def score(self) -> float:
        return sum(s for s, _ in self.scores.values())

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the ledger."""
        return {
            "scores": {k: list(v) for k, v in self.scores.items()},
            "flags": list(self.flags),
            "ok": self.ok,
            "error": self.error,
            "seconds": self.seconds,
            "missing": list(self.missing),
        }

    @classmethod
    def from_dict(cls, student: str, assignment: str, data: Mapping[str, Any]):
        """The inverse of :meth:`to_dict`."""
        return cls(
            student,
            assignment,
            scores={k: (float(v[0]), float(v[1])) for k, v in data["scores"].items()},
            flags=list(data.get("flags", [])),
            ok=bool(data.get("ok", True)),
            error=str(data.get("error", "")),
            seconds=float(data.get("seconds", 0.0)),
            missing=list(data.get("missing", [])),
        )

    @property
    def max_score(self) -> float:
        return sum(m for _, m in self.scores.values())


def write_submission(
    course_dir: str | os.PathLike,
    assignment: str,
    student: str,
    files: Mapping[str, NotebookNode | bytes | str],
) -> Path:
    """Write one submission into nbgrader's submitted layout, replacing an older one."""
    folder = Path(course_dir).resolve() / "submitted" / student / assignment
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


def read_scores(
    course_dir: str | os.PathLike,
    assignment: str,
    students: Iterable[str],
    db_url: str | None = None,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Autograded test scores from the gradebook: student -> grade_id -> (score, max).

    A test that has no score (e.g. the notebook could not be graded) counts as 0.
    """
    from nbgrader.api import Gradebook, MissingEntry

    config = course_config(course_dir, db_url)
    url = config.CourseDirectory.db_url
    course_id = config.CourseDirectory.get("course_id", "default_course")
    out: dict[str, dict[str, tuple[float, float]]] = {}
    with Gradebook(url, course_id) as gb:
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
            out[student] = scores
    return out


def autograde_config(
    course_dir: str | os.PathLike,
    *,
    sandbox: bool,
    db_url: str | None = None,
    prewarm: bool = False,
):
    """The Autograde configuration: nbgrader's preprocessor lists plus ours (see below).

    - sanitize: :class:`~autograder.preprocessors.RecordSubmissionFlags` first (flags deleted,
      duplicated or edited test cells), and :class:`~autograder.preprocessors.RestoreTestCells`
      in place of ``OverwriteCells`` (also puts back deleted test cells, from the gradebook);
    - autograde: ``Execute`` becomes F's ``SafeExecute`` when ``sandbox`` is on, or
      :class:`~autograder.prewarm.PrewarmedExecute` (kernels forked from a pre-warmed
      template) when it is off and ``prewarm`` is on; before
      ``SaveAutoGrades``, :class:`~autograder.preprocessors.StderrToStdout` keeps the points of
      a passing test cell whose code wrote warnings to stderr.
    """
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import DeduplicateIds, Execute, OverwriteCells, SaveAutoGrades

    from autograder import preprocessors as pp

    config = course_config(course_dir, db_url)
    sanitize = list(Autograde.class_traits()["sanitize_preprocessors"].default())
    sanitize[sanitize.index(OverwriteCells)] = pp.RestoreTestCells
    sanitize[sanitize.index(DeduplicateIds)] = pp.DeduplicateCells
    sanitize.insert(0, pp.RecordSubmissionFlags)
    auto = list(Autograde.class_traits()["autograde_preprocessors"].default())
    if sandbox:
        from autograder.safe_execute import SafeExecute

        auto[auto.index(Execute)] = SafeExecute
    elif prewarm:
        from autograder.prewarm import PrewarmedExecute

        auto[auto.index(Execute)] = PrewarmedExecute
    auto.insert(auto.index(SaveAutoGrades), pp.StderrToStdout)
    config.Autograde.sanitize_preprocessors = sanitize
    config.Autograde.autograde_preprocessors = auto
    # Kernel shutdown is a large share of a notebook's grading time; nothing of the kernel's
    # state is needed after the last cell, so stop it at once.
    config.Execute.shutdown_kernel = "immediate"
    return config


def feedback_config(course_dir: str | os.PathLike, db_url: str | None = None) -> Config:
    """GenerateFeedback configuration: nbgrader's, with hidden-test source redacted."""
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.preprocessors import GetGrades

    from autograder.preprocessors import RedactHiddenTests

    config = course_config(course_dir, db_url)
    config.GenerateFeedback.preprocessors = [
        GetGrades,
        RedactHiddenTests,
        CSSHTMLHeaderPreprocessor,
    ]
    from lecture.assets import TEMPLATES, mathjax_available

    if mathjax_available():
        # Formulas typeset without a network: the lecture build's base/mathjax.html.j2
        # shadows nbconvert's MathJax from a CDN with the copy that report.copy_feedback
        # ships beside the pages. nbgrader's own templates stay (it sets this only when
        # the configuration does not).
        import nbgrader.converters

        nbgrader_templates = (
            Path(nbgrader.converters.__file__).parent.parent
            / "server_extensions"
            / "formgrader"
            / "templates"
        )
        config.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(nbgrader_templates)]
    return config


def _autograde_task(
    course_dir: str,
    assignment: str,
    student: str,
    sandbox: bool,
    db_url: str | None,
    feedback: bool = False,
    prewarm: bool = False,
) -> dict[str, Any]:
    """Worker side: autograde one submission with nbgrader's Autograde converter, then
    (optionally) write its feedback with GenerateFeedback."""
    import resource

    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    def cpu() -> float:
        # this worker and the kernels it started (reaped children), user + system
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    cpu_start = cpu()
    config = autograde_config(course_dir, sandbox=sandbox, db_url=db_url, prewarm=prewarm)
    config.CourseDirectory.assignment_id = assignment
    config.CourseDirectory.student_id = student
    coursedir = CourseDirectory(config=config)
    app = Autograde(coursedir=coursedir, config=config)
    app.force = True
    app.create_student = True
    result = capture_log(app)
    flags = collect_notebook_flags(Path(course_dir) / "autograded" / student / assignment)
    out = {
        "success": bool(result.get("success")),
        "error": result.get("error", ""),
        "log": result.get("log", ""),
        "flags": flags,
        "feedback": False,
    }
    if feedback and out["success"]:
        config = feedback_config(course_dir, db_url)
        config.CourseDirectory.assignment_id = assignment
        config.CourseDirectory.student_id = student
        app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
        app.force = True
        fb = capture_log(app)
        out["feedback"] = bool(fb.get("success"))
        if not out["feedback"]:
            out["log"] += "\n" + fb.get("error", "")
    out["cpu_seconds"] = cpu() - cpu_start
    return out


def collect_notebook_flags(folder: Path) -> list[str]:
    """Flags recorded in graded notebooks' ``metadata["autograder"]["flags"]``."""
    flags: list[str] = []
    if not folder.is_dir():
        return flags
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = nbformat.read(str(path), as_version=4)
        except Exception:  # a graded notebook nbgrader wrote is readable; be safe anyway
            continue
        for flag in nb.metadata.get("autograder", {}).get("flags", []) or []:
            text = str(flag)
            if text not in flags:
                flags.append(text)
    return flags


def _worker_init(prewarm_log: str | None = None) -> None:
    # Start the kernel template first (it warms up while this worker imports nbgrader),
    # then import nbgrader (and nbconvert, jupyter_client) once per worker, not per notebook.
    if prewarm_log is not None:
        from autograder.prewarm import start_template

        start_template(prewarm_log)
    import nbgrader.converters
    import nbgrader.preprocessors  # noqa: F401

    import autograder.preprocessors  # noqa: F401


def ensure_students(course_dir: str | os.PathLike, students: Iterable[str], db_url=None) -> None:
    """Create the students in the gradebook up front, so workers never race to insert them."""
    from nbgrader.api import Gradebook

    config = course_config(course_dir, db_url)
    course_id = config.CourseDirectory.get("course_id", "default_course")
    with Gradebook(config.CourseDirectory.db_url, course_id) as gb:
        for student in students:
            gb.update_or_create_student(student)


def record_zero_scores(
    course_dir: str | os.PathLike, assignment: str, student: str, db_url: str | None = None
) -> None:
    """A submission with no gradable notebook: every test scores 0, as nbgrader does for a
    missing notebook (its Autograde needs at least one notebook to run at all)."""
    from nbgrader.api import Gradebook

    config = course_config(course_dir, db_url)
    course_id = config.CourseDirectory.get("course_id", "default_course")
    with Gradebook(config.CourseDirectory.db_url, course_id) as gb, warnings.catch_warnings():
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
    autograded = Path(course_dir).resolve() / "autograded" / student / assignment
    if autograded.exists():
        shutil.rmtree(autograded)
    feedback = Path(course_dir).resolve() / "feedback" / student / assignment
    if feedback.exists():
        shutil.rmtree(feedback)


def run_autograde_batch(
    course_dir: str | os.PathLike,
    jobs: Iterable[tuple[str, str]],
    *,
    workers: int = 2,
    sandbox: bool = False,
    db_url: str | None = None,
    timeout: float = SUBMISSION_TIMEOUT,
    feedback: bool = False,
    prewarm: bool = True,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Autograde ``(assignment, student)`` pairs already in ``submitted/``, in parallel.

    Yields ``(assignment, student, outcome)`` as each finishes; ``outcome`` has ``success``,
    ``error``, ``log``, ``flags``, ``feedback``, ``seconds``. A submission that crashes its
    worker or exceeds ``timeout`` is reported as failed; the rest of the batch goes on.
    Without the sandbox, ``prewarm`` forks kernels from a pre-warmed template process
    (:mod:`autograder.prewarm`).
    """
    from autograder.workers import Task, WorkerPool, WorkerPoolBroken

    course_dir = Path(course_dir).resolve()
    jobs = list(jobs)
    if not jobs:
        return
    ensure_students(course_dir, sorted({s for _, s in jobs}), db_url)
    prewarm = prewarm and not sandbox
    prewarm_log = str(course_dir / "logs" / "kernels.log") if prewarm else None
    pool = WorkerPool(
        min(workers, len(jobs)),
        log_dir=course_dir / "logs",
        initializer=_worker_init,
        initargs=(prewarm_log,),
    )
    tasks = [
        Task(
            key=(assignment, student),
            func=_autograde_task,
            args=(str(course_dir), assignment, student, sandbox, db_url, feedback, prewarm),
            timeout=timeout,
        )
        for assignment, student in jobs
    ]
    try:
        for outcome in pool.run(tasks):
            assignment, student = outcome.key
            if outcome.ok:
                value = dict(outcome.value)
            else:
                value = {"success": False, "error": outcome.error, "log": "", "flags": []}
                value["feedback"] = False
            value["seconds"] = outcome.seconds
            yield assignment, student, value
    except WorkerPoolBroken as exc:
        raise GradingError(str(exc)) from exc


def grade_prepared(
    course_dir: str | os.PathLike,
    prepared: Iterable[PreparedSubmission],
    *,
    workers: int = 2,
    sandbox: bool = False,
    db_url: str | None = None,
    feedback: bool = False,
    ledger: Ledger | None = None,
    timeout: float = SUBMISSION_TIMEOUT,
    on_result: Callable[[SubmissionResult], None] | None = None,
) -> dict[tuple[str, str], SubmissionResult]:
    """Grade prepared submissions (any assignments) in one parallel batch.

    With a ``ledger``, a submission whose files, assignment source and grading settings
    are unchanged since it was last graded is not graded again: its recorded result is
    reused (``skipped``), so an interrupted run, run again, resumes where it stopped.

    Returns
    -------
    dict
        (assignment, student) -> :class:`SubmissionResult`, in the order given.
    """
    course_dir = Path(course_dir).resolve()
    prepared = list(prepared)
    results: dict[tuple[str, str], SubmissionResult] = {}
    digests: dict[tuple[str, str], str] = {}
    salts: dict[str, str] = {}
    jobs: list[tuple[str, str]] = []
    by_key = {(p.assignment, p.student): p for p in prepared}
    if len(by_key) != len(prepared):
        raise GradingError("the same student appears twice for one assignment")

    def finish(result: SubmissionResult) -> None:
        key = (result.assignment, result.student)
        results[key] = result
        if ledger is not None and not result.skipped:
            ledger.record(result.assignment, result.student, digests[key], result.to_dict())
        if on_result is not None:
            on_result(result)

    pending: list[SubmissionResult] = []
    for sub in prepared:
        key = (sub.assignment, sub.student)
        if sub.assignment not in salts:
            salts[sub.assignment] = grading_salt(course_dir, sub.assignment, sandbox, db_url)
        digests[key] = sub.digest(salts[sub.assignment])
        if ledger is not None:
            previous = ledger.lookup(sub.assignment, sub.student, digests[key])
            if previous is not None:
                reused = SubmissionResult.from_dict(sub.student, sub.assignment, previous)
                reused.skipped = True
                pending.append(reused)
                continue
        if sub.notebooks:
            write_submission(course_dir, sub.assignment, sub.student, sub.notebooks)
            jobs.append(key)
        else:
            record_zero_scores(course_dir, sub.assignment, sub.student, db_url)
            scores = read_scores(course_dir, sub.assignment, [sub.student], db_url)
            result = SubmissionResult(sub.student, sub.assignment, flags=list(sub.flags))
            result.scores = scores.get(sub.student, {})
            result.missing = list(sub.missing)
            pending.append(result)
    for result in pending:
        finish(result)
    for assignment, student, value in run_autograde_batch(
        course_dir,
        jobs,
        workers=workers,
        sandbox=sandbox,
        db_url=db_url,
        timeout=timeout,
        feedback=feedback,
    ):
        sub = by_key[(assignment, student)]
        result = SubmissionResult(student, assignment, flags=list(sub.flags))
        result.missing = list(sub.missing)
        for flag in value["flags"]:
            if flag not in result.flags:
                result.flags.append(flag)
        result.ok = bool(value["success"])
        result.error = value["error"]
        result.seconds = value["seconds"]
        if not result.ok:
            result.flags.append("could not be graded: " + _first_line(value["error"]))
        result.scores = read_scores(course_dir, assignment, [student], db_url).get(student, {})
        finish(result)
    return {(p.assignment, p.student): results[(p.assignment, p.student)] for p in prepared}


def grading_salt(
    course_dir: Path, assignment: str, sandbox: bool, db_url: str | None = None
) -> str:
    """What else decides a grade besides the submission: the assignment's source files, the
    grading settings and the gradebook the grades go to. A change makes the ledger grade
    again."""
    import hashlib

    url = course_config(course_dir, db_url).CourseDirectory.db_url
    h = hashlib.sha256(f"{LEDGER_VERSION}|sandbox={bool(sandbox)}|{url}".encode())
    source = course_dir / "source" / assignment
    for path in sorted(source.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def grade_submissions(
    course_dir: str | os.PathLike,
    assignment: str,
    submissions: Mapping[str, Mapping[str, NotebookNode]],
    *,
    workers: int = 2,
    sandbox: bool | None = None,
    db_url: str | None = None,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Autograde a batch of submissions of one assignment with nbgrader, in parallel.

    Parameters
    ----------
    course_dir : path
        A course directory where ``assignment`` has been released
        (:func:`release_assignment`).
    assignment : str
        The assignment name.
    submissions : mapping
        student -> (notebook name -> notebook), e.g. ``{"alice": {"01_hyperplanes": nb}}``;
        names may omit ".ipynb". Written into ``submitted/<student>/<assignment>/``.
    workers : int
        Worker processes executing notebooks at the same time.
    sandbox : bool or None
        ``None``: grade in F's sandbox if it is available; ``True``: require it;
        ``False``: nbgrader's stock ``Execute``.

    Returns
    -------
    dict
        student -> grade_id -> (score, max_score) for every autograded test cell.
    """
    results = grade_submission_results(
        course_dir, assignment, submissions, workers=workers, sandbox=sandbox, db_url=db_url
    )
    return {student: result.scores for student, result in results.items()}


def grade_submission_results(
    course_dir: str | os.PathLike,
    assignment: str,
    submissions: Mapping[str, Mapping[str, NotebookNode | bytes]],
    *,
    workers: int = 2,
    sandbox: bool | None = None,
    db_url: str | None = None,
    feedback: bool = False,
) -> dict[str, SubmissionResult]:
    """Like :func:`grade_submissions`, with each submission's flags and errors."""
    from autograder.submissions import notebook_bytes

    prepared = []
    for student, files in submissions.items():
        sub = PreparedSubmission(student, assignment)
        for name, content in files.items():
            name = name if name.endswith(".ipynb") else f"{name}.ipynb"
            sub.notebooks[name] = content if isinstance(content, bytes) else notebook_bytes(content)
        prepared.append(sub)
    results = grade_prepared(
        course_dir,
        prepared,
        workers=workers,
        sandbox=resolve_sandbox(sandbox),
        db_url=db_url,
        feedback=feedback,
    )
    return {student: results[(assignment, student)] for student in submissions}


def _first_line(text: str) -> str:
    for line in reversed(text.strip().splitlines()):
        if line.strip():
            return line.strip()
    return "unknown error"
