"""Sample answers for notebook 03 (the convergence proof): other correct ways, and bugs."""

from autograder.samples import Variant

MARGINS_LOOPS = '''
def functional_margins(X, y, w, b):
    """A list comprehension over the points."""
    return np.array([label * (np.dot(x, w) + b) for x, label in zip(X, y)], dtype=float)
'''

MARGINS_NO_LABELS = '''
def functional_margins(X, y, w, b):
    """Forgets to multiply by the labels: returns the activations."""
    return np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
'''

DATASET_MARGIN_LOOP = '''
import math


def dataset_margin(X, y, w, b):
    """Smallest margin found with a loop; the norm with math.sqrt."""
    norm = math.sqrt(sum(float(w_j) ** 2 for w_j in w))
    if norm == 0.0:
        raise ValueError("w = 0")
    smallest = math.inf
    for margin in functional_margins(X, y, w, b):
        smallest = min(smallest, margin / norm)
    return smallest
'''

DATASET_MARGIN_ABSOLUTE = '''
def dataset_margin(X, y, w, b):
    """Uses the unsigned distance, so a point on the wrong side still counts as positive."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    return float(np.min(np.abs(X @ w + b)) / np.linalg.norm(w))
'''

DATASET_MARGIN_FUNCTIONAL = '''
def dataset_margin(X, y, w, b):
    """Forgets to divide by ‖w‖: the smallest functional margin."""
    if not np.any(w):
        raise ValueError("w = 0")
    return float(np.min(functional_margins(X, y, w, b)))
'''

BOUND_AUGMENT_EXPLICITLY = '''
def novikoff_bound_augmented(X, y, w, b):
    """Builds the augmented points and weights, and uses the Dahuawiki form R²‖u‖²/γ_f²."""
    Z = np.hstack([np.asarray(X, dtype=float), np.ones((len(X), 1))])
    u = np.append(np.asarray(w, dtype=float), b)
    smallest = min(label * (z @ u) for z, label in zip(Z, y))
    if smallest <= 0:
        raise ValueError("not separating")
    R = max(np.linalg.norm(z) for z in Z)
    return R**2 * (u @ u) / smallest**2
'''

BOUND_RADIUS_WITHOUT_ONE = '''
def novikoff_bound_augmented(X, y, w, b):
    """Takes R = max‖x‖ instead of max‖[x, 1]‖."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    margins = functional_margins(X, y, w, b)
    if np.min(margins) <= 0:
        raise ValueError("not separating")
    gamma = np.min(margins) / np.sqrt(w @ w + b**2)
    R = np.max(np.linalg.norm(X, axis=1))
    return float((R / gamma) ** 2)
'''

BOUND_MARGIN_WITHOUT_BIAS = '''
def novikoff_bound_augmented(X, y, w, b):
    """Divides the margin by ‖w‖ instead of ‖[w, b]‖."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    margins = functional_margins(X, y, w, b)
    if np.min(margins) <= 0:
        raise ValueError("not separating")
    gamma = np.min(margins) / np.linalg.norm(w)
    R = np.sqrt(np.max(np.sum(X**2, axis=1)) + 1.0)
    return float((R / gamma) ** 2)
'''

BOUND_NO_CHECK = '''
def novikoff_bound_augmented(X, y, w, b):
    """Right formula, but no ValueError when (w, b) does not separate."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    gamma = np.min(functional_margins(X, y, w, b)) / np.sqrt(w @ w + b**2)
    R = np.sqrt(np.max(np.sum(X**2, axis=1)) + 1.0)
    return float((R / gamma) ** 2)
'''

COUNT_WHILE = '''
def count_updates(X, y, max_epochs):
    """A while loop with a flag, the bias as the last augmented weight."""
    Z = np.hstack([np.asarray(X, dtype=float), np.ones((len(X), 1))])
    u = np.zeros(Z.shape[1])
    total, epochs, changed = 0, 0, True
    while changed and epochs < max_epochs:
        changed = False
        epochs += 1
        for z, label in zip(Z, y):
            if label * (u @ z) <= 0:
                u = u + label * z
                total += 1
                changed = True
    return total
'''

