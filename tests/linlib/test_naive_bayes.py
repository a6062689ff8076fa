"""linlib.MultinomialNB against scikit-learn and seed 003's toy numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import linlib


def random_count_sets(n_sets, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n_sets):
        n, d = int(rng.integers(2, 40)), int(rng.integers(1, 12))
        X = rng.poisson(rng.uniform(0.3, 3), size=(n, d))
        y = rng.integers(0, 2, size=n)
        y[:2] = [0, 1]
        yield X, y, float(rng.choice([0.01, 0.5, 1.0, 2.5]))


@pytest.mark.slow
def test_parameters_and_predictions_equal_sklearn():
    for X, y, alpha in random_count_sets(60, seed=0):
        ours = linlib.MultinomialNB(alpha=alpha).fit(X, y)
        ref = SkMultinomialNB(alpha=alpha, force_alpha=True).fit(X, y)
        for name in ("class_count_", "feature_count_", "class_log_prior_", "feature_log_prob_"):
            np.testing.assert_allclose(getattr(ours, name), getattr(ref, name), rtol=1e-12)
        np.testing.assert_array_equal(ours.classes_, ref.classes_)
        jll = ref.predict_joint_log_proba(X)
        # The linear form: w = difference of log-probabilities, b = difference of priors.
        np.testing.assert_allclose(ours.decision_function(X), jll[:, 1] - jll[:, 0], atol=1e-9)
        clear = np.abs(jll[:, 1] - jll[:, 0]) > 1e-9  # never rely on an exact tie
        np.testing.assert_array_equal(ours.predict(X)[clear], ref.predict(X)[clear])


def test_decision_function_is_linear():
    """w and b built from scikit-learn's parameters, then checked on new documents."""
    for X, y, alpha in random_count_sets(20, seed=1):
        model = linlib.MultinomialNB(alpha=alpha).fit(X, y)
        ref = SkMultinomialNB(alpha=alpha, force_alpha=True).fit(X, y)
        w = ref.feature_log_prob_[1] - ref.feature_log_prob_[0]
        b = ref.class_log_prior_[1] - ref.class_log_prior_[0]
        X_new = np.random.default_rng(len(y)).poisson(1.5, size=(7, X.shape[1]))
        np.testing.assert_allclose(model.decision_function(X_new), X_new @ w + b, atol=1e-9)
        np.testing.assert_allclose(model.coef_[0], w, rtol=1e-12)
        np.testing.assert_allclose(model.intercept_[0], b, rtol=1e-12, atol=1e-15)


def test_string_labels_follow_sklearn_order():
    docs, labels = linlib.toy_corpus()
    X, _ = linlib.toy_counts()
    ours = linlib.MultinomialNB().fit(X, labels)
    ref = SkMultinomialNB(alpha=1.0, force_alpha=True).fit(X, labels)
    np.testing.assert_array_equal(ours.classes_, ["A", "B"])
    np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    # toy_counts is the (H_a, H_b) table of the documents, as scikit-learn counts letters.
    letters = CountVectorizer(analyzer="char", vocabulary=["a", "b"])
    np.testing.assert_array_equal(letters.fit_transform(docs).toarray(), X)


def test_seed_003_unsmoothed_estimates_and_weights():
    X, y = linlib.toy_counts()  # A = +1, B = -1
    model = linlib.MultinomialNB(alpha=0).fit(X, y)
    p = np.exp(model.feature_log_prob_)  # rows: classes_ = [-1 (B), +1 (A)]
    # p_aA = 2/3, p_bA = 1/3, p_aB = 1/3, p_bB = 2/3 and p_A = p_B = 1/2, exactly.
    np.testing.assert_allclose(p[1], [2 / 3, 1 / 3], rtol=1e-15)
    np.testing.assert_allclose(p[0], [1 / 3, 2 / 3], rtol=1e-15)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.5, 0.5], rtol=1e-15)
    # Seed 003's corrected statement: w_i = log2(p_iA / p_iB) = (1, -1), b = 0.
    np.testing.assert_allclose(model.coef_[0] / np.log(2), [1.0, -1.0], rtol=1e-12)
    assert model.intercept_[0] == pytest.approx(0.0, abs=1e-15)
    # So NB predicts A iff H_a > H_b, as the seed derives; on the toy set that is exact.
    np.testing.assert_array_equal(model.predict(X), np.where(X[:, 0] > X[:, 1], 1, -1))


