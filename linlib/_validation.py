"""Input checks shared by every linlib function that takes data.

The messages are meant for students: they say what was expected and what came.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import type_of_target

__all__ = [
    "as_pm_labels",
    "check_X",
    "check_binary_X_y",
    "check_hyperparameter",
    "check_vector",
    "pm_labels_and_classes",
]


def _as_float_array(X: ArrayLike, name: str) -> NDArray[np.float64]:
    try:
        arr = np.asarray(X)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} could not be turned into an array: {exc}") from exc
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} has complex values; linlib needs real numbers.")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"{name} must contain numbers (got dtype {arr.dtype}); encode categories as "
                "numbers first, e.g. one-hot."
            ) from exc
    return np.asarray(arr, dtype=np.float64)


def check_X(X: ArrayLike, n_features: int | None = None) -> NDArray[np.float64]:
    """Validate a data matrix and return it as a 2-D float64 array.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Lists, integer and boolean arrays are accepted.
    n_features : int, optional
        If given, the number of columns ``X`` must have.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, is empty, has NaN or infinite entries, is not numeric or has
        the wrong number of columns.

    Introduced in 01 — hyperplanes (every function that takes data checks it this way).
    """
    arr = _as_float_array(X, "X")
    if arr.ndim != 2:
        hint = ""
        if arr.ndim == 1:
            hint = (
                " Use X.reshape(-1, 1) for one feature, or X.reshape(1, -1) for one sample "
                "(a list [x1, x2] is one point only inside an outer list: [[x1, x2]])."
            )
        raise ValueError(
            f"X must be 2-D of shape (n_samples, n_features); got {arr.ndim}-D with "
            f"shape {arr.shape}.{hint}"
        )
    if arr.shape[0] == 0:
        raise ValueError(f"X is empty: it has 0 samples (shape {arr.shape}).")
    if arr.shape[1] == 0:
        raise ValueError(f"X has 0 features (shape {arr.shape}).")
    if not np.isfinite(arr).all():
        bad = "NaN" if np.isnan(arr).any() else "infinite"
        raise ValueError(f"X contains {bad} values; remove or impute them first.")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"X has {arr.shape[1]} features, but {n_features} were expected.")
    return arr


def check_vector(v: ArrayLike, name: str, size: int | None = None) -> NDArray[np.float64]:
    """Validate a 1-D finite vector such as a weight vector ``w``.

    Introduced in 01 — hyperplanes.
    """
    arr = _as_float_array(v, name)
    if arr.ndim == 2 and 1 in arr.shape:
        # coef_ of an sklearn estimator has shape (1, n_features); accept it as w.
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector; got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values.")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} has {arr.size} entries, but X has {size} features.")
    return arr


def check_scalar_b(b: ArrayLike, name: str = "b") -> float:
    """Validate an offset ``b`` (a number, or an array holding one number)."""
    arr = np.asarray(b)
    if arr.size != 1:
        raise ValueError(f"{name} must be a single number; got shape {arr.shape}.")
    if arr.dtype.kind not in "biuf" and not isinstance(b, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {b!r}.")
    value = float(arr.reshape(()))
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value}.")
    return value


def _check_y_1d(y: ArrayLike, n_samples: int) -> np.ndarray:
    if y is None:
        raise ValueError("y is None; labels are required.")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-D (one label per sample); got shape {arr.shape}.")
    if arr.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {arr.shape[0]} labels.")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("y contains NaN or infinite values.")
    if arr.dtype.kind == "c":
        raise ValueError("y has complex values; labels must be numbers, bools or strings.")
    if arr.dtype.kind == "O" and any(v is None for v in arr):
        raise ValueError("y contains None.")
    return arr


def _show(value: object) -> str:
    """repr of a label as the user wrote it (1, 'spam'), not numpy's np.int64(1)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _encode_two_classes(arr: np.ndarray) -> tuple[NDArray[np.float64], np.ndarray]:
    target_type = type_of_target(arr, input_name="y")
    classes = np.unique(arr)
    if target_type == "continuous":
        raise ValueError(
            "Unknown label type: y is continuous (non-integer floats); a classifier needs "
            f"class labels, e.g. -1/+1, 0/1 or strings. First values: {arr[:5].tolist()}."
        )
    if classes.shape[0] == 1:
        raise ValueError(
            f"y has only one class ({_show(classes[0])}); a binary classifier needs two classes."
        )
    if classes.shape[0] > 2:
        shown = ", ".join(_show(c) for c in classes[:6]) + (", …" if classes.shape[0] > 6 else "")
        raise ValueError(
            "Only binary classification is supported. The type of the target is "
            f"{target_type}: y has {classes.shape[0]} classes ({shown}), "
            "but linlib takes exactly two classes."
        )
    # scikit-learn's rule: classes sorted, the second one is the positive class (+1).
    y_pm = np.where(arr == classes[1], 1.0, -1.0)
    return y_pm, classes


