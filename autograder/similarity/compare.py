"""A class compared, exercise by exercise: each student's answers read from their notebooks
(:mod:`.answers`), each exercise's answers compared pair by pair (:mod:`.detect`), the
exercises shared out among worker processes."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from autograder.similarity.answers import Assignment, read_assignment, student_answers
from autograder.similarity.detect import ExerciseResult, Pair, Settings, compare_exercise

#: Below this many answers in all, the exercises are compared in this process (a pool's
#: start costs more than it saves).
PARALLEL_MIN_ANSWERS = 2000


@dataclass(frozen=True)
class NotebookSource:
    """One notebook of an assignment: its source (solutions in place) and its release."""

    assignment: str
    notebook: str  # "<name>.ipynb"
    source: bytes
    release: bytes


def course_notebooks(course_root: Path, assignments: Iterable[str]) -> list[NotebookSource]:
    """The source and release notebooks of *assignments* in an nbgrader course directory
    (``source/<a>/<nb>.ipynb``, ``release/<a>/<nb>.ipynb``); a notebook without a release
    is left out."""
    found = []
    for assignment in sorted(set(assignments)):
        for source in sorted((Path(course_root) / "source" / assignment).glob("*.ipynb")):
            release = Path(course_root) / "release" / assignment / source.name
            if release.is_file():
                found.append(
                    NotebookSource(
                        assignment, source.name, source.read_bytes(), release.read_bytes()
                    )
                )
    return found


@dataclass
class SimilarityRun:
    """A class compared: every exercise's result, the answers of the pairs listed (to show
    them), and the flags of the answers and notebooks that were cut or not compared."""

    settings: Settings
    exercises: list[ExerciseResult]
    answers: dict[tuple[str, str], str] = field(default_factory=dict)  # (exercise, student)
    flags: dict[str, list[str]] = field(default_factory=dict)  # "assignment/student" -> flags
    students: int = 0
    seconds: float = 0.0

    @property
    def pairs(self) -> list[Pair]:
        """Every pair listed (scoring ``list_floor`` or more), best first."""
        every = [p for e in self.exercises for p in e.pairs]
        return sorted(every, key=lambda p: (-p.score, p.exercise, p.student_a, p.student_b))

    @property
    def above(self) -> list[Pair]:
        """The pairs that score the threshold or more."""
        return [p for p in self.pairs if p.score >= self.settings.threshold]

    @property
    def all_pairs(self) -> int:
        return sum(e.all_pairs for e in self.exercises)


def _not_compared(key: str, answers: list[tuple[str, str]], exc: BaseException) -> ExerciseResult:
    result = ExerciseResult(key, len(answers), 0, sorted(s for s, _ in answers), 0, 0, 0)
    result.error = f"{type(exc).__name__}: {str(exc)[:200]}"
    return result


def _job(
    key: str, answers: list[tuple[str, str]], boilerplate: str, settings: Settings
) -> ExerciseResult:
    try:
        return compare_exercise(key, answers, boilerplate, settings)
    except Exception as exc:  # a bug or an input nothing here foresaw: this exercise only
        return _not_compared(key, answers, exc)


def _result(future, key: str, answers: list[tuple[str, str]]) -> ExerciseResult:
    try:
        return future.result()
    except Exception as exc:  # the worker died (memory, a signal): this exercise only
        return _not_compared(key, answers, exc)


def _name_shared_ids(assignments: Iterable[Assignment]) -> None:
    """Mark the exercises whose grade id another notebook of their assignment has too
    (:attr:`~.answers.Exercise.shared_id`): their answers are compared notebook by
    notebook, never pooled."""
    assignments = list(assignments)
    counts = Counter((e.assignment, e.grade_id) for a in assignments for e in a.exercises)
    for read in assignments:
        read.exercises = [
            dataclasses.replace(e, shared_id=True) if counts[(e.assignment, e.grade_id)] > 1 else e
            for e in read.exercises
        ]


def compare_class(
    submissions: Iterable[tuple[str, str, Mapping[str, bytes]]],
    notebooks: Sequence[NotebookSource],
    settings: Settings | None = None,
    workers: int | None = None,
) -> SimilarityRun:
    """Compare a class's answers exercise by exercise.

    Parameters
    ----------
    submissions
        (student, assignment, notebook name -> the notebook's bytes), as handed in.
    notebooks
        The course's notebooks (:func:`course_notebooks`): which cells are exercises, what
        the release put in them, and the course's own code.
    settings
        The detector's parameters (default: :class:`Settings`'s).
    workers
        Processes comparing exercises at the same time (default: the cores; a small class
        is compared in this process).
    """
    started = time.monotonic()
    settings = settings or Settings()
    assignments: dict[tuple[str, str], Assignment] = {}
    for nb in notebooks:
        assignments[(nb.assignment, nb.notebook)] = read_assignment(
            nb.assignment, nb.source, nb.release, nb.notebook
        )
    _name_shared_ids(assignments.values())
    per_exercise: dict[str, list[tuple[str, str]]] = {}
    boilerplate: dict[str, str] = {}
    for read in assignments.values():
        for exercise in read.exercises:
            per_exercise[exercise.key] = []
            boilerplate[exercise.key] = read.boilerplate
    run = SimilarityRun(settings, [])
    students = set()
    code: dict[tuple[str, str], str] = {}
    for student, name, files in submissions:
        students.add(student)
        for notebook, content in sorted(files.items()):
            found = assignments.get((name, notebook))
            if found is None:
                continue
            answers, flags = student_answers(student, content, found.exercises)
            for answer in answers:
                per_exercise[answer.exercise.key].append((student, answer.code))
                code[(answer.exercise.key, student)] = answer.code
                flags.extend(answer.flags)
            if flags:
                run.flags.setdefault(f"{name}/{student}", []).extend(flags)
    run.students = len(students)
    jobs = sorted(per_exercise, key=lambda key: -len(per_exercise[key]))
    total = sum(len(v) for v in per_exercise.values())
    workers = workers or os.cpu_count() or 1
    if workers > 1 and total >= PARALLEL_MIN_ANSWERS:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context) as pool:
            futures = [
                pool.submit(_job, key, per_exercise[key], boilerplate[key], settings)
                for key in jobs
            ]
            results = [
                _result(future, key, per_exercise[key])
                for future, key in zip(futures, jobs, strict=True)
            ]
    else:
        results = [_job(key, per_exercise[key], boilerplate[key], settings) for key in jobs]
    run.exercises = sorted(results, key=lambda r: r.exercise)
    for result in run.exercises:
        assignment_name = result.exercise.split("/")[0]
        for student, flags in result.flags.items():
            run.flags.setdefault(f"{assignment_name}/{student}", []).extend(flags)
        for pair in result.pairs:
            for student in (pair.student_a, pair.student_b):
                run.answers[(pair.exercise, student)] = code[(pair.exercise, student)]
    run.seconds = time.monotonic() - started
    return run
