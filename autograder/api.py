"""The instructor's jobs, the use cases the command line offers: release the course
(:func:`release_course`), grade a class (:func:`grade_path`), grade the demo class
(:func:`run_demo`). Each one ties the layers together: intake, course and release, grading,
report."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder import DEMO_COURSE_DIR, DEMO_OUT_DIR, course, phases
from autograder.faults import Fault, faults_as_errors
from autograder.feedback import StaleFeedback
from autograder.files import sweep_temp_files, write_atomic
from autograder.grading import (
    Ledger,
    canary_student,
    check_dask_gradebook,
    generate_feedback,
    grade_prepared,
    parse_dask_target,
)
from autograder.intake import match_assignments, prepare, read_submissions
from autograder.lms import ExportReport, lms_plugin
from autograder.models import (
    CourseFolderError,
    GraderFault,
    GradeRun,
    GradingError,
    PreparedSubmission,
    RawSubmission,
    SubmissionResult,
    SubmissionsError,
    TermError,
)
from autograder.notebook import folder_graded_ids, notebook_bytes
from autograder.options import GradeOptions
from autograder.release import ensure_released
from autograder.release import release_course as release_assignments
from autograder.report import (
    copy_feedback,
    export_grades,
    summarise,
    summary_text,
    totals,
    write_results,
)
from autograder.samples import course_markers, make_submission
from autograder.samples.demo import build_demo_submissions, write_demo_calendar
from autograder.sandbox import resolve_sandbox
from autograder.similarity import report_class, summary_line
from autograder.source import CATALOGUE_NAME, CourseSource
from autograder.term import (
    POLICIES,
    Calendar,
    Plan,
    SubmissionTimes,
    apply_times,
    choose_best,
    export_to_lms,
    group_attempts,
    load_calendar,
    plan_attempts,
    read_times,
    settle,
    write_calendar_template,
)
from autograder.text import listing, shown_path

__all__ = [
    "DEMO_OPTIONS",
    "CourseChoice",
    "GradeOptions",
    "export_grades_to",
    "grade_path",
    "grade_prepared_run",
    "grading_course",
    "instructor_submissions",
    "release_course",
    "run_demo",
]

log = logging.getLogger(__name__)

DEFAULT_COURSE_DIR = course.DEFAULT_COURSE_DIR
#: course.toml: the course's calendar, read from the course folder unless named.
CALENDAR_NAME = "course.toml"
#: The demo's options unless told otherwise: its own course folder and outputs, never an
#: instructor's (the rest: :class:`GradeOptions`'s defaults, the sandbox on).
DEMO_OPTIONS = GradeOptions(course_dir=DEMO_COURSE_DIR, out_dir=DEMO_OUT_DIR)


@dataclass
class TermInput:
    """The term's side of a run (:mod:`autograder.term`): the calendar, the plan of what
    was graded (each graded submission's time, the policy's flags, those not graded), and
    the class list of course.toml and the times file."""

    calendar: Calendar = field(default_factory=Calendar)
    plan: Plan = field(default_factory=Plan)
    roster: list[str] = field(default_factory=list)
    times: SubmissionTimes | None = None


# --------------------------------------------------------------------------- release


def release_course(
    course_dir: Path = DEFAULT_COURSE_DIR,
    assignments: Iterable[str] | None = None,
    *,
    db_url: str | None = None,
    wait: bool = True,
    source: CourseSource | None = None,
    on_calendar: Callable[[Path, bool], None] | None = None,
) -> dict[str, Path]:
    """Release every assignment (or those named): the release folder and the zip to hand
    out of each (:func:`autograder.release.release_course`); returns assignment -> zip.

    The course's calendar is then ready to fill in: when the course has none (no
    course.toml in the course folder, nor beside the nbgrader_config.py of an instructor's
    own course), a commented template is written into the course folder, listing every
    assignment of the course with a due date to set and the late rules
    (:func:`autograder.term.write_calendar_template`), which :func:`grade_path` reads as
    "no due dates yet"; an existing one is never touched. ``on_calendar(path, written)``
    is told which file is the course's calendar and whether it was written now."""
    zips = release_assignments(course_dir, assignments, db_url=db_url, wait=wait, source=source)
    released = course.open_course(course_dir, db_url, source)
    existing = _calendar_path(released, None)
    path = existing or released.root / CALENDAR_NAME
    with released.lock(wait=wait), faults_as_errors(f"writing {CALENDAR_NAME}"):
        written = existing is None and write_calendar_template(path, released.source.assignments())
    if on_calendar is not None:
        on_calendar(path, written)
    return zips


