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

UPDATE_AUGMENTED = '''
def perceptron_update(w, b, x, y):
    """One vector u = [w, b] and the augmented point [x, 1]."""
    u = np.append(np.asarray(w, dtype=float), float(b))
    z = np.append(np.asarray(x, dtype=float), 1.0)
    if y * (u @ z) <= 0:
        u = u + y * z
        return u[:-1], float(u[-1]), True
    return u[:-1], float(u[-1]), False
'''

UPDATE_LINLIB_ACTIVATION = '''
import linlib


def perceptron_update(w, b, x, y):
    """Takes the activation from notebook 01's helper linlib.activation (allowed)."""
    a = linlib.activation([x], w, b)[0]
    w_new = np.array(w, dtype=float)
    if y * a <= 0:
        return w_new + y * np.asarray(x, dtype=float), b + y, True
    return w_new, b, False
'''

UPDATE_NP_DOT_BOOL = '''
def perceptron_update(w, b, x, y):
    """np.dot, the flag as a NumPy bool, np.add for the new weights."""
    w = np.array(w, dtype=np.float64)
    x = np.array(x, dtype=np.float64)
    mistake = np.dot(w, x) * y + b * y <= 0
    if mistake:
        w = np.add(w, np.multiply(y, x))
        b = b + y
    return w, float(b), mistake
'''

UPDATE_IN_PLACE = '''
def perceptron_update(w, b, x, y):
    """Adds y·x to the caller's array in place."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 0:
        w += y * x
        return w, b + y, True
    return w, b, False
'''

UPDATE_FORGETS_BIAS = '''
def perceptron_update(w, b, x, y):
    """Updates w but never b."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 0:
        return w + y * x, b, True
    return w.copy(), b, False
'''

UPDATE_INT_FLAG = '''
def perceptron_update(w, b, x, y):
    """Returns 1/0 instead of a bool for `updated`."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 0:
        return w + y * x, b + y, 1
    return w.copy(), b, 0
'''

UPDATE_KEEPS_INT = '''
def perceptron_update(w, b, x, y):
    """No float conversion: integer inputs give an integer w_new."""
    w = np.asarray(w)
    x = np.asarray(x)
    if y * (w @ x + b) <= 0:
        return w + y * x, b + y, True
    return w.copy(), b, False
'''

UPDATE_WRONG_SIGN = '''
def perceptron_update(w, b, x, y):
    """Subtracts y·x: moves the plane the wrong way."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 0:
        return w - y * x, b - y, True
    return w.copy(), b, False
'''

UPDATE_PREDICTED_LABEL = '''
def perceptron_update(w, b, x, y):
    """Updates when the predicted label (a = 0 → −1) differs from y: a tie on a negative
    example looks right and is not updated."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    predicted = 1 if w @ x + b > 0 else -1
    if predicted != y:
        return w + y * x, float(b + y), True
    return w.copy(), float(b), False
'''

UPDATE_RETURNS_GIVEN_W = '''
def perceptron_update(w, b, x, y):
    """Returns the caller's own array as w_new when nothing changes (no copy)."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 0:
        return w + y * x, float(b + y), True
    return w, float(b), False
'''

EPOCH_SELF_CONTAINED = '''
def perceptron_epoch(X, y, w, b):
    """Without the helper: the update written inline, on fresh float arrays."""
    X = np.asarray(X, dtype=float)
    w = np.array(w, dtype=float)
    count = 0
    for i in range(X.shape[0]):
        if y[i] * (X[i] @ w + b) <= 0:
            w = w + y[i] * X[i]
            b = b + y[i]
            count += 1
    return w, b, count
'''

EPOCH_AUGMENTED = '''
import linlib


def perceptron_epoch(X, y, w, b):
    """Augmented points from notebook 01's helper linlib.augment (allowed), one vector u."""
    Z = linlib.augment(X)
    u = np.append(np.asarray(w, dtype=float), b)
    n_updates = 0
    for z, label in zip(Z, y):
        if label * (u @ z) <= 0:
            u = u + label * z
            n_updates += 1
    return u[:-1], float(u[-1]), n_updates
'''

