"""Sample answers for notebook 02 (the perceptron update rule): other correct ways, and bugs."""

from autograder.samples import Variant

UPDATE_PLAIN_PYTHON = '''
def perceptron_update(w, b, x, y):
    """Plain Python arithmetic on lists, converted at the end."""
    a = sum(float(w_j) * float(x_j) for w_j, x_j in zip(w, x)) + b
    if y * a > 0:
        return np.array(w, dtype=float), b, False
    new_w = [float(w_j) + y * float(x_j) for w_j, x_j in zip(w, x)]
    return np.array(new_w), b + y, True
'''

UPDATE_STRICT = '''
def perceptron_update(w, b, x, y):
    """Updates only when y·a < 0: a tie (a = 0) is not treated as a mistake."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) < 0:
        return w + y * x, b + y, True
    return w.copy(), b, False
'''

EPOCH_INDEX_LOOP = '''
def perceptron_epoch(X, y, w, b):
    """Index loop; counts updates with a bool sum."""
    flags = []
    for i in range(len(X)):
        w, b, updated = perceptron_update(w, b, X[i], y[i])
        flags.append(updated)
    return np.asarray(w, dtype=float), b, sum(flags)
'''

EPOCH_FORGETS_WEIGHTS = '''
def perceptron_epoch(X, y, w, b):
    """Never carries the new weights to the next example."""
    n_updates = 0
    for x, label in zip(X, y):
        w_new, b_new, updated = perceptron_update(w, b, x, label)
        n_updates += int(updated)
    return w_new, b_new, n_updates
'''

TRAIN_FOR_RANGE = '''
def train_perceptron(X, y, max_epochs):
    """A for loop over epoch numbers with an early return."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    for epoch in range(1, max_epochs + 1):
        w, b, n_updates = perceptron_epoch(X, y, w, b)
        if n_updates == 0:
            return w, b, epoch
    return w, b, max_epochs
'''

TRAIN_SELF_CONTAINED = '''
def train_perceptron(X, y, max_epochs):
    """Written from scratch: nested loops, no helper functions."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.zeros(X.shape[1])
    b = 0.0
    epochs = 0
    changed = True
    while changed and epochs < max_epochs:
        changed = False
        epochs += 1
        for i in range(X.shape[0]):
            if y[i] * (np.dot(w, X[i]) + b) <= 0:
                w = w + y[i] * X[i]
                b = b + y[i]
                changed = True
    return w, b, epochs
'''

TRAIN_MISCOUNTS = '''
def train_perceptron(X, y, max_epochs):
    """Counts only the epochs that made updates (the final clean epoch is not counted)."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    n_epochs = 0
    for _ in range(max_epochs):
        w, b, n_updates = perceptron_epoch(X, y, w, b)
        if n_updates == 0:
            break
        n_epochs += 1
    return w, b, n_epochs
'''

AVERAGED_AT_UPDATES = '''
def averaged_perceptron(X, y, n_epochs):
    """Sums weights only at updates: an update at step t stays in the sum for S - t + 1 steps."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    weighted_w, weighted_b = np.zeros(X.shape[1]), 0.0
    step = 0
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            step += 1
            if label * (w @ x + b) <= 0:
                w, b = w + label * x, b + label
                weighted_w += step * label * x
                weighted_b += step * label
    total = step
    return ((total + 1) * w - weighted_w) / total, ((total + 1) * b - weighted_b) / total
'''

AVERAGED_CIML = '''
def averaged_perceptron(X, y, n_epochs):
    """CIML's averaged perceptron as printed: w - u / c, i.e. divided by T·N + 1."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    u, beta, c = np.zeros(X.shape[1]), 0.0, 1
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w, b = w + label * x, b + label
                u, beta = u + c * label * x, beta + c * label
            c += 1
    return w - u / c, b - beta / c
'''

AVERAGED_UPDATES_ONLY = '''
def averaged_perceptron(X, y, n_epochs):
    """Averages the weight vectors produced by updates, ignoring how long each survived."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    seen_w, seen_b = [], []
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            w, b, updated = perceptron_update(w, b, x, label)
            if updated:
                seen_w.append(w)
                seen_b.append(b)
    return np.mean(seen_w, axis=0), float(np.mean(seen_b))
'''

AVERAGED_STOPS_EARLY = '''
def averaged_perceptron(X, y, n_epochs):
    """Stops averaging after an epoch without updates (the exercise says: run all epochs)."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    w_sum, b_sum, steps = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(n_epochs):
        any_update = False
        for x, label in zip(X, y):
            w, b, updated = perceptron_update(w, b, x, label)
            any_update = any_update or updated
            w_sum, b_sum, steps = w_sum + w, b_sum + b, steps + 1
        if not any_update:
            break
    return w_sum / steps, b_sum / steps
'''

_EVERY_TEST = frozenset(
    f"{name}_{kind}"
    for name in ("perceptron_update", "perceptron_epoch", "train_perceptron", "averaged_perceptron")
    for kind in ("visible", "hidden")
)

VARIANTS = [
    Variant(
        "plain_python_and_lazy_average",
        {
            "perceptron_update": UPDATE_PLAIN_PYTHON,
            "perceptron_epoch": EPOCH_INDEX_LOOP,
            "train_perceptron": TRAIN_FOR_RANGE,
            "averaged_perceptron": AVERAGED_AT_UPDATES,
        },
        description="plain Python lists, an index loop, for/return, the average summed at updates",
    ),
    Variant(
        "train_from_scratch",
        {"train_perceptron": TRAIN_SELF_CONTAINED},
        description="train_perceptron written without the helper functions",
    ),
    Variant(
        "strict_inequality",
        {"perceptron_update": UPDATE_STRICT},
        lost=_EVERY_TEST,
        description="y·a < 0 instead of ≤ 0: from w = 0 nothing is ever learned",
    ),
    Variant(
        "epoch_forgets_new_weights",
        {"perceptron_epoch": EPOCH_FORGETS_WEIGHTS},
        lost=frozenset(
            {
                "perceptron_epoch_visible",
                "perceptron_epoch_hidden",
                "train_perceptron_visible",
                "train_perceptron_hidden",
            }
        ),
        description="each step starts from the epoch's initial weights; training reuses it",
    ),
    Variant(
        "train_miscounts_epochs",
        {"train_perceptron": TRAIN_MISCOUNTS},
        lost=frozenset({"train_perceptron_visible", "train_perceptron_hidden"}),
        description="the final epoch without updates is not counted",
    ),
    Variant(
        "averaged_ciml_normalisation",
        {"averaged_perceptron": AVERAGED_CIML},
        lost=frozenset({"averaged_perceptron_visible", "averaged_perceptron_hidden"}),
        description="divides by T·N + 1 (CIML) instead of T·N: same predictions, other numbers",
    ),
    Variant(
        "averaged_over_updates_only",
        {"averaged_perceptron": AVERAGED_UPDATES_ONLY},
        lost=frozenset({"averaged_perceptron_visible", "averaged_perceptron_hidden"}),
        description="averages the updated weight vectors, not the weights after every step",
    ),
    Variant(
        "averaged_stops_early",
        {"averaged_perceptron": AVERAGED_STOPS_EARLY},
        lost=frozenset({"averaged_perceptron_hidden"}),
        description="stops at convergence instead of running all epochs",
    ),
]
