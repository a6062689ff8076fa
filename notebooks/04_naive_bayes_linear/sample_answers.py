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

NB_FIT_ADD_AT = '''
def nb_fit(X, y, alpha=1.0):
    """np.add.at scatters every document's counts into its class row."""
    X = np.asarray(X, dtype=float)
    rows = (np.asarray(y) == 1).astype(int)  # -1 -> row 0, +1 -> row 1
    totals = np.zeros((2, X.shape[1]))
    np.add.at(totals, rows, X)
    totals += alpha
    prior = np.log(np.bincount(rows, minlength=2) / len(rows))
    return prior, np.log(totals) - np.log(totals.sum(axis=1, keepdims=True))
'''

NB_FIT_INTEGER_TOTALS = '''
def nb_fit(X, y, alpha=1.0):
    """Keeps the smoothed totals in an int array: alpha = 0.5 and fractional counts truncate."""
    X = np.asarray(X)
    y = np.asarray(y)
    totals = np.zeros((2, X.shape[1]), dtype=int)
    prior = np.empty(2)
    for row, label in enumerate((-1, 1)):
        totals[row] = X[y == label].sum(axis=0) + alpha
        prior[row] = np.log(np.mean(y == label))
    with np.errstate(divide="ignore"):
        return prior, np.log(totals) - np.log(totals.sum(axis=1, keepdims=True))
'''

NB_FIT_VIEW_ACCUMULATOR = '''
def nb_fit(X, y, alpha=1.0):
    """Adds the documents of a class into its first document's row: a view, so X changes."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    prior, prob = np.empty(2), np.empty((2, X.shape[1]))
    for row, label in enumerate((-1, 1)):
        members = np.flatnonzero(y == label)
        counts = X[members[0]]
        for k in members[1:]:
            counts += X[k]
        prior[row] = np.log(len(members) / len(y))
        prob[row] = np.log((counts + alpha) / (counts + alpha).sum())
    return prior, prob
'''

NB_LOG_JOINT_BROADCAST = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Broadcasting: (n, 1, V) times (1, 2, V), summed over the words."""
    X = np.asarray(X, dtype=float)
    prob = np.asarray(feature_log_prob, dtype=float)
    prior = np.asarray(class_log_prior, dtype=float)
    return (X[:, None, :] * prob[None, :, :]).sum(axis=2) + prior
'''

NB_LOG_JOINT_COLUMNS = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """One column per class with np.dot, stacked."""
    X = np.asarray(X, dtype=float)
    columns = [
        prior + np.dot(X, np.asarray(log_p, dtype=float))
        for prior, log_p in zip(class_log_prior, feature_log_prob)
    ]
    return np.stack(columns, axis=1)
'''

NB_LOG_JOINT_TRANSPOSED = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Returns shape (2, n_samples): one row per class instead of one column."""
    X = np.asarray(X, dtype=float)
    prob = np.asarray(feature_log_prob, dtype=float)
    return prob @ X.T + np.asarray(class_log_prior, dtype=float)[:, None]
'''

NB_LOG_JOINT_INTEGER_BUFFER = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Fills a buffer made with np.zeros_like from integer counts: the scores are truncated."""
    X = np.asarray(X)
    scores = np.zeros_like(X, shape=(len(X), 2))
    for c in range(2):
        scores[:, c] = class_log_prior[c] + X @ np.asarray(feature_log_prob[c], dtype=float)
    return scores
'''

NB_LOG_JOINT_PRIOR_PER_ROW = '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Adds the priors along the wrong axis (to documents instead of classes)."""
    X = np.asarray(X, dtype=float)
    prior = np.asarray(class_log_prior, dtype=float)
    return X @ np.asarray(feature_log_prob, dtype=float).T + prior[:, None]
'''

NB_TO_LINEAR_DIFF = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """np.diff along the class axis: row 1 minus row 0."""
    w = np.diff(np.asarray(feature_log_prob, dtype=float), axis=0)[0]
    b = np.diff(np.asarray(class_log_prior, dtype=float))[0]
    return w, b
'''

