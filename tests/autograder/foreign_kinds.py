"""Small nbgrader courses, one per kind of course that stock nbgrader grades and real
courses are written in, graded by stock nbgrader and by this grader
(``tests/autograder/test_foreign_kinds.py``).

Every kind is one or two assignments of one course (:func:`write_kinds_course`); the
public courses under ``tests/data/`` are read the same way (:func:`public_course`). Each
has a class of four (:data:`STUDENTS`): the instructor's solution filled into the release
(``instructor``), the release as it was (``blank``), a bug in one exercise (``buggy``,
loses that exercise's test only) and every answer right in another style (``stylish``).

- :func:`stock_class`: the class graded by stock ``nbgrader autograde``, the whole course
  once (its kinds split between two copies graded at the same time; an assignment stock
  cannot grade is recorded, not refused);
- :func:`ours_class`: the class graded by ``python -m autograder grade --source`` in a copy
  of the course holding only the assignments asked for;
- :class:`Graded`: both for one course: ours once over every kind, and each kind on its
  own while that run does not grade the class (so that a refusal is told of its kind);
- :func:`max_scores`, :func:`our_max_scores`: what each submission is out of, in nbgrader's
  gradebook and in our ``results.json`` and ``grades.csv``.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from tests.autograder.fault_helpers import run_cli
from tests.autograder.foreign_courses import (
    DATA,
    Cells,
    _meta,
    _nbgrader,
    answer,
    check,
    fill,
    gradebook_cells,
    notebook,
)

#: The class of every kind: the instructor's solution, the blank release, one bug, one
#: other style.
STUDENTS = ("instructor", "blank", "buggy", "stylish")

#: The kinds course's nbgrader_config.py; the last line is what a course whose notebooks
#: name a kernel that is not installed sets (``kernel`` kind; without it stock nbgrader
#: cannot grade that notebook: :func:`without_kernel_name`).
KINDS_CONFIG = """c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "kinds-101"
c.Execute.timeout = 60
c.Execute.kernel_name = "python3"
"""


@dataclass
class Kind:
    """One kind of course: its assignments, what ``buggy`` and ``stylish`` write (grade id
    -> cell source) and the tests ``buggy`` loses."""

    name: str
    assignments: tuple[str, ...]
    buggy: dict[str, str]
    stylish: dict[str, str]
    lost: frozenset[str]

    def answers(self, student: str, source: dict[str, str]) -> dict[str, str]:
        """What *student* writes: ``source`` is the instructor's solution cells."""
        if student == "instructor":
            return dict(source)
        if student == "blank":
            return {}
        return {**source, **(self.buggy if student == "buggy" else self.stylish)}


def _code(source: str) -> nbformat.NotebookNode:
    return new_code_cell(source)


def _manual_markdown(source: str, grade_id: str, points: float) -> nbformat.NotebookNode:
    return new_markdown_cell(
        source,
        metadata=_meta(grade=True, solution=True, locked=False, grade_id=grade_id, points=points),
    )


def _manual_code(source: str, grade_id: str, points: float) -> nbformat.NotebookNode:
    return new_code_cell(
        source,
        metadata=_meta(grade=True, solution=True, locked=False, grade_id=grade_id, points=points),
    )


def _task(source: str, grade_id: str, points: float) -> nbformat.NotebookNode:
    return new_markdown_cell(
        source,
        metadata=_meta(
            grade=False, solution=False, task=True, locked=True, grade_id=grade_id, points=points
        ),
    )


def _solution(body: str, head: str = "", tail: str = "", indent: str = "    ") -> str:
    """A solution cell: ``head`` (given lines), the solution between nbgrader's markers
    (indented by ``indent``), ``tail``."""
    marked = f"{indent}### BEGIN SOLUTION\n{body}\n{indent}### END SOLUTION"
    return "\n".join(part for part in (head, marked, tail) if part)


# ----------------------------------------------------------------------------------- kinds
#
# Each writer puts its assignment(s) under ``root/source`` and the kind (students' answers
# and what buggy loses) is in KINDS below.


