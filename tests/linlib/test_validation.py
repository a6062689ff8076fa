"""Bad input gets a clear ValueError from every linlib estimator and data function;
good input of every accepted kind (lists, integers, bools, strings) is accepted. Bad
hyperparameters are refused at fit, through scikit-learn's ``_parameter_constraints``
machinery, with linlib's own one-line messages."""

from __future__ import annotations

import contextlib
import inspect
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
)

import linlib

ESTIMATORS = [
    linlib.Perceptron,
    linlib.VotedPerceptron,
    linlib.BatchPerceptron,
    linlib.MultinomialNB,
    linlib.HardMarginSVM,
    linlib.SoftMarginSVM,
]

# Functions taking labelled data (X, y) that need two classes (estimators: below).
XY_FUNCTIONS = {
    "is_linearly_separable": linlib.is_linearly_separable,
    "perceptron_trace": linlib.perceptron_trace,
    "perceptron_cycle": linlib.perceptron_cycle,
    "check_binary_X_y": linlib.check_binary_X_y,
}

# Functions taking (X, y, w, b).
MARGIN_FUNCTIONS = {
    "functional_margin": linlib.functional_margin,
    "geometric_margin": linlib.geometric_margin,
    "novikoff_bound": linlib.novikoff_bound,
}

GOOD_X = [[1, 2], [2, 1], [0, 0], [3, 3]]
GOOD_Y = [1, 1, -1, 1]