# --------------------------------------------------------------------------- grade


@dataclass(frozen=True)
class CourseChoice:
    """The course folder a grading run uses: where, whether it is built now, and how the
    command line names it (relative to the current folder)."""

    root: Path
    new: bool
    shown: str


#: How a course folder lies around the submissions or the current folder, in words
#: (:func:`autograder.course.course_near`).
_NEAR = {
    ("the submissions", "inside"): "the submissions are inside",
    ("the submissions", "beside"): "the submissions sit beside",
    ("the submissions", "holds"): "the submissions' folder holds",
    ("this folder", "inside"): "this folder is inside",
    ("this folder", "beside"): "this folder sits beside",
    ("this folder", "holds"): "this folder holds",
}


def grading_course(
    course_dir: str | Path, submissions: str | Path, *, named: bool, here: Path | None = None
) -> CourseChoice:
    """The course folder a grading run of ``submissions`` uses: ``course_dir``, named by
    the instructor (``named``) or the default (``course/`` in the current folder, ``here``).

    The rule: a default course folder not built yet (:func:`grade_path` would build a new
    one) is refused when a course folder this grader built — an existing class's, with its
    gradebook and course.toml — lies around the submissions or the current folder: they are
    inside it, sit beside it, or hold it (:func:`autograder.course.course_near`). A
    course folder named with ``--course`` is used as named, new or not.

    Raises
    ------
    CourseFolderError
        That refusal, one line naming the existing course folder and ``--course``.
    """
    here = (here or Path.cwd()).resolve()
    root = (here / course_dir).resolve()
    choice = CourseChoice(root, not course.holds_a_course(root), shown_path(root, here))
    if not choice.new or named:
        return choice
    for who, place in (("the submissions", here / submissions), ("this folder", here)):
        near = course.course_near(place)
        if near is None:
            continue
        existing, how = near
        shown = shown_path(existing, here)
        calendar = " (with its course.toml)" if (existing / CALENDAR_NAME).is_file() else ""
        raise CourseFolderError(
            f"refusing to build a new course folder {choice.shown}/: {_NEAR[(who, how)]} the "
            f"course folder {shown}/ of an existing class{calendar}; give --course {shown} "
            "to grade into it (or --course with a new folder's name to start another)"
        )
    return choice


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
    options: GradeOptions | None = None,
    *,
    on_result: Callable[[SubmissionResult], None] | None = None,
    on_canary: Callable[[list[str], float], None] | None = None,
) -> GradeRun:
    """Grade a folder or LMS zip of submissions as ``options`` say
    (:class:`~autograder.options.GradeOptions`; None: its defaults, the sandbox on); write
    results.json, grades.csv, feedback (``options.feedback``), summary.md to
    ``options.out_dir``. ``on_result(result)`` is called as each submission's result comes.

    Before any student is graded, the instructor's solution of each assignment to grade
    is graded the same way (the canary, :mod:`autograder.grading.canary`);
    ``on_canary(assignments, seconds)`` is called when it got full marks.

    One run per course directory at a time (:meth:`~autograder.course.Course.lock`): while
    another holds it, this one waits (saying so on stderr), or with ``options.wait`` False
    raises :class:`~autograder.models.CourseBusy` before anything is written.

    ``options.source``: the course to grade; default the one the course folder was built
    from, else this repository's. A course folder built from another course is refused.
    ``options.similarity``: also compare the answers (:mod:`autograder.similarity`):
    similarity.html, similarity.csv and a line of summary.md.

    Raises
    ------
    TermError
        course.toml or the times cannot be used, or an extension names a student outside
        the class (before anything is graded).
    SubmissionsError
        The submissions cannot be read at all (bad path, unknown layout), a bad
        ``options.dask`` (or a scheduler with an SQLite gradebook), or, with
        ``options.assignment`` given, most of them carry none of its graded cells (a wrong
        ``--assignment``: nothing is graded or written).
    GradingError
        The grader itself cannot run (unknown assignment, sandbox unavailable, database);
        :class:`~autograder.models.CanaryFailed` when the instructor's solution does not
        get full marks (nothing graded or written).
        :class:`~autograder.models.GraderFault` when a failure of the machine stopped it
        (a full disk, the gradebook locked or gone: one line saying what to do).
    """
    options = GradeOptions() if options is None else options
    assignment, regrade = options.assignment, options.regrade
    phases.start_record()
    graded_course = course.open_course(options.course_dir, options.db_url, options.source)
    if options.dask is not None:
        check_dask_gradebook(parse_dask_target(options.dask), graded_course.db_url)
    known = graded_course.source.assignments()
    if assignment is not None and assignment not in known:
        raise SubmissionsError(
            f"unknown assignment {assignment!r}; the course has: {', '.join(known)}"
        )
    term = _read_term(graded_course, known, options)
    if options.sandbox:
        resolve_sandbox(True)  # refuse early, before anything is written
    with phases.phase(phases.INTAKE):
        raws = read_submissions(
            submissions, assignment=assignment, layout=options.layout, limits=options.limits
        )
    source_notebooks = {a: graded_course.source.notebooks(a) for a in known}
    # Which assignment each submission is (its folder's name, else its file names, else its
    # notebooks' grade ids say; a doubt left is flagged and noted): an instructor's wrong
    # --assignment is refused here, before anything is written.
    graded = {a: folder_graded_ids(graded_course.source.assignment_dir(a)) for a in known}
    assigned, unmatched = match_assignments(
        raws,
        assignment=assignment,
        graded=graded,
        source_notebooks=source_notebooks,
        id_limit=course.id_length_limit(),
        where=submissions,
    )
    term.plan = _plan_term(term, assigned, source_notebooks)
    if regrade and regrade is not True:
        present = {raw.student for _, raw in assigned}
        absent = sorted(set(regrade) - present)
        if absent:
            raise SubmissionsError(
                f"--student {absent[0]}: no submission of that student in {submissions}"
            )
    with graded_course.lock(wait=options.wait):
        with faults_as_errors("releasing the assignments"):
            # what grading needs of a release: its notebooks and files, not the students'
            # zips (``release`` writes those: 12 of the 20 s of this course's first release)
            notebooks = ensure_released(graded_course, sorted({a for a, _ in assigned}), zips=False)
        if term.plan.contest:
            contest = _grade_contest(graded_course, term, notebooks, options)
            for key, (raw, flag) in contest.items():
                term.plan.chosen[key] = raw
                term.plan.flags.setdefault(key, []).append(flag)
        with phases.phase(phases.INTAKE):
            released = {a: _released_files(graded_course, a) for a in notebooks}
            prepared: list[PreparedSubmission] = [
                prepare(raw, a, notebooks[a], released[a])
                for (a, _), raw in sorted(term.plan.chosen.items())
            ]
        return grade_prepared_run(
            prepared,
            graded_course,
            options,
            unmatched=unmatched,
            on_result=on_result,
            on_canary=on_canary,
            term=term,
        )