def _write(root: Path, assignment: str, notebooks: dict[str, list], files: dict | None = None):
    folder = root / "source" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    for name, cells in notebooks.items():
        nb = cells if isinstance(cells, nbformat.NotebookNode) else notebook(cells)
        nbformat.write(nb, folder / f"{name}.ipynb")
    for rel, text in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


def write_shared(root: Path) -> None:
    """1. A later test cell reads a variable an earlier test cell made, visibly and in
    hidden tests."""
    _write(
        root,
        "shared",
        {
            "shared": [
                new_markdown_cell("# Lists\nWrite `squares(n)` and `cubes(n)`."),
                answer(
                    _solution("    return [i * i for i in range(n)]", "def squares(n):"), "squares"
                ),
                check("result = squares(4)\nassert result == [0, 1, 4, 9]", "squares_made", 1),
                check("assert result[-1] == 9\nassert len(result) == 4", "squares_read", 1),
                check(
                    "assert squares(1) == [0]\n### BEGIN HIDDEN TESTS\nbig = squares(10)\n"
                    "assert big[9] == 81\n### END HIDDEN TESTS",
                    "squares_hidden_made",
                    1,
                ),
                check(
                    "assert squares(0) == []\n### BEGIN HIDDEN TESTS\nassert sum(big) == 285\n"
                    "### END HIDDEN TESTS",
                    "squares_hidden_read",
                    1,
                ),
                answer(_solution("    return [i**3 for i in range(n)]", "def cubes(n):"), "cubes"),
                check("assert cubes(3) == [0, 1, 8]", "cubes_test", 1),
            ]
        },
    )


def write_given(root: Path) -> None:
    """2. ``import numpy as np`` in the given lines of a solution cell, above the solution;
    the tests use ``np``."""
    _write(
        root,
        "given",
        {
            "given": [
                new_markdown_cell("# Vectors"),
                answer(
                    _solution(
                        "    v = np.asarray(v, dtype=float)\n    return v / np.linalg.norm(v)",
                        "import numpy as np\n\n\ndef normalize(v):",
                    ),
                    "normalize",
                ),
                check("assert np.allclose(normalize([3, 4]), [0.6, 0.8])", "normalize_test", 1),
                answer(_solution("    return float(np.dot(u, v))", "def dot(u, v):"), "dot"),
                check("assert np.isclose(dot(np.array([1, 2]), [3, 4]), 11.0)", "dot_test", 1),
            ]
        },
    )


HELPER = '''"""The course's helper module: a counter and a cache, kept between calls."""

_count = 0
_cache = {}


def tick():
    global _count
    _count += 1
    return _count


def count():
    return _count


def remember(key, value):
    _cache[key] = value


def cached(key):
    return _cache.get(key)
'''


def write_imports(root: Path) -> None:
    """3. The exercise is an import of a helper module shipped beside the notebook, which
    keeps state between calls."""
    _write(
        root,
        "imports",
        {
            "imports": [
                new_markdown_cell(
                    "# The helper\nImport `tick` and `count`, then `remember` and `cached`."
                ),
                answer(
                    "### BEGIN SOLUTION\nfrom helper import count, tick\n### END SOLUTION",
                    "counter",
                ),
                check(
                    "before = count()\ntick()\ntick()\nassert count() == before + 2",
                    "counter_test",
                    1,
                ),
                answer(
                    "### BEGIN SOLUTION\nfrom helper import cached, remember\n### END SOLUTION",
                    "cache",
                ),
                check(
                    "remember('a', 1)\nassert cached('a') == 1\nassert cached('b') is None",
                    "cache_test",
                    1,
                ),
            ]
        },
        {"helper.py": HELPER},
    )


POLY = """class Polynomial:
    def __init__(self, coefficients):
        self.coefficients = list(coefficients)

    def __call__(self, x):
        return sum(c * x**i for i, c in enumerate(self.coefficients))

    def __getitem__(self, i):
        return self.coefficients[i]

    def __len__(self):
        return len(self.coefficients)"""


