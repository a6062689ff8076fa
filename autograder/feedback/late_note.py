"""The late section of a student's feedback page: when the submission was due (with the
student's extension), when it was handed in, how late, the late rule and what it cost —
what grades.csv's flag says, in the student's words.

The term (:func:`autograder.term.settle`) works each note out after grading and records it
in the course folder's :data:`LATE_NOTES_FILE` (:class:`LateNotes`), the one place the page
writer reads it from (:class:`~.student_page.ExplainToStudent`, by its ``late_notes``
setting), whether the page is written by a grading worker or again later
(:mod:`.stale`). A page shows the note the file held when it was written: a note that
changes (an extension granted, a new due date, another hand-in time) marks its page stale,
and the page is written again (:class:`~.stale.StaleFeedback`).

Every text of a note is the instructor's or the grader's (course.toml, the times); the page
escapes it all the same.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from autograder.files import write_atomic
from autograder.models import SubmissionKey

__all__ = ["LATE_NOTES_FILE", "LateNote", "LateNotes", "late_note_html"]

#: The course folder's late notes: ``[[assignment, student, note], ...]``.
LATE_NOTES_FILE = "feedback-late.json"


@dataclass(frozen=True)
class LateNote:
    """One submission's lateness as its page says it; times as the outputs show them
    (:func:`autograder.text.clock_time`)."""

    due: str  # the assignment's due date
    handed_in: str
    rule: str  # the late rule in words
    extended_to: str = ""  # the student's own due date (an extension), or ""
    extension: str = ""  # the extension as course.toml writes it ("+3 days")
    late_by: str = ""  # "1 day 11 h 2 min", or "" when on time
    cost: str = ""  # "−20 % (−1.2 points)", "no penalty", or "" when on time

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> LateNote:
        known = {f.name for f in fields(cls)}
        return cls(**{k: str(v) for k, v in data.items() if k in known})


class LateNotes:
    """The course's late notes (its :data:`LATE_NOTES_FILE`)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def read(self) -> dict[SubmissionKey, LateNote]:
        """Every recorded note; an absent or unreadable file (the grader's own, torn by
        nothing: it is written whole) holds none."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return {(str(a), str(s)): LateNote.from_dict(note) for a, s, note in data}
        except (OSError, ValueError, TypeError, AttributeError):
            return {}

    def changed(self, notes: Mapping[SubmissionKey, LateNote | None]) -> set[SubmissionKey]:
        """The submissions of ``notes`` (None: no note) whose recorded note differs."""
        recorded = self.read()
        return {key for key, note in notes.items() if recorded.get(key) != note}

    def record(self, notes: Mapping[SubmissionKey, LateNote | None]) -> None:
        """Record ``notes`` (None takes a submission's note out); the others stay."""
        merged = self.read()
        for key, note in notes.items():
            if note is None:
                merged.pop(key, None)
            else:
                merged[key] = note
        if not merged:
            self.path.unlink(missing_ok=True)
            return
        rows = [[a, s, asdict(note)] for (a, s), note in sorted(merged.items())]
        write_atomic(self.path, json.dumps(rows, indent=1, ensure_ascii=False) + "\n")


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


def late_note_html(note: LateNote) -> str:
    """The page's late section for ``note`` (HTML, every text escaped), a raw cell: only the
    tags nbconvert's template keeps in one (``div``, ``strong``, ``ul``, ``li``), its box
    the page's style sheet's (its class, ``autograder-late``)."""
    late = bool(note.late_by)
    title = "Handed in after the due date" if late else "Your extension"
    items = [f"Due: {_e(note.due)}"]
    if note.extended_to:
        written = f" ({_e(note.extension)})" if note.extension else ""
        items.append(f"Your extension: due {_e(note.extended_to)}{written}")
    when = f"{_e(note.late_by)} late" if late else "on time"
    items.append(f"Handed in: {_e(note.handed_in)}, {when}")
    if late:
        items.append(f"Late rule: {_e(note.rule)}")
        items.append(
            f"Penalty: {_e(note.cost)}; the score at the top of this page is after it"
            if note.cost and note.cost != "no penalty"
            else "Penalty: none"
        )
    rows = "".join(f"<li>{item}</li>" for item in items)
    return f'<div class="autograder-late"><strong>{_e(title)}</strong><ul>{rows}</ul></div>'
