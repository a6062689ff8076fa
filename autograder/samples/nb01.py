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

VARIANTS = [
    Variant(
        "loops_and_other_numpy",
        {
            "activation": ACTIVATION_LOOPS,
            "predict": PREDICT_SIGN,
            "signed_distance": SIGNED_DISTANCE_MATH,
            "augment_bias": AUGMENT_COLUMN_STACK,
        },
        description="loops instead of vectorised code, np.sign, math.sqrt, np.column_stack",
    ),
    Variant(
        "activation_loops_only",
        {"activation": ACTIVATION_LOOPS},
        description="only activation written with loops (predict reuses it)",
    ),
    Variant(
        "activation_forgets_bias",
        {"activation": ACTIVATION_NO_BIAS},
        lost=frozenset(
            {"activation_visible", "activation_hidden", "predict_visible", "predict_hidden"}
        ),
        description="activation ignores b; predict, which reuses it, breaks too",
    ),
    Variant(
        "predict_tie_is_positive",
        {"predict": PREDICT_TIE_POSITIVE},
        lost=frozenset({"predict_hidden"}),
        description="a >= 0 instead of a > 0: points on the plane predicted +1",
    ),
    Variant(
        "signed_distance_not_normalised",
        {"signed_distance": SIGNED_DISTANCE_UNNORMALISED},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="returns w·x + b, forgetting to divide by ‖w‖",
    ),
    Variant(
        "signed_distance_squared_norm",
        {"signed_distance": SIGNED_DISTANCE_SQUARED_NORM},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="divides by ‖w‖² instead of ‖w‖",
    ),
    Variant(
        "signed_distance_unsigned",
        {"signed_distance": SIGNED_DISTANCE_ABSOLUTE},
        lost=frozenset({"signed_distance_visible", "signed_distance_hidden"}),
        description="returns the absolute distance, losing the side",
    ),
    Variant(
        "augment_bias_prepends_one",
        {"augment_bias": AUGMENT_PREPENDS},
        lost=frozenset({"augment_bias_visible", "augment_bias_hidden"}),
        description="puts the constant feature first",
    ),
    Variant(
        "augment_bias_matrix_only",
        {"augment_bias": AUGMENT_MATRIX_ONLY},
        lost=frozenset({"augment_bias_hidden"}),
        description="fails on a single 1-D point",
    ),
]
