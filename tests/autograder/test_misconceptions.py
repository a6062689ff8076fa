"""autograder.misconceptions: the catalogue's notation, its patterns, loading, and the
diagnosis (with a fake ``observe``: the real calls are tested in
``tests/notebooks/test_notebooks_misconceptions.py`` and through the grader)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import linlib
from autograder.misconceptions import (
    CatalogueError,
    Exercise,
    Misconception,
    Observation,
    Probe,
    Unanswered,
    call_options,
    diagnose,
    exercise_of,
    load_catalogue,
    observe_call,
    parse_call,
    parse_pattern,
    parse_value,
    render,
)


def _obs(value=None, error=None, **arguments):
    return Observation(value=value, error=error, arguments=arguments)


# --------------------------------------------------------------------------- values


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


# --------------------------------------------------------------------------- patterns


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


def test_patterns_refuse_what_they_do_not_know():
    for text in ("raises(os.error)", "raises(SystemExit)", "array(x)", "max([1, 2])", "w"):
        with pytest.raises(ValueError):
            parse_pattern(text)


# --------------------------------------------------------------------------- diagnosis


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


def test_exercise_of_takes_the_longest_name():
    names = ["on_margin", "on_margin_far"]
    assert exercise_of("on_margin_far_plane", names) == "on_margin_far"
    assert exercise_of("on_margin_hidden", names) == "on_margin"
    assert exercise_of("hinge_visible", names) is None


def test_call_options_read_the_test_cells():
    tests = {
        "predict_visible": "call_student(predict, X, disable=(), use_reference=('activation',))",
        "predict_hidden": "off = ('x',)\ncall_student(predict, X, disable=off)",
        "dataset_margin_visible": (
            "call_student(dataset_margin, X, disable=('geometric_margin',), "
            "use_reference={'functional_margins': 'functional_margin'})"
        ),
    }
    options = call_options(tests, ["predict", "dataset_margin"])
    assert options["predict"] == (("x",), {"activation": "activation"})
    assert options["dataset_margin"] == (
        ("geometric_margin",),
        {"functional_margins": "functional_margin"},
    )


# --------------------------------------------------------------------------- loading


def _write(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "misconceptions.toml").write_text(text, encoding="utf-8")
    return folder


GOOD = """
[f]
timeout_hint = "a loop never ends"

[[f.misconception]]
id = "doubles"
says = "you double x"
hint = "look at §1"

  [[f.misconception.probe]]
  call = "f(1)"
  rule = "1"
  answer = "2"
"""


def test_load_reads_a_catalogue(tmp_path):
    found = load_catalogue(_write(tmp_path / "09_x", GOOD))
    assert found is not None and found.assignment == "09_x"
    entry = found.exercises["f"]
    assert entry.timeout_hint == "a loop never ends"
    assert [m.id for m in entry.misconceptions] == ["doubles"]
    assert entry.calls() == ["f(1)"]
    assert load_catalogue(tmp_path / "nothing") is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('call = "f(1)"', 'call = "g(1)"'), "calls g, not f"),
        (('answer = "2"', 'answer = "open(2)"'), "not an answer"),
        (('id = "doubles"', 'id = "two words"'), "not a fresh identifier"),
        (('says = "you double x"', 'says = ""'), "says must be a non-empty string"),
        (("timeout_hint", "colour"), "unknown keys"),
        (("[f]", "[f"), "misconceptions.toml"),
    ],
)
def test_load_says_what_is_wrong(tmp_path, change, message):
    old, new = change
    with pytest.raises(CatalogueError, match=message):
        load_catalogue(_write(tmp_path / "09_x", GOOD.replace(old, new)))
