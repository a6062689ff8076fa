"""linlib.svm: exact hard margins, comparison with scikit-learn's SVC, soft margin."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.svm import SVC

import linlib


def svc_geometric_margin(svc, X, y_pm):
    """The true geometric margin of SVC's hyperplane on the data (not 1/‖w‖)."""
    return float(np.min(y_pm * svc.decision_function(X)) / np.linalg.norm(svc.coef_))


@pytest.mark.parametrize(
    ("n", "d", "margin", "seed"),
    [(50, 2, 0.1, 0), (200, 3, 0.05, 1), (400, 10, 0.1, 2), (30, 1, 0.2, 3), (300, 20, 0.01, 4)],
)
def test_hard_margin_is_exact_and_at_least_svc(n, d, margin, seed):
    X, y = linlib.make_separable(n, d, margin=margin, random_state=seed)
    svm = linlib.HardMarginSVM().fit(X, y)
    functional = y * svm.decision_function(X)
    assert abs(functional.min() - 1.0) <= 1e-8
    assert svm.polished_
    assert svm.margin_ == pytest.approx(1 / np.linalg.norm(svm.coef_))
    assert svm.margin_ >= margin  # make_separable guarantees at least this margin
    svc = SVC(kernel="linear", C=1e6).fit(X, y)
    assert svm.margin_ >= svc_geometric_margin(svc, X, y)
    # Both approximate the same hyperplane (libsvm to about 1e-3).
    w_ours = np.append(svm.coef_[0], svm.intercept_) * svm.margin_
    w_svc = np.append(svc.coef_[0], svc.intercept_) / np.linalg.norm(svc.coef_)
    np.testing.assert_allclose(w_ours, w_svc, atol=2e-2)


