"""linlib's notebook-07 helpers (kernels, losses, the dual, several classes) against
independent references: scikit-learn, closed forms, and the perceptron of notebook 02."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.metrics import pairwise
from sklearn.preprocessing import PolynomialFeatures
from sklearn.svm import SVC

import linlib


def _data(seed: int, n: int = 30, flip: int = 0):
    X, y = linlib.make_separable(n, margin=0.1, center=(1.0, 0.5), random_state=seed)
    y = y.copy()
    y[:flip] *= -1
    return X, y


# --------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("seed", range(3))
def test_kernels_equal_sklearns_pairwise_kernels(seed):
    rng = np.random.default_rng(seed)
    X, Z = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(linlib.linear_kernel(X, Z), pairwise.linear_kernel(X, Z))
    np.testing.assert_allclose(
        linlib.polynomial_kernel(X, Z, degree=3, gamma=0.5, coef0=2.0),
        pairwise.polynomial_kernel(X, Z, degree=3, gamma=0.5, coef0=2.0),
    )
    np.testing.assert_allclose(
        linlib.rbf_kernel(X, Z, gamma=0.7), pairwise.rbf_kernel(X, Z, gamma=0.7), atol=1e-15
    )
    np.testing.assert_allclose(linlib.rbf_kernel(X), pairwise.rbf_kernel(X, gamma=1.0))


@pytest.mark.parametrize(("gamma", "coef0"), [(1.0, 1.0), (0.5, 2.0), (2.0, 0.0)])
def test_quadratic_feature_map_is_the_polynomial_kernels(gamma, coef0):
    X = np.random.default_rng(1).normal(size=(6, 3))
    F = linlib.quadratic_feature_map(X, gamma=gamma, coef0=coef0)
    assert F.shape == (6, 1 + 2 * 3 + 3)
    np.testing.assert_allclose(
        F @ F.T, pairwise.polynomial_kernel(X, degree=2, gamma=gamma, coef0=coef0)
    )
    # the same span as scikit-learn's degree-2 monomials
    P = PolynomialFeatures(degree=2).fit_transform(X)
    assert np.linalg.matrix_rank(np.column_stack([F, P])) == np.linalg.matrix_rank(P)


# --------------------------------------------------------------------------- kernel perceptron


def _sklearn_perceptron_counts(X, y, epochs):
    """Updates per example of scikit-learn's textbook perceptron, epoch by epoch."""
    counts = np.zeros(len(y), dtype=int)
    w, b = np.zeros(X.shape[1]), 0.0
    for k in range(1, epochs + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = SkPerceptron(shuffle=False, tol=None, max_iter=k).fit(X, y)
        # replay epoch k from the state after k-1 epochs to see which examples updated
        for i in range(len(y)):
            if y[i] * (X[i] @ w + b) <= 0:
                counts[i] += 1
                w, b = w + y[i] * X[i], b + y[i]
        np.testing.assert_allclose(w, model.coef_[0])
        assert b == pytest.approx(model.intercept_[0])
    return counts


@pytest.mark.parametrize("seed", range(4))
def test_linear_kernel_perceptron_makes_the_perceptrons_mistakes(seed):
    X, y = _data(seed, flip=2 * (seed % 2))
    counts = linlib.kernel_perceptron(X, y, linlib.linear_kernel, max_epochs=8)
    assert counts.dtype.kind == "i"
    np.testing.assert_array_equal(counts, _sklearn_perceptron_counts(X, y, 8))
    model = linlib.KernelPerceptron(max_epochs=8).fit(X, y)
    perceptron = linlib.Perceptron(max_epochs=8).fit(X, y)
    np.testing.assert_array_equal(model.counts_, counts)
    assert model.n_updates_ == perceptron.n_updates_
    np.testing.assert_allclose(model.dual_coef_ @ model.support_vectors_, perceptron.coef_)
    assert model.intercept_[0] == perceptron.intercept_[0]
    np.testing.assert_allclose(
        model.decision_function(X), perceptron.decision_function(X), atol=1e-9
    )


@pytest.mark.parametrize("seed", range(3))
def test_polynomial_kernel_perceptron_is_the_perceptron_on_the_feature_map(seed):
    rng = np.random.default_rng(40 + seed)
    # random reals: no activation is exactly 0, where √2 in the feature map would round
    X = rng.normal(size=(20, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 0] > 0.1, 1, -1)
    kernel = linlib.polynomial_kernel  # degree 2, gamma 1, coef0 1
    counts = linlib.kernel_perceptron(X, y, kernel, max_epochs=20)
    F = linlib.quadratic_feature_map(X)
    np.testing.assert_array_equal(counts, _sklearn_perceptron_counts(F, y, 20))


def test_kernel_perceptron_separates_xor_like_the_explicit_map_of_05():
    X, y = linlib.make_xor()
    counts = linlib.kernel_perceptron(X, y, linlib.polynomial_kernel)
    explicit = np.column_stack([X, X[:, 0] * X[:, 1]])  # notebook 05's map
    np.testing.assert_array_equal(counts, _sklearn_perceptron_counts(explicit, y, 3))
    model = linlib.KernelPerceptron(kernel="poly").fit(X, y)
    assert model.converged_ and (model.predict(X) == y).all()


def test_rbf_kernel_perceptron_fits_circles_and_agrees_with_svc():
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(200, 2))
    radius = np.linalg.norm(X, axis=1)
    keep = np.abs(radius - 0.6) > 0.1
    X, y = X[keep], np.where(radius[keep] < 0.6, 1, -1)
    assert not linlib.is_linearly_separable(X, y)
    model = linlib.KernelPerceptron(kernel="rbf", gamma=5.0).fit(X, y)
    assert model.converged_ and (model.predict(X) == y).all()
    svc = SVC(kernel="rbf", gamma=5.0, C=1e3).fit(X, y)
    fresh = rng.uniform(-1, 1, size=(500, 2))
    truth = np.where(np.linalg.norm(fresh, axis=1) < 0.6, 1, -1)
    assert np.mean(model.predict(fresh) == truth) > 0.9
    assert np.mean(model.predict(fresh) == svc.predict(fresh)) > 0.9


