"""The instructor's jobs, the use cases the command line offers: release the course
(:func:`release_course`), grade a class (:func:`grade_path`), grade the demo class
(:func:`run_demo`). Each one ties the layers together: intake, course and release, grading,
report."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
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
    TermError,
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
from autograder.samples.demo import build_demo_submissions, write_demo_calendar
from autograder.term import (
    POLICIES,
    Calendar,
    ExportReport,
    Plan,
    SubmissionTimes,
    apply_times,
    choose_best,
    export_canvas,
    export_moodle_gradebook,
    export_moodle_worksheet,
    group_attempts,
    load_calendar,
    plan_attempts,
    read_times,
    settle,
)

__all__ = ["export_grades_to", "grade_path", "grade_prepared_run", "release_course", "run_demo"]

DEFAULT_COURSE_DIR = course.DEFAULT_COURSE_DIR
DEFAULT_OUT_DIR = Path("grading-out")
#: The demo's own course folder and outputs: never the instructor's course/.
DEMO_COURSE_DIR = Path("demo") / "course"
DEMO_OUT_DIR = Path("demo") / "grading-out"
#: course.toml: the course's calendar, read from the course folder unless named.
CALENDAR_NAME = "course.toml"


@dataclass
class TermInput:
    """The term's side of a run (:mod:`autograder.term`): the calendar, the plan of what
    was graded (each graded submission's time, the policy's flags, those not graded), and
    the class list of course.toml and the times file."""

    calendar: Calendar = field(default_factory=Calendar)
    plan: Plan = field(default_factory=Plan)
    roster: list[str] = field(default_factory=list)
    times: SubmissionTimes | None = None


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
    calendar: str | Path | None = None,
    times: str | Path | None = None,
    policy: str | None = None,
) -> GradeRun:
    """Grade a folder or LMS zip of submissions; write results.json, grades.csv, feedback,
    summary.md. ``limits``: how much of the submissions is read (intake's defaults).
    ``dask``: grade on a Dask cluster, ``"local:N"`` or ``"tcp://HOST:PORT"``
    (:mod:`autograder.grading.dask_batch`); default the local process pool.
    ``calendar``: the course's course.toml (default: the course folder's, if any);
    ``times``: a file of submission times (a Moodle grading worksheet, or a CSV
    ``student_id,timestamp``); ``policy``: which of a student's several submissions is
    graded (``latest``, ``best``, ``latest-on-time``; default course.toml's, else latest).

    Raises
    ------
    TermError
        course.toml or the times cannot be used, or an extension names a student outside
        the class (before anything is graded).
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
    term = _read_term(graded_course, known, calendar, times, policy)
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
    term.plan = _plan_term(term, assigned, source_notebooks)
    notebooks = ensure_released(graded_course, sorted({a for a, _ in assigned}))
    if term.plan.contest:
        contest = _grade_contest(graded_course, term, notebooks, workers, sandbox, target)
        for key, (raw, flag) in contest.items():
            term.plan.chosen[key] = raw
            term.plan.flags.setdefault(key, []).append(flag)
    prepared: list[PreparedSubmission] = [
        prepare(raw, a, notebooks[a]) for (a, _), raw in sorted(term.plan.chosen.items())
    ]
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
        term=term,
    )


def _read_term(
    graded_course: course.Course,
    known: list[str],
    calendar: str | Path | None,
    times: str | Path | None,
    policy: str | None,
) -> TermInput:
    """course.toml, the times file and the policy, checked before anything is read."""
    path = Path(calendar) if calendar is not None else graded_course.root / CALENDAR_NAME
    term = TermInput(load_calendar(path if calendar is not None or path.is_file() else None, known))
    if policy is not None:
        if policy not in POLICIES:
            raise TermError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
        term.calendar.policy = policy
    term.roster = list(term.calendar.students)
    if times is not None:
        term.times = read_times(times, term.calendar.timezone, known)
        term.roster += [s for s in term.times.roster if s not in term.roster]
    return term


