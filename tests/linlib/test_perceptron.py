"""linlib.perceptron against scikit-learn, seed 003's worked trace and hand computations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier

import linlib


def sk_perceptron(X, y, max_iter):
    """scikit-learn's textbook perceptron (dense input), the independent reference."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return SkPerceptron(shuffle=False, tol=None, max_iter=max_iter).fit(X, y)


def random_sets(n_sets, seed, integer):
    rng = np.random.default_rng(seed)
    for _ in range(n_sets):
        n = int(rng.integers(2, 60))
        d = int(rng.integers(1, 7))
        if integer:
            # Small integers: many exact ties y·a = 0 (a tie is a mistake in both).
            X = rng.integers(-3, 4, size=(n, d))
        else:
            X = rng.standard_normal((n, d)) * rng.uniform(0.1, 10)
        y = rng.integers(0, 2, size=n)
        y[:2] = [0, 1]
        yield X, y, int(rng.integers(1, 25))


@pytest.mark.parametrize("integer", [True, False], ids=["integer-with-ties", "float"])
@pytest.mark.slow
def test_perceptron_equals_sklearn_for_several_epoch_caps(integer):
    n_checked = 0
    for X, y, T in random_sets(120, seed=1 if integer else 2, integer=integer):
        ours = linlib.Perceptron(max_epochs=T).fit(X, y)
        ref = sk_perceptron(X, y, T)
        np.testing.assert_array_equal(ours.coef_, ref.coef_)
        np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
        np.testing.assert_array_equal(ours.decision_function(X), ref.decision_function(X))
        assert ours.n_iter_ <= T
        n_checked += 1
    assert n_checked == 120


def cancellation_sets(n_sets, seed):
    """Rows mixing ±1e16 with small integers: w·x is inexact and depends on the order of
    summation, so only scikit-learn's left-to-right arithmetic reproduces its decisions."""
    rng = np.random.default_rng(seed)
    for _ in range(n_sets):
        n, d = int(rng.integers(4, 30)), int(rng.integers(3, 8))
        X = rng.choice([-1e16, 1e16, -3.0, -1.0, 0.0, 1.0, 2.0, 5.0], size=(n, d))
        y = rng.integers(0, 2, size=n)
        y[:2] = [0, 1]
        yield X, y, int(rng.integers(1, 12))


@pytest.mark.slow
def test_perceptron_equals_sklearn_with_order_dependent_sums():
    for X, y, T in cancellation_sets(150, seed=21):
        ours = linlib.Perceptron(max_epochs=T).fit(X, y)
        ref = sk_perceptron(X, y, T)
        np.testing.assert_array_equal(ours.coef_, ref.coef_)
        np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
        trace = linlib.perceptron_trace(X, y, max_epochs=T)
        np.testing.assert_array_equal(trace[-1].w, ref.coef_[0])


def test_perceptron_equals_sklearn_on_larger_separable_set():
    X, y = linlib.make_separable(3000, 8, margin=0.05, random_state=3)
    ours = linlib.Perceptron().fit(X, y)
    assert ours.converged_
    ref = sk_perceptron(X, y, ours.n_iter_)
    np.testing.assert_array_equal(ours.coef_, ref.coef_)
    np.testing.assert_array_equal(ours.intercept_, ref.intercept_)


def test_perceptron_converged_run_matches_longer_sklearn_run():
    # After an epoch without updates sklearn keeps going but nothing changes.
    X, y = linlib.make_separable(200, 3, margin=0.1, random_state=4)
    ours = linlib.Perceptron().fit(X, y)
    ref = sk_perceptron(X, y, ours.n_iter_ + 7)
    np.testing.assert_array_equal(ours.coef_, ref.coef_)
    np.testing.assert_array_equal(ours.intercept_, ref.intercept_)