EPOCH_ENUMERATE = '''
def perceptron_epoch(X, y, w, b):
    """enumerate over the labels; the update count from a list of flags."""
    flags = [False] * len(y)
    for i, label in enumerate(y):
        w, b, flags[i] = perceptron_update(w, b, X[i], label)
    return np.asarray(w, dtype=float), float(b), int(np.count_nonzero(flags))
'''

EPOCH_IN_PLACE = '''
def perceptron_epoch(X, y, w, b):
    """Updates the caller's w in place."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    n_updates = 0
    for x, label in zip(X, y):
        if label * (w @ x + b) <= 0:
            w += label * x
            b += label
            n_updates += 1
    return w, b, n_updates
'''

EPOCH_FROM_ZERO = '''
def perceptron_epoch(X, y, w, b):
    """Ignores the (w, b) given and starts from zero."""
    w, b = np.zeros(np.asarray(X).shape[1]), 0.0
    n_updates = 0
    for x, label in zip(X, y):
        w, b, updated = perceptron_update(w, b, x, label)
        n_updates += int(updated)
    return w, b, n_updates
'''

EPOCH_STOPS_AT_UPDATE = '''
def perceptron_epoch(X, y, w, b):
    """Returns right after the first update."""
    for x, label in zip(X, y):
        w, b, updated = perceptron_update(w, b, x, label)
        if updated:
            return w, b, 1
    return np.asarray(w, dtype=float), b, 0
'''

EPOCH_STRICT_COUNT = '''
def perceptron_epoch(X, y, w, b):
    """Counts an update only when y·a < 0, so ties are updated but not counted."""
    n_updates = 0
    for x, label in zip(X, y):
        a = np.asarray(w, dtype=float) @ np.asarray(x, dtype=float) + b
        w, b, _ = perceptron_update(w, b, x, label)
        n_updates += int(label * a < 0)
    return np.asarray(w, dtype=float), b, n_updates
'''

EPOCH_KEEPS_LAST_UPDATE = '''
def perceptron_epoch(X, y, w, b):
    """Checks every example against the weights the epoch started with; keeps the
    result of the last update."""
    w_start = np.array(w, dtype=float)
    w_out, b_out = w_start.copy(), b
    count = 0
    for i in range(len(y)):
        w_i, b_i, changed = perceptron_update(w_start, b, X[i], y[i])
        if changed:
            w_out, b_out = w_i, b_i
            count += 1
    return w_out, b_out, count
'''

EPOCH_ACTIVATIONS_FIRST = '''
def perceptron_epoch(X, y, w, b):
    """All activations computed once, before the loop, then every mistake added."""
    X = np.asarray(X, dtype=float)
    labels = np.asarray(y, dtype=float)
    weights = np.asarray(w, dtype=float)
    activations = X @ weights + b
    mistakes = 0
    for row, label, a in zip(X, labels, activations):
        if label * a <= 0:
            weights = weights + label * row
            b = b + label
            mistakes += 1
    return weights, b, mistakes
'''

EPOCH_RETURNS_START = '''
def perceptron_epoch(X, y, w, b):
    """Counts the updates, but hands back the weights the epoch started with."""
    start = np.array(w, dtype=float)
    total = 0
    for k, x_k in enumerate(X):
        total += perceptron_update(start, b, x_k, y[k])[2]
    return start, b, int(total)
'''

TRAIN_WHILE_TRUE = '''
def train_perceptron(X, y, max_epochs):
    """while True with two exits."""
    w, b, n_epochs = np.zeros(np.asarray(X).shape[1]), 0.0, 0
    while True:
        w, b, n_updates = perceptron_epoch(X, y, w, b)
        n_epochs += 1
        if n_updates == 0 or n_epochs == max_epochs:
            return w, b, n_epochs
'''