BAD_X = {
    "1-D": ([1, 2, 3, 4], "2-D|2D|reshape"),
    "3-D": (np.zeros((4, 2, 1)), "2-D|2D|dim"),
    "NaN": ([[1, 2], [np.nan, 1], [0, 0], [3, 3]], "NaN"),
    "inf": ([[1, 2], [np.inf, 1], [0, 0], [3, 3]], "inf"),
    "empty": (np.zeros((0, 2)), "0 sample|empty"),
    "no features": (np.zeros((4, 0)), "0 feature"),
    "strings": ([["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]], "number|float"),
    "ragged": ([[1, 2], [1], [0, 0], [3, 3]], "array|sequence|shape"),
}

BAD_Y = {
    "one class": ([1, 1, 1, 1], r"only one class \(1\)"),
    "three classes": ([0, 1, 2, 1], "binary|two"),
    "wrong length": ([1, -1, 1], "samples|length|inconsistent"),
    "NaN label": ([1.0, np.nan, 0.0, 1.0], "NaN|nan"),
    "continuous": ([0.5, 1.5, 2.25, 0.75], "Unknown label type|continuous"),
    "2-D": ([[1, 0], [0, 1], [1, 0], [0, 1]], "1-D|1d|shape"),
}


def _estimator_fit(cls):
    return lambda X, y: cls().fit(X, y)


XY_CALLABLES = {f"{cls.__name__}.fit": _estimator_fit(cls) for cls in ESTIMATORS}
XY_CALLABLES.update(XY_FUNCTIONS)


@pytest.mark.parametrize("name", sorted(XY_CALLABLES))
@pytest.mark.parametrize("case", sorted(BAD_X))
def test_bad_X_for_labelled_data(name, case):
    X, pattern = BAD_X[case]
    y = GOOD_Y if case not in ("empty",) else []
    with pytest.raises(ValueError, match=pattern):
        XY_CALLABLES[name](X, y)


@pytest.mark.parametrize("name", sorted(XY_CALLABLES))
@pytest.mark.parametrize("case", sorted(BAD_Y))
def test_bad_y_for_labelled_data(name, case):
    y, pattern = BAD_Y[case]
    with pytest.raises(ValueError, match=pattern):
        XY_CALLABLES[name](GOOD_X, y)


@pytest.mark.parametrize("name", sorted(MARGIN_FUNCTIONS))
def test_bad_input_for_margin_functions(name):
    fn = MARGIN_FUNCTIONS[name]
    for case, (X, pattern) in BAD_X.items():
        y = GOOD_Y if case != "empty" else []
        with pytest.raises(ValueError, match=pattern):
            fn(X, y, [1, 1], -1)
    for case in ("three classes", "wrong length", "NaN label", "2-D", "continuous"):
        y, pattern = BAD_Y[case]
        with pytest.raises(ValueError, match=pattern):
            fn(GOOD_X, y, [1, 1], -1)
    # One class of non-±1 labels cannot be encoded; -1/+1 labels alone are margins.
    with pytest.raises(ValueError, match="one class"):
        fn(GOOD_X, ["a"] * 4, [1, 1], -1)
    with pytest.raises(ValueError, match="w has 3 entries"):
        fn(GOOD_X, GOOD_Y, [1, 1, 1], -1)
    with pytest.raises(ValueError, match="b must be"):
        fn(GOOD_X, GOOD_Y, [1, 1], [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        fn(GOOD_X, GOOD_Y, [np.nan, 1], 0)


@pytest.mark.parametrize(
    "fn",
    [linlib.activation, linlib.signed_distance],
    ids=["activation", "signed_distance"],
)
def test_bad_input_for_unlabelled_functions(fn):
    for X, pattern in BAD_X.values():
        with pytest.raises(ValueError, match=pattern):
            fn(X, [1, 1], 0)
    with pytest.raises(ValueError, match="w has 1 entries"):
        fn(GOOD_X, [1], 0)
    with pytest.raises(ValueError, match="b must be finite"):
        fn(GOOD_X, [1, 1], np.inf)


def test_check_X_and_augment():
    for X, pattern in BAD_X.values():
        with pytest.raises(ValueError, match=pattern):
            linlib.check_X(X)
        with pytest.raises(ValueError, match=pattern):
            linlib.augment(X)
    with pytest.raises(ValueError, match="3 features, but 2"):
        linlib.check_X([[1, 2, 3]], n_features=2)
    out = linlib.check_X([[1, 2]])
    assert out.dtype == np.float64 and out.shape == (1, 2)


@pytest.mark.parametrize(
    ("labels", "positive"),
    [
        (["ham", "spam"], "spam"),
        ([False, True], True),
        ([0, 1], 1),
        ([-1, 1], 1),
        ([2.0, 5.0], 5.0),
    ],
)
def test_label_kinds_are_accepted(labels, positive):
    y = [labels[i] for i in (1, 1, 0, 1)]
    X_out, y_pm, classes = linlib.check_binary_X_y(GOOD_X, y)
    assert X_out.dtype == np.float64
    np.testing.assert_array_equal(y_pm, [1, 1, -1, 1])
    assert classes[1] == positive
    for cls in ESTIMATORS:
        model = cls().fit(GOOD_X, y)
        assert list(model.classes_) == sorted(labels)
        assert set(model.predict(GOOD_X)) <= set(labels)
    assert linlib.is_linearly_separable(GOOD_X, y)
    np.testing.assert_allclose(linlib.functional_margin(GOOD_X, y, [1, 1], -1), [2, 2, 1, 5])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_predict_checks(cls):
    with pytest.raises(NotFittedError):
        cls().predict(GOOD_X)
    model = cls().fit(np.array(GOOD_X), GOOD_Y)
    with pytest.raises(ValueError, match="features"):
        model.predict([[1, 2, 3]])
    with pytest.raises(ValueError, match="NaN"):
        model.decision_function([[np.nan, 1]])
    assert model.predict([[1, 2]]).shape == (1,)


# ------------------------------------------------------------------------ hyperparameters

# Every estimator linlib exports (test_every_estimator_is_listed_here keeps this complete).
ALL_ESTIMATORS = sorted(
    (
        obj
        for obj in (getattr(linlib, name) for name in linlib.__all__)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator)
    ),
    key=lambda cls: cls.__name__,
)


def test_every_estimator_is_listed_here():
    names = {cls.__name__ for cls in ALL_ESTIMATORS}
    assert names == {
        "BatchPerceptron",
        "HardMarginSVM",
        "KernelPerceptron",
        "MulticlassPerceptron",
        "MultinomialNB",
        "PegasosSVM",
        "Perceptron",
        "SoftMarginSVM",
        "VotedPerceptron",
    }


@pytest.mark.parametrize("cls", ALL_ESTIMATORS, ids=lambda c: c.__name__)
def test_init_is_keyword_only_and_every_parameter_is_constrained(cls):
    """scikit-learn's idiom: ``__init__(self, *, ...)`` and one entry of
    ``_parameter_constraints`` per parameter (its own check_param_validation's rule)."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert parameters and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    with pytest.raises(TypeError):
        cls(1)
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))


def _bad_values(constraints):
    """Values no constraint of the list accepts: scikit-learn's own generator of invalid
    values (just outside each bound, an unknown option), a bool where a number is wanted,
    and an object of no expected type."""
    made = [make_constraint(c) for c in constraints]
    bad = [object()]
    for constraint in made:
        with contextlib.suppress(NotImplementedError):
            bad.append(generate_invalid_param_val(constraint))
    if any(isinstance(c, Interval) for c in made):
        bad += [True, np.nan, np.inf, "1"]
    return [v for v in bad if not any(c.is_satisfied_by(v) for c in made) or v is True]


@pytest.mark.parametrize("cls", ALL_ESTIMATORS, ids=lambda c: c.__name__)
def test_bad_hyperparameters_are_refused_at_fit_with_a_message_for_students(cls):
    X, y = (GOOD_X, GOOD_Y) if cls is not linlib.MultinomialNB else ([[1, 2], [2, 1]], [0, 1])
    for name, constraints in cls._parameter_constraints.items():
        for bad in _bad_values(constraints):
            model = cls(**{name: bad})  # no error before fit (scikit-learn's convention)
            with pytest.raises(InvalidParameterError) as caught:
                model.fit(X, y)
            message = str(caught.value)
            assert message.startswith(f"{name} must be "), message
            assert message.endswith(f"; got {bad!r}."), message
            assert "\n" not in message
        for constraint in constraints:
            good = generate_valid_param(make_constraint(constraint))
            if callable(good):
                good = linlib.linear_kernel  # a kernel(A, B), not scikit-learn's lambda x: x
            cls(**{name: good}).fit(X, y)  # accepted


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: linlib.Perceptron(max_epochs=0), "max_epochs must be an integer ≥ 1; got 0."),
        (lambda: linlib.Perceptron(max_epochs=2.0), "max_epochs must be an integer ≥ 1; got 2.0."),
        (
            lambda: linlib.VotedPerceptron(max_epochs=True),
            "max_epochs must be an integer ≥ 1; got True.",
        ),
        (lambda: linlib.Perceptron(shuffle="yes"), "shuffle must be True or False; got 'yes'."),
        (
            lambda: linlib.Perceptron(random_state=-1),
            "random_state must be an integer from 0 to 2**32 - 1, a RandomState or None; got -1.",
        ),
        (lambda: linlib.BatchPerceptron(eta=0), "eta must be a finite number > 0; got 0."),
        (lambda: linlib.BatchPerceptron(tol=-1e-3), "tol must be a finite number ≥ 0; got -0.001."),
        (lambda: linlib.SoftMarginSVM(C=np.inf), "C must be a finite number > 0; got inf."),
        (lambda: linlib.MultinomialNB(alpha=None), "alpha must be a finite number ≥ 0; got None."),
        (
            lambda: linlib.KernelPerceptron(kernel="sigmoid"),
            "kernel must be 'linear', 'poly', 'rbf' or a callable; got 'sigmoid'.",
        ),
        (
            lambda: linlib.KernelPerceptron(coef0=-np.inf),
            "coef0 must be a finite number; got -inf.",
        ),
        (lambda: linlib.PegasosSVM(n_epochs=0), "n_epochs must be an integer ≥ 1; got 0."),
    ],
)
def test_hyperparameter_messages_word_for_word(call, message):
    with pytest.raises(ValueError) as caught:
        call().fit(GOOD_X, GOOD_Y)
    assert str(caught.value) == message


def test_functions_check_their_parameters_the_same_way():
    cases = [
        (lambda: linlib.perceptron_trace(GOOD_X, GOOD_Y, max_epochs=0), "max_epochs"),
        (lambda: linlib.perceptron_cycle(GOOD_X, GOOD_Y, max_epochs=1.5), "max_epochs"),
        (
            lambda: linlib.kernel_perceptron(GOOD_X, GOOD_Y, linlib.linear_kernel, max_epochs=-2),
            "max_epochs",
        ),
        (lambda: linlib.on_margin(GOOD_X, GOOD_Y, [1, 1], -1, tol=-1.0), "tol"),
        (lambda: linlib.weights_from_dual(GOOD_X, GOOD_Y, [0, 0, 1, 1], tol=np.nan), "tol"),
        (lambda: linlib.make_separable(10, radius=np.inf), "radius"),
    ]
    for call, name in cases:
        with pytest.raises(InvalidParameterError, match=f"^{name} must be .*; got .*\\.$"):
            call()


def test_scikit_learns_machinery_behaves_as_linlib_relies_on():
    """linlib declares its constraints with scikit-learn's private
    ``sklearn.utils._param_validation``; these are the behaviours it builds on, pinned so
    that a scikit-learn upgrade that changes one fails here first."""
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    at_least_one = Interval(Integral, 1, None, closed="left")
    assert at_least_one.is_satisfied_by(1) and at_least_one.is_satisfied_by(np.int64(7))
    assert not at_least_one.is_satisfied_by(0) and not at_least_one.is_satisfied_by(2.0)
    # scikit-learn lets True through as the integer 1: linlib's own rule refuses it.
    assert at_least_one.is_satisfied_by(True)
    positive = Interval(Real, 0, None, closed="neither")
    non_negative = Interval(Real, 0, None, closed="left")
    finite = Interval(Real, None, None, closed="neither")
    for interval in (positive, non_negative, finite):
        assert interval.is_satisfied_by(1) and interval.is_satisfied_by(np.float32(0.5))
        for bad in (np.inf, np.nan, "1", None):
            assert not interval.is_satisfied_by(bad), (interval, bad)
    assert non_negative.is_satisfied_by(0.0) and not positive.is_satisfied_by(0.0)
    assert not finite.is_satisfied_by(-np.inf)
    assert make_constraint(StrOptions({"a", "b"})).is_satisfied_by("a")
    assert not make_constraint(StrOptions({"a", "b"})).is_satisfied_by("c")
    assert make_constraint(callable).is_satisfied_by(len)
    boolean, random_state = make_constraint("boolean"), make_constraint("random_state")
    assert boolean.is_satisfied_by(np.True_) and not boolean.is_satisfied_by(1)
    for seed in (None, 0, 2**32 - 1, np.random.RandomState(0)):
        assert random_state.is_satisfied_by(seed)
    for seed in (-1, 2**32, 1.0, np.random.default_rng(0)):
        assert not random_state.is_satisfied_by(seed)