@pytest.mark.parametrize(
    "labels",
    [("cat", "dog"), ("dog", "cat"), (False, True), (0, 1), (-1, 1), (3, 7)],
)
def test_perceptron_label_types_follow_sklearn_class_order(labels):
    rng = np.random.default_rng(5)
    X = rng.integers(-3, 4, size=(30, 2))
    pick = rng.integers(0, 2, size=30)
    pick[:2] = [0, 1]
    y = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[pick]
    ours = linlib.Perceptron(max_epochs=6).fit(X.tolist(), y.tolist())
    ref = sk_perceptron(X, y, 6)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_array_equal(ours.coef_, ref.coef_)
    np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_perceptron_attributes_and_stopping_rule():
    X, y = linlib.toy_counts()
    model = linlib.Perceptron().fit(X, y)
    assert model.coef_.shape == (1, 2)
    assert model.intercept_.shape == (1,)
    assert model.converged_ is True
    # The last epoch is the one without updates: every training point is now correct.
    assert np.all(y * model.decision_function(X) > 0)
    capped = linlib.Perceptron(max_epochs=1).fit(X, y)
    assert capped.n_iter_ == 1 and capped.converged_ is False


def test_tie_is_a_mistake_and_prediction_at_zero_is_negative():
    # From w = 0 the very first example has a = 0: the course (and sklearn) update on it.
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, -1])
    trace = linlib.perceptron_trace(X, y)
    assert trace[0].activation == 0.0 and trace[0].updated
    model = linlib.Perceptron().fit(X, y)
    # A point on the plane (a = 0) is predicted as the negative class.
    on_plane = np.array([[-model.intercept_[0] / model.coef_[0, 0], 0.0]])
    assert model.decision_function(on_plane)[0] == 0.0
    assert model.predict(on_plane)[0] == -1


def test_seed_003_trace_step_by_step():
    """Seed 003's first steps, translated to the course's b (b_course = -b_seed)."""
    X, y = linlib.toy_counts()
    steps = linlib.perceptron_trace(X, y)
    first = steps[:3]
    # x1 = (2, 1) in A: w·x - b_seed = 0 -> update, w = (2, 1), b_seed = -1, i.e. b = +1.
    assert first[0].activation == 0.0 and first[0].updated
    np.testing.assert_array_equal(first[0].w, [2.0, 1.0])
    assert first[0].b == 1.0
    # x2 = (5, 2): activation 13 > 0, no change.
    assert first[1].activation == 13.0 and not first[1].updated
    np.testing.assert_array_equal(first[1].w, [2.0, 1.0])
    # x3 = (3, 5) in B: activation 12 > 0 although y = -1 -> update to w = (-1, -4), b = 0.
    assert first[2].activation == 12.0 and first[2].y == -1 and first[2].updated
    np.testing.assert_array_equal(first[2].w, [-1.0, -4.0])
    assert first[2].b == 0.0
    assert [(s.epoch, s.index) for s in steps[:7]] == [(1, i) for i in range(6)] + [(2, 0)]
    # The trace ends with the first epoch without updates, like Perceptron.fit.
    last_epoch = steps[-1].epoch
    assert not any(s.updated for s in steps if s.epoch == last_epoch)
    assert all(any(s.updated for s in steps if s.epoch == e) for e in range(1, last_epoch))
    model = linlib.Perceptron().fit(X, y)
    np.testing.assert_array_equal(steps[-1].w, model.coef_[0])
    assert steps[-1].b == model.intercept_[0]
    assert sum(s.updated for s in steps) == model.n_updates_


def test_trace_steps_are_consistent_updates():
    X, y = linlib.make_separable(12, 2, margin=0.2, random_state=8)
    steps = linlib.perceptron_trace(X, y)
    w, b = np.zeros(2), 0.0
    for s in steps:
        assert s.activation == pytest.approx(float(w @ s.x + b))
        assert s.updated == (s.y * s.activation <= 0)
        if s.updated:
            w, b = w + s.y * s.x, b + s.y
        np.testing.assert_array_equal(s.w, w)
        assert s.b == b