def write_protocols(root: Path) -> None:
    """4. A generator (``list``, ``next``) and a class whose instances the test calls,
    indexes and measures."""
    _write(
        root,
        "protocols",
        {
            "protocols": [
                new_markdown_cell("# Protocols"),
                answer(
                    _solution("    for i in range(0, n, 2):\n        yield i", "def evens(n):"),
                    "evens",
                ),
                check(
                    "g = evens(6)\nassert next(g) == 0\nassert list(g) == [2, 4]\n"
                    "assert list(evens(0)) == []",
                    "evens_test",
                    1,
                ),
                answer(_solution(POLY, indent=""), "polynomial"),
                check(
                    "p = Polynomial([1, 2, 3])\nassert p(2) == 17\nassert p[1] == 2\n"
                    "assert len(p) == 3",
                    "polynomial_test",
                    2,
                ),
            ]
        },
    )


def write_callbacks(root: Path) -> None:
    """5. The test passes functions into the student's: a lambda, and a function of its
    own that records its calls."""
    _write(
        root,
        "callbacks",
        {
            "callbacks": [
                new_markdown_cell("# Functions of functions"),
                answer(
                    _solution("    return [f(x) for x in xs]", "def apply_all(f, xs):"), "apply_all"
                ),
                check("assert apply_all(lambda x: x * 2, [1, 2]) == [2, 4]", "apply_lambda", 1),
                check(
                    "calls = []\n\n\ndef spy(x):\n    calls.append(x)\n    return -x\n\n\n"
                    "assert apply_all(spy, [3, 1]) == [-3, -1]\nassert calls == [3, 1]",
                    "apply_spy",
                    1,
                ),
                answer(_solution("    return lambda x: f(g(x))", "def compose(f, g):"), "compose"),
                check(
                    "assert compose(lambda x: x + 1, lambda x: x * 10)(2) == 21",
                    "compose_test",
                    1,
                ),
            ]
        },
    )


def write_legacy(root: Path) -> None:
    """6. Cells of the instructor's notebook that are not tests raise in today's
    environment (a keyword numpy removed, a name Python removed): stock grades every test."""
    _write(
        root,
        "legacy",
        {
            "legacy": [
                new_markdown_cell("# Histograms"),
                _code(
                    "import numpy as np\n\n"
                    "counts, edges = np.histogram([1, 2, 2, 3], bins=3, normed=True)"
                ),
                _code("from collections import Mapping"),
                answer(
                    _solution(
                        "    return np.histogram(values, bins=bins)[0].tolist()",
                        "def counts_of(values, bins):",
                    ),
                    "counts_of",
                ),
                check("assert counts_of([1, 2, 2, 3], 3) == [1, 2, 1]", "counts_test", 1),
                answer(
                    _solution("    return max(values) - min(values)", "def spread(values):"),
                    "spread",
                ),
                check("assert spread([4, 1, 7]) == 6", "spread_test", 1),
            ]
        },
    )


def write_unfinished(root: Path) -> None:
    """7. The instructor's source fails one of its own tests: that exercise's solution cell
    is already the student version."""
    _write(
        root,
        "unfinished",
        {
            "unfinished": [
                new_markdown_cell("# Circles"),
                _code("import math"),
                answer("raise NotImplementedError()", "area"),
                check("assert math.isclose(area(1.0), math.pi)", "area_test", 1),
                answer(
                    _solution("    return 2 * math.pi * r", "def circumference(r):"),
                    "circumference",
                ),
                check(
                    "assert math.isclose(circumference(1.0), 2 * math.pi)", "circumference_test", 1
                ),
            ]
        },
    )


MEAN = _solution("    return sum(xs) / len(xs)", "def mean(xs):")


