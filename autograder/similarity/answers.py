"""What a student wrote, exercise by exercise: the content of each code solution cell of a
submitted notebook less what the release put there (the signature, the docstring, the
``# YOUR CODE HERE`` stub), and the course's own code of the notebook (every code cell of the
source notebook, the reference solutions included, and of the release), which the detector
treats as boilerplate.

Exercises are nbgrader's code solution cells (``solution: true`` in the cell's metadata),
found by grade id in the source and release notebooks; a student's answer is the cell of the
submitted notebook that carries that grade id. Nothing here runs student code, and nothing
fails on a hostile notebook: an unreadable one (not UTF-8, not JSON, binary junk) gives no
answers and a flag, an enormous cell is cut at :data:`MAX_ANSWER_CHARS` and flagged.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The longest answer compared (characters); the rest of a longer cell is left out, flagged.
MAX_ANSWER_CHARS = 10_000
#: The largest notebook read for answers (bytes); a larger one gives no answers, flagged.
MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class Exercise:
    """One code exercise: a solution cell of an assignment's notebook."""

    assignment: str
    notebook: str  # "<name>.ipynb"
    grade_id: str
    stub: str  # the release cell's source: what every student starts from
    #: another notebook of the assignment has this grade id too (nbgrader's grade ids are
    #: unique within a notebook only): the key names the notebook
    shared_id: bool = False

    @property
    def key(self) -> str:
        """``assignment/grade id``, or ``assignment/notebook/grade id`` (:attr:`shared_id`)."""
        if self.shared_id:
            return f"{self.assignment}/{Path(self.notebook).stem}/{self.grade_id}"
        return f"{self.assignment}/{self.grade_id}"


@dataclass
class Answer:
    """One student's answer to one exercise (``code``: only what the student wrote)."""

    student: str
    exercise: Exercise
    code: str
    flags: list[str] = field(default_factory=list)


@dataclass
class Assignment:
    """An assignment's exercises and its boilerplate (the course's own code)."""

    name: str
    exercises: list[Exercise]
    boilerplate: str


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return source if isinstance(source, str) else ""


def _solution_id(cell: Mapping[str, Any]) -> str | None:
    """The grade id of a code solution cell, or None (any malformed metadata: None)."""
    if not isinstance(cell, Mapping) or cell.get("cell_type") != "code":
        return None
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, Mapping) else None
    if not isinstance(meta, Mapping) or meta.get("solution") is not True:
        return None
    gid = meta.get("grade_id")
    return gid if isinstance(gid, str) and gid else None


def _cells(content: bytes | str | Path) -> list[Mapping[str, Any]]:
    """The cells of a notebook read as JSON (no schema validation, never executed).

    Raises
    ------
    ValueError
        Not a readable notebook, with why in one line.
    """
    if isinstance(content, Path):
        content = content.read_bytes()
    if isinstance(content, bytes):
        if len(content) > MAX_NOTEBOOK_BYTES:
            raise ValueError(f"notebook larger than {MAX_NOTEBOOK_BYTES // 2**20} MiB")
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("not UTF-8 text") from None
    try:
        data = json.loads(content)
    except (ValueError, RecursionError):
        raise ValueError("not a JSON notebook") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise ValueError("a JSON file without notebook cells")
    return [cell for cell in cells if isinstance(cell, Mapping)]


def read_assignment(
    name: str, source: Path | bytes, release: Path | bytes, notebook: str | None = None
) -> Assignment:
    """The code exercises of one notebook of assignment *name* (its source and release
    notebooks; an assignment of several notebooks gives one :class:`Assignment` each) and
    its boilerplate: every code cell of the source (instructor's code and reference
    solutions) and of the release (the stubs). *notebook*: its file name (default: the
    source's, or ``<name>.ipynb``)."""
    if notebook is None:
        notebook = source.name if isinstance(source, Path) else f"{name}.ipynb"
    source_cells, release_cells = _cells(source), _cells(release)
    stubs = {gid: _source(c) for c in release_cells if (gid := _solution_id(c))}
    exercises = [
        Exercise(name, notebook, gid, stubs.get(gid, ""))
        for c in source_cells
        if (gid := _solution_id(c))
    ]
    code = [_source(c) for c in [*source_cells, *release_cells] if c.get("cell_type") == "code"]
    return Assignment(name, exercises, "\n\n".join(code))


def written_part(code: str, stub: str) -> str:
    """*code* without the lines the student kept from *stub* (the release cell): the lines
    of the longest matching blocks (compared without surrounding white space) are dropped,
    so the signature, the docstring and the stub's comment go and the student's own lines
    stay, in order."""
    if not stub.strip():
        return code
    lines = code.split("\n")
    matcher = difflib.SequenceMatcher(
        None, [s.strip() for s in stub.split("\n")], [s.strip() for s in lines], autojunk=False
    )
    kept = [True] * len(lines)
    for block in matcher.get_matching_blocks():
        for j in range(block.b, block.b + block.size):
            if lines[j].strip():
                kept[j] = False
    return "\n".join(line for line, keep in zip(lines, kept, strict=True) if keep).strip("\n")


def student_answers(
    student: str, content: bytes | str | Path, exercises: Sequence[Exercise]
) -> tuple[list[Answer], list[str]]:
    """One student's answers to *exercises* (all of one notebook) in *content* (the submitted
    notebook), and the flags of the notebook as a whole (unreadable: no answers)."""
    try:
        cells = _cells(content)
    except ValueError as exc:
        return [], [f"notebook not compared: {exc}"]
    by_id: dict[str, str] = {}
    for cell in cells:
        gid = _solution_id(cell)
        if gid is not None and gid not in by_id:  # a duplicated cell: the first one
            by_id[gid] = _source(cell)
    answers = []
    for exercise in exercises:
        if exercise.grade_id not in by_id:
            continue
        code = by_id[exercise.grade_id]
        flags = []
        if len(code) > MAX_ANSWER_CHARS:
            flags.append(
                f"answer of {len(code):,} characters: its first {MAX_ANSWER_CHARS:,} compared"
            )
            code = code[:MAX_ANSWER_CHARS]
        # no NUL or lone surrogates reach the tokenizer, the CSV or the page
        code = code.replace("\0", "\ufffd").encode("utf-8", "replace").decode("utf-8")
        answers.append(Answer(student, exercise, written_part(code, exercise.stub), flags))
    return answers, []
