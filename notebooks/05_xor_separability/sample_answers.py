"""Sample answers for notebook 05 (XOR and linear separability): other correct ways, and
typical bugs. Each variant replaces one solution cell."""

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

HAND_WEIGHTS_INTEGERS = '''
def hand_weights(name):
    """Integer weights in NumPy arrays, an integer bias."""
    table = {"or": ([1, 1], 1), "and": ([1, 1], -1), "not": ([-1], 0)}
    w, b = table[name]
    return np.array(w, dtype=np.int64), np.int64(b)
'''

HAND_WEIGHTS_PERCEPTRON = '''
def hand_weights(name):
    """Lets notebook 02's perceptron find them (it stops only when every row has y·a > 0)."""
    model = linlib.Perceptron(max_epochs=100).fit(*linlib.boolean_table(name))
    return model.coef_[0], float(model.intercept_[0])
'''

HAND_WEIGHTS_AND_TIE = '''
def hand_weights(name):
    """AND with b = 0: the points (1, -1) and (-1, 1) lie on the line (a = 0)."""
    return {"or": ([1.0, 1.0], 1.0), "and": ([1.0, 1.0], 0.0), "not": ([-1.0], 0.0)}[name]
'''

HAND_WEIGHTS_ZERO_ONE_INPUTS = '''
def hand_weights(name):
    """Weights for inputs in {0, 1}: OR's threshold -0.5 misclassifies (-1, 1) on {-1, 1}."""
    return {"or": ([1.0, 1.0], -0.5), "and": ([1.0, 1.0], -1.5), "not": ([-1.0], 0.5)}[name]
'''

HAND_WEIGHTS_NOT_SIGN = '''
def hand_weights(name):
    """NOT with the sign of w the wrong way round: it implements the identity."""
    return {"or": ([1.0, 1.0], 1.0), "and": ([1.0, 1.0], -1.0), "not": ([1.0], 0.0)}[name]
'''

HAND_WEIGHTS_NOT_TWO_INPUTS = '''
def hand_weights(name):
    """Gives NOT two weights, as if it had two inputs."""
    return {"or": ([1.0, 1.0], 1.0), "and": ([1.0, 1.0], -1.0), "not": ([-1.0, 0.0], 0.0)}[name]
'''

HAND_WEIGHTS_OR_TIE = '''
def hand_weights(name):
    """OR with b = 0: (-1, 1) and (1, -1) lie on the line, and a tie counts as -1."""
    return {"or": ([1.0, 1.0], 0.0), "and": ([1.0, 1.0], -1.0), "not": ([-1.0], 0.0)}[name]
'''

FIND_CYCLE_PAIRS = '''
def find_cycle(states, updates):
    """All pairs (i, j) by increasing j, compared entry by entry with ==, in plain Python."""
    states = [list(s) for s in states]
    for j in range(len(states)):
        for i in range(j):
            if len(states[i]) == len(states[j]) and all(
                a == b for a, b in zip(states[i], states[j])
            ):
                return (i, j - i) if sum(updates[i:j]) > 0 else None
    return None
'''

FIND_CYCLE_NUMPY = '''
def find_cycle(states, updates):
    """One array of states; for each j, np.all over the earlier rows; cumulative updates."""
    S = np.asarray(states, dtype=float)
    done = np.concatenate([[0], np.cumsum(np.asarray(updates))])  # updates before s_j
    for j in range(1, len(S)):
        hits = np.flatnonzero(np.all(S[:j] == S[j], axis=1))
        if hits.size:
            i = int(hits[0])
            return (i, j - i) if done[j] - done[i] > 0 else None
    return None
'''

FIND_CYCLE_LIST_INDEX = '''
def find_cycle(states, updates):
    """A list of tuples and list.index for the earlier occurrence."""
    seen = []
    for j, state in enumerate(states):
        state = tuple(state)
        if state in seen:
            i = seen.index(state)
            if sum(updates[i:j]) == 0:
                return None
            return i, j - i
        seen.append(state)
    return None
'''

FIND_CYCLE_END_INDEX = '''
def find_cycle(states, updates):
    """Returns (i, j), the two indices, instead of (start, period)."""
    for j in range(len(states)):
        for i in range(j):
            if list(states[i]) == list(states[j]):
                return (i, j) if sum(updates[i:j]) > 0 else None
    return None
'''