def _released_files(graded_course: course.Course, assignment: str) -> set[str]:
    """The files of an assignment's release besides its notebooks (its data, images,
    helper modules), by their paths inside it."""
    release = graded_course.release_dir(assignment)
    return {
        p.relative_to(release).as_posix()
        for p in release.rglob("*")
        if p.is_file() and p.suffix != ".ipynb"
    }


def _calendar_path(graded_course: course.Course, calendar: str | Path | None) -> Path | None:
    """The course's calendar: the one named, else course.toml in the course folder, else
    (another course's) course.toml beside its nbgrader_config.py; None: no calendar."""
    if calendar is not None:
        return Path(calendar)
    candidates = [graded_course.root / CALENDAR_NAME]
    if not graded_course.source.own:
        candidates.append(graded_course.source.root / CALENDAR_NAME)
    return next((path for path in candidates if path.is_file()), None)


def _read_term(graded_course: course.Course, known: list[str], options: GradeOptions) -> TermInput:
    """course.toml, the times file and the policy of ``options``, checked before anything
    is read."""
    term = TermInput(load_calendar(_calendar_path(graded_course, options.calendar), known))
    policy, times = options.policy, options.times
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
    options: GradeOptions,
) -> dict[tuple[str, str], tuple[RawSubmission, str]]:
    """Policy best: every submission of a student who handed in several is graded in a
    course of its own (``resubmissions/`` in the course folder, its own gradebook and
    ledger; the canary first, as for the class, so a broken environment's zeros are never
    recorded as a try's score), and the one with the most points after its late penalty
    is chosen; the course's gradebook only ever sees the chosen one. Graded as ``options``
    say, without feedback pages; ``options.regrade``: as for :func:`grade_path` (a
    student's tries are graded again with the student)."""
    regrade = options.regrade
    scratch = course.Course(graded_course.root / "resubmissions", source=graded_course.source)
    assignments = sorted({a for a, _ in term.plan.contest})
    with faults_as_errors("releasing the assignments"):
        ensure_released(scratch, assignments, zips=False)
    tried: list[PreparedSubmission] = []
    again: set[str] = set()
    for (assignment, student), attempts in sorted(term.plan.contest.items()):
        for number, raw in enumerate(attempts, start=1):
            stand_in = replace(raw, student=f"{student}+{number}")
            released = _released_files(graded_course, assignment)
            tried.append(prepare(stand_in, assignment, notebooks[assignment], released))
            if regrade is not True and regrade and student in regrade:
                again.add(stand_in.student)
    results = grade_prepared(
        scratch,
        tried,
        replace(options, feedback=False, regrade=True if regrade is True else frozenset(again)),
        ledger=Ledger(scratch.root / "ledger.jsonl"),
        canaries=instructor_submissions(scratch, assignments),
    )
    # each try's score of its maximum as the gradebook counts them (as the late penalty
    # recorded for the chosen one is counted: autograder.term.record)
    worth = totals(scratch, results.values())
    chosen = {}
    for key, attempts in sorted(term.plan.contest.items()):
        tries = [worth[(key[0], f"{key[1]}+{n}")] for n in range(1, len(attempts) + 1)]
        scores = [(t.score, t.max_score) for t in tries]
        chosen[key] = choose_best(term.calendar, key, attempts, scores)
    return chosen


