"""Sample answers for notebook 07 (losses, the dual and kernels): other correct ways, and
typical bugs.

Each variant replaces one solution cell. The correct ones are written in other styles
(plain loops, an allowed earlier helper such as ``linlib.perceptron_update`` or
``linlib.functional_margin``, incremental or column-by-column computations); the buggy
ones are the mistakes the tests must catch: a strict comparison where the course says ≤,
a sign error, results kept in an integer array that truncates, the input modified in
place, a tolerance or a cap that is ignored, the bias forgotten or shrunk, ties sent to
the wrong class.
"""

from autograder.samples import Variant

# --- Exercise 1: perceptron_loss_grad -------------------------------------------------

GRAD_LOOPS = '''
def perceptron_loss_grad(x, y, w, b):
    """Plain Python: the activation as a sum, the gradient as a list."""
    activation = sum(float(x_j) * float(w_j) for x_j, w_j in zip(x, w)) + b
    if y * activation <= 0:
        return np.array([-y * float(x_j) for x_j in x]), float(-y)
    return np.array([0.0 for _ in w]), 0.0
'''

GRAD_FROM_UPDATE = '''
def perceptron_loss_grad(x, y, w, b):
    """The perceptron's step of notebook 02 (linlib.perceptron_update, allowed), reversed."""
    w_new, b_new, _ = linlib.perceptron_update(w, b, x, y)
    return np.asarray(w, dtype=float) - w_new, float(b) - b_new
'''

GRAD_FUNCTIONAL_MARGIN = '''
def perceptron_loss_grad(x, y, w, b):
    """linlib.functional_margin of the one point, and a 0/1 factor instead of an if."""
    x = np.asarray(x, dtype=np.float64)
    wrong = float(linlib.functional_margin([x], [y], w, b)[0] <= 0)
    return -y * wrong * x, -y * wrong
'''

GRAD_INTEGER_BIAS = '''
def perceptron_loss_grad(x, y, w, b):
    """The prompt's (-y * x, -y) as written: grad_b is an integer for integer labels."""
    x = np.asarray(x, dtype=float)
    if y * (x @ np.asarray(w, dtype=float) + b) <= 0:
        return -y * x, -y
    return np.zeros(len(x)), 0
'''

GRAD_STRICT = '''
def perceptron_loss_grad(x, y, w, b):
    """Takes the step only for y·a < 0: a tie (a = 0) gives a zero gradient."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    if y * (x @ w + b) < 0:
        return -y * x, float(-y)
    return np.zeros_like(w), 0.0
'''

GRAD_SIGN = '''
def perceptron_loss_grad(x, y, w, b):
    """Returns the step (y·x, y) instead of the gradient: the sign is flipped."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    if y * (x @ w + b) <= 0:
        return y * x, float(y)
    return np.zeros_like(w), 0.0
'''

GRAD_INT = '''
def perceptron_loss_grad(x, y, w, b):
    """The gradient is written into an array shaped like w, with w's dtype: integer w
    truncates a float gradient."""
    x = np.asarray(x, dtype=float)
    grad_w = np.zeros_like(np.asarray(w))
    if y * (x @ np.asarray(w, dtype=float) + b) <= 0:
        grad_w[:] = -y * x
        return grad_w, float(-y)
    return grad_w, 0.0
'''

GRAD_HINGE = '''
def perceptron_loss_grad(x, y, w, b):
    """The hinge loss's threshold (y·a <= 1) instead of the perceptron loss's (<= 0)."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    if y * (x @ w + b) <= 1:
        return -y * x, float(-y)
    return np.zeros_like(w), 0.0
'''

GRAD_IN_PLACE = '''
def perceptron_loss_grad(x, y, w, b):
    """Reuses w's memory for the gradient: the caller's float array is overwritten."""
    x = np.asarray(x, dtype=float)
    grad_w = np.asarray(w)
    wrong = y * (x @ grad_w + b) <= 0
    grad_w *= 0
    if wrong:
        grad_w -= y * x
        return grad_w, float(-y)
    return grad_w, 0.0
'''

# --- Exercise 2: pegasos_step ---------------------------------------------------------

PEGASOS_LOOPS = '''
def pegasos_step(w, b, x, y, lam, eta):
    """Plain loops over the coordinates."""
    activation = sum(float(w_j) * float(x_j) for w_j, x_j in zip(w, x)) + b
    shrink = 1 - eta * lam
    if y * activation <= 1:
        new = [shrink * float(w_j) + eta * y * float(x_j) for w_j, x_j in zip(w, x)]
        return np.array(new), b + eta * y
    return np.array([shrink * float(w_j) for w_j in w]), float(b)
'''

