"""Sample answers for notebook 06 (SVM margins): other correct ways, and typical bugs.

Each variant replaces one solution cell. The correct ones are written in other styles
(plain loops, an allowed earlier helper such as ``linlib.functional_margin``, the student's
own earlier function); the buggy ones are the mistakes the tests must catch: a wrong
scale, a missing separation check, a strict comparison where the course says ≤, the input
modified in place, sums kept in an integer array, a tolerance that is ignored, an unsigned
distance where a signed one is asked for.
"""

from autograder.samples import Variant

# --- Exercise 1: canonical_form -------------------------------------------------------

CANONICAL_LOOPS = '''
def canonical_form(X, y, w, b):
    """Loops over the points; the smallest functional margin by hand."""
    smallest = None
    for row, label in zip(X, y):
        margin = label * (sum(float(x) * float(v) for x, v in zip(row, w)) + b)
        smallest = margin if smallest is None else min(smallest, margin)
    if smallest <= 0:
        raise ValueError("not a separator")
    return np.array([float(v) / smallest for v in w]), float(b) / smallest
'''

CANONICAL_FUNCTIONAL_MARGIN = '''
def canonical_form(X, y, w, b):
    """Uses notebook 03's helper linlib.functional_margin (allowed: not switched off)."""
    smallest = linlib.functional_margin(X, y, w, b).min()
    if not smallest > 0:
        raise ValueError("(w, b) does not separate the data")
    return np.asarray(w, dtype=float) / smallest, b / smallest
'''

CANONICAL_GEOMETRIC = '''
def canonical_form(X, y, w, b):
    """Through the geometric margin: smallest functional margin = ‖w‖ · margin."""
    w = np.array(w, dtype=np.float64)
    distances = np.asarray(y) * (np.asarray(X, dtype=np.float64) @ w + b) / np.linalg.norm(w)
    if np.any(distances <= 0):
        raise ValueError("not a separator")
    smallest = np.linalg.norm(w) * distances.min()
    return w / smallest, float(b) / float(smallest)
'''

CANONICAL_UNIT_NORMAL = '''
def canonical_form(X, y, w, b):
    """Normalises w to unit length instead (the geometric, not the canonical, scale)."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    if np.min(y * (X @ w + b)) <= 0:
        raise ValueError("not a separator")
    norm = np.linalg.norm(w)
    return w / norm, float(b) / norm
'''

CANONICAL_NO_CHECK = '''
def canonical_form(X, y, w, b):
    """Never checks that (w, b) separates the data."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    smallest = np.min(np.abs(X @ w + b))
    return w / smallest, float(b) / smallest
'''

CANONICAL_STRICT = '''
def canonical_form(X, y, w, b):
    """Rejects only y·a < 0: a point on the plane (y·a = 0) slips through."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    margins = y * (X @ w + b)
    if np.any(margins < 0):
        raise ValueError("not a separator")
    smallest = margins.min()
    return w / smallest, float(b / smallest)
'''

CANONICAL_IN_PLACE = '''
def canonical_form(X, y, w, b):
    """Divides the caller's w in place (w /= m): the array it was given changes."""
    w = np.asarray(w, dtype=float)
    smallest = np.min(np.asarray(y) * (np.asarray(X, dtype=float) @ w + b))
    if smallest <= 0:
        raise ValueError("not a separator")
    w /= smallest
    return w, float(b / smallest)
'''

CANONICAL_INTEGER_ARRAY = '''
def canonical_form(X, y, w, b):
    """Fills an array made with np.zeros_like(w): integer w gives an integer array."""
    w = np.asarray(w)
    smallest = np.min(np.asarray(y) * (np.asarray(X) @ w + b))
    if smallest <= 0:
        raise ValueError("not a separator")
    w_c = np.zeros_like(w)
    for i in range(len(w)):
        w_c[i] = w[i] / smallest
    return w_c, b / smallest
'''

