"""Hyperplanes, distances, margins, the Novikoff bound and an exact separability test.

Conventions (the course's, see ``notebooks/README.md``): a hyperplane is ``w·x + b = 0``, the
activation is ``a = w·x + b``, labels are -1/+1, and "absorbing the bias" means the
augmented point ``[x, 1]`` with weights ``[w, b]``.

Public functions here never call each other: the grading helpers can disable one of them
while a student's code runs, and the others must keep working.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog

from linlib._validation import (
    as_pm_labels,
    check_binary_X_y,
    check_scalar_b,
    check_vector,
    check_X,
)

__all__ = [
    "activation",
    "anchor_basis_to_hyperplane",
    "augment",
    "functional_margin",
    "geometric_margin",
    "hyperplane_to_anchor_basis",
    "is_linearly_separable",
    "novikoff_bound",
    "signed_distance",
]


def _check_X_w_b(
    X: ArrayLike, w: ArrayLike, b: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    X_arr = check_X(X)
    w_arr = check_vector(w, "w", size=X_arr.shape[1])
    return X_arr, w_arr, check_scalar_b(b)


def _activations(X: NDArray[np.float64], w: NDArray[np.float64], b: float) -> NDArray[np.float64]:
    # Dot product first, then + b: the same order of operations as scikit-learn, so a
    # prediction made from these activations agrees with sklearn bit for bit.
    return X @ w + b


def _norm_nonzero(w: NDArray[np.float64], what: str) -> float:
    norm = float(np.linalg.norm(w))
    if norm == 0.0:
        raise ValueError(f"{what} is undefined for w = 0: the zero vector defines no hyperplane.")
    return norm


def augment(X: ArrayLike) -> NDArray[np.float64]:
    """Append a column of ones: the augmented points ``[x, 1]``.

    With augmented points the bias is absorbed: ``[w, b]·[x, 1] = w·x + b``, and the
    decision boundary passes through the origin of the augmented space.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    X_aug : ndarray of shape (n_samples, n_features + 1)

    Examples
    --------
    >>> import linlib
    >>> linlib.augment([[1, 2], [3, 4]])
    array([[1., 2., 1.],
           [3., 4., 1.]])

    Introduced in 01 — hyperplanes (absorbing the bias).
    """
    X_arr = check_X(X)
    return np.hstack([X_arr, np.ones((X_arr.shape[0], 1))])


def activation(X: ArrayLike, w: ArrayLike, b: float) -> NDArray[np.float64]:
    """Activations ``a = w·x + b`` of every row of ``X``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    a : ndarray of shape (n_samples,)
        Predict +1 where ``a > 0`` and -1 elsewhere (a point on the plane gets -1).

    Examples
    --------
    >>> import linlib
    >>> linlib.activation([[1, 2], [3, 4]], w=[1, 1], b=-3)
    array([0., 4.])

    Introduced in 01 — hyperplanes (the decision rule).
    """
    X_arr, w_arr, b_val = _check_X_w_b(X, w, b)
    return _activations(X_arr, w_arr, b_val)


def signed_distance(X: ArrayLike, w: ArrayLike, b: float) -> NDArray[np.float64]:
    """Signed Euclidean distance of each row of ``X`` to the hyperplane ``w·x + b = 0``.

    ``(w·x + b) / ‖w‖``: positive on the side ``w`` points to, negative on the other.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    w : array-like of shape (n_features,), not all zero
    b : float

    Returns
    -------
    d : ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        If ``w`` is the zero vector, or on bad input.

    Examples
    --------
    >>> import linlib
    >>> linlib.signed_distance([[3, 4], [0, 0]], w=[3, 4], b=-5)
    array([ 4., -1.])

    Introduced in 01 — hyperplanes (signed distance).
    """
    X_arr, w_arr, b_val = _check_X_w_b(X, w, b)
    return _activations(X_arr, w_arr, b_val) / _norm_nonzero(w_arr, "The signed distance")


def functional_margin(X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float) -> NDArray[np.float64]:
    """Functional margin of every point: ``y_i (w·x_i + b)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels (one class alone is allowed), or any two labels, encoded with
        scikit-learn's rule (sorted, the second is +1).
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    margins : ndarray of shape (n_samples,)
        Positive where the point is on its correct side.

    Examples
    --------
    >>> import linlib
    >>> linlib.functional_margin([[1, 2], [0, 0]], [1, -1], w=[1, 1], b=-1)
    array([2., 1.])

    Introduced in 03 — the convergence proof (margins).
    """
    X_arr, w_arr, b_val = _check_X_w_b(X, w, b)
    y_pm = as_pm_labels(y, X_arr.shape[0])
    return y_pm * _activations(X_arr, w_arr, b_val)


def geometric_margin(X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float) -> float:
    """Geometric margin of a data set for the hyperplane ``(w, b)``.

    ``min_i y_i (w·x_i + b) / ‖w‖`` in the original space (not the augmented one). It is
    negative when some point is on the wrong side.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        As in :func:`functional_margin`.
    w : array-like of shape (n_features,), not all zero
    b : float

    Returns
    -------
    margin : float

    Examples
    --------
    >>> import linlib
    >>> linlib.geometric_margin([[2, 0], [0, 0]], [1, -1], w=[2, 0], b=-2)
    1.0

    Introduced in 03 — the convergence proof (margin of a data set).
    """
    X_arr, w_arr, b_val = _check_X_w_b(X, w, b)
    y_pm = as_pm_labels(y, X_arr.shape[0])
    norm = _norm_nonzero(w_arr, "The geometric margin")
    return float(np.min(y_pm * _activations(X_arr, w_arr, b_val)) / norm)


def novikoff_bound(X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float) -> float:
    """Novikoff's bound ``(R/γ)²`` on the perceptron's number of updates.

    Computed in the augmented space, where the perceptron (with bias) runs:
    ``R = max_i ‖[x_i, 1]‖`` and ``γ = min_i y_i (w·x_i + b) / ‖[w, b]‖`` for the given
    separating hyperplane ``(w, b)``. Any separator gives a valid bound; the best one
    (the maximum-margin separator in augmented space) gives the smallest.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        As in :func:`functional_margin`.
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    bound : float

    Raises
    ------
    ValueError
        If ``(w, b)`` does not separate the data strictly (some ``y_i (w·x_i + b) ≤ 0``).

    Examples
    --------
    >>> import linlib
    >>> X, y = [[1, 0], [-1, 0]], [1, -1]
    >>> round(linlib.novikoff_bound(X, y, w=[1, 0], b=0), 12)
    2.0
    >>> linlib.Perceptron().fit(X, y).n_updates_
    2

    Introduced in 03 — the convergence proof (Novikoff's theorem).
    """
    X_arr, w_arr, b_val = _check_X_w_b(X, w, b)
    y_pm = as_pm_labels(y, X_arr.shape[0])
    margins = y_pm * _activations(X_arr, w_arr, b_val)
    worst = float(np.min(margins))
    if worst <= 0.0:
        i = int(np.argmin(margins))
        raise ValueError(
            "(w, b) does not separate the data: point "
            f"{i} has y·(w·x + b) = {worst:.6g} ≤ 0, so there is no margin γ > 0."
        )
    gamma = worst / float(np.sqrt(w_arr @ w_arr + b_val * b_val))
    radius = float(np.sqrt(np.max(np.einsum("ij,ij->i", X_arr, X_arr)) + 1.0))
    return (radius / gamma) ** 2


def is_linearly_separable(X: ArrayLike, y: ArrayLike) -> bool:
    """Whether some hyperplane separates the two classes strictly (a linear program).

    Solves the linear feasibility problem ``y_i (w·x_i + b) ≥ 1`` for all ``i`` with
    HiGHS (``scipy.optimize.linprog``). Strict separability is equivalent: scale any strict
    separator until its smallest functional margin is 1. Duplicate points with opposite
    labels make the problem infeasible, as they should.

    ``True`` is certified: the solver's ``(w, b)`` is checked to give every point a
    positive functional margin. ``False`` is HiGHS's verdict of infeasibility, made with
    its tolerances (about 1e-7): a set whose best geometric margin is below roughly 1e-9
    of the data's spread can be reported as not separable.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Any two labels (scikit-learn's encoding).

    Returns
    -------
    separable : bool

    Examples
    --------
    >>> import linlib
    >>> linlib.is_linearly_separable(*linlib.boolean_table("and"))
    True
    >>> linlib.is_linearly_separable(*linlib.make_xor())
    False

    Introduced in 04 — Naive Bayes is a linear classifier (a data set no hyperplane
    separates); the linear program is explained in 05 — XOR and linear separability.
    """
    X_arr, y_pm, _ = check_binary_X_y(X, y)
    n_samples, n_features = X_arr.shape
    # Constraints -y_i [x_i, 1]·[w, b] ≤ -1; free variables; nothing to minimise.
    A_ub = -y_pm[:, None] * np.hstack([X_arr, np.ones((n_samples, 1))])
    result = linprog(
        c=np.zeros(n_features + 1),
        A_ub=A_ub,
        b_ub=-np.ones(n_samples),
        bounds=[(None, None)] * (n_features + 1),
        method="highs",
    )
    if result.status == 0:
        # Confirm the certificate rather than trusting the solver's tolerances.
        margins = -(A_ub @ result.x)
        return bool(np.all(margins > 0.0))
    if result.status == 2:
        return False
    raise RuntimeError(f"linprog could not decide separability: {result.message}")


def _orthonormal_complement(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rows: an orthonormal basis of the complement of the unit vector ``u``.

    A Householder reflection maps the last unit vector onto ``u``; its other rows are
    orthonormal and orthogonal to ``u``. Closed form, so the basis is reproducible.
    """
    d = u.shape[0]
    e = np.zeros(d)
    e[-1] = 1.0
    # Reflect along u - e or u + e, whichever is longer (numerically stable).
    sign = 1.0 if u[-1] <= 0 else -1.0
    v = u - sign * e
    H = np.eye(d) - 2.0 * np.outer(v, v) / (v @ v)
    # H maps e to sign·u, so row d-1 of H is ±u and rows 0..d-2 are orthogonal to u.
    return H[:-1].copy()


