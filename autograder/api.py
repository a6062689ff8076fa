"""The instructor's jobs, the use cases the command line offers: release the course
(:func:`release_course`), grade a class (:func:`grade_path`), grade the demo class
(:func:`run_demo`). Each one ties the layers together: intake, course and release, grading,
report."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

from autograder import course
from autograder.faults import Fault, faults_as_errors
from autograder.files import write_atomic
from autograder.grading import (
    Ledger,
    canary_student,
    check_dask_gradebook,
    default_workers,
    grade_prepared,
    parse_dask_target,
    resolve_sandbox,
)
from autograder.intake import IntakeLimits, guess_assignment, prepare, read_submissions
from autograder.models import (
    GraderFault,
    GradeRun,
    GradingError,
    PreparedSubmission,
    RawSubmission,
    SubmissionResult,
    SubmissionsError,
)
from autograder.notebook import (
    assignment_mismatch,
    carried_ids,
    closest_assignment,
    folder_graded_ids,
    notebook_bytes,
)
from autograder.release import ensure_released, release_course
from autograder.report import (
    copy_feedback,
    export_grades,
    manual_pending,
    summarise,
    summary_text,
    write_results,
)
from autograder.samples import make_submission
from autograder.samples.demo import build_demo_submissions

__all__ = [
    "grade_path",
    "grade_prepared_run",
    "instructor_submissions",
    "release_course",
    "run_demo",
]

DEFAULT_COURSE_DIR = course.DEFAULT_COURSE_DIR
DEFAULT_OUT_DIR = Path("grading-out")


# --------------------------------------------------------------------------- grade


def _progress_bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc="grading",
        unit="submission",
        file=sys.stderr,
        disable=not enabled,
        dynamic_ncols=True,
    )


def grade_path(
    submissions: str | Path,
    *,
    assignment: str | None = None,
    layout: str = "auto",
    course_dir: Path = DEFAULT_COURSE_DIR,
    out_dir: Path = DEFAULT_OUT_DIR,
    workers: int | None = None,
    sandbox: bool = True,
    db_url: str | None = None,
    progress: bool = False,
    feedback: bool = True,
    on_result: Callable[[SubmissionResult], None] | None = None,
    limits: IntakeLimits | None = None,
    dask: str | None = None,
    regrade: bool | Collection[str] = False,
    on_canary: Callable[[list[str], float], None] | None = None,
    wait: bool = True,
) -> GradeRun:
    """Grade a folder or LMS zip of submissions; write results.json, grades.csv, feedback,
    summary.md. ``limits``: how much of the submissions is read (intake's defaults).
    ``dask``: grade on a Dask cluster, ``"local:N"`` or ``"tcp://HOST:PORT"``
    (:mod:`autograder.grading.dask_batch`); default the local process pool.
    ``regrade``: True grades every submission again instead of reusing what the ledger
    recorded, a collection of student ids those students' submissions.

    Before any student is graded, the instructor's solution of each assignment to grade
    is graded the same way (the canary, :mod:`autograder.grading.canary`);
    ``on_canary(assignments, seconds)`` is called when it got full marks.

    One run per course directory at a time (:meth:`~autograder.course.Course.lock`): while
    another holds it, this one waits (saying so on stderr), or with ``wait=False`` raises
    :class:`~autograder.models.CourseBusy` before anything is written.

    Raises
    ------
    SubmissionsError
        The submissions cannot be read at all (bad path, unknown layout), a bad ``dask``
        (or a scheduler with an SQLite gradebook), or, with
        ``assignment`` given, most of them carry none of its graded cells (a wrong
        ``--assignment``: nothing is graded or written).
    GradingError
        The grader itself cannot run (unknown assignment, sandbox unavailable, database);
        :class:`~autograder.models.CanaryFailed` when the instructor's solution does not
        get full marks (nothing graded or written).
        :class:`~autograder.models.GraderFault` when a failure of the machine stopped it
        (a full disk, the gradebook locked or gone: one line saying what to do).
    """
    graded_course = course.Course(course_dir, db_url)
    target = parse_dask_target(dask) if dask is not None else None
    if target is not None:
        check_dask_gradebook(target, graded_course.db_url)
    out_dir = Path(out_dir).resolve()
    known = course.list_assignments()
    if assignment is not None and assignment not in known:
        raise SubmissionsError(
            f"unknown assignment {assignment!r}; the course has: {', '.join(known)}"
        )
    if sandbox:
        resolve_sandbox(True)  # refuse early, before anything is written
    raws = read_submissions(submissions, assignment=assignment, layout=layout, limits=limits)
    source_notebooks = {
        a: sorted(p.stem for p in (course.NOTEBOOKS_DIR / a).glob("*.ipynb")) for a in known
    }
    # Which assignment the notebooks' grade ids say: an instructor's wrong --assignment is
    # refused here, before anything is written; a guess from file names yields to it.
    graded = {a: folder_graded_ids(course.NOTEBOOKS_DIR / a) for a in known}
    carried = [_carried_ids(raw) for raw in raws]
    if assignment is not None:
        mismatch = assignment_mismatch(assignment, carried, graded)
        if mismatch:
            raise SubmissionsError(mismatch)
    unmatched: dict[str, str] = {}  # submission -> why it is not graded
    assigned = []
    id_limit = course.id_length_limit()
    for raw, ids in zip(raws, carried, strict=True):
        if len(raw.student) > id_limit:
            unmatched[f"{raw.student[:40]}…/{raw.assignment or '?'}"] = (
                f"student id longer than {id_limit} characters, the gradebook's limit "
                "(not graded; shorten the folder name)"
            )
            continue
        name = raw.assignment or guess_assignment(raw.files, source_notebooks)
        by_cells = closest_assignment(ids, graded) if raw.assignment is None else None
        if by_cells and not ids & graded.get(name or "", set()):
            if name:
                raw.flags.append(
                    f"the file names look like {name}, but the notebooks carry {by_cells}'s "
                    f"graded cells: graded as {by_cells}"
                )
            name = by_cells
        if name is None or name not in known:
            unmatched[f"{raw.student}/{raw.assignment or '?'}"] = (
                "not a submission of any assignment of this course (not graded)"
            )
            continue
        assigned.append((name, raw))
    if not assigned:
        if unmatched:
            raise SubmissionsError(
                "no submission belongs to a known assignment (pass --assignment for an LMS "
                f"zip); found {', '.join(list(unmatched)[:5])}"
            )
        raise SubmissionsError(f"no submissions found in {submissions}")
    if regrade and regrade is not True:
        present = {raw.student for _, raw in assigned}
        absent = sorted(set(regrade) - present)
        if absent:
            raise SubmissionsError(
                f"--student {absent[0]}: no submission of that student in {submissions}"
            )
    with graded_course.lock(wait=wait):
        with faults_as_errors("releasing the assignments"):
            notebooks = ensure_released(graded_course, sorted({a for a, _ in assigned}))
        prepared: list[PreparedSubmission] = [prepare(raw, a, notebooks[a]) for a, raw in assigned]
        return grade_prepared_run(
            prepared,
            graded_course,
            out_dir=out_dir,
            workers=workers,
            sandbox=sandbox,
            progress=progress,
            feedback=feedback,
            unmatched=unmatched,
            on_result=on_result,
            dask=target,
            regrade=regrade,
            on_canary=on_canary,
        )


def grade_prepared_run(
    prepared: list[PreparedSubmission],
    graded_course: course.Course,
    *,
    out_dir: Path,
    workers: int | None,
    sandbox: bool,
    progress: bool,
    feedback: bool,
    unmatched: Mapping[str, str] | None = None,
    on_result: Callable[[SubmissionResult], None] | None = None,
    dask: int | str | None = None,
    regrade: bool | Collection[str] = False,
    on_canary: Callable[[list[str], float], None] | None = None,
) -> GradeRun:
    """Grade prepared submissions with the ledger, the canary first, then write the run's
    outputs. ``unmatched``: submissions that were not graded, each with why (a flag in the
    outputs); ``dask``: a parsed ``--dask`` target (grading's ``parse_dask_target``) or
    None; ``regrade``, ``on_canary``: as for :func:`grade_path`.

    Holds the course (:meth:`~autograder.course.Course.lock`, waiting for another run).
    A failure of the machine raises :class:`~autograder.models.GraderFault`: while grading,
    before any output is written (the old files stay); while writing, that file stays the
    old one. A grading worker that died costs its submission only: the outputs are written
    with it flagged, then :class:`~autograder.models.GraderFault`. The ledger keeps what
    was finished, so the same command run again completes the class."""
    with graded_course.lock():
        return _grade_and_write(
            prepared,
            graded_course,
            out_dir=out_dir,
            workers=workers,
            sandbox=sandbox,
            progress=progress,
            feedback=feedback,
            unmatched=unmatched,
            on_result=on_result,
            dask=dask,
            regrade=regrade,
            on_canary=on_canary,
        )


def _grade_and_write(
    prepared: list[PreparedSubmission],
    graded_course: course.Course,
    *,
    out_dir: Path,
    workers: int | None,
    sandbox: bool,
    progress: bool,
    feedback: bool,
    unmatched: Mapping[str, str] | None,
    on_result: Callable[[SubmissionResult], None] | None,
    dask: int | str | None,
    regrade: bool | Collection[str],
    on_canary: Callable[[list[str], float], None] | None,
) -> GradeRun:
    ledger = Ledger(graded_course.root / "ledger.jsonl")
    canaries = instructor_submissions(graded_course, sorted({p.assignment for p in prepared}))
    if ledger.unreadable:
        lines = ", ".join(map(str, ledger.unreadable[:5]))
        more = f" (+{len(ledger.unreadable) - 5} more)" if len(ledger.unreadable) > 5 else ""
        print(
            f"note: the course's ledger.jsonl has {len(ledger.unreadable)} unreadable line(s) "
            f"(line {lines}{more}: cut off by a crash), ignored: those submissions are graded "
            "again",
            file=sys.stderr,
        )
    bar = _progress_bar(len(prepared), progress)

    def done(result: SubmissionResult) -> None:
        bar.update(1)
        if on_result is not None:
            on_result(result)

    try:
        graded = grade_prepared(
            graded_course,
            prepared,
            workers=workers or default_workers(),
            sandbox=sandbox,
            feedback=feedback,
            ledger=ledger,
            on_result=done,
            dask=dask,
            canaries=canaries,
            on_canary=on_canary,
            regrade=regrade,
        )
    finally:
        bar.close()
    results = list(graded.values())
    unmatched = dict(unmatched or {})
    with faults_as_errors("writing the results"):
        manual = manual_pending(graded_course, results)
    # each output is written whole (autograder.files.write_atomic): after a fault it is the
    # old file or the new one, and the message names the one that failed
    with faults_as_errors(f"creating the output folder {out_dir.name}/"):
        out_dir.mkdir(parents=True, exist_ok=True)
    with faults_as_errors("writing results.json"):
        write_results(results, out_dir / "results.json", list(unmatched), manual)
    with faults_as_errors("writing grades.csv"):
        export_grades(graded_course, results, out_dir / "grades.csv")
    if feedback:
        with faults_as_errors("writing the feedback pages"):
            copy_feedback(graded_course, results, out_dir)
    flagged = {f"{r.assignment}/{r.student}": list(r.flags) for r in results if r.flags}
    for name, reason in unmatched.items():
        flagged[name] = [reason]
    text = summary_text(summarise(results), flagged, manual)
    with faults_as_errors("writing summary.md"):
        write_atomic(out_dir / "summary.md", text)
    faulted = [r for r in results if r.fault]
    if faulted:  # a grading worker died: the rest of the class is written, that one flagged
        first = faulted[0]
        others = f" and {len(faulted) - 1} more (flagged)" if len(faulted) > 1 else ""
        fault = Fault(first.fault, fatal=False)
        raise GraderFault(fault.message(f"grading {first.assignment}/{first.student}{others}"))
    return GradeRun(results, out_dir, text, list(unmatched))


def instructor_submissions(
    graded_course: course.Course, assignments: Iterable[str]
) -> list[PreparedSubmission]:
    """The canary of each assignment: its release notebooks filled with the instructor's
    solutions from the course's source notebooks, prepared as a student's submission is,
    under the canary's reserved student id (grading's ``canary_student``)."""
    student = canary_student(graded_course)
    out = []
    for assignment in assignments:
        names = sorted(p.stem for p in graded_course.source_dir(assignment).glob("*.ipynb"))
        files = {
            f"{name}.ipynb": notebook_bytes(
                make_submission(
                    graded_course.root / "release" / assignment / f"{name}.ipynb",
                    graded_course.source_dir(assignment) / f"{name}.ipynb",
                )
            )
            for name in names
        }
        out.append(prepare(RawSubmission(student, assignment, files), assignment, names))
    return out


def _carried_ids(raw: RawSubmission) -> set[str]:
    """Every grade id the notebooks of one student's files carry."""
    return set().union(*(carried_ids(c) for n, c in raw.files.items() if n.endswith(".ipynb")))


# --------------------------------------------------------------------------- demo


def run_demo(
    course_dir: Path = DEFAULT_COURSE_DIR,
    out_dir: Path = DEFAULT_OUT_DIR,
    *,
    workers: int | None = None,
    sandbox: bool = True,
    progress: bool = False,
    assignments: Iterable[str] | None = None,
    on_canary: Callable[[list[str], float], None] | None = None,
    wait: bool = True,
) -> GradeRun:
    """Release the course, build the demo class, grade it (the canary first, as
    :func:`grade_path` does); returns the run. ``wait``: as :func:`grade_path`'s (one run
    per course directory)."""
    demo_course = course.Course(course_dir)
    names = list(assignments) if assignments else course.list_assignments()
    if not names:
        raise GradingError(f"no assignments found in {course.NOTEBOOKS_DIR}")
    if sandbox:
        resolve_sandbox(True)
    with demo_course.lock(wait=wait):
        with faults_as_errors("releasing the assignments"):
            ensure_released(demo_course, names)
            demo_dir = demo_course.root / "demo_submissions"
            build_demo_submissions(demo_course.root, demo_dir, names)
        return grade_path(
            demo_dir,
            layout="nbgrader",
            course_dir=demo_course.root,
            out_dir=out_dir,
            workers=workers,
            sandbox=sandbox,
            progress=progress,
            on_canary=on_canary,
        )