def grade_prepared_run(
    prepared: list[PreparedSubmission],
    graded_course: course.Course,
    options: GradeOptions,
    *,
    unmatched: Mapping[str, str] | None = None,
    on_result: Callable[[SubmissionResult], None] | None = None,
    on_canary: Callable[[list[str], float], None] | None = None,
    term: TermInput | None = None,
) -> GradeRun:
    """Grade prepared submissions with the ledger, the canary first, then write the run's
    outputs, as ``options`` say (the course's own, ``graded_course``, already open: its
    ``course_dir``, ``db_url`` and ``source`` are not read again). ``unmatched``:
    submissions that were not graded, each with why (a flag in the outputs);
    ``on_result``, ``on_canary``: as for :func:`grade_path`; ``term``: the calendar and
    what was chosen to grade (the due dates, late penalties and the class's rows are
    recorded after grading: :func:`autograder.term.settle`).

    Holds the course (:meth:`~autograder.course.Course.lock`, waiting for another run).
    A failure of the machine raises :class:`~autograder.models.GraderFault`: while grading,
    before any output is written (the old files stay); while writing, that file stays the
    old one. A grading worker that died costs its submission only: the outputs are written
    with it flagged, then :class:`~autograder.models.GraderFault`. The ledger keeps what
    was finished, so the same command run again completes the class."""
    out_dir, feedback = Path(options.out_dir).resolve(), options.feedback
    with graded_course.lock():
        ledger = Ledger(graded_course.root / "ledger.jsonl")
        canaries = instructor_submissions(graded_course, sorted({p.assignment for p in prepared}))
        if ledger.unreadable:
            log.warning(
                "the course's ledger.jsonl has %d unreadable line(s) (line %s: cut off by a "
                "crash), ignored: those submissions are graded again",
                len(ledger.unreadable),
                listing(ledger.unreadable),
            )
        bar = _progress_bar(len(prepared), options.progress)

        def done(result: SubmissionResult) -> None:
            bar.update(1)
            if on_result is not None:
                on_result(result)

        own: dict[str, dict[str, str]] = {}
        try:
            graded = grade_prepared(
                graded_course,
                prepared,
                options,
                ledger=ledger,
                on_result=done,
                canaries=canaries,
                on_canary=on_canary,
                instructor_failures=own,
            )
        finally:
            bar.close()
        term = term or TermInput()
        with faults_as_errors("recording the due dates and late penalties in the gradebook"):
            # a page written before its penalty was recorded (or changed) is written again
            stale = StaleFeedback(graded_course, generate_feedback)
            settled = settle(
                graded_course,
                term.calendar,
                graded.values(),
                term.plan.chosen,
                plan_flags=term.plan.flags,
                closed=term.plan.closed,
                roster=term.roster,
                on_repriced=stale.add,
            )
        if feedback:
            with faults_as_errors("writing the feedback pages again after the late penalties"):
                for line in stale.refresh():
                    log.warning("feedback page not written again: %s", line)
        results = settled.results
        names = {p.student: p.name for p in prepared if p.name}  # as the submissions say
        with faults_as_errors("recording the students' names in the gradebook"):
            graded_course.name_students(names)
        unmatched = dict(unmatched or {})
        with faults_as_errors("writing the results"):
            # what each submission is worth, the points graded by hand included, and what
            # of it awaits a hand grade: the gradebook's as it is now
            worth = totals(graded_course, results)
            manual = {key: total.pending for key, total in worth.items()}
        # each output is written whole (autograder.files.write_atomic): after a fault it is the
        # old file or the new one, and the message names the one that failed
        with faults_as_errors(f"creating the output folder {out_dir.name}/"):
            out_dir.mkdir(parents=True, exist_ok=True)
        sweep_temp_files(out_dir)  # of a run killed while it wrote an output (the pages': below)
        with faults_as_errors("writing results.json"), phases.phase(phases.REPORTS):
            write_results(results, out_dir / "results.json", list(unmatched), worth)
        with faults_as_errors("writing grades.csv"), phases.phase(phases.REPORTS):
            export_grades(
                graded_course,
                results,
                out_dir / "grades.csv",
                students=settled.students,
                assignments=settled.assignments,
                flags=settled.row_flags,
                clock=term.calendar.clock,
            )
        if feedback:
            with faults_as_errors("writing the feedback pages"), phases.phase(phases.REPORTS):
                copy_feedback(graded_course, results, out_dir, names)
        flagged = {f"{r.assignment}/{r.student}": list(r.flags) for r in results if r.flags}
        for name, reason in unmatched.items():
            flagged[name] = [reason]
        similar = None
        if options.similarity:
            similar = summary_line(
                report_class(prepared, graded_course.root, out_dir, options.workers)
            )
        graded_names = sorted({r.assignment for r in results})
        uncatalogued = [
            a for a in graded_names if not (graded_course.source_dir(a) / CATALOGUE_NAME).is_file()
        ]
        text = summary_text(
            summarise(results, worth),
            flagged,
            manual,
            similarity=similar,
            terms=settled.summary,
            uncatalogued=uncatalogued,
            instructor_failures=own,
        )
        with faults_as_errors("writing summary.md"), phases.phase(phases.REPORTS):
            write_atomic(out_dir / "summary.md", text)
        phases.write_profile()
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
    markers = course_markers(graded_course.config())
    out = []
    for assignment in assignments:
        names = sorted(p.stem for p in graded_course.source_dir(assignment).glob("*.ipynb"))
        files = {
            f"{name}.ipynb": notebook_bytes(
                make_submission(
                    graded_course.root / "release" / assignment / f"{name}.ipynb",
                    graded_course.source_dir(assignment) / f"{name}.ipynb",
                    markers=markers,
                )
            )
            for name in names
        }
        out.append(prepare(RawSubmission(student, assignment, files), assignment, names))
    return out