def write_copied(root: Path) -> None:
    """8. A cell copied from ps1 to ps2 keeps its grade id: the same ids in two
    assignments."""
    _write(
        root,
        "ps1",
        {
            "stats": [
                new_markdown_cell("# Problem set 1"),
                answer(MEAN, "mean"),
                check("assert mean([1, 2, 3]) == 2", "mean_test", 1),
                answer(_solution("    return max(xs) - min(xs)", "def value_range(xs):"), "range"),
                check("assert value_range([1, 5, 2]) == 4", "range_test", 1),
            ]
        },
    )
    _write(
        root,
        "ps2",
        {
            "stats": [
                new_markdown_cell("# Problem set 2 (mean copied from problem set 1)"),
                answer(MEAN, "mean"),
                check("assert mean([1, 2, 3]) == 2", "mean_test", 1),
                answer(
                    _solution(
                        "    s = sorted(xs)\n    m = len(s) // 2\n"
                        "    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2",
                        "def median(xs):",
                    ),
                    "median",
                ),
                check(
                    "assert median([3, 1, 2]) == 2\nassert median([4, 1, 3, 2]) == 2.5",
                    "median_test",
                    2,
                ),
            ]
        },
    )


POINTS_CSV = "x,y\n0,1\n1,3\n2,5\n"


def write_multi(root: Path) -> None:
    """Extras: two notebooks whose names have spaces, data files beside them (a CSV and a
    JSON file in a subfolder), a task and hand-graded answers (markdown and code) with
    points."""
    _write(
        root,
        "multi",
        {
            "Part one": [
                new_markdown_cell("# Part one\nThe data is `data/points.csv`."),
                _code("import csv\nimport json"),
                answer(
                    _solution(
                        "    with open(path, newline='') as fh:\n"
                        "        return [(float(r['x']), float(r['y']))"
                        " for r in csv.DictReader(fh)]",
                        "def load(path):",
                    ),
                    "load",
                ),
                check(
                    "points = load('data/points.csv')\nassert points[2] == (2.0, 5.0)",
                    "load_test",
                    1,
                ),
                answer(
                    _solution(
                        "    (x0, y0), (x1, y1) = points[0], points[-1]\n"
                        "    return (y1 - y0) / (x1 - x0)",
                        "def slope(points):",
                    ),
                    "slope",
                ),
                check(
                    "settings = json.load(open('data/settings.json'))\n"
                    "assert slope(load('data/points.csv')) == settings['slope']",
                    "slope_test",
                    2,
                ),
            ],
            "Part two": [
                new_markdown_cell("# Part two"),
                _manual_markdown("A line fits the points exactly.", "why_line", 2),
                _manual_code(
                    "### BEGIN SOLUTION\ndef describe(points):\n"
                    "    return f'{len(points)} points'\n"
                    "### END SOLUTION",
                    "describe",
                    1,
                ),
                answer(_solution("    return 2 * x + 1", "def predict(x):"), "predict"),
                check("assert predict(10) == 21", "predict_test", 1),
                _task("Plot the points and the line.", "plot_task", 3),
            ],
        },
        {"data/points.csv": POINTS_CSV, "data/settings.json": '{"slope": 2.0}\n'},
    )


def write_kernel(root: Path) -> None:
    """Extra: the notebook's kernelspec is not ``python3`` (a course's own kernel)."""
    nb = notebook(
        [
            new_markdown_cell("# Course kernel"),
            answer(_solution("    return a * b", "def times(a, b):"), "times"),
            check("assert times(6, 7) == 42", "times_test", 1),
            answer(_solution("    return -a", "def negate(a):"), "negate"),
            check("assert negate(3) == -3", "negate_test", 1),
        ]
    )
    nb.metadata["kernelspec"] = {
        "name": "python3-custom",
        "display_name": "Python 3 (course)",
        "language": "python",
    }
    _write(root, "kernel", {"kernel": nb})


