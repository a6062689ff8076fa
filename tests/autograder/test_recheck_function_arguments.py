"""Functions as arguments in the trusted re-check, end to end: a tiny course notebook whose
test cells pass ``numpy.dot``, a linlib function, a ``functools.partial`` of it and a
student's own function to a student's function, graded in the sandbox.

The correct answer gets the notebook's full points (a function passed as an argument used
to come back "not plain data" and cost the test); a wrong ``gram`` loses exactly its test;
a student whose kernel forges its replies (every argument sent back as ``os.system``) is
refused: its tests fail in the re-check even though its answers are right.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import Course
from autograder.samples import make_submission
from tests.autograder.grading_helpers import grade_notebooks

pytestmark = pytest.mark.needs_sandbox


def _meta(**kw):
    return {"nbgrader": dict(schema_version=3, **kw)}


def _solution(grade_id: str, source: str):
    return new_code_cell(
        source, metadata=_meta(grade=False, solution=True, locked=False, grade_id=grade_id)
    )


def _test(grade_id: str, source: str, points: int):
    return new_code_cell(
        source,
        metadata=_meta(grade=True, solution=False, locked=True, grade_id=grade_id, points=points),
    )


def _answer(signature: str, body: str) -> str:
    return f"{signature}\n    ### BEGIN SOLUTION\n    {body}\n    ### END SOLUTION"


GRAM = _answer("def gram(X, kernel):", "return np.array([[kernel(a, b) for b in X] for a in X])")
APPLY = _answer("def apply(f, *args):", "return f(*args)")
TWICE = _answer("def apply_twice(f, x):", "return f(f(x))")
INC = _answer("def inc(x):", "return x + 1")

#: Reference values are closed forms computed in the test cell: X X^T, (X w + b) / |w|.
SETUP = (
    "import numpy as np\n"
    "import linlib\n"
    "from functools import partial\n"
    "X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]])\n"
    "w, b = np.array([3.0, 4.0]), -5.0"
)
TEST_GRAM = "assert np.allclose(gram(X, np.dot), X @ X.T)"
TEST_REFS = (
    "expected = (X @ w + b) / 5.0\n"
    "assert np.allclose(apply(linlib.signed_distance, X, w, b), expected)\n"
    "assert np.allclose(apply(partial(linlib.signed_distance, w=w, b=b), X), expected)\n"
    "assert np.allclose(apply(partial(np.dot, b=w), X), X @ w)"
)
TEST_OWN = "assert apply_twice(inc, 1) == 3\nassert apply(partial(apply_twice, inc), 5) == 7"

#: A kernel that lies: after every call it says the arguments became ``os.system``.
FORGER = """
import linlib._remote as _r
_real_call = _r._call
def _forged(ns, req):
    out = _real_call(ns, req)
    out["args"] = [{"__ag__": "ref", "module": "os", "name": "system"} for _ in req["args"]]
    return out
_r._call = _forged
"""


def _notebook():
    nb = new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        new_code_cell(SETUP),
        _solution("gram_answer", GRAM),
        _solution("apply_answer", APPLY),
        _solution("twice_answer", TWICE),
        _solution("inc_answer", INC),
        _test("gram_dot", TEST_GRAM, 1),
        _test("apply_linlib", TEST_REFS, 2),
        _test("apply_own", TEST_OWN, 1),
    ]
    return nb


@pytest.mark.slow
def test_functions_passed_as_arguments_are_graded_in_the_recheck(tmp_path):
    source_dir = tmp_path / "notebooks" / "fnargs"
    source_dir.mkdir(parents=True)
    nbformat.write(_notebook(), source_dir / "fnargs.ipynb")
    course = Course(tmp_path / "course").make(source_dir=tmp_path / "notebooks")
    release = course.release("fnargs") / "fnargs.ipynb"
    source = source_dir / "fnargs.ipynb"
    submissions = {
        "right": make_submission(release, source),
        "wrong_gram": make_submission(
            release, source, {"gram_answer": "def gram(X, kernel):\n    return X @ X.T + 1"}
        ),
        "forger": make_submission(release, source, {"inc_answer": FORGER + INC}),
    }
    results = grade_notebooks(
        course.root,
        "fnargs",
        {student: {"fnargs": nb} for student, nb in submissions.items()},
        sandbox=True,
    )
    points = {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nbformat.read(source, as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade")
    }
    full = {grade_id: (p, p) for grade_id, p in points.items()}
    assert results["right"].ok and results["right"].scores == full, results["right"]
    assert results["wrong_gram"].scores == dict(full, gram_dot=(0.0, points["gram_dot"]))
    assert results["forger"].scores == {grade_id: (0.0, p) for grade_id, p in points.items()}