def test_hard_margin_two_points_closed_form():
    # Points (0, 0) and (2, 0): the bisector x = 1, w = (1, 0), b = -1, margin 1.
    svm = linlib.HardMarginSVM().fit([[0, 0], [2, 0]], [-1, 1])
    np.testing.assert_allclose(svm.coef_, [[1.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(svm.intercept_, [-1.0], atol=1e-12)
    assert svm.margin_ == pytest.approx(1.0)
    np.testing.assert_array_equal(svm.on_margin_, [0, 1])
    np.testing.assert_array_equal(svm.support_, [0, 1])


def test_support_points_and_multipliers():
    # Three points on each margin line y = ±1 (more than needed): all are on the margin.
    X = np.array([[0, 1], [1, 1], [2, 1], [0, -1], [1, -1], [2, -1], [5, 4], [3, -6]])
    y = np.array([1, 1, 1, -1, -1, -1, 1, -1])
    svm = linlib.HardMarginSVM().fit(X, y)
    np.testing.assert_allclose(svm.coef_, [[0.0, 1.0]], atol=1e-9)
    np.testing.assert_array_equal(svm.on_margin_, [0, 1, 2, 3, 4, 5])
    alpha = svm.alpha_
    assert np.all(alpha >= 0)
    # KKT: w = Σ α_i y_i x_i and Σ α_i y_i = 0; far points have α = 0.
    np.testing.assert_allclose((alpha * y) @ X, svm.coef_[0], atol=1e-9)
    assert (alpha * y).sum() == pytest.approx(0.0, abs=1e-9)
    assert alpha[6] == 0 and alpha[7] == 0
    # support_ has scikit-learn's meaning (α > 0): on the margin, but not necessarily all
    # of the points on the margin.
    np.testing.assert_array_equal(svm.support_, np.flatnonzero(alpha > 0))
    assert set(svm.support_) <= set(svm.on_margin_)
    assert 2 <= len(svm.support_) < len(svm.on_margin_)
    # scikit-learn's layout: coef_ = dual_coef_ @ support_vectors_.
    np.testing.assert_array_equal(svm.support_vectors_, X[svm.support_])
    np.testing.assert_allclose(svm.dual_coef_ @ svm.support_vectors_, svm.coef_, atol=1e-9)


@pytest.mark.parametrize(("n", "d", "seed"), [(40, 2, 6), (50, 3, 603), (100, 5, 11)])
def test_support_has_scikit_learns_meaning(n, d, seed):
    # Generic data: the points on the margin are exactly those with α > 0, and libsvm
    # (with a large C) finds the same support vectors and the same y·α up to its tolerance.
    X, y = linlib.make_separable(n, d, margin=0.1, random_state=seed)
    svm = linlib.HardMarginSVM().fit(X, y)
    svc = SVC(kernel="linear", C=1e6, tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(svm.support_, np.sort(svc.support_))
    np.testing.assert_array_equal(svm.support_, svm.on_margin_)
    order = np.argsort(svc.support_)
    np.testing.assert_allclose(svm.dual_coef_, svc.dual_coef_[:, order], rtol=2e-2)


def test_hard_margin_on_iris_setosa_versicolor():
    iris = load_iris()
    keep = iris.target < 2
    X, y = iris.data[keep], iris.target[keep]
    svm = linlib.HardMarginSVM().fit(X, y)
    y_pm = np.where(y == 1, 1, -1)
    assert abs((y_pm * svm.decision_function(X)).min() - 1) <= 1e-8
    svc = SVC(kernel="linear", C=1e6).fit(X, y)
    assert svm.margin_ >= svc_geometric_margin(svc, X, y_pm)
    np.testing.assert_array_equal(svm.predict(X), y)


def test_hard_margin_rejects_non_separable_data():
    with pytest.raises(ValueError, match="not linearly separable"):
        linlib.HardMarginSVM().fit(*linlib.make_xor())
    with pytest.raises(ValueError, match="not linearly separable"):
        linlib.HardMarginSVM().fit([[0, 0], [0, 0], [1, 1]], [0, 1, 1])


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_soft_margin_matches_svc(C):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(80) > 0, 1, -1)
    ours = linlib.SoftMarginSVM(C=C).fit(X, y)
    ref = SVC(kernel="linear", C=C, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=2e-3 * max(1.0, C))
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=2e-3 * max(1.0, C))

    # Objective value: ours is optimal, so not larger than SVC's (up to solver tolerance).
    def objective(w, b):
        return 0.5 * w @ w + C * np.maximum(0, 1 - y * (X @ w + b)).sum()

    assert objective(ours.coef_[0], ours.intercept_[0]) <= objective(
        ref.coef_[0], ref.intercept_[0]
    ) + 1e-6 * max(1.0, C)
    np.testing.assert_allclose(
        ours.slack_, np.maximum(0, 1 - y * ours.decision_function(X)), atol=1e-12
    )
    # The multipliers: the same support vectors as libsvm, 0 ≤ α ≤ C, w = Σ α_i y_i x_i.
    np.testing.assert_array_equal(ours.support_, np.sort(ref.support_))
    assert np.all((ours.alpha_ >= 0) & (ours.alpha_ <= C))
    np.testing.assert_allclose(ours.dual_coef_ @ ours.support_vectors_, ours.coef_, atol=1e-5 * C)
    np.testing.assert_allclose(
        ours.alpha_, np.abs(np.bincount(ref.support_, ref.dual_coef_[0], 80)), atol=1e-3 * C
    )


def test_soft_margin_with_large_C_approaches_hard_margin():
    X, y = linlib.make_separable(60, 2, margin=0.1, random_state=6)
    hard = linlib.HardMarginSVM().fit(X, y)
    soft = linlib.SoftMarginSVM(C=1e4).fit(X, y)
    np.testing.assert_allclose(soft.coef_, hard.coef_, rtol=1e-4, atol=1e-4)
    assert np.all(soft.slack_ < 1e-5)


def test_svm_parameters_are_validated():
    X, y = [[0, 0], [1, 1]], [0, 1]
    with pytest.raises(ValueError, match="C"):
        linlib.SoftMarginSVM(C=0).fit(X, y)
    with pytest.raises(ValueError, match="tol"):
        linlib.HardMarginSVM(tol=-1).fit(X, y)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("offset", [0.0, 1000.0])
def test_hard_margin_exact_whatever_the_units_and_position(scale, offset):
    X, y = linlib.make_separable(300, 5, margin=0.05, random_state=1)
    reference = linlib.HardMarginSVM().fit(X, y)
    X_moved = (X + offset) * scale
    svm = linlib.HardMarginSVM().fit(X_moved, y)
    assert svm.polished_
    assert abs((y * svm.decision_function(X_moved)).min() - 1.0) <= 1e-8
    # Moving the data changes nothing; scaling it scales the margin.
    assert svm.margin_ == pytest.approx(scale * reference.margin_, rel=1e-8)
    np.testing.assert_array_equal(svm.on_margin_, reference.on_margin_)
    np.testing.assert_array_equal(svm.support_, reference.support_)
    np.testing.assert_allclose(
        (svm.alpha_ * y) @ X_moved, svm.coef_[0], rtol=1e-8, atol=1e-10 / scale
    )


@pytest.mark.parametrize("scale", [1e-4, 1e4])
def test_soft_margin_whatever_the_units(scale):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 2))
    y = np.where(X[:, 0] - X[:, 1] + 0.4 * rng.standard_normal(60) > 0, 1, -1)
    base = linlib.SoftMarginSVM(C=1.0).fit(X, y)
    # Scaling x by s and C by 1/s² gives the same classifier with w scaled by 1/s.
    moved = linlib.SoftMarginSVM(C=1.0 / scale**2).fit(X * scale + 5 * scale, y)
    np.testing.assert_allclose(moved.coef_ * scale, base.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(moved.slack_, base.slack_, atol=1e-4)


def _brute_canonical(X, y, w, b):
    smallest = min(
        t * (sum(a * c for a, c in zip(x, w, strict=True)) + b) for x, t in zip(X, y, strict=True)
    )
    return [c / smallest for c in w], b / smallest


def test_canonical_form_closed_form_and_rejections():
    X, y = [[2, 0], [0, 0]], [1, -1]
    w_c, b_c = linlib.canonical_form(X, y, [4, 0], -2)  # functional margins 6 and 2
    np.testing.assert_array_equal(w_c, [2.0, 0.0])
    assert b_c == -1.0 and isinstance(b_c, float)
    # Integers that do not divide evenly: margins 2 and 4, so w_c = 1.5, b_c = -0.5.
    w_c, b_c = linlib.canonical_form([[1], [-1]], [1, -1], [3], -1)
    assert w_c.dtype == np.float64
    np.testing.assert_array_equal(w_c, [1.5])
    assert b_c == -0.5
    X, y, (u, c) = linlib.make_separable(30, 3, margin=0.1, random_state=601, return_separator=True)
    w = 7.0 * u
    w_before = w.copy()
    w_c, b_c = linlib.canonical_form(X, y, w, 7.0 * c)
    np.testing.assert_array_equal(w, w_before)
    expected_w, expected_b = _brute_canonical(X.tolist(), y.tolist(), w.tolist(), 7.0 * c)
    np.testing.assert_allclose(w_c, expected_w, rtol=1e-12)
    assert b_c == pytest.approx(expected_b, rel=1e-12)
    assert linlib.functional_margin(X, y, w_c, b_c).min() == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(ValueError, match="separate"):
        linlib.canonical_form([[1, 1], [3, 0]], [1, -1], [1, -1], 0)  # a point on the plane
    with pytest.raises(ValueError, match="separate"):
        linlib.canonical_form([[1.0, 0.0], [-1.0, 0.0]], [-1, 1], [1.0, 0.0], 0.0)


@pytest.mark.parametrize("d", [1, 2, 4])
def test_two_point_svm_is_the_qp_solution(d):
    rng = np.random.default_rng(40 + d)
    x_pos, x_neg = rng.normal(size=d), rng.normal(size=d)
    w, b = linlib.two_point_svm(x_pos, x_neg)
    svc = SVC(kernel="linear", C=1e8, tol=1e-10).fit(np.array([x_pos, x_neg]), [1, -1])
    np.testing.assert_allclose(w, svc.coef_[0], rtol=1e-4, atol=1e-6)
    assert b == pytest.approx(svc.intercept_[0], rel=1e-4, abs=1e-6)
    assert 1 / np.linalg.norm(w) == pytest.approx(np.linalg.norm(x_pos - x_neg) / 2)
    assert w @ x_pos + b == pytest.approx(1.0) and w @ x_neg + b == pytest.approx(-1.0)


def test_two_point_svm_integers_and_equal_points():
    w, b = linlib.two_point_svm([1, 1], [-1, -1])
    np.testing.assert_array_equal(w, [0.5, 0.5])
    assert b == 0.0
    w, b = linlib.two_point_svm([3], [0])
    np.testing.assert_allclose(w, [2 / 3])
    assert b == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="equal"):
        linlib.two_point_svm([1, 2], [1, 2])