def write_seeded(root: Path) -> None:
    """Extra: a test relies on ``random`` seeded in an earlier cell that is not a test."""
    _write(
        root,
        "seeded",
        {
            "seeded": [
                new_markdown_cell("# Dice"),
                _code("import random\n\nrandom.seed(0)"),
                answer(_solution("    return random.randint(1, 6)", "def roll():"), "roll"),
                check("assert [roll() for _ in range(3)] == [4, 4, 1]", "roll_test", 1),
                answer(
                    _solution("    return sum(rolls) / len(rolls)", "def average(rolls):"),
                    "average",
                ),
                check("assert average([1, 2, 6]) == 3", "average_test", 1),
            ]
        },
    )


def write_mixed(root: Path) -> None:
    """Extra: a test cell holds a visible assert (that a wrong answer fails) and hidden
    tests."""
    _write(
        root,
        "mixed",
        {
            "mixed": [
                new_markdown_cell("# Strings"),
                answer(_solution("    return s[::-1]", "def reverse(s):"), "reverse"),
                check(
                    "assert reverse('ab') == 'ba'\n### BEGIN HIDDEN TESTS\n"
                    "assert reverse('') == ''\nassert reverse('abc') == 'cba'\n"
                    "### END HIDDEN TESTS",
                    "reverse_test",
                    2,
                ),
                answer(_solution("    return s.upper()", "def shout(s):"), "shout"),
                check("assert shout('hi') == 'HI'", "shout_test", 1),
            ]
        },
    )