def _plan_term(
    term: TermInput,
    assigned: list[tuple[str, RawSubmission]],
    source_notebooks: Mapping[str, list[str]],
) -> Plan:
    """Which submission of each student is graded (autograder.term.attempts); refuses an
    extension for a student outside the class before anything is graded."""
    policy = term.calendar.policy
    groups = group_attempts(assigned, source_notebooks, policy)
    time_flags = apply_times(groups, term.times)
    seen = {raw.student for _, raw in assigned} | set(term.roster)
    term.calendar.check_students(seen, {a for a, _ in assigned})
    plan = plan_attempts(groups, term.calendar, policy)
    for key, flags in time_flags.items():
        plan.flags.setdefault(key, [])[:0] = flags
    return plan


def _grade_contest(
    graded_course: course.Course,
    term: TermInput,
    notebooks: Mapping[str, list[str]],
    workers: int | None,
    sandbox: bool,
    dask: int | str | None,
) -> dict[tuple[str, str], tuple[RawSubmission, str]]:
    """Policy best: every submission of a student who handed in several is graded in a
    course of its own (``resubmissions/`` in the course folder, its own gradebook and
    ledger), and the one with the most points after its late penalty is chosen; the
    course's gradebook only ever sees the chosen one."""
    scratch = course.Course(graded_course.root / "resubmissions")
    ensure_released(scratch, sorted({a for a, _ in term.plan.contest}))
    tried: list[PreparedSubmission] = []
    for (assignment, student), attempts in sorted(term.plan.contest.items()):
        for number, raw in enumerate(attempts, start=1):
            stand_in = replace(raw, student=f"{student}+{number}")
            tried.append(prepare(stand_in, assignment, notebooks[assignment]))
    results = grade_prepared(
        scratch,
        tried,
        workers=workers or default_workers(),
        sandbox=sandbox,
        feedback=False,
        ledger=Ledger(scratch.root / "ledger.jsonl"),
        dask=dask,
    )
    chosen = {}
    for key, attempts in sorted(term.plan.contest.items()):
        scores = [
            (results[(key[0], f"{key[1]}+{n}")].score, results[(key[0], f"{key[1]}+{n}")].max_score)
            for n in range(1, len(attempts) + 1)
        ]
        chosen[key] = choose_best(term.calendar, key, attempts, scores)
    return chosen


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
    term: TermInput | None = None,
) -> GradeRun:
    """Grade prepared submissions with the ledger, then write the run's outputs.
    ``unmatched``: submissions that were not graded, each with why (a flag in the outputs);
    ``dask``: a parsed ``--dask`` target (grading's ``parse_dask_target``) or None;
    ``term``: the calendar and what was chosen to grade (the due dates, late penalties and
    the class's rows are recorded after grading: :func:`autograder.term.settle`)."""
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
    term = term or TermInput()
    settled = settle(
        graded_course,
        term.calendar,
        graded.values(),
        term.plan.chosen,
        plan_flags=term.plan.flags,
        closed=term.plan.closed,
        roster=term.roster,
    )
    results = settled.results
    out_dir.mkdir(parents=True, exist_ok=True)
    manual = manual_pending(graded_course, results)
    unmatched = dict(unmatched or {})
    write_results(results, out_dir / "results.json", list(unmatched), manual)
    export_grades(
        graded_course,
        results,
        out_dir / "grades.csv",
        students=settled.students,
        assignments=settled.assignments,
        flags=settled.row_flags,
    )
    if feedback:
        copy_feedback(graded_course, results, out_dir)
    flagged = {f"{r.assignment}/{r.student}": list(r.flags) for r in results if r.flags}
    for name, reason in unmatched.items():
        flagged[name] = [reason]
    text = summary_text(summarise(results), flagged, manual, settled.summary)
    (out_dir / "summary.md").write_text(text, encoding="utf-8")
    return GradeRun(results, out_dir, text, list(unmatched))


