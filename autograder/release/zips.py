"""The release: each assignment's student version (nbgrader's ``generate_assignment``,
through :mod:`autograder.course`) and the zip a student is handed, with what it needs
besides the notebook (:mod:`autograder.release.student`)."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from autograder import course
from autograder.course import origin
from autograder.faults import faults_as_errors
from autograder.files import files_digest, folder_digest, folder_files, write_atomic
from autograder.models import GradingError
from autograder.release import answers, replays
from autograder.release import student as student_release
from autograder.source import CourseSource, SourceError
from course_common.paths import LINLIB_DIR, REPO_ROOT


def _student_files_digest() -> str:
    """What a release zip holds besides the notebooks is made from: linlib (the wheel), the
    project's metadata and pins (requirements.txt), the student files' code and
    templates, and every assignment's notebooks (their test cells say which answers each
    student build leaves out). A change to any of them makes the next release write its
    zips again."""
    root = REPO_ROOT
    here = Path(__file__).resolve().parent
    paths = [
        student_release.PYPROJECT,
        student_release.REQUIREMENTS,
        here / "student.py",
        here / "answers.py",
        here / "replays.py",
        root / "autograder" / "notebook.py",
    ]
    paths += origin.NOTEBOOKS_DIR.glob("*/*.ipynb")
    paths += [*folder_files(LINLIB_DIR), *folder_files(here / "templates")]

    def name(path: Path) -> str:
        # named from its own home: the notebooks may be a snapshot outside the repo (tests)
        if path.is_relative_to(origin.NOTEBOOKS_DIR):
            return "notebooks/" + path.relative_to(origin.NOTEBOOKS_DIR).as_posix()
        return path.relative_to(root).as_posix()

    return files_digest((name(path), path) for path in sorted(paths))


def _source_digest(the_course: course.Course, assignment: str) -> str:
    """What an assignment's release is made from: its source folder, the course's
    configuration and its header and footer notebooks."""
    source = the_course.source
    parts = [folder_digest(source.assignment_dir(assignment))]
    extra = [p for p in (source.config_file, *source.header_footer().values()) if p is not None]
    if extra and not source.own:
        parts.append(files_digest((p.name, p) for p in extra if p.is_file()))
    return " ".join(parts)


def _write_zip(
    folder: Path,
    dest: Path,
    extra: Mapping[str, bytes] | None = None,
    *,
    epoch: int | None = None,
) -> Path:
    # Sorted entries under <assignment>/, all dated with the release (the same epoch gives
    # the same bytes): the release notebooks and the student's files (release.student).
    epoch = student_release.release_epoch() if epoch is None else epoch
    date = student_release.zip_date(epoch)
    files = {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }
    files.update(extra or {})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{folder.name}/{name}", date)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return write_atomic(dest, buffer.getvalue())


def ensure_released(
    the_course: course.Course,
    assignments: Iterable[str],
    *,
    force: bool = False,
    zips: bool = True,
) -> dict[str, list[str]]:
    """Release each assignment unless its release is up to date with the repo's source.

    Returns assignment -> its notebook names (without ".ipynb").
    """
    course_dir = the_course.root
    notebooks: dict[str, list[str]] = {}
    epoch = student_release.release_epoch()
    linlib: answers.LinlibSource | None = None
    course_answers: dict = {}
    student_digest = _student_files_digest() if zips and the_course.source.own else ""
    source = the_course.source
    for assignment in assignments:
        src = source.assignment_dir(assignment)
        if not source.notebooks(assignment):
            where = f"{src.parent.name}/{assignment}/"
            raise GradingError(f"unknown assignment {assignment!r} (no notebooks in {where})")
        stamp = course_dir / ".released" / assignment
        # released into this gradebook from this source (another --db needs its own release)
        digest = _source_digest(the_course, assignment) + " " + the_course.db_url
        release = course_dir / "release" / assignment
        current = stamp.is_file() and stamp.read_text().strip() == digest and release.is_dir()
        if force or not current:
            the_course.make([assignment])
            the_course.release(assignment)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(stamp, digest + "\n")
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
        if zips and (force or not zip_current) and not source.own:
            # another course's release: its notebooks and files, as nbgrader releases them
            _write_zip(release, zip_path, epoch=epoch)
            write_atomic(zip_stamp, zip_digest + "\n")
        elif zips and (force or not zip_current):
            try:
                if linlib is None:  # linlib's source and the course's answers, read once
                    linlib = answers.LinlibSource()
                    course_answers = answers.course_answers(linlib=linlib)
                # Each assignment's own student build of linlib (answers stubbed).
                release_notebooks = sorted(release.glob("*.ipynb"))
                build = answers.student_build(
                    assignment, release_notebooks, linlib=linlib, answers=course_answers
                )
                # ... and the library's answers its test cells need of what it stubs.
                recorded = replays.record_replays(
                    source.notebook_paths(assignment),
                    release_notebooks,
                    (".".join(key) for key in build.stubs),
                )
                build = dataclasses.replace(build, replays=recorded)
            except answers.AnswersError as error:
                raise GradingError(f"cannot make the student build of linlib: {error}") from None
            wheel = student_release.build_linlib_wheel(
                course_dir / "student" / assignment, epoch=epoch, build=build
            )
            extra = student_release.student_files(release, wheel, the_course.course_id)
            _write_zip(release, zip_path, extra, epoch=epoch)
            write_atomic(zip_stamp, zip_digest + "\n")
        notebooks[assignment] = sorted(p.stem for p in release.glob("*.ipynb"))
    return notebooks


def release_course(
    course_dir: Path = course.DEFAULT_COURSE_DIR,
    assignments: Iterable[str] | None = None,
    *,
    db_url: str | None = None,
    wait: bool = True,
    source: CourseSource | None = None,
) -> dict[str, Path]:
    """Release every assignment (or those named): release folder plus a zip to hand out.

    The zip holds what a student needs besides the notebook (:mod:`autograder.release.student`):
    the linlib wheel, pinned requirements, a README and an nbgrader_config.py.
    It writes the course directory: one run at a time (``wait``: as for grading,
    :meth:`~autograder.course.Course.lock`).

    Returns assignment -> the zip file.
    """
    the_course = course.open_course(course_dir, db_url, source)
    known = the_course.source.assignments()
    names = list(assignments) if assignments else known
    if not names:
        raise GradingError(f"no assignments found in {the_course.source.folder}")
    unknown = [name for name in names if name not in known]
    if unknown:
        raise SourceError(f"unknown assignment {unknown[0]!r}; the course has: {', '.join(known)}")
    with the_course.lock(wait=wait), faults_as_errors("releasing the course"):
        ensure_released(the_course, names, force=True)
    release = the_course.root / "release"
    return {name: release / f"{name}.zip" for name in names}
