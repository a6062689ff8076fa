"""More than two classes with linear classifiers: one-vs-rest scores and the direct
multiclass perceptron (one weight vector per class)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted, validate_data

from linlib._base import _Estimator
from linlib._validation import EPOCHS, MAX_EPOCHS, check_X

__all__ = ["MulticlassPerceptron", "one_vs_rest_predict"]


def one_vs_rest_predict(X: ArrayLike, W: ArrayLike, b: ArrayLike, classes: ArrayLike) -> NDArray:
    """Predict with one linear score per class: the class with the largest ``w_k·x + b_k``.

    Ties go to the class listed first (``numpy.argmax``), as in scikit-learn's one-vs-rest
    classifiers.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    W : array-like of shape (n_classes, n_features)
        One weight vector per class (row ``k`` scores ``classes[k]`` against the rest).
    b : array-like of shape (n_classes,)
    classes : array-like of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_samples,)
        Entries of ``classes``.

    Examples
    --------
    >>> import linlib
    >>> W, b = [[1, 0], [0, 1]], [0, 0]
    >>> linlib.one_vs_rest_predict([[2, 1], [0, 3]], W, b, classes=["a", "b"])
    array(['a', 'b'], dtype='<U1')

    Introduced in 07 — losses, the dual and kernels (the reference for Exercise 5).
    """
    X_arr = check_X(X)
    W_arr = np.asarray(W, dtype=np.float64)
    b_arr = np.asarray(b, dtype=np.float64).ravel()
    classes_arr = np.asarray(classes)
    if W_arr.ndim != 2 or W_arr.shape[1] != X_arr.shape[1]:
        raise ValueError(f"W must have shape (n_classes, {X_arr.shape[1]}); got {W_arr.shape}")
    if b_arr.shape != (W_arr.shape[0],) or classes_arr.shape != (W_arr.shape[0],):
        raise ValueError("b and classes need one entry per row of W")
    scores = X_arr @ W_arr.T + b_arr
    return classes_arr[np.argmax(scores, axis=1)]


class MulticlassPerceptron(ClassifierMixin, _Estimator):
    """The direct multiclass perceptron: one weight vector (and bias) per class.

    Predict the class with the largest score ``w_k·x + b_k`` (ties: the first class). On
    a mistake (predicted ``p`` ≠ true ``t``) add ``[x, 1]`` to class ``t``'s weights and
    subtract it from class ``p``'s. Examples in the given order; stop after an epoch
    without mistakes or after ``max_epochs``.

    Parameters
    ----------
    max_epochs : int, default=1000
        Cap on the number of passes over the data.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
    n_updates_ : int
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int

    Examples
    --------
    >>> import linlib
    >>> X = [[0, 4], [0, 5], [4, 0], [5, 0], [-4, -4], [-5, -5]]
    >>> y = ["a", "a", "b", "b", "c", "c"]
    >>> model = linlib.MulticlassPerceptron().fit(X, y)
    >>> model.predict(X), model.converged_
    (array(['a', 'a', 'b', 'b', 'c', 'c'], dtype='<U1'), True)

    Introduced in 07 — losses, the dual and kernels.
    """

    _parameter_constraints: ClassVar[dict] = {"max_epochs": [EPOCHS]}

    def __init__(self, *, max_epochs: int = MAX_EPOCHS) -> None:
        self.max_epochs = max_epochs

    def fit(self, X: ArrayLike, y: ArrayLike) -> MulticlassPerceptron:
        """Run the multiclass perceptron; returns ``self``."""
        self._validate_params()
        X_arr, y_arr = validate_data(self, X, y, dtype=np.float64)
        self.classes_ = unique_labels(y_arr)
        target = np.searchsorted(self.classes_, y_arr)
        k, d = len(self.classes_), X_arr.shape[1]
        W, b = np.zeros((k, d)), np.zeros(k)
        n_updates, converged, n_iter = 0, False, 0
        for epoch in range(self.max_epochs):
            n_iter = epoch + 1
            mistakes = 0
            for x, t in zip(X_arr, target, strict=True):
                p = int(np.argmax(W @ x + b))
                if p != t:
                    W[t] += x
                    b[t] += 1.0
                    W[p] -= x
                    b[p] -= 1.0
                    mistakes += 1
            n_updates += mistakes
            if mistakes == 0:
                converged = True
                break
        self.coef_, self.intercept_ = W, b
        self.n_updates_, self.n_iter_, self.converged_ = n_updates, n_iter, converged
        return self

    def _scores(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self)
        X_arr = validate_data(self, X, dtype=np.float64, reset=False)
        return X_arr @ self.coef_.T + self.intercept_

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Scores ``X @ coef_.T + intercept_``, shape (n_samples, n_classes).

        With two classes, scikit-learn's shape (n_samples,): the second class's score
        minus the first's (positive means ``classes_[1]``).
        """
        scores = self._scores(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class with the largest score (ties: the first class)."""
        winners = np.argmax(self._scores(X), axis=1)  # raises NotFittedError first
        return self.classes_[winners]
