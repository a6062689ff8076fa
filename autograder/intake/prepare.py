"""Preparing a student's submission for grading: its files matched to the assignment's
notebooks, each notebook checked, and what is off flagged.

Of the copies of a notebook (the exact file name, and renamed ones: "problem1
(1).ipynb", "Copy of problem1.ipynb", "Problem1_v2.ipynb", Canvas's re-uploads
"problem1-1.ipynb", "problem1-2.ipynb"; or the only notebook handed in) the
latest version is graded: Canvas's highest re-upload number ("-10" after "-9"; the
unnumbered file is the first upload), then the exact name, then the highest number of a
copy the student made ("(2)" after "(1)"). It is graded under
its proper name; a renamed one and the older ones are flagged. A missing, corrupt or
unreadable notebook scores 0 and is flagged; other files are ignored and flagged, in one
summarising flag when there are many (a student's ``numpy.py`` must not shadow a library in
the grader).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from pathlib import PurePosixPath

from autograder.models import PreparedSubmission, RawSubmission
from autograder.text import LISTED, first_line

_VERSION = re.compile(r"(?:-(\d+)|[ _-]?\((\d+)\)|_v(\d+)|[ _-]copy(\d*))$", re.IGNORECASE)


def upload_order(name: str, wanted: str) -> tuple[int, bool, int, str]:
    """Sort key of the copies of notebook ``wanted`` ("<name>.ipynb"), latest last.

    Canvas's re-upload number ("x-2"; 0 for none) comes first: a re-upload is later than
    the unnumbered file. Then the exact name, which wins over a copy the student made or
    downloaded ("x (2)", "x_v2", "x copy2"): those are ordered by their own number.
    """
    match = _VERSION.search(PurePosixPath(name).stem)
    reupload = copy = 0
    if match:
        canvas, *others = match.groups()
        if canvas is not None:
            reupload = int(canvas)
        else:
            digits = next((g for g in others if g is not None), "")
            copy = int(digits) if digits else 1
    return reupload, name == wanted, copy, name


def _normalise(stem: str) -> str:
    stem = stem.lower()
    stem = re.sub(r"^(copy of |copy_of_)", "", stem)
    stem = re.sub(r"([ _-]?\(\d+\)|-\d+|[ _-]copy\d*|_v\d+)$", "", stem)
    return re.sub(r"[\s_\-.]+", "_", stem).strip("_")


def named_assignments(
    files: Iterable[str], notebooks_by_assignment: Mapping[str, list[str]]
) -> list[str]:
    """The assignments whose notebook names match most of these file names (renamed copies
    too: ``Copy of x (1).ipynb`` is ``x``), in the mapping's order: one, several that match
    as many (two assignments with a notebook of the same name), or none."""
    stems = {_normalise(PurePosixPath(f).stem) for f in files if f.endswith(".ipynb")}
    counts = {
        assignment: len(stems & {_normalise(n) for n in notebooks})
        for assignment, notebooks in notebooks_by_assignment.items()
    }
    best = max(counts.values(), default=0)
    return [assignment for assignment, count in counts.items() if count == best > 0]


def guess_assignment(
    files: Iterable[str], notebooks_by_assignment: Mapping[str, list[str]]
) -> str | None:
    """The assignment whose notebook names match these file names best (of several that
    match as well, the first; None if none)."""
    named = named_assignments(files, notebooks_by_assignment)
    return named[0] if named else None


def copies_of(notebook: str, names: Iterable[str], *, only: bool = False) -> list[str]:
    """The file names among ``names`` that are copies of ``notebook`` (its exact name, a
    renamed copy, a Canvas re-upload); with ``only`` (the assignment has one notebook) and
    no copy by name, every notebook handed in."""
    ipynbs = [n for n in names if n.endswith(".ipynb")]
    wanted = f"{notebook}.ipynb"
    copies = [
        n
        for n in ipynbs
        if n == wanted or _normalise(PurePosixPath(n).stem) == _normalise(notebook)
    ]
    return copies if copies or not only else ipynbs


def check_notebook(content: bytes) -> str | None:
    """Why ``content`` is not a gradable notebook (None if it is)."""
    import nbformat

    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    try:
        nb = nbformat.reads(text, as_version=4)
    except nbformat.ValidationError as exc:
        return f"not a valid notebook ({first_line(exc, 120)})"
    except Exception as exc:  # JSON errors, unknown nbformat versions, ...
        return f"not a readable notebook ({type(exc).__name__})"
    try:
        nbformat.validate(nb)
    except Exception as exc:
        return f"not a valid notebook ({first_line(exc, 120)})"
    return None


def prepare(
    raw: RawSubmission,
    assignment: str,
    notebooks: list[str],
    released: Collection[str] = (),
) -> PreparedSubmission:
    """Match a student's files to the assignment's notebooks and flag what is off.

    Parameters
    ----------
    raw : RawSubmission
    assignment : str
    notebooks : list of str
        The assignment's notebook names (without ".ipynb").
    released : collection of str
        The other files of the assignment's release (``data/train.csv``, ``figure.png``):
        handed back, they are not flagged (nbgrader grades with the source's copies).
    """
    prepared = PreparedSubmission(raw.student, assignment, flags=list(raw.flags), name=raw.name)
    available = dict(raw.files)
    ipynbs = [n for n in available if n.endswith(".ipynb")]
    used: set[str] = set()
    for notebook in notebooks:
        wanted = f"{notebook}.ipynb"
        unused = [n for n in ipynbs if n not in used]
        candidates = copies_of(notebook, unused, only=len(notebooks) == 1)
        if not candidates:
            prepared.missing.append(notebook)
            prepared.flags.append(f"notebook {wanted!r} is missing (scored 0)")
            continue
        ordered = sorted(candidates, key=lambda n: upload_order(n, wanted))
        chosen = ordered[-1]
        used.update(candidates)
        if chosen != wanted:
            prepared.flags.append(f"{chosen!r} was graded as {wanted!r} (renamed file)")
        latest = upload_order(chosen, wanted)[0]
        for other in ordered[:-1]:
            if upload_order(other, wanted)[0] < latest:
                prepared.flags.append(
                    f"older upload {other!r} ignored (graded the latest, {chosen!r})"
                )
            else:
                prepared.flags.append(f"other copy {other!r} ignored (graded {chosen!r})")
        problem = check_notebook(available[chosen])
        if problem:
            prepared.missing.append(notebook)
            prepared.flags.append(f"notebook {wanted!r} is corrupt: {problem} (scored 0)")
            continue
        prepared.notebooks[wanted] = available[chosen]
    extra = sorted(set(available) - used - set(released))
    if len(extra) > LISTED:  # flagged in one summarising flag
        first = ", ".join(repr(name) for name in extra[:3])
        prepared.flags.append(f"extra files ignored: {len(extra):,} (first: {first}, ...)")
    else:
        prepared.flags.extend(f"extra file {name!r} ignored" for name in extra)
    return prepared
