"""Preparing a student's submission for grading: its files matched to the assignment's
notebooks, each notebook checked, and what is off flagged.

An exact file name is used as is; a renamed copy ("01_hyperplanes (1).ipynb", "Copy of
01_hyperplanes.ipynb", "01_Hyperplanes-2.ipynb", or the only notebook handed in) is graded
under its proper name and flagged; a missing, corrupt or unreadable notebook scores 0 and is
flagged; other files are ignored and flagged (a student's ``numpy.py`` must not shadow a
library in the grader).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

import nbformat

from autograder.models import PreparedSubmission, RawSubmission


def _normalise(stem: str) -> str:
    stem = stem.lower()
    stem = re.sub(r"^(copy of |copy_of_)", "", stem)
    stem = re.sub(r"([ _-]?\(\d+\)|-\d+|[ _-]copy\d*|_v\d+)$", "", stem)
    return re.sub(r"[\s_\-.]+", "_", stem).strip("_")


def guess_assignment(
    files: Iterable[str], notebooks_by_assignment: Mapping[str, list[str]]
) -> str | None:
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
