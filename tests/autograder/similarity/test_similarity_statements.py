"""autograder.similarity.statements: an answer as a multiset of normalised statements, so that
a copy with its statements or functions in another order matches its original whole."""

from __future__ import annotations

from autograder.samples.copies import rename_locals, reorder_functions, reorder_statements
from autograder.similarity.detect import statement_score
from autograder.similarity.statements import keys_of, statements

ANSWER = '''def activation(X, w, b):
    """Activation of every row."""
    X = np.asarray(X, dtype=float)
    n_rows = X.shape[0]
    weights = np.asarray(w, dtype=float).reshape(-1)
    out = np.zeros(n_rows)
    for i in range(n_rows):
        out[i] = X[i] @ weights + b
    return out


def predict(X, w, b):
    scores = activation(X, w, b)
    return np.where(scores > 0, 1, -1)
'''


def _kept(code: str):
    return [(key, weight, lines) for key, weight, lines in statements(code).items]


def test_names_strings_and_small_statements_do_not_count():
    keys = [key for key, _, _ in statements(ANSWER).items]
    assert not any("activation" in key or "weights" in key for key in keys)  # names: "_"
    assert all("Activation of every row" not in key for key in keys)  # the docstring
    assert not any(key.startswith("Return(Name") for key in keys)  # "return out": too small
    assert any("'reshape'" in key for key in keys)  # attributes stay


def test_reordered_and_renamed_copies_hold_the_same_statements():
    shuffled = reorder_statements(ANSWER, seed=1)
    assert shuffled != ANSWER
    for copy in (shuffled, reorder_functions(ANSWER), rename_locals(shuffled, seed=4)):
        assert statements(copy).counts() == statements(ANSWER).counts()
        score, share_a, share_b, lines_a, lines_b = statement_score(_kept(ANSWER), _kept(copy))
        assert (score, share_a, share_b) == (1.0, 1.0, 1.0)
        assert lines_a and lines_b


def test_the_written_part_of_a_function_and_a_notebooks_magics_parse():
    body = "\n".join(ANSWER.split("\n")[2:9])  # no signature: indented lines
    assert statements(body).items
    assert keys_of("%matplotlib inline\nimport numpy as np\n\n" + ANSWER) >= {
        key for key, _, _ in statements(ANSWER).items
    }
    assert statements("def broken(:\n    pass").items == []