def check_binary_X_y(
    X: ArrayLike, y: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], np.ndarray]:
    """Validate a labelled two-class data set.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Any two labels: -1/+1, 0/1, bools or strings.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y_pm : ndarray of shape (n_samples,), float64 in {-1.0, +1.0}
        scikit-learn's rule: ``classes`` is sorted and the second class is +1.
    classes : ndarray of shape (2,)
        The two original labels, sorted.

    Raises
    ------
    ValueError
        Bad ``X`` (see :func:`check_X`), wrong length or shape of ``y``, NaN labels,
        continuous labels, one class only, or more than two classes.

    Introduced in 02 — the perceptron update rule (labels y in {-1, +1}).
    """
    X_arr = check_X(X)
    y_arr = _check_y_1d(y, X_arr.shape[0])
    y_pm, classes = _encode_two_classes(y_arr)
    return X_arr, y_pm, classes


def pm_labels_and_classes(
    y: ArrayLike, n_samples: int
) -> tuple[NDArray[np.float64], np.ndarray | None]:
    """Labels as -1/+1: numeric -1/+1 kept as they are, anything else encoded.

    Margins and plots of a subset of points (one class only) are legitimate, so labels
    that are already -1/+1 may come from one class; ``classes`` is then ``None``. Other
    labels need both classes to be present to know which is +1 (scikit-learn's rule:
    sorted, the second is +1); ``classes`` holds the two, sorted.
    """
    arr = _check_y_1d(y, n_samples)
    if arr.dtype.kind in "iuf":
        values = arr.astype(np.float64)
        if np.isin(values, (-1.0, 1.0)).all():
            return values, None
    return _encode_two_classes(arr)


def as_pm_labels(y: ArrayLike, n_samples: int) -> NDArray[np.float64]:
    """Labels for margin computations (see :func:`pm_labels_and_classes`)."""
    return pm_labels_and_classes(y, n_samples)[0]


def check_hyperparameter(
    value: object,
    name: str,
    *,
    minimum: float = 0.0,
    allow_minimum: bool = False,
    integer: bool = False,
) -> float:
    """A hyperparameter that must be a finite number above ``minimum`` (or at it).

    Estimators call this in ``fit``, not in ``__init__`` (scikit-learn's convention).
    Booleans are refused although Python counts them as integers.
    """
    kind = numbers.Integral if integer else numbers.Real
    ok = isinstance(value, kind) and not isinstance(value, (bool, np.bool_))
    if ok:
        ok = bool(np.isfinite(value)) and (value >= minimum if allow_minimum else value > minimum)
    if not ok:
        what = "an integer" if integer else "a finite number"
        bound = f"{'≥' if allow_minimum else '>'} {minimum:g}"
        raise ValueError(f"{name} must be {what} {bound}; got {value!r}.")
    return int(value) if integer else float(value)


def validate_fit_data(
    estimator: object, X: ArrayLike, y: ArrayLike, *, positive_only: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64], np.ndarray]:
    """Checks for an estimator's ``fit``: scikit-learn's, then linlib's two-class rule.

    scikit-learn's ``validate_data`` records ``n_features_in_`` (and feature names), so the
    estimators behave like scikit-learn's in pipelines and in ``check_estimator``.
    """
    from sklearn.utils.validation import check_non_negative, validate_data

    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None."
        )
    X_arr, y_arr = validate_data(estimator, X, y, dtype=np.float64, order="C")
    y_arr = _check_y_1d(y_arr, X_arr.shape[0])
    y_pm, classes = _encode_two_classes(y_arr)
    if positive_only:
        check_non_negative(X_arr, f"{type(estimator).__name__} (input X)")
    return X_arr, y_pm, classes


def validate_predict_data(estimator: object, X: ArrayLike) -> NDArray[np.float64]:
    """Checks for ``predict``/``decision_function``: fitted, same number of features."""
    from sklearn.utils.validation import check_is_fitted, validate_data

    check_is_fitted(estimator)
    return validate_data(estimator, X, dtype=np.float64, reset=False)
