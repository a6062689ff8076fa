"""The grader's data: what comes in (a submission, raw or prepared), what comes out (one
submission's result, a run's results), and the errors that stop a run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

#: one student's submission of one assignment, as the term and the feedback pages name it:
#: (assignment, student)
SubmissionKey = tuple[str, str]


class GradingError(RuntimeError):
    """nbgrader itself could not run (not: a submission failed to grade)."""


class SandboxUnavailable(GradingError):
    """The grading sandbox was required but cannot start."""


class CanaryFailed(GradingError):
    """The instructor's own solution does not get full marks in this grading environment:
    the batch is refused before any student is graded (the message is one line)."""


class GraderFault(GradingError):
    """A failure of the machine stopped the run (a full disk, a locked or lost gradebook, a
    grading worker that died: :mod:`autograder.faults`); the message is one line saying what
    happened and what to do. What was graded before it is kept (the ledger); nothing it
    touched is recorded, so the same command run again grades it."""

    def __init__(self, message: str, fault: object = None) -> None:
        super().__init__(message)
        self.fault = fault


class CourseBusy(RuntimeError):
    """Another run holds the course directory (:meth:`autograder.course.Course.lock`) and
    this one was told not to wait. ``pid``: that run's process id, when known."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid


@dataclass
class SubmissionResult:
    """The outcome of grading one student's submission of one assignment."""

    student: str
    assignment: str
    #: autograded test's grade id -> (score, max score): the tests only (read_scores)
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    ok: bool = True
    error: str = ""
    seconds: float = 0.0
    skipped: bool = False  # True when a ledger entry made re-grading unnecessary
    missing: list[str] = field(default_factory=list)  # notebooks not gradable (scored 0)
    #: exercise -> what its failed tests look like (the re-check's diagnosis, plain data)
    diagnoses: dict[str, dict[str, Any]] = field(default_factory=dict)
    # what failed of the machine, not of the notebook (autograder.faults): never recorded
    fault: str = ""
    #: test grade id -> why the trusted re-check could not decide it: scored as the kernel
    #: ran it, as stock nbgrader scores it
    unchecked: dict[str, str] = field(default_factory=dict)

    @property
    def autograded_score(self) -> float:
        """The points of its autograded tests (``scores``). What the submission is worth,
        the points graded by hand included, is the gradebook's:
        :class:`autograder.course.Totals`."""
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
            "diagnoses": dict(self.diagnoses),
            "unchecked": dict(self.unchecked),
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
            diagnoses=dict(data.get("diagnoses", {})),
            unchecked={str(k): str(v) for k, v in (data.get("unchecked") or {}).items()},
        )

    @property
    def autograded_max(self) -> float:
        """The points its autograded tests are worth (``scores``; not the answers graded by
        hand nor the tasks: :class:`autograder.course.Totals` has nbgrader's maximum)."""
        return sum(m for _, m in self.scores.values())


class SubmissionsError(ValueError):
    """The submissions path cannot be read at all (bad path, not a zip, unknown layout)."""


class TermError(ValueError):
    """The course's calendar (course.toml) or the submission times given cannot be used:
    one line, read before anything is graded."""


@dataclass
class RawSubmission:
    """The files one student handed in for one assignment, as named by the student.

    ``submitted_at``: when it was handed in (time-zone aware), when the submissions say
    (nbgrader's ``timestamp.txt``, an exchange folder's name); ``marked_late``: the LMS
    marked it late (Canvas's ``LATE``); ``label``: which of several submissions this is,
    for the flags (an exchange folder's name); ``name``: the student's name when the
    submissions say it (an LMS's file names; printable, short)."""

    student: str
    assignment: str | None
    files: dict[str, bytes] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    submitted_at: datetime | None = None
    marked_late: bool = False
    label: str = ""
    name: str = ""


@dataclass
class PreparedSubmission:
    """A submission ready for nbgrader: notebooks under their proper names, plus flags;
    ``name``: the student's name as the submissions say it (not part of its grade)."""

    student: str
    assignment: str
    notebooks: dict[str, bytes] = field(default_factory=dict)  # "<name>.ipynb" -> content
    missing: list[str] = field(default_factory=list)  # expected notebooks not gradable
    flags: list[str] = field(default_factory=list)
    name: str = ""

    def digest(self, salt: str = "") -> str:
        """A hash of everything that decides this submission's grade (for the ledger)."""
        h = hashlib.sha256()
        h.update(json.dumps([self.student, self.assignment, salt]).encode())
        for name in sorted(self.notebooks):
            h.update(name.encode() + b"\0" + hashlib.sha256(self.notebooks[name]).digest())
        h.update(json.dumps(sorted(self.missing)).encode())
        return h.hexdigest()


@dataclass
class GradeRun:
    """What a grading run produced."""

    results: list[SubmissionResult]
    out_dir: Path
    summary: str
    unmatched: list[str] = field(default_factory=list)  # submissions of no known assignment


class SourceError(ValueError):
    """A course source (``--source``) the grader cannot grade: one line, said before
    anything is built, graded or written."""


class CourseFolderError(ValueError):
    """The course folder a run would use is not the one meant (a new one would be built
    beside or inside an existing class's course folder): one line naming the existing
    folder and ``--course``, said before anything is built, graded or written."""
