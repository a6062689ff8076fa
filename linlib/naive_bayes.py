"""Two-class multinomial Naive Bayes, written as the linear classifier it is."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from linlib._base import _LinearBinaryClassifier
from linlib._validation import NON_NEGATIVE, validate_fit_data, validate_predict_data

__all__ = ["MultinomialNB"]


class MultinomialNB(_LinearBinaryClassifier):
    """Two-class multinomial Naive Bayes with additive (Laplace) smoothing.

    Estimates ``p_c = N_c / N`` and ``p_ic = (count_ic + alpha) / Σ_j (count_jc + alpha)``,
    then decides like a linear classifier: predict ``classes_[1]`` iff ``w·x + b > 0`` with
    ``w_i = log(p_i1 / p_i0)`` and ``b = log(p_1 / p_0)`` (natural log; another base scales
    ``w`` and ``b`` by the same factor and changes no prediction). The parameters equal
    scikit-learn's ``MultinomialNB(alpha=alpha, force_alpha=True)``.

    ``alpha=0`` and a word unseen in one class: as in scikit-learn, ``feature_log_prob_``
    holds ``log 0 = -inf`` there, so ``coef_`` is ``+inf`` (word never seen in
    ``classes_[0]``) or ``-inf`` (never seen in ``classes_[1]``), and ``nan`` for a column
    that is zero in both classes. ``decision_function`` uses the convention
    ``0·(±inf) = 0`` — a word absent from a document says nothing — so a document
    containing such a word gets ``±inf`` (and ``nan``, predicted as ``classes_[0]``, if it
    has words impossible in both classes). scikit-learn instead computes ``0·(-inf) = nan``
    in its joint log-likelihood, and its ``argmax`` then picks the class with the ``nan``;
    this class gives the mathematically correct answer there. No RuntimeWarning is emitted.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing, ``alpha ≥ 0`` (0 = no smoothing, seed 003's estimates).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Sorted labels; ``classes_[1]`` is the +1 class.
    class_count_ : ndarray of shape (2,)
    feature_count_ : ndarray of shape (2, n_features)
    class_log_prior_ : ndarray of shape (2,)
    feature_log_prob_ : ndarray of shape (2, n_features)
    coef_ : ndarray of shape (1, n_features)
        ``feature_log_prob_[1] - feature_log_prob_[0]``.
    intercept_ : ndarray of shape (1,)
        ``class_log_prior_[1] - class_log_prior_[0]``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> import linlib
    >>> X, y = linlib.toy_counts()
    >>> model = linlib.MultinomialNB(alpha=1.0).fit(X, y)
    >>> model.predict(X)
    array([ 1,  1, -1,  1, -1, -1])
    >>> from sklearn.naive_bayes import MultinomialNB
    >>> reference = MultinomialNB(alpha=1.0, force_alpha=True).fit(X, y)
    >>> bool(np.allclose(model.feature_log_prob_, reference.feature_log_prob_))
    True
    >>> bool((model.predict(X) == reference.predict(X)).all())
    True

    Introduced in 04 — Naive Bayes is a linear classifier.
    """

    _parameter_constraints: ClassVar[dict] = {"alpha": [NON_NEGATIVE]}

    def __init__(self, *, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> MultinomialNB:
        """Count words per class and compute the smoothed log-probabilities.

        ``X`` (n_samples, n_features) holds non-negative counts (or frequencies).
        """
        self._validate_params()
        alpha = float(self.alpha)
        X_arr, y_pm, classes = validate_fit_data(self, X, y, positive_only=True)
        # One-hot class membership in the order of classes_, as scikit-learn builds it.
        Y = np.column_stack([(y_pm < 0), (y_pm > 0)]).astype(np.float64)
        self.classes_ = classes
        self.class_count_ = Y.sum(axis=0)
        self.feature_count_ = Y.T @ X_arr
        smoothed_fc = self.feature_count_ + alpha
        smoothed_cc = smoothed_fc.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.feature_log_prob_ = np.log(smoothed_fc) - np.log(smoothed_cc.reshape(-1, 1))
            self.coef_ = (self.feature_log_prob_[1] - self.feature_log_prob_[0]).reshape(1, -1)
        self.class_log_prior_ = np.log(self.class_count_) - np.log(self.class_count_.sum())
        self.intercept_ = np.array([self.class_log_prior_[1] - self.class_log_prior_[0]])
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``X @ coef_[0] + intercept_[0]`` (natural log), with ``0·(±inf) = 0``.

        Positive values mean ``classes_[1]``; shape (n_samples,).
        """
        X_arr = validate_predict_data(self, X)
        coef = self.coef_[0]
        finite = np.isfinite(coef)
        scores = X_arr @ np.where(finite, coef, 0.0) + self.intercept_[0]
        if finite.all():
            return scores
        # Only documents that contain a word with an infinite weight are affected.
        present = X_arr[:, ~finite] > 0
        weights = coef[~finite]
        with np.errstate(invalid="ignore"):
            plus = (present & (weights == np.inf)).any(axis=1)
            minus = (present & (weights == -np.inf)).any(axis=1)
            undefined = (present & np.isnan(weights)).any(axis=1) | (plus & minus)
        scores = scores.copy()
        scores[plus] = np.inf
        scores[minus] = -np.inf
        scores[undefined] = np.nan
        return scores