# --------------------------------------------------------------------------- demo


def run_demo(
    options: GradeOptions = DEMO_OPTIONS,
    *,
    assignments: Iterable[str] | None = None,
    on_canary: Callable[[list[str], float], None] | None = None,
) -> GradeRun:
    """Release the course, build the demo class and its term (course.toml: due dates, one
    extension, one late submission) from ``assignments`` (default: all), grade it as
    ``options`` say (the canary first, as :func:`grade_path` does); returns the run. The
    demo keeps to its own course folder and gradebook (``options.course_dir``, default
    ``demo/course``), never an instructor's. The demo decides its class (its layout, every
    assignment), its course (the folder's own gradebook, this repository's source, its own
    course.toml) and the similarity report (on); every other option is taken as given:
    the folders, the sandbox, the workers or Dask, the feedback, ``regrade``, the intake
    limits, the progress bar and ``wait`` (as :func:`grade_path`'s: one run per course
    directory)."""
    demo_course = course.Course(options.course_dir)
    names = list(assignments) if assignments else course.list_assignments()
    if not names:
        raise GradingError(f"no assignments found in {course.origin.NOTEBOOKS_DIR}")
    if options.sandbox:
        resolve_sandbox(True)
    with demo_course.lock(wait=options.wait):
        with faults_as_errors("releasing the assignments"):
            ensure_released(demo_course, names)
            demo_dir = demo_course.root / "demo_submissions"
            build_demo_submissions(demo_course.root, demo_dir, names)
            write_demo_calendar(demo_course.root, names)
        demo = replace(
            options,
            assignment=None,
            layout="nbgrader",
            source=None,
            course_dir=demo_course.root,
            db_url=None,
            similarity=True,
            calendar=None,
            times=None,
            policy=None,
        )
        return grade_path(demo_dir, demo, on_canary=on_canary)


