"""Linear support vector machines solved as quadratic programs (quadprog).

Hard margin: minimise ``½‖w‖²`` subject to ``y_i (w·x_i + b) ≥ 1``; the geometric margin
of the solution is ``1/‖w‖``. Soft margin: minimise ``½‖w‖² + C Σ ξ_i`` subject to
``y_i (w·x_i + b) ≥ 1 - ξ_i``, ``ξ_i ≥ 0``.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import quadprog
from numpy.typing import ArrayLike, NDArray

from linlib._base import _LinearBinaryClassifier
from linlib._validation import (
    NON_NEGATIVE,
    POSITIVE,
    check_vector,
    validate_fit_data,
    validate_parameter_constraints,
)
from linlib.geometry import _check_X_w_b, _norm_nonzero, functional_margin

__all__ = [
    "HardMarginSVM",
    "SoftMarginSVM",
    "canonical_form",
    "hinge_slacks",
    "on_margin",
    "two_point_svm",
]

# quadprog needs a strictly convex objective; b does not appear in ½‖w‖², so it gets this
# tiny weight (on centred, scaled data). The polishing step removes its effect.
_B_RIDGE = 1e-10


def _center_and_scale(X: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
    """The data's mean and a power of two near their spread (exact to divide by)."""
    center = X.mean(axis=0)
    spread = float(np.sqrt(np.max(np.einsum("ij,ij->i", X - center, X - center))))
    scale = 2.0 ** math.ceil(math.log2(spread)) if spread > 0 else 1.0
    return center, scale


def _polish(
    Z: NDArray[np.float64], y: NDArray[np.float64], active: NDArray[np.intp]
) -> tuple[NDArray[np.float64], float, NDArray[np.float64]]:
    """Solve the KKT system with the constraints in ``active`` held as equalities.

    With ``Z = y·X`` (rows y_i x_i): ``w = Z_Aᵀ α``, ``Σ α_i y_i = 0`` and
    ``Z_A w + y_A b = 1``, i.e. ``[[Z_A Z_Aᵀ, y_A], [y_Aᵀ, 0]] [α; b] = [1; 0]``.
    """
    Z_A = Z[active]
    y_A = y[active]
    k = active.shape[0]
    K = np.empty((k + 1, k + 1))
    K[:k, :k] = Z_A @ Z_A.T
    K[:k, k] = y_A
    K[k, :k] = y_A
    K[k, k] = 0.0
    rhs = np.concatenate([np.ones(k), [0.0]])
    sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
    alpha = sol[:k]
    return Z_A.T @ alpha, float(sol[k]), alpha


def _hard_margin(
    X: NDArray[np.float64], y: NDArray[np.float64], tol: float, normalize: bool
) -> tuple[NDArray[np.float64], float, NDArray[np.float64], bool]:
    """Solve the hard-margin QP with quadprog, then polish; returns (w, b, α, polished).

    With ``normalize`` the QP is solved on centred data scaled by a power of two, so that
    its conditioning (and the tiny ridge on b) does not depend on where the data sit or on
    their units; with x = center + scale·x', the solution maps back as w = w'/scale,
    b = b' - w·center and α = α'/scale². Without it, the ridge is scaled by the data's
    largest entry. If the polishing certificate fails, (w, b) is divided by the smallest
    functional margin so that it is 1.
    """
    n, d = X.shape
    if normalize:
        center, scale = _center_and_scale(X)
        ridge = _B_RIDGE
    else:
        center, scale = np.zeros(d), 1.0
        ridge = _B_RIDGE / max(1.0, float(np.max(np.abs(X)))) ** 2
    Z = y[:, None] * ((X - center) / scale)
    # Constraint rows y_i [x_i, 1]·[w, b] ≥ 1; quadprog wants them as columns.
    C = np.hstack([Z, y[:, None]]).T
    G = np.eye(d + 1)
    G[d, d] = ridge
    try:
        sol, _, _, _, lagrangian, _ = quadprog.solve_qp(
            G, np.zeros(d + 1), np.ascontiguousarray(C), np.ones(n), 0
        )
    except ValueError as exc:
        # quadprog raises a bare ValueError; only its words ("constraints are inconsistent,
        # no solution") tell infeasible constraints from bad input
        if "inconsistent" in str(exc):
            raise ValueError(
                "The data are not linearly separable: no (w, b) satisfies "
                "y_i (w·x_i + b) ≥ 1 for all i, so the hard-margin SVM has no solution. "
                "Use SoftMarginSVM for such data."
            ) from exc
        raise
    active = np.flatnonzero(lagrangian > 0)
    w, b, alpha = sol[:d].copy(), float(sol[d]), np.asarray(lagrangian, dtype=float)
    polished = False
    if active.size > 0:
        w_p, b_p, alpha_A = _polish(Z, y, active)
        margins = Z @ w_p + y * b_p
        if margins.min() >= 1.0 - tol and alpha_A.min() >= -tol * max(1.0, alpha_A.max()):
            w, b, polished = w_p, b_p, True
            alpha = np.zeros(n)
            alpha[active] = np.maximum(alpha_A, 0.0)
    if normalize:
        w = w / scale
        b = b - float(w @ center)
        alpha = alpha / (scale * scale)
    if normalize or not polished:
        smallest = float(np.min(y * (X @ w + b)))
        w, b, alpha = w / smallest, b / smallest, alpha / smallest
    return w, b, alpha, polished


