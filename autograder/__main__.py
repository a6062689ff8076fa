"""``python -m autograder``: the command line (arguments, messages, exit status) of the use
cases in :mod:`autograder.api` — release the course, grade a class, run the demo, export
the grades to Canvas or Moodle.

Exit status: 0 when the job ran (submissions that could not be graded are flagged rows in
grades.csv, not failures); 2 for bad arguments or paths, or a course directory another run
is using (with --no-wait); 1 when the grader itself could not run (e.g. the sandbox cannot
start, the gradebook cannot be opened) or a failure of the machine stopped it (a full disk,
the gradebook locked: one line says what to do; the same command run again completes it).
"""

from __future__ import annotations

import argparse
import logging
import re
import signal
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder import COURSE_DIR, DEMO_COURSE_DIR, DEMO_OUT_DIR, OUT_DIR
from autograder.text import shown_path

if TYPE_CHECKING:  # imported where used: --help stays quick
    from autograder.models import GradeRun
    from autograder.options import GradeOptions
    from autograder.source import CourseSource

PROG = "python -m autograder"

DESCRIPTION = """\
Release the course's notebooks to students and grade their submissions with nbgrader:
in parallel, inside a sandbox, with grades.csv, redacted feedback and a summary; due dates,
extensions and late rules from course.toml; grades back into Canvas and Moodle.
"""

EPILOG = """\
Exit status: 0 when the job ran (a submission that cannot be graded is a flagged row, not
a failure), 2 for bad arguments or paths (or, with --no-wait, a course directory another
run is using), 1 when the grader itself cannot run or a failure of the machine (a full
disk, a locked gradebook) stopped it: run the same command again, nothing graded is lost.
"""

GRADE_EPILOG = """\
Student ids: in a folder, the first folder name; in a Canvas zip, the numeric user id in
'<lastfirst>_[LATE_]<user id>_<submission id>_<file>'; in a Moodle zip, the participant id
in '<Full Name>_<participant id>_assignsubmission_file_/<file>'.
A Canvas or Moodle zip also names each student (grades.csv's last_name, the feedback folder).
Writes to --out: results.json (per submission: student, assignment, each test's score and
max score, flags, ok), grades.csv (nbgrader's export columns + flags), feedback/<student>[-
<name>]/<assignment>/<notebook>.html (hidden tests' source withheld) and summary.md.
First the instructor's solution of each assignment is graded the same way: short of full
marks, the grading environment is broken and the run is refused (exit 1, nothing written).
A re-run reuses the result of a submission unchanged since it was graded (same files,
assignment, grader and settings); --regrade grades again.
Without --course: course/ here, refused (exit 2) when it is not built yet and a course
folder built before (by release or grade) holds, or sits beside, the submissions or this
folder: name that one with --course (or a new one).
Due dates, extensions and the late rule: course.toml in the course folder (or --calendar);
submission times: timestamp.txt (nbgrader), --times (Moodle's grading worksheet, or a CSV
student_id,timestamp).
"""