PEGASOS_FUNCTIONAL_MARGIN = '''
def pegasos_step(w, b, x, y, lam, eta):
    """The margin from linlib.functional_margin (an allowed helper of notebook 03)."""
    w = np.array(w, dtype=float)
    inside = linlib.functional_margin([x], [y], w, b)[0] <= 1
    step = eta * y * np.asarray(x, dtype=float) if inside else 0.0
    return (1 - eta * lam) * w + step, float(b + (eta * y if inside else 0))
'''

PEGASOS_GRADIENT = '''
def pegasos_step(w, b, x, y, lam, eta):
    """Written as w - eta * subgradient, the subgradient built first."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    in_loss = y * (w @ x + b) <= 1
    grad_w = lam * w - (y * x if in_loss else 0)
    grad_b = -y if in_loss else 0
    return w - eta * grad_w, float(b - eta * grad_b)
'''

PEGASOS_STRICT = '''
def pegasos_step(w, b, x, y, lam, eta):
    """The original paper's y·a < 1: a point exactly on the margin takes no step."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    if y * (w @ x + b) < 1:
        return (1 - eta * lam) * w + eta * y * x, float(b + eta * y)
    return (1 - eta * lam) * w, float(b)
'''

PEGASOS_NO_SHRINK = '''
def pegasos_step(w, b, x, y, lam, eta):
    """Shrinks w only together with a hinge step; a point beyond the margin changes nothing."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 1:
        return (1 - eta * lam) * w + eta * y * x, float(b + eta * y)
    return w.copy(), float(b)
'''

PEGASOS_SHRINKS_B = '''
def pegasos_step(w, b, x, y, lam, eta):
    """Regularises the bias too: b is shrunk like w."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    shrink = 1 - eta * lam
    if y * (w @ x + b) <= 1:
        return shrink * w + eta * y * x, float(shrink * b + eta * y)
    return shrink * w, float(shrink * b)
'''

PEGASOS_IN_PLACE = '''
def pegasos_step(w, b, x, y, lam, eta):
    """Updates the caller's w in place (w *= ..., w += ...)."""
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    inside = y * (w @ x + b) <= 1
    w *= 1 - eta * lam
    if inside:
        w += eta * y * x
        return w, float(b + eta * y)
    return w, float(b)
'''

PEGASOS_NEGATIVE_STRICT = '''
def pegasos_step(w, b, x, y, lam, eta):
    """The band condition written per class: a <= 1 for +1, but a > -1 (strict) for -1, so
    a -1 point exactly on its margin takes no step."""
    w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
    a = w @ x + b
    inside = a <= 1 if y > 0 else a > -1
    if inside:
        return (1 - eta * lam) * w + eta * y * x, float(b + eta * y)
    return (1 - eta * lam) * w, float(b)
'''

PEGASOS_INT = '''
def pegasos_step(w, b, x, y, lam, eta):
    """Writes the new weights into an array with w's dtype: integer w truncates."""
    w_old = np.asarray(w)
    x = np.asarray(x, dtype=float)
    w_new = np.empty_like(w_old)
    inside = y * (x @ w_old + b) <= 1
    w_new[:] = (1 - eta * lam) * w_old + (eta * y * x if inside else 0)
    return w_new, float(b + (eta * y if inside else 0))
'''

# --- Exercise 3: weights_from_dual ----------------------------------------------------

DUAL_LOOPS = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """Loops: w accumulated point by point (floats), b averaged over the support."""
    w = np.zeros(len(X[0]))
    for x_i, y_i, a_i in zip(X, y, alpha):
        w += a_i * y_i * np.asarray(x_i, dtype=float)
    offsets = [y_i - float(np.dot(w, x_i)) for x_i, y_i, a_i in zip(X, y, alpha) if a_i > tol]
    if not offsets:
        raise ValueError("no support vector")
    return w, sum(offsets) / len(offsets)
'''

DUAL_EINSUM = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """einsum for w; b from 1/y_i - w·x_i (1/y = y for labels ±1)."""
    X, y, alpha = (np.asarray(v, dtype=float) for v in (X, y, alpha))
    w = np.einsum("i,i,ij->j", alpha, y, X)
    support = np.flatnonzero(alpha > tol)
    if support.size == 0:
        raise ValueError("every multiplier is at most tol")
    return w, float(np.mean(1 / y[support] - X[support] @ w))
'''

