"""What the grader knows of a notebook's cells: nbgrader's cell kinds, the grader's flags in a
notebook's metadata, the hidden tests of a test cell, the rubric of a written answer, a
notebook as .ipynb bytes, which assignment a notebook's grade ids fit
(:func:`assignment_mismatch`, :func:`closest_assignments`: the one home of that matching,
used by intake before grading and by the grading batch), the name each test's score goes
by (:func:`score_names`), and the library references a test cell makes unusable
(:func:`disabled_names`: what the student's release leaves out of its linlib; and
:func:`used_references`: the references put in place of the student's earlier functions).

The hidden-test regions are found one way, with nbgrader's own delimiters and rule
(``ClearHiddenTests``: a line containing ``BEGIN HIDDEN TESTS`` opens a region, a line
containing ``END HIDDEN TESTS`` closes it); a region left open runs to the end of the cell.

A written answer's rubric is parsed by :mod:`course_common.rubric` (the lecture reads it
too); :func:`rubrics` gathers a notebook's, for formgrader's view
(:class:`autograder.grading.preprocessors.ShowRubric`).
"""

from __future__ import annotations

import ast
import functools
import io
import json
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from course_common.rubric import is_written_answer, split_rubric

if TYPE_CHECKING:
    from nbformat import NotebookNode

#: The key of the grader's own data in a notebook's metadata (``flags``, ``sandbox``, ...).
FLAGS_KEY = "autograder"
#: Under :data:`FLAGS_KEY`: exercise -> the re-check's diagnosis of its failed tests.
DIAGNOSES_KEY = "diagnoses"

#: nbgrader's hidden-test delimiters (``ClearHiddenTests``' defaults, which a course cannot
#: change: :meth:`autograder.source.CourseSource.check` refuses one that does; written out
#: here so that this module does not import nbgrader, and held to nbgrader's by
#: ``tests/autograder/test_notebook.py``).
HIDDEN_BEGIN: str = "BEGIN HIDDEN TESTS"
HIDDEN_END: str = "END HIDDEN TESTS"


def grade_id(cell: NotebookNode) -> str | None:
    """The cell's nbgrader grade id, or None."""
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def is_test_cell(cell: NotebookNode) -> bool:
    """An autograded test cell: a code cell nbgrader grades that is not a solution cell."""
    from nbgrader import utils  # here: importing nbgrader takes seconds

    return (
        cell.cell_type == "code"
        and bool(utils.is_grade(cell))
        and not utils.is_solution(cell)
        and bool(grade_id(cell))
    )


def test_id(cell: NotebookNode) -> str | None:
    """The grade id of an autograded test cell (:func:`is_test_cell`), None for any other
    cell."""
    return grade_id(cell) if is_test_cell(cell) else None


def rubrics(nb: NotebookNode) -> dict[str, str]:
    """grade id -> the rubric of every written answer of *nb* that has one."""
    found = {}
    for cell in nb.cells:
        if is_written_answer(cell) and grade_id(cell):
            rubric = split_rubric(cell.source)[1]
            if rubric:
                found[str(grade_id(cell))] = rubric
    return found


def add_flag(nb: NotebookNode, text: str) -> None:
    """Append a readable flag to ``nb.metadata["autograder"]["flags"]`` (no duplicates)."""
    flags = nb.metadata.setdefault(FLAGS_KEY, {}).setdefault("flags", [])
    if text not in flags:
        flags.append(text)


def read_notebook(path: str | Path) -> NotebookNode:
    """The notebook at ``path``, as nbformat reads it (version 4), nbformat imported on first
    use."""
    import nbformat

    return nbformat.read(str(path), as_version=4)


def notebook_bytes(nb: NotebookNode) -> bytes:
    """A NotebookNode as the bytes of an .ipynb file."""
    import nbformat

    buffer = io.StringIO()
    with warnings.catch_warnings():
        # nbformat repairs duplicated cell ids (a student copied a cell) and says so
        warnings.simplefilter("ignore")
        nbformat.write(nb, buffer)
    return buffer.getvalue().encode("utf-8")


def collect_notebook_flags(folder: Path) -> list[str]:
    """Flags recorded in graded notebooks' ``metadata["autograder"]["flags"]``."""
    flags: list[str] = []
    if not folder.is_dir():
        return flags
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = read_notebook(path)
        except Exception:  # a graded notebook nbgrader wrote is readable; be safe anyway
            continue
        for flag in nb.metadata.get(FLAGS_KEY, {}).get("flags", []) or []:
            text = str(flag)
            if text not in flags:
                flags.append(text)
    return flags


