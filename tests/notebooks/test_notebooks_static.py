"""Static checks of every source notebook in ``notebooks/`` (no kernel needed).

The notebooks are discovered with a glob, so a notebook added later is covered without
touching this file. What is checked is the shape the course promises (``notebooks/README.md``
maps it): nbgrader metadata and readable grade ids, locked test cells with
visible and hidden tests for every exercise, test cells that only talk to student code
through ``linlib.grading``, stored outputs that are complete and clean, and the skeleton
of a notebook (title, objectives, setup, summary, further questions).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import is_grade, is_solution

from autograder.notebook import (
    HIDDEN_BEGIN,
    HIDDEN_END,
    grade_id,
    hidden_line_ranges,
    is_test_cell,
    strip_hidden_tests,
)
from autograder.samples import solution_sources
from course_common.paths import REPO_ROOT
from course_common.rubric import RUBRIC_HEADING, split_rubric

ROOT = REPO_ROOT
NOTEBOOKS = sorted(ROOT.glob("notebooks/*/*.ipynb"))
NOTEBOOK_IDS = [path.stem for path in NOTEBOOKS]

GRADE_ID = re.compile(r"^[a-z0-9_]+$")
NBGRADER_KEYS = {"grade", "grade_id", "locked", "points", "schema_version", "solution", "task"}
# Absolute paths of a machine: a notebook's outputs must not leak where it was run.
MACHINE_PATH = re.compile(r"(?<![\w.])(/work/|/tmp/|/home/|/root/|/Users/|/private/)")
# Assignments whose notebook must contain a manually graded written answer (notebooks/README.md).
WRITTEN_ANSWER_REQUIRED = ("03_", "05_")
MIN_AUTOGRADED_EXERCISES = 4

pytestmark = pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks yet")


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _meta(cell) -> dict:
    return dict(cell.get("metadata", {}).get("nbgrader", {}))


def _is_code_solution(cell) -> bool:
    return cell.cell_type == "code" and bool(is_solution(cell))


def _is_written_answer(cell) -> bool:
    return cell.cell_type == "markdown" and bool(is_grade(cell)) and bool(is_solution(cell))


def _without_solution_region(source: str) -> str:
    """The cell as a student first sees it (the region replaced by a stub)."""
    kept, inside = [], False
    for line in source.split("\n"):
        if "BEGIN SOLUTION" in line:
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            kept.append(indent + "raise NotImplementedError()")
        elif "END SOLUTION" in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


def _parse(source: str) -> ast.Module:
    # Strip IPython magics (the setup cell's %matplotlib inline) before parsing.
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")]
    return ast.parse("\n".join(lines))


def _defined_functions(source: str) -> list[str]:
    return [n.name for n in _parse(source).body if isinstance(n, ast.FunctionDef)]


def _exercises(nb) -> list[tuple[int, str, list[str]]]:
    """(cell index, solution grade id, functions defined) for every code solution cell."""
    return [
        (i, grade_id(cell), _defined_functions(cell.source))
        for i, cell in enumerate(nb.cells)
        if _is_code_solution(cell)
    ]


def _tests_of(nb, exercise: str) -> list[tuple[int, object]]:
    return [
        (i, cell)
        for i, cell in enumerate(nb.cells)
        if is_test_cell(cell) and grade_id(cell).startswith(exercise + "_")
    ]


def _hidden_part(source: str) -> str:
    """The hidden tests of a test cell (nbgrader's regions), without the delimiter lines."""
    lines = source.split("\n")
    return "\n".join(
        line
        for first, last in hidden_line_ranges(source)
        for line in lines[first - 1 : last]
        if HIDDEN_BEGIN not in line and HIDDEN_END not in line
    )


def _headings(nb) -> list[str]:
    return [
        line.lstrip("#").strip().lower()
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.split("\n")
        if line.startswith("#")
    ]


# --------------------------------------------------------------------------- layout


def test_notebooks_found_in_course_layout():
    """Each notebook sits in a folder of the same name, numbered like the course."""
    assert NOTEBOOKS, "no notebooks under notebooks/"
    for path in NOTEBOOKS:
        assert path.parent.name == path.stem, f"{path}: folder name must equal notebook name"
        assert re.fullmatch(r"\d\d_[a-z0-9_]+", path.stem), f"{path.stem}: not NN_name"
    numbers = [path.stem[:2] for path in NOTEBOOKS]
    assert len(set(numbers)) == len(numbers), f"two notebooks share a number: {numbers}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_valid_nbformat_and_python_kernel(path):
    """The file is valid nbformat 4 and runs on a Python 3 kernel."""
    nb = _read(path)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("language") == "python"


# --------------------------------------------------------------------------- nbgrader metadata


def test_notebooks_grade_ids_unique_and_readable():
    """Grade ids are unique across the whole course and readable (no generated cell-… ids)."""
    ids = [grade_id(cell) for path in NOTEBOOKS for cell in _read(path).cells if grade_id(cell)]
    duplicates = [gid for gid, n in Counter(ids).items() if n > 1]
    assert not duplicates, f"grade ids used more than once in the course: {duplicates}"
    for gid in ids:
        assert GRADE_ID.fullmatch(gid), f"grade id {gid!r} must match {GRADE_ID.pattern}"
        assert not gid.startswith("cell"), f"grade id {gid!r} looks generated; name it"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_nbgrader_metadata_exact(path):
    """Every nbgrader cell has exactly the schema-3 keys with consistent roles."""
    for cell in _read(path).cells:
        meta = _meta(cell)
        if not meta:
            continue
        gid = meta.get("grade_id")
        assert set(meta) == NBGRADER_KEYS, f"{gid}: nbgrader keys {sorted(meta)}"
        assert meta["schema_version"] == 3, gid
        assert meta["task"] is False, gid
        if is_grade(cell) and not is_solution(cell):
            assert cell.cell_type == "code", f"{gid}: a test cell must be code"
            assert meta["locked"] is True, f"{gid}: test cells must be locked"
            assert meta["points"] > 0, f"{gid}: a test cell without points"
        elif _is_code_solution(cell):
            assert meta["grade"] is False, f"{gid}: solution cells are graded by their tests"
            assert meta["locked"] is False, f"{gid}: a student must be able to edit it"
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source, gid
        elif _is_written_answer(cell):
            assert meta["locked"] is False, gid
            assert meta["points"] > 0, f"{gid}: a written answer without points"
        else:
            # Read-only cells (locked, neither graded nor solution) are allowed too.
            assert meta["locked"] is True and not meta["grade"] and not meta["solution"], gid


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_exercises_have_visible_and_hidden_tests(path):
    """Enough autograded exercises; each has visible and hidden tests, in prefixed cells."""
    nb = _read(path)
    exercises = _exercises(nb)
    assert len(exercises) >= MIN_AUTOGRADED_EXERCISES, (
        f"{path.stem}: {len(exercises)} autograded exercises, want ≥ {MIN_AUTOGRADED_EXERCISES}"
    )
    solution_ids = [gid for _, gid, _ in exercises]
    for _, gid, functions in exercises:
        assert functions, f"{gid}: a solution cell must define the function the student writes"
        tests = _tests_of(nb, gid)
        assert tests, f"{gid}: no test cells named {gid}_…"
        visible = [c for _, c in tests if not _hidden_part(c.source).strip()]
        hidden = [c for _, c in tests if _hidden_part(c.source).strip()]
        assert visible, f"{gid}: no visible test cell (one without a hidden block)"
        assert hidden, f"{gid}: no hidden tests"
        for _, cell in tests:
            # In the release the hidden block is gone; what remains must still call the
            # student's function, or the untouched stub would pass (validate --invert).
            visible_part = strip_hidden_tests(cell.source)
            assert re.search(r"\b(call_student|assert_raises)\(", visible_part), (
                f"{grade_id(cell)}: outside the hidden block, call the student's "
                "function at least once, so the release's stub fails this test"
            )
    for cell in nb.cells:
        if is_test_cell(cell):
            gid = grade_id(cell)
            owners = [s for s in solution_ids if gid.startswith(s + "_")]
            assert owners, f"{gid}: test id must start with its exercise's grade id + '_'"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_solution_cells_leave_a_docstring_stub(path):
    """With the solution removed, the cell still defines the function with a docstring."""
    for cell in _read(path).cells:
        if not _is_code_solution(cell):
            continue
        stub = _parse(_without_solution_region(cell.source))
        functions = [n for n in stub.body if isinstance(n, ast.FunctionDef)]
        assert functions, f"{grade_id(cell)}: the stub defines no function"
        for fn in functions:
            assert ast.get_docstring(fn), f"{fn.name}: the stub needs a docstring"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_prompts_state_points(path):
    """The prompt above an exercise states the points its tests are worth."""
    nb = _read(path)
    for index, gid, _ in _exercises(nb):
        total = sum(_meta(c)["points"] for _, c in _tests_of(nb, gid))
        prompt = next(
            (c.source for c in reversed(nb.cells[:index]) if c.cell_type == "markdown"), ""
        )
        points = f"{total:g} point"
        assert points in prompt, f"{gid}: prompt should say '{points}s' (its tests' total)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_test_cells_use_grading_helpers(path):
    """Test cells open with a docstring/comment, call student code only via call_student
    (in hidden tests too), and check with linlib.grading (no bare assert)."""
    nb = _read(path)
    student_functions = {f for _, _, fns in _exercises(nb) for f in fns}
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        gid = grade_id(cell)
        first = cell.source.lstrip().split("\n", 1)[0]
        assert first.startswith(('"""', "#")), f"{gid}: open with a one-line docstring/comment"
        assert cell.source.count(HIDDEN_BEGIN) == cell.source.count(HIDDEN_END) <= 1, gid
        tree = _parse(cell.source)
        for node in tree.body:
            # Checks live in functions: a test cell must not leave variables behind that
            # the notebook's own cells (or the student's) would then pick up.
            allowed = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Expr)
            assert isinstance(node, allowed), (
                f"{gid}: line {node.lineno}: top level of a test cell holds only imports, "
                "function definitions and calls (put the checks in a function)"
            )
        for node in ast.walk(tree):
            assert not isinstance(node, ast.Assert), (
                f"{gid}: use linlib.grading.assert_* instead of a bare assert"
            )
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                assert name not in student_functions, (
                    f"{gid}: calls {name}(...) directly; use call_student({name}, …)"
                )
        hidden = _hidden_part(cell.source)
        if hidden.strip():
            # What they disable is declared in the prompt (see the declared-rules tests).
            assert "call_student(" in hidden, (
                f"{gid}: hidden tests must run the student's code through call_student"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_exercises_reused_later(path):
    """Each graded function is used again after its tests (the student's code draws later)."""
    nb = _read(path)
    for _, gid, functions in _exercises(nb):
        last_test = max(i for i, _ in _tests_of(nb, gid))
        later = [
            c.source
            for c in nb.cells[last_test + 1 :]
            if c.cell_type == "code" and not _meta(c).get("grade") and not _meta(c).get("solution")
        ]
        used = [f for f in functions if any(re.search(rf"\b{f}\s*\(", source) for source in later)]
        assert used, f"{gid}: {functions} never used after its tests"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_written_answers_where_required(path):
    """Notebooks 03 and 05 contain a manually graded written answer."""
    nb = _read(path)
    if path.stem.startswith(WRITTEN_ANSWER_REQUIRED):
        assert any(_is_written_answer(c) for c in nb.cells), f"{path.stem}: no written answer"


#: A row of a rubric's table: an element of a full answer and its points.
RUBRIC_ROW = re.compile(r"^\|(?P<element>.+)\|\s*(?P<points>\d+(?:\.\d+)?)\s*\|$")
#: What a typical partial answer earns, in bold.
EARNS = re.compile(r"\*\*\d+(?:\.\d+)? points?\*\*")


def _bullets(text: str) -> list[str]:
    """The items of a markdown list (``* `` at the start of a line, continued by indented
    lines)."""
    items: list[str] = []
    for line in text.split("\n"):
        if line.startswith("* "):
            items.append(line[2:])
        elif items and line.startswith("  "):
            items[-1] += " " + line.strip()
    return items


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_written_answers_have_a_rubric(path):
    """Every written answer has, below its model answer, the grader's rubric (notebooks/README.md):
    a table of the elements of a full answer whose points add up to the answer's points,
    and at least two typical partial answers, each with what it earns. No solution
    delimiters in the cell: nbgrader then replaces the whole cell, rubric included, in
    the release."""
    for cell in _read(path).cells:
        if not _is_written_answer(cell):
            continue
        gid = grade_id(cell)
        assert "BEGIN SOLUTION" not in cell.source, f"{gid}: the release would keep the rubric"
        answer, rubric = split_rubric(cell.source)
        assert rubric, f"{gid}: no rubric: add a line '{RUBRIC_HEADING}' after the model answer"
        assert answer.strip(), f"{gid}: the model answer comes before the rubric"
        rows = [m for line in rubric.splitlines() if (m := RUBRIC_ROW.match(line.strip()))]
        assert len(rows) >= 2, f"{gid}: list the elements of a full answer, one row each"
        total = sum(float(m["points"]) for m in rows)
        assert total == _meta(cell)["points"], (
            f"{gid}: the rubric's rows add up to {total:g}, the answer is worth "
            f"{_meta(cell)['points']:g}"
        )
        partial = _bullets(rubric.split("Typical partial answers", 1)[-1])
        assert len(partial) >= 2, f"{gid}: name at least two typical partial answers"
        for item in partial:
            assert EARNS.search(item), f"{gid}: say what this partial answer earns: {item}"


# --------------------------------------------------------------------------- declared rules

#: The last line of every code exercise's prompt (nb_common rule 2).
DECLARED_LINE = re.compile(
    r"^Switched off in this exercise's tests: (?P<names>nothing|`[\w.]+`(?:, `[\w.]+`)*)\.$"
)
EXERCISE_HEADING = re.compile(r"^### Exercise \d+ — ", re.M)
#: Helpers the course hands out (notebooks/README.md) that no exercise may switch off
#: unless they are the exercise's own function's reference.
COURSE_HELPERS = frozenset(
    {"augment", "signed_distance", "functional_margin", "geometric_margin", "activation"}
)
INTRODUCED_IN = re.compile(r"Introduced in (\d\d)\b")


class _Unresolved(ValueError):
    """A ``disable=`` / ``use_reference=`` value the static check cannot read."""


def _literal(node: ast.AST, bindings: dict[str, list[tuple[int, ast.AST]]], line: int):
    """The value of a literal built from strings, tuples, lists, sets, dicts, ``+`` and
    names bound to such literals earlier in the cell (the last binding before *line*)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return tuple(_names_in(_literal(e, bindings, line)) for e in node.elts)
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise _Unresolved("** in a dict")
            out[_literal(key, bindings, line)] = _literal(value, bindings, line)
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return tuple(_names_in(_literal(node.left, bindings, line))) + tuple(
            _names_in(_literal(node.right, bindings, line))
        )
    if isinstance(node, ast.Name):
        earlier = [(n, v) for n, v in bindings.get(node.id, []) if n < line]
        if not earlier:
            raise _Unresolved(f"{node.id!r} is not bound to a literal before line {line}")
        lineno, value = max(earlier, key=lambda item: item[0])
        return _literal(value, bindings, lineno)
    raise _Unresolved(f"{ast.unparse(node)!r} is not a literal")


def _names_in(value) -> tuple[str, ...] | str:
    # a single string inside a tuple stays a string; a nested tuple is flattened
    if isinstance(value, tuple):
        return tuple(x for v in value for x in ((v,) if isinstance(v, str) else v))
    return value


def _as_names(value) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, dict):
        return tuple(value)
    return tuple(_names_in(value))


def _bindings(tree: ast.AST) -> dict[str, list[tuple[int, ast.AST]]]:
    found: dict[str, list[tuple[int, ast.AST]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append((node.lineno, node.value))
    return found


@dataclass
class _GradingCall:
    """One ``call_student(fn, ...)`` of a test cell."""

    cell: str  # the test cell's grade id
    function: str  # the name of the student's function called ("" if not a name)
    hidden: bool  # inside the hidden-test block
    line: int
    disable: tuple[str, ...] | None  # None: not passed
    use_reference: dict[str, str] | None
    error: str = ""


def _grading_calls(cell) -> list[_GradingCall]:
    """Every ``call_student`` of a test cell, with its ``disable=`` and ``use_reference=``
    values read by ``ast``. The visible part is read as the release shows it (without the
    hidden block): a name bound only inside the hidden block does not resolve there."""
    gid = grade_id(cell)
    source = cell.source
    visible = strip_hidden_tests(source)
    calls = []
    for hidden, text in ((False, visible), (True, source)):
        tree = _parse(text)
        bindings = _bindings(tree)
        hidden_lines = range(0)
        if hidden:
            ranges = hidden_line_ranges(source)
            if not ranges:
                continue
            first, last = ranges[0]
            hidden_lines = range(first, last + 1)
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "call_student"
            ):
                continue
            if hidden and node.lineno not in hidden_lines:
                continue
            first_arg = node.args[0] if node.args else None
            call = _GradingCall(
                cell=gid,
                function=first_arg.id if isinstance(first_arg, ast.Name) else "",
                hidden=hidden,
                line=node.lineno,
                disable=None,
                use_reference=None,
            )
            for keyword in node.keywords:
                try:
                    if keyword.arg == "disable":
                        call.disable = _as_names(_literal(keyword.value, bindings, node.lineno))
                    elif keyword.arg == "use_reference":
                        value = _literal(keyword.value, bindings, node.lineno)
                        if isinstance(value, dict):
                            call.use_reference = {str(k): str(v) for k, v in value.items()}
                        else:
                            call.use_reference = {n: n for n in _as_names(value)}
                except _Unresolved as exc:
                    call.error = f"{keyword.arg}= cannot be read: {exc}"
            calls.append(call)
    return calls


def _prompt(nb, index: int) -> str:
    """The markdown cell with the '### Exercise k — ' heading above solution cell *index*."""
    for cell in reversed(nb.cells[:index]):
        if cell.cell_type == "markdown" and EXERCISE_HEADING.search(cell.source):
            return cell.source
        if _is_code_solution(cell):
            break
    return ""


def _declared(prompt: str) -> tuple[str, ...] | None:
    lines = [line.strip() for line in prompt.strip().split("\n") if line.strip()]
    match = DECLARED_LINE.match(lines[-1]) if lines else None
    if match is None:
        return None
    names = match.group("names")
    return () if names == "nothing" else tuple(re.findall(r"`([\w.]+)`", names))


def _loaded_names(source: str) -> set[str]:
    return {
        n.id
        for n in ast.walk(_parse(source))
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _introduced_in(name: str) -> str | None:
    """The notebook number a linlib name's docstring says introduced it (None: not linlib)."""
    from linlib.grading import _resolve

    if "." in name and not name.startswith("linlib."):
        return None
    try:
        _, target, _ = _resolve(name)
    except ValueError:
        return None
    match = INTRODUCED_IN.search(getattr(target, "__doc__", None) or "")
    return match.group(1) if match else None


@dataclass
class _Exercise:
    index: int
    grade_id: str
    functions: list[str]
    prompt: str
    calls: list[_GradingCall]


def _exercise_calls(nb) -> list[_Exercise]:
    return [
        _Exercise(
            index,
            gid,
            functions,
            _prompt(nb, index),
            [call for _, cell in _tests_of(nb, gid) for call in _grading_calls(cell)],
        )
        for index, gid, functions in _exercises(nb)
    ]


def _disabled(calls: list[_GradingCall]) -> set[str]:
    return {name for call in calls for name in (call.disable or ())}


def _declared_rule_problems(nb, stem: str) -> list[str]:
    """Every code exercise's prompt ends with the line "Switched off in this exercise's
    tests: `a`, `b`." (or "...: nothing."), naming exactly the names its test cells pass
    as ``disable=`` (read with ``ast``: a tuple literal, or a name bound to one in the
    cell)."""
    problems = []
    for ex in _exercise_calls(nb):
        where = f"{stem}, exercise {ex.grade_id}"
        problems += [f"{where}: {c.cell} line {c.line}: {c.error}" for c in ex.calls if c.error]
        if not ex.prompt:
            problems.append(f"{where}: no '### Exercise k — ' prompt above the solution cell")
            continue
        declared = _declared(ex.prompt)
        if declared is None:
            last = ex.prompt.strip().split("\n")[-1]
            problems.append(
                f'{where}: the prompt must end with the line "Switched off in this '
                f'exercise\'s tests: `name`, …." (or "…: nothing."); it ends {last[:120]!r}'
            )
            continue
        disabled = _disabled(ex.calls)
        if set(declared) != disabled:
            problems.append(
                f"{where}: the prompt declares {sorted(declared)} switched off, its tests "
                f"disable {sorted(disabled)} (undeclared: {sorted(disabled - set(declared))}; "
                f"declared but not disabled: {sorted(set(declared) - disabled)})"
            )
    return problems


def _visible_rule_problems(nb, stem: str) -> list[str]:
    """A student learns of the rule before submitting: the names disabled by calls outside
    the hidden blocks (what the release shows) are the names disabled inside them."""
    problems = []
    for ex in _exercise_calls(nb):
        visible = _disabled([c for c in ex.calls if not c.hidden])
        hidden = _disabled([c for c in ex.calls if c.hidden])
        if visible != hidden:
            problems.append(
                f"{stem}, exercise {ex.grade_id}: the visible tests disable "
                f"{sorted(visible)}, the hidden tests {sorted(hidden)}"
            )
    return problems


def _use_reference_problems(nb, stem: str) -> list[str]:
    """No cascade: every ``call_student`` of exercise k's function in its tests passes
    ``use_reference=`` naming at least each earlier graded function of the notebook that
    the instructor's solution of exercise k uses; every ``use_reference`` target is a
    callable of the library (a public linlib name or a dotted path that resolves)."""
    from linlib.grading import _reference_object

    problems = []
    earlier: list[str] = []
    solutions = solution_sources(nb)
    for ex in _exercise_calls(nb):
        where = f"{stem}, exercise {ex.grade_id}"
        solution = solutions[ex.grade_id]
        needed = (_loaded_names(solution) & set(earlier)) - set(ex.functions)
        short: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        for call in ex.calls:
            for target in (call.use_reference or {}).values():
                try:
                    if target.rsplit(".", 1)[-1].startswith("_"):
                        raise ValueError(f"use_reference: {target!r} is not a public name")
                    _reference_object(target)
                except ValueError as exc:
                    problems.append(f"{where}: {call.cell} line {call.line}: {exc}")
            if call.function not in ex.functions:
                continue
            missing = needed - set(call.use_reference or {})
            if missing:
                short.setdefault((call.cell, tuple(sorted(missing))), []).append(call.line)
        for (cell, missing), lines in short.items():
            problems.append(
                f"{where}: {cell} lines {', '.join(map(str, sorted(lines)))}: call_student("
                f"{', '.join(ex.functions)}, …) must pass use_reference= naming "
                f"{list(missing)} (the instructor's solution calls them)"
            )
        earlier += ex.functions
    return problems


def _earlier_helper_problems(nb, stem: str) -> list[str]:
    """Only the exercise's own function is switched off; earlier helpers stay usable.

    The rule, for exercise k of notebook NN. Its *own references* are its functions'
    names, every ``use_reference`` target that stands for one of them anywhere in the
    notebook, and every linlib name its prompt mentions as ```linlib.name```. Its tests may
    not disable

    * a reference of an EARLIER exercise of the notebook (an earlier graded function's
      name, or a ``use_reference`` target standing for one): the later exercise's answer
      may call it, and its tests put it in place of the student's earlier function;
    * a course helper that notebooks/README.md hands out (``augment``,
      ``signed_distance``, ``functional_margin``, ``geometric_margin``, ``activation``) or
      any linlib name whose docstring says it was introduced in an earlier notebook,
      unless it is one of the exercise's own references.

    scikit-learn and NumPy names that compute the exercise's answer are not restricted.
    """
    exercises = _exercise_calls(nb)
    stands_for: dict[str, set[str]] = {}
    for ex in exercises:
        for call in ex.calls:
            for local, target in (call.use_reference or {}).items():
                names = stands_for.setdefault(local, set())
                names.add(target)
                if target.startswith("linlib."):
                    names.add(target.rsplit(".", 1)[-1])
    number = stem[:2]
    problems = []
    earlier_refs: set[str] = set()
    for ex in exercises:
        own = set(ex.functions).union(*(stands_for.get(f, set()) for f in ex.functions))
        own |= set(re.findall(r"`linlib\.([\w.]+)", ex.prompt))
        for name in sorted(_disabled(ex.calls)):
            where = f"{stem}, exercise {ex.grade_id}: disables {name!r}"
            if name in earlier_refs:
                problems.append(f"{where}, the reference of an earlier exercise")
                continue
            if name in own:
                continue
            introduced = _introduced_in(name)
            if name in COURSE_HELPERS:
                problems.append(
                    f"{where}, a course helper, not this exercise's own reference (name it "
                    f"as `linlib.{name}` in the prompt if it is)"
                )
            elif introduced is not None and introduced < number:
                problems.append(
                    f"{where}, introduced in notebook {introduced} and advertised as usable "
                    f"(name it as `linlib.{name}` in the prompt if it is this exercise's "
                    "reference)"
                )
        for f in ex.functions:
            earlier_refs |= {f} | stands_for.get(f, set())
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_prompts_declare_what_is_switched_off(path):
    """Every code exercise's prompt ends with the line "Switched off in this exercise's
    tests: `a`, `b`." (or "...: nothing."), naming exactly the names its test cells pass
    as ``disable=`` (read with ``ast``: a tuple literal, or a name bound to one in the
    cell)."""
    problems = _declared_rule_problems(_read(path), path.stem)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_visible_tests_disable_what_hidden_tests_disable(path):
    """A student learns of the rule before submitting: the names disabled by calls outside
    the hidden blocks (what the release shows) are the names disabled inside them."""
    problems = _visible_rule_problems(_read(path), path.stem)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
@pytest.mark.slow
def test_notebooks_later_exercises_use_references_for_earlier_ones(path):
    """No cascade: every ``call_student`` of exercise k's function in its tests passes
    ``use_reference=`` naming at least each earlier graded function of the notebook that
    the instructor's solution of exercise k uses; every ``use_reference`` target is a
    callable of the library (a public linlib name or a dotted path that resolves)."""
    problems = _use_reference_problems(_read(path), path.stem)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
@pytest.mark.slow
def test_notebooks_tests_leave_earlier_helpers_usable(path):
    """Only the exercise's own function is switched off; earlier helpers stay usable
    (the precise rule: :func:`_earlier_helper_problems`)."""
    problems = _earlier_helper_problems(_read(path), path.stem)
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- outputs


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_outputs_stored_clean(path):
    """Outputs stored from one top-to-bottom run: no errors, no stderr, no machine paths,
    figures inline as PNG."""
    nb = _read(path)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.stem}: execution counts {counts}: execute the notebook top to bottom"
    )
    n_png = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        gid = _meta(cell).get("grade_id", f"cell {counts.index(cell.execution_count) + 1}")
        for out in cell.outputs:
            assert out.output_type != "error", f"{gid}: stored error output"
            assert not (out.output_type == "stream" and out.name == "stderr"), (
                f"{gid}: stored stderr output"
            )
            text = str(out.get("text", "")) + str(out.get("data", {}).get("text/plain", ""))
            assert not MACHINE_PATH.search(text), f"{gid}: absolute path in output: {text[:200]}"
            n_png += "image/png" in out.get("data", {})
    assert n_png >= 1, f"{path.stem}: no inline PNG figure stored"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_no_volatile_metadata(path):
    """No execution timestamps: executing a notebook again must leave the file unchanged."""
    for cell in _read(path).cells:
        assert "execution" not in cell.metadata, (
            f"{path.stem}: cell metadata holds execution timestamps; execute with "
            "--ExecutePreprocessor.record_timing=False and drop metadata['execution']"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_no_machine_paths_in_sources(path):
    """No cell's source names an absolute path of this machine."""
    for cell in _read(path).cells:
        assert not MACHINE_PATH.search(cell.source), cell.source[:200]


# --------------------------------------------------------------------------- skeleton


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebooks_skeleton(path):
    """Title, learning objectives, a setup cell (imports, seed), summary, further questions."""
    nb = _read(path)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), "title first"
    headings = _headings(nb)
    assert any("learning objectives" in h for h in headings), "no 'Learning objectives'"
    assert any(h.startswith("summary") for h in headings), "no 'Summary'"
    assert any(h.startswith("further questions") for h in headings), "no 'Further questions'"
    summary = next(i for i, h in enumerate(headings) if h.startswith("summary"))
    further = next(i for i, h in enumerate(headings) if h.startswith("further questions"))
    assert summary < further, "Summary comes before Further questions"
    setup = next(c for c in nb.cells if c.cell_type == "code")
    assert "import" in setup.source, "the first code cell is the setup cell (imports)"
    assert re.search(r"seed|default_rng|random_state", setup.source), "setup cell sets a seed"
    assert "%matplotlib inline" in setup.source, (
        "setup cell: %matplotlib inline (figures stored inline whatever MPLBACKEND says)"
    )