# --------------------------------------------------------------------------- export


def export_grades_to(
    lms: str,
    course_dir: Path = DEFAULT_COURSE_DIR,
    *,
    db_url: str | None = None,
    assignments: Iterable[str] | None = None,
    all_assignments: bool = False,
    dest: Path | None = None,
    calendar: Path | None = None,
    options: Mapping[str, object] | None = None,
) -> ExportReport:
    """The course's grades (its gradebook, after the late penalties) as an import file
    for ``lms`` (an LMS plugin's name: :mod:`autograder.lms`), of ``assignments`` (default
    those with a graded submission; ``all_assignments``: every one of the gradebook);
    ``calendar``: the course.toml naming each assignment's column in the LMS (default the
    course folder's; read when the LMS takes such a column); ``options``: the LMS's own
    export options by their command-line names (Canvas's ``gradebook``, Moodle's
    ``worksheet`` and ``key_column``; None: not given). Returns what was written, who was
    left out, and what still awaits manual grading.

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
    columns = {}
    plugin = lms_plugin(lms)
    if plugin is not None and plugin.column_key:  # course.toml names its columns
        known = graded_course.source.assignments()
        term = load_calendar(_calendar_path(graded_course, calendar), known)
        columns = {name: t.columns[lms] for name, t in term.terms.items() if lms in t.columns}
    return export_to_lms(
        lms,
        graded_course,
        dest=dest,
        assignments=assignments,
        all_assignments=all_assignments,
        columns=columns,
        options=options,
    )
