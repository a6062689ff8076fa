"""The instructor's jobs: release the course, grade a class, build and grade the demo class."""

from __future__ import annotations

import hashlib
import sys
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import nbgrading
from autograder import student as student_release
from autograder.ledger import Ledger
from autograder.nbgrading import GradingError, SubmissionResult
from autograder.report import (
    copy_feedback,
    export_grades,
    summarise,
    summary_text,
    write_results,
)
from autograder.submissions import (
    PreparedSubmission,
    SubmissionsError,
    guess_assignment,
    notebook_bytes,
    prepare,
    read_submissions,
)

DEFAULT_COURSE_DIR = Path("course")
DEFAULT_OUT_DIR = Path("grading-out")


# --------------------------------------------------------------------------- release


def _source_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and ".ipynb_checkpoints" not in path.parts:
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _student_files_digest() -> str:
    """What a release zip holds besides the notebooks is made from: linlib (the wheel), the
    project's metadata and pins (requirements.txt), and the student files' code and
    templates. A change to any of them makes the next release write its zips again."""
    root = nbgrading.REPO_ROOT
    h = hashlib.sha256()
    paths = [root / "pyproject.toml", root / "requirements.txt", root / "autograder" / "student.py"]
    for folder in (root / "linlib", root / "autograder" / "templates"):
        paths += [
            path
            for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
        ]
    for path in sorted(paths):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _write_zip(
    folder: Path,
    dest: Path,
    extra: Mapping[str, bytes] | None = None,
    *,
    epoch: int | None = None,
) -> Path:
    # Sorted entries under <assignment>/, all dated with the release (the same epoch gives
    # the same bytes): the release notebooks and the student's files (autograder.student).
    epoch = student_release.release_epoch() if epoch is None else epoch
    date = student_release.zip_date(epoch)
    files = {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }
    files.update(extra or {})
    tmp = dest.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{folder.name}/{name}", date)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    tmp.replace(dest)
    return dest


def ensure_released(
    course_dir: Path,
    assignments: Iterable[str],
    *,
    db_url: str | None = None,
    force: bool = False,
    zips: bool = True,
) -> dict[str, list[str]]:
    """Release each assignment unless its release is up to date with the repo's source.

    Returns assignment -> its notebook names (without ".ipynb").
    """
    course_dir = Path(course_dir).resolve()
    notebooks: dict[str, list[str]] = {}
    epoch = student_release.release_epoch()
    wheel: Path | None = None
    student_digest = _student_files_digest() if zips else ""
    for assignment in assignments:
        src = nbgrading.NOTEBOOKS_DIR / assignment
        if not (src / f"{assignment}.ipynb").is_file():
            raise GradingError(f"unknown assignment {assignment!r} (no notebooks/{assignment}/)")
        stamp = course_dir / ".released" / assignment
        # released into this gradebook from this source (another --db needs its own release)
        url = nbgrading.course_config(course_dir, db_url).CourseDirectory.db_url
        digest = _source_digest(src) + " " + url
        release = course_dir / "release" / assignment
        current = stamp.is_file() and stamp.read_text().strip() == digest and release.is_dir()
        if force or not current:
            nbgrading.make_course(course_dir, [assignment], db_url=db_url)
            nbgrading.release_assignment(course_dir, assignment, db_url)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(digest + "\n")
        # The zip also carries the linlib wheel and the pins: it is written again when they
        # changed, even if the notebooks did not.
        zip_path = release.parent / f"{assignment}.zip"
        zip_stamp = course_dir / ".released" / f"{assignment}.zip"
        zip_digest = f"{digest} {student_digest}"
        zip_current = (
            current
            and zip_path.exists()
            and zip_stamp.is_file()
            and zip_stamp.read_text().strip() == zip_digest
        )
        if zips and (force or not zip_current):
            if wheel is None:  # one build of the linlib wheel for every zip of this release
                wheel = student_release.build_linlib_wheel(course_dir / "student", epoch=epoch)
            config = nbgrading.course_config(course_dir, db_url).CourseDirectory
            extra = student_release.student_files(release, wheel, config.get("course_id", "course"))
            _write_zip(release, zip_path, extra, epoch=epoch)
            zip_stamp.write_text(zip_digest + "\n")
        notebooks[assignment] = sorted(p.stem for p in release.glob("*.ipynb"))
    return notebooks


