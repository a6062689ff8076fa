"""Losses of a linear classifier as functions of the functional margin ``z = y·a``, and
stochastic (sub)gradient steps on them: the perceptron and Pegasos (a soft-margin SVM).

The course's tie rule carries over: a point with ``z = 0`` is a mistake (0-1 loss 1, and
the perceptron loss takes its step there), and a point with ``z = 1`` exactly takes the
hinge's step (as scikit-learn's ``SGDClassifier`` does: its hinge derivative is ``-y``
for ``z ≤ 1``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

from linlib._base import _LinearBinaryClassifier
from linlib._validation import (
    EPOCHS,
    NON_NEGATIVE,
    POSITIVE,
    check_vector,
    validate_fit_data,
)
from linlib.geometry import _check_X_w_b, functional_margin

__all__ = [
    "PegasosSVM",
    "hinge_loss",
    "logistic_loss",
    "pegasos_step",
    "perceptron_loss",
    "perceptron_loss_grad",
    "soft_margin_objective",
    "zero_one_loss",
]


def zero_one_loss(z: ArrayLike) -> NDArray[np.float64]:
    """0-1 loss of functional margins ``z = y·a``: 1 where ``z ≤ 0`` (a tie is a mistake).

    Examples
    --------
    >>> import linlib
    >>> linlib.zero_one_loss([-1.0, 0.0, 0.5, 2.0])
    array([1., 1., 0., 0.])

    Introduced in 07 — losses, the dual and kernels.
    """
    return (np.asarray(z, dtype=np.float64) <= 0).astype(np.float64)


def perceptron_loss(z: ArrayLike) -> NDArray[np.float64]:
    """Perceptron loss ``max(0, -z)`` of functional margins ``z = y·a``.

    Examples
    --------
    >>> import linlib
    >>> linlib.perceptron_loss([-1.5, 0.5, 2.0])
    array([1.5, 0. , 0. ])

    Introduced in 07 — losses, the dual and kernels.
    """
    return np.maximum(0.0, -np.asarray(z, dtype=np.float64))


def hinge_loss(z: ArrayLike) -> NDArray[np.float64]:
    """Hinge loss ``max(0, 1 - z)`` of functional margins ``z = y·a``.

    Examples
    --------
    >>> import linlib
    >>> linlib.hinge_loss([-1.0, 0.0, 0.5, 1.0, 2.0])
    array([2. , 1. , 0.5, 0. , 0. ])

    Introduced in 07 — losses, the dual and kernels.
    """
    return np.maximum(0.0, 1.0 - np.asarray(z, dtype=np.float64))


def logistic_loss(z: ArrayLike, base: float = np.e) -> NDArray[np.float64]:
    """Logistic loss ``log(1 + exp(-z))`` of functional margins ``z = y·a``.

    Parameters
    ----------
    z : array-like
    base : float, default=e
        Base of the logarithm; with ``base=2`` the loss is 1 at ``z = 0`` and lies above
        the 0-1 loss everywhere.

    Examples
    --------
    >>> import linlib
    >>> linlib.logistic_loss([0.0, 1.0], base=2)
    array([1.        , 0.45194108])

    Introduced in 07 — losses, the dual and kernels.
    """
    return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64)) / np.log(base)


def perceptron_loss_grad(
    x: ArrayLike, y: float, w: ArrayLike, b: float
) -> tuple[NDArray[np.float64], float]:
    """A (sub)gradient of the perceptron loss ``max(0, -y (w·x + b))`` at ``(w, b)``.

    ``(-y·x, -y)`` when ``y (w·x + b) ≤ 0`` (the course's tie rule picks this element of
    the subdifferential at 0), else ``(0, 0)``. A gradient step of size 1 is the
    perceptron's update.

    Parameters
    ----------
    x : array-like of shape (n_features,)
    y : int or float, -1 or +1
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    grad_w : ndarray of shape (n_features,), float (a new array)
    grad_b : float

    Examples
    --------
    >>> import linlib
    >>> linlib.perceptron_loss_grad(x=[1, 2], y=1, w=[0, 0], b=0.0)
    (array([-1., -2.]), -1.0)
    >>> linlib.perceptron_loss_grad(x=[1, 2], y=1, w=[1, 1], b=0.0)
    (array([0., 0.]), 0.0)

    Introduced in 07 — losses, the dual and kernels (the reference for Exercise 1).
    """
    w_arr = check_vector(w, "w")
    x_arr = check_vector(x, "x", size=w_arr.size)
    label = float(y)
    if label * (float(x_arr @ w_arr) + float(b)) <= 0.0:
        return -label * x_arr, -label
    return np.zeros_like(w_arr), 0.0


def pegasos_step(
    w: ArrayLike, b: float, x: ArrayLike, y: float, lam: float, eta: float
) -> tuple[NDArray[np.float64], float]:
    """One stochastic subgradient step on ``λ/2 ‖w‖² + max(0, 1 - y (w·x + b))``.

    ``w ← (1 - ηλ) w + η y x`` and ``b ← b + η y`` when ``y (w·x + b) ≤ 1``; otherwise only
    the shrinking ``w ← (1 - ηλ) w`` (the bias is not regularised). The ``w`` given is not
    modified.

    Parameters
    ----------
    w : array-like of shape (n_features,)
    b : float
    x : array-like of shape (n_features,)
    y : int or float, -1 or +1
    lam : float
        Regularisation strength λ > 0.
    eta : float
        Step size η > 0.

    Returns
    -------
    w_new : ndarray of shape (n_features,)
    b_new : float

    Examples
    --------
    >>> import linlib
    >>> linlib.pegasos_step(w=[0, 0], b=0.0, x=[1, 2], y=1, lam=0.1, eta=0.5)
    (array([0.5, 1. ]), 0.5)
    >>> linlib.pegasos_step(w=[2, 0], b=0.0, x=[1, 2], y=1, lam=0.1, eta=0.5)
    (array([1.9, 0. ]), 0.0)

    Introduced in 07 — losses, the dual and kernels (the reference for Exercise 2).
    """
    w_arr = check_vector(w, "w")
    x_arr = check_vector(x, "x", size=w_arr.size)
    label, b_val, lam_val, eta_val = float(y), float(b), float(lam), float(eta)
    in_loss = label * (float(x_arr @ w_arr) + b_val) <= 1.0
    w_new = (1.0 - eta_val * lam_val) * w_arr
    if in_loss:
        return w_new + eta_val * label * x_arr, b_val + eta_val * label
    return w_new, b_val


def soft_margin_objective(X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float, C: float) -> float:
    """The soft-margin SVM's objective ``½‖w‖² + C Σ_i max(0, 1 - y_i (w·x_i + b))``.

    Pegasos minimises ``λ/2 ‖w‖² + (1/n) Σ_i hinge_i``, the same objective times ``λ``
    with ``C = 1/(λ n)``.

    Examples
    --------
    >>> import linlib
    >>> X, y = [[2, 0], [0.5, 0], [-1, 0]], [1, 1, -1]
    >>> linlib.soft_margin_objective(X, y, w=[1, 0], b=0.0, C=1.0)
    1.0

    Introduced in 07 — losses, the dual and kernels.
    """
    _, w_arr, b_val = _check_X_w_b(X, w, b)
    slacks = hinge_loss(functional_margin(X, y, w_arr, b_val))
    return float(0.5 * w_arr @ w_arr + float(C) * slacks.sum())


class PegasosSVM(_LinearBinaryClassifier):
    """A soft-margin linear SVM trained by Pegasos-style stochastic subgradient descent.

    Minimises ``λ/2 ‖w‖² + (1/n) Σ_i max(0, 1 - y_i (w·x_i + b))`` (the soft-margin SVM
    with ``C = 1/(λ n)``): at step ``t = 1, 2, …`` one example, in a seeded random order
    per epoch, and :func:`pegasos_step` with ``η_t = 1/(λ (t + t0))``. The returned
    ``(w, b)`` is the average of the iterates of the last half of the steps, which
    removes most of the noise of the single steps.

    Parameters
    ----------
    lam : float, default=0.01
        Regularisation strength λ > 0.
    n_epochs : int, default=50
        Number of passes over the data, all of them run (not a cap: there is no
        convergence to stop at, unlike the perceptrons' ``max_epochs``).
    t0 : float, default=10.0
        Offset of the step-size schedule (keeps the first steps from being huge), ≥ 0.
    random_state : int, RandomState or None, default=None
        Seed of the per-epoch permutations (``None`` means 0).

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_
    objective_ : float
        ``λ/2 ‖w‖² + mean hinge loss`` of the returned ``(w, b)`` on the training data.

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.make_separable(60, margin=0.2, random_state=1)
    >>> model = linlib.PegasosSVM(lam=0.01, random_state=0).fit(X, y)
    >>> float(model.score(X, y))
    1.0
    >>> exact = linlib.SoftMarginSVM(C=1 / (0.01 * len(y))).fit(X, y)
    >>> bool(abs(model.coef_ - exact.coef_).max() < 0.1)
    True

    Introduced in 07 — losses, the dual and kernels.
    """

    _parameter_constraints: ClassVar[dict] = {
        "lam": [POSITIVE],
        "n_epochs": [EPOCHS],
        "t0": [NON_NEGATIVE],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        lam: float = 0.01,
        n_epochs: int = 50,
        t0: float = 10.0,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.lam = lam
        self.n_epochs = n_epochs
        self.t0 = t0
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> PegasosSVM:
        """Run the stochastic subgradient descent; returns ``self``."""
        self._validate_params()
        lam, n_epochs, t0 = float(self.lam), int(self.n_epochs), float(self.t0)
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        n, d = X_arr.shape
        rng = check_random_state(0 if self.random_state is None else self.random_state)
        w, b = np.zeros(d), 0.0
        total = n * n_epochs
        start_average = total // 2
        w_sum, b_sum, t = np.zeros(d), 0.0, 0
        for _ in range(n_epochs):
            for i in rng.permutation(n):
                t += 1
                w, b = pegasos_step(w, b, X_arr[i], y_pm[i], lam, 1.0 / (lam * (t + t0)))
                if t > start_average:
                    w_sum += w
                    b_sum += b
        count = total - start_average
        w, b = w_sum / count, b_sum / count
        self._set_hyperplane(classes, w, b)
        self.objective_ = lam * soft_margin_objective(X_arr, y_pm, w, b, 1.0 / (lam * n))
        return self