# --------------------------------------------------------------------------- the checks' own tests


def _synthetic(prompt_last_line: str, visible_off: str, hidden_off: str, use_ref: str):
    """A two-exercise notebook: `first` (uses nothing) and `second`, whose solution calls
    `first` and whose tests disable and use references as given."""
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell

    def meta(gid, **kw):
        base = {"grade": False, "locked": False, "solution": False, "points": 0}
        return {"nbgrader": {"grade_id": gid, **base, **kw}}

    cells = [
        md(
            "### Exercise 1 — `first` (1 point)\n\nWrite it.\n\n"
            "Switched off in this exercise's tests: nothing."
        ),
        code(
            "def first(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION",
            metadata=meta("first", solution=True),
        ),
        code(
            '"""t"""\ndef test():\n    call_student(first, 1)\ntest()',
            metadata=meta("first_visible", grade=True, locked=True, points=1),
        ),
        md(f"### Exercise 2 — `second` (1 point)\n\nUse `first`.\n\n{prompt_last_line}"),
        code(
            "def second(x):\n    ### BEGIN SOLUTION\n    return first(x) + 1\n    ### END SOLUTION",
            metadata=meta("second", solution=True),
        ),
        code(
            '"""t"""\ndef test():\n'
            f"    off = {visible_off}\n"
            f"    call_student(second, 1, disable=off{use_ref})\n"
            "    ### BEGIN HIDDEN TESTS\n"
            f"    hidden_off = {hidden_off}\n"
            f"    call_student(second, 2, disable=hidden_off{use_ref})\n"
            "    ### END HIDDEN TESTS\n"
            "test()",
            metadata=meta("second_hidden", grade=True, locked=True, points=1),
        ),
    ]
    return nbformat.v4.new_notebook(cells=cells)