def test_kernel_perceptron_tie_is_a_mistake_and_input_unchanged():
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, -1])
    X_before = X.copy()
    counts = linlib.kernel_perceptron(X, y, linlib.linear_kernel)
    # a = 0 at the start: an update; then x_2 has a = 1·(x_1·x_2 + 1) = 0: a tie again
    np.testing.assert_array_equal(counts, [1, 1])
    np.testing.assert_array_equal(X, X_before)


# --------------------------------------------------------------------------- losses


def test_losses_closed_forms():
    z = np.array([-2.0, 0.0, 0.5, 1.0, 3.0])
    np.testing.assert_array_equal(linlib.zero_one_loss(z), [1, 1, 0, 0, 0])
    np.testing.assert_array_equal(linlib.perceptron_loss(z), [2, 0, 0, 0, 0])
    np.testing.assert_array_equal(linlib.hinge_loss(z), [3, 1, 0.5, 0, 0])
    np.testing.assert_allclose(linlib.logistic_loss(z), np.log1p(np.exp(-z)))
    np.testing.assert_allclose(linlib.logistic_loss(0.0, base=2), 1.0)
    assert (linlib.logistic_loss(z, base=2) >= linlib.zero_one_loss(z)).all()


@pytest.mark.parametrize("seed", range(3))
def test_sgd_on_the_perceptron_loss_is_the_perceptron(seed):
    X, y = _data(seed, flip=seed)
    w, b = np.zeros(2), 0.0
    for _ in range(3):
        for x_i, y_i in zip(X, y, strict=True):
            grad_w, grad_b = linlib.perceptron_loss_grad(x_i, y_i, w, b)
            w, b = w - grad_w, b - grad_b
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk = SkPerceptron(shuffle=False, tol=None, max_iter=3).fit(X, y)
    np.testing.assert_allclose(w, sk.coef_[0])
    assert b == pytest.approx(sk.intercept_[0])


def test_perceptron_loss_grad_tie_and_no_aliasing():
    w = np.array([0, 0])
    grad_w, grad_b = linlib.perceptron_loss_grad([0.5, 1.5], -1, w, 0)
    np.testing.assert_array_equal(grad_w, [0.5, 1.5])
    assert grad_b == 1.0
    grad_w, grad_b = linlib.perceptron_loss_grad([1.0, 0.0], 1, [1.0, 0.0], 0.0)
    np.testing.assert_array_equal(grad_w, [0.0, 0.0])
    assert grad_b == 0.0


