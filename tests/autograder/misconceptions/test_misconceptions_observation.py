"""autograder.misconceptions.observation: what a call did, the arguments it changed and those
it handed back, against a probe's rule."""

from __future__ import annotations

import numpy as np

from autograder.misconceptions import Observation, Probe, observe_call, parse_pattern
from autograder.recheck import StudentCodeError


def test_a_rule_changes_no_argument_and_returns_none_of_them():
    probe = Probe("f(array([1.0]))", parse_pattern("array([1.0])"), None, {})

    def same(args, kwargs):
        return args[0]

    def new(args, kwargs):
        return args[0].copy()

    def changes(args, kwargs):
        args[0][0] = 5.0
        return np.array([1.0])

    assert probe.rule_matches(observe_call(probe.call, ["w"], new))
    assert not probe.rule_matches(observe_call(probe.call, ["w"], same))
    changed = observe_call(probe.call, ["w"], changes)
    assert changed.changed.keys() == {"w"} and not probe.rule_matches(changed)
    assert "changed w to array([5.0])" in changed.describe()


def test_an_exception_the_recheck_does_not_map_is_told_by_its_name():
    """The re-check rebuilds a student's exception of a type it does not map as
    ``StudentCodeError``, which carries the type's name; the words name that type, or none
    when the kernel reported something that is not a name."""
    mapped = Observation(error=ValueError("no"))
    assert mapped.describe() == "raised ValueError"
    odd = StudentCodeError("fit raised SingularError: the matrix is singular", "SingularError")
    assert Observation(error=odd).describe() == "raised SingularError"
    forged = StudentCodeError("fit raised <b>pwned</b>: x", "<b>pwned</b>")
    assert Observation(error=forged).describe() == "raised an exception"
