"""scikit-learn's own estimator checks on every linlib estimator, wired once.

No check is excused (``expected_failed_checks`` is not used). The one exception is by
design: ``HardMarginSVM`` refuses data that no hyperplane separates, and many checks fit
on overlapping blobs; those checks must fail with exactly that documented error.
"""

from __future__ import annotations

import functools
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning, SkipTestWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

import linlib

# Many checks fit on overlapping blobs, where the perceptrons run to their epoch cap: a
# lower cap tests the same API in a fraction of the time (about 13 s -> 1.3 s for
# Perceptron).
ESTIMATORS = [
    linlib.BatchPerceptron(),
    linlib.HardMarginSVM(),
    linlib.KernelPerceptron(max_epochs=20),
    linlib.MulticlassPerceptron(max_epochs=20),
    linlib.MultinomialNB(),
    linlib.PegasosSVM(n_epochs=5),
    linlib.Perceptron(max_epochs=50),
    linlib.SoftMarginSVM(),
    linlib.VotedPerceptron(max_epochs=20),
]

# The checks that fit HardMarginSVM on data no hyperplane separates.
NOT_SEPARABLE = frozenset(
    {
        "check_classifier_data_not_an_array",
        "check_classifiers_train",
        "check_dtype_object",
        "check_estimators_dtypes",
        "check_estimators_nan_inf",
        "check_fit_check_is_fitted",
        "check_fit_idempotent",
        "check_fit_score_takes_y",
        "check_n_features_in",
        "check_n_features_in_after_fitting",
        "check_supervised_y_2d",
    }
)


def _name(check) -> str:
    return (check.func if isinstance(check, functools.partial) else check).__name__


def test_every_exported_estimator_is_checked():
    from tests.linlib.test_validation import ALL_ESTIMATORS

    assert {type(e) for e in ESTIMATORS} == set(ALL_ESTIMATORS)


@pytest.mark.slow
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkipTestWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        if isinstance(estimator, linlib.HardMarginSVM) and _name(check) in NOT_SEPARABLE:
            with pytest.raises(ValueError, match="The data are not linearly separable"):
                check(estimator)
        else:
            check(estimator)
