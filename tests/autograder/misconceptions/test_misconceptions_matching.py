"""autograder.misconceptions.matching: the diagnosis, with a fake ``observe`` (the real calls
are tested in ``tests/notebooks/test_notebooks_misconceptions.py`` and through the
grader)."""

from __future__ import annotations

import pytest

from autograder.misconceptions import (
    Exercise,
    Misconception,
    Probe,
    Unanswered,
    diagnose,
    observe_call,
    parse_pattern,
)


def _exercise() -> Exercise:
    def probe(call, rule, answer):
        return Probe(call, parse_pattern(rule), parse_pattern(answer), {})

    return Exercise(
        "f",
        ("x",),
        (
            Misconception("doubles", "you double", "look", (probe("f(1)", "1", "2"),)),
            Misconception(
                "negates",
                "you negate",
                "look",
                (probe("f(2)", "2", "2"), probe("f(1)", "1", "-1")),
            ),
        ),
    )


def _observer(function):
    def observe(call):
        return observe_call(call, ("x",), lambda args, kwargs: function(*args))

    return observe


def test_diagnose_names_the_misconception_whose_probe_matches():
    diagnosis = diagnose(_exercise(), _observer(lambda x: -x if x == 1 else x))
    assert diagnosis is not None and diagnosis.misconception == "negates"
    # the call shown is the one where the answer is not the rule's
    assert (diagnosis.call, diagnosis.got, diagnosis.rule) == ("f(1)", "-1", "1")
    assert diagnose(_exercise(), _observer(lambda x: 2 * x)).misconception == "doubles"


def test_diagnose_otherwise_reports_the_smallest_failing_probe_or_nothing():
    diagnosis = diagnose(_exercise(), _observer(lambda x: x + 10))
    assert diagnosis is not None and diagnosis.misconception is None
    assert (diagnosis.call, diagnosis.got, diagnosis.rule) == ("f(1)", "11", "1")
    assert diagnose(_exercise(), _observer(lambda x: x)) is None


def test_diagnose_leaves_an_unanswered_exercise_alone():
    def stub(x):
        raise NotImplementedError

    with pytest.raises(Unanswered):
        diagnose(_exercise(), _observer(stub))
