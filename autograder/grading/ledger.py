"""The grading ledger: one line per graded submission, so no grade is ever lost.

``<course_dir>/ledger.jsonl`` gets a JSON line as soon as a submission's grades are in the
gradebook, keyed by (assignment, student) and a digest of everything that decides the
grade (the submission's files, the assignment's source files, the grading settings). A run
that is interrupted and started again finds those lines and does not grade the same
submissions again; a changed submission (a different digest) is graded afresh. Only what a
notebook earned is recorded, never a failure of the machine (:mod:`autograder.faults`).

The file is only ever appended to, a whole line at a time (:func:`autograder.files.append_line`:
one write, fsynced, cut back when the disk is full); the last line for a key wins. A line
that cannot be read (torn by a crash of the machine or an older version) is ignored, and
counted in :attr:`Ledger.unreadable` so the run can say so: its submission is graded again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from autograder.files import append_line

#: Bump when the way grades are computed changes, so old ledger lines stop matching.
LEDGER_VERSION = "1"


class Ledger:
    """Append-only record of graded submissions (see the module docstring)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}
        #: line numbers (from 1) of the lines that could not be read, ignored
        self.unreadable: list[int] = []
        if self.path.exists():
            with self.path.open("rb") as fh:
                for number, raw in enumerate(fh, start=1):
                    if not raw.strip():
                        continue
                    try:
                        entry = json.loads(raw.decode("utf-8"))
                        key = (entry["assignment"], entry["student"])
                        if not isinstance(entry["result"], dict):
                            raise TypeError("result")
                    except (ValueError, KeyError, TypeError):
                        self.unreadable.append(number)  # a torn line from a crash
                        continue
                    self._entries[key] = entry

    def lookup(self, assignment: str, student: str, digest: str) -> dict[str, Any] | None:
        """The recorded result for this exact submission, or None."""
        entry = self._entries.get((assignment, student))
        if entry is None or entry.get("digest") != digest:
            return None
        return dict(entry["result"])

    def record(self, assignment: str, student: str, digest: str, result: dict[str, Any]) -> None:
        """Append one graded submission (durably: one whole line, fsynced)."""
        entry = {"assignment": assignment, "student": student, "digest": digest, "result": result}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        append_line(self.path, json.dumps(entry, sort_keys=True))
        self._entries[(assignment, student)] = entry
