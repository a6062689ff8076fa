"""Sample answers for notebook 01 (hyperplanes): other correct ways, and typical bugs."""

from autograder.samples import Variant

ACTIVATION_LOOPS = '''
def activation(X, w, b):
    """Activation of every row, with plain Python loops."""
    result = []
    for row in X:
        total = b
        for x_j, w_j in zip(row, w):
            total += x_j * w_j
        result.append(total)
    return np.array(result, dtype=float)
'''

ACTIVATION_NO_BIAS = '''
def activation(X, w, b):
    """Forgets the bias."""
    return np.asarray(X, dtype=float) @ np.asarray(w, dtype=float)
'''

PREDICT_SIGN = '''
def predict(X, w, b):
    """np.sign gives 0 on the plane; map everything that is not +1 to -1."""
    signs = np.sign(activation(X, w, b))
    return np.array([1 if s == 1 else -1 for s in signs])
'''

PREDICT_TIE_POSITIVE = '''
def predict(X, w, b):
    """Uses >= 0, so a point on the plane is predicted +1."""
    return np.where(activation(X, w, b) >= 0, 1, -1)
'''

SIGNED_DISTANCE_MATH = '''
import math


def signed_distance(X, w, b):
    """Loops and math.sqrt; checks for w = 0 itself."""
    norm = math.sqrt(sum(float(w_j) ** 2 for w_j in w))
    if norm == 0.0:
        raise ValueError("no hyperplane for w = 0")
    return np.array([(sum(x_j * w_j for x_j, w_j in zip(row, w)) + b) / norm for row in X])
'''

SIGNED_DISTANCE_UNNORMALISED = '''
def signed_distance(X, w, b):
    """Returns the activation: forgets to divide by the norm of w."""
    if not np.any(w):
        raise ValueError("w = 0")
    return np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
'''

SIGNED_DISTANCE_SQUARED_NORM = '''
def signed_distance(X, w, b):
    """Divides by the squared norm w·w instead of the norm."""
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    return (np.asarray(X, dtype=float) @ w + b) / (w @ w)
'''

SIGNED_DISTANCE_ABSOLUTE = '''
def signed_distance(X, w, b):
    """Returns the unsigned distance |w·x + b| / ‖w‖."""
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    return np.abs(np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
'''

SIGNED_DISTANCE_AUGMENTED_NORM = '''
def signed_distance(X, w, b):
    """Divides by the norm of [w, b] (the augmented weights) instead of the norm of w."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    return (X @ w + b) / np.linalg.norm(np.append(w, b))
'''

SIGNED_DISTANCE_NORMALISES_IN_PLACE = '''
def signed_distance(X, w, b):
    """Normalises w in place (w /= ‖w‖): the caller's w becomes a unit vector."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w = 0")
    w /= norm
    return X @ w + b / norm
'''

AUGMENT_COLUMN_STACK = '''
def augment_bias(X):
    """np.column_stack for a matrix, np.concatenate for one point."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        return np.concatenate([X, [1.0]])
    return np.column_stack([X, np.ones(len(X))])
'''

AUGMENT_PREPENDS = '''
def augment_bias(X):
    """Puts the constant 1 first (Lecture 2's canonical representation), not last."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        return np.concatenate([[1.0], X])
    return np.hstack([np.ones((X.shape[0], 1)), X])
'''

AUGMENT_MATRIX_ONLY = '''
def augment_bias(X):
    """Works for a matrix, but not for a single 1-D point."""
    X = np.asarray(X, dtype=float)
    return np.hstack([X, np.ones((X.shape[0], 1))])
'''

ACTIVATION_EINSUM = '''
def activation(X, w, b):
    """np.einsum over the rows."""
    return np.einsum("ij,j->i", np.asarray(X, dtype=float), np.asarray(w, dtype=float)) + b
'''

ACTIVATION_ROW_DOTS = '''
def activation(X, w, b):
    """One np.dot per row, in a list comprehension."""
    w = np.asarray(w, dtype=float)
    return np.array([np.dot(np.asarray(row, dtype=float), w) + b for row in X])
'''

ACTIVATION_BROADCAST = '''
def activation(X, w, b):
    """Broadcast multiply, then sum along the rows."""
    return (np.asarray(X, dtype=float) * np.asarray(w, dtype=float)).sum(axis=1) + b
'''