TRAIN_AUGMENTED = '''
import linlib


def train_perceptron(X, y, max_epochs):
    """Augmented points from linlib.augment (notebook 01), one weight vector, no helpers."""
    Z = linlib.augment(X)
    u = np.zeros(Z.shape[1])
    for epoch in range(1, max_epochs + 1):
        mistakes = 0
        for z, label in zip(Z, y):
            if label * (u @ z) <= 0:
                u += label * z
                mistakes += 1
        if mistakes == 0:
            break
    return u[:-1], u[-1], epoch
'''

TRAIN_CAP_OFF_BY_ONE = '''
def train_perceptron(X, y, max_epochs):
    """Runs at most max_epochs - 1 epochs."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    n_epochs = 0
    while n_epochs < max_epochs - 1:
        w, b, n_updates = perceptron_epoch(X, y, w, b)
        n_epochs += 1
        if n_updates == 0:
            break
    return w, b, n_epochs
'''

TRAIN_NEVER_STOPS_EARLY = '''
def train_perceptron(X, y, max_epochs):
    """Runs every epoch up to the cap, also after an epoch without updates."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(max_epochs):
        w, b, _ = perceptron_epoch(X, y, w, b)
    return w, b, max_epochs
'''

TRAIN_BREAK_IF_UPDATED = '''
def train_perceptron(X, y, max_epochs):
    """Mathai's 'break if updated': stops after the first epoch that made an update."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    n_epochs = 0
    while n_epochs < max_epochs:
        w, b, n_updates = perceptron_epoch(X, y, w, b)
        n_epochs += 1
        if n_updates > 0:
            break
    return w, b, n_epochs
'''

TRAIN_FORGETS_BIAS = '''
def train_perceptron(X, y, max_epochs):
    """Self-contained, but b is never updated."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    for epoch in range(1, max_epochs + 1):
        changed = False
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w = w + label * x
                changed = True
        if not changed:
            break
    return w, b, epoch
'''

TRAIN_STRICT = '''
def train_perceptron(X, y, max_epochs):
    """Self-contained with the strict rule y·a < 0."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    for epoch in range(1, max_epochs + 1):
        changed = False
        for x, label in zip(X, y):
            if label * (w @ x + b) < 0:
                w, b, changed = w + label * x, b + label, True
        if not changed:
            break
    return w, b, epoch
'''

AVERAGED_PER_EPOCH = '''
def averaged_perceptron(X, y, n_epochs):
    """Averages the weights at the end of each epoch, not after every step."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    w_sum, b_sum = np.zeros(X.shape[1]), 0.0
    for _ in range(n_epochs):
        w, b, _ = perceptron_epoch(X, y, w, b)
        w_sum, b_sum = w_sum + w, b_sum + b
    return w_sum / n_epochs, b_sum / n_epochs
'''

AVERAGED_STORE_ALL = '''
def averaged_perceptron(X, y, n_epochs):
    """Keeps every (w, b) in lists and takes np.mean at the end."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    history_w, history_b = [], []
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            w, b, _ = perceptron_update(w, b, x, label)
            history_w.append(w)
            history_b.append(b)
    return np.mean(history_w, axis=0), float(np.mean(history_b))
'''

AVERAGED_AUGMENTED = '''
import linlib


def averaged_perceptron(X, y, n_epochs):
    """One augmented vector u = [w, b] (linlib.augment, notebook 01) and its running sum."""
    Z = linlib.augment(X)
    u, total = np.zeros(Z.shape[1]), np.zeros(Z.shape[1])
    for _ in range(n_epochs):
        for z, label in zip(Z, y):
            if label * (u @ z) <= 0:
                u = u + label * z
            total += u
    mean = total / (n_epochs * Z.shape[0])
    return mean[:-1], float(mean[-1])
'''

