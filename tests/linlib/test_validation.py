"""Bad input gets a clear ValueError from every linlib estimator and data function;
good input of every accepted kind (lists, integers, bools, strings) is accepted."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

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


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_hyperparameters_are_validated_at_fit(cls):
    name = {
        "Perceptron": "max_epochs",
        "VotedPerceptron": "max_epochs",
        "BatchPerceptron": "max_epochs",
        "MultinomialNB": "alpha",
        "HardMarginSVM": "tol",
        "SoftMarginSVM": "C",
    }[cls.__name__]
    for bad in (-1, True, np.inf, np.nan, "1", None):
        model = cls(**{name: bad})  # no error before fit (scikit-learn's convention)
        with pytest.raises(ValueError, match=name):
            model.fit(GOOD_X, GOOD_Y)