def test_on_margin_is_geometric_and_uses_its_tolerance():
    X, y = linlib.make_separable(50, 3, margin=0.15, random_state=603)
    svm = linlib.HardMarginSVM().fit(X, y)
    expected = np.isin(np.arange(len(y)), svm.on_margin_)
    for scale in (1e-3, 1.0, 1e3):
        got = linlib.on_margin(X, y, scale * svm.coef_[0], scale * svm.intercept_[0])
        assert got.dtype == bool
        np.testing.assert_array_equal(got, expected)
    # Distances 0, 0.25, 0.5, 1 above the closest point: the tolerance decides.
    X1, y1 = [[1.0], [1.25], [1.5], [2.0], [-1.0]], [1, 1, 1, 1, -1]
    for tol, count in [(0.0, 2), (0.3, 3), (0.5, 4), (2.0, 5)]:
        assert linlib.on_margin(X1, y1, [1e-4], 0.0, tol=tol).sum() == count
    with pytest.raises(ValueError, match="w = 0"):
        linlib.on_margin(X1, y1, [0.0], 1.0)


def test_hinge_slacks_closed_form():
    got = linlib.hinge_slacks([[0, 2], [0, 1.5], [0, 0.5], [0, -1]], [1, 1, 1, 1], [0, 1], -1)
    np.testing.assert_array_equal(got, [0.0, 0.5, 1.5, 3.0])
    np.testing.assert_array_equal(linlib.hinge_slacks([[1, 2], [3, 4]], [1, -1], [0, 0], 0), [1, 1])
