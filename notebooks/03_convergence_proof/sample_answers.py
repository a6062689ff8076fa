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

MARGINS_EINSUM = '''
def functional_margins(X, y, w, b):
    """np.einsum for the activations, np.multiply with the labels."""
    a = np.einsum("ij,j->i", np.asarray(X, dtype=float), np.asarray(w, dtype=float)) + b
    return np.multiply(np.asarray(y, dtype=float), a)
'''

MARGINS_LINLIB_ACTIVATION = '''
import linlib


def functional_margins(X, y, w, b):
    """Reuses notebook 01's linlib.activation (an allowed helper)."""
    return np.asarray(y) * linlib.activation(X, w, b)
'''

MARGINS_SIGNS_AS_MASK = '''
def functional_margins(X, y, w, b):
    """Flips the sign of the activations where y is -1."""
    a = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
    return np.where(np.asarray(y) > 0, a, -a)
'''

MARGINS_INT_BUFFER = '''
def functional_margins(X, y, w, b):
    """Fills an array of X's dtype: integer X truncates the margins."""
    X = np.asarray(X)
    out = np.zeros(len(X), dtype=X.dtype)
    for i in range(len(X)):
        out[i] = y[i] * (X[i] @ np.asarray(w) + b)
    return out
'''

MARGINS_WRONG_SIGN = '''
def functional_margins(X, y, w, b):
    """−y·a: positive for the points on the wrong side."""
    return -np.asarray(y) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b)
'''

MARGINS_NO_BIAS = '''
def functional_margins(X, y, w, b):
    """Forgets b."""
    return np.asarray(y) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))
'''

MARGINS_ONLY_MIN = '''
def functional_margins(X, y, w, b):
    """Returns the smallest margin instead of every margin."""
    return float(np.min(np.asarray(y) * (np.asarray(X, dtype=float) @ np.asarray(w) + b)))
'''

DATASET_MARGIN_SIGNED_DISTANCE = '''
import linlib


def dataset_margin(X, y, w, b):
    """y times notebook 01's linlib.signed_distance (allowed; it raises for w = 0)."""
    return float(np.min(np.asarray(y) * linlib.signed_distance(X, w, b)))
'''

DATASET_MARGIN_NORM_DOT = '''
def dataset_margin(X, y, w, b):
    """functional_margins, then .min() and sqrt(w·w)."""
    w = np.asarray(w, dtype=float)
    if np.dot(w, w) == 0:
        raise ValueError("w = 0")
    return functional_margins(X, y, w, b).min() / np.sqrt(np.dot(w, w))
'''

DATASET_MARGIN_SORTED = '''
def dataset_margin(X, y, w, b):
    """Sorts the geometric margins and takes the first."""
    norm = np.linalg.norm(w)
    if not norm > 0:
        raise ValueError("w = 0")
    return sorted(functional_margins(X, y, w, b) / norm)[0]
'''

DATASET_MARGIN_NO_CHECK = '''
def dataset_margin(X, y, w, b):
    """No ValueError for w = 0 (returns inf or nan)."""
    return float(np.min(functional_margins(X, y, w, b)) / np.linalg.norm(w))
'''

DATASET_MARGIN_MAX = '''
def dataset_margin(X, y, w, b):
    """The largest margin instead of the smallest."""
    norm = np.linalg.norm(w)
    if norm == 0:
        raise ValueError("w = 0")
    return float(np.max(functional_margins(X, y, w, b)) / norm)
'''

DATASET_MARGIN_AUGMENTED_NORM = '''
def dataset_margin(X, y, w, b):
    """Divides by ‖[w, b]‖ (the augmented norm) instead of ‖w‖."""
    w = np.asarray(w, dtype=float)
    if not np.any(w):
        raise ValueError("w = 0")
    return float(np.min(functional_margins(X, y, w, b)) / np.sqrt(w @ w + b * b))
'''

BOUND_LINLIB_AUGMENT = '''
import linlib


def novikoff_bound_augmented(X, y, w, b):
    """Augmented points from notebook 01's linlib.augment (allowed), one vector u."""
    Z = linlib.augment(X)
    u = np.append(np.asarray(w, dtype=float), b)
    margins = np.asarray(y) * (Z @ u)
    if margins.min() <= 0:
        raise ValueError("(w, b) does not separate the data")
    R = np.linalg.norm(Z, axis=1).max()
    gamma = margins.min() / np.linalg.norm(u)
    return float((R / gamma) ** 2)
'''