def sgd_average(X, y, max_iter):
    """SGDClassifier(average=True) averages the weights after each of the T·N steps, the
    normalisation Perceptron(average=True) documents."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return SGDClassifier(
            loss="perceptron",
            penalty=None,
            learning_rate="constant",
            eta0=1.0,
            average=True,
            shuffle=False,
            tol=None,
            max_iter=max_iter,
        ).fit(X, y)


@pytest.mark.slow
def test_averaged_perceptron_equals_sgd_average():
    for X, y, T in random_sets(40, seed=9, integer=False):
        ours = linlib.Perceptron(max_epochs=T, average=True).fit(X, y)
        ref = sgd_average(X, y, ours.n_iter_)
        np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-9, atol=1e-9)


def test_averaged_perceptron_by_hand():
    # Two points, one epoch each... seed order: x1=(1,), y=+1; x2=(-1,), y=-1.
    # Step 1: a=0 -> update, w=1, b=1. Step 2: a=-1+1=0 -> update, w=2, b=0.
    # Epoch 2: a1 = 2 > 0, a2 = -2 < 0: no update (w=2, b=0 after steps 3 and 4).
    # Mean over the 4 steps: w = (1+2+2+2)/4 = 7/4, b = (1+0+0+0)/4 = 1/4.
    model = linlib.Perceptron(average=True).fit([[1.0], [-1.0]], [1, -1])
    assert model.n_iter_ == 2
    np.testing.assert_allclose(model.coef_, [[7 / 4]])
    np.testing.assert_allclose(model.intercept_, [1 / 4])


def sk_shuffled_epochs(X, y, n_epochs, seed):
    """sklearn's perceptron, one epoch per partial_fit, each on the permutation that
    RandomState(seed).permutation draws for that epoch (the documented shuffle)."""
    rng = np.random.RandomState(seed)
    model = SkPerceptron(shuffle=False)
    for _ in range(n_epochs):
        order = rng.permutation(len(y))
        model.partial_fit(X[order], y[order], classes=[-1, 1])
    return model


def test_shuffle_is_seeded_and_reproducible():
    X, y = linlib.make_separable(300, 4, margin=0.05, random_state=10)
    a = linlib.Perceptron(shuffle=True, random_state=3).fit(X, y)
    b = linlib.Perceptron(shuffle=True, random_state=3).fit(X, y)
    c = linlib.Perceptron(shuffle=True).fit(X, y)
    d = linlib.Perceptron(shuffle=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(c.coef_, d.coef_)  # None means seed 0
    for model, seed in ((a, 3), (c, 0)):
        ref = sk_shuffled_epochs(X, y, model.n_iter_, seed)
        np.testing.assert_array_equal(model.coef_, ref.coef_)
        np.testing.assert_array_equal(model.intercept_, ref.intercept_)
    plain = linlib.Perceptron().fit(X, y)
    assert not np.array_equal(a.coef_, plain.coef_)
    assert a.converged_ and np.all(y * a.decision_function(X) > 0)
    # Averaging follows the visiting order too: against sklearn's averaged SGD on the
    # same permutations.
    avg = linlib.Perceptron(shuffle=True, random_state=3, average=True).fit(X, y)
    rng = np.random.RandomState(3)
    orders = np.concatenate([rng.permutation(len(y)) for _ in range(avg.n_iter_)])
    ref = sgd_average(X[orders], y[orders], 1)
    np.testing.assert_allclose(avg.coef_, ref.coef_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(avg.intercept_, ref.intercept_, rtol=1e-9, atol=1e-9)


def voted_reference(X, y, epochs):
    """Freund & Schapire's listing, transcribed literally (one Python step per example)."""
    vectors, counts = [(np.zeros(X.shape[1]), 0.0)], [0]
    for _ in range(epochs):
        for x, t in zip(X, y, strict=True):
            w, b = vectors[-1]
            if t * (w @ x + b) <= 0:
                vectors.append((w + t * x, b + t))
                counts.append(1)
            else:
                counts[-1] += 1
    return vectors, counts