CANONICAL_DECISION_RULE = '''
def canonical_form(X, y, w, b):
    """Checks the predictions with the decision rule (a point on the plane is -1) instead
    of y·a > 0: a -1 point on the plane passes as separated."""
    X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
    y = np.asarray(y)
    a = X @ w + b
    if np.any(np.where(a > 0, 1, -1) != y):
        raise ValueError("(w, b) misclassifies a point")
    smallest = np.min(y * a)
    return w / smallest, float(b / smallest)
'''

# --- Exercise 2: two_point_svm --------------------------------------------------------

TWO_POINT_GEOMETRIC = '''
def two_point_svm(x_pos, x_neg):
    """Unit normal and midpoint first, then scaled so that the margin is 1/‖w‖."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    half_distance = np.linalg.norm(x_pos - x_neg) / 2
    if half_distance == 0:
        raise ValueError("the two points coincide")
    unit = (x_pos - x_neg) / (2 * half_distance)
    w = unit / half_distance
    return w, -float(w @ (x_pos + x_neg) / 2)
'''

TWO_POINT_VIA_CANONICAL = '''
def two_point_svm(x_pos, x_neg):
    """The bisector at any scale, then my canonical_form of exercise 1 rescales it."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    if np.array_equal(x_pos, x_neg):
        raise ValueError("equal points")
    w = x_pos - x_neg
    b = -float(w @ (x_pos + x_neg)) / 2
    return canonical_form(np.array([x_pos, x_neg]), [1, -1], w, b)
'''

TWO_POINT_PLAIN = '''
import math


def two_point_svm(x_pos, x_neg):
    """Plain Python: lists and math.fsum."""
    d = [float(p) - float(q) for p, q in zip(x_pos, x_neg)]
    squared = math.fsum(v * v for v in d)
    if squared == 0:
        raise ValueError("no hyperplane separates two equal points")
    w = [2 * v / squared for v in d]
    middle = [(float(p) + float(q)) / 2 for p, q in zip(x_pos, x_neg)]
    return np.array(w), -math.fsum(a * m for a, m in zip(w, middle))
'''

TWO_POINT_UNIT = '''
def two_point_svm(x_pos, x_neg):
    """Right hyperplane, wrong scale: returns the unit normal."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    difference = x_pos - x_neg
    if not np.any(difference):
        raise ValueError("the two points coincide")
    w = difference / np.linalg.norm(difference)
    return w, -float(w @ (x_pos + x_neg) / 2)
'''

TWO_POINT_NO_FACTOR_TWO = '''
def two_point_svm(x_pos, x_neg):
    """Forgets the factor 2: w·x_pos + b = 1/2 instead of 1."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    difference = x_pos - x_neg
    if not np.any(difference):
        raise ValueError("the two points coincide")
    w = difference / (difference @ difference)
    return w, -float(w @ (x_pos + x_neg) / 2)
'''

TWO_POINT_MIDPOINT = '''
def two_point_svm(x_pos, x_neg):
    """b through the sum x_pos + x_neg instead of the midpoint (forgets the / 2)."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    difference = x_pos - x_neg
    if not np.any(difference):
        raise ValueError("the two points coincide")
    w = 2 * difference / (difference @ difference)
    return w, -float(w @ (x_pos + x_neg))
'''

TWO_POINT_NO_CHECK = '''
def two_point_svm(x_pos, x_neg):
    """No ValueError for equal points: returns nan (0/0) instead."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    difference = x_pos - x_neg
    with np.errstate(invalid="ignore", divide="ignore"):
        w = 2 * difference / (difference @ difference)
    return w, -float(w @ (x_pos + x_neg)) / 2
'''

TWO_POINT_IN_PLACE = '''
def two_point_svm(x_pos, x_neg):
    """Computes the difference in the caller's x_pos (x_pos -= x_neg)."""
    x_pos, x_neg = np.asarray(x_pos, dtype=float), np.asarray(x_neg, dtype=float)
    middle = (x_pos + x_neg) / 2
    x_pos -= x_neg
    squared = x_pos @ x_pos
    if squared == 0:
        raise ValueError("equal points")
    w = 2 * x_pos / squared
    return w, -float(w @ middle)
'''