DUAL_FUNCTIONAL_MARGIN = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """b such that the mean functional margin of the support points is 1
    (linlib.functional_margin at b = 0, an allowed helper)."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    w = X.T @ (alpha * y)
    support = alpha > tol
    if not np.any(support):
        raise ValueError("no alpha above tol")
    margins = linlib.functional_margin(X[support], y[support], w, 0.0)
    return w, float(np.mean(y[support] * (1 - margins)))
'''

DUAL_IGNORES_TOL = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """Takes b from every point with alpha > 0: the tolerance is ignored."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    w = (alpha * y) @ X
    support = alpha > 0
    if not support.any():
        raise ValueError("no support vector")
    return w, float(np.mean(y[support] - X[support] @ w))
'''

DUAL_ALL_POINTS = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """b averaged over all points, not only those on the margin."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    if not np.any(alpha > tol):
        raise ValueError("no support vector")
    w = (alpha * y) @ X
    return w, float(np.mean(y - X @ w))
'''

DUAL_SIGN_B = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """b = w·x_i - y_i: the sign of b is flipped."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    w = (alpha * y) @ X
    support = alpha > tol
    if not support.any():
        raise ValueError("no support vector")
    return w, float(np.mean(X[support] @ w - y[support]))
'''

DUAL_NO_LABELS = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """w = Σ alpha_i x_i: the labels are left out (alpha taken for scikit-learn's y·alpha)."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    w = alpha @ X
    support = alpha > tol
    if not support.any():
        raise ValueError("no support vector")
    return w, float(np.mean(y[support] - X[support] @ w))
'''

DUAL_SUPPORT_ONLY_W = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """w summed over the points with alpha > tol only (the small multipliers left out of w)."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    support = alpha > tol
    if not support.any():
        raise ValueError("no support vector")
    w = (alpha[support] * y[support]) @ X[support]
    return w, float(np.mean(y[support] - X[support] @ w))
'''

DUAL_TOL_INCLUSIVE = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """alpha >= tol: a multiplier exactly at tol counts, where at most tol is zero."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    w = (alpha * y) @ X
    support = alpha >= tol
    if not support.any():
        raise ValueError("no support vector")
    return w, float(np.mean(y[support] - X[support] @ w))
'''

DUAL_NO_RAISE = '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """No ValueError without a multiplier above tol (the mean of nothing)."""
    X = np.asarray(X, dtype=float)
    y, alpha = np.asarray(y, dtype=float), np.asarray(alpha, dtype=float)
    w = (alpha * y) @ X
    support = alpha > tol
    offsets = y[support] - X[support] @ w
    return w, float(offsets.sum() / max(support.sum(), 1))
'''

# --- Exercise 4: kernel_perceptron ----------------------------------------------------

KERNEL_COLUMNS = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """One kernel column per visit: kernel(X, X[i:i+1]) instead of the whole Gram matrix."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    counts = np.zeros(len(y), dtype=np.int64)
    for _ in range(max_epochs):
        changed = False
        for i in range(len(y)):
            column = np.asarray(kernel(X, X[i : i + 1]), dtype=float)[:, 0]
            if y[i] * np.sum(counts * y * (column + 1)) <= 0:
                counts[i] += 1
                changed = True
        if not changed:
            break
    return counts
'''

KERNEL_ROWS = '''
def kernel_perceptron(X, y, kernel, n_epochs=100):
    """One kernel row per visit, kernel(X[i:i+1], X): a call per example, on matrices."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    counts = np.zeros(len(y), dtype=int)
    for _ in range(n_epochs):
        mistakes = 0
        for i in range(len(y)):
            row = np.asarray(kernel(X[i : i + 1], X), dtype=float)[0]
            if y[i] * np.dot(counts * y, row + 1) <= 0:
                counts[i] += 1
                mistakes += 1
        if not mistakes:
            break
    return counts
'''

KERNEL_INCREMENTAL = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Keeps every example's activation up to date: an update on i adds y_i (K[i] + 1)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    K = np.asarray(kernel(X, X), dtype=float)
    activations = np.zeros(len(y))
    counts = np.zeros(len(y), dtype=int)
    for _ in range(max_epochs):
        before = counts.sum()
        for i in range(len(y)):
            if y[i] * activations[i] <= 0:
                counts[i] += 1
                activations += y[i] * (K[i] + 1)
        if counts.sum() == before:
            break
    return counts
'''

KERNEL_LISTS = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Plain Python lists after one call of the kernel."""
    gram = np.asarray(kernel(X, X)).tolist()
    labels = [int(v) for v in y]
    n = len(labels)
    counts = [0] * n
    epoch = 0
    while epoch < max_epochs:
        epoch += 1
        mistakes = 0
        for i in range(n):
            a = sum(counts[j] * labels[j] * (gram[j][i] + 1) for j in range(n))
            if labels[i] * a <= 0:
                counts[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return np.array(counts)
'''

KERNEL_STRICT = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Updates only for y·a < 0: from all-zero counts every a is 0 and nothing is learned."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    K = np.asarray(kernel(X, X), dtype=float) + 1
    counts = np.zeros(len(y), dtype=int)
    for _ in range(max_epochs):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * ((counts * y) @ K[:, i]) < 0:
                counts[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return counts
'''

KERNEL_NO_BIAS = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Forgets the bias: a_i = Σ c_j y_j k(x_j, x_i), without the + 1."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    K = np.asarray(kernel(X, X), dtype=float)
    counts = np.zeros(len(y), dtype=int)
    for _ in range(max_epochs):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * ((counts * y) @ K[:, i]) <= 0:
                counts[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return counts
'''

KERNEL_BATCH = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Computes all activations at the start of the epoch, then updates every mistake:
    a batch step, not the online perceptron."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    K = np.asarray(kernel(X, X), dtype=float) + 1
    counts = np.zeros(len(y), dtype=int)
    for _ in range(max_epochs):
        wrong = y * ((counts * y) @ K) <= 0
        if not wrong.any():
            break
        counts += wrong
    return counts
'''

KERNEL_NO_CAP = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Ignores max_epochs: runs until an epoch without mistakes (or 1000 epochs)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    K = np.asarray(kernel(X, X), dtype=float) + 1
    counts = np.zeros(len(y), dtype=int)
    for _ in range(1000):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * ((counts * y) @ K[:, i]) <= 0:
                counts[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return counts
'''

KERNEL_FLOAT_COUNTS = '''
def kernel_perceptron(X, y, kernel, max_epochs=1000):
    """Counts kept in a float array (np.zeros): the integers the prompt asks for are not."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    K = np.asarray(kernel(X, X), dtype=float) + 1
    counts = np.zeros(len(y))
    for _ in range(max_epochs):
        mistakes = 0
        for i in range(len(y)):
            if y[i] * ((counts * y) @ K[:, i]) <= 0:
                counts[i] += 1
                mistakes += 1
        if mistakes == 0:
            break
    return counts
'''

# --- Exercise 5: one_vs_rest_predict --------------------------------------------------

OVR_LOOPS = '''
def one_vs_rest_predict(X, W, b, classes):
    """Loops; a later class replaces the best only with a strictly larger score."""
    predictions = []
    for x in X:
        best, best_score = 0, None
        for m, (w_m, b_m) in enumerate(zip(W, b)):
            score = sum(float(x_j) * float(w_j) for x_j, w_j in zip(x, w_m)) + float(b_m)
            if best_score is None or score > best_score:
                best, best_score = m, score
        predictions.append(classes[best])
    return np.array(predictions)
'''

OVR_TRANSPOSED = '''
def one_vs_rest_predict(X, W, b, classes):
    """Scores as (n_classes, n_samples) and argmax over axis 0."""
    scores = np.asarray(W, dtype=float) @ np.asarray(X, dtype=float).T
    scores += np.asarray(b, dtype=float)[:, None]
    return np.take(np.asarray(classes), scores.argmax(axis=0))
'''

OVR_PYTHON_MAX = '''
def one_vs_rest_predict(X, W, b, classes):
    """Python's max with a key (it keeps the first of equal maxima)."""
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T + np.asarray(b, dtype=float)
    labels = list(classes)
    return np.array([labels[max(range(len(labels)), key=lambda m: row[m])] for row in scores])
'''

OVR_ARGMIN = '''
def one_vs_rest_predict(X, W, b, classes):
    """argmin: the class with the smallest score."""
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T + np.asarray(b, dtype=float)
    return np.asarray(classes)[np.argmin(scores, axis=1)]
'''

OVR_LAST_TIE = '''
def one_vs_rest_predict(X, W, b, classes):
    """Ties go to the class listed last (the maximum searched from the end)."""
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T + np.asarray(b, dtype=float)
    last = scores.shape[1] - 1 - np.argmax(scores[:, ::-1], axis=1)
    return np.asarray(classes)[last]
'''

OVR_INDICES = '''
def one_vs_rest_predict(X, W, b, classes):
    """Returns the winning row numbers, not the class labels."""
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T + np.asarray(b, dtype=float)
    return np.argmax(scores, axis=1)
'''

OVR_NO_BIAS = '''
def one_vs_rest_predict(X, W, b, classes):
    """Forgets the biases b."""
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T
    return np.asarray(classes)[np.argmax(scores, axis=1)]
'''

OVR_FIRST_POSITIVE = '''
def one_vs_rest_predict(X, W, b, classes):
    """The first class whose own classifier says +1 (score > 0), the largest score only if
    none does: binary predictions instead of the comparison of scores."""
    scores = np.asarray(X, dtype=float) @ np.asarray(W, dtype=float).T + np.asarray(b, dtype=float)
    positive = scores > 0
    winners = np.where(positive.any(axis=1), positive.argmax(axis=1), scores.argmax(axis=1))
    return np.asarray(classes)[winners]
'''

_GRAD = frozenset({"perceptron_loss_grad_visible", "perceptron_loss_grad_hidden"})
_GRAD_HIDDEN = frozenset({"perceptron_loss_grad_hidden"})
_PEGASOS = frozenset({"pegasos_step_visible", "pegasos_step_hidden"})
_PEGASOS_HIDDEN = frozenset({"pegasos_step_hidden"})
_PEGASOS_TIES = frozenset({"pegasos_step_margin_ties"})
_DUAL = frozenset({"weights_from_dual_visible", "weights_from_dual_hidden"})
_DUAL_HIDDEN = frozenset({"weights_from_dual_hidden"})
_DUAL_BOUNDARY = frozenset({"weights_from_dual_tol_boundary"})
_KERNEL = frozenset({"kernel_perceptron_visible", "kernel_perceptron_hidden"})
_KERNEL_HIDDEN = frozenset({"kernel_perceptron_hidden"})
_OVR = frozenset({"one_vs_rest_predict_visible", "one_vs_rest_predict_hidden"})
_OVR_HIDDEN = frozenset({"one_vs_rest_predict_hidden"})


def _v(
    name: str,
    cell: str,
    source: str,
    lost: frozenset[str],
    description: str,
    misconception: str = "",
) -> Variant:
    return Variant(
        name, {cell: source}, lost=lost, description=description, misconception=misconception
    )


_G, _P, _D, _K, _O = (
    "perceptron_loss_grad",
    "pegasos_step",
    "weights_from_dual",
    "kernel_perceptron",
    "one_vs_rest_predict",
)
_NONE: frozenset[str] = frozenset()

VARIANTS = [
    # perceptron_loss_grad
    _v("grad_loops", _G, GRAD_LOOPS, _NONE, "plain Python sums and lists"),
    _v(
        "grad_from_perceptron_update",
        _G,
        GRAD_FROM_UPDATE,
        _NONE,
        "reverses linlib.perceptron_update, an allowed helper of notebook 02",
    ),
    _v(
        "grad_with_functional_margin",
        _G,
        GRAD_FUNCTIONAL_MARGIN,
        _NONE,
        "linlib.functional_margin and a 0/1 factor",
    ),
    _v(
        "grad_integer_bias",
        _G,
        GRAD_INTEGER_BIAS,
        _NONE,
        "grad_b as the integer -y (or 0): the prompt accepts an int or a float",
    ),
    _v(
        "grad_strict",
        _G,
        GRAD_STRICT,
        _GRAD,
        "y·a < 0: a tie gives no step",
        misconception="tie_has_no_gradient",
    ),
    _v(
        "grad_sign_flipped",
        _G,
        GRAD_SIGN,
        _GRAD,
        "returns the step, not the gradient",
        misconception="step_not_gradient",
    ),
    _v(
        "grad_integer_array",
        _G,
        GRAD_INT,
        _GRAD_HIDDEN,
        "np.zeros_like(w) truncates for integer w",
        misconception="integer_results",
    ),
    _v(
        "grad_hinge_threshold",
        _G,
        GRAD_HINGE,
        _GRAD,
        "y·a <= 1, the hinge's threshold",
        misconception="hinge_threshold",
    ),
    _v(
        "grad_overwrites_w",
        _G,
        GRAD_IN_PLACE,
        _GRAD_HIDDEN,
        "the gradient lives in the caller's w",
        misconception="overwrites_w",
    ),
    # pegasos_step
    _v("pegasos_loops", _P, PEGASOS_LOOPS, _NONE, "plain loops over the coordinates"),
    _v(
        "pegasos_with_functional_margin",
        _P,
        PEGASOS_FUNCTIONAL_MARGIN,
        _NONE,
        "linlib.functional_margin, an allowed helper of notebook 03",
    ),
    _v("pegasos_as_gradient", _P, PEGASOS_GRADIENT, _NONE, "w - eta · subgradient"),
    _v(
        "pegasos_strict",
        _P,
        PEGASOS_STRICT,
        _PEGASOS | _PEGASOS_TIES,
        "y·a < 1: a point on the margin takes no step",
        misconception="margin_point_no_step",
    ),
    _v(
        "pegasos_no_shrink_outside",
        _P,
        PEGASOS_NO_SHRINK,
        _PEGASOS | _PEGASOS_TIES,
        "the regulariser's shrinking only with a hinge step",
        misconception="shrinks_only_with_a_step",
    ),
    _v(
        "pegasos_shrinks_b",
        _P,
        PEGASOS_SHRINKS_B,
        _PEGASOS | _PEGASOS_TIES,
        "the bias is regularised too",
        misconception="shrinks_b",
    ),
    _v(
        "pegasos_in_place",
        _P,
        PEGASOS_IN_PLACE,
        _PEGASOS_HIDDEN,
        "w *= ... on the caller's array",
        misconception="changes_w",
    ),
    _v(
        "pegasos_negative_class_strict",
        _P,
        PEGASOS_NEGATIVE_STRICT,
        _PEGASOS_TIES,
        "a > -1 (strict) for the -1 class: its point on the margin takes no step",
        misconception="negative_margin_strict",
    ),
    _v(
        "pegasos_integer_array",
        _P,
        PEGASOS_INT,
        _PEGASOS_HIDDEN | _PEGASOS_TIES,
        "np.empty_like(w) truncates for integer w",
        misconception="integer_results",
    ),
    # weights_from_dual
    _v("dual_loops", _D, DUAL_LOOPS, _NONE, "loops, a float accumulator"),
    _v("dual_einsum", _D, DUAL_EINSUM, _NONE, "einsum, b from 1/y_i - w·x_i"),
    _v(
        "dual_with_functional_margin",
        _D,
        DUAL_FUNCTIONAL_MARGIN,
        _NONE,
        "b from the functional margins at b = 0 (linlib.functional_margin)",
    ),
    _v(
        "dual_ignores_tol",
        _D,
        DUAL_IGNORES_TOL,
        _DUAL_HIDDEN | _DUAL_BOUNDARY,
        "alpha > 0 instead of alpha > tol",
        misconception="ignores_tol",
    ),
    _v(
        "dual_b_from_all_points",
        _D,
        DUAL_ALL_POINTS,
        _DUAL_HIDDEN | _DUAL_BOUNDARY,
        "b averaged over every point",
        misconception="b_from_every_point",
    ),
    _v(
        "dual_b_sign",
        _D,
        DUAL_SIGN_B,
        _DUAL | _DUAL_BOUNDARY,
        "b = w·x_i - y_i",
        misconception="b_sign",
    ),
    _v(
        "dual_without_labels",
        _D,
        DUAL_NO_LABELS,
        _DUAL_HIDDEN,
        "w = Σ alpha_i x_i",
        misconception="forgets_labels",
    ),
    _v(
        "dual_w_from_support_only",
        _D,
        DUAL_SUPPORT_ONLY_W,
        _DUAL_HIDDEN | _DUAL_BOUNDARY,
        "small multipliers left out of w",
        misconception="w_from_support_only",
    ),
    _v(
        "dual_tol_inclusive",
        _D,
        DUAL_TOL_INCLUSIVE,
        _DUAL_BOUNDARY,
        "alpha >= tol: a multiplier equal to tol is not counted as zero",
        misconception="tol_inclusive",
    ),
    _v(
        "dual_no_value_error",
        _D,
        DUAL_NO_RAISE,
        _DUAL_HIDDEN | _DUAL_BOUNDARY,
        "no ValueError without support",
        misconception="no_error_without_support",
    ),
    # kernel_perceptron
    _v("kernel_columns", _K, KERNEL_COLUMNS, _NONE, "one kernel column per visit"),
    _v("kernel_rows", _K, KERNEL_ROWS, _NONE, "one kernel row per visit, kernel(X[i:i+1], X)"),
    _v("kernel_incremental", _K, KERNEL_INCREMENTAL, _NONE, "activations kept up to date"),
    _v("kernel_lists", _K, KERNEL_LISTS, _NONE, "plain Python lists"),
    _v(
        "kernel_strict",
        _K,
        KERNEL_STRICT,
        _KERNEL,
        "y·a < 0: nothing is ever learned",
        misconception="tie_is_no_mistake",
    ),
    _v(
        "kernel_no_bias",
        _K,
        KERNEL_NO_BIAS,
        _KERNEL,
        "the + 1 of the bias forgotten",
        misconception="forgets_bias",
    ),
    _v(
        "kernel_batch",
        _K,
        KERNEL_BATCH,
        _KERNEL_HIDDEN,
        "a batch step per epoch",
        misconception="batch_updates",
    ),
    _v(
        "kernel_ignores_cap",
        _K,
        KERNEL_NO_CAP,
        _KERNEL_HIDDEN,
        "max_epochs ignored",
        misconception="ignores_cap",
    ),
    _v(
        "kernel_float_counts",
        _K,
        KERNEL_FLOAT_COUNTS,
        _KERNEL_HIDDEN,
        "counts as floats",
        misconception="counts_as_floats",
    ),
    # one_vs_rest_predict
    _v("ovr_loops", _O, OVR_LOOPS, _NONE, "loops, strict > keeps the first maximum"),
    _v("ovr_transposed", _O, OVR_TRANSPOSED, _NONE, "scores as (n_classes, n_samples)"),
    _v("ovr_python_max", _O, OVR_PYTHON_MAX, _NONE, "Python's max with a key"),
    _v("ovr_argmin", _O, OVR_ARGMIN, _OVR, "the smallest score", misconception="smallest_score"),
    _v(
        "ovr_last_of_ties",
        _O,
        OVR_LAST_TIE,
        _OVR,
        "ties to the last class",
        misconception="ties_to_the_last",
    ),
    _v(
        "ovr_indices",
        _O,
        OVR_INDICES,
        _OVR,
        "row numbers instead of labels",
        misconception="positions_not_labels",
    ),
    _v(
        "ovr_no_bias",
        _O,
        OVR_NO_BIAS,
        _OVR_HIDDEN,
        "the biases forgotten",
        misconception="forgets_biases",
    ),
    _v(
        "ovr_first_positive",
        _O,
        OVR_FIRST_POSITIVE,
        _OVR_HIDDEN,
        "the first class with a positive score, not the largest score",
        misconception="first_positive_class",
    ),
]

#: A sample answer (by its name) with one of its loops written as a comprehension or a
#: generator expression, the rest of its lines as they were: a copier's disguise
#: (autograder.samples.copies).
LOOP_TO_COMPREHENSION: dict[str, str] = {
    "dual_loops": '''
def weights_from_dual(X, y, alpha, tol=1e-8):
    """Loops: w accumulated point by point (floats), b averaged over the support."""
    w = sum(
        (a_i * y_i * np.asarray(x_i, dtype=float) for x_i, y_i, a_i in zip(X, y, alpha)),
        np.zeros(len(X[0])),
    )
    offsets = [y_i - float(np.dot(w, x_i)) for x_i, y_i, a_i in zip(X, y, alpha) if a_i > tol]
    if not offsets:
        raise ValueError("no support vector")
    return w, sum(offsets) / len(offsets)
''',
    "ovr_loops": '''
def one_vs_rest_predict(X, W, b, classes):
    """Loops; a later class replaces the best only with a strictly larger score."""
    predictions = []
    for x in X:
        best, best_score = 0, None
        scores = [
            sum(float(x_j) * float(w_j) for x_j, w_j in zip(x, w_m)) + float(b_m)
            for w_m, b_m in zip(W, b)
        ]
        for m, score in enumerate(scores):
            if best_score is None or score > best_score:
                best, best_score = m, score
        predictions.append(classes[best])
    return np.array(predictions)
''',
}
