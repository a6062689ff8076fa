"""The perceptron: online, averaged, voted and batch, plus traces and cycle detection.

The course's conventions (notebooks/README.md): labels -1/+1, activation ``a = w·x + b``, predict
+1 iff ``a > 0``, update when ``y·a ≤ 0`` with ``w += y·x`` and ``b += y``, examples in a
fixed order (the given one, or a seeded shuffle), stop after an epoch without updates or at
``max_epochs``.
"""

from __future__ import annotations

import contextlib
import math
from typing import ClassVar, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

from linlib._base import _BinaryClassifier, _LinearBinaryClassifier
from linlib._validation import (
    EPOCHS,
    MAX_EPOCHS,
    NON_NEGATIVE,
    POSITIVE,
    check_binary_X_y,
    check_X,
    validate_fit_data,
    validate_parameter_constraints,
    validate_predict_data,
)

__all__ = [
    "BatchPerceptron",
    "Perceptron",
    "PerceptronCycle",
    "Step",
    "VotedPerceptron",
    "perceptron_cycle",
    "perceptron_epoch",
    "perceptron_trace",
    "perceptron_update",
]

# Smallest block of upcoming examples checked with one matrix-vector product. Below this
# size numpy's call overhead dominates; the block then grows while no mistake turns up.
_MIN_BLOCK = 16
# Largest block, in bytes of X: after a mistake the rest of the block is scanned again with
# the new weights, and that rescan should hit the CPU cache, not main memory.
_MAX_BLOCK_BYTES = 1 << 20
_U64 = 2.0**-53  # unit roundoff of float64

_blas_controller = None


def _single_threaded_blas():
    """Context manager limiting BLAS to one thread.

    The scans are many small, memory-bound matrix-vector products: a second BLAS thread
    gains little on an idle machine and loses a lot on a busy one (or under pytest -n 2).
    """
    global _blas_controller
    if _blas_controller is None:
        from threadpoolctl import ThreadpoolController

        _blas_controller = ThreadpoolController()
    return _blas_controller.limit(limits=1, user_api="blas")


def _sequential_activation(x: NDArray[np.float64], w: NDArray[np.float64], b: float) -> float:
    """``w·x + b`` summed left to right in float64, exactly as scikit-learn's compiled loop.

    Used only for the rare near-ties, where the summation order could flip the sign.
    """
    total = 0.0
    for w_j, x_j in zip(w.tolist(), x.tolist(), strict=True):
        total += w_j * x_j
    return total + b