AVERAGED_RUNNING_MEAN = '''
def averaged_perceptron(X, y, n_epochs):
    """An incremental mean: avg += (w - avg) / t."""
    X = np.asarray(X, dtype=float)
    w, b = np.zeros(X.shape[1]), 0.0
    w_avg, b_avg, t = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            w, b, _ = perceptron_update(w, b, x, label)
            t += 1
            w_avg = w_avg + (w - w_avg) / t
            b_avg = b_avg + (b - b_avg) / t
    return w_avg, b_avg
'''

AVERAGED_INT_ACCUMULATOR = '''
def averaged_perceptron(X, y, n_epochs):
    """Arrays shaped like X's rows: with integer X the average is truncated to integers."""
    X = np.asarray(X)
    w, b = np.zeros_like(X[0]), 0
    w_sum, b_sum = np.zeros_like(X[0]), 0
    for _ in range(n_epochs):
        for x, label in zip(X, y):
            if label * (w @ x + b) <= 0:
                w = w + label * x
                b = b + label
            w_sum = w_sum + w
            b_sum = b_sum + b
    n_steps = n_epochs * len(X)
    w_avg = np.zeros_like(w_sum)
    w_avg[:] = w_sum / n_steps
    return w_avg, b_sum / n_steps
'''

VARIANTS = [
    Variant(
        "update_plain_python",
        {"perceptron_update": UPDATE_PLAIN_PYTHON},
        description="plain Python arithmetic on lists",
    ),
    Variant(
        "update_augmented",
        {"perceptron_update": UPDATE_AUGMENTED},
        description="one augmented vector [w, b]",
    ),
    Variant(
        "update_linlib_activation",
        {"perceptron_update": UPDATE_LINLIB_ACTIVATION},
        description="uses notebook 01's linlib.activation (an allowed helper)",
    ),
    Variant(
        "update_numpy_bool",
        {"perceptron_update": UPDATE_NP_DOT_BOOL},
        description="np.dot and a NumPy bool flag",
    ),
    Variant(
        "strict_inequality",
        {"perceptron_update": UPDATE_STRICT},
        lost=frozenset({"perceptron_update_visible", "perceptron_update_hidden"}),
        description="y·a < 0 instead of ≤ 0: loses exercise 1 only (2-4 use the reference)",
        misconception="tie_is_no_mistake",
    ),
    Variant(
        "update_modifies_w",
        {"perceptron_update": UPDATE_IN_PLACE},
        lost=frozenset({"perceptron_update_hidden"}),
        description="w += y·x changes the caller's array",
        misconception="changes_w",
    ),
    Variant(
        "update_forgets_bias",
        {"perceptron_update": UPDATE_FORGETS_BIAS},
        lost=frozenset({"perceptron_update_visible", "perceptron_update_hidden"}),
        description="b is never updated",
        misconception="forgets_bias",
    ),
    Variant(
        "update_flag_not_bool",
        {"perceptron_update": UPDATE_INT_FLAG},
        lost=frozenset({"perceptron_update_hidden"}),
        description="updated is 1/0, not a bool",
        misconception="flag_is_a_number",
    ),
    Variant(
        "update_keeps_integers",
        {"perceptron_update": UPDATE_KEEPS_INT},
        lost=frozenset({"perceptron_update_hidden"}),
        description="integer inputs give an integer w_new",
        misconception="keeps_integers",
    ),
    Variant(
        "update_wrong_sign",
        {"perceptron_update": UPDATE_WRONG_SIGN},
        lost=frozenset({"perceptron_update_visible", "perceptron_update_hidden"}),
        description="w − y·x",
        misconception="wrong_direction",
    ),
    Variant(
        "update_tie_by_prediction",
        {"perceptron_update": UPDATE_PREDICTED_LABEL},
        lost=frozenset({"perceptron_update_hidden"}),
        description="updates when the predicted label differs: a tie on a negative example slips",
        misconception="mistake_by_predicted_label",
    ),
    Variant(
        "update_returns_given_w",
        {"perceptron_update": UPDATE_RETURNS_GIVEN_W},
        lost=frozenset({"perceptron_update_hidden"}),
        description="returns the w it was given, not a new array, when nothing changes",
        misconception="returns_the_given_w",
    ),
    Variant(
        "epoch_index_loop",
        {"perceptron_epoch": EPOCH_INDEX_LOOP},
        description="index loop, bool sum",
    ),
    Variant(
        "epoch_self_contained",
        {"perceptron_epoch": EPOCH_SELF_CONTAINED},
        description="the update written inline",
    ),
    Variant(
        "epoch_augmented",
        {"perceptron_epoch": EPOCH_AUGMENTED},
        description="linlib.augment (an allowed helper) and one vector u",
    ),
    Variant(
        "epoch_enumerate",
        {"perceptron_epoch": EPOCH_ENUMERATE},
        description="enumerate and np.count_nonzero",
    ),
    Variant(
        "epoch_forgets_new_weights",
        {"perceptron_epoch": EPOCH_FORGETS_WEIGHTS},
        lost=frozenset({"perceptron_epoch_visible", "perceptron_epoch_hidden"}),
        description="each step starts from the epoch's initial weights",
        misconception="forgets_new_weights",
    ),
    Variant(
        "epoch_modifies_w",
        {"perceptron_epoch": EPOCH_IN_PLACE},
        lost=frozenset({"perceptron_epoch_hidden"}),
        description="w += y·x on the caller's array",
        misconception="changes_w",
    ),
    Variant(
        "epoch_starts_from_zero",
        {"perceptron_epoch": EPOCH_FROM_ZERO},
        lost=frozenset({"perceptron_epoch_hidden"}),
        description="ignores the (w, b) given",
        misconception="starts_from_zero",
    ),
    Variant(
        "epoch_stops_at_first_update",
        {"perceptron_epoch": EPOCH_STOPS_AT_UPDATE},
        lost=frozenset({"perceptron_epoch_visible", "perceptron_epoch_hidden"}),
        description="returns after the first update",
        misconception="stops_at_first_update",
    ),
    Variant(
        "epoch_counts_only_strict_mistakes",
        {"perceptron_epoch": EPOCH_STRICT_COUNT},
        lost=frozenset({"perceptron_epoch_visible", "perceptron_epoch_hidden"}),
        description="ties update but are not counted",
        misconception="ties_not_counted",
    ),
    Variant(
        "epoch_keeps_start_weights_last_update",
        {"perceptron_epoch": EPOCH_KEEPS_LAST_UPDATE},
        lost=frozenset({"perceptron_epoch_visible", "perceptron_epoch_hidden"}),
        description="each example checked with the epoch's first weights; the last update kept",
        misconception="forgets_new_weights",
    ),
    Variant(
        "epoch_activations_before_the_loop",
        {"perceptron_epoch": EPOCH_ACTIVATIONS_FIRST},
        lost=frozenset({"perceptron_epoch_visible", "perceptron_epoch_hidden"}),
        description="activations of the epoch's first weights, computed before the loop",
        misconception="forgets_new_weights",
    ),
    Variant(
        "epoch_returns_start_weights",
        {"perceptron_epoch": EPOCH_RETURNS_START},
        lost=frozenset({"perceptron_epoch_visible", "perceptron_epoch_hidden"}),
        description="counts the updates, returns the weights the epoch started with",
        misconception="forgets_new_weights",
    ),
    Variant(
        "train_for_range",
        {"train_perceptron": TRAIN_FOR_RANGE},
        description="for loop over epochs, early return",
    ),
    Variant(
        "train_from_scratch",
        {"train_perceptron": TRAIN_SELF_CONTAINED},
        description="train_perceptron written without the helper functions",
    ),
    Variant(
        "train_while_true",
        {"train_perceptron": TRAIN_WHILE_TRUE},
        description="while True with two exits",
    ),
    Variant(
        "train_augmented",
        {"train_perceptron": TRAIN_AUGMENTED},
        description="linlib.augment (an allowed helper), one vector u",
    ),
    Variant(
        "train_miscounts_epochs",
        {"train_perceptron": TRAIN_MISCOUNTS},
        lost=frozenset({"train_perceptron_visible", "train_perceptron_hidden"}),
        description="the final epoch without updates is not counted",
        misconception="final_epoch_not_counted",
    ),
    Variant(
        "train_cap_off_by_one",
        {"train_perceptron": TRAIN_CAP_OFF_BY_ONE},
        lost=frozenset({"train_perceptron_hidden"}),
        description="stops one epoch before the cap",
        misconception="cap_off_by_one",
    ),
    Variant(
        "train_never_stops_early",
        {"train_perceptron": TRAIN_NEVER_STOPS_EARLY},
        lost=frozenset({"train_perceptron_visible", "train_perceptron_hidden"}),
        description="runs all max_epochs epochs: no stop after an epoch without updates",
        misconception="never_stops_early",
    ),
    Variant(
        "train_break_if_updated",
        {"train_perceptron": TRAIN_BREAK_IF_UPDATED},
        lost=frozenset({"train_perceptron_visible", "train_perceptron_hidden"}),
        description="Mathai's 'break if updated'",
        misconception="stops_after_an_update",
    ),
    Variant(
        "train_forgets_bias",
        {"train_perceptron": TRAIN_FORGETS_BIAS},
        lost=frozenset({"train_perceptron_visible", "train_perceptron_hidden"}),
        description="b never updated",
        misconception="forgets_bias",
    ),
    Variant(
        "train_strict_inequality",
        {"train_perceptron": TRAIN_STRICT},
        lost=frozenset({"train_perceptron_visible", "train_perceptron_hidden"}),
        description="y·a < 0 in a self-contained loop",
        misconception="tie_is_no_mistake",
    ),
    Variant(
        "averaged_at_updates",
        {"averaged_perceptron": AVERAGED_AT_UPDATES},
        description="the sum computed at updates only",
    ),
    Variant(
        "averaged_store_all",
        {"averaged_perceptron": AVERAGED_STORE_ALL},
        description="every (w, b) kept, np.mean at the end",
    ),
    Variant(
        "averaged_augmented",
        {"averaged_perceptron": AVERAGED_AUGMENTED},
        description="linlib.augment and one running sum",
    ),
    Variant(
        "averaged_running_mean",
        {"averaged_perceptron": AVERAGED_RUNNING_MEAN},
        description="an incremental mean",
    ),
    Variant(
        "averaged_ciml_normalisation",
        {"averaged_perceptron": AVERAGED_CIML},
        lost=frozenset({"averaged_perceptron_visible", "averaged_perceptron_hidden"}),
        description="divides by T·N + 1 (CIML) instead of T·N",
        misconception="divides_by_steps_plus_one",
    ),
    Variant(
        "averaged_over_updates_only",
        {"averaged_perceptron": AVERAGED_UPDATES_ONLY},
        lost=frozenset({"averaged_perceptron_visible", "averaged_perceptron_hidden"}),
        description="averages the updated weight vectors only",
        misconception="averages_updates_only",
    ),
    Variant(
        "averaged_per_epoch",
        {"averaged_perceptron": AVERAGED_PER_EPOCH},
        lost=frozenset({"averaged_perceptron_visible", "averaged_perceptron_hidden"}),
        description="averages the weights at the end of each epoch, not after every step",
        misconception="averages_per_epoch",
    ),
    Variant(
        "averaged_stops_early",
        {"averaged_perceptron": AVERAGED_STOPS_EARLY},
        lost=frozenset({"averaged_perceptron_hidden"}),
        description="stops at convergence instead of running all epochs",
        misconception="stops_at_convergence",
    ),
    Variant(
        "averaged_integer_accumulator",
        {"averaged_perceptron": AVERAGED_INT_ACCUMULATOR},
        lost=frozenset({"averaged_perceptron_hidden"}),
        description="integer arrays for integer X: the average is truncated",
        misconception="integer_sums",
    ),
]
