"""Reading a class's submissions: nbgrader's submitted layout or an LMS bulk-download zip.

Three layouts are understood (``--lms auto`` picks the first that matches):

- **nbgrader** (a folder or a zip of it): ``<student>/<assignment>/<notebook>.ipynb``; the
  student id is the first folder name.
- **Canvas** ("Download Submissions" zip, one file per student and file):
  ``<lastfirst>_[LATE_]<user id>_<submission id>_<original file name>``, e.g.
  ``doejane_LATE_12345_678901_01_hyperplanes-1.ipynb``; the student id is Canvas's numeric
  *user id* (the first number), and Canvas's "-1", "-2" suffix on resubmitted files is
  recognised as a renamed file.
- **Moodle** ("Download all submissions" zip): a folder per student
  ``<Full Name>_<participant id>_assignsubmission_file_/<original file name>`` (or, in
  older Moodle versions, the same prefix on flat file names); the student id is Moodle's
  numeric *participant id* for that assignment (export Moodle's participant list to map it
  to names). Online-text parts (``assignsubmission_onlinetext``) are ignored.

File names inside a submission are matched to the assignment's notebooks: an exact name is
used as is; a renamed copy ("01_hyperplanes (1).ipynb", "Copy of 01_hyperplanes.ipynb",
"01_Hyperplanes-2.ipynb", or the only notebook handed in) is graded under its proper name and
flagged; a missing, corrupt or unreadable notebook scores 0 and is flagged; other files are
ignored and flagged (a student's ``numpy.py`` must not shadow a library in the grader).

The LMS name conventions are applied with nbgrader's own ``FileNameCollectorPlugin``
(its ``named_regexp``), the same mechanism ``nbgrader zip_collect`` uses.
"""

from __future__ import annotations

import io
import re
import warnings
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

import nbformat

from autograder.models import PreparedSubmission, RawSubmission, SubmissionsError

CANVAS_REGEXP = (
    r"^(?:.*/)?(?P<last_first>[^/_]+)_(?:(?P<late>LATE)_)?(?P<student_id>\d+)_(?P<submission_id>\d+)_"
    r"(?P<file_id>[^/]+)$"
)
MOODLE_REGEXP = (
    r"^(?:.*/)?(?P<full_name>[^/]+?)_(?P<student_id>\d+)_assignsubmission_(?P<kind>file|onlinetext)_"
    r"/?(?P<file_id>.+)$"
)
LAYOUTS = ("auto", "nbgrader", "canvas", "moodle")

#: Largest file read from a submission (anything bigger is flagged and skipped).
MAX_FILE_BYTES = 50 * 1024 * 1024

_IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints", ".DS_Store"}


# --------------------------------------------------------------------------- reading


def _is_ignored(path: PurePosixPath) -> bool:
    return any(part in _IGNORED_PARTS or part.startswith("._") for part in path.parts)


def _read_tree(root: Path) -> dict[str, bytes | None]:
    """Every regular file under ``root``: relative POSIX path -> bytes (None if too big)."""
    files: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        rel = PurePosixPath(path.relative_to(root).as_posix())
        if _is_ignored(rel):
            continue
        files[str(rel)] = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else None
    return files


def _read_zip(path: Path) -> dict[str, bytes | None]:
    """Members of a zip: relative POSIX path -> bytes (None if too big). Nothing is extracted."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SubmissionsError(f"{path} is not a readable zip file ({exc})") from exc
    files: dict[str, bytes | None] = {}
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            name = PurePosixPath(info.filename.replace("\\", "/"))
            # never trust member names: no absolute paths, no "..", just a relative key
            parts = [p for p in name.parts if p not in ("", ".", "..", "/")]
            if not parts:
                continue
            rel = PurePosixPath(*parts)
            if _is_ignored(rel):
                continue
            if info.file_size > MAX_FILE_BYTES:
                files[str(rel)] = None
                continue
            try:
                files[str(rel)] = archive.read(info)
            except (zipfile.BadZipFile, OSError, RuntimeError, ValueError):
                files[str(rel)] = b""  # unreadable member: graded as a corrupt file
    return files


def _strip_common_folder(files: dict[str, bytes | None]) -> dict[str, bytes | None] | None:
    """The same files without their one common top folder (None if there is none)."""
    heads = {PurePosixPath(k).parts[0] for k in files}
    if len(heads) != 1 or any(len(PurePosixPath(k).parts) < 2 for k in files):
        return None
    return {str(PurePosixPath(*PurePosixPath(k).parts[1:])): v for k, v in files.items()}


def _collector(regexp: str):
    from nbgrader.plugins.zipcollect import FileNameCollectorPlugin

    return FileNameCollectorPlugin(named_regexp=regexp, valid_ext=[])


def _collect(files: Mapping[str, bytes | None], regexp: str) -> dict[str, dict] | None:
    """Apply nbgrader's FileNameCollectorPlugin to every name; None if any name fails."""
    from nbgrader.plugins.zipcollect import FileNameCollectorPlugin

    # every extension counts: extra files are flagged, not silently dropped
    extensions = sorted({PurePosixPath(name).suffix for name in files})
    collector = FileNameCollectorPlugin(named_regexp=regexp, valid_ext=extensions)
    matched: dict[str, dict] = {}
    for name in files:
        groups = collector.collect(name)
        if not groups:
            return None
        matched[name] = groups
    return matched