def release_course(
    course_dir: Path = DEFAULT_COURSE_DIR,
    assignments: Iterable[str] | None = None,
    *,
    db_url: str | None = None,
) -> dict[str, Path]:
    """Release every assignment (or those named): release folder plus a zip to hand out.

    The zip holds what a student needs besides the notebook (:mod:`autograder.student`):
    the linlib wheel, pinned requirements, a README and an nbgrader_config.py.

    Returns assignment -> the zip file.
    """
    names = list(assignments) if assignments else nbgrading.list_assignments()
    if not names:
        raise GradingError(f"no assignments found in {nbgrading.NOTEBOOKS_DIR}")
    ensure_released(Path(course_dir), names, db_url=db_url, force=True)
    release = Path(course_dir).resolve() / "release"
    return {name: release / f"{name}.zip" for name in names}


# --------------------------------------------------------------------------- grade


@dataclass
class GradeRun:
    """What a grading run produced."""

    results: list[SubmissionResult]
    out_dir: Path
    summary: str
    unmatched: list[str] = field(default_factory=list)  # submissions of no known assignment

    @property
    def flagged(self) -> dict[str, list[str]]:
        return {f"{r.assignment}/{r.student}": r.flags for r in self.results if r.flags}


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
) -> GradeRun:
    """Grade a folder or LMS zip of submissions; write results.json, grades.csv, feedback,
    summary.md.

    Raises
    ------
    SubmissionsError
        The submissions cannot be read at all (bad path, unknown layout).
    GradingError
        The grader itself cannot run (unknown assignment, sandbox unavailable, database).
    """
    course_dir = Path(course_dir).resolve()
    out_dir = Path(out_dir).resolve()
    known = nbgrading.list_assignments()
    if assignment is not None and assignment not in known:
        raise SubmissionsError(
            f"unknown assignment {assignment!r}; the course has: {', '.join(known)}"
        )
    if sandbox:
        nbgrading.resolve_sandbox(True)  # refuse early, before anything is written
    raws = read_submissions(submissions, assignment=assignment, layout=layout)
    source_notebooks = {
        a: sorted(p.stem for p in (nbgrading.NOTEBOOKS_DIR / a).glob("*.ipynb")) for a in known
    }
    unmatched: list[str] = []
    assigned = []
    for raw in raws:
        name = raw.assignment or guess_assignment(raw.files, source_notebooks)
        if name is None or name not in known:
            unmatched.append(f"{raw.student}/{raw.assignment or '?'}")
            continue
        assigned.append((name, raw))
    if not assigned:
        if unmatched:
            raise SubmissionsError(
                "no submission belongs to a known assignment (pass --assignment for an LMS "
                f"zip); found {', '.join(unmatched[:5])}"
            )
        raise SubmissionsError(f"no submissions found in {submissions}")
    notebooks = ensure_released(course_dir, sorted({a for a, _ in assigned}), db_url=db_url)
    prepared: list[PreparedSubmission] = [prepare(raw, a, notebooks[a]) for a, raw in assigned]
    return grade_prepared_run(
        prepared,
        course_dir=course_dir,
        out_dir=out_dir,
        workers=workers,
        sandbox=sandbox,
        db_url=db_url,
        progress=progress,
        feedback=feedback,
        unmatched=unmatched,
        on_result=on_result,
    )


