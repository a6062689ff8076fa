"""autograder.misconceptions.patterns: the answers of the notation and what they match (the
real calls are tested in ``tests/notebooks/test_notebooks_misconceptions.py`` and through the
grader)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.misconceptions import Observation, parse_pattern


def _obs(value=None, error=None, **arguments):
    return Observation(value=value, error=error, arguments=arguments)


def test_numbers_match_within_the_tolerance_and_are_not_bools():
    pattern = parse_pattern("0.3")
    assert pattern.matches(_obs(0.1 + 0.2)) and pattern.matches(_obs(np.float32(0.3) * 0 + 0.3))
    assert not pattern.matches(_obs(0.31))
    assert not parse_pattern("1").matches(_obs(True))
    assert parse_pattern("True").matches(_obs(np.bool_(True)))
    assert not parse_pattern("True").matches(_obs(1))
    assert parse_pattern("nan").matches(_obs(math.nan))
    assert not parse_pattern("inf").matches(_obs(1e308))


def test_strict_forms_check_the_type():
    assert parse_pattern("int(3)").matches(_obs(np.int64(3)))
    assert not parse_pattern("int(3)").matches(_obs(3.0))
    assert parse_pattern("float(3)").matches(_obs(3.0))
    assert not parse_pattern("float(3)").matches(_obs(3))
    assert parse_pattern("array([1, 2])").matches(_obs([1.0, 2.0]))  # array-like
    assert not parse_pattern("ndarray([1, 2])").matches(_obs([1.0, 2.0]))
    assert parse_pattern("array([1, 2], int)").matches(_obs(np.array([1, 2])))
    assert not parse_pattern("array([1, 2], int)").matches(_obs(np.array([1.0, 2.0])))
    assert parse_pattern("list([1, 2])").matches(_obs([1, 2]))
    assert not parse_pattern("list([1, 2])").matches(_obs(np.array([1, 2])))
    assert not parse_pattern("array([1, 2])").matches(_obs(np.array([[1, 2]])))  # shape


def test_sequences_errors_identity_and_predicates():
    pattern = parse_pattern("(array([2.0, 0.0]), 1.0, True)")
    assert pattern.matches(_obs((np.array([2.0, 0.0]), 1, np.bool_(True))))
    assert pattern.matches(_obs([[2.0, 0.0], 1.0, True]))
    assert not pattern.matches(_obs((np.array([2.0, 0.0]), 1.0)))
    assert parse_pattern("raises(ValueError)").matches(_obs(error=ValueError("x")))
    assert not parse_pattern("raises(ValueError)").matches(_obs(error=TypeError("x")))
    assert not parse_pattern("1").matches(_obs(error=ValueError("x")))
    w = np.array([1.0])
    assert parse_pattern("(given(w), 0)").matches(_obs((w, 0), w=w))
    assert not parse_pattern("(given(w), 0)").matches(_obs((w.copy(), 0), w=w))
    assert parse_pattern("shuffled(['a', 'b'])").matches(_obs(["b", "a"]))
    assert not parse_pattern("shuffled(['a', 'b'])").matches(_obs(["a", "b"]))
    table = "[[-1, -1], [-1, 1], [1, -1], [1, 1]], [-1, -1, -1, 1]"
    assert parse_pattern(f"classifies({table})").matches(_obs(([1, 1], -1)))
    assert not parse_pattern(f"classifies({table})").matches(_obs(([1, 1], 0)))
    assert parse_pattern(f"ties({table})").matches(_obs(([1, 1], 0)))


def test_patterns_refuse_what_they_do_not_know():
    for text in ("raises(os.error)", "raises(SystemExit)", "array(x)", "max([1, 2])", "w"):
        with pytest.raises(ValueError):
            parse_pattern(text)
