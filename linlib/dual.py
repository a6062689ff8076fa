"""The hard-margin SVM's dual: from the multipliers α back to the hyperplane.

The Lagrangian of ``min ½‖w‖² s.t. y_i (w·x_i + b) ≥ 1`` is
``L = ½‖w‖² - Σ_i α_i (y_i (w·x_i + b) - 1)`` with ``α_i ≥ 0``. Its stationarity
conditions give ``w = Σ_i α_i y_i x_i`` and ``Σ_i α_i y_i = 0``; complementary slackness
``α_i (y_i (w·x_i + b) - 1) = 0`` says a point with ``α_i > 0`` is on the margin, where
``y_i (w·x_i + b) = 1``, i.e. ``b = y_i - w·x_i``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from linlib._validation import NON_NEGATIVE, as_pm_labels, check_X, validate_parameter_constraints

__all__ = ["dual_objective", "weights_from_dual"]


def _check_alpha(alpha: ArrayLike, n: int) -> NDArray[np.float64]:
    alpha_arr = np.asarray(alpha, dtype=np.float64)
    if alpha_arr.shape != (n,):
        raise ValueError(
            f"alpha must have shape ({n},), one multiplier per point; got {alpha_arr.shape}"
        )
    if not np.isfinite(alpha_arr).all():
        raise ValueError("alpha contains NaN or infinite values")
    return alpha_arr


def weights_from_dual(
    X: ArrayLike, y: ArrayLike, alpha: ArrayLike, tol: float = 1e-8
) -> tuple[NDArray[np.float64], float]:
    """The hard-margin SVM's ``(w, b)`` from its multipliers ``α``.

    ``w = Σ_i α_i y_i x_i``; ``b`` is the mean of ``y_i - w·x_i`` over the points with
    ``α_i > tol`` (on the margin by complementary slackness; with exact multipliers every
    one of them gives the same ``b``, the mean evens out a solver's rounding).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels.
    alpha : array-like of shape (n_samples,)
        The multipliers, ``α_i ≥ 0`` (not scikit-learn's ``dual_coef_``, which holds
        ``y_i α_i`` of the support vectors only).
    tol : float, default=1e-8
        Multipliers at most ``tol`` count as zero.

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float

    Raises
    ------
    ValueError
        If no multiplier exceeds ``tol`` (no point to take ``b`` from).

    Examples
    --------
    >>> import linlib
    >>> linlib.weights_from_dual([[1, 0], [-1, 0]], [1, -1], alpha=[0.5, 0.5])
    (array([1., 0.]), 0.0)

    Introduced in 07 — losses, the dual and kernels (the reference for Exercise 3).
    """
    X_arr = check_X(X)
    y_pm = as_pm_labels(y, X_arr.shape[0])
    alpha_arr = _check_alpha(alpha, X_arr.shape[0])
    validate_parameter_constraints({"tol": [NON_NEGATIVE]}, {"tol": tol})
    tol_val = float(tol)
    w = (alpha_arr * y_pm) @ X_arr
    support = alpha_arr > tol_val
    if not support.any():
        raise ValueError(f"no multiplier exceeds tol = {tol_val:g}: b is not determined")
    b = float(np.mean(y_pm[support] - X_arr[support] @ w))
    return w, b


def dual_objective(X: ArrayLike, y: ArrayLike, alpha: ArrayLike) -> float:
    """The hard-margin dual objective ``Σ_i α_i - ½ ‖Σ_i α_i y_i x_i‖²``.

    At the optimum it equals the primal's ``½‖w‖²`` (strong duality).

    Examples
    --------
    >>> import linlib
    >>> linlib.dual_objective([[1, 0], [-1, 0]], [1, -1], alpha=[0.5, 0.5])
    0.5

    Introduced in 07 — losses, the dual and kernels.
    """
    X_arr = check_X(X)
    y_pm = as_pm_labels(y, X_arr.shape[0])
    alpha_arr = _check_alpha(alpha, X_arr.shape[0])
    w = (alpha_arr * y_pm) @ X_arr
    return float(alpha_arr.sum() - 0.5 * w @ w)