ACTIVATION_INT_BUFFER = '''
def activation(X, w, b):
    """Fills a result array of X's dtype: integer X truncates fractional activations."""
    X = np.asarray(X)
    out = np.zeros(X.shape[0], dtype=X.dtype)
    for i in range(X.shape[0]):
        out[i] = X[i] @ np.asarray(w) + b
    return out
'''

ACTIVATION_IN_PLACE = '''
def activation(X, w, b):
    """Multiplies X by w in place: the caller's array is changed."""
    X = np.asarray(X, dtype=float)
    X *= np.asarray(w, dtype=float)
    return X.sum(axis=1) + b
'''

ACTIVATION_MINUS_B = '''
def activation(X, w, b):
    """Bast's sign of the bias: w·x − b."""
    return np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) - b
'''

ACTIVATION_DIVIDES_BY_NORM = '''
def activation(X, w, b):
    """Divides by ‖w‖: the signed distance of Exercise 3, not the activation."""
    w = np.asarray(w, dtype=float)
    return (np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
'''

ACTIVATION_COLUMN = '''
def activation(X, w, b):
    """Returns a column of shape (n, 1) instead of a 1-D array."""
    w = np.asarray(w, dtype=float).reshape(-1, 1)
    return np.asarray(X, dtype=float) @ w + b
'''

PREDICT_ARITHMETIC = '''
def predict(X, w, b):
    """2·[a > 0] − 1."""
    return 2 * (activation(X, w, b) > 0).astype(int) - 1
'''

PREDICT_SELF_CONTAINED = '''
def predict(X, w, b):
    """Computes the activation itself instead of calling activation."""
    a = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
    return np.where(a > 0, 1, -1)
'''

PREDICT_LIST = '''
def predict(X, w, b):
    """A list comprehension over the activations."""
    return np.array([1 if a > 0 else -1 for a in activation(X, w, b)])
'''

PREDICT_ZERO_ONE = '''
def predict(X, w, b):
    """Returns 1/0 instead of +1/-1."""
    return (activation(X, w, b) > 0).astype(int)
'''

PREDICT_RAW_SIGN = '''
def predict(X, w, b):
    """np.sign: a point on the plane gets 0 instead of -1."""
    return np.sign(activation(X, w, b)).astype(int)
'''

PREDICT_NO_BIAS = '''
def predict(X, w, b):
    """Compares w·x with 0 and forgets b."""
    return np.where(np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) > 0, 1, -1)
'''

SIGNED_DISTANCE_REUSES_ACTIVATION = '''
def signed_distance(X, w, b):
    """Reuses activation and np.linalg.norm."""
    norm = np.linalg.norm(np.asarray(w, dtype=float))
    if norm == 0:
        raise ValueError("w = 0 defines no hyperplane")
    return activation(X, w, b) / norm
'''

SIGNED_DISTANCE_UNIT_NORMAL = '''
def signed_distance(X, w, b):
    """Scales (w, b) to a unit normal first, then takes the activation."""
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    scale = np.sqrt(np.sum(w * w))
    return np.asarray(X, dtype=float) @ (w / scale) + b / scale
'''

SIGNED_DISTANCE_NO_CHECK = '''
def signed_distance(X, w, b):
    """Right formula, but w = 0 gives nan/inf instead of a ValueError."""
    w = np.asarray(w, dtype=float)
    return (np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
'''

AUGMENT_C_ = '''
def augment_bias(X):
    """np.c_ for a matrix, np.r_ for one point."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        return np.r_[X, 1.0]
    return np.c_[X, np.ones(X.shape[0])]
'''

AUGMENT_PLAIN_PYTHON = '''
def augment_bias(X):
    """Plain Python lists, converted at the end."""
    rows = [list(map(float, row)) + [1.0] for row in np.atleast_2d(np.asarray(X, dtype=float))]
    out = np.array(rows)
    return out[0] if np.ndim(X) == 1 else out
'''

AUGMENT_INSERT = '''
def augment_bias(X):
    """np.insert at the end of the last axis."""
    X = np.asarray(X, dtype=float)
    return np.insert(X, X.shape[-1], 1.0, axis=-1)
'''

