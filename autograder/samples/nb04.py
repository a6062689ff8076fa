"""Sample answers for notebook 04 (Naive Bayes is a linear classifier): other correct
ways, and typical bugs."""

from autograder.samples import Variant

NB_FIT_LOOPS = '''
def nb_fit(X, y, alpha=1.0):
    """Counts every word of every document by hand, then takes logs."""
    rows = [list(map(float, row)) for row in X]
    labels = list(y)
    n_words = len(rows[0])
    class_log_prior = []
    feature_log_prob = []
    for label in (-1, 1):
        documents = [row for row, t in zip(rows, labels) if t == label]
        class_log_prior.append(np.log(len(documents) / len(rows)))
        totals = [alpha + sum(doc[i] for doc in documents) for i in range(n_words)]
        grand_total = sum(totals)
        feature_log_prob.append([np.log(t / grand_total) for t in totals])
    return np.array(class_log_prior), np.array(feature_log_prob)
'''

NB_FIT_ONE_HOT = '''
def nb_fit(X, y, alpha=1.0):
    """scikit-learn's way: a one-hot class matrix Y, then Y.T @ X gives the counts."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    Y = np.column_stack([y == -1, y == 1]).astype(float)
    counts = Y.T @ X + alpha
    probabilities = counts / counts.sum(axis=1, keepdims=True)
    return np.log(Y.mean(axis=0)), np.log(probabilities)
'''

NB_FIT_NO_V_IN_DENOMINATOR = '''
def nb_fit(X, y, alpha=1.0):
    """Adds alpha once to the denominator instead of alpha * V."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    prior, prob = np.empty(2), np.empty((2, X.shape[1]))
    for row, label in enumerate((-1, 1)):
        counts = X[y == label].sum(axis=0)
        prior[row] = np.log(np.mean(y == label))
        prob[row] = np.log((counts + alpha) / (counts.sum() + alpha))
    return prior, prob
'''

NB_FIT_ROWS_SWAPPED = '''
def nb_fit(X, y, alpha=1.0):
    """Puts class +1 in row 0 and class -1 in row 1."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    prior, prob = np.empty(2), np.empty((2, X.shape[1]))
    for row, label in enumerate((1, -1)):
        counts = X[y == label].sum(axis=0) + alpha
        prior[row] = np.log(np.mean(y == label))
        prob[row] = np.log(counts / counts.sum())
    return prior, prob
'''

NB_FIT_PRIOR_FROM_WORDS = '''
def nb_fit(X, y, alpha=1.0):
    """Estimates the prior from the number of words per class, not of documents."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    prior, prob = np.empty(2), np.empty((2, X.shape[1]))
    for row, label in enumerate((-1, 1)):
        counts = X[y == label].sum(axis=0)
        prior[row] = np.log(counts.sum() / X.sum())
        prob[row] = np.log((counts + alpha) / (counts + alpha).sum())
    return prior, prob
'''

NB_LOG_JOINT_LOOPS = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Loops over documents, classes and words."""
    result = []
    for row in X:
        scores = []
        for c in range(2):
            score = class_log_prior[c]
            for count, log_p in zip(row, feature_log_prob[c]):
                score += count * log_p
            scores.append(score)
        result.append(scores)
    return np.array(result, dtype=float)
'''

NB_LOG_JOINT_EINSUM = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """One einsum."""
    X = np.asarray(X, dtype=float)
    return np.einsum("nv,cv->nc", X, np.asarray(feature_log_prob)) + np.asarray(class_log_prior)
'''

NB_LOG_JOINT_NO_PRIOR = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Forgets the prior: only the word terms."""
    return np.asarray(X, dtype=float) @ np.asarray(feature_log_prob, dtype=float).T
'''

NB_TO_LINEAR_RATIOS = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Back to probabilities, then the log of their ratio."""
    p = np.exp(np.asarray(feature_log_prob, dtype=float))
    priors = np.exp(np.asarray(class_log_prior, dtype=float))
    return np.log(p[1] / p[0]), float(np.log(priors[1] / priors[0]))
'''

NB_TO_LINEAR_SIGN_FLIPPED = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Subtracts the wrong way round: w and b for class -1."""
    feature_log_prob = np.asarray(feature_log_prob, dtype=float)
    return feature_log_prob[0] - feature_log_prob[1], float(class_log_prior[0] - class_log_prior[1])
'''

NB_TO_LINEAR_NO_BIAS = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Forgets the priors: b = 0."""
    feature_log_prob = np.asarray(feature_log_prob, dtype=float)
    return feature_log_prob[1] - feature_log_prob[0], 0.0