def test_the_declared_rules_parser_reads_disable_and_use_reference():
    nb = _synthetic(
        "Switched off in this exercise's tests: `Perceptron`, `sklearn.svm.SVC`.",
        '("Perceptron", "sklearn.svm.SVC")',
        '("Perceptron",) + ("sklearn.svm.SVC",)',
        ', use_reference={"first": "linlib.geometry.activation"}',
    )
    first, second = _exercise_calls(nb)
    assert _declared(first.prompt) == () and first.calls[0].disable is None
    assert _declared(second.prompt) == ("Perceptron", "sklearn.svm.SVC")
    assert [c.hidden for c in second.calls] == [False, True]
    for call in second.calls:
        assert set(call.disable) == {"Perceptron", "sklearn.svm.SVC"}, call
        assert call.use_reference == {"first": "linlib.geometry.activation"}
    assert not any(c.error for c in second.calls)


def test_the_declared_rules_parser_sees_a_name_bound_only_in_the_hidden_block():
    # In the release the hidden block is gone: a visible call may not rely on it.
    nb = _synthetic("Switched off in this exercise's tests: nothing.", "()", "()", "")
    cell = nb.cells[5]
    cell.source = cell.source.replace("disable=off", "disable=hidden_off", 1)
    visible = [c for c in _grading_calls(cell) if not c.hidden]
    assert "cannot be read" in visible[0].error