BOUND_FROM_DATASET_MARGIN = '''
def novikoff_bound_augmented(X, y, w, b):
    """γ from dataset_margin, rescaled from ‖w‖ to ‖[w, b]‖."""
    w = np.asarray(w, dtype=float)
    if np.min(functional_margins(X, y, w, b)) <= 0:
        raise ValueError("(w, b) does not separate the data")
    gamma = dataset_margin(X, y, w, b) * np.linalg.norm(w) / np.sqrt(w @ w + b**2)
    R2 = max(float(x @ x) + 1.0 for x in np.asarray(X, dtype=float))
    return R2 / gamma**2
'''

BOUND_LOOPS = '''
import math


def novikoff_bound_augmented(X, y, w, b):
    """Plain loops and math."""
    smallest, R2 = math.inf, 0.0
    for x, label in zip(X, y):
        smallest = min(smallest, label * (sum(float(a) * float(c) for a, c in zip(x, w)) + b))
        R2 = max(R2, sum(float(a) ** 2 for a in x) + 1.0)
    if smallest <= 0:
        raise ValueError("(w, b) does not separate the data")
    norm2 = sum(float(c) ** 2 for c in w) + b * b
    return R2 * norm2 / smallest**2
'''

BOUND_STRICT_CHECK = '''
def novikoff_bound_augmented(X, y, w, b):
    """Raises only for y·a < 0: a point on the plane slips through."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    margins = functional_margins(X, y, w, b)
    if np.min(margins) < 0:
        raise ValueError("(w, b) does not separate the data")
    gamma = np.min(margins) / np.sqrt(w @ w + b**2)
    with np.errstate(divide="ignore"):
        return float(np.max(np.sum(X**2, axis=1) + 1.0) / gamma**2)
'''

BOUND_NOT_SQUARED = '''
def novikoff_bound_augmented(X, y, w, b):
    """Returns R/γ, not (R/γ)²."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    margins = functional_margins(X, y, w, b)
    if np.min(margins) <= 0:
        raise ValueError("(w, b) does not separate the data")
    gamma = np.min(margins) / np.sqrt(w @ w + b**2)
    return float(np.sqrt(np.max(np.sum(X**2, axis=1)) + 1.0) / gamma)
'''

COUNT_LINLIB_EPOCH = '''
import linlib


def count_updates(X, y, max_epochs):
    """Notebook 02's linlib.perceptron_epoch (an allowed helper), epoch after epoch."""
    w, b, total = np.zeros(np.asarray(X).shape[1]), 0.0, 0
    for _ in range(max_epochs):
        w, b, n = linlib.perceptron_epoch(X, y, w, b)
        total += n
        if n == 0:
            break
    return total
'''

COUNT_LINLIB_UPDATE = '''
import linlib


def count_updates(X, y, max_epochs):
    """Notebook 02's linlib.perceptron_update (an allowed helper), one flag per step."""
    w, b = np.zeros(np.asarray(X).shape[1]), 0.0
    flags = []
    for _ in range(max_epochs):
        this_epoch = []
        for x, label in zip(X, y):
            w, b, updated = linlib.perceptron_update(w, b, x, label)
            this_epoch.append(bool(updated))
        flags.extend(this_epoch)
        if not any(this_epoch):
            break
    return sum(flags)
'''

COUNT_AUGMENTED = '''
def count_updates(X, y, max_epochs):
    """One augmented vector u and a for-else loop."""
    Z = np.column_stack([np.asarray(X, dtype=float), np.ones(len(X))])
    u = np.zeros(Z.shape[1])
    total = 0
    for _ in range(max_epochs):
        before = total
        for z, label in zip(Z, y):
            if label * (u @ z) <= 0:
                u = u + label * z
                total += 1
        if total == before:
            break
    return total
'''

COUNT_CAP_OFF_BY_ONE = '''
def count_updates(X, y, max_epochs):
    """Runs max_epochs - 1 epochs at most."""
    X = np.asarray(X, dtype=float)
    w, b, total = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(max_epochs - 1):
        n = 0
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w, b, n = w + label * x, b + label, n + 1
        total += n
        if n == 0:
            break
    return total
'''

COUNT_LAST_EPOCH_ONLY = '''
def count_updates(X, y, max_epochs):
    """Resets the count every epoch: returns the updates of the last epoch only."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(max_epochs):
        total = 0
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w, b, total = w + label * x, b + label, total + 1
        if total == 0:
            break
    return total
'''

COUNT_RESETS_WEIGHTS = '''
def count_updates(X, y, max_epochs):
    """Starts every epoch again from w = 0, so every epoch repeats the first: the first
    epoch's mistakes, counted once per epoch (none at all when it made none)."""
    X = np.asarray(X, dtype=float)

    def first_epoch():
        w, b, mistakes, i = np.zeros(X.shape[1]), 0.0, 0, 0
        while i < len(X):
            if y[i] * (X[i] @ w + b) <= 0:
                w = w + y[i] * X[i]
                b += y[i]
                mistakes += 1
            i += 1
        return mistakes

    return first_epoch() * max_epochs
'''