AUGMENT_KEEPS_INT = '''
def augment_bias(X):
    """Keeps the input's dtype: integer points give an integer array."""
    X = np.asarray(X)
    if X.ndim == 1:
        return np.append(X, 1)
    return np.hstack([X, np.ones((X.shape[0], 1), dtype=X.dtype)])
'''

AUGMENT_ROW = '''
def augment_bias(X):
    """Appends a row of ones instead of a column."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        return np.append(X, 1.0)
    return np.vstack([X, np.ones(X.shape[1])])
'''

VARIANTS = [
    Variant(
        "activation_loops",
        {"activation": ACTIVATION_LOOPS},
        description="plain Python loops",
    ),
    Variant(
        "activation_einsum",
        {"activation": ACTIVATION_EINSUM},
        description="np.einsum",
    ),
    Variant(
        "activation_row_dots",
        {"activation": ACTIVATION_ROW_DOTS},
        description="one np.dot per row",
    ),
    Variant(
        "activation_broadcast_sum",
        {"activation": ACTIVATION_BROADCAST},
        description="broadcast product summed along rows",
    ),
    Variant(
        "activation_forgets_bias",
        {"activation": ACTIVATION_NO_BIAS},
        lost=frozenset({"activation_visible", "activation_hidden"}),
        description="activation ignores b; predict (tested with the reference) keeps its points",
        misconception="forgets_bias",
    ),
    Variant(
        "activation_integer_buffer",
        {"activation": ACTIVATION_INT_BUFFER},
        lost=frozenset({"activation_hidden"}),
        description="a result array of X's integer dtype truncates fractional activations",
        misconception="integer_results",
    ),
    Variant(
        "activation_modifies_X",
        {"activation": ACTIVATION_IN_PLACE},
        lost=frozenset({"activation_hidden"}),
        description="multiplies the caller's X by w in place",
        misconception="changes_X",
    ),
    Variant(
        "activation_minus_bias",
        {"activation": ACTIVATION_MINUS_B},
        lost=frozenset({"activation_visible", "activation_hidden"}),
        description="w·x − b (Bast's sign of b)",
        misconception="subtracts_bias",
    ),
    Variant(
        "activation_divides_by_norm",
        {"activation": ACTIVATION_DIVIDES_BY_NORM},
        lost=frozenset({"activation_visible", "activation_hidden"}),
        description="(w·x + b) / ‖w‖: the signed distance instead of the activation",
        misconception="divides_by_norm",
    ),
    Variant(
        "activation_column_shape",
        {"activation": ACTIVATION_COLUMN},
        lost=frozenset({"activation_visible", "activation_hidden"}),
        description="returns shape (n, 1)",
        misconception="column_not_vector",
    ),
    Variant(
        "predict_sign_mapped",
        {"predict": PREDICT_SIGN},
        description="np.sign, then everything that is not +1 mapped to -1",
    ),
    Variant(
        "predict_arithmetic",
        {"predict": PREDICT_ARITHMETIC},
        description="2·[a > 0] − 1",
    ),
    Variant(
        "predict_self_contained",
        {"predict": PREDICT_SELF_CONTAINED},
        description="computes the activation itself",
    ),
    Variant(
        "predict_list",
        {"predict": PREDICT_LIST},
        description="a list comprehension",
    ),
    Variant(
        "predict_tie_is_positive",
        {"predict": PREDICT_TIE_POSITIVE},
        lost=frozenset({"predict_hidden"}),
        description="a >= 0 instead of a > 0: points on the plane predicted +1",
        misconception="tie_is_positive",
    ),
    Variant(
        "predict_zero_one",
        {"predict": PREDICT_ZERO_ONE},
        lost=frozenset({"predict_visible", "predict_hidden"}),
        description="labels 1/0 instead of +1/-1",
        misconception="zero_one_labels",
    ),
    Variant(
        "predict_raw_sign",
        {"predict": PREDICT_RAW_SIGN},
        lost=frozenset({"predict_hidden"}),
        description="np.sign: 0 on the plane",
        misconception="sign_gives_zero",
    ),
    Variant(
        "predict_forgets_bias",
        {"predict": PREDICT_NO_BIAS},
        lost=frozenset({"predict_visible", "predict_hidden"}),
        description="compares w·x with 0",
        misconception="forgets_bias",
    ),
    Variant(
        "signed_distance_loops_math",
        {"signed_distance": SIGNED_DISTANCE_MATH},
        description="loops and math.sqrt",
    ),
    Variant(
        "signed_distance_reuses_activation",
        {"signed_distance": SIGNED_DISTANCE_REUSES_ACTIVATION},
        description="activation / np.linalg.norm",
    ),
    Variant(
        "signed_distance_unit_normal",
        {"signed_distance": SIGNED_DISTANCE_UNIT_NORMAL},
        description="normalises (w, b) first",
    ),
    Variant(
        "signed_distance_not_normalised",
        {"signed_distance": SIGNED_DISTANCE_UNNORMALISED},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="returns w·x + b, forgetting to divide by ‖w‖",
        misconception="not_divided_by_norm",
    ),
    Variant(
        "signed_distance_squared_norm",
        {"signed_distance": SIGNED_DISTANCE_SQUARED_NORM},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="divides by ‖w‖² instead of ‖w‖",
        misconception="divides_by_squared_norm",
    ),
    Variant(
        "signed_distance_unsigned",
        {"signed_distance": SIGNED_DISTANCE_ABSOLUTE},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="returns the absolute distance, losing the side",
        misconception="drops_the_sign",
    ),
    Variant(
        "signed_distance_no_zero_check",
        {"signed_distance": SIGNED_DISTANCE_NO_CHECK},
        lost=frozenset({"signed_distance_hidden"}),
        description="no ValueError for w = 0",
        misconception="no_error_for_zero_w",
    ),
    Variant(
        "signed_distance_augmented_norm",
        {"signed_distance": SIGNED_DISTANCE_AUGMENTED_NORM},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="divides by ‖[w, b]‖ instead of ‖w‖ (the other norm)",
        misconception="augmented_norm",
    ),
    Variant(
        "signed_distance_normalises_w_in_place",
        {"signed_distance": SIGNED_DISTANCE_NORMALISES_IN_PLACE},
        lost=frozenset({"signed_distance_hidden"}),
        description="w /= ‖w‖ changes the caller's w",
        misconception="normalises_w_in_place",
    ),
    Variant(
        "augment_bias_column_stack",
        {"augment_bias": AUGMENT_COLUMN_STACK},
        description="np.column_stack and np.concatenate",
    ),
    Variant(
        "augment_bias_c_",
        {"augment_bias": AUGMENT_C_},
        description="np.c_ and np.r_",
    ),
    Variant(
        "augment_bias_plain_python",
        {"augment_bias": AUGMENT_PLAIN_PYTHON},
        description="plain Python lists",
    ),
    Variant(
        "augment_bias_insert",
        {"augment_bias": AUGMENT_INSERT},
        description="np.insert on the last axis",
    ),
    Variant(
        "augment_bias_prepends_one",
        {"augment_bias": AUGMENT_PREPENDS},
        lost=frozenset({"augment_bias_visible", "augment_bias_hidden"}),
        description="puts the constant feature first",
        misconception="one_first",
    ),
    Variant(
        "augment_bias_matrix_only",
        {"augment_bias": AUGMENT_MATRIX_ONLY},
        lost=frozenset({"augment_bias_hidden"}),
        description="fails on a single 1-D point",
        misconception="matrix_only",
    ),
    Variant(
        "augment_bias_keeps_integers",
        {"augment_bias": AUGMENT_KEEPS_INT},
        lost=frozenset({"augment_bias_hidden"}),
        description="an integer input gives an integer array, not a float one",
        misconception="keeps_integers",
    ),
    Variant(
        "augment_bias_appends_row",
        {"augment_bias": AUGMENT_ROW},
        lost=frozenset({"augment_bias_visible", "augment_bias_hidden"}),
        description="a row of ones instead of a column",
        misconception="row_of_ones",
    ),
]

#: A sample answer (by its name) with one of its loops written as a comprehension or a
#: generator expression, the rest of its lines as they were: a copier's disguise
#: (autograder.samples.copies).
LOOP_TO_COMPREHENSION: dict[str, str] = {
    "activation_loops": '''
def activation(X, w, b):
    """Activation of every row, with plain Python loops."""
    result = []
    for row in X:
        total = b + sum(x_j * w_j for x_j, w_j in zip(row, w))
        result.append(total)
    return np.array(result, dtype=float)
''',
}