class HardMarginSVM(_LinearBinaryClassifier):
    """The maximum-margin separating hyperplane (hard-margin linear SVM).

    Solves the primal ``min ½‖w‖² s.t. y_i (w·x_i + b) ≥ 1`` (n_features + 1 variables)
    with quadprog's dual active-set method, then *polishes*: the equality-constrained KKT
    system on the solver's active set is solved exactly, and the result is accepted only
    with a certificate of optimality — every ``y_i (w·x_i + b) ≥ 1 - tol`` and every
    multiplier ``≥ -tol`` (a convex problem: KKT conditions are sufficient). The smallest
    functional margin is then 1 to about 1e-12.

    Parameters
    ----------
    tol : float, default=1e-8
        Tolerance of the optimality certificate (primal feasibility and multipliers).
    margin_tol : float, default=1e-6
        A training point is reported in ``on_margin_`` when its functional margin is at
        most ``1 + margin_tol``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    margin_ : float
        Geometric margin ``1/‖w‖`` (half the width of the empty band).
    on_margin_ : ndarray of int
        Indices of the points *on the margin*, a property of the data and the hyperplane:
        ``y_i (w·x_i + b) ≤ 1 + margin_tol``.
    alpha_ : ndarray of shape (n_samples,)
        Lagrange multipliers ``α_i ≥ 0`` of this solver's answer; ``w = Σ α_i y_i x_i`` and
        ``Σ α_i y_i = 0``. Multipliers below ``tol`` times the largest are set to 0.
    support_ : ndarray of int
        Indices with ``α_i > 0``, sorted: the *support vectors* in scikit-learn's sense
        (``SVC.support_``). Every support vector is on the margin, but a point can be on
        the margin (in ``on_margin_``) and still have ``α_i = 0``: when more points lie on
        the margin than are needed to pin the band down, the multipliers are not unique and
        each solver picks its own.
    support_vectors_ : ndarray of shape (n_support, n_features)
        ``X[support_]``, as in scikit-learn.
    dual_coef_ : ndarray of shape (1, n_support)
        ``y_i α_i`` for the support vectors, as in scikit-learn's ``SVC.dual_coef_``
        (``coef_ = dual_coef_ @ support_vectors_``).
    polished_ : bool
        True if the polishing certificate held (it fails only in degenerate cases; the
        solver's solution, rescaled to a smallest functional margin of 1, is kept then).

    Raises
    ------
    ValueError
        From ``fit``, if the data are not linearly separable (the QP is infeasible).

    Examples
    --------
    >>> import numpy as np
    >>> import linlib
    >>> X, y = [[2, 0], [0, 0], [4, 1]], [1, -1, 1]
    >>> model = linlib.HardMarginSVM().fit(X, y)
    >>> np.round(model.coef_, 6), np.round(model.intercept_, 6)
    (array([[1., 0.]]), array([-1.]))
    >>> round(model.margin_, 6), model.support_
    (1.0, array([0, 1]))

    Introduced in 03 — the convergence proof (the best margin); explained in 06 — SVM margins.
    """

    _parameter_constraints: ClassVar[dict] = {"tol": [NON_NEGATIVE], "margin_tol": [NON_NEGATIVE]}

    def __init__(self, *, tol: float = 1e-8, margin_tol: float = 1e-6) -> None:
        self.tol = tol
        self.margin_tol = margin_tol

    def fit(self, X: ArrayLike, y: ArrayLike) -> HardMarginSVM:
        """Find the maximum-margin hyperplane; ValueError if the data are not separable."""
        self._validate_params()
        tol, margin_tol = float(self.tol), float(self.margin_tol)
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        w, b, alpha, polished = _hard_margin(X_arr, y_pm, tol, normalize=False)
        violation = abs(float(np.min(y_pm * (X_arr @ w + b))) - 1.0)
        if not polished or violation > 1e-10:
            # Badly scaled or far-off data: solve again on centred, rescaled data.
            retry = _hard_margin(X_arr, y_pm, tol, normalize=True)
            if retry[3] or not polished:
                w, b, alpha, polished = retry
        margins = y_pm * (X_arr @ w + b)
        self._set_hyperplane(classes, w, b)
        self.margin_ = float(1.0 / np.linalg.norm(w))
        self.on_margin_ = np.flatnonzero(margins <= 1.0 + margin_tol)
        alpha = np.where(alpha > tol * float(np.max(alpha, initial=0.0)), alpha, 0.0)
        self.alpha_ = alpha
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X_arr[self.support_]
        self.dual_coef_ = (y_pm * alpha)[self.support_][None, :]
        self.polished_ = polished
        return self