#: kind -> (writer, Kind)
KINDS: dict[str, Kind] = {
    "shared": Kind(
        "shared",
        ("shared",),
        buggy={"cubes": "def cubes(n):\n    return [i**2 for i in range(n)]"},
        stylish={
            "squares": "def squares(n):\n    out = []\n    for i in range(n):\n"
            "        out.append(i**2)\n    return out",
            "cubes": "cubes = lambda n: list(map(lambda i: i * i * i, range(n)))",
        },
        lost=frozenset({"cubes_test"}),
    ),
    "given": Kind(
        "given",
        ("given",),
        buggy={"dot": "def dot(u, v):\n    return float(np.sum(u) * np.sum(v))"},
        stylish={
            "normalize": "import numpy as np\n\n\ndef normalize(v):\n    a = np.array(v, float)\n"
            "    return a / np.sqrt((a**2).sum())",
            "dot": "def dot(u, v):\n    return float(sum(a * b for a, b in zip(u, v)))",
        },
        lost=frozenset({"dot_test"}),
    ),
    "imports": Kind(
        "imports",
        ("imports",),
        buggy={"cache": "from helper import remember\n\n\ndef cached(key):\n    return 1"},
        stylish={
            "counter": "import helper\n\ntick = helper.tick\ncount = helper.count",
            "cache": "from helper import *  # noqa: F403",
        },
        lost=frozenset({"cache_test"}),
    ),
    "protocols": Kind(
        "protocols",
        ("protocols",),
        buggy={"polynomial": POLY.replace("x**i", "x**(i + 1)")},
        stylish={
            "evens": "def evens(n):\n    return (i for i in range(n) if i % 2 == 0)",
            "polynomial": "class Polynomial(list):\n    def __call__(self, x):\n"
            "        total = 0\n        for c in reversed(self):\n"
            "            total = total * x + c\n"
            "        return total",
        },
        lost=frozenset({"polynomial_test"}),
    ),
    "callbacks": Kind(
        "callbacks",
        ("callbacks",),
        buggy={"compose": "def compose(f, g):\n    return lambda x: g(f(x))"},
        stylish={
            "apply_all": "def apply_all(f, xs):\n    return list(map(f, xs))",
            "compose": "def compose(f, g):\n    def both(x):\n"
            "        return f(g(x))\n\n    return both",
        },
        lost=frozenset({"compose_test"}),
    ),
    "legacy": Kind(
        "legacy",
        ("legacy",),
        buggy={"spread": "def spread(values):\n    return max(values) - values[0]"},
        stylish={
            "counts_of": "def counts_of(values, bins):\n    c, _ = np.histogram(values, bins)\n"
            "    return [int(n) for n in c]",
            "spread": "def spread(values):\n    s = sorted(values)\n    return s[-1] - s[0]",
        },
        lost=frozenset({"spread_test"}),
    ),
    "unfinished": Kind(
        "unfinished",
        ("unfinished",),
        buggy={
            "area": "def area(r):\n    return math.pi * r**2",
            "circumference": "def circumference(r):\n    return math.pi * r",
        },
        stylish={
            "area": "from math import pi\n\n\ndef area(r):\n    return pi * r * r",
            "circumference": "def circumference(r):\n    return math.tau * r",
        },
        lost=frozenset({"circumference_test"}),
    ),
    "copied": Kind(
        "copied",
        ("ps1", "ps2"),
        buggy={
            "median": "def median(xs):\n    return sorted(xs)[len(xs) // 2]",
            "range": "def value_range(xs):\n    return max(xs)",
        },
        stylish={
            "mean": "import statistics\n\nmean = statistics.mean",
            "range": "def value_range(xs):\n    s = sorted(xs)\n    return s[-1] - s[0]",
            "median": "import statistics\n\nmedian = statistics.median",
        },
        lost=frozenset({"median_test", "range_test"}),
    ),
    "multi": Kind(
        "multi",
        ("multi",),
        buggy={"slope": "def slope(points):\n    return points[-1][1] / points[-1][0]"},
        stylish={
            "load": "def load(path):\n    rows = open(path).read().split()[1:]\n"
            "    return [tuple(float(v) for v in r.split(',')) for r in rows]",
            "slope": "def slope(points):\n    xs, ys = zip(*points)\n"
            "    return (ys[-1] - ys[0]) / (xs[-1] - xs[0])",
            "why_line": "The differences are constant.",
            "describe": "def describe(points):\n    return 'points: %d' % len(points)",
            "predict": "predict = lambda x: x + x + 1",
        },
        lost=frozenset({"slope_test"}),
    ),
    "kernel": Kind(
        "kernel",
        ("kernel",),
        buggy={"negate": "def negate(a):\n    return a"},
        stylish={
            "times": "import operator\n\ntimes = operator.mul",
            "negate": "import operator\n\nnegate = operator.neg",
        },
        lost=frozenset({"negate_test"}),
    ),
    "seeded": Kind(
        "seeded",
        ("seeded",),
        buggy={"average": "def average(rolls):\n    return sum(rolls) // 2"},
        stylish={
            "roll": "def roll():\n    return random.choice(range(1, 7))",
            "average": "import statistics\n\naverage = statistics.mean",
        },
        lost=frozenset({"average_test"}),
    ),
    "mixed": Kind(
        "mixed",
        ("mixed",),
        buggy={"reverse": "def reverse(s):\n    return s"},
        stylish={
            "reverse": "def reverse(s):\n    return ''.join(reversed(s))",
            "shout": "def shout(s):\n    return ''.join(c.upper() for c in s)",
        },
        lost=frozenset({"reverse_test"}),
    ),
}

WRITERS = {
    "shared": write_shared,
    "given": write_given,
    "imports": write_imports,
    "protocols": write_protocols,
    "callbacks": write_callbacks,
    "legacy": write_legacy,
    "unfinished": write_unfinished,
    "copied": write_copied,
    "multi": write_multi,
    "kernel": write_kernel,
    "seeded": write_seeded,
    "mixed": write_mixed,
}