NB_TO_LINEAR_PLAIN = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Plain Python: a list comprehension and a float."""
    negative, positive = list(feature_log_prob[0]), list(feature_log_prob[1])
    w = [float(p) - float(q) for p, q in zip(positive, negative)]
    return w, float(class_log_prior[1]) - float(class_log_prior[0])
'''

NB_TO_LINEAR_SUBTRACT = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """np.subtract on the reversed rows, a NumPy scalar for b."""
    prob = np.asarray(feature_log_prob, dtype=float)
    prior = np.asarray(class_log_prior, dtype=float)
    return np.subtract(*prob[::-1]), np.subtract(*prior[::-1])
'''

NB_TO_LINEAR_IN_PLACE = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Subtracts in place into row 1: a view, so the caller's feature_log_prob changes."""
    prob = np.asarray(feature_log_prob, dtype=float)
    w = prob[1]
    w -= prob[0]
    return w, float(class_log_prior[1] - class_log_prior[0])
'''

NB_TO_LINEAR_RATIO_OF_LOGS = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Divides the logarithms instead of subtracting them."""
    prob = np.asarray(feature_log_prob, dtype=float)
    prior = np.asarray(class_log_prior, dtype=float)
    return prob[1] / prob[0], float(prior[1] / prior[0])
'''

NB_TO_LINEAR_BIAS_ARRAY = '''
def nb_to_linear(class_log_prior, feature_log_prob):
    """Slices the priors: b comes out as an array of shape (1,), not a number."""
    prob = np.asarray(feature_log_prob, dtype=float)
    prior = np.asarray(class_log_prior, dtype=float)
    return prob[1] - prob[0], prior[1:] - prior[:1]
'''

TOP_WORDS_STR_ARRAY = '''
def top_words(w, vocabulary, k):
    """Stable argsort, then the vocabulary as an array: words come back as np.str_."""
    w = np.asarray(w, dtype=float)
    vocabulary = np.asarray(vocabulary)
    return (
        list(vocabulary[np.argsort(-w, kind="stable")[:k]]),
        list(vocabulary[np.argsort(w, kind="stable")[:k]]),
    )
'''

TOP_WORDS_PYTHON_SORT = '''
def top_words(w, vocabulary, k):
    """Python's sort is stable: sort the positions by weight alone."""
    weights = [float(v) for v in w]
    words = [str(v) for v in vocabulary]
    largest = sorted(range(len(words)), key=lambda i: -weights[i])
    smallest = sorted(range(len(words)), key=lambda i: weights[i])
    return [words[i] for i in largest[:k]], [words[i] for i in smallest[:k]]
'''

TOP_WORDS_DEFAULT_ARGSORT = '''
def top_words(w, vocabulary, k):
    """np.argsort's default kind (quicksort) is not stable: ties in any order."""
    w = np.asarray(w, dtype=float)
    words = [str(v) for v in vocabulary]
    return [words[i] for i in np.argsort(-w)[:k]], [words[i] for i in np.argsort(w)[:k]]
'''

TOP_WORDS_INDICES = '''
def top_words(w, vocabulary, k):
    """Returns the positions of the words, not the words."""
    w = np.asarray(w, dtype=float)
    return list(np.argsort(-w, kind="stable")[:k]), list(np.argsort(w, kind="stable")[:k])
'''

TOP_WORDS_ABSOLUTE = '''
def top_words(w, vocabulary, k):
    """Sorts by the size of the weight, forgetting its sign."""
    w = np.abs(np.asarray(w, dtype=float))
    words = [str(v) for v in vocabulary]
    return (
        [words[i] for i in np.argsort(-w, kind="stable")[:k]],
        [words[i] for i in np.argsort(w, kind="stable")[:k]],
    )
'''


def _correct(name, cell, source, description):
    return Variant(name, {cell: source}, description=description)


def _bug(name, cell, source, lost, description, misconception=""):
    return Variant(
        name,
        {cell: source},
        lost=frozenset(lost),
        description=description,
        misconception=misconception,
    )