class SoftMarginSVM(_LinearBinaryClassifier):
    """Soft-margin linear SVM: ``min ½‖w‖² + C Σ ξ_i`` s.t. ``y_i(w·x_i + b) ≥ 1 - ξ_i``.

    A look ahead for non-separable data: large ``C`` approaches the hard margin, small
    ``C`` tolerates more margin violations. Solved as a dense QP in the primal
    (n_features + 1 + n_samples variables), so meant for the course's small data sets
    (up to a few hundred points); tiny ridge terms on ``b`` and ``ξ`` make the QP strictly
    convex. Agrees with scikit-learn's ``SVC(kernel="linear", C=C)`` to libsvm's tolerance.

    Parameters
    ----------
    C : float, default=1.0
        Price of a unit of margin violation (> 0).

    Attributes
    ----------
    classes_, coef_, intercept_ : as in :class:`HardMarginSVM`
    margin_ : float
        ``1/‖w‖``.
    slack_ : ndarray of shape (n_samples,)
        ``ξ_i = max(0, 1 - y_i (w·x_i + b))``.
    alpha_ : ndarray of shape (n_samples,)
        Lagrange multipliers ``0 ≤ α_i ≤ C`` of the margin constraints (from the QP
        solver); ``w = Σ α_i y_i x_i``. Multipliers below ``1e-8·C`` are set to 0.
    support_ : ndarray of int
        Indices with ``α_i > 0`` (scikit-learn's ``SVC.support_``): the points on the
        margin that the solution uses, inside the band, or on the wrong side.
    support_vectors_ : ndarray of shape (n_support, n_features)
        ``X[support_]``.
    dual_coef_ : ndarray of shape (1, n_support)
        ``y_i α_i`` for the support vectors, as in scikit-learn.

    Examples
    --------
    >>> import numpy as np
    >>> import linlib
    >>> X, y = [[1, 0], [-1, 0], [3, 1], [-0.5, 0]], [1, -1, 1, 1]
    >>> model = linlib.SoftMarginSVM(C=1.0).fit(X, y)
    >>> model.predict(X)
    array([ 1, -1,  1,  1])
    >>> np.round(model.slack_, 3)
    array([0.  , 1.  , 0.  , 0.75])

    Introduced in 06 — SVM margins (looking ahead to the soft margin).
    """

    _parameter_constraints: ClassVar[dict] = {"C": [POSITIVE]}

    def __init__(self, *, C: float = 1.0) -> None:
        self.C = C

    def fit(self, X: ArrayLike, y: ArrayLike) -> SoftMarginSVM:
        """Solve the soft-margin QP."""
        self._validate_params()
        C_val = float(self.C)
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        n, d = X_arr.shape
        m = d + 1 + n
        # Centre and scale as in HardMarginSVM; with x = center + scale·x' the problem in
        # x' has w' = scale·w, so its price of slack becomes C·scale².
        center, scale = _center_and_scale(X_arr)
        X_s = (X_arr - center) / scale
        C_s = C_val * scale * scale
        G = np.eye(m)
        G[d, d] = _B_RIDGE
        G[d + 1 :, d + 1 :] *= 1e-10 * C_s
        a = np.zeros(m)
        a[d + 1 :] = -C_s
        # Columns: y_i [x_i, 1, e_i]·v ≥ 1 (margin with slack), then ξ_i ≥ 0.
        Cmat = np.zeros((m, 2 * n))
        Cmat[:d, :n] = (y_pm[:, None] * X_s).T
        Cmat[d, :n] = y_pm
        Cmat[d + 1 :, :n] = np.eye(n)
        Cmat[d + 1 :, n:] = np.eye(n)
        bvec = np.concatenate([np.ones(n), np.zeros(n)])
        sol, _, _, _, lagrangian, _ = quadprog.solve_qp(G, a, Cmat, bvec, 0)
        w = sol[:d] / scale
        b = float(sol[d]) - float(w @ center)
        margins = y_pm * (X_arr @ w + b)
        self._set_hyperplane(classes, w, b)
        norm = float(np.linalg.norm(w))
        self.margin_ = float(1.0 / norm) if norm > 0 else float("inf")
        self.slack_ = np.maximum(0.0, 1.0 - margins)
        # The multipliers of the scaled problem (α' ≤ C·scale²) map back as α = α'/scale².
        alpha = np.minimum(np.asarray(lagrangian[:n], dtype=float) / (scale * scale), C_val)
        alpha = np.where(alpha > 1e-8 * C_val, alpha, 0.0)
        self.alpha_ = alpha
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X_arr[self.support_]
        self.dual_coef_ = (y_pm * alpha)[self.support_][None, :]
        return self


