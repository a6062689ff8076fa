"""The layouts of a class's submissions, told apart, and their files grouped per student:
nbgrader's submitted layout, or the download of an LMS (Canvas's or Moodle's zip,
nbgrader's exchange: each an LMS plugin, :mod:`autograder.lms`, whose ``named_regexp`` says
how its names carry the student, the file and what else).

``--lms auto`` picks the first layout that matches every name, the LMSs' in the
registry's order, nbgrader's last:

- **nbgrader** (a folder or a zip of it): ``<student>/<assignment>/<notebook>.ipynb``; the
  student id is the first folder name. A ``timestamp.txt`` beside the notebooks (written
  by ``nbgrader submit`` and kept by ``nbgrader collect``) is when it was handed in.
- **an LMS's**: the names are read by the LMS's plugin with nbgrader's own
  ``FileNameCollectorPlugin`` (its ``named_regexp``, the same mechanism ``nbgrader
  zip_collect`` uses) and grouped by student (and by submission, when the names tell
  several apart: the exchange's folders); the student's name, when the names carry it,
  is kept printable (:func:`printable_name`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TypeVar

from autograder.intake.read import FileEntry, read_files
from autograder.lms.base import LmsPlugin, lms_intakes, lms_plugin
from autograder.lms.times import read_timestamp
from autograder.models import RawSubmission, SubmissionsError
from autograder.options import IntakeLimits
from autograder.text import LISTED, listing

_V = TypeVar("_V")

#: The longest student name kept from a file's name (the gradebook's column holds 128).
MAX_NAME = 64
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
    layout : str
        One of :func:`known_layouts` (``auto``, ``nbgrader``, or an LMS plugin's name).
    limits : IntakeLimits, optional
        How much is read (default: :class:`~autograder.options.IntakeLimits`'s defaults).

    Raises
    ------
    SubmissionsError
        The submissions cannot be read, follow no layout, or are over a limit.
    """
    path = Path(path)
    known = known_layouts()
    if layout not in known:
        raise SubmissionsError(f"unknown layout {layout!r}; choose from {', '.join(known)}")
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
    plugin = lms_plugin(layout)
    if plugin is None or not plugin.intakes():  # taken out since known_layouts() was read
        raise SubmissionsError(f"unknown layout {layout!r}")
    return _group_lms(files, plugin(), assignment)


def known_layouts() -> dict[str, str]:
    """The layouts read (``--lms``), each with what it is: ``auto`` (the first that
    matches), ``nbgrader`` and every LMS plugin's."""
    return {
        "auto": "detected",
        "nbgrader": "a folder or zip <student>/<assignment>/<notebook>.ipynb",
        **{plugin.name: plugin.description for plugin in lms_intakes()},
    }


def printable_name(text: str) -> str:
    """A student's name read from a submitted file's name (hostile data), as the outputs
    may show it: control and format characters (a line break, a right-to-left override)
    as spaces, the spaces collapsed, no leading character a spreadsheet reads as a formula
    (``= + - @``), at most :data:`MAX_NAME` characters."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    text = " ".join(text.split()).lstrip("=+-@ ")
    return text[:MAX_NAME].rstrip()


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


def _layout_of(files: Mapping[str, object]) -> str | None:
    for plugin in lms_intakes():
        collector = plugin()
        if all(collector.matches(name) for name in files):
            return plugin.name
    if all(len(PurePosixPath(name).parts) >= 3 for name in files):
        return "nbgrader"
    return None


def detect_layout(files: Mapping[str, _V]) -> tuple[str, dict[str, _V]]:
    """Which layout the file names follow (an LMS plugin's name, or "nbgrader"), and the
    files with any wrapping folders removed (zips made by hand often add one)."""
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
    downloads = listing(plugin.description for plugin in lms_intakes())
    raise SubmissionsError(
        "cannot tell the layout of the submissions (expected <student>/<assignment>/"
        f"<notebook>.ipynb, or an LMS's download: {downloads}); e.g. {example!r}"
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
    files: Mapping[str, FileEntry], plugin: LmsPlugin, assignment: str | None
) -> list[RawSubmission]:
    """The files of an LMS's download grouped by student (and by submission, when the
    names tell several apart), as the LMS's plugin reads their names."""
    matched = plugin.collect_all(files)
    stripped = _strip_common_folder(files)
    if matched is None and stripped is not None:
        matched, files = plugin.collect_all(stripped), stripped
    if matched is None:
        bad = [n for n in files if not plugin.matches(n)][:3]
        raise SubmissionsError(f"file names do not follow the {plugin.name} pattern, e.g. {bad}")
    grouped: dict[tuple[str, str, str], RawSubmission] = {}
    notes: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    upload_ids: dict[tuple[tuple[str, str, str], str], int] = {}
    repeated: set[tuple[tuple[str, str, str], str]] = set()
    for name, groups in matched.items():
        named = groups.get("assignment")
        if named and assignment is not None and named != assignment:
            continue
        student, label = groups["student_id"] or "", groups.get("submission") or ""
        key = (named or "", student, label)
        sub = grouped.get(key)
        if sub is None:
            sub = grouped[key] = RawSubmission(student, named or assignment, label=label)
            sub.name = printable_name(plugin.student_name(groups))
            sub.submitted_at = plugin.submitted_at(groups)
        if plugin.ignored(groups):
            continue
        if groups.get("late"):
            sub.marked_late = True
            flag = "marked late by the LMS"
            if flag not in sub.flags:
                sub.flags.append(flag)
        entry, file_id = files[name], groups["file_id"] or ""
        notes.setdefault(key, []).extend((file_id, note) for note in entry.notes)
        if plugin.nbgrader_files and file_id == TIMESTAMP_FILE:
            _timestamp_of(sub, entry.content)
            continue
        if entry.content is None or (plugin.nbgrader_files and file_id == SECRET_FILE):
            continue
        upload = int(groups.get("submission_id") or 0)
        if file_id in sub.files:
            flag = f"file {file_id!r} handed in more than once; the latest upload is used"
            if (key, file_id) not in repeated:
                repeated.add((key, file_id))
                sub.flags.append(flag)
            if upload < upload_ids[(key, file_id)]:
                continue
        upload_ids[(key, file_id)] = upload
        sub.files[file_id] = entry.content
    for key, sub in grouped.items():
        sub.flags.extend(_note_flags(notes.get(key, [])))
    return sorted(
        grouped.values(),
        key=lambda s: (s.assignment or "", s.student, s.submitted_at or _EPOCH, s.label),
    )


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
