"""linlib's references for notebooks 04 and 05, against independent computations.

``perceptron_cycle`` (05): a repeated end-of-epoch state is a cycle only if the repeated
stretch contains an update; a converged run's fixed point is not a cycle. Checked against
scikit-learn's textbook perceptron, epoch by epoch, on many small integer data sets.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron

import linlib

MAX_EPOCHS = 30


def _sklearn_states(X: np.ndarray, y: np.ndarray, epochs: int) -> list[tuple[float, ...]]:
    """(w, b) after 0, 1, ..., epochs epochs of scikit-learn's textbook perceptron."""
    states = [(0.0,) * (X.shape[1] + 1)]
    for k in range(1, epochs + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = SkPerceptron(shuffle=False, tol=None, max_iter=k).fit(X, y)
        states.append((*model.coef_[0].tolist(), float(model.intercept_[0])))
    return states


def _expected_cycle(X: np.ndarray, y: np.ndarray, states: list) -> tuple[int, int] | None:
    """The first exact repeat; None if it is a fixed point (every point strictly right)."""
    for j, state in enumerate(states):
        if state in states[:j]:
            i = states.index(state)
            w, b = np.array(state[:-1]), state[-1]
            converged = bool(np.all(y * (X @ w + b) > 0))  # the next epoch makes no update
            return None if converged else (i, j - i)
    return None


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.slow
def test_perceptron_cycle_matches_sklearn_epoch_states(seed):
    rng = np.random.default_rng(900 + seed)
    X = rng.integers(-2, 3, size=(6, 2)).astype(float)
    y = np.where(rng.random(6) < 0.5, -1, 1)
    y[:2] = (-1, 1)  # both classes present
    expected = _expected_cycle(X, y, _sklearn_states(X, y, MAX_EPOCHS))
    got = linlib.perceptron_cycle(X, y, max_epochs=MAX_EPOCHS)
    if expected is None:
        assert got is None
    else:
        assert got is not None and (got.start, got.period) == expected
        assert got.updates_per_cycle > 0


def test_converged_run_repeats_its_state_but_is_no_cycle():
    X, y = linlib.boolean_table("and")
    states = _sklearn_states(X, y, 4)
    assert states[-1] == states[-2]  # the end-of-epoch state repeats ...
    assert linlib.perceptron_cycle(X, y) is None  # ... and that is convergence, not a cycle
    X, y = linlib.boolean_table("xor")
    cycle = linlib.perceptron_cycle(X, y)
    assert (cycle.start, cycle.period, cycle.updates_per_cycle) == (0, 1, 4)