def collect_undecided(folder: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """notebook -> grade id -> what the trusted re-check could not decide by itself there:
    ``why``, ``provisional`` (the cell failed while the canary had not said whether the
    kernel's verdict counts) and ``kernel`` (it was scored as the kernel ran it), from
    graded notebooks' ``metadata["autograder"]["checks"]``."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = read_notebook(path)
        except Exception:
            continue
        checks = nb.metadata.get(FLAGS_KEY, {}).get("checks", {}) or {}
        for gid, record in checks.items():
            if isinstance(record, dict) and record.get("undecided"):
                found.setdefault(path.stem, {})[str(gid)] = {
                    "why": str(record["undecided"]),
                    "provisional": bool(record.get("provisional")),
                    "kernel": record.get("trusted") == "not re-checked",
                }
    return found


def collect_notebook_diagnoses(folder: Path) -> dict[str, dict]:
    """exercise -> diagnosis, recorded in graded notebooks'
    ``metadata["autograder"]["diagnoses"]`` (:mod:`autograder.recheck.diagnosis`)."""
    found: dict[str, dict] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = read_notebook(path)
        except Exception:  # a graded notebook nbgrader wrote is readable; be safe anyway
            continue
        records = nb.metadata.get(FLAGS_KEY, {}).get(DIAGNOSES_KEY, {}) or {}
        if isinstance(records, dict):
            for exercise, record in records.items():
                if isinstance(record, dict):
                    found[str(exercise)] = dict(record)
    return found


def hidden_line_ranges(source: str) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of the hidden-test regions of a cell's source, the
    delimiter lines included."""
    ranges = []
    start = None
    lines = source.split("\n")
    for number, line in enumerate(lines, start=1):
        if HIDDEN_BEGIN in line and start is None:
            start = number
        elif HIDDEN_END in line and start is not None:
            ranges.append((start, number))
            start = None
    if start is not None:
        ranges.append((start, len(lines)))
    return ranges


def strip_hidden_tests(source: str) -> str:
    """The source without its hidden-test regions (what nbgrader's release shows)."""
    lines = source.split("\n")
    hidden = {n for a, b in hidden_line_ranges(source) for n in range(a, b + 1)}
    return "\n".join(line for n, line in enumerate(lines, start=1) if n not in hidden)


def redact_hidden_source(source: str, note: str) -> tuple[str, bool]:
    """Replace each hidden-test region of ``source`` by the line ``note``, indented as the
    region's first line.

    Returns the new source and whether anything was redacted. An unterminated region is
    redacted to the end of the cell.
    """
    ranges = hidden_line_ranges(source)
    if not ranges:
        return source, False
    lines = source.split("\n")
    out: list[str] = []
    previous = 0
    for start, end in ranges:
        out.extend(lines[previous : start - 1])
        first = lines[start - 1]
        out.append(first[: len(first) - len(first.lstrip(" \t"))] + note)
        previous = end
    out.extend(lines[previous:])
    return "\n".join(out), True


# --------------------------------------------------------------------------- grade ids


_GRADED_KINDS = ("grade", "solution", "task")


def cell_kind(meta: Mapping) -> str:
    """What nbgrader makes of a cell with this ``nbgrader`` metadata, in words."""
    grade, solution, task = (bool(meta.get(k)) for k in ("grade", "solution", "task"))
    if task:
        return "task cell"
    if grade and solution:
        return "manually graded answer"
    if grade:
        return "test cell"
    if solution:
        return "answer cell"
    return "read-only cell" if meta.get("locked") else "ordinary cell"


def graded_ids(nb: NotebookNode | Mapping) -> set[str]:
    """Grade ids of a notebook's graded cells: nbgrader's grade, solution and task cells."""
    out = set()
    for cell in nb.get("cells", []):
        meta = _nbgrader_meta(cell)
        name = meta.get("grade_id")
        if isinstance(name, str) and name and any(meta.get(k) for k in _GRADED_KINDS):
            out.add(name)
    return out


def carried_ids(content: bytes | NotebookNode | Mapping) -> set[str]:
    """Every grade id a (submitted) notebook's cells carry, whatever their kind; an
    unreadable notebook carries none."""
    if isinstance(content, bytes | str):
        try:
            content = json.loads(content)
        except ValueError:
            return set()
    cells = content.get("cells", []) if isinstance(content, Mapping) else []
    ids = [_nbgrader_meta(c).get("grade_id") for c in cells if isinstance(c, Mapping)]
    return {i for i in ids if isinstance(i, str) and i}


def score_names(folder: Path) -> dict[tuple[str, str], str]:
    """Each grade id of the notebooks in an assignment's source folder, as (notebook name,
    grade id), -> the name its score goes by in the grader's outputs (``results.json``'s
    tests, ``summary.md``'s pass rates): the grade id, or ``notebook/grade id`` when
    another notebook of the assignment has that grade id too (nbgrader's grade ids are
    unique within a notebook only). In order: the notebooks by name, their cells in order
    (the order the instructor wrote the tests in)."""
    cells: list[tuple[str, str]] = []
    for path in sorted(Path(folder).glob("*.ipynb")):
        key = (str(path), *_stamp(path))
        cells += [(path.stem, name) for name in dict.fromkeys(_cell_grade_ids(key))]
    counts = Counter(name for _, name in cells)
    return {
        (notebook, name): name if counts[name] == 1 else f"{notebook}/{name}"
        for notebook, name in cells
    }


def folder_grade_order(folder: Path) -> dict[str, int]:
    """Each test of an assignment's source folder, by the name its score goes by
    (:func:`score_names`) -> its place: the notebooks by name, their cells in order."""
    return {name: place for place, name in enumerate(score_names(folder).values())}


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except OSError:
        return (0, 0)
    return (stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _cell_grade_ids(key: tuple[str, int, int]) -> tuple[str, ...]:
    """The grade ids of a notebook's cells, in order (cached by path, mtime and size: the
    gradebook's scores are put in this order once per graded submission)."""
    try:
        cells = json.loads(Path(key[0]).read_bytes()).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return ()
    names = [_nbgrader_meta(c).get("grade_id") for c in cells if isinstance(c, Mapping)]
    return tuple(n for n in names if isinstance(n, str) and n)


def folder_graded_ids(folder: Path) -> set[str]:
    """Grade ids of the graded cells of every notebook in an assignment's source folder."""
    out: set[str] = set()
    for path in sorted(Path(folder).glob("*.ipynb")):
        out |= graded_ids(json.loads(path.read_bytes()))
    return out


def id_fit(ids: set[str], names: set[str]) -> tuple[int, int]:
    """How well a submission whose notebooks carry the grade ids ``ids`` fits an assignment
    whose graded cells are ``names``: the graded cells it carries, then (negated) those it
    lacks. Compared as a tuple, the greater fits better."""
    return len(ids & names), -len(names - ids)


def closest_assignments(
    ids: set[str], graded: Mapping[str, set[str]], among: Iterable[str] | None = None
) -> list[str]:
    """The assignments of ``graded`` (of ``among`` only, when given) that ``ids`` fit best
    (:func:`id_fit`), in the order of ``graded``: one, or several that fit alike (an
    instructor who copied cells keeps their grade ids: nbgrader's grade ids are unique
    within a notebook only); none when ``ids`` share no graded cell with any of them."""
    allowed = None if among is None else set(among)
    fits = {
        assignment: id_fit(ids, names)
        for assignment, names in graded.items()
        if (allowed is None or assignment in allowed) and ids & names
    }
    best = max(fits.values(), default=None)
    return [assignment for assignment, fit in fits.items() if fit == best]


def closest_assignment(ids: set[str], graded: Mapping[str, set[str]]) -> str | None:
    """The assignment ``ids`` fit best (:func:`closest_assignments`; of several that fit
    alike, the first; None if it shares no graded cell with any)."""
    best = closest_assignments(ids, graded)
    return best[0] if best else None


def assignment_mismatch(
    assignment: str, submissions: Iterable[set[str]], graded: Mapping[str, set[str]]
) -> str | None:
    """Why submissions carrying these grade ids are not ``assignment``'s (None if they are).

    Each item of ``submissions`` is the set of grade ids one student's notebooks carry
    (:func:`carried_ids`); students with no readable notebook do not count. A submission is
    foreign when ``assignment`` is not among those it fits best
    (:func:`closest_assignments`): it shares none of the assignment's graded cells, or
    another assignment's fit it better (a grade id copied from one assignment to another
    proves nothing alone). The batch is refused when MOST students are foreign: an
    instructor's mistake (a wrong ``--assignment``, another course's zip). A single odd
    notebook is that student's flag, not a refusal.
    """
    wanted = graded.get(assignment, set())
    counted = [ids for ids in submissions if ids]
    foreign = [ids for ids in counted if assignment not in closest_assignments(ids, graded)]
    if not counted or 2 * len(foreign) <= len(counted):
        return None
    looks = Counter(closest_assignment(ids, graded) for ids in foreign).most_common(1)[0][0]
    which = f"look like {looks}" if looks else "match no assignment of this course"
    some = "" if len(foreign) == len(counted) else f"{len(foreign)} of {len(counted)}"
    if any(ids & wanted for ids in foreign):  # they share a copied cell or a few
        other = f"{looks}'s" if looks else "another assignment's"
        why = f"{some or 'all'} of them fit {other} graded cells better than {assignment}'s"
    else:
        why = f"{some or 'none'} of them carry any of {assignment}'s {len(wanted)} graded cells"
    return f"these submissions {which}, not {assignment} ({why}); check --assignment"


def _nbgrader_meta(cell: Mapping) -> Mapping:
    meta = cell.get("metadata", {}) if isinstance(cell, Mapping) else {}
    nbg = meta.get("nbgrader", {}) if isinstance(meta, Mapping) else {}
    return nbg if isinstance(nbg, Mapping) else {}


# --------------------------------------------------------------------------- references


def _literal_names(value: object) -> set[str] | None:
    if isinstance(value, str):
        return {value}
    if isinstance(value, tuple | list | set | frozenset) and all(
        isinstance(item, str) for item in value
    ):
        return set(value)
    return None


def _literal_references(value: object) -> dict[str, str] | None:
    names = _literal_names(value)
    if names is not None:
        return {name: name for name in names}
    if isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return dict(value)
    return None


def _call_student_keyword(source: str, keyword: str, read: Any) -> list[Any]:
    """What every ``call_student(..., <keyword>=...)`` of a test cell passes, each read by
    *read* (a literal's value -> the names, or None when it is not such a literal): a
    literal, or a name the cell binds to one (every binding of that name counts). Raises
    ``ValueError`` for a value that is neither, or a cell that is not Python."""
    code = "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
    )
    tree = ast.parse(code)  # SyntaxError is a ValueError
    bound: dict[str, list[Any]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            try:
                names = read(ast.literal_eval(node.value))
            except (ValueError, TypeError, SyntaxError):
                names = None
            for target in targets:
                if isinstance(target, ast.Name) and names is not None:
                    bound.setdefault(target.id, []).append(names)
    out: list[Any] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if called != "call_student":
            continue
        for kw in node.keywords:
            if kw.arg != keyword:
                continue
            value = kw.value
            if isinstance(value, ast.Name) and value.id in bound:
                out.extend(bound[value.id])
                continue
            try:
                names = read(ast.literal_eval(value))
            except (ValueError, TypeError, SyntaxError):
                names = None
            if names is None:
                raise ValueError(
                    f"line {value.lineno}: {keyword}={ast.unparse(value)} is not a literal "
                    "tuple of names (nor a name the cell binds to one)"
                )
            out.append(names)
    return out


def disabled_names(source: str) -> set[str]:
    """The library references a test cell's ``call_student(..., disable=...)`` calls make
    unusable: the names a student must not hand in as their own (``"norm"``,
    ``"linlib.geometry.<function>"``, ``"sklearn.svm.SVC"``), as the cell writes them.

    ``disable`` is read without running the cell: a literal (a string, or a tuple or list
    of strings) or a name the cell binds to one (``off = ("Classifier", ...)``; every
    binding of that name in the cell counts). Raises ``ValueError`` for a ``disable`` that
    is neither, or a cell that is not Python, so that no reference is missed silently.
    """
    return set().union(*_call_student_keyword(source, "disable", _literal_names))


def used_references(source: str) -> dict[str, str]:
    """The library references a test cell's ``call_student(..., use_reference=...)`` calls
    put in place of the student's earlier functions: the student's name -> the library's
    (a tuple of names maps each to itself), read as :func:`disabled_names` reads
    ``disable``."""
    found: dict[str, str] = {}
    for pairs in _call_student_keyword(source, "use_reference", _literal_references):
        found.update(pairs)
    return found