def _carried_ids(raw: RawSubmission) -> set[str]:
    """Every grade id the notebooks of one student's files carry."""
    return set().union(*(carried_ids(c) for n, c in raw.files.items() if n.endswith(".ipynb")))


# --------------------------------------------------------------------------- demo


def run_demo(
    course_dir: Path = DEMO_COURSE_DIR,
    out_dir: Path = DEMO_OUT_DIR,
    *,
    workers: int | None = None,
    sandbox: bool = True,
    progress: bool = False,
    assignments: Iterable[str] | None = None,
) -> GradeRun:
    """Release the course, build the demo class and its term (course.toml: due dates, one
    extension, one late submission), grade it; returns the run. The demo keeps to its own
    course folder and gradebook (default ``demo/course``), never an instructor's."""
    demo_course = course.Course(course_dir)
    names = list(assignments) if assignments else course.list_assignments()
    if not names:
        raise GradingError(f"no assignments found in {course.NOTEBOOKS_DIR}")
    if sandbox:
        resolve_sandbox(True)
    ensure_released(demo_course, names)
    demo_dir = demo_course.root / "demo_submissions"
    build_demo_submissions(demo_course.root, demo_dir, names)
    write_demo_calendar(demo_course.root, names)
    return grade_path(
        demo_dir,
        layout="nbgrader",
        course_dir=demo_course.root,
        out_dir=out_dir,
        workers=workers,
        sandbox=sandbox,
        progress=progress,
    )


# --------------------------------------------------------------------------- export


def export_grades_to(
    lms: str,
    course_dir: Path = DEFAULT_COURSE_DIR,
    *,
    db_url: str | None = None,
    assignments: Iterable[str] | None = None,
    dest: Path | None = None,
    gradebook: Path | None = None,
    worksheet: Path | None = None,
    key_column: str = "Username",
    calendar: Path | None = None,
) -> ExportReport:
    """The course's grades (its gradebook, after the late penalties) as an import file
    for ``lms``: Canvas's gradebook import (matching Canvas's own export ``gradebook``
    row for row, when given), or Moodle's grading worksheet filled in (``worksheet``, one
    assignment) or gradebook CSV keyed by ``key_column``. Returns what was written and
    who was left out.

    Raises
    ------
    TermError
        No such course folder, an assignment never graded, a file the LMS's importer
        would not read back, or options that do not fit ``lms``.
    """
    root = Path(course_dir)
    if not root.is_dir():
        raise TermError(f"no course folder {root} (grade a class first, or give --course)")
    graded_course = course.Course(root, db_url)
    names = list(assignments) if assignments else None
    if lms == "canvas":
        if worksheet is not None:
            raise TermError("--worksheet is Moodle's; for Canvas give --gradebook")
        path = calendar if calendar is not None else graded_course.root / CALENDAR_NAME
        known = course.list_assignments()
        term = load_calendar(path if calendar is not None or path.is_file() else None, known)
        columns = {name: t.canvas for name, t in term.terms.items() if t.canvas}
        target = dest or Path("canvas-grades.csv")
        return export_canvas(
            graded_course, target, gradebook=gradebook, assignments=names, columns=columns
        )
    if lms != "moodle":
        raise TermError(f"unknown LMS {lms!r}; choose canvas or moodle")
    if gradebook is not None:
        raise TermError("--gradebook is Canvas's; for Moodle give --worksheet")
    if worksheet is not None:
        if not names or len(names) != 1:
            raise TermError("a Moodle worksheet is one assignment's: give one --assignment")
        target = dest or Path(f"moodle-worksheet-{names[0]}.csv")
        return export_moodle_worksheet(graded_course, names[0], worksheet, target)
    target = dest or Path("moodle-grades.csv")
    return export_moodle_gradebook(graded_course, target, key_column=key_column, assignments=names)
