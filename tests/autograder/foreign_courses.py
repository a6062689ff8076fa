"""nbgrader courses written elsewhere, graded by stock nbgrader and by this grader.

- :data:`DOCS_COURSE`: nbgrader's own documentation course (``tests/data/``, with its
  licence notice), unchanged;
- :func:`write_style_course`: a course written here in other styles than this
  repository's: several notebooks and data files per assignment, a helper module, a header
  notebook, its own solution markers and code stub, manual answers and a task, odd grade
  ids, scipy, no hidden tests in one assignment;
- :func:`write_copies_course`: a course whose assignments share grade ids and a notebook
  name (cells copied from one assignment to the next, as nbgrader allows);
- :func:`stock_grades` grades a class with stock ``nbgrader generate_assignment`` and
  ``nbgrader autograde`` in a copy of the course; :func:`our_grades` with ``python -m
  autograder grade --source``; both read back every grade cell from the gradebook
  (:func:`gradebook_cells`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.autograder.fault_helpers import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
#: nbgrader's documentation course: source/ps1 (two notebooks), a header, two students.
DOCS_COURSE = DATA / "nbgrader_docs_course"

#: (student, assignment, notebook, grade id) -> (automatic score, needs manual grading)
Cells = dict[tuple[str, str, str, str], tuple[float | None, bool]]


def gradebook_cells(db_url: str, course_id: str | None = None) -> Cells:
    """Every grade of every submission in the gradebook: its automatic score and whether
    it awaits manual grading, as nbgrader stores them."""
    from nbgrader.api import Gradebook

    out: Cells = {}
    with Gradebook(db_url, course_id) if course_id else Gradebook(db_url) as gb:
        for assignment in gb.assignments:
            for submission in gb.assignment_submissions(assignment.name):
                student = submission.student.id
                if student.startswith("autograder-canary-"):
                    continue
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        score = grade.auto_score
                        key = (student, assignment.name, notebook.name, grade.name)
                        out[key] = (
                            None if score is None else float(score),
                            bool(grade.needs_manual_grade),
                        )
    return out


def _nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    nbgrader = Path(sys.executable).parent / "nbgrader"
    return subprocess.run(
        [str(nbgrader), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"),
    )


def stock_release(course: Path, work: Path, assignment: str) -> Path:
    """Stock nbgrader's release of *assignment*, in a copy of the course under *work*;
    returns the release folder."""
    stock = work / "stock"
    if not stock.exists():
        shutil.copytree(course, stock, ignore=shutil.ignore_patterns("submitted"))
    done = _nbgrader("generate_assignment", assignment, "--force", cwd=stock)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return stock / "release" / assignment


def stock_grades(course: Path, submitted: Path, work: Path, assignments: list[str]) -> Cells:
    """The class in *submitted* (nbgrader's layout) graded by stock nbgrader, in a copy of
    *course* under ``work/stock``."""
    stock = work / "stock"
    for assignment in assignments:
        stock_release(course, work, assignment)
    if (stock / "submitted").exists():
        shutil.rmtree(stock / "submitted")
    shutil.copytree(submitted, stock / "submitted")
    for assignment in assignments:
        done = _nbgrader("autograde", assignment, "--force", cwd=stock)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return gradebook_cells(f"sqlite:///{stock / 'gradebook.db'}")


def our_grades(
    course: Path, submitted: Path, work: Path, *extra: str
) -> tuple[Cells, subprocess.CompletedProcess]:
    """The class graded by ``python -m autograder grade SUBMITTED --source COURSE`` (its
    course folder and outputs under ``work/ours``); its gradebook's cells and the run."""
    ours = work / "ours"
    done = run_cli(
        "grade",
        submitted,
        "--source",
        course,
        "--course",
        ours / "course",
        "--out",
        ours / "out",
        *extra,
        cwd=work,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    sqlite = ours / "course" / "gradebook.db"
    return (gradebook_cells(f"sqlite:///{sqlite}") if sqlite.is_file() else {}), done


# ------------------------------------------------------------------ a course of other styles


def _meta(**fields) -> dict:
    return {"nbgrader": {"schema_version": 3, **fields}}


def answer(source: str, grade_id: str) -> nbformat.NotebookNode:
    return new_code_cell(
        source, metadata=_meta(grade=False, solution=True, locked=False, grade_id=grade_id)
    )


def check(source: str, grade_id: str, points: float) -> nbformat.NotebookNode:
    return new_code_cell(
        source,
        metadata=_meta(grade=True, solution=False, locked=True, grade_id=grade_id, points=points),
    )


def notebook(cells: list) -> nbformat.NotebookNode:
    """A Python notebook of *cells*."""
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


#: The style course's own solution markers and code stub (its nbgrader_config.py).
BEGIN, END = "BEGIN ANSWER", "END ANSWER"
STUB = "# write your answer here\nraise NotImplementedError"

STYLE_CONFIG = f'''c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "stats-101"
c.IncludeHeaderFooter.header = "source/header.ipynb"
c.ClearSolutions.begin_solution_delimeter = "{BEGIN}"
c.ClearSolutions.end_solution_delimeter = "{END}"
c.ClearSolutions.code_stub = {{"python": {STUB!r}}}
c.ClearSolutions.text_stub = "Your answer here."
c.Execute.timeout = 60
'''

#: The answers of the style course: assignment -> notebook -> grade id -> the
#: instructor's solution (with the course's markers).
MEAN = f"""def mean_of(path):
    # {BEGIN}
    values = tools.read_column(path)
    return sum(values) / len(values)
    # {END}"""

ZSCORE = f"""def zscores(values):
    # {BEGIN}
    values = np.asarray(values, dtype=float)
    return (values - values.mean()) / values.std()
    # {END}"""

PVALUE = f"""def two_sided_p(t, dof):
    # {BEGIN}
    return 2 * stats.t.sf(abs(t), dof)
    # {END}"""

WORDS = f"""def count_words(text):
    # {BEGIN}
    return len(text.split())
    # {END}"""


#: Grade ids nbgrader's own check refuses (its pattern ``^[a-zA-Z0-9_\\-]*$``).
ODD_IDS = ("mean of file", "mean.of.file", "größe")


def write_style_course(root: Path) -> Path:
    """A course in other styles than this repository's, at *root* (returned):

    ``hw1`` has two notebooks, ``analysis`` (reads ``data/values.csv`` through the helper
    module ``tools.py`` beside it, uses scipy; visible and hidden tests) and ``essay``
    (grade ids of capitals, digits first, hyphens: what nbgrader allows; nbgrader refuses
    spaces, dots and non-ASCII letters, see :data:`ODD_IDS`; a manually graded markdown answer,
    a manually graded code answer, a task, and no hidden tests); ``hw2`` one notebook with no
    hidden tests at all. A header notebook for every notebook, the course's own solution
    markers and stub."""
    (root / "source" / "hw1" / "data").mkdir(parents=True)
    (root / "source" / "hw2").mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(STYLE_CONFIG)
    nbformat.write(
        notebook(
            [
                new_markdown_cell("**Stats 101.** Fill in your name, then restart and run all."),
                new_code_cell('NAME = ""'),
            ]
        ),
        root / "source" / "header.ipynb",
    )
    hw1 = root / "source" / "hw1"
    (hw1 / "data" / "values.csv").write_text("value\n2.0\n4.0\n6.0\n8.0\n")
    (hw1 / "tools.py").write_text(
        '"""The course\'s helper module, released beside the notebooks."""\n\n'
        "import csv\n\n\n"
        "def read_column(path):\n"
        "    with open(path, newline='') as fh:\n"
        "        return [float(row['value']) for row in csv.DictReader(fh)]\n"
    )
    analysis = notebook(
        [
            new_markdown_cell("# Analysis\nThe data file is `data/values.csv`."),
            new_code_cell("import numpy as np\nfrom scipy import stats\n\nimport tools"),
            answer(MEAN, "Mean-Of-File"),
            check('assert mean_of("data/values.csv") == 5.0', "Mean-Of-File-test", 1),
            answer(ZSCORE, "zscores"),
            check(
                "z = zscores([1, 2, 3])\n"
                "assert np.allclose(z, [-1.224744871391589, 0.0, 1.224744871391589])\n"
                "### BEGIN HIDDEN TESTS\n"
                "assert np.allclose(zscores([5, 5, 7]).sum(), 0.0)\n"
                "### END HIDDEN TESTS",
                "1_test-zscores",
                2,
            ),
            answer(PVALUE, "p_value"),
            check(
                "assert abs(two_sided_p(2.0, 10) - 0.0733880347707)< 1e-9\n"
                "### BEGIN HIDDEN TESTS\n"
                "assert abs(two_sided_p(-2.0, 10) - two_sided_p(2.0, 10)) < 1e-12\n"
                "### END HIDDEN TESTS",
                "p_value_test",
                1.5,
            ),
        ]
    )
    essay = notebook(
        [
            new_markdown_cell("# Essay"),
            new_markdown_cell(
                "Explain a z-score.",
                metadata=_meta(grade=False, solution=False, locked=True, grade_id="frage_intro"),
            ),
            new_markdown_cell(
                "A z-score counts standard deviations from the mean.",
                metadata=_meta(
                    grade=True, solution=True, locked=False, grade_id="Q-explain", points=2
                ),
            ),
            new_code_cell(
                f"# {BEGIN}\ndef plot_it():\n    return 'a plot'\n# {END}",
                metadata=_meta(
                    grade=True, solution=True, locked=False, grade_id="free_CODE", points=1
                ),
            ),
            answer(WORDS, "count-words"),
            check('assert count_words("a b  c") == 3', "count-words--test", 1),
            new_markdown_cell(
                "Discuss the data.",
                metadata=_meta(
                    grade=False, solution=False, task=True, locked=True, grade_id="task-1", points=3
                ),
            ),
        ]
    )
    nbformat.write(analysis, hw1 / "analysis.ipynb")
    nbformat.write(essay, hw1 / "essay.ipynb")
    hw2 = notebook(
        [
            new_code_cell("import math"),
            answer(
                f"def hyp(a, b):\n    # {BEGIN}\n    return math.hypot(a, b)\n    # {END}", "hyp"
            ),
            check("assert hyp(3, 4) == 5", "hyp_test", 1),
            check("assert hyp(0, 0) == 0", "hyp_zero", 1),
        ]
    )
    nbformat.write(hw2, root / "source" / "hw2" / "triangle.ipynb")
    return root


#: What the style course's students write: grade id -> source, per student.
STYLE_ANSWERS: dict[str, dict[str, str]] = {
    "alice": {  # every answer right, in a style of her own
        "Mean-Of-File": "def mean_of(path):\n    return float(np.mean(tools.read_column(path)))",
        "zscores": "def zscores(values):\n    a = np.array(values, float)\n"
        "    return (a - np.mean(a)) / np.std(a)",
        "p_value": "def two_sided_p(t, dof):\n    return float(2 * (1 - stats.t.cdf(abs(t), dof)))",
        "Q-explain": "How many standard deviations a value lies from the mean.",
        "free_CODE": "def plot_it():\n    return 'mine'",
        "count-words": "def count_words(text):\n    return len([w for w in text.split(' ') if w])",
        "hyp": "def hyp(a, b):\n    return (a * a + b * b) ** 0.5",
    },
    "bob": {  # one bug an exercise: each loses its own test only
        "Mean-Of-File": "def mean_of(path):\n    v = tools.read_column(path)\n"
        "    return sum(v) / (len(v) - 1)",
        "zscores": "def zscores(values):\n    a = np.array(values, float)\n"
        "    return (a - a.mean()) / a.std(ddof=1)",
        "p_value": "def two_sided_p(t, dof):\n    return float(stats.t.sf(abs(t), dof))",
        "Q-explain": "No idea.",
        "free_CODE": "def plot_it(:\n    pass",
        "count-words": "def count_words(text):\n    return len(text.split(' '))",
        "hyp": "def hyp(a, b):\n    return a + b",
    },
    "carol": {},  # hands in the release as it was
}


def fill(release_nb: Path, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The release notebook with the answers named written into their cells."""
    nb = nbformat.read(release_nb, as_version=4)
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return nb


def hand_in(release: Path, dest: Path, student: str, answers: dict[str, str]) -> Path:
    """A student's submission of the release folder *release* in nbgrader's layout:
    ``dest/<student>/<assignment>/``, every notebook filled with *answers*."""
    folder = dest / student / release.name
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(release.glob("*.ipynb")):
        nbformat.write(fill(path, answers), folder / path.name)
    return folder


def edit_cells(path: Path, *, delete: str | None = None, retype: tuple[str, str] | None = None):
    """A student's edit of a submitted notebook: the cell *delete* (a grade id) removed,
    the cell ``retype[0]`` turned into a ``retype[1]`` cell."""
    nb = nbformat.read(path, as_version=4)
    kept = []
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid is not None and gid == delete:
            continue
        if retype is not None and gid == retype[0]:
            make = new_code_cell if retype[1] == "code" else new_markdown_cell
            cell = make(cell.source, metadata=cell.metadata)
        kept.append(cell)
    nb.cells = kept
    nbformat.write(nb, path)


# ------------------------------------------------------------------ a course of copied cells


def _solution(signature: str, body: str) -> str:
    return f"{signature}\n    ### BEGIN SOLUTION\n    {body}\n    ### END SOLUTION"


HYP = _solution("def hyp(a, b):", "return math.hypot(a, b)")
MEAN_OF = _solution("def mean(values):", "return sum(values) / len(values)")
AREA = _solution("def area(side):", "return side * side")


def write_copies_course(root: Path) -> Path:
    """A course whose instructor copied cells from one assignment to the next, their grade
    ids kept (nbgrader's grade ids are unique within a notebook only), at *root* (returned):

    ``hw1`` has ``homework`` (``hyp`` and ``mean`` with their tests) and ``bonus`` (``hyp``
    again, the same grade ids, another test); ``hw2`` has a ``homework`` too, ``hyp``'s
    cells copied from hw1 and ``area``; ``hw3``'s ``homework`` is hw1's copied, grade ids
    and all, ``mean``'s test asking one more thing."""
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(
        'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "copies-101"\n'
    )
    hyp = [answer(HYP, "hyp"), check("assert hyp(3, 4) == 5", "hyp_test", 1)]
    mean = [answer(MEAN_OF, "mean"), check("assert mean([1, 2, 3]) == 2", "mean_test", 1)]
    notebooks = {
        "hw1/homework": [*hyp, *mean],
        "hw1/bonus": [answer(HYP, "hyp"), check("assert hyp(5, 12) == 13", "hyp_test", 2)],
        "hw2/homework": [
            *hyp,
            answer(AREA, "area"),
            check("assert area(2) == 4", "area_test", 2),
        ],
        "hw3/homework": [
            *hyp,
            answer(MEAN_OF, "mean"),
            check("assert mean([1, 2, 3]) == 2\nassert mean([4]) == 4", "mean_test", 1),
        ],
    }
    for name, cells in notebooks.items():
        path = root / "source" / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook([new_code_cell("import math"), *cells]), path)
    return root


#: What the copies course's students write: grade id -> source (the same in every
#: assignment), per student.
COPIES_ANSWERS: dict[str, dict[str, str]] = {
    "alice": {  # every answer right
        "hyp": "def hyp(a, b):\n    return (a * a + b * b) ** 0.5",
        "mean": "def mean(values):\n    return sum(values) / len(values)",
        "area": "def area(side):\n    return side ** 2",
    },
    "bob": {  # hyp wrong; mean right for three values only (hw1's test, not hw3's)
        "hyp": "def hyp(a, b):\n    return a + b",
        "mean": "def mean(values):\n    return sum(values) / 3",
        "area": "def area(side):\n    return side * side",
    },
}
