"""Data the course makes itself: separable sets with a chosen margin, boolean functions,
and seed 003's toy corpus. Everything is seeded; nothing is downloaded.
"""

from __future__ import annotations

from numbers import Integral
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from sklearn.utils._param_validation import Interval

from linlib._validation import NON_NEGATIVE, POSITIVE, check_vector, validate_parameter_constraints
from linlib.geometry import _orthonormal_complement

__all__ = [
    "boolean_table",
    "make_separable",
    "make_xor",
    "toy_corpus",
    "toy_counts",
]


def _sample_outside_slab(
    rng: np.random.Generator, n: int, d: int, margin: float, radius: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``n`` points uniform in {z : ‖z‖ ≤ radius, |z_0| ≥ margin}: returns (|z_0|, rest).

    For z uniform in the d-ball of radius R, ``(z_0/R)²`` follows Beta(1/2, (d+1)/2);
    truncating that law to ``≥ (margin/R)²`` by inverse transform samples the slab's
    outside exactly, with no rejection (so a wide margin in many dimensions is cheap).
    The remaining coordinates are uniform in the (d-1)-ball of radius √(R² - z_0²).
    """
    # The law's methods called with its parameters, not a frozen stats.beta(a, b): the
    # same numbers, without the half millisecond that freezing a distribution costs (the
    # notebooks draw a data set in loops of up to a hundred).
    a, b = 0.5, (d + 1) / 2.0
    tail = stats.beta.sf((margin / radius) ** 2, a, b)
    u = 1.0 - rng.random(n)  # in (0, 1]
    t = radius * np.sqrt(np.clip(stats.beta.isf(u * tail, a, b), 0.0, 1.0))
    if d == 1:
        return t, np.zeros((n, 0))
    direction = rng.standard_normal((n, d - 1))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    r_max = np.sqrt(np.maximum(radius * radius - t * t, 0.0))
    r = r_max * rng.random(n) ** (1.0 / (d - 1))
    return t, direction * r[:, None]


@overload
def make_separable(
    n_samples: int,
    n_features: int = ...,
    margin: float = ...,
    radius: float = ...,
    random_state: int | np.random.Generator | None = ...,
    *,
    center: ArrayLike | None = ...,
    direction: ArrayLike | None = ...,
    return_separator: Literal[False] = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]: ...


@overload
def make_separable(
    n_samples: int,
    n_features: int = ...,
    margin: float = ...,
    radius: float = ...,
    random_state: int | np.random.Generator | None = ...,
    *,
    center: ArrayLike | None = ...,
    direction: ArrayLike | None = ...,
    return_separator: Literal[True],
) -> tuple[NDArray[np.float64], NDArray[np.int64], tuple[NDArray[np.float64], float]]: ...


def make_separable(
    n_samples: int,
    n_features: int = 2,
    margin: float = 0.1,
    radius: float = 1.0,
    random_state: int | np.random.Generator | None = 0,
    *,
    center: ArrayLike | None = None,
    direction: ArrayLike | None = None,
    return_separator: bool = False,
) -> (
    tuple[NDArray[np.float64], NDArray[np.int64]]
    | tuple[NDArray[np.float64], NDArray[np.int64], tuple[NDArray[np.float64], float]]
):
    """A linearly separable two-class set with a guaranteed margin and radius.

    Points are uniform in the ball ``‖x - center‖ ≤ radius`` outside the slab
    ``|u·x + c| < margin`` around the hyperplane through ``center`` with unit normal ``u``
    (``c = -u·center``); the label is the side: ``y = sign(u·x + c)``.

    Guaranteed for the returned ``X, y`` and unit separator ``(u, c)`` (checked in floating
    point before returning):

    - ``‖x_i - center‖ ≤ radius`` for every row (so ``‖x_i‖ ≤ radius`` with the default
      ``center = 0``);
    - ``y_i (u·x_i + c) ≥ margin`` for every row, with ``‖u‖ = 1``: the geometric margin of
      the data for ``(u, c)`` is at least ``margin`` (the best achievable margin may be
      larger);
    - ``ceil(n/2)`` labels +1 and ``floor(n/2)`` labels -1, in a seeded random order.

    Parameters
    ----------
    n_samples : int, ≥ 2
    n_features : int, default=2
    margin : float, default=0.1
        Half-width of the empty slab, ``0 ≤ margin < radius``.
    radius : float, default=1.0
    random_state : int, numpy Generator or None, default=0
        Seed (``None`` means 0: the course never runs unseeded).
    center : array-like of shape (n_features,), optional
        Centre of the ball (default the origin). An off-centre ball shows what the bias
        does to the perceptron (notebook 03).
    direction : array-like of shape (n_features,), optional
        Normal of the separator (normalised); default a random unit vector.
    return_separator : bool, default=False
        Also return ``(u, c)``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int, values -1/+1
    (u, c) : tuple (ndarray of shape (n_features,), float), only if ``return_separator``

    Examples
    --------
    >>> import linlib
    >>> X, y, (u, c) = linlib.make_separable(
    ...     50, margin=0.2, random_state=1, return_separator=True
    ... )
    >>> X.shape, int((y == 1).sum()), int((y == -1).sum())
    ((50, 2), 25, 25)
    >>> bool(min(y * (X @ u + c)) >= 0.2)
    True
    >>> linlib.is_linearly_separable(X, y)
    True

    Introduced in 02 — the perceptron update rule (separable data); its margin guarantee is
    used in 03 — the convergence proof.
    """
    validate_parameter_constraints(
        {
            "n_samples": [Interval(Integral, 2, None, closed="left")],
            "n_features": [Interval(Integral, 1, None, closed="left")],
            "radius": [POSITIVE],
            "margin": [NON_NEGATIVE],
        },
        {"n_samples": n_samples, "n_features": n_features, "radius": radius, "margin": margin},
    )
    n, d, radius, margin = int(n_samples), int(n_features), float(radius), float(margin)
    if not margin < radius:
        raise ValueError(f"margin must satisfy 0 ≤ margin < radius = {radius}; got {margin!r}.")
    rng = np.random.default_rng(0 if random_state is None else random_state)
    center_arr = np.zeros(d) if center is None else check_vector(center, "center", size=d)
    if direction is None:
        u = rng.standard_normal(d)
    else:
        u = check_vector(direction, "direction", size=d).copy()
    norm = np.linalg.norm(u)
    if norm == 0:
        raise ValueError("direction must not be the zero vector.")
    u = u / norm
    c = -float(u @ center_arr)
    # Orthonormal frame (u, complement): coordinates are sampled in that frame.
    frame = np.vstack([u, _orthonormal_complement(u)]) if d > 1 else u.reshape(1, 1)
    y = np.where(np.arange(n) < (n + 1) // 2, 1, -1)
    rng.shuffle(y)
    # Sample with a slightly narrower ball and wider slab, so that rounding in the final
    # coordinates cannot break the guarantees; verify and redraw any row that still does.
    slack = 1e-9 * (radius + margin + float(np.linalg.norm(center_arr)))
    X = np.empty((n, d))
    todo = np.arange(n)
    for _ in range(100):
        t, rest = _sample_outside_slab(
            rng, todo.size, d, min(margin + slack, radius - 2 * slack), radius - slack
        )
        coords = np.column_stack([t * y[todo], rest])
        X[todo] = center_arr + coords @ frame
        sub = X[todo]
        ok = (y[todo] * (sub @ u + c) >= margin) & (
            np.linalg.norm(sub - center_arr, axis=1) <= radius
        )
        todo = todo[~ok]
        if todo.size == 0:
            break
    else:  # pragma: no cover - needs margin within rounding error of radius
        raise ValueError("Could not place points: margin is too close to radius.")
    if return_separator:
        return X, y, (u, c)
    return X, y


_BOOLEAN = {
    "and": lambda p, q: p & q,
    "or": lambda p, q: p | q,
    "nand": lambda p, q: ~(p & q),
    "xor": lambda p, q: p ^ q,
}


def _truth_table(key: str) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    # Private, so that make_xor keeps working while a test disables boolean_table.
    if key == "not":
        X = np.array([[-1], [1]])
        return X, -X[:, 0]
    X = np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]])
    truth = _BOOLEAN[key](X[:, 0] > 0, X[:, 1] > 0)
    return X, np.where(truth, 1, -1)


def boolean_table(name: str) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The truth table of a boolean function on {-1, +1} inputs (+1 = true).

    Parameters
    ----------
    name : {"and", "or", "nand", "xor", "not"}
        "not" has one input; the others two.

    Returns
    -------
    X : ndarray of shape (4, 2) (or (2, 1) for "not"), int
        Rows ``(-1,-1), (-1,1), (1,-1), (1,1)`` (for "not": ``-1, 1``).
    y : ndarray of shape (4,) (or (2,)), int, values -1/+1

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> X
    array([[-1, -1],
           [-1,  1],
           [ 1, -1],
           [ 1,  1]])
    >>> y
    array([-1, -1, -1,  1])

    Introduced in 05 — XOR and linear separability.
    """
    key = str(name).lower()
    if key != "not" and key not in _BOOLEAN:
        raise ValueError(
            f"Unknown boolean function {name!r}; choose one of and, or, nand, xor, not."
        )
    return _truth_table(key)


def make_xor() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The XOR truth table on {-1, +1} inputs: ``boolean_table("xor")``.

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.make_xor()
    >>> y
    array([-1,  1,  1, -1])
    >>> linlib.is_linearly_separable(X, y)
    False

    Introduced in 02 — the perceptron update rule (non-separable data hit the cap); the
    subject of 05 — XOR and linear separability.
    """
    return _truth_table("xor")


_TOY_DOCS = ("aba", "baabaaa", "bbaabbab", "abbaa", "abbb", "bbbaab")
_TOY_LABELS = ("A", "A", "B", "A", "B", "B")


def toy_corpus() -> tuple[list[str], list[str]]:
    """Seed 003's six toy documents over the alphabet {a, b} and their classes A/B.

    Returns
    -------
    documents : list of str
        ``["aba", "baabaaa", "bbaabbab", "abbaa", "abbb", "bbbaab"]``
    labels : list of str
        ``["A", "A", "B", "A", "B", "B"]``

    Examples
    --------
    >>> import linlib
    >>> documents, labels = linlib.toy_corpus()
    >>> len(documents), documents[0], labels[0]
    (6, 'aba', 'A')

    Introduced in 04 — Naive Bayes is a linear classifier.
    """
    return list(_TOY_DOCS), list(_TOY_LABELS)


def toy_counts() -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Seed 003's toy corpus as counts ``(H_a, H_b)`` with labels A = +1, B = -1.

    Seed 003 predicts A when its activation is positive, so A is the +1 class here (note
    that scikit-learn's rule would make the string "B" the +1 class: pass these -1/+1
    labels, not the strings, to reproduce the seed's signs).

    Returns
    -------
    X : ndarray of shape (6, 2), int
        ``[[2, 1], [5, 2], [3, 5], [3, 2], [1, 3], [2, 4]]``
    y : ndarray of shape (6,), int
        ``[1, 1, -1, 1, -1, -1]``

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.toy_counts()
    >>> X.shape, y
    ((6, 2), array([ 1,  1, -1,  1, -1, -1]))

    Introduced in 02 — the perceptron update rule (seed 003's trace) and used again in 04.
    """
    X = np.array([[doc.count("a"), doc.count("b")] for doc in _TOY_DOCS], dtype=np.int64)
    y = np.array([1 if label == "A" else -1 for label in _TOY_LABELS], dtype=np.int64)
    return X, y