class _Scanner:
    """Runs perceptron epochs over fixed data, finding mistakes block by block.

    The textbook loop visits one example at a time. Here the margins ``y_i (w·x_i + b)`` of
    a block of upcoming examples come from one matrix-vector product, compared with a
    bound ``thr`` on their rounding error. Rows with a computed margin above ``thr`` are
    certainly not mistakes, neither in exact arithmetic nor in scikit-learn's loop; below
    ``-thr`` they certainly are. A row in between is decided exactly: by its own margin
    when that is clear of its own error bound, and otherwise (a near-tie, such as an exact
    a = 0 on integer data) by summing ``w·x`` left to right and then adding ``b``, as
    scikit-learn's compiled loop does. After an update the scan restarts just after the
    updated example. The updates are ``w += y·x``, ``b += y`` in the textbook order, so
    the weights equal the textbook loop's bit for bit.
    """

    def __init__(
        self,
        X: NDArray[np.float64],
        y: NDArray[np.float64],
        aug_norms: NDArray[np.float64] | None = None,
    ) -> None:
        self.X, self.y = X, y
        self.n, self.d = X.shape
        if aug_norms is None:
            aug_norms = np.sqrt(np.einsum("ij,ij->i", X, X) + 1.0)
        self.aug_norms = aug_norms  # ‖[x_i, 1]‖
        self.R = float(aug_norms.max())  # bounds the norms of a whole block
        # Error of a float64 margin (dot product, + b, times ±1), in any summation order:
        # at most γ_{d+1}·‖[x, 1]‖·‖[w, b]‖ + underflow; (d + 4)·u covers γ_{d+1} and the
        # + b. Our margin and scikit-learn's left-to-right one may err in opposite
        # directions, so a sign is certain to agree with sklearn's only beyond twice that.
        self.k64 = 2.02 * (self.d + 4) * _U64
        self.tiny64 = (self.d + 1) * 2.0**-1020
        self.max_block = max(_MIN_BLOCK, _MAX_BLOCK_BYTES // (8 * self.d))

    def _error_bound(self, norms: float) -> float:
        """Bound on the error of a margin whose ``‖[x, 1]‖·‖[w, b]‖`` is at most ``norms``."""
        if not norms < 1e300:
            return math.inf  # some summation order might overflow: decide exactly
        return self.k64 * norms * 1.01 + self.tiny64

    def _is_mistake(self, k: int, w: NDArray[np.float64], b: float) -> bool:
        """Decide example k exactly as the textbook loop in float64 would."""
        x = self.X[k]
        margin = self.y[k] * (float(x @ w) + b)
        bound = self._error_bound(self.aug_norms[k] * math.sqrt(float(w @ w) + b * b))
        if margin > bound:
            return False
        if margin < -bound:
            return True
        return self.y[k] * _sequential_activation(x, w, b) <= 0.0

    def run_epoch(
        self, w: NDArray[np.float64], b: float, updates: list[int] | None = None
    ) -> tuple[float, int]:
        """One epoch in order; updates ``w`` in place, returns the new ``b`` and #updates."""
        n, X, y = self.n, self.X, self.y
        i = 0
        block = _MIN_BLOCK
        n_updates = 0
        thr = self._error_bound(self.R * math.sqrt(float(w @ w) + b * b))
        while i < n:
            end = min(i + block, n)
            m = X[i:end] @ w
            m += b
            m *= y[i:end]
            unsure = ~(m > thr)  # NaN (overflow) counts as unsure
            j = int(unsure.argmax())
            k = -1
            while unsure[j]:
                if m[j] < -thr or self._is_mistake(i + j, w, b):
                    k = i + j
                    break
                # A near-tie that is not a mistake: look for the next unsure row.
                rest = unsure[j + 1 :]
                if rest.size == 0:
                    break
                j += 1 + int(rest.argmax())
            if k < 0:
                i = end
                block = min(2 * block, self.max_block)
                continue
            w += y[k] * X[k]
            b += y[k]
            n_updates += 1
            if updates is not None:
                updates.append(k)
            thr = self._error_bound(self.R * math.sqrt(float(w @ w) + b * b))
            # Mistakes come in bursts early on and rarely later: look about twice as far
            # ahead as the gap to this mistake.
            block = min(max(_MIN_BLOCK, 2 * (k + 1 - i)), self.max_block)
            i = k + 1
        return b, n_updates


def _epoch_orders(n: int, max_epochs: int, shuffle: bool, random_state: object):
    """Yield each epoch's example order (``None`` means the given order)."""
    if not shuffle:
        for _ in range(max_epochs):
            yield None
        return
    # The course never runs unseeded: random_state=None means seed 0.
    rng = check_random_state(0 if random_state is None else random_state)
    for _ in range(max_epochs):
        yield rng.permutation(n)


class _OnlineRun(NamedTuple):
    w: NDArray[np.float64]
    b: float
    n_epochs: int
    converged: bool
    update_steps: NDArray[np.int64]  # global 0-based step number of each update
    update_rows: NDArray[np.int64]  # row of X of each update


def _online_perceptron(
    X: NDArray[np.float64],
    y: NDArray[np.float64],
    max_epochs: int,
    shuffle: bool = False,
    random_state: object = None,
) -> _OnlineRun:
    n, d = X.shape
    w = np.zeros(d)
    b = 0.0
    steps: list[int] = []
    rows: list[int] = []
    n_epochs = 0
    converged = False
    scanner = _Scanner(X, y)
    # OpenBLAS splits a matrix-vector product over threads from about 9216 entries on.
    with _single_threaded_blas() if n * d >= 9216 else contextlib.nullcontext():
        for epoch, order in enumerate(_epoch_orders(n, max_epochs, shuffle, random_state)):
            if order is None:
                run = scanner
            else:
                run = _Scanner(X[order], y[order], scanner.aug_norms[order])
            positions: list[int] = []
            b, n_updates = run.run_epoch(w, b, positions)
            n_epochs = epoch + 1
            steps.extend(epoch * n + p for p in positions)
            rows.extend(positions if order is None else order[positions].tolist())
            if n_updates == 0:
                converged = True
                break
    return _OnlineRun(
        w,
        b,
        n_epochs,
        converged,
        np.asarray(steps, dtype=np.int64),
        np.asarray(rows, dtype=np.int64),
    )


class Perceptron(_LinearBinaryClassifier):
    """The textbook online perceptron (with bias), scikit-learn style.

    Start from ``w = 0, b = 0``; visit the examples in a fixed order; whenever
    ``y·(w·x + b) ≤ 0`` (a tie is a mistake) set ``w += y·x`` and ``b += y``; stop after an
    epoch without updates or after ``max_epochs`` epochs. With ``shuffle=False`` the result
    is identical, bit for bit, to scikit-learn's ``Perceptron(shuffle=False, tol=None,
    max_iter=T)`` with ``T = max_epochs``, and once converged with any ``T ≥ n_iter_``
    (scikit-learn keeps running, but nothing changes after an epoch without updates).

    Parameters
    ----------
    max_epochs : int, default=1000
        Cap on the number of passes over the data (scikit-learn's ``max_iter``).
    average : bool, default=False
        If True, ``coef_`` and ``intercept_`` are the averaged perceptron: the mean of the
        weights *after each of the T·N steps* (T epochs run, N examples; the initial
        ``w = 0`` is not counted), the normalisation scikit-learn's ``SGDClassifier(
        average=True)`` uses. Dividing by T·N + 1 instead (counting ``w = 0``) scales
        ``(w, b)`` by a positive factor and changes no prediction.
    shuffle : bool, default=False
        If True, each epoch visits the examples in a new permutation drawn from a
        generator seeded with ``random_state``.
    random_state : int, RandomState or None, default=None
        Seed for ``shuffle``; ``None`` means seed 0 (the course never runs unseeded).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted labels; ``classes_[1]`` is the +1 class.
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    n_iter_ : int
        Number of epochs run (including the final one without updates, if any).
    n_updates_ : int
        Number of updates (mistakes) in total.
    converged_ : bool
        True if the last epoch made no update, i.e. the training data are separated.
    n_features_in_ : int

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> model = linlib.Perceptron().fit(X, y)
    >>> model.coef_, model.intercept_
    (array([[1., 1.]]), array([-1.]))
    >>> model.predict(X)
    array([-1, -1, -1,  1])
    >>> model.n_iter_, model.n_updates_, model.converged_
    (2, 1, True)
    >>> from sklearn.linear_model import Perceptron
    >>> reference = Perceptron(shuffle=False, tol=None, max_iter=model.n_iter_).fit(X, y)
    >>> bool((reference.coef_ == model.coef_).all() and reference.intercept_ == model.intercept_)
    True

    Introduced in 02 — the perceptron update rule.
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_epochs": [EPOCHS],
        "average": ["boolean"],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        max_epochs: int = MAX_EPOCHS,
        average: bool = False,
        shuffle: bool = False,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.max_epochs = max_epochs
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> Perceptron:
        """Run the perceptron on ``X`` (n_samples, n_features) and labels ``y``.

        Returns ``self``.
        """
        self._validate_params()
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        run = _online_perceptron(
            X_arr, y_pm, self.max_epochs, bool(self.shuffle), self.random_state
        )
        w, b = run.w, run.b
        if self.average:
            n_steps = run.n_epochs * X_arr.shape[0]
            # Σ_t w_t over steps t = 1..S equals S·w_S - Σ_k (t_k - 1)·u_k, where update
            # u_k = y·[x, 1] happened at step t_k; only the updates need to be visited.
            lag = run.update_steps.astype(np.float64)  # t_k - 1 (0-based steps)
            signs = y_pm[run.update_rows]
            w = w - (lag * signs) @ X_arr[run.update_rows] / n_steps
            b = b - float(lag @ signs) / n_steps
        self._set_hyperplane(classes, w, b)
        self.n_iter_ = run.n_epochs
        self.n_updates_ = int(run.update_steps.shape[0])
        self.converged_ = run.converged
        return self


class VotedPerceptron(_BinaryClassifier):
    """Freund & Schapire's voted perceptron.

    Runs the online perceptron (same order, tie rule and stopping rule as
    :class:`Perceptron`) and keeps every weight vector it passes through with its survival
    count: a vector made by an update starts at count 1 (the example that created it) and
    gains 1 for every following example it classifies correctly. The initial ``w = 0``
    keeps count 0 because the very first example is always a mistake (``a = 0``).
    (Seed 002's pseudocode starts new vectors at 0; the course follows Freund & Schapire.)

    Prediction: ``sign(Σ_k c_k · sign(w_k·x + b_k))`` with the course's sign (``> 0`` → +1).

    Parameters
    ----------
    max_epochs : int, default=1000
        Cap on the number of passes over the data.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    weights_ : ndarray of shape (n_vectors, n_features)
        The weight vectors in the order they were made, starting with ``w = 0``.
    intercepts_ : ndarray of shape (n_vectors,)
    counts_ : ndarray of shape (n_vectors,), int
        Survival counts; they sum to ``n_iter_ · n_samples``.
    n_iter_, n_updates_, converged_ : as in :class:`Perceptron`

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> model = linlib.VotedPerceptron().fit(X, y)
    >>> model.counts_, model.n_iter_ * len(y)
    (array([0, 8]), 8)
    >>> model.predict(X)
    array([-1, -1, -1,  1])

    Introduced in 02 — the perceptron update rule (voted perceptron).
    """

    _parameter_constraints: ClassVar[dict] = {"max_epochs": [EPOCHS]}

    def __init__(self, *, max_epochs: int = MAX_EPOCHS) -> None:
        self.max_epochs = max_epochs

    def fit(self, X: ArrayLike, y: ArrayLike) -> VotedPerceptron:
        """Run the perceptron and record its weight vectors and survival counts."""
        self._validate_params()
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        run = _online_perceptron(X_arr, y_pm, self.max_epochs)
        n_steps = run.n_epochs * X_arr.shape[0]
        signs = y_pm[run.update_rows]
        steps = [X_arr[run.update_rows] * signs[:, None]]
        self.weights_ = np.vstack([np.zeros((1, X_arr.shape[1])), np.cumsum(steps[0], axis=0)])
        self.intercepts_ = np.concatenate([[0.0], np.cumsum(signs)])
        # Vector k (k ≥ 1) lives from its update step t_k to the step before the next update.
        starts = np.concatenate([[0], run.update_steps])
        ends = np.concatenate([run.update_steps, [n_steps]])
        self.counts_ = (ends - starts).astype(np.int64)
        self.classes_ = classes
        self.n_iter_ = run.n_epochs
        self.n_updates_ = int(run.update_steps.shape[0])
        self.converged_ = run.converged
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """The vote ``Σ_k c_k · sign(w_k·x + b_k)``, shape (n_samples,); > 0 means +1."""
        X_arr = validate_predict_data(self, X)
        votes = np.zeros(X_arr.shape[0])
        # Chunks keep the (n_samples, n_vectors) activation matrix small.
        chunk = max(1, 2**22 // max(1, self.weights_.shape[0]))
        for start in range(0, X_arr.shape[0], chunk):
            a = X_arr[start : start + chunk] @ self.weights_.T + self.intercepts_
            votes[start : start + chunk] = np.where(a > 0, 1.0, -1.0) @ self.counts_
        return votes


class BatchPerceptron(_LinearBinaryClassifier):
    """Seed 002's batch perceptron, with the bias kept as ``b``.

    Each epoch computes all activations with the current ``(w, b)``, sums
    ``y_i·[x_i, 1]`` over the mistakes (``y_i a_i ≤ 0``) and divides by N, the number of
    *all* examples, as seed 002 does: that is ``delta``. It moves ``[w, b] += eta · delta``
    and then, as seed 002's "do … until", stops if ``‖delta‖ < tol`` or the epoch had no
    mistake (``delta = 0``, nothing moved), or after ``max_epochs`` epochs.

    Parameters
    ----------
    eta : float, default=1.0
        Learning rate (> 0). From ``w = 0`` it only scales ``(w, b)``, so it changes no
        prediction; it is there because seed 002 has it.
    tol : float, default=1e-9
        Stop when the norm of the averaged update is below this (≥ 0).
    max_epochs : int, default=1000
        Cap on the number of passes over the data.

    Attributes
    ----------
    classes_, coef_, intercept_ : as in :class:`Perceptron`
    n_iter_ : int
        Number of epochs (batch updates computed).
    converged_ : bool
        True if the final ``(w, b)`` makes no mistake on the training data.

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> model = linlib.BatchPerceptron().fit(X, y)
    >>> model.predict(X), model.converged_
    (array([-1, -1, -1,  1]), True)

    Introduced in 02 — the perceptron update rule (batch perceptron).
    """

    _parameter_constraints: ClassVar[dict] = {
        "eta": [POSITIVE],
        "tol": [NON_NEGATIVE],
        "max_epochs": [EPOCHS],
    }

    def __init__(
        self, *, eta: float = 1.0, tol: float = 1e-9, max_epochs: int = MAX_EPOCHS
    ) -> None:
        self.eta = eta
        self.tol = tol
        self.max_epochs = max_epochs

    def fit(self, X: ArrayLike, y: ArrayLike) -> BatchPerceptron:
        """Run batch updates until the averaged update is below ``tol``."""
        self._validate_params()
        eta, tol = float(self.eta), float(self.tol)
        X_arr, y_pm, classes = validate_fit_data(self, X, y)
        n = X_arr.shape[0]
        w = np.zeros(X_arr.shape[1])
        b = 0.0
        n_epochs = 0
        for n_epochs in range(1, self.max_epochs + 1):  # noqa: B007 (used after the loop)
            mistakes = y_pm * (X_arr @ w + b) <= 0.0
            delta_w = y_pm[mistakes] @ X_arr[mistakes] / n
            delta_b = float(y_pm[mistakes].sum()) / n
            # Seed 002's "do … until": the step is made, then the loop may stop.
            w = w + eta * delta_w
            b = b + eta * delta_b
            if not mistakes.any() or math.sqrt(delta_w @ delta_w + delta_b * delta_b) < tol:
                break
        self._set_hyperplane(classes, w, b)
        self.n_iter_ = n_epochs
        self.converged_ = not (y_pm * (X_arr @ w + b) <= 0.0).any()
        return self


class Step(NamedTuple):
    """One example visit of the online perceptron (see :func:`perceptron_trace`).

    Examples
    --------
    >>> import linlib
    >>> linlib.perceptron_trace(*linlib.boolean_table("and"))[0]
    Step(epoch=1, index=0, x=array([-1., -1.]), y=-1, activation=0.0, updated=True,
         w=array([1., 1.]), b=-1.0)

    Introduced in 02 — the perceptron update rule.
    """

    epoch: int  # 1 for the first pass over the data
    # the row's index shadows tuple.index on purpose: the notebooks print and read step.index
    index: int  # type: ignore[assignment]  # row of X (0-based)
    x: NDArray[np.float64]
    y: int  # -1 or +1
    activation: float  # a = w·x + b *before* this step
    updated: bool  # y·a ≤ 0
    w: NDArray[np.float64]  # after this step
    b: float  # after this step


def perceptron_trace(X: ArrayLike, y: ArrayLike, max_epochs: int = MAX_EPOCHS) -> list[Step]:
    """Every step of the online perceptron, for step tables and plots.

    Same algorithm as :class:`Perceptron` (given order, update when ``y·a ≤ 0``) and same
    stopping rule: the trace ends with the first epoch without updates (included), or after
    ``max_epochs`` epochs.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Any two labels; scikit-learn's encoding (sorted, the second is +1).
    max_epochs : int, default=1000
        Cap on the number of passes over the data.

    Returns
    -------
    steps : list of Step
        One per example visit: ``epoch`` (from 1), ``index`` (row of ``X``), ``x``, ``y``
        (-1/+1), ``activation`` before the step, ``updated``, and ``w``, ``b`` after it.

    Examples
    --------
    >>> import linlib
    >>> steps = linlib.perceptron_trace(*linlib.boolean_table("and"))
    >>> len(steps), sum(step.updated for step in steps), steps[-1].epoch
    (8, 1, 2)
    >>> steps[-1].w, steps[-1].b
    (array([1., 1.]), -1.0)

    Introduced in 02 — the perceptron update rule (seed 003's trace).
    """
    validate_parameter_constraints({"max_epochs": [EPOCHS]}, {"max_epochs": max_epochs})
    X_arr, y_pm, _ = check_binary_X_y(X, y)
    w = np.zeros(X_arr.shape[1])
    b = 0.0
    steps: list[Step] = []
    for epoch in range(1, max_epochs + 1):
        any_update = False
        for i in range(X_arr.shape[0]):
            x = X_arr[i]
            # Left-to-right sum, then + b: the textbook's (and scikit-learn's) arithmetic.
            a = _sequential_activation(x, w, b)
            updated = y_pm[i] * a <= 0.0
            if updated:
                w = w + y_pm[i] * x
                b = b + float(y_pm[i])
                any_update = True
            steps.append(Step(epoch, i, x.copy(), int(y_pm[i]), a, bool(updated), w.copy(), b))
        if not any_update:
            break
    return steps


def perceptron_update(
    w: ArrayLike, b: float, x: ArrayLike, y: float
) -> tuple[NDArray[np.float64], float, bool]:
    """One step of the online perceptron on the example ``(x, y)``.

    If ``y·(w·x + b) ≤ 0`` (a mistake, a tie included) return ``(w + y·x, b + y, True)``,
    otherwise ``(w, b, False)``. The ``w`` given is never modified: a new float array is
    returned either way.

    Parameters
    ----------
    w : array-like of shape (n_features,)
    b : float
    x : array-like of shape (n_features,)
    y : int or float, -1 or +1

    Returns
    -------
    w_new : ndarray of shape (n_features,)
    b_new : float
    updated : bool
        True when the step changed ``(w, b)``.

    Examples
    --------
    >>> import linlib
    >>> linlib.perceptron_update(w=[0, 0], b=0.0, x=[1, 2], y=1)
    (array([1., 2.]), 1.0, True)
    >>> linlib.perceptron_update(w=[1, 2], b=1.0, x=[1, 2], y=1)
    (array([1., 2.]), 1.0, False)

    Introduced in 02 — the perceptron update rule (the reference for Exercise 1).
    """
    w_arr = np.array(w, dtype=np.float64, copy=True)
    x_arr = np.asarray(x, dtype=np.float64)
    if w_arr.ndim != 1 or x_arr.shape != w_arr.shape:
        raise ValueError(
            f"w and x must be 1-D of the same length, got shapes {w_arr.shape} and {x_arr.shape}"
        )
    label = float(y)
    if label not in (-1.0, 1.0):
        raise ValueError(f"y must be -1 or +1, got {y!r}")
    # Left-to-right sum, then + b: the textbook's (and scikit-learn's) arithmetic.
    if label * _sequential_activation(x_arr, w_arr, float(b)) <= 0.0:
        return w_arr + label * x_arr, float(b) + label, True
    return w_arr, float(b), False


def perceptron_epoch(
    X: ArrayLike, y: ArrayLike, w: ArrayLike, b: float
) -> tuple[NDArray[np.float64], float, int]:
    """One pass of the online perceptron over ``(X, y)`` in the given order, from ``(w, b)``.

    Applies :func:`perceptron_update` to every example in turn. The ``w`` given is not
    modified.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        -1/+1 labels.
    w : array-like of shape (n_features,)
    b : float

    Returns
    -------
    w_new : ndarray of shape (n_features,)
    b_new : float
    n_updates : int
        Number of updates made during the pass.

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> linlib.perceptron_epoch(X, y, w=[0, 0], b=0.0)
    (array([1., 1.]), -1.0, 1)

    Introduced in 02 — the perceptron update rule (the reference for Exercise 2).
    """
    X_arr = check_X(X)
    y_arr = np.asarray(y, dtype=np.float64).reshape(-1)
    if y_arr.shape[0] != X_arr.shape[0]:
        raise ValueError(f"X has {X_arr.shape[0]} rows but y has {y_arr.shape[0]} labels")
    w_new = np.array(w, dtype=np.float64, copy=True)
    b_new = float(b)
    n_updates = 0
    for x, label in zip(X_arr, y_arr, strict=True):
        w_new, b_new, updated = perceptron_update(w_new, b_new, x, label)
        n_updates += int(updated)
    return w_new, b_new, n_updates


class PerceptronCycle(NamedTuple):
    """A repeated perceptron state at epoch boundaries (see :func:`perceptron_cycle`).

    Examples
    --------
    >>> import linlib
    >>> cycle = linlib.perceptron_cycle(*linlib.make_xor())
    >>> cycle.start, cycle.period, cycle.updates_per_cycle
    (0, 1, 4)

    Introduced in 05 — XOR and linear separability.
    """

    start: int  # epochs completed when the repeated state first occurred (0 = initial)
    period: int  # epochs between two occurrences
    updates_per_cycle: int  # updates made during one period (> 0)
    weights: NDArray[np.float64]  # (period, n_features): w at each boundary of the cycle
    intercepts: NDArray[np.float64]  # (period,): b at each boundary of the cycle


def perceptron_cycle(
    X: ArrayLike, y: ArrayLike, max_epochs: int = MAX_EPOCHS
) -> PerceptronCycle | None:
    """Detect the perceptron cycling: the same ``(w, b)`` at two epoch boundaries.

    The online perceptron (given order) is deterministic, so once ``(w, b)`` at the end of
    an epoch equals an earlier end-of-epoch state, the run repeats forever. That proves
    non-convergence only if the repeated stretch contains an update: a converged run repeats
    its final state too (an epoch without updates leaves ``(w, b)`` as it is), and that
    fixed point is not a cycle. States are compared exactly (``-0.0`` equals ``0.0``). On
    non-separable integer data (XOR) a cycle always comes, because the weights stay bounded
    (the perceptron cycling theorem) and can take finitely many values.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    max_epochs : int, default=1000
        Cap on the number of epochs watched.

    Returns
    -------
    cycle : PerceptronCycle or None
        ``None`` if the perceptron converges (an epoch without updates: a fixed point, not a
        cycle) or no state repeats within ``max_epochs`` epochs. A returned cycle always has
        ``updates_per_cycle > 0``.

    Examples
    --------
    >>> import linlib
    >>> cycle = linlib.perceptron_cycle(*linlib.make_xor())
    >>> cycle.period, cycle.weights, cycle.intercepts
    (1, array([[0., 0.]]), array([0.]))
    >>> linlib.perceptron_cycle(*linlib.boolean_table("and")) is None
    True

    Introduced in 05 — XOR and linear separability (the perceptron cycles on XOR).
    """
    validate_parameter_constraints({"max_epochs": [EPOCHS]}, {"max_epochs": max_epochs})
    X_arr, y_pm, _ = check_binary_X_y(X, y)
    w = np.zeros(X_arr.shape[1])
    b = 0.0
    states: list[tuple[NDArray[np.float64], float]] = [(w.copy(), b)]
    updates_per_epoch: list[int] = []
    seen = {((w + 0.0).tobytes(), b + 0.0): 0}
    scanner = _Scanner(X_arr, y_pm)
    for epoch in range(1, max_epochs + 1):
        b, n_updates = scanner.run_epoch(w, b)
        if n_updates == 0:
            return None
        updates_per_epoch.append(n_updates)
        key = ((w + 0.0).tobytes(), b + 0.0)  # + 0.0 turns -0.0 into 0.0: exact equality
        if key in seen:
            start = seen[key]
            cycle_states = states[start:epoch]
            return PerceptronCycle(
                start=start,
                period=epoch - start,
                updates_per_cycle=int(sum(updates_per_epoch[start:epoch])),
                weights=np.array([s[0] for s in cycle_states]),
                intercepts=np.array([s[1] for s in cycle_states]),
            )
        seen[key] = epoch
        states.append((w.copy(), b))
    return None
