"""The hostile wave on courses written elsewhere: no attack scores above the blank release.

On nbgrader's documentation course and on the course written in other styles
(:mod:`tests.autograder.foreign_courses`), each attack is the blank release with every
answer cell replaced by the attack's code (each graded function of the answer cell defined
as the attack wants), graded with ``python -m autograder grade --source`` beside the blank
release itself. The attacks are those a student might try on any nbgrader course: an
always-equal answer (``__eq__``, ``__sub__``, ``__abs__``, ``__lt__`` and ``__bool__`` rigged),
numpy's comparisons patched, builtins patched, an AST transformer that deletes asserts, the
test cells emptied, the test cells deleted. Each must score no more than the blank release:
the trusted re-check decides every test whose verdict the instructor's solution lets it
decide.

Switching the re-check's rule off (every student's notebook treated as the instructor's:
``KernelCells(instructor=True)`` in ``SafeExecute._kernel_cells``, so a cell the re-check
cannot decide, or fails where the kernel passes, is scored as the kernel ran it) makes this
test fail: on the documentation course, always-equal, assert-remover, numpy-patched,
tests-deleted and tests-emptied each score 1.5 over the blank release's 0.
"""

from __future__ import annotations

import ast
import json

import nbformat
import pytest

from tests.autograder.fault_helpers import run_cli
from tests.autograder.foreign_courses import DOCS_COURSE, stock_release, write_style_course

pytestmark = [pytest.mark.slow, pytest.mark.needs_sandbox]

#: An answer that agrees with everything: returned by every graded function.
EVIL = """
class _Agree:
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return True
    def __ge__(self, other): return True
    def __bool__(self): return True
    def __sub__(self, other): return 0
    def __rsub__(self, other): return 0
    def __abs__(self): return 0
    def __float__(self): return 0.0
    def __len__(self): return 0
    def __iter__(self): return iter(())
    def __hash__(self): return 0
"""

PATCHES = {
    "numpy-patched": (
        "import numpy\n"
        "numpy.allclose = lambda *a, **k: True\n"
        "numpy.isclose = lambda *a, **k: True\n"
        "numpy.testing.assert_allclose = lambda *a, **k: None\n"
        "numpy.testing.assert_array_equal = lambda *a, **k: None\n"
        "numpy.testing.assert_equal = lambda *a, **k: None\n"
    ),
    "builtins-patched": (
        "import builtins\n"
        "builtins.abs = lambda x: 0\n"
        "builtins.len = lambda x: 0\n"
        "builtins.sum = lambda *a, **k: 0\n"
    ),
    "assert-remover": (
        "import ast\n"
        "class _NoAsserts(ast.NodeTransformer):\n"
        "    def visit_Assert(self, node):\n"
        "        return ast.Pass()\n"
        "get_ipython().ast_transformers.append(_NoAsserts())\n"
    ),
}


def _functions(source: str) -> list[str]:
    """The functions an answer cell defines (the instructor's, markers and all)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def attack(release_nb: nbformat.NotebookNode, source_nb, kind: str) -> nbformat.NotebookNode:
    """The blank release with the attack *kind* in every answer cell."""
    nb = nbformat.from_dict(release_nb)
    source = {_meta(c).get("grade_id"): c.source for c in source_nb.cells}
    cells = []
    for cell in nb.cells:
        meta = _meta(cell)
        if kind == "tests-deleted" and meta.get("grade") and not meta.get("solution"):
            continue
        if kind == "tests-emptied" and meta.get("grade") and not meta.get("solution"):
            if cell.cell_type == "code":
                cell.source = "pass"
        if meta.get("solution") and cell.cell_type == "code":
            names = _functions(source.get(meta.get("grade_id"), ""))
            defs = "".join(f"\ndef {n}(*args, **kwargs):\n    return _Agree()\n" for n in names)
            cell.source = EVIL + defs + PATCHES.get(kind, "")
        cells.append(cell)
    nb.cells = cells
    return nb


KINDS = ("always-equal", *PATCHES, "tests-emptied", "tests-deleted")


def _totals(out) -> dict[str, float]:
    data = json.loads((out / "results.json").read_text())
    totals: dict[str, float] = {}
    for row in data["submissions"]:
        totals[row["student"]] = totals.get(row["student"], 0.0) + float(row["score"])
    return totals


def _wave(course, assignment: str, tmp_path) -> dict[str, float]:
    release = stock_release(course, tmp_path, assignment)
    source_dir = course / "source" / assignment
    submitted = tmp_path / "submitted"
    for student in ("blank", *KINDS):
        folder = submitted / student / assignment
        folder.mkdir(parents=True)
        for path in sorted(release.glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            if student != "blank":
                source_nb = nbformat.read(source_dir / path.name, as_version=4)
                nb = attack(nb, source_nb, student)
            nbformat.write(nb, folder / path.name)
    done = run_cli(
        "grade",
        submitted,
        "--source",
        course,
        "--course",
        tmp_path / "course",
        "--out",
        tmp_path / "out",
        "--no-feedback",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return _totals(tmp_path / "out")


@pytest.mark.parametrize("course", ["docs", "style"])
def test_no_attack_scores_above_the_blank_release(course, tmp_path):
    if course == "docs":
        root, assignment = DOCS_COURSE, "ps1"
    else:
        root, assignment = write_style_course(tmp_path / "theirs"), "hw1"
    totals = _wave(root, assignment, tmp_path / "wave")
    blank = totals.pop("blank")
    above = {kind: score for kind, score in totals.items() if score > blank}
    assert not above, f"blank release {blank}; attacks above it: {above}"
    assert set(totals) == set(KINDS)