FIND_CYCLE_ALLCLOSE = '''
def find_cycle(states, updates):
    """np.allclose with its default tolerances: nearby states count as equal."""
    for j in range(len(states)):
        for i in range(j):
            if np.allclose(states[i], states[j]):
                return (i, j - i) if sum(updates[i:j]) > 0 else None
    return None
'''

FIND_CYCLE_ROUNDING = '''
def find_cycle(states, updates):
    """A dictionary of states rounded to 9 decimals: states 3e-10 apart collide."""
    first_seen = {}
    for j, state in enumerate(states):
        key = tuple(round(float(v), 9) for v in state)
        if key in first_seen:
            i = first_seen[key]
            return (i, j - i) if sum(updates[i:j]) > 0 else None
        first_seen[key] = j
    return None
'''

FIND_CYCLE_FIRST_I = '''
def find_cycle(states, updates):
    """Loops over i first: finds the earliest state that ever repeats, not the first repeat."""
    states = [tuple(s) for s in states]
    for i in range(len(states)):
        for j in range(i + 1, len(states)):
            if states[i] == states[j]:
                return (i, j - i) if sum(updates[i:j]) > 0 else None
    return None
'''

FIND_CYCLE_IGNORES_UPDATES = '''
def find_cycle(states, updates):
    """Any repeated state counts as a cycle, even a fixed point after convergence."""
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

IS_SEPARABLE_AUGMENT_LOOPS = '''
def is_separable_lp(X, y):
    """Rows built one by one with notebook 01's linlib.augment; result.success."""
    Z = linlib.augment(np.asarray(X, dtype=float))
    rows = [[-float(t) * v for v in z] for z, t in zip(Z, y)]
    result = linprog(
        np.zeros(Z.shape[1]),
        A_ub=np.array(rows),
        b_ub=[-1.0] * len(rows),
        bounds=[(None, None)] * Z.shape[1],
    )
    return bool(result.success)
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

IS_SEPARABLE_NO_BIAS = '''
def is_separable_lp(X, y):
    """Forgets the bias column: only hyperplanes through the origin."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    result = linprog(
        np.zeros(X.shape[1]),
        A_ub=-y[:, None] * X,
        b_ub=-np.ones(len(X)),
        bounds=[(None, None)] * X.shape[1],
        method="highs",
    )
    return bool(result.status == 0)
'''

IS_SEPARABLE_PERCEPTRON = '''
def is_separable_lp(X, y):
    """Asks the perceptron instead: separable but slow data (breast cancer) hit the cap."""
    return bool(linlib.Perceptron(max_epochs=100).fit(X, y).converged_)
'''

IS_SEPARABLE_STATUS = '''
def is_separable_lp(X, y):
    """Returns linprog's status code (0 or 2), not a bool."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A_ub = -y[:, None] * np.column_stack([X, np.ones(len(X))])
    bounds = [(None, None)] * (X.shape[1] + 1)
    result = linprog(np.zeros(X.shape[1] + 1), A_ub=A_ub, b_ub=-np.ones(len(X)), bounds=bounds)
    return 2 - result.status
'''

IS_SEPARABLE_IN_PLACE = '''
def is_separable_lp(X, y):
    """Builds the constraint rows in the caller's array: X *= -y changes a float X."""
    A = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    A *= -y[:, None]
    A_ub = np.column_stack([A, -y])
    result = linprog(
        np.zeros(A_ub.shape[1]),
        A_ub=A_ub,
        b_ub=-np.ones(len(y)),
        bounds=[(None, None)] * A_ub.shape[1],
        method="highs",
    )
    return bool(result.status == 0)
'''

XOR_FEATURES_LOOP = '''
def xor_features(X):
    """A list comprehension."""
    return np.array([[float(a), float(b), float(a) * float(b)] for a, b in X])
'''

XOR_FEATURES_PROD = '''
def xor_features(X):
    """np.prod over each row, appended with np.concatenate."""
    X = np.asarray(X, dtype=float)
    return np.concatenate([X, X.prod(axis=1, keepdims=True)], axis=1)
'''

XOR_FEATURES_C_ = '''
def xor_features(X):
    """np.c_ and a product of the two columns, kept in the input's dtype."""
    X = np.asarray(X)
    return np.c_[X, X[:, 0] * X[:, 1]]
'''

XOR_FEATURES_SUM = '''
def xor_features(X):
    """Adds x1 + x2 instead of the product."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X, X[:, 0] + X[:, 1]])
'''

XOR_FEATURES_SQUARE = '''
def xor_features(X):
    """Squares the first input instead of multiplying the two."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X, X[:, 0] ** 2])
'''

