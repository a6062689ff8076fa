"""Sample answers for notebook 05 (XOR and linear separability): other correct ways, and
typical bugs."""

from autograder.samples import Variant

HAND_WEIGHTS_OTHER = '''
def hand_weights(name):
    """Other valid weights: any positive multiple, or a shifted threshold, works."""
    if name == "or":
        return np.array([2.0, 2.0]), 1.0
    if name == "and":
        return np.array([1.0, 1.0]), -1.5
    if name == "not":
        return np.array([-3.0]), 1.0
    raise ValueError(name)
'''

HAND_WEIGHTS_AND_TIE = '''
def hand_weights(name):
    """AND with b = 0: the points (1, -1) and (-1, 1) lie on the line (a = 0)."""
    return {"or": ([1.0, 1.0], 1.0), "and": ([1.0, 1.0], 0.0), "not": ([-1.0], 0.0)}[name]
'''

FIND_CYCLE_ROUNDING = '''
def find_cycle(states):
    """A dictionary of states rounded to 9 decimals: first index of each state seen."""
    first_seen = {}
    for j, state in enumerate(states):
        key = tuple(round(float(v), 9) for v in state)
        if key in first_seen:
            return first_seen[key], j - first_seen[key]
        first_seen[key] = j
    return None
'''

FIND_CYCLE_PAIRS = '''
def find_cycle(states):
    """All pairs (i, j), by increasing j, compared entry by entry."""
    states = [list(map(float, s)) for s in states]
    for j in range(len(states)):
        for i in range(j):
            if all(abs(a - b) <= 1e-9 for a, b in zip(states[i], states[j])):
                return (i, j - i)
    return None
'''

FIND_CYCLE_END_INDEX = '''
def find_cycle(states):
    """Returns (i, j), the two indices, instead of (start, period)."""
    for j in range(len(states)):
        for i in range(j):
            if np.allclose(states[i], states[j], rtol=0, atol=1e-9):
                return i, j
    return None
'''

FIND_CYCLE_EXACT = '''
def find_cycle(states):
    """Exact equality of floats: misses states that differ by rounding."""
    first_seen = {}
    for j, state in enumerate(states):
        key = tuple(float(v) for v in state)
        if key in first_seen:
            return first_seen[key], j - first_seen[key]
        first_seen[key] = j
    return None
'''

IS_SEPARABLE_SLACK = '''
def is_separable_lp(X, y):
    """Minimise the total slack of y_i (w·x_i + b) >= 1 - s_i, s_i >= 0; zero iff separable."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    # variables: w (d), b (1), s (n)
    c = np.concatenate([np.zeros(d + 1), np.ones(n)])
    A_ub = np.hstack([-y[:, None] * X, -y[:, None], -np.eye(n)])
    bounds = [(None, None)] * (d + 1) + [(0, None)] * n
    result = linprog(c, A_ub=A_ub, b_ub=-np.ones(n), bounds=bounds, method="highs")
    return bool(result.fun < 1e-7)
'''

IS_SEPARABLE_HULLS = '''
def is_separable_lp(X, y):
    """The dual question: is there a point in both convex hulls? Separable iff not."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    P, N = X[y == 1], X[y == -1]
    rows = [np.hstack([P.T, -N.T])]
    rows.append(np.concatenate([np.ones(len(P)), np.zeros(len(N))])[None, :])
    rows.append(np.concatenate([np.zeros(len(P)), np.ones(len(N))])[None, :])
    A_eq = np.vstack(rows)
    b_eq = np.concatenate([np.zeros(X.shape[1]), [1.0, 1.0]])
    result = linprog(np.zeros(len(X)), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return result.status != 0
'''

IS_SEPARABLE_DEFAULT_BOUNDS = '''
def is_separable_lp(X, y):
    """Forgets bounds=(None, None): linprog keeps w and b non-negative."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A_ub = -y[:, None] * np.column_stack([X, np.ones(len(X))])
    result = linprog(np.zeros(X.shape[1] + 1), A_ub=A_ub, b_ub=-np.ones(len(X)), method="highs")
    return bool(result.status == 0)
'''

IS_SEPARABLE_ZERO_RHS = '''
def is_separable_lp(X, y):
    """Asks for y_i (w·x_i + b) >= 0: w = 0, b = 0 always satisfies it."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A_ub = -y[:, None] * np.column_stack([X, np.ones(len(X))])
    result = linprog(
        np.zeros(X.shape[1] + 1),
        A_ub=A_ub,
        b_ub=np.zeros(len(X)),
        bounds=[(None, None)] * (X.shape[1] + 1),
        method="highs",
    )
    return bool(result.status == 0)
'''

XOR_FEATURES_LOOP = '''
def xor_features(X):
    """A list comprehension."""
    return np.array([[float(a), float(b), float(a) * float(b)] for a, b in X])
'''

XOR_FEATURES_SUM = '''
def xor_features(X):
    """Adds x1 + x2 instead of the product."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X, X[:, 0] + X[:, 1]])
'''

VARIANTS = [
    Variant(
        "other_weights_and_formulations",
        {
            "hand_weights": HAND_WEIGHTS_OTHER,
            "find_cycle": FIND_CYCLE_ROUNDING,
            "is_separable_lp": IS_SEPARABLE_SLACK,
            "xor_features": XOR_FEATURES_LOOP,
        },
        description="other gate weights, a dict of rounded states, the slack LP, loops",
    ),
    Variant(
        "pairs_and_the_dual_lp",
        {"find_cycle": FIND_CYCLE_PAIRS, "is_separable_lp": IS_SEPARABLE_HULLS},
        description="all pairs of states; separability through the convex-hull LP",
    ),
    Variant(
        "hand_weights_and_on_the_line",
        {"hand_weights": HAND_WEIGHTS_AND_TIE},
        lost=frozenset({"hand_weights_visible"}),
        description="AND with b = 0 puts two corners on the line (a tie, not y·a > 0)",
    ),
    Variant(
        "find_cycle_returns_indices",
        {"find_cycle": FIND_CYCLE_END_INDEX},
        lost=frozenset({"find_cycle_visible", "find_cycle_hidden"}),
        description="returns (i, j) instead of (start, period)",
    ),
    Variant(
        "find_cycle_exact_float_equality",
        {"find_cycle": FIND_CYCLE_EXACT},
        lost=frozenset({"find_cycle_hidden"}),
        description="compares floats exactly: 0.1 + 0.2 and 0.3 count as different",
    ),
    Variant(
        "is_separable_lp_default_bounds",
        {"is_separable_lp": IS_SEPARABLE_DEFAULT_BOUNDS},
        lost=frozenset({"is_separable_lp_visible", "is_separable_lp_hidden"}),
        description="linprog's default bounds keep w, b >= 0",
    ),
    Variant(
        "is_separable_lp_zero_margin",
        {"is_separable_lp": IS_SEPARABLE_ZERO_RHS},
        lost=frozenset({"is_separable_lp_visible", "is_separable_lp_hidden"}),
        description="constraints >= 0 instead of >= 1: w = 0 is always feasible",
    ),
    Variant(
        "xor_features_sum_not_product",
        {"xor_features": XOR_FEATURES_SUM},
        lost=frozenset({"xor_features_visible", "xor_features_hidden"}),
        description="third feature x1 + x2 instead of x1·x2",
    ),
]