# --- Exercise 3: on_margin ------------------------------------------------------------

ON_MARGIN_LOOPS = '''
import math


def on_margin(X, y, w, b, tol=1e-6):
    """Distances with math.sqrt and a list."""
    norm = math.sqrt(sum(float(v) ** 2 for v in w))
    distances = []
    for row, t in zip(X, y):
        distances.append(t * (sum(float(x) * float(v) for x, v in zip(row, w)) + b) / norm)
    closest = min(distances)
    return np.array([d - closest <= tol for d in distances])
'''

ON_MARGIN_HELPERS = '''
def on_margin(X, y, w, b, tol=1e-6):
    """linlib.signed_distance and linlib.geometric_margin (allowed earlier helpers)."""
    distances = np.asarray(y) * linlib.signed_distance(X, w, b)
    return distances <= linlib.geometric_margin(X, y, w, b) + tol
'''

ON_MARGIN_UNIT_NORMAL = '''
def on_margin(X, y, w, b, tol=1e-6):
    """Normalises (w, b) to a unit normal first; then functional margin = distance."""
    w = np.asarray(w, dtype=float)
    norm = np.sqrt(np.sum(w * w))
    u, c = w / norm, b / norm
    distances = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ u + c)
    return np.less_equal(distances - np.min(distances), tol)
'''

ON_MARGIN_FUNCTIONAL = '''
def on_margin(X, y, w, b, tol=1e-6):
    """Compares functional margins y(w·x + b), not distances: depends on the scale of w."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    functional = y * (X @ w + b)
    return functional <= functional.min() + tol
'''

ON_MARGIN_IGNORES_TOL = '''
def on_margin(X, y, w, b, tol=1e-6):
    """np.isclose with its default tolerances: the tol argument is never used."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    distances = y * (X @ w + b) / np.linalg.norm(w)
    return np.isclose(distances, distances.min())
'''

ON_MARGIN_STRICT = '''
def on_margin(X, y, w, b, tol=1e-6):
    """< instead of <=: with tol = 0 not even the closest point is on the margin."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    distances = y * (X @ w + b) / np.linalg.norm(w)
    return distances < distances.min() + tol
'''

ON_MARGIN_UNSIGNED = '''
def on_margin(X, y, w, b, tol=1e-6):
    """|w·x + b|/‖w‖, the unsigned distance: a point on the wrong side looks far away."""
    X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
    distances = np.abs(X @ w + b) / np.linalg.norm(w)
    return distances <= distances.min() + tol
'''

ON_MARGIN_AUGMENTED_NORM = '''
def on_margin(X, y, w, b, tol=1e-6):
    """Divides by ‖[w, b]‖, the augmented norm of notebook 03's bound, instead of ‖w‖."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    distances = y * (X @ w + b) / np.linalg.norm(np.append(w, b))
    return distances <= distances.min() + tol
'''

ON_MARGIN_ISCLOSE_RTOL = '''
def on_margin(X, y, w, b, tol=1e-6):
    """np.isclose with atol=tol, its default rtol=1e-05 left in: far from the plane a point
    more than tol beyond the closest still counts."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    distances = y * (X @ w + b) / np.linalg.norm(w)
    return np.isclose(distances, distances.min(), atol=tol)
'''

# --- Exercise 4: hinge_slacks ---------------------------------------------------------

HINGE_CLIP = '''
def hinge_slacks(X, y, w, b):
    """np.clip with a lower bound only, the activation as a loop."""
    margins = [t * (sum(float(x) * float(v) for x, v in zip(row, w)) + b) for row, t in zip(X, y)]
    return np.clip(1.0 - np.array(margins), 0.0, None)
'''

HINGE_FUNCTIONAL_MARGIN = '''
def hinge_slacks(X, y, w, b):
    """1 minus notebook 03's linlib.functional_margin, negatives set to 0 with np.where."""
    slack = 1.0 - linlib.functional_margin(X, y, w, b)
    return np.where(slack > 0, slack, 0.0)
'''

