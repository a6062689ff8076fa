"""Kernels and the kernel (dual) perceptron.

A kernel ``k(X, Z)`` takes two data matrices and returns the matrix of inner products
``k(x_i, z_j)`` of their rows in some feature space, shape ``(len(X), len(Z))``, the
convention of ``sklearn.metrics.pairwise``. The kernel perceptron keeps, for every
training example, the number of updates ``c_i`` made on it: ``w = Σ c_i y_i φ(x_i)`` and
``b = Σ c_i y_i`` (notebook 02's counts), so the activation
``a(x) = Σ_i c_i y_i (k(x_i, x) + 1)`` needs only kernel values.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.distance import cdist
from sklearn.utils._param_validation import Interval, StrOptions

from linlib._base import _BinaryClassifier
from linlib._validation import (
    EPOCHS,
    MAX_EPOCHS,
    NON_NEGATIVE,
    check_X,
    validate_fit_data,
    validate_parameter_constraints,
    validate_predict_data,
)

__all__ = [
    "KernelPerceptron",
    "kernel_perceptron",
    "linear_kernel",
    "polynomial_kernel",
    "quadratic_feature_map",
    "rbf_kernel",
]

Kernel = Callable[[ArrayLike, ArrayLike], NDArray[np.float64]]


def _pair(X: ArrayLike, Z: ArrayLike | None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    X_arr = check_X(X)
    Z_arr = X_arr if Z is None else check_X(Z, n_features=X_arr.shape[1])
    return X_arr, Z_arr


def linear_kernel(X: ArrayLike, Z: ArrayLike | None = None) -> NDArray[np.float64]:
    """The linear kernel ``k(x, z) = x·z`` between the rows of ``X`` and ``Z``.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Z : array-like of shape (n_samples_Z, n_features), optional
        Defaults to ``X``.

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Z)

    Examples
    --------
    >>> import linlib
    >>> linlib.linear_kernel([[1, 2], [3, 4]])
    array([[ 5., 11.],
           [11., 25.]])

    Introduced in 07 — losses, the dual and kernels.
    """
    X_arr, Z_arr = _pair(X, Z)
    return X_arr @ Z_arr.T


def polynomial_kernel(
    X: ArrayLike,
    Z: ArrayLike | None = None,
    degree: int = 2,
    gamma: float = 1.0,
    coef0: float = 1.0,
) -> NDArray[np.float64]:
    """The polynomial kernel ``k(x, z) = (γ x·z + c₀)^degree``.

    Same formula and parameter names as ``sklearn.metrics.pairwise.polynomial_kernel``
    (whose default ``gamma`` is ``1/n_features``; here it is 1).

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Z : array-like of shape (n_samples_Z, n_features), optional
    degree : int, default=2
    gamma : float, default=1.0
    coef0 : float, default=1.0

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Z)

    Examples
    --------
    >>> import linlib
    >>> linlib.polynomial_kernel([[1, 2]], [[3, 4], [0, 0]])
    array([[144.,   1.]])

    Introduced in 07 — losses, the dual and kernels.
    """
    X_arr, Z_arr = _pair(X, Z)
    return (float(gamma) * (X_arr @ Z_arr.T) + float(coef0)) ** int(degree)


def rbf_kernel(X: ArrayLike, Z: ArrayLike | None = None, gamma: float = 1.0) -> NDArray[np.float64]:
    """The Gaussian (RBF) kernel ``k(x, z) = exp(-γ ‖x - z‖²)``.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Z : array-like of shape (n_samples_Z, n_features), optional
    gamma : float, default=1.0

    Returns
    -------
    ndarray of shape (n_samples_X, n_samples_Z)

    Examples
    --------
    >>> import linlib
    >>> linlib.rbf_kernel([[0, 0]], [[0, 0], [1, 0]], gamma=1.0)
    array([[1.        , 0.36787944]])

    Introduced in 07 — losses, the dual and kernels.
    """
    X_arr, Z_arr = _pair(X, Z)
    return np.exp(-float(gamma) * cdist(X_arr, Z_arr, "sqeuclidean"))


def quadratic_feature_map(
    X: ArrayLike, gamma: float = 1.0, coef0: float = 1.0
) -> NDArray[np.float64]:
    """The explicit feature map of the degree-2 polynomial kernel.

    ``φ(x)·φ(z) = (γ x·z + c₀)²`` for ``φ(x) = (c₀, √(2γc₀) x_j, γ x_j², √2 γ x_j x_k for
    j < k)``: 1 + 2m + m(m-1)/2 features for m input features (c₀ ≥ 0, γ ≥ 0).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    gamma, coef0 : float

    Returns
    -------
    ndarray of shape (n_samples, 1 + 2 n_features + n_features (n_features - 1) / 2)

    Examples
    --------
    >>> import linlib
    >>> F = linlib.quadratic_feature_map([[1, 2], [3, 4]])
    >>> F.shape
    (2, 6)
    >>> float(F[0] @ F[1]), float(linlib.polynomial_kernel([[1, 2]], [[3, 4]])[0, 0])
    (144.0, 144.0)

    Introduced in 07 — losses, the dual and kernels.
    """
    X_arr = check_X(X)
    gamma, coef0 = float(gamma), float(coef0)
    n, m = X_arr.shape
    j, k = np.triu_indices(m, 1)
    return np.column_stack(
        [
            np.full(n, coef0),
            np.sqrt(2 * gamma * coef0) * X_arr,
            gamma * X_arr**2,
            np.sqrt(2) * gamma * X_arr[:, j] * X_arr[:, k],
        ]
    )


def _kernel_perceptron_counts(
    K: NDArray[np.float64], y_pm: NDArray[np.float64], max_epochs: int
) -> tuple[NDArray[np.int64], int, bool]:
    """Counts of the kernel perceptron on the Gram matrix ``K`` (training in given order)."""
    n = K.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    K1 = K + 1.0  # the bias: b = Σ c_j y_j is a constant feature 1
    n_epochs, converged = 0, False
    for epoch in range(max_epochs):
        n_epochs = epoch + 1
        mistakes = 0
        for i in range(n):
            activation = float((counts * y_pm) @ K1[:, i])
            if y_pm[i] * activation <= 0.0:
                counts[i] += 1
                mistakes += 1
        if mistakes == 0:
            converged = True
            break
    return counts, n_epochs, converged


def kernel_perceptron(
    X: ArrayLike, y: ArrayLike, kernel: Kernel, max_epochs: int = MAX_EPOCHS
) -> NDArray[np.int64]:
    """The kernel perceptron's update counts ``c`` (one per training example).

    Visit the examples in the given order; the activation of example ``i`` is
    ``a_i = Σ_j c_j y_j (kernel(x_j, x_i) + 1)``; when ``y_i a_i ≤ 0`` (a tie is a mistake)
    add 1 to ``c_i``. Stop after an epoch without mistakes or after ``max_epochs`` epochs.
    With ``kernel = linear_kernel`` this is :class:`linlib.Perceptron` (``w = Σ c_j y_j x_j``,
    ``b = Σ c_j y_j``), mistake for mistake.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels.
    kernel : callable
        ``kernel(A, B)`` returns the matrix of kernel values between the rows of ``A`` and
        ``B``, e.g. :func:`linear_kernel`, :func:`polynomial_kernel`, :func:`rbf_kernel`.
    max_epochs : int, default=1000
        Cap on the number of passes over the data.

    Returns
    -------
    counts : ndarray of shape (n_samples,), int

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.make_xor()
    >>> linlib.kernel_perceptron(X, y, linlib.polynomial_kernel)
    array([1, 1, 1, 1])

    Introduced in 07 — losses, the dual and kernels (the reference for Exercise 4).
    """
    X_arr = check_X(X)
    y_pm = np.asarray(y, dtype=np.float64)
    if y_pm.shape != (X_arr.shape[0],) or not np.isin(y_pm, (-1.0, 1.0)).all():
        raise ValueError("y must hold one label -1 or +1 per row of X")
    validate_parameter_constraints({"max_epochs": [EPOCHS]}, {"max_epochs": max_epochs})
    K = np.asarray(kernel(X_arr, X_arr), dtype=np.float64)
    return _kernel_perceptron_counts(K, y_pm, max_epochs)[0]


class KernelPerceptron(_BinaryClassifier):
    """The kernel (dual) perceptron, scikit-learn style.

    Keeps one count per training example (the updates made on it); the decision function
    is ``a(x) = Σ_i c_i y_i (k(x_i, x) + 1)`` (the ``+ 1`` is the bias). With the linear
    kernel it is :class:`linlib.Perceptron` exactly; with a kernel whose feature map is
    ``φ`` it is the perceptron on ``φ(X)``, mistake for mistake.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        A callable is used as ``kernel(A, B)``.
    degree : int, default=2
        Degree of the ``"poly"`` kernel.
    gamma : float, default=1.0
        γ of the ``"poly"`` and ``"rbf"`` kernels.
    coef0 : float, default=1.0
        c₀ of the ``"poly"`` kernel.
    max_epochs : int, default=1000
        Cap on the number of passes over the data.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    counts_ : ndarray of shape (n_samples,), int
        Updates made on each training example.
    support_ : ndarray of int
        Indices of the training examples with ``counts_ > 0``.
    dual_coef_ : ndarray of shape (1, n_support)
        ``c_i y_i`` of those examples.
    support_vectors_ : ndarray of shape (n_support, n_features)
    intercept_ : ndarray of shape (1,)
        ``b = Σ c_i y_i``.
    n_updates_ : int
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.make_xor()
    >>> model = linlib.KernelPerceptron(kernel="poly").fit(X, y)
    >>> model.predict(X), model.converged_
    (array([-1,  1,  1, -1]), True)
    >>> model.counts_, model.intercept_
    (array([1, 1, 1, 1]), array([0.]))

    Introduced in 07 — losses, the dual and kernels.
    """

    _parameter_constraints: ClassVar[dict] = {
        "kernel": [StrOptions({"linear", "poly", "rbf"}), callable],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "gamma": [NON_NEGATIVE],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "max_epochs": [EPOCHS],
    }

    def __init__(
        self,
        *,
        kernel: str | Kernel = "linear",
        degree: int = 2,
        gamma: float = 1.0,
        coef0: float = 1.0,
        max_epochs: int = MAX_EPOCHS,
    ) -> None:
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.max_epochs = max_epochs

    def _kernel(self, A: NDArray[np.float64], B: NDArray[np.float64]) -> NDArray[np.float64]:
        if callable(self.kernel):
            return np.asarray(self.kernel(A, B), dtype=np.float64)
        if self.kernel == "linear":
            return linear_kernel(A, B)
        if self.kernel == "poly":
            return polynomial_kernel(A, B, degree=self.degree, gamma=self.gamma, coef0=self.coef0)
        # Valid parameters leave only "rbf"; an unknown kernel set after fit gets fit's
        # message here.
        self._validate_params()
        return rbf_kernel(A, B, gamma=self.gamma)

    def fit(self, X: ArrayLike, y: ArrayLike) -> KernelPerceptron:
        """Run the kernel perceptron on ``X`` and labels ``y``; returns ``self``."""
        self._validate_params()
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        counts, n_epochs, converged = _kernel_perceptron_counts(
            self._kernel(X_arr, X_arr), y_pm, self.max_epochs
        )
        self.classes_ = classes
        self.counts_ = counts
        self.support_ = np.flatnonzero(counts > 0)
        self.support_vectors_ = X_arr[self.support_]
        self.dual_coef_ = (counts * y_pm)[self.support_][None, :].astype(np.float64)
        self.intercept_ = np.array([float(np.sum(counts * y_pm))])
        self.n_updates_ = int(counts.sum())
        self.n_iter_ = n_epochs
        self.converged_ = converged
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Activations ``Σ_i c_i y_i k(x_i, x) + b``, shape (n_samples,)."""
        X_arr = validate_predict_data(self, X)
        if self.support_.size == 0:
            return np.zeros(X_arr.shape[0])
        K = self._kernel(self.support_vectors_, X_arr)
        return self.dual_coef_[0] @ K + self.intercept_[0]