def test_voted_perceptron_counts_follow_freund_schapire():
    rng = np.random.default_rng(11)
    X = rng.integers(-3, 4, size=(25, 3)).astype(float)
    y = np.where(rng.random(25) < 0.5, -1.0, 1.0)
    model = linlib.VotedPerceptron(max_epochs=4).fit(X, y)
    vectors, counts = voted_reference(X, y, model.n_iter_)
    np.testing.assert_array_equal(model.counts_, counts)
    np.testing.assert_array_equal(model.weights_, [v[0] for v in vectors])
    np.testing.assert_array_equal(model.intercepts_, [v[1] for v in vectors])
    assert model.counts_.sum() == model.n_iter_ * X.shape[0]
    assert model.counts_[0] == 0 and np.all(model.counts_[1:] >= 1)
    votes = sum(
        c * np.where(X @ w + b > 0, 1, -1) for (w, b), c in zip(vectors, counts, strict=True)
    )
    np.testing.assert_array_equal(model.decision_function(X), votes)
    np.testing.assert_array_equal(model.predict(X), np.where(votes > 0, 1.0, -1.0))


def test_voted_perceptron_on_separable_data_classifies_training_set():
    X, y = linlib.make_separable(150, 3, margin=0.1, random_state=12)
    model = linlib.VotedPerceptron().fit(X, y)
    assert model.converged_
    assert model.score(X, y) == 1.0


def test_batch_perceptron_first_step_and_convergence():
    X = np.array([[2.0, 1.0], [0.0, 3.0], [-1.0, -1.0]])
    y = np.array([1, 1, -1])
    # From w = 0 every example is a mistake: delta = mean of y_i [x_i, 1].
    one = linlib.BatchPerceptron(eta=0.5, max_epochs=1).fit(X, y)
    expected = 0.5 * np.array([3.0, 5.0, 1.0]) / 3
    np.testing.assert_allclose(one.coef_[0], expected[:2])
    np.testing.assert_allclose(one.intercept_[0], expected[2])
    full = linlib.BatchPerceptron().fit(X, y)
    assert full.converged_ and full.score(X, y) == 1.0
    X2, y2 = linlib.make_separable(200, 2, margin=0.1, random_state=13)
    model = linlib.BatchPerceptron(max_epochs=5000).fit(X2, y2)
    assert model.converged_ and model.score(X2, y2) == 1.0


def seed_002_batch(X, y, eta, eps, max_epochs):
    """Seed 002's batch perceptron listing, transcribed literally (one Python step per
    example), with the bias as an extra input of 1."""
    Z = [[*x.tolist(), 1.0] for x in X]
    w = [0.0] * len(Z[0])
    for epoch in range(1, max_epochs + 1):  # noqa: B007 (returned)
        delta = [0.0] * len(w)
        for x, t in zip(Z, y, strict=True):
            u = sum(w_j * x_j for w_j, x_j in zip(w, x, strict=True))
            if t * u <= 0:
                delta = [d + t * x_j for d, x_j in zip(delta, x, strict=True)]
        delta = [d / len(Z) for d in delta]
        w = [w_j + eta * d for w_j, d in zip(w, delta, strict=True)]
        if sum(d * d for d in delta) ** 0.5 < eps:  # do ... until |delta| < eps
            break
    return np.array(w), epoch


@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0])
def test_batch_perceptron_follows_seed_002_listing(eps):
    # Small integers, N a power of two and eta = 0.5: every quantity is a short binary
    # fraction, so both computations are exact and agree to the last bit.
    rng = np.random.default_rng(15)
    for _ in range(40):
        n = int(rng.choice([4, 8, 16]))
        X = rng.integers(-3, 4, size=(n, int(rng.integers(1, 4))))
        y = rng.choice([-1, 1], size=n)
        y[:2] = [-1, 1]
        ours = linlib.BatchPerceptron(eta=0.5, tol=eps, max_epochs=12).fit(X, y)
        w, epochs = seed_002_batch(X, y, 0.5, eps, 12)
        np.testing.assert_array_equal(ours.coef_[0], w[:-1])
        assert ours.intercept_[0] == w[-1]
        assert ours.n_iter_ == epochs
        assert ours.converged_ == bool(np.all(y * (X @ w[:-1] + w[-1]) > 0))


