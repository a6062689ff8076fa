"""What a grading run is asked to do, in one frozen object: :class:`GradeOptions`, built
once (by the command line, :mod:`autograder.__main__`, or by a caller of
:mod:`autograder.api`) and handed down unchanged through the use cases and the grading
layer to its workers, instead of loose keywords; and :class:`IntakeLimits`, how much of
the submissions is read (one of those options, :mod:`autograder.intake.read` reads them).

The defaults of a run have this one home, the safe one among them: a run grades in the
sandbox unless its options say ``sandbox=False`` (``--unsandboxed``), whoever calls it —
the command line, :func:`autograder.api.grade_path` or the grading layer's
:func:`autograder.grading.grade_prepared` directly (given no options, each takes
``GradeOptions()``). No function of the use cases or of the grading layer takes a sandbox
flag of its own (``tests/autograder/test_options.py`` holds them to it).

What is not an option stays a parameter of its own: the input (the submissions, the
demo's assignments), the callbacks (``on_result``, ``on_canary``: code, not settings, and
neither frozen nor sent to a worker), and what a use case decides for its steps (the
canary's feedback off, a resubmission's own course).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder import COURSE_DIR, OUT_DIR
from autograder.source import CourseSource

__all__ = ["MIB", "GradeOptions", "IntakeLimits"]

MIB = 1024 * 1024


@dataclass(frozen=True)
class IntakeLimits:
    """How much of a class's submissions the grader reads (see
    :mod:`autograder.intake.read`)."""

    max_files: int = 20_000
    max_file_bytes: int = 50 * MIB
    max_total_bytes: int = 1024 * MIB
    max_ratio: float = 100.0
    ratio_from_bytes: int = MIB  # smaller entries are not ratio-checked

    @classmethod
    def from_options(
        cls,
        *,
        max_files: int | None = None,
        max_file_mb: float | None = None,
        max_total_mb: float | None = None,
        max_ratio: float | None = None,
    ) -> IntakeLimits:
        """The limits from the command line's options (None: the default)."""
        default = cls()
        return cls(
            max_files=default.max_files if max_files is None else max_files,
            max_file_bytes=default.max_file_bytes
            if max_file_mb is None
            else int(max_file_mb * MIB),
            max_total_bytes=default.max_total_bytes
            if max_total_mb is None
            else int(max_total_mb * MIB),
            max_ratio=default.max_ratio if max_ratio is None else max_ratio,
        )


@dataclass(frozen=True)
class GradeOptions:
    """The options of a grading run (``python -m autograder grade`` and ``demo``); every
    field has the command line's default. Frozen: a step that needs other options makes
    its own copy (:func:`dataclasses.replace`), so what the caller asked for is never
    changed on the way down.

    What is graded and how it is read:

    ``assignment``
        The assignment of every submission (None: told by each submission's notebooks).
    ``layout``
        The layout of the submissions (``auto``, ``nbgrader``, ``canvas``, ``moodle``).
    ``limits``
        How much of the submissions is read (:class:`IntakeLimits`).
    ``source``
        The course to grade (:class:`~autograder.source.CourseSource`, opened from
        ``--source``); None: the one the course folder was built from, else this
        repository's.

    Where:

    ``course_dir``, ``out_dir``
        The nbgrader course directory, and where the run's outputs go.
    ``db_url``
        The gradebook's SQLAlchemy URL (None: SQLite in the course directory).

    How:

    ``sandbox``
        Grade every notebook in the sandbox, with the trusted re-check (the default, and
        the only home of that default); False: nbgrader's kernels, for trusted code only.
    ``workers``
        Notebooks graded at the same time (None: the number of cores).
    ``dask``
        Grade on a Dask cluster, ``"local:N"`` or ``"tcp://HOST:PORT"`` (None: the local
        process pool).
    ``feedback``
        Write each submission's feedback page.
    ``regrade``
        True grades every submission again instead of reusing what the ledger recorded; a
        collection of student ids, those students' submissions (kept as a frozenset).
    ``similarity``
        Also compare the answers (:mod:`autograder.similarity`).

    The term (:mod:`autograder.term`):

    ``calendar``
        The course's course.toml (None: the course folder's, if any).
    ``times``
        A file of submission times (a Moodle grading worksheet, or a CSV
        ``student_id,timestamp``).
    ``policy``
        Which of a student's several submissions is graded (``latest``, ``best``,
        ``latest-on-time``; None: course.toml's, else latest).

    The run itself:

    ``progress``
        A progress bar on stderr.
    ``wait``
        While another run holds the course directory, wait for it (False: raise
        :class:`~autograder.models.CourseBusy` at once).
    """

    assignment: str | None = None
    layout: str = "auto"
    limits: IntakeLimits = field(default_factory=IntakeLimits)
    source: CourseSource | None = None
    course_dir: Path = COURSE_DIR
    out_dir: Path = OUT_DIR
    db_url: str | None = None
    sandbox: bool = True
    workers: int | None = None
    dask: str | None = None
    feedback: bool = True
    regrade: bool | frozenset[str] = False
    similarity: bool = False
    calendar: str | Path | None = None
    times: str | Path | None = None
    policy: str | None = None
    progress: bool = False
    wait: bool = True

    def __post_init__(self) -> None:
        # a collection of student ids, frozen as the rest is (a list given stays the caller's)
        if not isinstance(self.regrade, bool):
            object.__setattr__(self, "regrade", frozenset(self.regrade))