def write_kinds_course(root: Path) -> Path:
    """Every kind's assignments in one course at *root* (returned)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text(KINDS_CONFIG)
    for writer in WRITERS.values():
        writer(root)
    return root


# ------------------------------------------------------------------------ public courses


def public_course(name: str) -> Path:
    """A course stored under ``tests/data/<name>`` (with its NOTICE.md)."""
    return DATA / name


# -------------------------------------------------------------------------------- a class


def solutions(source_nb: Path) -> dict[str, str]:
    """grade id -> source of every solution cell of a source notebook: the instructor's
    answers."""
    nb = nbformat.read(source_nb, as_version=4)
    out = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            out[meta["grade_id"]] = cell.source
    return out


def hand_in_class(
    course: Path, release: Path, submitted: Path, kind: Kind, students=STUDENTS
) -> None:
    """The class's submissions of the release folder *release* (one assignment) under
    ``submitted/<student>/<assignment>/``."""
    assignment = release.name
    source = {}
    for path in sorted((course / "source" / assignment).glob("*.ipynb")):
        source.update(solutions(path))
    for student in students:
        answers = kind.answers(student, source)
        folder = submitted / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        for path in sorted(release.glob("*.ipynb")):
            nbformat.write(fill(path, answers), folder / path.name)


@dataclass
class StockRun:
    """Stock nbgrader's grades of a class: the gradebook's cells, what each submission is
    out of, and each ``autograde`` run by assignment."""

    cells: Cells
    max_scores: dict[tuple[str, str], float]
    runs: dict[str, subprocess.CompletedProcess]


def max_scores(db_url: str) -> dict[tuple[str, str], float]:
    """(student, assignment) -> the submission's max score in nbgrader's gradebook (every
    graded cell's points, manual ones and tasks included)."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(db_url) as gb:
        for assignment in gb.assignments:
            for submission in gb.assignment_submissions(assignment.name):
                out[(submission.student.id, assignment.name)] = float(submission.max_score)
    return out


def _stock_group(course, stock, submitted, kinds, students) -> StockRun:
    """Release, hand in and grade the assignments of *kinds* in the stock copy *stock*."""
    shutil.copytree(course, stock)
    runs = {}
    for kind in kinds:
        for assignment in kind.assignments:
            done = _nbgrader("generate_assignment", assignment, "--force", cwd=stock)
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
            hand_in_class(course, stock / "release" / assignment, submitted, kind, students)
            for student in students:
                shutil.copytree(
                    submitted / student / assignment, stock / "submitted" / student / assignment
                )
            runs[assignment] = _nbgrader("autograde", assignment, "--force", cwd=stock)
    db = f"sqlite:///{stock / 'gradebook.db'}"
    return StockRun(gradebook_cells(db), max_scores(db), runs)


def stock_class(
    course: Path, work: Path, kinds: dict[str, Kind], students=STUDENTS, groups: int = 2
) -> tuple[Path, StockRun]:
    """Release every assignment of *kinds* with stock nbgrader, hand in the class
    (``work/submitted``) and grade it with stock ``nbgrader autograde``: the kinds split
    into *groups* copies of the course (``work/stock-N``, each its own gradebook) graded at
    the same time; an ``autograde`` that fails is recorded, not refused. Returns the
    submissions folder and the stock run."""
    submitted = work / "submitted"
    groups = min(groups, len(kinds))
    split = [list(kinds.values())[i::groups] for i in range(groups)]
    with ThreadPoolExecutor(groups) as pool:
        parts = list(
            pool.map(
                lambda i: _stock_group(course, work / f"stock-{i}", submitted, split[i], students),
                range(groups),
            )
        )
    run = StockRun({}, {}, {})
    for part in parts:
        run.cells.update(part.cells)
        run.max_scores.update(part.max_scores)
        run.runs.update(part.runs)
    return submitted, run


def without_kernel_name(course: Path, dest: Path, assignments) -> Path:
    """A copy of *course* at *dest* with only *assignments*, its nbgrader_config.py without
    the ``Execute.kernel_name`` line."""
    (dest / "source").mkdir(parents=True)
    config = (course / "nbgrader_config.py").read_text()
    kept = [line for line in config.splitlines() if "kernel_name" not in line]
    (dest / "nbgrader_config.py").write_text("\n".join(kept) + "\n")
    for assignment in assignments:
        shutil.copytree(course / "source" / assignment, dest / "source" / assignment)
    return dest


def only(cells: Cells, assignments) -> Cells:
    return {k: v for k, v in cells.items() if k[1] in assignments}


@dataclass
class OurRun:
    """This grader's grades of a class: the gradebook's cells, the run, the output folder."""

    cells: Cells
    done: subprocess.CompletedProcess
    out: Path

    @property
    def reason(self) -> str:
        """The run's last line on stderr (its refusal, when it refused)."""
        lines = [line for line in self.done.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else f"exit {self.done.returncode}"


def ours_class(course: Path, submitted: Path, work: Path, assignments) -> OurRun:
    """The class's submissions of *assignments* graded by ``python -m autograder grade
    --source`` on a copy of *course* holding only those assignments (under *work*)."""
    work.mkdir(parents=True, exist_ok=True)
    subset = work / "source-course"
    (subset / "source").mkdir(parents=True)
    for name in course.iterdir():
        if name.is_file():
            shutil.copy2(name, subset / name.name)
    if (course / "source" / "header.ipynb").exists():
        shutil.copy2(course / "source" / "header.ipynb", subset / "source" / "header.ipynb")
    class_ = work / "submitted"
    for assignment in assignments:
        shutil.copytree(course / "source" / assignment, subset / "source" / assignment)
        for student in sorted(p.name for p in submitted.iterdir()):
            if (submitted / student / assignment).is_dir():
                shutil.copytree(submitted / student / assignment, class_ / student / assignment)
    out = work / "out"
    done = run_cli(
        "grade", class_, "--source", subset, "--course", work / "course", "--out", out,
        "--no-feedback", cwd=work,
    )  # fmt: skip
    sqlite = work / "course" / "gradebook.db"
    cells = gradebook_cells(f"sqlite:///{sqlite}") if sqlite.is_file() else {}
    return OurRun(cells, done, out)


class Graded:
    """A course and its class of *kinds*, graded by stock nbgrader (:func:`stock_class`, at
    once) and by ours (:meth:`ours`, on first use): one run of ours over every kind's
    assignments; when that run does not grade the class, each kind on its own (two at a
    time), so that a refusal is told of the kind it is about."""

    def __init__(self, course: Path, work: Path, kinds: dict[str, Kind], students=STUDENTS):
        self.course, self.work, self.kinds, self.students = course, work, kinds, students
        self.submitted, self.stock = stock_class(course, work, kinds, students)
        self.whole: OurRun | None = None
        self._alone: dict[str, OurRun] = {}

    def _alone_run(self, name: str) -> OurRun:
        return ours_class(
            self.course, self.submitted, self.work / "ours" / name, self.kinds[name].assignments
        )

    def ours(self, name: str) -> OurRun:
        """Ours on the kind *name*: its part of the whole run, or its own run."""
        if self.whole is None:
            every = [a for kind in self.kinds.values() for a in kind.assignments]
            self.whole = ours_class(self.course, self.submitted, self.work / "ours" / "all", every)
            if self.whole.done.returncode != 0 and len(self.kinds) > 1:
                with ThreadPoolExecutor(2) as pool:
                    self._alone = dict(
                        zip(self.kinds, pool.map(self._alone_run, self.kinds), strict=True)
                    )
        if name in self._alone:
            return self._alone[name]
        whole = self.whole
        return OurRun(only(whole.cells, self.kinds[name].assignments), whole.done, whole.out)


def our_max_scores(out: Path) -> dict[str, dict[tuple[str, str], float]]:
    """What each submission is out of in our outputs: ``{"results.json": ...,
    "grades.csv": ...}``, each (student, assignment) -> max score."""
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    results = {(s["student"], s["assignment"]): float(s["max_score"]) for s in data["submissions"]}
    with (out / "grades.csv").open(newline="", encoding="utf-8") as fh:
        rows = {
            (r["student_id"], r["assignment"]): float(r["max_score"]) for r in csv.DictReader(fh)
        }
    return {"results.json": results, "grades.csv": rows}


def differences(stock: Cells, ours: Cells) -> list[str]:
    """Every grade cell where the two differ, readable."""
    keys = sorted(set(stock) | set(ours))
    return [
        f"{key}: stock {stock.get(key)} ours {ours.get(key)}"
        for key in keys
        if stock.get(key) != ours.get(key)
    ]
