"""linlib's references for the exercises of notebooks 01-03, against independent results.

A later exercise's test calls the student's function with these references in place of
the student's earlier answers (``call_student(..., use_reference=...)``), so each must have
exactly the exercise's signature and return convention, and be right: checked here against
scikit-learn's perceptron, the closed form ``a' = a + y(‖x‖² + 1)`` and Bast's toy trace.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import Perceptron as SkPerceptron

import linlib

BAST_X = [[2, 1], [5, 2], [3, 5], [3, 2], [1, 3], [2, 4]]
BAST_Y = [1, 1, -1, 1, -1, -1]


def sklearn_one_epoch(X, y, w0, b0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SkPerceptron(shuffle=False, tol=None, max_iter=1).fit(
            X, y, coef_init=np.array(w0, dtype=float).reshape(1, -1), intercept_init=[b0]
        )
    return model.coef_[0], model.intercept_[0]


def test_perceptron_update_bast_first_three_steps():
    w, b, updated = linlib.perceptron_update([0, 0], 0, [2, 1], 1)
    assert (w.tolist(), b, updated) == ([2.0, 1.0], 1.0, True)
    w, b, updated = linlib.perceptron_update(w, b, [5, 2], 1)
    assert (w.tolist(), b, updated) == ([2.0, 1.0], 1.0, False)
    w, b, updated = linlib.perceptron_update(w, b, [3, 5], -1)
    assert (w.tolist(), b, updated) == ([-1.0, -4.0], 0.0, True)


def test_perceptron_update_closed_form_and_tie():
    rng = np.random.default_rng(0)
    for _ in range(200):
        w0, x = rng.normal(size=3), rng.normal(size=3)
        b0, y = float(rng.normal()), int(rng.choice([-1, 1]))
        a = w0 @ x + b0
        w1, b1, updated = linlib.perceptron_update(w0, b0, x, y)
        assert updated == (y * a <= 0)
        if updated:
            assert np.isclose(w1 @ x + b1, a + y * (x @ x + 1))
        else:
            assert np.array_equal(w1, w0) and b1 == b0
    # A tie (a = 0) with w ≠ 0 is a mistake.
    w1, b1, updated = linlib.perceptron_update([1, -1], 0, [2, 2], 1)
    assert updated and w1.tolist() == [3.0, 1.0] and b1 == 1.0


def test_perceptron_update_returns_new_float_arrays():
    w = np.array([1, 2], dtype=np.int64)
    for x, y in (([1, 1], -1), ([1, 1], 1)):  # one update, one not
        w_new, b_new, _ = linlib.perceptron_update(w, 0, x, y)
        assert w_new is not w and w_new.dtype == np.float64 and isinstance(b_new, float)
        assert w.tolist() == [1, 2]
    w_float = np.array([0.5, 0.5])
    w_new, _, _ = linlib.perceptron_update(w_float, 0.0, [1.0, 0.0], 1)
    w_new += 1.0
    assert w_float.tolist() == [0.5, 0.5]


def test_perceptron_update_rejects_bad_input():
    with pytest.raises(ValueError):
        linlib.perceptron_update([1.0, 2.0], 0.0, [1.0], 1)
    with pytest.raises(ValueError):
        linlib.perceptron_update([1.0], 0.0, [1.0], 0)


def test_perceptron_epoch_bast_first_epoch():
    w, b, n = linlib.perceptron_epoch(BAST_X, BAST_Y, [0.0, 0.0], 0.0)
    assert (w.tolist(), b, n) == ([2.0, -2.0], 1.0, 3)


@pytest.mark.parametrize("seed", range(5))
def test_perceptron_epoch_matches_sklearn_from_any_start(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ [1.0, -1.0, 0.5] + 0.2 > 0, 1, -1)
    y[:4] = -y[:4]
    w0, b0 = rng.normal(size=3), float(rng.normal())
    w_given = w0.copy()
    w, b, n = linlib.perceptron_epoch(X, y, w_given, b0)
    sk_w, sk_b = sklearn_one_epoch(X, y, w0, b0)
    np.testing.assert_allclose(w, sk_w, rtol=1e-12, atol=1e-12)
    assert np.isclose(b, sk_b)
    assert np.array_equal(w_given, w0)
    # The number of updates: the trace of the same pass, from w = 0.
    steps = linlib.perceptron_trace(X, y, max_epochs=1)
    w, _, n = linlib.perceptron_epoch(X, y, np.zeros(3), 0.0)
    assert n == sum(step.updated for step in steps)
    np.testing.assert_array_equal(w, steps[-1].w)


def test_perceptron_epochs_chained_reproduce_sklearn_training():
    X, y = linlib.make_separable(60, n_features=3, margin=0.1, random_state=1)
    w, b, epochs = np.zeros(3), 0.0, 0
    while True:
        w, b, n = linlib.perceptron_epoch(X, y, w, b)
        epochs += 1
        if n == 0:
            break
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = SkPerceptron(shuffle=False, tol=None, max_iter=epochs).fit(X, y)
    np.testing.assert_allclose(w, sk.coef_[0], rtol=1e-12)
    assert np.isclose(b, sk.intercept_[0])


def test_geometry_references_match_the_exercises_of_03():
    """functional_margins and dataset_margin of notebook 03 use these, by closed forms."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    y = rng.choice([-1, 1], size=20)
    w, b = rng.normal(size=3), -0.4
    np.testing.assert_allclose(linlib.functional_margin(X, y, w, b), y * (X @ w + b))
    assert np.isclose(linlib.geometric_margin(X, y, w, b), np.min(y * (X @ w + b)) / np.sqrt(w @ w))
    with pytest.raises(ValueError):
        linlib.geometric_margin(X, y, np.zeros(3), 1.0)
