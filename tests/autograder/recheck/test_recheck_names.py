"""autograder.recheck.names: what a test cell reads, and what the instructor's code binds."""

from __future__ import annotations

import ast

from autograder.recheck import InstructorCode, free_names


def test_free_names_are_what_a_cell_reads_but_does_not_bind():
    source = (
        "import numpy as np\n"
        "from linlib.grading import call_student\n"
        "def check(v):\n"
        "    return helper(v) + [w for w in v]\n"
        "X = np.arange(3)\n"
        "check(call_student(signed_distance, X, w_true, b=0.5))\n"
        "lambda q: q + len(X)\n"
    )
    assert free_names(source) - {"len"} == {"helper", "signed_distance", "w_true"}


def test_instructor_code_finds_graded_functions_and_bindings():
    cells = [
        ("code", None, "%matplotlib inline\nimport numpy as np\nX = np.eye(2)"),
        ("solution", "a1", 'def f(x):\n    """stub"""\n    raise NotImplementedError()'),
        ("test", "t1", "assert f(X) is not None"),
        ("code", None, "X = np.zeros(2)"),
        ("solution", "a2", "answer = None"),
    ]
    code = InstructorCode(cells)
    assert code.graded_functions == {"f"}
    # the test cell sees the X bound before it, not the later one
    assert "eye" in ast.unparse(code.binding_before("X", code.positions["t1"]).stmt)
    assert code.binding_before("answer", None).kind == "solution"
