"""The instructor's jobs, the use cases the command line offers: release the course
(:func:`release_course`), grade a class (:func:`grade_path`), grade the demo class
(:func:`run_demo`). Each one ties the layers together: intake, course and release, grading,
report."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from autograder import course
from autograder.grading import (
    Ledger,
    check_dask_gradebook,
    default_workers,
    grade_prepared,
    parse_dask_target,
    resolve_sandbox,
)
from autograder.intake import IntakeLimits, guess_assignment, prepare, read_submissions
from autograder.models import (
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
from autograder.samples.demo import build_demo_submissions
from autograder.similarity import report_class, summary_line

__all__ = ["grade_path", "grade_prepared_run", "release_course", "run_demo"]

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
    similarity: bool = False,
) -> GradeRun:
    """Grade a folder or LMS zip of submissions; write results.json, grades.csv, feedback,
    summary.md. ``limits``: how much of the submissions is read (intake's defaults).
    ``dask``: grade on a Dask cluster, ``"local:N"`` or ``"tcp://HOST:PORT"``
    (:mod:`autograder.grading.dask_batch`); default the local process pool.
    ``similarity``: also compare the answers (:mod:`autograder.similarity`):
    similarity.html, similarity.csv and a line of summary.md.

    Raises
    ------
    SubmissionsError
        The submissions cannot be read at all (bad path, unknown layout), a bad ``dask``
        (or a scheduler with an SQLite gradebook), or, with
        ``assignment`` given, most of them carry none of its graded cells (a wrong
        ``--assignment``: nothing is graded or written).
    GradingError
        The grader itself cannot run (unknown assignment, sandbox unavailable, database).
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
        similarity=similarity,
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
    similarity: bool = False,
) -> GradeRun:
    """Grade prepared submissions with the ledger, then write the run's outputs.
    ``unmatched``: submissions that were not graded, each with why (a flag in the outputs);
    ``dask``: a parsed ``--dask`` target (grading's ``parse_dask_target``) or None;
    ``similarity``: also write the similarity report (see :func:`grade_path`)."""
    ledger = Ledger(graded_course.root / "ledger.jsonl")
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
        )
    finally:
        bar.close()
    results = list(graded.values())
    out_dir.mkdir(parents=True, exist_ok=True)
    manual = manual_pending(graded_course, results)
    unmatched = dict(unmatched or {})
    write_results(results, out_dir / "results.json", list(unmatched), manual)
    export_grades(graded_course, results, out_dir / "grades.csv")
    if feedback:
        copy_feedback(graded_course, results, out_dir)
    flagged = {f"{r.assignment}/{r.student}": list(r.flags) for r in results if r.flags}
    for name, reason in unmatched.items():
        flagged[name] = [reason]
    similar = None
    if similarity:
        similar = summary_line(report_class(prepared, graded_course.root, out_dir, workers))
    text = summary_text(summarise(results), flagged, manual, similar)
    (out_dir / "summary.md").write_text(text, encoding="utf-8")
    return GradeRun(results, out_dir, text, list(unmatched))


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
) -> GradeRun:
    """Release the course, build the demo class, grade it, compare its answers (the
    similarity report); returns the run."""
    demo_course = course.Course(course_dir)
    names = list(assignments) if assignments else course.list_assignments()
    if not names:
        raise GradingError(f"no assignments found in {course.NOTEBOOKS_DIR}")
    if sandbox:
        resolve_sandbox(True)
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
        similarity=True,
    )