def _layout_of(files: Mapping[str, bytes | None]) -> str | None:
    if all(re.match(MOODLE_REGEXP, name) for name in files):
        return "moodle"
    if all(re.match(CANVAS_REGEXP, name) for name in files):
        return "canvas"
    if all(len(PurePosixPath(name).parts) >= 3 for name in files):
        return "nbgrader"
    return None


def detect_layout(files: Mapping[str, bytes | None]) -> tuple[str, dict[str, bytes | None]]:
    """Which layout the file names follow ("moodle", "canvas" or "nbgrader"), and the files
    with any wrapping folders removed (zips made by hand often add one)."""
    if not files:
        raise SubmissionsError("no files found in the submissions")
    current: dict[str, bytes | None] | None = dict(files)
    while current:
        layout = _layout_of(current)
        stripped = _strip_common_folder(current)
        deeper = stripped is not None and all(len(PurePosixPath(k).parts) >= 3 for k in stripped)
        if layout == "nbgrader" and deeper:
            # "export/alice/01_x/01_x.ipynb": one wrapping folder around the layout
            current = stripped
            continue
        if layout is not None:
            return layout, current
        current = stripped
    example = next(iter(files))
    raise SubmissionsError(
        "cannot tell the layout of the submissions (expected <student>/<assignment>/"
        f"<notebook>.ipynb, or a Canvas or Moodle zip); e.g. {example!r}"
    )


def read_submissions(
    path: str | Path,
    *,
    assignment: str | None = None,
    layout: str = "auto",
) -> list[RawSubmission]:
    """Read every student's files from a folder or zip.

    Parameters
    ----------
    path : path
        A folder (nbgrader layout) or a zip (nbgrader layout, Canvas or Moodle).
    assignment : str, optional
        The assignment of an LMS zip (LMS names do not carry it; guessed from the notebook
        names when omitted). For the nbgrader layout, only this assignment is read.
    layout : {"auto", "nbgrader", "canvas", "moodle"}
    """
    path = Path(path)
    if layout not in LAYOUTS:
        raise SubmissionsError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    if path.is_dir():
        files = _read_tree(path)
    elif path.is_file():
        files = _read_zip(path)
    else:
        raise SubmissionsError(f"no such file or folder: {path}")
    if not files:
        raise SubmissionsError(f"no files found in {path}")
    if layout == "auto":
        layout, files = detect_layout(files)
    if layout == "nbgrader":
        return _group_nbgrader(files, assignment)
    regexp = CANVAS_REGEXP if layout == "canvas" else MOODLE_REGEXP
    matched = _collect(files, regexp)
    stripped = _strip_common_folder(files)
    if matched is None and stripped is not None:
        matched, files = _collect(stripped, regexp), stripped
    if matched is None:
        bad = [n for n in files if not re.match(regexp, n)][:3]
        raise SubmissionsError(f"file names do not follow the {layout} pattern, e.g. {bad}")
    by_student: dict[str, RawSubmission] = {}
    for name, groups in matched.items():
        student = groups["student_id"]
        sub = by_student.setdefault(student, RawSubmission(student, assignment))
        if groups.get("kind") == "onlinetext":
            continue
        if groups.get("late"):
            flag = "marked late by the LMS"
            if flag not in sub.flags:
                sub.flags.append(flag)
        content = files[name]
        file_id = groups["file_id"]
        if content is None:
            sub.flags.append(f"file {file_id!r} is larger than {MAX_FILE_BYTES} bytes, ignored")
            continue
        if file_id in sub.files:
            sub.flags.append(f"file {file_id!r} handed in more than once; the last copy is used")
        sub.files[file_id] = content
    return [by_student[s] for s in sorted(by_student)]


