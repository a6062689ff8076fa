"""Sample answers for notebook 06 (SVM margins): other correct ways, and typical bugs."""

from autograder.samples import Variant

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

ON_MARGIN_FUNCTIONAL = '''
def on_margin(X, y, w, b, tol=1e-6):
    """Compares functional margins y(w·x + b), not distances: depends on the scale of w."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    functional = y * (X @ w + b)
    return functional <= functional.min() + tol
'''

HINGE_CLIP = '''
def hinge_slacks(X, y, w, b):
    """np.clip with a lower bound only, the activation as a loop."""
    margins = [t * (sum(float(x) * float(v) for x, v in zip(row, w)) + b) for row, t in zip(X, y)]
    return np.clip(1.0 - np.array(margins), 0.0, None)
'''

HINGE_NO_MAX = '''
def hinge_slacks(X, y, w, b):
    """Forgets max(0, ·): points beyond the margin get negative slack."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    return 1.0 - y * (X @ np.asarray(w, dtype=float) + b)
'''

VARIANTS = [
    Variant(
        "loops_and_geometry",
        {
            "canonical_form": CANONICAL_LOOPS,
            "two_point_svm": TWO_POINT_GEOMETRIC,
            "on_margin": ON_MARGIN_LOOPS,
            "hinge_slacks": HINGE_CLIP,
        },
        description="plain loops, math.sqrt, the bisector built from a unit normal, np.clip",
    ),
    Variant(
        "geometric_two_points_only",
        {"two_point_svm": TWO_POINT_GEOMETRIC, "on_margin": ON_MARGIN_LOOPS},
        description="only the two-point SVM and on_margin written another way",
    ),
    Variant(
        "canonical_form_unit_normal",
        {"canonical_form": CANONICAL_UNIT_NORMAL},
        lost=frozenset({"canonical_form_visible", "canonical_form_hidden"}),
        description="divides by ‖w‖ instead of the smallest functional margin",
    ),
    Variant(
        "canonical_form_no_separation_check",
        {"canonical_form": CANONICAL_NO_CHECK},
        lost=frozenset({"canonical_form_hidden"}),
        description="no ValueError when (w, b) does not separate (uses |w·x + b|)",
    ),
    Variant(
        "two_point_svm_unit_normal",
        {"two_point_svm": TWO_POINT_UNIT},
        lost=frozenset({"two_point_svm_hidden"}),
        description="the bisector with a unit normal, not in canonical form",
    ),
    Variant(
        "two_point_svm_forgets_factor_two",
        {"two_point_svm": TWO_POINT_NO_FACTOR_TWO},
        lost=frozenset({"two_point_svm_visible", "two_point_svm_hidden"}),
        description="w = d/‖d‖² instead of 2d/‖d‖²",
    ),
    Variant(
        "on_margin_functional_not_geometric",
        {"on_margin": ON_MARGIN_FUNCTIONAL},
        lost=frozenset({"on_margin_hidden"}),
        description="tolerance on y(w·x + b) instead of the distance: not scale-invariant",
    ),
    Variant(
        "hinge_slacks_without_max",
        {"hinge_slacks": HINGE_NO_MAX},
        lost=frozenset({"hinge_slacks_hidden"}),
        description="1 - y(w·x + b) without max(0, ·)",
    ),
]