XOR_FEATURES_PRODUCT_ONLY = '''
def xor_features(X):
    """Returns only the new feature, shape (n, 1)."""
    X = np.asarray(X, dtype=float)
    return (X[:, 0] * X[:, 1])[:, None]
'''

XOR_FEATURES_LIST = '''
def xor_features(X):
    """Right numbers, but a list of lists instead of a NumPy array."""
    return [[a, b, a * b] for a, b in np.asarray(X, dtype=float).tolist()]
'''

XOR_FEATURES_POLY_BIAS = '''
def xor_features(X):
    """scikit-learn's PolynomialFeatures with its default bias column (and switched off)."""
    from sklearn.preprocessing import PolynomialFeatures

    return PolynomialFeatures(degree=2, interaction_only=True).fit_transform(np.asarray(X))
'''


def _correct(name: str, cell: str, source: str, description: str) -> Variant:
    return Variant(name, {cell: source}, description=description)


def _bug(
    name: str,
    cell: str,
    source: str,
    lost: tuple[str, ...],
    description: str,
    misconception: str = "",
) -> Variant:
    return Variant(
        name,
        {cell: source},
        lost=frozenset(lost),
        description=description,
        misconception=misconception,
    )


HAND = ("hand_weights_visible", "hand_weights_hidden")
CYCLE = ("find_cycle_visible", "find_cycle_hidden")
LP = ("is_separable_lp_visible", "is_separable_lp_hidden")
FEATURES = ("xor_features_visible", "xor_features_hidden")