HINGE_PLAIN = '''
def hinge_slacks(X, y, w, b):
    """Plain Python max(0, ·) per point, in a float array."""
    out = np.empty(len(y))
    for i, (row, t) in enumerate(zip(X, y)):
        activation = b
        for x, v in zip(row, w):
            activation += x * v
        out[i] = max(0.0, 1.0 - t * activation)
    return out
'''

HINGE_NO_MAX = '''
def hinge_slacks(X, y, w, b):
    """Forgets max(0, ·): points beyond the margin get negative slack."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    return 1.0 - y * (X @ np.asarray(w, dtype=float) + b)
'''

HINGE_INTEGER_ARRAY = '''
def hinge_slacks(X, y, w, b):
    """Collects the slacks in np.zeros_like(y): integer labels make it an integer array."""
    y = np.asarray(y)
    slacks = np.zeros_like(y)
    for i in range(len(y)):
        slacks[i] = max(0.0, 1.0 - y[i] * (np.dot(X[i], w) + b))
    return slacks
'''

HINGE_PERCEPTRON_LOSS = '''
def hinge_slacks(X, y, w, b):
    """max(0, -y·a), the perceptron's loss: forgets the 1 of the margin."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    return np.maximum(0.0, -y * (X @ np.asarray(w, dtype=float) + b))
'''

HINGE_IN_PLACE = '''
def hinge_slacks(X, y, w, b):
    """Multiplies the caller's X by y in place to get y·x."""
    X = np.asarray(X, dtype=float)
    X *= np.asarray(y, dtype=float)[:, None]
    return np.maximum(0.0, 1.0 - (X @ np.asarray(w, dtype=float) + np.asarray(y) * b))
'''

_CANONICAL = frozenset(
    {"canonical_form_visible", "canonical_form_hidden", "canonical_form_plane_ties"}
)
_TWO_POINT = frozenset({"two_point_svm_visible", "two_point_svm_hidden"})
_ON_MARGIN = frozenset({"on_margin_visible", "on_margin_hidden"})
_HINGE = frozenset({"hinge_slacks_visible", "hinge_slacks_hidden"})

