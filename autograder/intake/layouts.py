"""The layouts of a class's submissions, told apart, and their files grouped per student:
nbgrader's submitted layout or an LMS bulk-download zip.

Four layouts are understood (``--lms auto`` picks the first that matches):

- **nbgrader** (a folder or a zip of it): ``<student>/<assignment>/<notebook>.ipynb``; the
  student id is the first folder name. A ``timestamp.txt`` beside the notebooks (written
  by ``nbgrader submit`` and kept by ``nbgrader collect``) is when it was handed in.
- **exchange**: the ``inbound`` folder of nbgrader's exchange, one folder per submission
  ``<student>+<assignment>+<timestamp>[+<random>]/<notebook>.ipynb`` (with its
  ``timestamp.txt``); a student who submitted twice has two submissions, which the
  course's resubmission policy chooses between (:mod:`autograder.term.attempts`).
- **Canvas** ("Download Submissions" zip, one file per student and file):
  ``<lastfirst>_[LATE_]<user id>_<submission id>_<original file name>``, e.g.
  ``doejane_LATE_12345_678901_problem1-1.ipynb``; the student id is Canvas's numeric
  *user id* (the first number); Canvas's "-1", "-2" suffix on re-uploaded files marks a
  later upload (:mod:`autograder.intake.prepare` grades the latest), and of two files with
  the same name the one with the higher Canvas file id (the second number) is kept.
- **Moodle** ("Download all submissions" zip): a folder per student
  ``<Full Name>_<participant id>_assignsubmission_file_/<original file name>`` (or, in
  older Moodle versions, the same prefix on flat file names); the student id is Moodle's
  numeric *participant id* for that assignment (export Moodle's participant list to map it
  to names). Online-text parts (``assignsubmission_onlinetext``) are ignored.

The LMS name conventions are applied with nbgrader's own ``FileNameCollectorPlugin``
(its ``named_regexp``), the same mechanism ``nbgrader zip_collect`` uses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TypeVar

from autograder.intake.read import FileEntry, IntakeLimits, read_files
from autograder.models import RawSubmission, SubmissionsError
from autograder.text import LISTED, first_line, listing

_V = TypeVar("_V")

CANVAS_REGEXP = (
    r"^(?:.*/)?(?P<last_first>[^/_]+)_(?:(?P<late>LATE)_)?(?P<student_id>\d+)_(?P<submission_id>\d+)_"
    r"(?P<file_id>[^/]+)$"
)
MOODLE_REGEXP = (
    r"^(?:.*/)?(?P<full_name>[^/]+?)_(?P<student_id>\d+)_assignsubmission_(?P<kind>file|onlinetext)_"
    r"/?(?P<file_id>.+)$"
)
EXCHANGE_REGEXP = (
    r"^(?P<folder>(?P<student_id>[^/+]+)\+(?P<assignment>[^/+]+)\+(?P<timestamp>[^/+]+)"
    r"(?:\+[^/+]*)?)/(?P<file_id>.+)$"
)
#: The layouts read (``--lms``), each with what it is; ``auto`` picks the first that matches.
LAYOUTS = {
    "auto": "detected",
    "nbgrader": "a folder or zip <student>/<assignment>/<notebook>.ipynb",
    "exchange": "nbgrader's inbound folder",
    "canvas": "Canvas's submissions zip",
    "moodle": "Moodle's submissions zip",
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: nbgrader's own files beside a submission's notebooks (``nbgrader submit`` writes them,
#: ``collect`` keeps them): the time is read, the feedback secret passed over in silence
TIMESTAMP_FILE = "timestamp.txt"
SECRET_FILE = "submission_secret.txt"


def read_submissions(
    path: str | Path,
    *,
    assignment: str | None = None,
    layout: str = "auto",
    limits: IntakeLimits | None = None,
) -> list[RawSubmission]:
    """Read every student's files from a folder or zip.

    Parameters
    ----------
    path : path
        A folder (nbgrader layout) or a zip (nbgrader layout, Canvas or Moodle).
    assignment : str, optional
        The assignment of an LMS zip (LMS names do not carry it; guessed from the notebook
        names when omitted). For the nbgrader layout, only this assignment is read.
    layout : {"auto", "nbgrader", "exchange", "canvas", "moodle"}
    limits : IntakeLimits, optional
        How much is read (default: :class:`IntakeLimits`'s defaults).

    Raises
    ------
    SubmissionsError
        The submissions cannot be read, follow no layout, or are over a limit.
    """
    path = Path(path)
    if layout not in LAYOUTS:
        raise SubmissionsError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    files = read_files(path, limits)
    if layout == "auto":
        layout, files = detect_layout(files)
    if layout == "nbgrader":
        grouped = _group_nbgrader(files, assignment)
        if not grouped and assignment is not None:
            others = sorted({PurePosixPath(name).parts[1] for name in files})
            if others:
                raise SubmissionsError(
                    f"no submission of {assignment} in {path.name}: its folders are of "
                    f"{listing(repr(o) for o in others)} (<student>/<assignment>/); check "
                    "--assignment"
                )
        return grouped
    if layout == "exchange":
        return _group_exchange(files, assignment)
    return _group_lms(files, layout, assignment)


def read_timestamp(text: str | bytes) -> datetime:
    """When a submission was handed in, from its ``timestamp.txt`` (or an exchange folder's
    name), as nbgrader reads it (its own ``parse_utc``: a time without a zone is UTC),
    time-zone aware; except a numeric offset ("... +0200"), which nbgrader's ``parse_utc``
    takes for seconds and which is read here as the offset it is. Raises ValueError when
    it cannot be read."""
    from nbgrader.utils import parse_utc

    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.strip()
    if not text or len(text) > 100:
        raise ValueError("not a time")
    head, _, offset = text.rpartition(" ")
    if re.fullmatch(r"[+-]\d{4}", offset):
        try:
            return datetime.fromisoformat(f"{head}{offset[:3]}:{offset[3:]}").astimezone(UTC)
        except ValueError:
            raise ValueError(f"not a time: {text[:40]!r}") from None
    try:
        moment = parse_utc(text)
    except (ValueError, OverflowError, TypeError) as exc:
        raise ValueError(first_line(str(exc), 80) or "not a time") from None
    return moment.replace(tzinfo=UTC)


def _timestamp_of(sub: RawSubmission, content: bytes | None) -> None:
    """Set ``sub.submitted_at`` from a ``timestamp.txt`` (a flag when it cannot be read)."""
    try:
        sub.submitted_at = read_timestamp(content or b"")
    except ValueError:
        sub.flags.append("timestamp.txt cannot be read: no submission time")


def _strip_common_folder(files: Mapping[str, _V]) -> dict[str, _V] | None:
    """The same files without their one common top folder (None if there is none)."""
    heads = {PurePosixPath(k).parts[0] for k in files}
    if len(heads) != 1 or any(len(PurePosixPath(k).parts) < 2 for k in files):
        return None
    return {str(PurePosixPath(*PurePosixPath(k).parts[1:])): v for k, v in files.items()}


def _collect(files: Mapping[str, object], regexp: str) -> dict[str, dict] | None:
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


def _layout_of(files: Mapping[str, object]) -> str | None:
    if all(re.match(EXCHANGE_REGEXP, name) for name in files):
        return "exchange"
    if all(re.match(MOODLE_REGEXP, name) for name in files):
        return "moodle"
    if all(re.match(CANVAS_REGEXP, name) for name in files):
        return "canvas"
    if all(len(PurePosixPath(name).parts) >= 3 for name in files):
        return "nbgrader"
    return None


def detect_layout(files: Mapping[str, _V]) -> tuple[str, dict[str, _V]]:
    """Which layout the file names follow ("moodle", "canvas" or "nbgrader"), and the files
    with any wrapping folders removed (zips made by hand often add one)."""
    if not files:
        raise SubmissionsError("no files found in the submissions")
    current: dict[str, _V] | None = dict(files)
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


def _note_flags(notes: list[tuple[str, str]]) -> list[str]:
    """Flags for notes on a student's files: one each, or the first few and a count."""
    flags = [f"file {name!r} {note}" for name, note in notes[:LISTED]]
    if len(notes) > LISTED:  # the last flag counts the rest
        flags[LISTED - 1 :] = [
            f"{len(notes) - LISTED + 1:,} more files skipped or flagged when read "
            f"(e.g. {notes[LISTED - 1][0]!r} {notes[LISTED - 1][1]})"
        ]
    return flags


def _group_lms(
    files: Mapping[str, FileEntry], layout: str, assignment: str | None
) -> list[RawSubmission]:
    """The files of a Canvas or Moodle zip grouped by the LMS's student id."""
    regexp = CANVAS_REGEXP if layout == "canvas" else MOODLE_REGEXP
    matched = _collect(files, regexp)
    stripped = _strip_common_folder(files)
    if matched is None and stripped is not None:
        matched, files = _collect(stripped, regexp), stripped
    if matched is None:
        bad = [n for n in files if not re.match(regexp, n)][:3]
        raise SubmissionsError(f"file names do not follow the {layout} pattern, e.g. {bad}")
    by_student: dict[str, RawSubmission] = {}
    notes: dict[str, list[tuple[str, str]]] = {}
    upload_ids: dict[tuple[str, str], int] = {}
    repeated: set[tuple[str, str]] = set()
    for name, groups in matched.items():
        student = groups["student_id"]
        sub = by_student.setdefault(student, RawSubmission(student, assignment))
        if groups.get("kind") == "onlinetext":
            continue
        if groups.get("late"):
            sub.marked_late = True
            flag = "marked late by the LMS"
            if flag not in sub.flags:
                sub.flags.append(flag)
        entry = files[name]
        file_id = groups["file_id"]
        notes.setdefault(student, []).extend((file_id, note) for note in entry.notes)
        if entry.content is None:
            continue
        upload = int(groups.get("submission_id") or 0)
        if file_id in sub.files:
            flag = f"file {file_id!r} handed in more than once; the latest upload is used"
            if (student, file_id) not in repeated:
                repeated.add((student, file_id))
                sub.flags.append(flag)
            if upload < upload_ids[(student, file_id)]:
                continue
        upload_ids[(student, file_id)] = upload
        sub.files[file_id] = entry.content
    for student, sub in by_student.items():
        sub.flags.extend(_note_flags(notes.get(student, [])))
    return [by_student[s] for s in sorted(by_student)]


def _group_nbgrader(files: Mapping[str, FileEntry], assignment: str | None) -> list[RawSubmission]:
    """The files of nbgrader's layout grouped by (assignment, student) folder."""
    grouped: dict[tuple[str, str], RawSubmission] = {}
    notes: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, entry in files.items():
        parts = PurePosixPath(name).parts
        student, assignment_name, rel = parts[0], parts[1], str(PurePosixPath(*parts[2:]))
        if assignment is not None and assignment_name != assignment:
            continue
        key = (assignment_name, student)
        sub = grouped.setdefault(key, RawSubmission(student, assignment_name))
        notes.setdefault(key, []).extend((rel, note) for note in entry.notes)
        if rel == TIMESTAMP_FILE:
            _timestamp_of(sub, entry.content)
            continue
        if entry.content is None or rel == SECRET_FILE:
            continue
        sub.files[rel] = entry.content
    for key, sub in grouped.items():
        sub.flags.extend(_note_flags(notes[key]))
    return [grouped[k] for k in sorted(grouped)]


def _group_exchange(files: Mapping[str, FileEntry], assignment: str | None) -> list[RawSubmission]:
    """The submissions in nbgrader's exchange inbound folder: one per folder, each with
    its time (its ``timestamp.txt``, else the time in the folder's name)."""
    grouped: dict[str, RawSubmission] = {}
    notes: dict[str, list[tuple[str, str]]] = {}
    for name, entry in files.items():
        match = re.match(EXCHANGE_REGEXP, name)
        if match is None:  # detect_layout checked every name
            continue
        folder, rel = match["folder"], match["file_id"]
        if assignment is not None and match["assignment"] != assignment:
            continue
        sub = grouped.get(folder)
        if sub is None:
            sub = grouped[folder] = RawSubmission(
                match["student_id"], match["assignment"], label=folder
            )
            try:
                sub.submitted_at = read_timestamp(match["timestamp"])
            except ValueError:
                pass
        notes.setdefault(folder, []).extend((rel, note) for note in entry.notes)
        if rel == TIMESTAMP_FILE:
            _timestamp_of(sub, entry.content)
            continue
        if entry.content is not None and rel != SECRET_FILE:
            sub.files[rel] = entry.content
    for folder, sub in grouped.items():
        sub.flags.extend(_note_flags(notes[folder]))
    return sorted(
        grouped.values(),
        key=lambda s: (s.assignment or "", s.student, s.submitted_at or _EPOCH, s.label),
    )