def test_unequal_priors_move_only_b():
    X = np.array([[3, 1], [2, 2], [1, 3], [0, 4], [4, 0]])
    y = np.array([1, 1, -1, -1, 1])
    model = linlib.MultinomialNB().fit(X, y)
    assert model.intercept_[0] == pytest.approx(np.log(3 / 2))
    # The weights depend on the word counts per class only: class +1 has counts (9, 3),
    # class -1 has (1, 7); Laplace smoothing gives (10, 4)/14 and (2, 8)/10.
    np.testing.assert_allclose(model.coef_[0], np.log([(10 / 14) / (2 / 10), (4 / 14) / (8 / 10)]))
    # An empty -1 document makes the priors equal and leaves the word counts as they
    # are: b becomes 0, w does not move.
    balanced = linlib.MultinomialNB().fit(np.vstack([X, [[0, 0]]]), [*y, -1])
    assert balanced.intercept_[0] == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(balanced.coef_, model.coef_, rtol=1e-15)


def test_alpha_zero_with_unseen_word_follows_sklearn_parameters():
    X = np.array([[1, 0, 2], [0, 0, 1], [3, 1, 0], [0, 2, 1]])
    y = np.array([0, 0, 1, 1])  # word 1 never occurs in class 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning may leak from linlib
        model = linlib.MultinomialNB(alpha=0).fit(X, y)
        scores = model.decision_function(np.array([[0, 1, 0], [1, 0, 1], [0, 0, 1]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = SkMultinomialNB(alpha=0, force_alpha=True).fit(X, y)
    np.testing.assert_array_equal(model.feature_log_prob_, ref.feature_log_prob_)
    assert model.feature_log_prob_[0, 1] == -np.inf
    assert model.coef_[0, 1] == np.inf  # seen only in classes_[1]
    # A document with the word can only be class 1; one without it is decided by the
    # other words (0·inf counts as 0). By hand from the class word counts (1, 0, 3) and
    # (3, 3, 1), equal priors:
    p0 = np.array([1, 0, 3]) / 4
    p1 = np.array([3, 3, 1]) / 7
    expected = np.log(p1[0] * p1[2]) - np.log(p0[0] * p0[2])
    assert scores[0] == np.inf
    assert scores[1] == pytest.approx(expected)
    assert scores[2] == pytest.approx(np.log(p1[2] / p0[2]))


def test_alpha_zero_word_unseen_in_both_classes():
    X = np.array([[1, 0], [0, 0], [2, 0], [1, 0]])
    y = np.array([0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = linlib.MultinomialNB(alpha=0).fit(X, y)
        scores = model.decision_function(np.array([[1, 0], [1, 1]]))
    assert np.isnan(model.coef_[0, 1])
    assert np.isfinite(scores[0]) and np.isnan(scores[1])
    assert model.predict(np.array([[1, 1]]))[0] == 0  # undefined -> classes_[0]


def test_negative_counts_and_bad_alpha_are_rejected():
    with pytest.raises(ValueError, match="Negative values"):
        linlib.MultinomialNB().fit([[1, -1], [0, 2]], [0, 1])
    for alpha in (-1.0, "1", None, np.nan):
        with pytest.raises(ValueError, match="alpha"):
            linlib.MultinomialNB(alpha=alpha).fit([[1, 1], [0, 2]], [0, 1])
