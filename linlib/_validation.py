"""Input checks shared by every linlib function that takes data.

The messages are meant for students: they say what was expected and what came.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    make_constraint,
)
from sklearn.utils.multiclass import type_of_target

__all__ = [
    "as_pm_labels",
    "check_X",
    "check_binary_X_y",
    "check_vector",
    "pm_labels_and_classes",
    "validate_parameter_constraints",
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

    Examples
    --------
    >>> import linlib
    >>> linlib.check_X([[1, 2], [3, 4]])
    array([[1., 2.],
           [3., 4.]])
    >>> linlib.check_X([1, 2])
    Traceback (most recent call last):
        ...
    ValueError: X must be 2-D of shape (n_samples, n_features); got 1-D with shape (2,). Use
    X.reshape(-1, 1) for one feature, or X.reshape(1, -1) for one sample (a list [x1, x2] is one
    point only inside an outer list: [[x1, x2]]).

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

    Examples
    --------
    >>> import linlib
    >>> X, y_pm, classes = linlib.check_binary_X_y([[0], [1], [2]], ["ham", "spam", "ham"])
    >>> y_pm
    array([-1.,  1., -1.])
    >>> classes
    array(['ham', 'spam'], dtype='<U4')

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


# --------------------------------------------------------------------------- parameters
#
# What a hyperparameter may be is declared as in scikit-learn's own estimators: lists of
# scikit-learn's constraints (``Interval``, ``StrOptions``, ``"boolean"``, ``"random_state"``,
# ``callable``, ``None``), in an estimator's ``_parameter_constraints`` or, for a function,
# in a dict next to it. scikit-learn's machinery decides; only the message is linlib's:
# it says what was expected and what came, where scikit-learn's reads "The 'max_epochs'
# parameter of Perceptron must be an int in the range [1, inf). Got 0 instead.".

#: A number of passes over the data. One name per idea: ``max_epochs`` is a cap (the
#: perceptrons stop earlier, after an epoch without updates), ``n_epochs`` a number of
#: epochs that are all run (``PegasosSVM``, which has nothing to converge to).
EPOCHS = Interval(Integral, 1, None, closed="left")
#: The default cap of every ``max_epochs`` in linlib: scikit-learn's ``max_iter``.
MAX_EPOCHS = 1000
#: A finite number > 0 (a rate, a price, a regularisation strength) or ≥ 0 (a tolerance).
POSITIVE = Interval(Real, 0, None, closed="neither")
NON_NEGATIVE = Interval(Real, 0, None, closed="left")

_WORDS = {
    "boolean": "True or False",
    "random_state": "an integer from 0 to 2**32 - 1, a RandomState or None",
}


def _describe(constraint: object) -> str:
    """A constraint in the words of linlib's messages ("an integer ≥ 1")."""
    if isinstance(constraint, Interval):
        bounds = []
        if constraint.left is not None:
            sign = "≥" if constraint.closed in ("left", "both") else ">"
            bounds.append(f"{sign} {constraint.left:g}")
        if constraint.right is not None:
            sign = "≤" if constraint.closed in ("right", "both") else "<"
            bounds.append(f"{sign} {constraint.right:g}")
        what = "an integer" if constraint.type is Integral else "a finite number"
        return " ".join([what, " and ".join(bounds)]).strip()
    if isinstance(constraint, StrOptions):
        return ", ".join(repr(option) for option in sorted(constraint.options))
    if constraint is callable:
        return "a callable"
    if isinstance(constraint, str) and constraint in _WORDS:
        return _WORDS[constraint]
    return str(make_constraint(constraint))


def _satisfies(constraint: object, value: object) -> bool:
    # Python counts True as the integer 1; a number is never a bool in linlib.
    if isinstance(constraint, Interval) and isinstance(value, bool | np.bool_):
        return False
    return make_constraint(constraint).is_satisfied_by(value)


def validate_parameter_constraints(
    constraints: Mapping[str, Sequence[object]], params: Mapping[str, object]
) -> None:
    """Check each parameter against its constraints (any one of them may hold).

    scikit-learn's function of the same name, with linlib's messages and linlib's rule
    that a bool is not a number. Raises scikit-learn's ``InvalidParameterError`` (a
    ``ValueError`` and a ``TypeError``) with linlib's message, e.g. ``max_epochs must be
    an integer ≥ 1; got 0.``. Estimators call it in ``fit`` (scikit-learn's convention:
    ``__init__`` only stores), through ``_validate_params``; functions call it first
    thing.
    """
    for name, value in params.items():
        options = constraints.get(name)
        if options is None or any(_satisfies(option, value) for option in options):
            continue
        wanted = " or ".join(_describe(option) for option in options)
        raise InvalidParameterError(f"{name} must be {wanted}; got {value!r}.")


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