VARIANTS = [
    # canonical_form
    Variant(
        "canonical_form_loops",
        {"canonical_form": CANONICAL_LOOPS},
        description="plain loops, the smallest functional margin by hand",
    ),
    Variant(
        "canonical_form_with_functional_margin",
        {"canonical_form": CANONICAL_FUNCTIONAL_MARGIN},
        description="calls linlib.functional_margin, an allowed helper of notebook 03",
    ),
    Variant(
        "canonical_form_through_distances",
        {"canonical_form": CANONICAL_GEOMETRIC},
        description="smallest functional margin as ‖w‖ times the smallest distance",
    ),
    Variant(
        "canonical_form_unit_normal",
        {"canonical_form": CANONICAL_UNIT_NORMAL},
        lost=_CANONICAL,
        description="divides by ‖w‖ instead of the smallest functional margin",
        misconception="unit_normal",
    ),
    Variant(
        "canonical_form_no_separation_check",
        {"canonical_form": CANONICAL_NO_CHECK},
        lost=frozenset({"canonical_form_hidden", "canonical_form_plane_ties"}),
        description="no ValueError when (w, b) does not separate (uses |w·x + b|)",
        misconception="no_separation_check",
    ),
    Variant(
        "canonical_form_strict_comparison",
        {"canonical_form": CANONICAL_STRICT},
        lost=frozenset({"canonical_form_hidden", "canonical_form_plane_ties"}),
        description="raises only for y·a < 0, so a point on the plane is accepted",
        misconception="tie_separates",
    ),
    Variant(
        "canonical_form_modifies_w",
        {"canonical_form": CANONICAL_IN_PLACE},
        lost=frozenset({"canonical_form_hidden"}),
        description="w /= m on the caller's float array",
        misconception="changes_w",
    ),
    Variant(
        "canonical_form_integer_array",
        {"canonical_form": CANONICAL_INTEGER_ARRAY},
        lost=frozenset({"canonical_form_hidden"}),
        description="np.zeros_like(w) truncates w/m when w is given as integers",
        misconception="integer_results",
    ),
    Variant(
        "canonical_form_decision_rule",
        {"canonical_form": CANONICAL_DECISION_RULE},
        lost=frozenset({"canonical_form_plane_ties"}),
        description="checks predictions (a point on the plane is -1), not y·a > 0",
        misconception="checks_predictions",
    ),
    # two_point_svm
    Variant(
        "two_point_svm_geometric",
        {"two_point_svm": TWO_POINT_GEOMETRIC},
        description="unit normal and half the distance, then rescaled",
    ),
    Variant(
        "two_point_svm_calls_canonical_form",
        {"two_point_svm": TWO_POINT_VIA_CANONICAL},
        description="the bisector at any scale, rescaled with the student's canonical_form",
    ),
    Variant(
        "two_point_svm_plain_python",
        {"two_point_svm": TWO_POINT_PLAIN},
        description="lists, math.fsum",
    ),
    Variant(
        "two_point_svm_unit_normal",
        {"two_point_svm": TWO_POINT_UNIT},
        lost=frozenset({"two_point_svm_hidden"}),
        description="the bisector with a unit normal, not in canonical form",
        misconception="unit_normal",
    ),
    Variant(
        "two_point_svm_forgets_factor_two",
        {"two_point_svm": TWO_POINT_NO_FACTOR_TWO},
        lost=_TWO_POINT,
        description="w = d/‖d‖² instead of 2d/‖d‖²",
        misconception="half_the_weights",
    ),
    Variant(
        "two_point_svm_sum_not_midpoint",
        {"two_point_svm": TWO_POINT_MIDPOINT},
        lost=_TWO_POINT,
        description="b = -w·(x₊ + x₋) instead of -w·(x₊ + x₋)/2",
        misconception="sum_not_midpoint",
    ),
    Variant(
        "two_point_svm_no_equal_check",
        {"two_point_svm": TWO_POINT_NO_CHECK},
        lost=frozenset({"two_point_svm_hidden"}),
        description="equal points give nan instead of a ValueError",
        misconception="no_error_for_equal_points",
    ),
    Variant(
        "two_point_svm_modifies_x_pos",
        {"two_point_svm": TWO_POINT_IN_PLACE},
        lost=frozenset({"two_point_svm_hidden"}),
        description="x_pos -= x_neg on the caller's array",
        misconception="changes_x_pos",
    ),
    # on_margin
    Variant(
        "on_margin_loops",
        {"on_margin": ON_MARGIN_LOOPS},
        description="distances with math.sqrt and a list",
    ),
    Variant(
        "on_margin_with_helpers",
        {"on_margin": ON_MARGIN_HELPERS},
        description="linlib.signed_distance and linlib.geometric_margin, allowed helpers",
    ),
    Variant(
        "on_margin_unit_normal",
        {"on_margin": ON_MARGIN_UNIT_NORMAL},
        description="rescales (w, b) to a unit normal, then compares functional margins",
    ),
    Variant(
        "on_margin_functional_not_geometric",
        {"on_margin": ON_MARGIN_FUNCTIONAL},
        lost=frozenset({"on_margin_hidden", "on_margin_far_plane"}),
        description="tolerance on y(w·x + b) instead of the distance: not scale-invariant",
        misconception="functional_not_distance",
    ),
    Variant(
        "on_margin_ignores_tol",
        {"on_margin": ON_MARGIN_IGNORES_TOL},
        lost=frozenset({"on_margin_hidden", "on_margin_far_plane"}),
        description="np.isclose with default tolerances; the tol argument is ignored",
        misconception="ignores_tol",
    ),
    Variant(
        "on_margin_strict_comparison",
        {"on_margin": ON_MARGIN_STRICT},
        lost=frozenset({"on_margin_hidden"}),
        description="distance < closest + tol: nothing is on the margin when tol = 0",
        misconception="strict_comparison",
    ),
    Variant(
        "on_margin_unsigned_distance",
        {"on_margin": ON_MARGIN_UNSIGNED},
        lost=frozenset({"on_margin_hidden"}),
        description="|w·x + b|/‖w‖ where the signed distance on the correct side is asked for",
        misconception="unsigned_distance",
    ),
    Variant(
        "on_margin_augmented_norm",
        {"on_margin": ON_MARGIN_AUGMENTED_NORM},
        lost=frozenset({"on_margin_far_plane"}),
        description="divides by ‖[w, b]‖ instead of ‖w‖",
        misconception="augmented_norm",
    ),
    Variant(
        "on_margin_isclose_relative_tolerance",
        {"on_margin": ON_MARGIN_ISCLOSE_RTOL},
        lost=frozenset({"on_margin_far_plane"}),
        description="np.isclose(..., atol=tol) keeps numpy's relative tolerance 1e-05",
        misconception="relative_tolerance",
    ),
    # hinge_slacks
    Variant(
        "hinge_slacks_clip",
        {"hinge_slacks": HINGE_CLIP},
        description="np.clip with a lower bound only, the activation as a loop",
    ),
    Variant(
        "hinge_slacks_with_functional_margin",
        {"hinge_slacks": HINGE_FUNCTIONAL_MARGIN},
        description="1 - linlib.functional_margin, an allowed helper of notebook 03",
    ),
    Variant(
        "hinge_slacks_plain_python",
        {"hinge_slacks": HINGE_PLAIN},
        description="a loop with max(0.0, ·) into a float array",
    ),
    Variant(
        "hinge_slacks_without_max",
        {"hinge_slacks": HINGE_NO_MAX},
        lost=frozenset({"hinge_slacks_hidden"}),
        description="1 - y(w·x + b) without max(0, ·)",
        misconception="forgets_max",
    ),
    Variant(
        "hinge_slacks_integer_array",
        {"hinge_slacks": HINGE_INTEGER_ARRAY},
        lost=_HINGE,
        description="slacks stored in np.zeros_like(y), an integer array: 0.5 becomes 0",
        misconception="integer_results",
    ),
    Variant(
        "hinge_slacks_perceptron_loss",
        {"hinge_slacks": HINGE_PERCEPTRON_LOSS},
        lost=_HINGE,
        description="max(0, -y·a), the perceptron's loss, instead of max(0, 1 - y·a)",
        misconception="perceptron_loss",
    ),
    Variant(
        "hinge_slacks_modifies_X",
        {"hinge_slacks": HINGE_IN_PLACE},
        lost=frozenset({"hinge_slacks_hidden"}),
        description="X *= y on the caller's float array",
        misconception="changes_X",
    ),
]

#: A sample answer (by its name) with one of its loops written as a comprehension or a
#: generator expression, the rest of its lines as they were: a copier's disguise
#: (autograder.samples.copies).
LOOP_TO_COMPREHENSION: dict[str, str] = {
    "on_margin_loops": '''
import math


def on_margin(X, y, w, b, tol=1e-6):
    """Distances with math.sqrt and a list."""
    norm = math.sqrt(sum(float(v) ** 2 for v in w))
    distances = [
        t * (sum(float(x) * float(v) for x, v in zip(row, w)) + b) / norm for row, t in zip(X, y)
    ]
    closest = min(distances)
    return np.array([d - closest <= tol for d in distances])
''',
    "hinge_slacks_plain_python": '''
def hinge_slacks(X, y, w, b):
    """Plain Python max(0, ·) per point, in a float array."""
    out = np.empty(len(y))
    for i, (row, t) in enumerate(zip(X, y)):
        activation = b + sum(x * v for x, v in zip(row, w))
        out[i] = max(0.0, 1.0 - t * activation)
    return out
''',
}