VARIANTS = [
    _correct("hand_weights_other", "hand_weights", HAND_WEIGHTS_OTHER, "other valid weights"),
    _correct("hand_weights_integers", "hand_weights", HAND_WEIGHTS_INTEGERS, "int64 arrays"),
    _correct(
        "hand_weights_by_perceptron",
        "hand_weights",
        HAND_WEIGHTS_PERCEPTRON,
        "learned by linlib.Perceptron (an earlier notebook's helper, allowed)",
    ),
    _bug(
        "hand_weights_and_on_the_line",
        "hand_weights",
        HAND_WEIGHTS_AND_TIE,
        ("hand_weights_visible",),
        "AND with b = 0 puts two corners on the line (a tie, not y·a > 0)",
        misconception="and_on_the_line",
    ),
    _bug(
        "hand_weights_for_zero_one_inputs",
        "hand_weights",
        HAND_WEIGHTS_ZERO_ONE_INPUTS,
        ("hand_weights_hidden",),
        "thresholds for {0, 1} inputs: OR fails on {-1, 1}",
        misconception="inputs_zero_one",
    ),
    _bug(
        "hand_weights_not_sign",
        "hand_weights",
        HAND_WEIGHTS_NOT_SIGN,
        ("hand_weights_hidden",),
        "NOT with w = (1,): the identity",
        misconception="not_is_identity",
    ),
    _bug(
        "hand_weights_not_two_inputs",
        "hand_weights",
        HAND_WEIGHTS_NOT_TWO_INPUTS,
        ("hand_weights_hidden",),
        "NOT given two weights",
        misconception="not_two_inputs",
    ),
    _bug(
        "hand_weights_or_on_the_line",
        "hand_weights",
        HAND_WEIGHTS_OR_TIE,
        ("hand_weights_hidden",),
        "OR with b = 0: two corners on the line",
        misconception="or_on_the_line",
    ),
    _correct("find_cycle_pairs", "find_cycle", FIND_CYCLE_PAIRS, "all pairs, plain Python =="),
    _correct(
        "find_cycle_numpy", "find_cycle", FIND_CYCLE_NUMPY, "np.all over earlier rows, cumsum"
    ),
    _correct(
        "find_cycle_list_index", "find_cycle", FIND_CYCLE_LIST_INDEX, "list of tuples, .index"
    ),
    _bug(
        "find_cycle_returns_indices",
        "find_cycle",
        FIND_CYCLE_END_INDEX,
        CYCLE,
        "returns (i, j) instead of (start, period)",
        misconception="end_not_period",
    ),
    _bug(
        "find_cycle_allclose_defaults",
        "find_cycle",
        FIND_CYCLE_ALLCLOSE,
        ("find_cycle_hidden",),
        "np.allclose's default tolerances: nearby states count as equal",
        misconception="close_counts_as_equal",
    ),
    _bug(
        "find_cycle_rounds_states",
        "find_cycle",
        FIND_CYCLE_ROUNDING,
        ("find_cycle_hidden",),
        "states rounded to 9 decimals: states 3e-10 apart collide",
        misconception="rounds_states",
    ),
    _bug(
        "find_cycle_wrong_pair",
        "find_cycle",
        FIND_CYCLE_FIRST_I,
        ("find_cycle_hidden",),
        "loops over i first: reports the earliest state that repeats, not the first repeat",
        misconception="earliest_state_that_repeats",
    ),
    _bug(
        "find_cycle_fixed_point_is_a_cycle",
        "find_cycle",
        FIND_CYCLE_IGNORES_UPDATES,
        CYCLE,
        "ignores the updates: a converged run's fixed point reported as a cycle",
        misconception="fixed_point_is_a_cycle",
    ),
    _correct("is_separable_lp_slack", "is_separable_lp", IS_SEPARABLE_SLACK, "the slack LP"),
    _correct("is_separable_lp_hulls", "is_separable_lp", IS_SEPARABLE_HULLS, "the convex-hull LP"),
    _correct(
        "is_separable_lp_augment_loops",
        "is_separable_lp",
        IS_SEPARABLE_AUGMENT_LOOPS,
        "rows in a loop with linlib.augment (an allowed helper), result.success",
    ),
    _bug(
        "is_separable_lp_default_bounds",
        "is_separable_lp",
        IS_SEPARABLE_DEFAULT_BOUNDS,
        LP,
        "linprog's default bounds keep w, b >= 0",
        misconception="weights_kept_non_negative",
    ),
    _bug(
        "is_separable_lp_zero_margin",
        "is_separable_lp",
        IS_SEPARABLE_ZERO_RHS,
        LP,
        "constraints >= 0 instead of >= 1: w = 0 is always feasible",
        misconception="margin_zero",
    ),
    _bug(
        "is_separable_lp_no_bias",
        "is_separable_lp",
        IS_SEPARABLE_NO_BIAS,
        LP,
        "no bias column: only hyperplanes through the origin",
        misconception="forgets_bias",
    ),
    _bug(
        "is_separable_lp_by_perceptron",
        "is_separable_lp",
        IS_SEPARABLE_PERCEPTRON,
        ("is_separable_lp_hidden",),
        "the perceptron's convergence within a cap: breast cancer comes out not separable",
        misconception="perceptron_within_a_cap",
    ),
    _bug(
        "is_separable_lp_returns_status",
        "is_separable_lp",
        IS_SEPARABLE_STATUS,
        ("is_separable_lp_hidden",),
        "returns an int built from linprog's status, not a bool",
        misconception="status_not_bool",
    ),
    _bug(
        "is_separable_lp_modifies_X",
        "is_separable_lp",
        IS_SEPARABLE_IN_PLACE,
        ("is_separable_lp_inputs_unchanged",),
        "X *= -y on the caller's float array to build the constraints",
        misconception="changes_X",
    ),
    _correct("xor_features_loop", "xor_features", XOR_FEATURES_LOOP, "a list comprehension"),
    _correct("xor_features_prod", "xor_features", XOR_FEATURES_PROD, "np.prod and np.concatenate"),
    _correct("xor_features_c_", "xor_features", XOR_FEATURES_C_, "np.c_, the input's dtype"),
    _bug(
        "xor_features_sum_not_product",
        "xor_features",
        XOR_FEATURES_SUM,
        FEATURES,
        "third feature x1 + x2 instead of x1·x2",
        misconception="sum_not_product",
    ),
    _bug(
        "xor_features_square",
        "xor_features",
        XOR_FEATURES_SQUARE,
        FEATURES,
        "x1² for x1·x2",
        misconception="square_not_product",
    ),
    _bug(
        "xor_features_product_only",
        "xor_features",
        XOR_FEATURES_PRODUCT_ONLY,
        FEATURES,
        "only the new column, shape (n, 1)",
        misconception="only_the_new_feature",
    ),
    _bug(
        "xor_features_list",
        "xor_features",
        XOR_FEATURES_LIST,
        ("xor_features_hidden",),
        "a list of lists instead of a NumPy array",
        misconception="list_not_array",
    ),
    _bug(
        "xor_features_polynomial_features",
        "xor_features",
        XOR_FEATURES_POLY_BIAS,
        FEATURES,
        "PolynomialFeatures (switched off) with its bias column",
        misconception="switched_off_library",
    ),
]