EXPORT_EPILOG = """\
Grades are nbgrader's score: the points after the late penalty, of the assignments with a
graded submission (or --assignment, or --all-assignments). Students left out, and those
with no submission, are listed; written answers that still await manual grading (so the
scores lack their points) are a note on stderr.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line, not the whole usage block
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


class _Given(argparse.Action):
    """Stores an option's value and that it was given (``<dest>_given``; a default is not):
    grade checks the surroundings of the default course folder only."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_given", True)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    # the choices' one home each (light modules: the packages import the rest on use)
    from autograder.intake.layouts import known_layouts
    from autograder.lms.base import lms_exporters
    from autograder.term.calendar import POLICIES

    layouts = known_layouts()

    parser = _Parser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="{release,grade,demo,export}")
    sub.required = True

    def common(p: argparse.ArgumentParser, default: Path = COURSE_DIR, runs: bool = True) -> None:
        p.add_argument(
            "--course",
            type=Path,
            default=default,
            action=_Given,
            metavar="DIR",
            help=f"nbgrader course directory to build and use (default: ./{default})",
        )
        p.set_defaults(course_given=False)
        if not runs:  # export only reads the gradebook: it holds no course
            return
        p.add_argument(
            "--no-wait",
            action="store_true",
            help="when another run is using the course directory, stop at once (exit 2) "
            "instead of waiting for it to finish",
        )

    def source(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--source",
            type=Path,
            metavar="DIR",
            help="the nbgrader course to use: its root (with nbgrader_config.py and "
            "source/<assignment>/) or its source folder (default: the one the --course folder "
            "was built from, else this repository's notebooks/)",
        )

    def grading(p: argparse.ArgumentParser, out: Path = OUT_DIR) -> None:
        p.add_argument(
            "--workers",
            type=_positive_int,
            default=None,
            metavar="N",
            help="notebooks graded at the same time (default: the number of cores)",
        )
        p.add_argument(
            "--out",
            type=Path,
            default=out,
            metavar="DIR",
            help=f"where results.json, grades.csv, feedback/ and summary.md go (default: ./{out})",
        )
        p.add_argument(
            "--unsandboxed",
            action="store_true",
            help="grade without the sandbox (only for trusted code: students' code then "
            "runs as you, with your files and network)",
        )
        p.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="progress bar on stderr (default: when stderr is a terminal)",
        )

    p_release = sub.add_parser(
        "release",
        help="build the student version of every notebook (folder + zip per assignment)",
        description="Build the student version of every notebook (nbgrader "
        "generate_assignment), plus a zip per assignment to hand out; a course without a "
        "course.toml gets a commented template of it (due dates, late rules) to fill in.",
    )
    common(p_release)
    source(p_release)
    p_release.add_argument(
        "--assignment",
        action="append",
        metavar="A",
        help="only this assignment (repeatable; default: all)",
    )
    p_release.add_argument("--db", metavar="URL", help="SQLAlchemy URL of the gradebook")

    p_grade = sub.add_parser(
        "grade",
        help="grade a folder (<student>/<assignment>/<notebook>.ipynb) or a Canvas/Moodle zip",
        description="Grade a class's submissions.",
        epilog=GRADE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p_grade.add_argument("submissions", type=Path, metavar="SUBMISSIONS", help="folder or LMS zip")
    p_grade.add_argument(
        "--assignment", metavar="A", help="the assignment (needed for an LMS zip if not guessable)"
    )
    p_grade.add_argument(
        "--db",
        metavar="URL",
        help="SQLAlchemy URL of the gradebook (default: SQLite file in the course directory)",
    )
    p_grade.add_argument(
        "--dask",
        metavar="TARGET",
        help="grade on a Dask cluster: 'local:N' starts N local worker processes, "
        "'tcp://HOST:PORT' uses a running scheduler (needs a --db every machine reaches); "
        "default: a local process pool (--workers)",
    )
    p_grade.add_argument(
        "--lms",
        choices=list(layouts),
        default="auto",
        help="layout of SUBMISSIONS (default: auto): "
        + "; ".join(f"{name}: {what}" for name, what in layouts.items()),
    )
    term = p_grade.add_argument_group("the term (see docs/instructor/term.md)")
    term.add_argument(
        "--calendar",
        type=Path,
        metavar="FILE",
        help="due dates, extensions and late rules (default: course.toml in the course folder)",
    )
    term.add_argument(
        "--times",
        type=Path,
        metavar="FILE",
        help="submission times: Moodle's grading worksheet, or a CSV student_id,timestamp",
    )
    term.add_argument(
        "--policy",
        choices=list(POLICIES),
        help="which of a student's several submissions is graded (default: course.toml's, "
        "else latest)",
    )
    p_grade.add_argument(
        "--no-feedback", action="store_true", help="skip the feedback HTML (faster)"
    )
    p_grade.add_argument(
        "--regrade",
        action="store_true",
        help="grade again what the ledger would reuse: every submission, or with --student "
        "only those students' (default: a submission unchanged since it was graded, with "
        "the same assignment, grader and settings, keeps its recorded result)",
    )
    p_grade.add_argument(
        "--student",
        action="append",
        metavar="S",
        help="with --regrade: only this student (repeatable)",
    )
    p_grade.add_argument(
        "--similarity",
        action="store_true",
        help="also compare the answers, exercise by exercise, offline: similarity.html and "
        "similarity.csv (pairs whose own code looks alike: look at these)",
    )
    limits = p_grade.add_argument_group(
        "intake limits",
        "an archive or folder over --max-files or --max-total-mb is refused (exit 2); a "
        "file over --max-file-mb or --max-ratio is skipped and its student flagged",
    )
    limits.add_argument("--max-files", type=_positive_int, metavar="N", help="default 20000")
    limits.add_argument("--max-file-mb", type=_positive_int, metavar="MB", help="default 50")
    limits.add_argument("--max-total-mb", type=_positive_int, metavar="MB", help="default 1024")
    limits.add_argument(
        "--max-ratio",
        type=_positive_int,
        metavar="R",
        help="largest compression ratio of a zip entry over 1 MiB (default 100)",
    )
    common(p_grade)
    source(p_grade)
    grading(p_grade)

    p_demo = sub.add_parser(
        "demo",
        help="release, grade the bundled sample class, print the summary",
        description="Release the course, grade the sample class (with its own course folder, "
        "gradebook and term), print the summary.",
    )
    common(p_demo, DEMO_COURSE_DIR)
    grading(p_demo, DEMO_OUT_DIR)

    exporters = sorted(lms_exporters(), key=lambda p: p.name)
    p_export = sub.add_parser(
        "export",
        help="the course's grades as an import file for an LMS",
        description="\n".join(
            [
                "Write the course's grades (from its gradebook) for an LMS.",
                *(textwrap.fill(f"{p.name}: {p.export_help}.", 90) for p in exporters),
            ]
        ),
        epilog=EXPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p_export.add_argument(
        "lms", choices=[p.name for p in exporters], help="the learning management system"
    )
    common(p_export, runs=False)
    p_export.add_argument("--db", metavar="URL", help="SQLAlchemy URL of the gradebook")
    which = p_export.add_mutually_exclusive_group()
    which.add_argument(
        "--assignment",
        action="append",
        metavar="A",
        help="only this assignment (repeatable; default: every assignment with a graded "
        "submission)",
    )
    which.add_argument(
        "--all-assignments",
        action="store_true",
        help="every assignment of the gradebook, those nothing was graded of too (the LMS "
        "may make a new, empty assignment of each)",
    )
    p_export.add_argument("--out", type=Path, metavar="FILE", help="where to write the CSV")
    for option in {o.flag: o for p in reversed(exporters) for o in p.options}.values():
        p_export.add_argument(
            option.flag,
            type=Path if option.path else str,
            metavar=option.metavar,
            help=option.help,
        )
    p_export.add_argument(
        "--calendar",
        type=Path,
        metavar="FILE",
        help="course.toml naming each assignment's column in the LMS (canvas = \"Title "
        "(id)\"; default: the course folder's)",
    )
    return parser


def _progress(flag: bool | None) -> bool:
    return sys.stderr.isatty() if flag is None else flag


def _interrupt(_signum: int, _frame: object) -> None:
    # SIGTERM stops a run as Ctrl-C does: workers and kernels stopped, grades kept
    raise KeyboardInterrupt


def _canary_passed(assignments: list[str], seconds: float) -> None:
    solutions = "solution" if len(assignments) == 1 else "solutions"
    print(
        f"grading environment checked: the instructor's {solutions} of "
        f"{', '.join(assignments)} got full marks ({seconds:.1f} s)",
        file=sys.stderr,
    )


class _Messages(logging.Handler):
    """The library's messages (:mod:`logging`, the ``autograder`` loggers) on stderr as the
    command line words them: a warning as ``note: ...``, the rest as they are. stderr is
    looked up at each message (a test's capture replaces it)."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return f"note: {text}" if record.levelno >= logging.WARNING else text

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr, flush=True)
        except Exception:
            self.handleError(record)


_MESSAGES = _Messages()


def show_messages() -> None:
    """Show the library's messages of level INFO and above on stderr (once per process,
    however often it is called)."""
    logger = logging.getLogger("autograder")
    logger.setLevel(logging.INFO)
    if _MESSAGES not in logger.handlers:
        logger.addHandler(_MESSAGES)


def _calendar_line(path: Path, written: bool) -> str:
    what = (
        "written: a template of due dates and late rules to fill in (docs/instructor/term.md)"
        if written
        else "the course's calendar, kept as it is"
    )
    return f"{shown_path(path)}: {what}"


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    from sqlalchemy.exc import SQLAlchemyError

    from autograder.course import gradebook_problem
    from autograder.models import (
        CanaryFailed,
        CourseBusy,
        CourseFolderError,
        GraderFault,
        GradingError,
        SandboxUnavailable,
        SourceError,
        SubmissionsError,
        TermError,
    )
    from autograder.text import first_line

    # nbgrader's gradebook logs a database error's whole traceback to stderr (tornado's
    # application log, which has no handler of its own) before raising it; the command line
    # says what happened in one line instead (autograder.faults)
    logging.getLogger("tornado.application").addHandler(logging.NullHandler())
    show_messages()
    if getattr(args, "db", None) is not None:
        problem = gradebook_problem(args.db, course_dir=getattr(args, "course", None))
        if problem is not None:
            return _fail(f"cannot use --db: {problem}", 2)
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if on_main_thread else None
    try:
        return VERBS[args.command](args)
    except (SubmissionsError, TermError, SourceError, CourseFolderError) as exc:
        return _fail(str(exc), 2)
    except CanaryFailed as exc:
        return _fail(f"refusing to grade: {exc}", 1)
    except CourseBusy as exc:
        return _fail(f"{exc}: run again when it has finished (without --no-wait: wait for it)", 2)
    except GraderFault as exc:
        return _fail(str(exc), 1)
    except SQLAlchemyError as exc:
        return _fail(f"cannot use the gradebook: {first_line(exc)}", 1)
    except SandboxUnavailable as exc:
        return _fail(f"{exc}; pass --unsandboxed to grade without it", 1)
    except GradingError as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("interrupted (grades written so far are kept; run again to resume)", 130)
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


# --------------------------------------------------------------------------- the verbs
# One function per verb: its arguments made into the use case's (for grade and demo, one
# GradeOptions, autograder.options), the use case called, what it did printed. main() says
# what an error means and sets the exit status.


def _release(args: argparse.Namespace) -> int:
    from autograder.api import release_course

    calendar: list[str] = []
    zips = release_course(
        args.course,
        args.assignment,
        db_url=args.db,
        wait=not args.no_wait,
        source=_source(args),
        on_calendar=lambda path, written: calendar.append(_calendar_line(path, written)),
    )
    for name, path in zips.items():
        # the release folder, and the zip to hand out (autograder.release)
        print(f"{name}: {shown_path(path.parent / name)}/ and {shown_path(path)}")
    print("\n".join(calendar))
    return 0


def _grade(args: argparse.Namespace) -> int:
    from autograder.api import grade_path, grading_course
    from autograder.options import IntakeLimits

    source = _source(args)
    if not args.submissions.exists():
        return _fail(f"no such file or folder: {args.submissions}", 2)
    if args.student and not args.regrade:
        return _fail("--student names whom --regrade grades again: add --regrade", 2)
    used = grading_course(args.course, args.submissions, named=args.course_given)
    state = "new" if used.new else "existing"
    print(f"course folder: {used.shown}/ ({state})", file=sys.stderr)
    options = _grade_options(
        args,
        course_dir=used.root,
        assignment=args.assignment,
        layout=args.lms,
        db_url=args.db,
        feedback=not args.no_feedback,
        dask=args.dask,
        regrade=frozenset(args.student) if args.student else args.regrade,
        similarity=args.similarity,
        limits=IntakeLimits.from_options(
            max_files=args.max_files,
            max_file_mb=args.max_file_mb,
            max_total_mb=args.max_total_mb,
            max_ratio=args.max_ratio,
        ),
        calendar=args.calendar,
        times=args.times,
        policy=args.policy,
        source=source,
    )
    run = grade_path(args.submissions, options, on_canary=_canary_passed)
    return _ran(run, feedback=options.feedback, similarity=options.similarity)


def _demo(args: argparse.Namespace) -> int:
    from autograder.api import run_demo

    options = _grade_options(args)
    run = run_demo(options, on_canary=_canary_passed)
    return _ran(run, feedback=options.feedback, similarity=True)  # the demo compares answers


def _export(args: argparse.Namespace) -> int:
    from autograder.api import export_grades_to
    from autograder.lms import lms_exporters

    options = {o.dest: getattr(args, o.dest) for p in lms_exporters() for o in p.options}
    report = export_grades_to(
        args.lms,
        args.course,
        db_url=args.db,
        assignments=args.assignment,
        all_assignments=args.all_assignments,
        dest=args.out,
        calendar=args.calendar,
        options=options,
    )
    print("\n".join(report.lines()))
    for line in report.warnings:
        print(f"note: {line}", file=sys.stderr)
    return 0


VERBS: dict[str, Callable[[argparse.Namespace], int]] = {
    "release": _release,
    "grade": _grade,
    "demo": _demo,
    "export": _export,
}


def _source(args: argparse.Namespace) -> CourseSource | None:
    """The course of ``--source``, opened (:class:`SourceError` when it cannot be graded),
    or None."""
    from autograder.source import CourseSource

    return CourseSource.open(args.source) if args.source is not None else None


def _grade_options(
    args: argparse.Namespace, course_dir: Path | None = None, **more: Any
) -> GradeOptions:
    """The options of a grading run from the arguments ``grade`` and ``demo`` share (the
    parser's ``common`` and ``grading``), and ``more`` (``grade``'s own, and the course
    folder it chose); every option not given keeps
    :class:`~autograder.options.GradeOptions`'s default."""
    from autograder.options import GradeOptions

    return GradeOptions(
        course_dir=course_dir if course_dir is not None else args.course,
        out_dir=args.out,
        workers=args.workers,
        sandbox=not args.unsandboxed,
        progress=_progress(args.progress),
        wait=not args.no_wait,
        **more,
    )


def _ran(run: GradeRun, *, feedback: bool, similarity: bool) -> int:
    """What a grading run did, on stdout: the summary, the results reused, the files
    written (the feedback pages with ``feedback``, the similarity report with
    ``similarity``)."""
    print(_terminal_text(run.summary))
    reused = sum(1 for result in run.results if result.skipped)
    if reused:
        graded = len(run.results) - reused
        print(
            f"graded {graded} submission{'s' * (graded != 1)}, reused {reused} recorded "
            "result(s) unchanged since they were graded (--regrade grades them again)"
        )
    written = ["results.json", "grades.csv", "summary.md"]
    if feedback:
        written.append("feedback/")
    if similarity:
        written += ["similarity.html", "similarity.csv"]
    print(f"wrote {', '.join(written)} in {shown_path(run.out_dir)}/")
    return 0


def _terminal_text(markdown: str) -> str:
    """summary.md for the terminal: the three entities it escapes (against markup in a
    student's file names and flags, for a Markdown viewer) shown as the characters they
    stand for. Numeric entities stay escaped: they could stand for a terminal's control
    characters, and a control character a student put in a file name is shown as "?"."""
    text = markdown.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", "?", text)


if __name__ == "__main__":
    sys.exit(main())