def grade_prepared_run(
    prepared: list[PreparedSubmission],
    *,
    course_dir: Path,
    out_dir: Path,
    workers: int | None,
    sandbox: bool,
    db_url: str | None,
    progress: bool,
    feedback: bool,
    unmatched: list[str] | None = None,
    on_result: Callable[[SubmissionResult], None] | None = None,
) -> GradeRun:
    """Grade prepared submissions with the ledger, then write the run's outputs."""
    from autograder.workers import default_workers

    ledger = Ledger(course_dir / "ledger.jsonl")
    bar = _progress_bar(len(prepared), progress)

    def done(result: SubmissionResult) -> None:
        bar.update(1)
        if on_result is not None:
            on_result(result)

    try:
        graded = nbgrading.grade_prepared(
            course_dir,
            prepared,
            workers=workers or default_workers(),
            sandbox=sandbox,
            db_url=db_url,
            feedback=feedback,
            ledger=ledger,
            on_result=done,
        )
    finally:
        bar.close()
    results = list(graded.values())
    out_dir.mkdir(parents=True, exist_ok=True)
    write_results(results, out_dir / "results.json", unmatched or [])
    config = nbgrading.course_config(course_dir, db_url)
    export_grades(
        course_dir,
        config.CourseDirectory.db_url,
        config.CourseDirectory.get("course_id", "default_course"),
        results,
        out_dir / "grades.csv",
    )
    if feedback:
        copy_feedback(course_dir, results, out_dir)
    flagged = {f"{r.assignment}/{r.student}": list(r.flags) for r in results if r.flags}
    for name in unmatched or []:
        flagged[name] = ["not a submission of any assignment of this course (not graded)"]
    text = summary_text(summarise(results), flagged)
    (out_dir / "summary.md").write_text(text, encoding="utf-8")
    return GradeRun(results, out_dir, text, list(unmatched or []))


# --------------------------------------------------------------------------- demo

DEMO_STUDENTS = ("full_marks", "blank", "typical_bugs", "broken_notebook")


def build_demo_submissions(course_dir: Path, dest: Path, assignments: Iterable[str]) -> Path:
    """Write the demo class in nbgrader's submitted layout under ``dest``.

    Per assignment: ``full_marks`` (the instructor's solutions), ``blank`` (the release as
    handed out), ``typical_bugs`` (the assignment's typical-bug variants from
    ``autograder.samples``, combined where they touch different cells) and
    ``broken_notebook`` (a full-marks notebook cut off half-way, i.e. corrupt JSON).
    """
    from autograder.samples import VARIANTS, combine_variants, make_submission

    dest = Path(dest)
    for assignment in assignments:
        release_nb = Path(course_dir) / "release" / assignment / f"{assignment}.ipynb"
        source_nb = Path(course_dir) / "source" / assignment / f"{assignment}.ipynb"
        full = make_submission(release_nb, source_nb)
        bugs, used = [], set()
        for variant in VARIANTS.get(assignment, []):
            # two bugs in different answers: a partial score, not a near zero
            if variant.lost and not (set(variant.replace) & used) and len(bugs) < 2:
                bugs.append(variant)
                used |= set(variant.replace)
        buggy = (
            make_submission(release_nb, source_nb, combine_variants("typical_bugs", bugs).replace)
            if bugs
            else full
        )
        blank = nbformat.read(release_nb, as_version=4)
        full_bytes = notebook_bytes(full)
        contents = {
            "full_marks": full_bytes,
            "blank": notebook_bytes(blank),
            "typical_bugs": notebook_bytes(buggy),
            "broken_notebook": full_bytes[: len(full_bytes) // 2],
        }
        for student, content in contents.items():
            folder = dest / student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{assignment}.ipynb").write_bytes(content)
    return dest


def run_demo(
    course_dir: Path = DEFAULT_COURSE_DIR,
    out_dir: Path = DEFAULT_OUT_DIR,
    *,
    workers: int | None = None,
    sandbox: bool = True,
    progress: bool = False,
    assignments: Iterable[str] | None = None,
) -> GradeRun:
    """Release the course, build the demo class, grade it; returns the run."""
    course_dir = Path(course_dir).resolve()
    names = list(assignments) if assignments else nbgrading.list_assignments()
    if not names:
        raise GradingError(f"no assignments found in {nbgrading.NOTEBOOKS_DIR}")
    if sandbox:
        nbgrading.resolve_sandbox(True)
    ensure_released(course_dir, names)
    demo_dir = course_dir / "demo_submissions"
    build_demo_submissions(course_dir, demo_dir, names)
    return grade_path(
        demo_dir,
        layout="nbgrader",
        course_dir=course_dir,
        out_dir=out_dir,
        workers=workers,
        sandbox=sandbox,
        progress=progress,
    )