def hyperplane_to_anchor_basis(
    w: ArrayLike, b: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """From normal and offset to anchor point and basis (seed 003's two definitions).

    The hyperplane ``{x : w·x + b = 0}`` equals ``{anchor + Σ_k α_k basis[k]}``.

    Parameters
    ----------
    w : array-like of shape (n_features,), not all zero
    b : float

    Returns
    -------
    anchor : ndarray of shape (n_features,)
        The point of the hyperplane closest to the origin, ``-b w / ‖w‖²``.
    basis : ndarray of shape (n_features - 1, n_features)
        Orthonormal rows, all orthogonal to ``w``. Oriented so that
        ``det([basis; w/‖w‖]) > 0``, which lets :func:`anchor_basis_to_hyperplane` recover
        the direction of ``w`` (in one dimension the basis is empty and the recovered
        normal is always +1).

    Examples
    --------
    >>> import linlib
    >>> anchor, basis = linlib.hyperplane_to_anchor_basis(w=[0, 2], b=-2)
    >>> anchor
    array([0., 1.])
    >>> basis
    array([[1., 0.]])

    Introduced in 01 — hyperplanes (the two equivalent definitions).
    """
    w_arr = check_vector(w, "w")
    b_val = check_scalar_b(b)
    norm = _norm_nonzero(w_arr, "A hyperplane")
    u = w_arr / norm
    anchor = -b_val * w_arr / (norm * norm)
    basis = _orthonormal_complement(u)
    if basis.shape[0] > 0 and np.linalg.det(np.vstack([basis, u])) < 0:
        basis[0] = -basis[0]
    return anchor, basis


def anchor_basis_to_hyperplane(
    anchor: ArrayLike, basis: ArrayLike
) -> tuple[NDArray[np.float64], float]:
    """From anchor point and basis to unit normal and offset (seed 003's two definitions).

    Parameters
    ----------
    anchor : array-like of shape (n_features,)
        Any point of the hyperplane.
    basis : array-like of shape (n_features - 1, n_features)
        Linearly independent rows spanning the hyperplane's directions (seed 003 asks for
        pairwise orthogonal ones; any independent rows give the same hyperplane). For one
        feature pass an empty array of shape (0, 1).

    Returns
    -------
    w : ndarray of shape (n_features,)
        The unit normal, oriented so that ``det([basis; w]) > 0``.
    b : float
        ``-w·anchor``, so that ``w·anchor + b = 0``.

    Raises
    ------
    ValueError
        If the shapes do not match or the rows of ``basis`` are linearly dependent.

    Examples
    --------
    >>> import linlib
    >>> linlib.anchor_basis_to_hyperplane(anchor=[0, 1], basis=[[1, 0]])
    (array([0., 1.]), -1.0)

    Introduced in 01 — hyperplanes (the two equivalent definitions).
    """
    a = check_vector(anchor, "anchor")
    d = a.shape[0]
    B = np.asarray(basis, dtype=np.float64)
    if B.size == 0:
        B = B.reshape(0, d)
    if B.ndim != 2 or B.shape != (d - 1, d):
        raise ValueError(
            f"basis must have shape (n_features - 1, n_features) = ({d - 1}, {d}); got {B.shape}."
        )
    if not np.isfinite(B).all():
        raise ValueError("basis contains NaN or infinite values.")
    if d == 1:
        w = np.ones(1)
    else:
        # The last right-singular vector spans the orthogonal complement of the rows.
        _, s, vt = np.linalg.svd(B)
        if s[-1] <= 1e-12 * max(s[0], 1e-300):
            raise ValueError("The rows of basis are linearly dependent; they span no hyperplane.")
        w = vt[-1] / np.linalg.norm(vt[-1])
        if np.linalg.det(np.vstack([B, w])) < 0:
            w = -w
    return w, float(-(w @ a))