@pytest.mark.parametrize(
    ("last_line", "expected"),
    [
        ("Switched off in this exercise's tests: nothing.", ()),
        ("Switched off in this exercise's tests: `a`.", ("a",)),
        (
            "Switched off in this exercise's tests: `a`, `sklearn.svm.SVC`.",
            ("a", "sklearn.svm.SVC"),
        ),
        ("Switched off in this exercise's tests: `a`, `b`", None),
        ("Switched off in this exercise's tests: a, b.", None),
        ("Switched off in this exercise’s tests: `a`.", None),
        ("switched off in this exercise's tests: nothing.", None),
    ],
)
def test_the_declared_line_has_one_exact_form(last_line, expected):
    assert _declared(f"### Exercise 1 — `f` (1 point)\n\nText.\n\n{last_line}\n") == expected


#: The synthetic notebook's name: numbered 02, so linlib.Perceptron (02) is not earlier.
SYNTHETIC = "02_synthetic"


def _all_problems(nb) -> list[str]:
    return [
        *_declared_rule_problems(nb, SYNTHETIC),
        *_visible_rule_problems(nb, SYNTHETIC),
        *_use_reference_problems(nb, SYNTHETIC),
        *_earlier_helper_problems(nb, SYNTHETIC),
    ]


def test_the_declared_rules_accept_a_notebook_that_follows_them():
    nb = _synthetic(
        "Switched off in this exercise's tests: `Perceptron`, `sklearn.svm.SVC`.",
        '("Perceptron", "sklearn.svm.SVC")',
        '("sklearn.svm.SVC", "Perceptron")',
        ', use_reference={"first": "activation"}',
    )
    assert _all_problems(nb) == []