def test_pegasos_step_closed_form():
    # y·a = 1 exactly: the hinge's step is taken (scikit-learn's z <= 1)
    w, b = linlib.pegasos_step([1, 0], 0, [1, 0], 1, lam=0.5, eta=0.2)
    np.testing.assert_allclose(w, [0.9 + 0.2, 0.0])
    assert b == pytest.approx(0.2)
    w0 = np.array([2.0, 0.0])
    w, b = linlib.pegasos_step(w0, 1.0, [1.0, 0.0], 1, lam=0.5, eta=0.2)
    np.testing.assert_allclose(w, [1.8, 0.0])
    assert b == 1.0
    np.testing.assert_array_equal(w0, [2.0, 0.0])


@pytest.mark.parametrize("lam", [0.1, 0.02])
def test_pegasos_reaches_the_soft_margin_optimum(lam):
    X, y = _data(5, n=60, flip=5)
    C = 1.0 / (lam * len(y))
    svm = linlib.SoftMarginSVM(C=C).fit(X, y)
    best = linlib.soft_margin_objective(X, y, svm.coef_[0], svm.intercept_[0], C)
    svc = SVC(kernel="linear", C=C, tol=1e-6).fit(X, y)
    assert linlib.soft_margin_objective(X, y, svc.coef_[0], svc.intercept_[0], C) == (
        pytest.approx(best, rel=1e-5)
    )
    model = linlib.PegasosSVM(lam=lam, n_epochs=100).fit(X, y)
    got = linlib.soft_margin_objective(X, y, model.coef_[0], model.intercept_[0], C)
    assert best <= got * (1 + 1e-9) and got <= best * 1.005
    assert model.objective_ == pytest.approx(lam * got)


# --------------------------------------------------------------------------- the dual


@pytest.mark.parametrize("seed", range(4))
def test_weights_from_dual_against_hard_margin_svm_and_sklearn(seed):
    X, y = _data(seed)
    svm = linlib.HardMarginSVM().fit(X, y)
    w, b = linlib.weights_from_dual(X, y, svm.alpha_)
    np.testing.assert_allclose(w, svm.coef_[0], atol=1e-7)
    assert b == pytest.approx(svm.intercept_[0], abs=1e-7)
    # strong duality: the dual objective equals ½‖w‖²
    assert linlib.dual_objective(X, y, svm.alpha_) == pytest.approx(0.5 * w @ w, rel=1e-7)
    sk = SVC(kernel="linear", C=1e6, tol=1e-6).fit(X, y)
    alpha = np.zeros(len(y))
    alpha[sk.support_] = np.abs(sk.dual_coef_[0])  # dual_coef_ holds y·α
    w_sk, b_sk = linlib.weights_from_dual(X, y, alpha)
    np.testing.assert_allclose(w_sk, sk.coef_[0], atol=1e-9)
    assert b_sk == pytest.approx(sk.intercept_[0], abs=1e-3)


def test_weights_from_dual_ignores_multipliers_below_tol_and_needs_one_above():
    X = np.array([[2.0, 0.0], [0.0, 0.0], [5.0, 3.0]])
    y = np.array([1, -1, 1])
    w, b = linlib.weights_from_dual(X, y, [0.5, 0.5, 1e-12])
    np.testing.assert_allclose(w, [1.0, 0.0], atol=1e-11)
    assert b == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="tol"):
        linlib.weights_from_dual(X, y, [0.0, 0.0, 0.0])


# --------------------------------------------------------------------------- several classes


def test_one_vs_rest_predict_is_sklearns_ovr_perceptron():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sk = SkPerceptron(shuffle=False, tol=None, max_iter=20).fit(X, y)
    got = linlib.one_vs_rest_predict(X, sk.coef_, sk.intercept_, sk.classes_)
    np.testing.assert_array_equal(got, sk.predict(X))
    names = np.array(["setosa", "versicolor", "virginica"])
    np.testing.assert_array_equal(
        linlib.one_vs_rest_predict(X, sk.coef_, sk.intercept_, names), names[sk.predict(X)]
    )
    # ties go to the first class
    tie = linlib.one_vs_rest_predict([[1.0, 1.0]], np.eye(2), [0.0, 0.0], ["a", "b"])
    assert tie.tolist() == ["a"]


def test_multiclass_perceptron_separates_separable_classes():
    centers = np.array([[0.0, 4.0], [4.0, 0.0], [-4.0, -4.0]])
    rng = np.random.default_rng(3)
    X = np.vstack([c + rng.normal(scale=0.7, size=(20, 2)) for c in centers])
    y = np.repeat(["a", "b", "c"], 20)
    model = linlib.MulticlassPerceptron().fit(X, y)
    assert model.converged_ and (model.predict(X) == y).all()