'''

TOP_WORDS_SORTED = '''
def top_words(w, vocabulary, k):
    """sorted() with a key: weight first, then position in the vocabulary."""
    pairs = list(zip(list(w), [str(v) for v in vocabulary]))
    positions = range(len(pairs))
    largest = sorted(positions, key=lambda i: (-pairs[i][0], i))[:k]
    smallest = sorted(positions, key=lambda i: (pairs[i][0], i))[:k]
    return [pairs[i][1] for i in largest], [pairs[i][1] for i in smallest]
'''

TOP_WORDS_LEXSORT = '''
def top_words(w, vocabulary, k):
    """np.lexsort with the position as tie-breaker."""
    w = np.asarray(w, dtype=float)
    positions = np.arange(len(w))
    vocabulary = [str(v) for v in vocabulary]
    largest = np.lexsort((positions, -w))[:k]
    smallest = np.lexsort((positions, w))[:k]
    return [vocabulary[i] for i in largest], [vocabulary[i] for i in smallest]
'''

TOP_WORDS_REVERSED_TIES = '''
def top_words(w, vocabulary, k):
    """Reverses an ascending sort for the largest weights: ties come out backwards."""
    w = np.asarray(w, dtype=float)
    order = np.argsort(w, kind="stable")
    vocabulary = [str(v) for v in vocabulary]
    return [vocabulary[i] for i in order[::-1][:k]], [vocabulary[i] for i in order[:k]]
'''

VARIANTS = [
    Variant(
        "loops_everywhere",
        {
            "nb_fit": NB_FIT_LOOPS,
            "nb_log_joint": NB_LOG_JOINT_LOOPS,
            "nb_to_linear": NB_TO_LINEAR_RATIOS,
            "top_words": TOP_WORDS_SORTED,
        },
        description="plain Python loops, ratios of probabilities, sorted() with a key",
    ),
    Variant(
        "matrix_style",
        {
            "nb_fit": NB_FIT_ONE_HOT,
            "nb_log_joint": NB_LOG_JOINT_EINSUM,
            "top_words": TOP_WORDS_LEXSORT,
        },
        description="one-hot class matrix as scikit-learn does, einsum, np.lexsort",
    ),
    Variant(
        "nb_fit_alpha_not_times_vocabulary",
        {"nb_fit": NB_FIT_NO_V_IN_DENOMINATOR},
        lost=frozenset({"nb_fit_visible", "nb_fit_hidden"}),
        description="smoothing denominator sum + alpha instead of sum + alpha·V",
    ),
    Variant(
        "nb_fit_rows_swapped",
        {"nb_fit": NB_FIT_ROWS_SWAPPED},
        lost=frozenset({"nb_fit_visible", "nb_fit_hidden"}),
        description="class +1 in row 0: the rows in the wrong order",
    ),
    Variant(
        "nb_fit_prior_from_word_counts",
        {"nb_fit": NB_FIT_PRIOR_FROM_WORDS},
        lost=frozenset({"nb_fit_visible", "nb_fit_hidden"}),
        description="class prior from the number of words instead of documents",
    ),
    Variant(
        "nb_log_joint_forgets_prior",
        {"nb_log_joint": NB_LOG_JOINT_NO_PRIOR},
        lost=frozenset({"nb_log_joint_visible", "nb_log_joint_hidden"}),
        description="joint log-likelihood without log p_c",
    ),
    Variant(
        "nb_to_linear_sign_flipped",
        {"nb_to_linear": NB_TO_LINEAR_SIGN_FLIPPED},
        lost=frozenset({"nb_to_linear_visible", "nb_to_linear_hidden"}),
        description="w and b of class -1 (subtracts the wrong way round)",
    ),
    Variant(
        "nb_to_linear_forgets_bias",
        {"nb_to_linear": NB_TO_LINEAR_NO_BIAS},
        lost=frozenset({"nb_to_linear_hidden"}),
        description="b = 0: right only when the priors are equal",
    ),
    Variant(
        "top_words_ties_reversed",
        {"top_words": TOP_WORDS_REVERSED_TIES},
        lost=frozenset({"top_words_visible", "top_words_hidden"}),
        description="largest weights by reversing an ascending sort: ties backwards",
    ),
]