@pytest.mark.parametrize(
    ("last_line", "visible", "hidden", "use_ref", "complaint"),
    [
        (
            "Switched off in this exercise's tests: `Perceptron`.",
            '("Perceptron", "sklearn.svm.SVC")',
            '("Perceptron", "sklearn.svm.SVC")',
            ', use_reference=("first",)',
            "undeclared: ['sklearn.svm.SVC']",
        ),
        (
            "Switched off in this exercise's tests: `Perceptron`.",
            "()",
            '("Perceptron",)',
            ', use_reference=("first",)',
            "the visible tests disable []",
        ),
        (
            "Switched off in this exercise's tests: nothing.",
            "()",
            "()",
            "",
            "must pass use_reference= naming ['first']",
        ),
        (
            "Switched off in this exercise's tests: nothing.",
            "()",
            "()",
            ', use_reference={"first": "no_such_reference"}',
            "no_such_reference",
        ),
        (
            "Switched off in this exercise's tests: `signed_distance`.",
            '("signed_distance",)',
            '("signed_distance",)',
            ', use_reference=("first",)',
            "disables 'signed_distance', a course helper",
        ),
        (
            "Switched off in this exercise's tests: `activation`.",
            '("activation",)',
            '("activation",)',
            ', use_reference={"first": "linlib.activation"}',
            "disables 'activation', the reference of an earlier exercise",
        ),
    ],
    ids=["undeclared", "visible-differs", "cascade", "bad-reference", "helper", "earlier-ref"],
)
def test_the_declared_rules_name_what_is_wrong(last_line, visible, hidden, use_ref, complaint):
    nb = _synthetic(last_line, visible, hidden, use_ref)
    problems = _all_problems(nb)
    assert any(complaint in p for p in problems), problems
    assert all(p.startswith(f"{SYNTHETIC}, exercise second") for p in problems), problems