COUNT_FLOAT = '''
def count_updates(X, y, max_epochs):
    """Accumulates the count in a float: returns 3.0, not an int."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w, b, total = np.zeros(X.shape[1]), 0.0, 0.0
    for _ in range(max_epochs):
        mistakes = (y[0] * 0.0)  # a float zero
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w, b, mistakes = w + label * x, b + label, mistakes + 1
        total += mistakes
        if mistakes == 0:
            break
    return total
'''

VARIANTS = [
    Variant(
        "margins_list_comprehension",
        {"functional_margins": MARGINS_LOOPS},
        description="a list comprehension over the points",
    ),
    Variant(
        "margins_einsum",
        {"functional_margins": MARGINS_EINSUM},
        description="np.einsum and np.multiply",
    ),
    Variant(
        "margins_linlib_activation",
        {"functional_margins": MARGINS_LINLIB_ACTIVATION},
        description="reuses linlib.activation (an allowed helper)",
    ),
    Variant(
        "margins_sign_mask",
        {"functional_margins": MARGINS_SIGNS_AS_MASK},
        description="np.where on the labels",
    ),
    Variant(
        "margins_forget_labels",
        {"functional_margins": MARGINS_NO_LABELS},
        lost=frozenset({"functional_margins_visible", "functional_margins_hidden"}),
        description="activations instead of y·a; later exercises keep their points",
        misconception="forgets_labels",
    ),
    Variant(
        "margins_integer_buffer",
        {"functional_margins": MARGINS_INT_BUFFER},
        lost=frozenset({"functional_margins_hidden"}),
        description="an integer result array truncates the margins",
        misconception="integer_results",
    ),
    Variant(
        "margins_wrong_sign",
        {"functional_margins": MARGINS_WRONG_SIGN},
        lost=frozenset({"functional_margins_visible", "functional_margins_hidden"}),
        description="−y·a",
        misconception="wrong_sign",
    ),
    Variant(
        "margins_forget_bias",
        {"functional_margins": MARGINS_NO_BIAS},
        lost=frozenset({"functional_margins_visible", "functional_margins_hidden"}),
        description="y·(w·x)",
        misconception="forgets_bias",
    ),
    Variant(
        "margins_only_the_smallest",
        {"functional_margins": MARGINS_ONLY_MIN},
        lost=frozenset({"functional_margins_visible", "functional_margins_hidden"}),
        description="one number instead of n",
        misconception="only_the_smallest",
    ),
    Variant(
        "dataset_margin_loop",
        {"dataset_margin": DATASET_MARGIN_LOOP},
        description="a loop and math.sqrt",
    ),
    Variant(
        "dataset_margin_signed_distance",
        {"dataset_margin": DATASET_MARGIN_SIGNED_DISTANCE},
        description="y·linlib.signed_distance (an allowed helper)",
    ),
    Variant(
        "dataset_margin_norm_dot",
        {"dataset_margin": DATASET_MARGIN_NORM_DOT},
        description=".min() and sqrt(w·w)",
    ),
    Variant(
        "dataset_margin_sorted",
        {"dataset_margin": DATASET_MARGIN_SORTED},
        description="sorted(...)[0]",
    ),
    Variant(
        "dataset_margin_unsigned",
        {"dataset_margin": DATASET_MARGIN_ABSOLUTE},
        lost=frozenset({"dataset_margin_hidden"}),
        description="|w·x + b| / ‖w‖: a misclassified point still counts as positive",
        misconception="unsigned_distance",
    ),
    Variant(
        "dataset_margin_functional",
        {"dataset_margin": DATASET_MARGIN_FUNCTIONAL},
        lost=frozenset({"dataset_margin_visible", "dataset_margin_hidden"}),
        description="forgets to divide by ‖w‖",
        misconception="not_divided_by_norm",
    ),
    Variant(
        "dataset_margin_no_zero_check",
        {"dataset_margin": DATASET_MARGIN_NO_CHECK},
        lost=frozenset({"dataset_margin_hidden"}),
        description="no ValueError for w = 0",
        misconception="no_error_for_zero_w",
    ),
    Variant(
        "dataset_margin_largest",
        {"dataset_margin": DATASET_MARGIN_MAX},
        lost=frozenset({"dataset_margin_visible", "dataset_margin_hidden"}),
        description="max instead of min",
        misconception="largest_margin",
    ),
    Variant(
        "dataset_margin_augmented_norm",
        {"dataset_margin": DATASET_MARGIN_AUGMENTED_NORM},
        lost=frozenset({"dataset_margin_visible", "dataset_margin_hidden"}),
        description="divides by ‖[w, b]‖ instead of ‖w‖",
        misconception="augmented_norm",
    ),
    Variant(
        "bound_dahuawiki_form",
        {"novikoff_bound_augmented": BOUND_AUGMENT_EXPLICITLY},
        description="the bound as R²‖[w, b]‖² / (min functional margin)²",
    ),
    Variant(
        "bound_linlib_augment",
        {"novikoff_bound_augmented": BOUND_LINLIB_AUGMENT},
        description="linlib.augment (an allowed helper)",
    ),
    Variant(
        "bound_from_dataset_margin",
        {"novikoff_bound_augmented": BOUND_FROM_DATASET_MARGIN},
        description="γ from dataset_margin, rescaled",
    ),
    Variant(
        "bound_plain_loops",
        {"novikoff_bound_augmented": BOUND_LOOPS},
        description="plain loops and math",
    ),
    Variant(
        "bound_radius_without_bias",
        {"novikoff_bound_augmented": BOUND_RADIUS_WITHOUT_ONE},
        lost=frozenset({"novikoff_bound_augmented_visible", "novikoff_bound_augmented_hidden"}),
        description="R from the original points, not the augmented ones",
        misconception="radius_without_the_one",
    ),
    Variant(
        "bound_margin_without_bias",
        {"novikoff_bound_augmented": BOUND_MARGIN_WITHOUT_BIAS},
        lost=frozenset({"novikoff_bound_augmented_visible", "novikoff_bound_augmented_hidden"}),
        description="γ divided by ‖w‖ instead of ‖[w, b]‖",
        misconception="margin_without_the_bias",
    ),
    Variant(
        "bound_without_separation_check",
        {"novikoff_bound_augmented": BOUND_NO_CHECK},
        lost=frozenset({"novikoff_bound_augmented_hidden"}),
        description="returns a number for a hyperplane that does not separate the data",
        misconception="no_separation_check",
    ),
    Variant(
        "bound_strict_separation_check",
        {"novikoff_bound_augmented": BOUND_STRICT_CHECK},
        lost=frozenset({"novikoff_bound_augmented_hidden"}),
        description="y·a < 0 instead of ≤ 0: a point on the plane slips through",
        misconception="tie_separates",
    ),
    Variant(
        "bound_not_squared",
        {"novikoff_bound_augmented": BOUND_NOT_SQUARED},
        lost=frozenset({"novikoff_bound_augmented_visible", "novikoff_bound_augmented_hidden"}),
        description="R/γ instead of (R/γ)²",
        misconception="not_squared",
    ),
    Variant(
        "count_updates_while_flag",
        {"count_updates": COUNT_WHILE},
        description="a while loop with a flag",
    ),
    Variant(
        "count_updates_linlib_epoch",
        {"count_updates": COUNT_LINLIB_EPOCH},
        description="linlib.perceptron_epoch (an allowed helper)",
    ),
    Variant(
        "count_updates_linlib_update",
        {"count_updates": COUNT_LINLIB_UPDATE},
        description="linlib.perceptron_update (an allowed helper)",
    ),
    Variant(
        "count_updates_augmented",
        {"count_updates": COUNT_AUGMENTED},
        description="one augmented vector",
    ),
    Variant(
        "count_updates_strict",
        {"count_updates": COUNT_STRICT},
        lost=frozenset({"count_updates_visible", "count_updates_hidden"}),
        description="y·a < 0: the run never leaves w = 0",
        misconception="tie_is_no_mistake",
    ),
    Variant(
        "count_updates_counts_epochs",
        {"count_updates": COUNT_EPOCHS},
        lost=frozenset({"count_updates_visible", "count_updates_hidden"}),
        description="counts epochs instead of updates",
        misconception="counts_epochs",
    ),
    Variant(
        "count_updates_cap_off_by_one",
        {"count_updates": COUNT_CAP_OFF_BY_ONE},
        lost=frozenset({"count_updates_hidden"}),
        description="stops one epoch before the cap",
        misconception="cap_off_by_one",
    ),
    Variant(
        "count_updates_last_epoch_only",
        {"count_updates": COUNT_LAST_EPOCH_ONLY},
        lost=frozenset({"count_updates_visible", "count_updates_hidden"}),
        description="the count is reset every epoch",
        misconception="last_epoch_only",
    ),
    Variant(
        "count_updates_resets_weights",
        {"count_updates": COUNT_RESETS_WEIGHTS},
        lost=frozenset({"count_updates_visible", "count_updates_hidden"}),
        description="every epoch starts again from w = 0",
        misconception="restarts_every_epoch",
    ),
    Variant(
        "count_updates_returns_float",
        {"count_updates": COUNT_FLOAT},
        lost=frozenset({"count_updates_hidden"}),
        description="returns the count as a float",
        misconception="count_is_a_float",
    ),
]