def _group_nbgrader(files: Mapping[str, bytes | None], assignment: str | None):
    grouped: dict[tuple[str, str], RawSubmission] = {}
    for name, content in files.items():
        parts = PurePosixPath(name).parts
        student, assignment_name, rel = parts[0], parts[1], str(PurePosixPath(*parts[2:]))
        if assignment is not None and assignment_name != assignment:
            continue
        sub = grouped.setdefault(
            (assignment_name, student), RawSubmission(student, assignment_name)
        )
        if content is None:
            sub.flags.append(f"file {rel!r} is larger than {MAX_FILE_BYTES} bytes, ignored")
            continue
        if rel == "timestamp.txt":
            continue
        sub.files[rel] = content
    return [grouped[k] for k in sorted(grouped)]


# --------------------------------------------------------------------------- matching


def _normalise(stem: str) -> str:
    stem = stem.lower()
    stem = re.sub(r"^(copy of |copy_of_)", "", stem)
    stem = re.sub(r"([ _-]?\(\d+\)|-\d+|[ _-]copy\d*|_v\d+)$", "", stem)
    return re.sub(r"[\s_\-.]+", "_", stem).strip("_")


def guess_assignment(files: Iterable[str], notebooks_by_assignment: Mapping[str, list[str]]):
    """The assignment whose notebook names match these file names best (None if none)."""
    stems = {_normalise(PurePosixPath(f).stem) for f in files if f.endswith(".ipynb")}
    best, best_count = None, 0
    for assignment, notebooks in notebooks_by_assignment.items():
        count = len(stems & {_normalise(n) for n in notebooks})
        if count > best_count:
            best, best_count = assignment, count
    return best


def check_notebook(content: bytes) -> str | None:
    """Why ``content`` is not a gradable notebook (None if it is)."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    try:
        nb = nbformat.reads(text, as_version=4)
    except nbformat.ValidationError as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"not a valid notebook ({message[:120]})"
    except Exception as exc:  # JSON errors, unknown nbformat versions, ...
        return f"not a readable notebook ({type(exc).__name__})"
    try:
        nbformat.validate(nb)
    except Exception as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"not a valid notebook ({message[:120]})"
    return None


def prepare(raw: RawSubmission, assignment: str, notebooks: list[str]) -> PreparedSubmission:
    """Match a student's files to the assignment's notebooks and flag what is off.

    Parameters
    ----------
    raw : RawSubmission
    assignment : str
    notebooks : list of str
        The assignment's notebook names (without ".ipynb").
    """
    prepared = PreparedSubmission(raw.student, assignment, flags=list(raw.flags))
    available = {name: content for name, content in raw.files.items()}
    ipynbs = [n for n in available if n.endswith(".ipynb")]
    used: set[str] = set()
    for notebook in notebooks:
        wanted = f"{notebook}.ipynb"
        chosen = wanted if wanted in available else None
        if chosen is None:
            candidates = [
                n
                for n in ipynbs
                if n not in used and _normalise(PurePosixPath(n).stem) == _normalise(notebook)
            ]
            if not candidates and len(notebooks) == 1:
                candidates = [n for n in ipynbs if n not in used]
            if len(candidates) >= 1:
                chosen = sorted(candidates)[-1]
                prepared.flags.append(f"{chosen!r} was graded as {wanted!r} (renamed file)")
                if len(candidates) > 1:
                    others = ", ".join(repr(c) for c in sorted(candidates)[:-1])
                    prepared.flags.append(f"several copies of {wanted!r}; ignored {others}")
                    used.update(candidates)
        if chosen is None:
            prepared.missing.append(notebook)
            prepared.flags.append(f"notebook {wanted!r} is missing (scored 0)")
            continue
        used.add(chosen)
        problem = check_notebook(available[chosen])
        if problem:
            prepared.missing.append(notebook)
            prepared.flags.append(f"notebook {wanted!r} is corrupt: {problem} (scored 0)")
            continue
        prepared.notebooks[wanted] = available[chosen]
    for name in sorted(set(available) - used):
        prepared.flags.append(f"extra file {name!r} ignored")
    return prepared


def notebook_bytes(nb) -> bytes:
    """A NotebookNode as the bytes of an .ipynb file."""
    buffer = io.StringIO()
    with warnings.catch_warnings():
        # nbformat repairs duplicated cell ids (a student copied a cell) and says so
        warnings.simplefilter("ignore")
        nbformat.write(nb, buffer)
    return buffer.getvalue().encode("utf-8")
