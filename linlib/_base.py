"""What every linlib classifier shares: scikit-learn's API (for two classes, most of them).

Private on purpose: the grading helpers disable a public class by its *own* methods, so
a method that lives here keeps working for the other classes.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin

from linlib._validation import validate_parameter_constraints, validate_predict_data


class _Estimator(BaseEstimator):
    """scikit-learn's ``BaseEstimator``, with linlib's messages for bad hyperparameters.

    A subclass declares what each ``__init__`` parameter may be in
    ``_parameter_constraints`` (scikit-learn's constraints), and its ``fit`` starts with
    ``self._validate_params()``, as scikit-learn's estimators do.
    """

    _parameter_constraints: ClassVar[dict] = {}

    def _validate_params(self) -> None:
        validate_parameter_constraints(self._parameter_constraints, self.get_params(deep=False))


class _BinaryClassifier(ClassifierMixin, _Estimator):
    """A two-class classifier: ``predict`` is the sign of ``decision_function``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def predict(self, X: ArrayLike) -> np.ndarray:
        """``classes_[1]`` where ``decision_function`` is > 0, else ``classes_[0]``.

        A point with decision value 0 (on the plane) gets ``classes_[0]``, as in
        scikit-learn.
        """
        positive = self.decision_function(X) > 0  # raises NotFittedError first
        return self.classes_[positive.astype(np.intp)]


class _LinearBinaryClassifier(_BinaryClassifier):
    """A two-class classifier given by one hyperplane ``coef_``, ``intercept_``."""

    def _set_hyperplane(self, classes: np.ndarray, w: NDArray[np.float64], b: float) -> None:
        self.classes_ = classes
        self.coef_ = np.asarray(w, dtype=np.float64).reshape(1, -1)
        self.intercept_ = np.array([float(b)])

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Activations ``a = X @ coef_[0] + intercept_[0]``, shape (n_samples,).

        Positive values mean ``classes_[1]``.
        """
        X_arr = validate_predict_data(self, X)
        return X_arr @ self.coef_[0] + self.intercept_[0]