def canonical_form(
    X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float
) -> tuple[NDArray[np.float64], float]:
    """Rescale a separating ``(w, b)`` so that its smallest functional margin is 1.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels.
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    w_c : ndarray of shape (n_features,)
        ``w / m`` with ``m = min_i y_i (w·x_i + b)`` (a new array; ``w`` is not modified).
    b_c : float
        ``b / m``.

    Raises
    ------
    ValueError
        If some point has ``y_i (w·x_i + b) ≤ 0`` (``(w, b)`` does not separate the data).

    Examples
    --------
    >>> import linlib
    >>> linlib.canonical_form([[2, 0], [-2, 0]], [1, -1], w=[3, 0], b=0.0)
    (array([0.5, 0. ]), 0.0)

    Introduced in 06 — SVM margins.
    """
    _, w_arr, b_val = _check_X_w_b(X, w, b)
    smallest = float(np.min(functional_margin(X, y, w_arr, b_val)))
    if smallest <= 0:
        raise ValueError("(w, b) does not separate the data: some point has y_i (w·x_i + b) <= 0.")
    return w_arr / smallest, b_val / smallest


def two_point_svm(x_pos: ArrayLike, x_neg: ArrayLike) -> tuple[NDArray[np.float64], float]:
    """The canonical maximum-margin ``(w, b)`` between one +1 and one -1 point.

    The perpendicular bisector: ``w = 2 (x₊ - x₋)/‖x₊ - x₋‖²``, ``b = -w·(x₊ + x₋)/2``, so
    that ``w·x₊ + b = 1`` and ``w·x₋ + b = -1``; the margin is ``‖x₊ - x₋‖/2``.

    Parameters
    ----------
    x_pos, x_neg : array-like of shape (n_features,)

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float

    Raises
    ------
    ValueError
        If the two points are equal.

    Examples
    --------
    >>> import linlib
    >>> linlib.two_point_svm(x_pos=[2, 1], x_neg=[0, 1])
    (array([1., 0.]), -1.0)

    Introduced in 06 — SVM margins.
    """
    p = check_vector(x_pos, "x_pos")
    q = check_vector(x_neg, "x_neg", size=p.shape[0])
    difference = p - q
    squared = float(difference @ difference)
    if squared == 0.0:
        raise ValueError("The two points are equal: no hyperplane separates them.")
    w = 2.0 * difference / squared
    return w, -float(w @ (p + q)) / 2.0


def on_margin(
    X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float, tol: float = 1e-6
) -> NDArray[np.bool_]:
    """Which points lie on the margin of the hyperplane ``w·x + b = 0``.

    A point is on the margin when its signed distance on the correct side,
    ``y_i (w·x_i + b)/‖w‖``, is at most the smallest such distance plus ``tol``: a
    geometric criterion, independent of the scale of ``(w, b)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels.
    w : array-like of shape (n_features,), not all zero
    b : float
    tol : float, default=1e-6
        Tolerance on the distance (in the units of ``X``), ``≥ 0``.

    Returns
    -------
    ndarray of bool, shape (n_samples,)

    Examples
    --------
    >>> import linlib
    >>> linlib.on_margin([[1, 0], [-1, 0], [3, 0]], [1, -1, 1], w=[1, 0], b=0.0)
    array([ True,  True, False])

    Introduced in 06 — SVM margins.
    """
    _, w_arr, b_val = _check_X_w_b(X, w, b)
    validate_parameter_constraints({"tol": [NON_NEGATIVE]}, {"tol": tol})
    tol_val = float(tol)
    norm = _norm_nonzero(w_arr, "The margin")
    distances = functional_margin(X, y, w_arr, b_val) / norm
    return distances <= distances.min() + tol_val


def hinge_slacks(X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float) -> NDArray[np.float64]:
    """Slack (hinge loss) ``max(0, 1 - y_i (w·x_i + b))`` of every point.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels.
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    ndarray of shape (n_samples,)
        0 on or beyond the margin on the correct side, in (0, 1) inside the band on the
        correct side, 1 on the plane, > 1 on the wrong side.

    Examples
    --------
    >>> import linlib
    >>> linlib.hinge_slacks([[2, 0], [0.5, 0], [-1, 0]], [1, 1, 1], w=[1, 0], b=0.0)
    array([0. , 0.5, 2. ])

    Introduced in 06 — SVM margins.
    """
    return np.maximum(0.0, 1.0 - functional_margin(X, y, w, b))