def test_batch_perceptron_eta_only_scales():
    X, y = linlib.make_separable(60, 3, margin=0.1, random_state=14)
    a = linlib.BatchPerceptron(eta=1.0, max_epochs=30).fit(X, y)
    b = linlib.BatchPerceptron(eta=0.25, max_epochs=30).fit(X, y)
    np.testing.assert_allclose(b.coef_, 0.25 * a.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_xor_cycles_and_separable_data_does_not():
    X, y = linlib.make_xor()
    cycle = linlib.perceptron_cycle(X, y)
    assert cycle is not None and cycle.period >= 1 and cycle.updates_per_cycle > 0
    # scikit-learn's textbook loop after each number of epochs in the cycle: the states
    # the cycle reports, and after one more period the first of them again.
    for k in range(cycle.period + 1):
        epochs = cycle.start + k
        ref = sk_perceptron(X, y, epochs) if epochs else None
        w, b = (ref.coef_[0], ref.intercept_[0]) if ref else (np.zeros(2), 0.0)
        np.testing.assert_array_equal(w, cycle.weights[k % cycle.period])
        assert b == cycle.intercepts[k % cycle.period]
    # Updates per period, counted with the textbook loop written out (integer data: exact).
    w, b, updates = np.zeros(2), 0, []
    for _ in range(cycle.start + cycle.period):
        updates.append(0)
        for x, t in zip(X, y, strict=True):
            if t * (w @ x + b) <= 0:
                w, b, updates[-1] = w + t * x, b + t, updates[-1] + 1
    assert sum(updates[cycle.start :]) == cycle.updates_per_cycle
    assert not linlib.Perceptron(max_epochs=cycle.start + cycle.period).fit(X, y).converged_
    for name in ("and", "or", "nand"):
        assert linlib.perceptron_cycle(*linlib.boolean_table(name)) is None


def test_not_separable_hits_the_cap():
    X, y = linlib.make_xor()
    model = linlib.Perceptron(max_epochs=17).fit(X, y)
    assert model.n_iter_ == 17 and not model.converged_
    np.testing.assert_array_equal(model.coef_, sk_perceptron(X, y, 17).coef_)


@settings(max_examples=40)
@given(
    n=st.integers(2, 40),
    d=st.integers(1, 5),
    margin=st.floats(0.05, 0.5),
    seed=st.integers(0, 10_000),
    offset=st.floats(-2.0, 2.0),
)
@pytest.mark.slow
def test_updates_never_exceed_novikoff_bound(n, d, margin, seed, offset):
    X, y, (u, c) = linlib.make_separable(
        n, d, margin=margin, radius=1.0, random_state=seed, return_separator=True
    )
    X = X + offset  # an off-centre set: the bias matters
    c = c - offset * u.sum()
    model = linlib.Perceptron(max_epochs=100_000).fit(X, y)
    assert model.converged_
    bound = linlib.novikoff_bound(X, y, u, c)
    assert model.n_updates_ <= bound


@pytest.mark.slow
def test_perceptron_equals_sklearn_when_activations_overflow():
    # Products of ±1e300 overflow to ±inf (or nan) in any order; every such decision is
    # left to the left-to-right arithmetic, so the results still match bit for bit.
    rng = np.random.default_rng(31)
    values = [-1e300, 1e300, -1e155, 1e155, -2.0, 1.0, 0.0, 3e-300]
    for _ in range(60):
        n, d = int(rng.integers(3, 20)), int(rng.integers(1, 5))
        X = rng.choice(values, size=(n, d))
        y = rng.integers(0, 2, size=n)
        y[:2] = [0, 1]
        T = int(rng.integers(1, 8))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ours = linlib.Perceptron(max_epochs=T).fit(X, y)
            ref = sk_perceptron(X, y, T)
        np.testing.assert_array_equal(ours.coef_, ref.coef_)
        np.testing.assert_array_equal(ours.intercept_, ref.intercept_)
