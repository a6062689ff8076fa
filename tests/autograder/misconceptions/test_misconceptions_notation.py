"""autograder.misconceptions.notation: values read without running anything, a probe's call
with fresh arguments each time, and a value written back in the notation."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import linlib
from autograder.misconceptions import parse_call, parse_value, render


def test_values_read_without_running_anything():
    assert parse_value("[1, -2.5, inf, 1/4, sqrt(4)]") == [1, -2.5, math.inf, 0.25, 2.0]
    assert math.isnan(parse_value("nan"))
    array = parse_value("array([[1, 2]])")
    assert isinstance(array, np.ndarray) and array.dtype.kind == "i"
    assert parse_value("array([1, 2], float)").dtype.kind == "f"
    assert parse_value("(True, None, 'w')") == (True, None, "w")
    assert np.allclose(parse_value("log([1, 2])"), np.log([1, 2]))
    assert parse_value("linlib.linear_kernel") is linlib.linear_kernel
    kernel = parse_value("partial(linlib.polynomial_kernel, degree=2)")
    assert isinstance(kernel, functools.partial) and kernel.keywords == {"degree": 2}


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "open('x')",
        "linlib._remote",
        "linlib.grading.call_student",
        "np.zeros(3)",
        "[x for x in y]",
        "lambda: 1",
        "f'{1}'",
        "1 if True else 2",
    ],
)
def test_values_refuse_everything_else(text):
    with pytest.raises(ValueError):
        parse_value(text)


def test_a_call_gives_fresh_arguments_each_time():
    name, args, kwargs = parse_call("nb_fit([[1, 0]], [-1], alpha=0.5)", "nb_fit")
    assert (name, args, kwargs) == ("nb_fit", [[[1, 0]], [-1]], {"alpha": 0.5})
    again = parse_call("nb_fit([[1, 0]], [-1], alpha=0.5)")[1]
    assert again == args and again[0] is not args[0]
    with pytest.raises(ValueError, match="calls predict, not activation"):
        parse_call("predict([[1]], [1], 0)", "activation")
    with pytest.raises(ValueError, match="no \\* or \\*\\*"):
        parse_call("predict(*x)")


def test_render_writes_the_notation_back():
    assert render(np.array([1.0, -2.0])) == "array([1.0, -2.0])"
    assert render((np.array([1, 2]), 0.5, True)) == "(array([1, 2]), 0.5, True)"
    assert render([np.float64(np.inf), np.nan, "a"]) == "[inf, nan, 'a']"
    assert render((3,)) == "(3,)"
    assert len(render(list(range(10_000)), limit=50)) == 50
    w = np.array([1.0])
    assert render((w, 2), given={id(w): "given(w)"}) == "(given(w), 2)"
