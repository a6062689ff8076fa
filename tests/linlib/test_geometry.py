"""linlib.geometry against closed forms, hand-computed values and scikit-learn data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import load_breast_cancer, load_iris

import linlib

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def test_augment_appends_ones_and_absorbs_the_bias():
    X = [[1, 2], [3, 4]]
    np.testing.assert_array_equal(linlib.augment(X), [[1, 2, 1], [3, 4, 1]])
    w, b = np.array([0.5, -1.0]), 2.0
    np.testing.assert_allclose(linlib.augment(X) @ np.append(w, b), linlib.activation(X, w, b))


def test_activation_and_signed_distance_closed_forms():
    # Line 3x + 4y - 5 = 0, ‖w‖ = 5: the origin is at distance -1, (3, 4) at (25-5)/5 = 4.
    X = np.array([[0, 0], [3, 4], [1, 0.5]])
    np.testing.assert_allclose(linlib.activation(X, [3, 4], -5), [-5, 20, 0])
    np.testing.assert_allclose(linlib.signed_distance(X, [3, 4], -5), [-1, 4, 0])


def test_signed_distance_is_the_distance_to_the_projection():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal(4), 0.7
    X = rng.standard_normal((10, 4))
    d = linlib.signed_distance(X, w, b)
    # x - d·w/‖w‖ is on the plane, and it is the closest point (the step is along w).
    foot = X - d[:, None] * w / np.linalg.norm(w)
    np.testing.assert_allclose(foot @ w + b, 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(X - foot, axis=1), np.abs(d))


def test_margins_by_hand():
    X = [[1, 1], [2, 0], [-1, -2]]
    y = [1, 1, -1]
    w, b = [1, 1], -1
    np.testing.assert_allclose(linlib.functional_margin(X, y, w, b), [1, 1, 4])
    assert linlib.geometric_margin(X, y, w, b) == pytest.approx(1 / np.sqrt(2))
    # String labels: sorted ("neg" < "pos"), the second is +1.
    labels = ["pos", "pos", "neg"]
    np.testing.assert_allclose(linlib.functional_margin(X, labels, w, b), [1, 1, 4])
    # One class alone is fine for margins when labels are already -1/+1.
    np.testing.assert_allclose(linlib.functional_margin(X[:2], [1, 1], w, b), [1, 1])
    # A misclassified point gives a negative geometric margin.
    assert linlib.geometric_margin(X, [1, -1, -1], w, b) == pytest.approx(-1 / np.sqrt(2))


def test_novikoff_bound_closed_form_and_errors():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, -1])
    # R² = max ‖[x, 1]‖² = 2; γ = 1/‖[1, 0, 0]‖ = 1: bound 2.
    assert linlib.novikoff_bound(X, y, [1, 0], 0) == pytest.approx(2.0)
    # A worse separator gives a larger (still valid) bound: γ = 0.5/‖[1, 0, 0.5]‖.
    gamma = 0.5 / np.sqrt(1.25)
    assert linlib.novikoff_bound(X, y, [1, 0], 0.5) == pytest.approx(2 / gamma**2)
    with pytest.raises(ValueError, match="does not separate"):
        linlib.novikoff_bound(X, y, [-1, 0], 0)
    with pytest.raises(ValueError, match="does not separate"):
        linlib.novikoff_bound(X, y, [0, 1], 0)  # every point on the plane


def test_zero_weight_vector_errors():
    with pytest.raises(ValueError, match="w = 0"):
        linlib.signed_distance([[1, 2]], [0, 0], 1)
    with pytest.raises(ValueError, match="w = 0"):
        linlib.geometric_margin([[1, 2]], [1], [0, 0], 1)
    with pytest.raises(ValueError, match="w = 0"):
        linlib.hyperplane_to_anchor_basis([0, 0], 1)
    # The activation of w = 0 is just b; no error.
    np.testing.assert_array_equal(linlib.activation([[1, 2]], [0, 0], 1), [1])


@settings(max_examples=60)
@given(
    X=hnp.arrays(np.float64, st.tuples(st.integers(1, 8), st.just(3)), elements=finite),
    w=hnp.arrays(np.float64, 3, elements=finite),
    b=finite,
    scale=st.floats(1e-3, 1e3),
)
@pytest.mark.slow
def test_distances_invariant_to_positive_scaling(X, w, b, scale):
    if np.linalg.norm(w) < 1e-3:
        w = w + np.array([1.0, 0, 0])
    y = np.where(np.arange(X.shape[0]) % 2 == 0, 1, -1)
    np.testing.assert_allclose(
        linlib.signed_distance(X, scale * w, scale * b),
        linlib.signed_distance(X, w, b),
        rtol=1e-9,
        atol=1e-9,
    )
    assert linlib.geometric_margin(X, y, scale * w, scale * b) == pytest.approx(
        linlib.geometric_margin(X, y, w, b), rel=1e-9, abs=1e-9
    )
    np.testing.assert_allclose(
        linlib.functional_margin(X, y, scale * w, scale * b),
        scale * linlib.functional_margin(X, y, w, b),
        rtol=1e-9,
        atol=1e-9 * scale,
    )


@settings(max_examples=60)
@given(
    w=hnp.arrays(np.float64, st.integers(1, 6), elements=finite),
    b=finite,
    coeffs=st.lists(finite, min_size=5, max_size=5),
)
@pytest.mark.slow
def test_anchor_basis_round_trip(w, b, coeffs):
    if np.linalg.norm(w) < 1e-3:
        w = w.copy()
        w[0] += 1.0
    d = w.shape[0]
    anchor, basis = linlib.hyperplane_to_anchor_basis(w, b)
    assert basis.shape == (d - 1, d)
    np.testing.assert_allclose(basis @ basis.T, np.eye(d - 1), atol=1e-12)
    np.testing.assert_allclose(basis @ w, 0, atol=1e-12 * np.linalg.norm(w))
    # The anchor and every anchor + Σ α_k h_k lie on the plane.
    point = anchor + np.asarray(coeffs[: d - 1]) @ basis
    assert abs(point @ w + b) <= 1e-9 * (1 + np.linalg.norm(w) * (1 + np.linalg.norm(point)))
    # Anchor = the point of the plane closest to the origin: the minimum-norm solution
    # of w·x = -b, as numpy's least squares finds it.
    closest = np.linalg.lstsq(w.reshape(1, -1), [-b], rcond=None)[0]
    np.testing.assert_allclose(anchor, closest, atol=1e-12 * (1 + np.linalg.norm(closest)))
    w2, b2 = linlib.anchor_basis_to_hyperplane(anchor, basis)
    norm = np.linalg.norm(w)
    if d > 1:
        # The orientation convention brings back the same direction, not just ±.
        np.testing.assert_allclose(w2, w / norm, atol=1e-9)
        assert b2 == pytest.approx(b / norm, abs=1e-9 * (1 + abs(b) / norm))
    else:
        np.testing.assert_allclose(abs(w2), [1.0])
        assert abs(b2) == pytest.approx(abs(b) / norm, abs=1e-9)


def test_anchor_basis_with_non_unit_basis_and_errors():
    # The plane z = 2 in 3-D given by a non-orthonormal basis (seed 003's definition 1).
    # Orientation: det([basis; (0, 0, s)]) = 6s > 0 for s = +1, so w = e_3 and b = -2.
    w, b = linlib.anchor_basis_to_hyperplane([5, -1, 2], [[2, 0, 0], [1, 3, 0]])
    np.testing.assert_allclose(w, [0.0, 0.0, 1.0], atol=1e-15)
    assert b == pytest.approx(-2.0)
    # Swapping two basis rows flips the orientation, hence the normal and the offset.
    w, b = linlib.anchor_basis_to_hyperplane([5, -1, 2], [[1, 3, 0], [2, 0, 0]])
    np.testing.assert_allclose(w, [0.0, 0.0, -1.0], atol=1e-15)
    assert b == pytest.approx(2.0)
    with pytest.raises(ValueError, match="linearly dependent"):
        linlib.anchor_basis_to_hyperplane([0, 0, 0], [[1, 0, 0], [2, 0, 0]])
    with pytest.raises(ValueError, match="shape"):
        linlib.anchor_basis_to_hyperplane([0, 0, 0], [[1, 0, 0]])


def test_is_linearly_separable_on_known_sets():
    iris = load_iris()
    X, t = iris.data, iris.target
    assert linlib.is_linearly_separable(X[t < 2], t[t < 2])  # setosa vs versicolor
    assert not linlib.is_linearly_separable(X[t > 0], t[t > 0])  # versicolor vs virginica
    cancer = load_breast_cancer()
    assert linlib.is_linearly_separable(cancer.data, cancer.target)
    assert not linlib.is_linearly_separable(*linlib.make_xor())
    for name in ("and", "or", "nand", "not"):
        assert linlib.is_linearly_separable(*linlib.boolean_table(name))


def test_is_linearly_separable_duplicate_points_with_opposite_labels():
    X = [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [3.0, 0.0]]
    assert not linlib.is_linearly_separable(X, [-1, 1, -1, 1])
    assert linlib.is_linearly_separable(X, [-1, 1, 1, 1])  # same label: fine
    # One-dimensional input, integer lists.
    assert linlib.is_linearly_separable([[0], [1], [2], [3]], [0, 0, 1, 1])
    assert not linlib.is_linearly_separable([[0], [1], [2], [3]], [0, 1, 0, 1])


def test_is_linearly_separable_tiny_margin():
    # Separable with margin 1e-6 (after scaling): still found by the LP.
    X = np.array([[0.0, 1.0], [1e-6, 1.0], [0.0, -1.0], [1e-6, -1.0]])
    assert linlib.is_linearly_separable(X, [-1, 1, -1, 1])
    X[1, 0] = 0.0  # now duplicates with opposite labels
    assert not linlib.is_linearly_separable(X, [-1, 1, -1, 1])


@settings(max_examples=40)
@given(
    points=hnp.arrays(
        np.int64, st.tuples(st.integers(2, 12), st.integers(1, 3)), elements=st.integers(-3, 3)
    ),
    seed=st.integers(0, 1000),
)
def test_is_linearly_separable_agrees_with_svm_feasibility(points, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=points.shape[0])
    y[:2] = [0, 1]
    separable = linlib.is_linearly_separable(points, y)
    try:
        svm = linlib.HardMarginSVM().fit(points, y)
    except ValueError:
        assert not separable
    else:
        assert separable
        assert np.all(np.where(y == 1, 1, -1) * svm.decision_function(points) >= 1 - 1e-7)
