"""linlib against scikit-learn: perceptron and hard-margin SVM fitting times.

``python -m benchmarks linlib``. Prints a table (what, ours, sklearn, ratio = ours/sklearn,
median over alternating runs in one process). Correctness is asserted, not just timed:
identical perceptron weights, and SVM functional margins of 1 with a geometric margin at
least SVC's. On a shared machine the times are noisy; the ratios are the figures to read.

The perceptron is timed twice: on the course's largest fit (notebook 04's bag of words of
the spam messages, where a fit takes about a millisecond: each run is the best of a hundred
fits) and far beyond the course (100,000 × 50), where the block scan of
``linlib.perceptron._Scanner`` earns its keep.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.svm import SVC

import linlib

N_RUNS = 5


def perceptron_data(
    n_samples: int = 100_000, n_features: int = 50, margin: float = 0.1, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Standard-normal points; drop those with ``|u·x| < margin``; label by ``sign(u·x)``."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(n_features)
    u /= np.linalg.norm(u)
    kept: list[np.ndarray] = []
    n_kept = 0
    while n_kept < n_samples:
        X = rng.standard_normal((n_samples, n_features))
        X = X[np.abs(X @ u) >= margin]
        kept.append(X)
        n_kept += X.shape[0]
    X = np.vstack(kept)[:n_samples]
    return X, np.where(X @ u > 0, 1, -1)


def course_perceptron_data() -> tuple[np.ndarray, np.ndarray]:
    """Notebook 04's training set: word counts of the spam messages, +1 for spam."""
    texts_train, texts_test, labels_train, _ = linlib.train_test_split_messages(
        test_size=0.25, random_state=4
    )
    X, _, _ = linlib.bag_of_words(texts_train, texts_test)
    return X, np.where(labels_train == "spam", 1, -1)


def _timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    """Seconds of the fastest of ``repeat`` calls of ``fn`` (a millisecond call is timed
    by its best, which the other load of a shared machine spoils least), and the last
    result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def _alternate(
    ours: Callable[[], object], theirs: Callable[[], object], n_runs: int, repeat: int = 1
):
    """Time ``ours`` and ``theirs`` alternately; return their times and the last results."""
    t_ours, t_theirs, ratios = [], [], []
    for _ in range(n_runs):
        a, res_ours = _timed(ours, repeat)
        b, res_theirs = _timed(theirs, repeat)
        t_ours.append(a)
        t_theirs.append(b)
        ratios.append(a / b)
    return t_ours, t_theirs, ratios, res_ours, res_theirs


def bench_perceptron(
    n_runs: int = N_RUNS, n_samples: int = 100_000, n_features: int = 50
) -> list[tuple[str, float, float, float]]:
    """The course's largest fit (seconds per fit), then ``n_samples`` × ``n_features``."""
    X, y = course_perceptron_data()
    rows = _perceptron_row(X, y, n_runs, repeat=100, what="notebook 04's bag of words")
    X, y = perceptron_data(n_samples, n_features)
    return rows + _perceptron_row(X, y, n_runs)


def _perceptron_row(
    X: np.ndarray, y: np.ndarray, n_runs: int, repeat: int = 1, what: str = ""
) -> list[tuple[str, float, float, float]]:
    probe = linlib.Perceptron().fit(X, y)
    assert probe.converged_, "the benchmark set should be separable"
    epochs = probe.n_iter_

    def ours():
        return linlib.Perceptron(max_epochs=epochs).fit(X, y)

    def theirs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return SkPerceptron(shuffle=False, tol=None, max_iter=epochs).fit(X, y)

    what = (
        f"Perceptron.fit {X.shape[0]}x{X.shape[1]}{' (' + what + ')' if what else ''}, "
        f"{epochs} epochs, {probe.n_updates_} updates"
    )
    t_ours, t_sk, ratios, mine, sk = _alternate(ours, theirs, n_runs, repeat)
    assert np.array_equal(mine.coef_, sk.coef_), "perceptron weights differ from sklearn's"
    assert np.array_equal(mine.intercept_, sk.intercept_), "perceptron bias differs"
    return [(what, statistics.median(t_ours), statistics.median(t_sk), statistics.median(ratios))]


def bench_svm(
    n_runs: int = N_RUNS, n_samples: int = 2000, n_features: int = 10
) -> list[tuple[str, float, float, float]]:
    X, y = linlib.make_separable(n_samples, n_features, margin=0.1, random_state=0)

    def ours():
        return linlib.HardMarginSVM().fit(X, y)

    def theirs():
        return SVC(kernel="linear", C=1e6).fit(X, y)

    t_ours, t_sk, ratios, mine, sk = _alternate(ours, theirs, n_runs)
    functional = y * mine.decision_function(X)
    assert abs(functional.min() - 1.0) <= 1e-8, functional.min()
    sk_margin = float(np.min(y * sk.decision_function(X)) / np.linalg.norm(sk.coef_))
    assert mine.margin_ >= sk_margin, (mine.margin_, sk_margin)
    what = (
        f"HardMarginSVM.fit {n_samples}x{n_features} (min y·a - 1 = {functional.min() - 1:.1e}; "
        f"margin {mine.margin_:.6f} vs SVC {sk_margin:.6f})"
    )
    return [(what, statistics.median(t_ours), statistics.median(t_sk), statistics.median(ratios))]


def print_table(rows: list[tuple[str, float, float, float]]) -> None:
    """What, ours, sklearn, ratio: one line each."""
    width = max(len(r[0]) for r in rows)
    print(f"{'what':<{width}}  {'ours (s)':>9}  {'sklearn (s)':>11}  {'ratio':>6}")
    for what, ours, theirs, ratio in rows:
        print(f"{what:<{width}}  {ours:9.4f}  {theirs:11.4f}  {ratio:6.2f}")


def main() -> None:
    print_table(bench_perceptron() + bench_svm())
    print(
        f"(median of {N_RUNS} alternating runs, a run of the bag of words the best of 100 fits; "
        "ratio = median of ours/sklearn per run)"
    )


if __name__ == "__main__":
    main()
