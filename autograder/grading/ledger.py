"""The grading ledger: one line per graded submission, so no grade is ever lost.

``<course_dir>/ledger.jsonl`` gets a JSON line as soon as a submission's grades are in the
gradebook, keyed by (assignment, student) and a digest of everything that decides the
grade (the submission's files, the assignment's source files, the grading settings). A run
that is interrupted and started again finds those lines and does not grade the same
submissions again; a changed submission (a different digest) is graded afresh. The file is
only ever appended to (flushed and fsynced per line); the last line for a key wins, and a
torn last line from a crash is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

#: Bump when the way grades are computed changes, so old ledger lines stop matching.
LEDGER_VERSION = "1"


class Ledger:
    """Append-only record of graded submissions (see the module docstring)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}
        if self.path.exists():
            with self.path.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        entry = json.loads(line)
                        key = (entry["assignment"], entry["student"])
                    except (ValueError, KeyError, TypeError):
                        continue  # a torn line from an interrupted write
                    self._entries[key] = entry

    def lookup(self, assignment: str, student: str, digest: str) -> dict[str, Any] | None:
        """The recorded result for this exact submission, or None."""
        entry = self._entries.get((assignment, student))
        if entry is None or entry.get("digest") != digest:
            return None
        return dict(entry["result"])

    def record(self, assignment: str, student: str, digest: str, result: dict[str, Any]) -> None:
        """Append one graded submission (durably: flushed and fsynced)."""
        entry = {"assignment": assignment, "student": student, "digest": digest, "result": result}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(entry, sort_keys=True) + "\n"
        with self.path.open("a+b") as fh:
            if fh.tell() > 0:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    # a torn last line from a crash: the new line starts on a line of its own
                    line = "\n" + line
            fh.write(line.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        self._entries[(assignment, student)] = entry