COUNT_STRICT = '''
def count_updates(X, y, max_epochs):
    """Updates only when y·a < 0: from w = 0 nothing ever happens."""
    X = np.asarray(X, dtype=float)
    w, b, total = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(max_epochs):
        before = total
        for x, label in zip(X, y):
            if label * (w @ x + b) < 0:
                w, b, total = w + label * x, b + label, total + 1
        if total == before:
            break
    return total
'''

COUNT_EPOCHS = '''
def count_updates(X, y, max_epochs):
    """Returns the number of epochs run instead of the number of updates."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    for epoch in range(1, max_epochs + 1):
        changed = False
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w, b, changed = w + label * x, b + label, True
        if not changed:
            return epoch
    return max_epochs
'''

VARIANTS = [
    Variant(
        "loops_and_explicit_augmentation",
        {
            "functional_margins": MARGINS_LOOPS,
            "dataset_margin": DATASET_MARGIN_LOOP,
            "novikoff_bound_augmented": BOUND_AUGMENT_EXPLICITLY,
            "count_updates": COUNT_WHILE,
        },
        description="loops, math.sqrt, augmented arrays, the R²‖u‖²/γ² form, a while loop",
    ),
    Variant(
        "bound_dahuawiki_form",
        {"novikoff_bound_augmented": BOUND_AUGMENT_EXPLICITLY},
        description="the bound as R²‖[w, b]‖² / (min functional margin)²",
    ),
    Variant(
        "margins_forget_labels",
        {"functional_margins": MARGINS_NO_LABELS},
        lost=frozenset(
            {
                "functional_margins_visible",
                "functional_margins_hidden",
                "dataset_margin_visible",
                "dataset_margin_hidden",
                "novikoff_bound_augmented_visible",
                "novikoff_bound_augmented_hidden",
            }
        ),
        description="activations instead of y·a; the two functions that reuse it break too",
    ),
    Variant(
        "dataset_margin_unsigned",
        {"dataset_margin": DATASET_MARGIN_ABSOLUTE},
        lost=frozenset({"dataset_margin_hidden"}),
        description="|w·x + b| / ‖w‖: a misclassified point still gives a positive margin",
    ),
    Variant(
        "dataset_margin_functional",
        {"dataset_margin": DATASET_MARGIN_FUNCTIONAL},
        lost=frozenset({"dataset_margin_visible", "dataset_margin_hidden"}),
        description="forgets to divide by ‖w‖",
    ),
    Variant(
        "bound_radius_without_bias",
        {"novikoff_bound_augmented": BOUND_RADIUS_WITHOUT_ONE},
        lost=frozenset({"novikoff_bound_augmented_visible", "novikoff_bound_augmented_hidden"}),
        description="R from the original points, not the augmented ones",
    ),
    Variant(
        "bound_margin_without_bias",
        {"novikoff_bound_augmented": BOUND_MARGIN_WITHOUT_BIAS},
        lost=frozenset({"novikoff_bound_augmented_visible", "novikoff_bound_augmented_hidden"}),
        description="γ divided by ‖w‖ instead of ‖[w, b]‖",
    ),
    Variant(
        "bound_without_separation_check",
        {"novikoff_bound_augmented": BOUND_NO_CHECK},
        lost=frozenset({"novikoff_bound_augmented_hidden"}),
        description="returns a number for a hyperplane that does not separate the data",
    ),
    Variant(
        "count_updates_strict",
        {"count_updates": COUNT_STRICT},
        lost=frozenset({"count_updates_visible", "count_updates_hidden"}),
        description="y·a < 0: the run never leaves w = 0",
    ),
    Variant(
        "count_updates_counts_epochs",
        {"count_updates": COUNT_EPOCHS},
        lost=frozenset({"count_updates_visible", "count_updates_hidden"}),
        description="counts epochs instead of updates",
    ),
]