FIT = ("nb_fit_visible", "nb_fit_hidden")
JOINT = ("nb_log_joint_visible", "nb_log_joint_hidden")
LINEAR = ("nb_to_linear_visible", "nb_to_linear_hidden")
TOP = ("top_words_visible", "top_words_hidden")

VARIANTS = [
    _correct("nb_fit_loops", "nb_fit", NB_FIT_LOOPS, "plain Python loops over documents and words"),
    _correct(
        "nb_fit_one_hot", "nb_fit", NB_FIT_ONE_HOT, "one-hot class matrix as scikit-learn does"
    ),
    _correct("nb_fit_add_at", "nb_fit", NB_FIT_ADD_AT, "np.add.at into float totals, np.bincount"),
    _bug(
        "nb_fit_alpha_not_times_vocabulary",
        "nb_fit",
        NB_FIT_NO_V_IN_DENOMINATOR,
        FIT,
        "smoothing denominator sum + alpha instead of sum + alpha·V",
        misconception="smoothing_denominator",
    ),
    _bug(
        "nb_fit_rows_swapped",
        "nb_fit",
        NB_FIT_ROWS_SWAPPED,
        FIT,
        "class +1 in row 0",
        misconception="rows_swapped",
    ),
    _bug(
        "nb_fit_prior_from_word_counts",
        "nb_fit",
        NB_FIT_PRIOR_FROM_WORDS,
        FIT,
        "class prior from the number of words instead of documents",
        misconception="prior_from_words",
    ),
    _bug(
        "nb_fit_integer_totals",
        "nb_fit",
        NB_FIT_INTEGER_TOTALS,
        ["nb_fit_hidden"],
        "smoothed totals in an int array: alpha = 0.5 and fractional counts truncate",
        misconception="integer_counts",
    ),
    _bug(
        "nb_fit_mutates_X",
        "nb_fit",
        NB_FIT_VIEW_ACCUMULATOR,
        ["nb_fit_hidden"],
        "accumulates into a view of the first document: the caller's X changes",
        misconception="changes_X",
    ),
    _correct("nb_log_joint_loops", "nb_log_joint", NB_LOG_JOINT_LOOPS, "loops everywhere"),
    _correct("nb_log_joint_einsum", "nb_log_joint", NB_LOG_JOINT_EINSUM, "one einsum"),
    _correct("nb_log_joint_broadcast", "nb_log_joint", NB_LOG_JOINT_BROADCAST, "broadcasting"),
    _correct("nb_log_joint_columns", "nb_log_joint", NB_LOG_JOINT_COLUMNS, "np.dot per class"),
    _bug(
        "nb_log_joint_forgets_prior",
        "nb_log_joint",
        NB_LOG_JOINT_NO_PRIOR,
        JOINT,
        "joint log-likelihood without log p_c",
        misconception="forgets_prior",
    ),
    _bug(
        "nb_log_joint_transposed",
        "nb_log_joint",
        NB_LOG_JOINT_TRANSPOSED,
        JOINT,
        "shape (2, n_samples) instead of (n_samples, 2)",
        misconception="classes_as_rows",
    ),
    _bug(
        "nb_log_joint_integer_buffer",
        "nb_log_joint",
        NB_LOG_JOINT_INTEGER_BUFFER,
        JOINT,
        "scores written into an int buffer (zeros_like of integer counts): truncated",
        misconception="integer_results",
    ),
    _bug(
        "nb_log_joint_prior_wrong_axis",
        "nb_log_joint",
        NB_LOG_JOINT_PRIOR_PER_ROW,
        ["nb_log_joint_hidden"],
        "priors added per document instead of per class (equal priors hide it)",
        misconception="prior_per_document",
    ),
    _correct(
        "nb_to_linear_ratios", "nb_to_linear", NB_TO_LINEAR_RATIOS, "log of probability ratios"
    ),
    _correct(
        "nb_to_linear_diff", "nb_to_linear", NB_TO_LINEAR_DIFF, "np.diff along the class axis"
    ),
    _correct(
        "nb_to_linear_plain", "nb_to_linear", NB_TO_LINEAR_PLAIN, "plain Python lists and floats"
    ),
    _correct(
        "nb_to_linear_subtract", "nb_to_linear", NB_TO_LINEAR_SUBTRACT, "np.subtract, NumPy b"
    ),
    _bug(
        "nb_to_linear_sign_flipped",
        "nb_to_linear",
        NB_TO_LINEAR_SIGN_FLIPPED,
        LINEAR,
        "w and b of class -1 (subtracts the wrong way round)",
        misconception="subtracts_the_wrong_way",
    ),
    _bug(
        "nb_to_linear_forgets_bias",
        "nb_to_linear",
        NB_TO_LINEAR_NO_BIAS,
        ["nb_to_linear_hidden"],
        "b = 0: right only when the priors are equal",
        misconception="forgets_bias",
    ),
    _bug(
        "nb_to_linear_mutates_input",
        "nb_to_linear",
        NB_TO_LINEAR_IN_PLACE,
        ["nb_to_linear_hidden"],
        "w -= ... on a view of row 1: the caller's feature_log_prob changes",
        misconception="changes_feature_log_prob",
    ),
    _bug(
        "nb_to_linear_ratio_of_logs",
        "nb_to_linear",
        NB_TO_LINEAR_RATIO_OF_LOGS,
        LINEAR,
        "divides the log-probabilities instead of subtracting them",
        misconception="divides_logs",
    ),
    _bug(
        "nb_to_linear_bias_array",
        "nb_to_linear",
        NB_TO_LINEAR_BIAS_ARRAY,
        LINEAR,
        "b an array of shape (1,) instead of a number",
        misconception="bias_as_array",
    ),
    _correct(
        "top_words_sorted_key", "top_words", TOP_WORDS_SORTED, "sorted() with (weight, position)"
    ),
    _correct(
        "top_words_lexsort", "top_words", TOP_WORDS_LEXSORT, "np.lexsort, position as tie-breaker"
    ),
    _correct(
        "top_words_numpy_strings",
        "top_words",
        TOP_WORDS_STR_ARRAY,
        "stable argsort indexing a vocabulary array: np.str_ words",
    ),
    _correct("top_words_python_sort", "top_words", TOP_WORDS_PYTHON_SORT, "Python's stable sort"),
    _bug(
        "top_words_ties_reversed",
        "top_words",
        TOP_WORDS_REVERSED_TIES,
        TOP,
        "largest weights by reversing an ascending sort: ties backwards",
        misconception="ties_reversed",
    ),
    _bug(
        "top_words_unstable_sort",
        "top_words",
        TOP_WORDS_DEFAULT_ARGSORT,
        ["top_words_hidden"],
        "np.argsort's default quicksort: tie order not the vocabulary's",
        misconception="unstable_sort",
    ),
    _bug(
        "top_words_returns_indices",
        "top_words",
        TOP_WORDS_INDICES,
        TOP,
        "positions, not words",
        misconception="positions_not_words",
    ),
    _bug(
        "top_words_absolute_weights",
        "top_words",
        TOP_WORDS_ABSOLUTE,
        TOP,
        "sorts by |w|",
        misconception="sorts_by_size",
    ),
]

#: A sample answer (by its name) with one of its loops written as a comprehension or a
#: generator expression, the rest of its lines as they were: a copier's disguise
#: (autograder.samples.copies).
LOOP_TO_COMPREHENSION: dict[str, str] = {
    "nb_log_joint_loops": '''
def nb_log_joint(X, class_log_prior, feature_log_prob):
    """Loops over documents, classes and words."""
    result = []
    for row in X:
        scores = []
        for c in range(2):
            score = class_log_prior[c] + sum(
                count * log_p for count, log_p in zip(row, feature_log_prob[c])
            )
            scores.append(score)
        result.append(scores)
    return np.array(result, dtype=float)
''',
}
