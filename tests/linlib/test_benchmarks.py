"""The benchmark runner and bench_linlib stay runnable (on small sizes; no timing asserted)."""

from __future__ import annotations

import numpy as np
import pytest

import linlib
from benchmarks import __main__ as runner
from benchmarks import bench_linlib


def test_runner_lists_modules_and_rejects_unknown_names(capsys):
    assert "linlib" in runner.available()
    assert runner.main(["no_such_benchmark"]) == 2
    assert "available" in capsys.readouterr().out


def test_perceptron_benchmark_data_is_separable_with_margin():
    X, y = bench_linlib.perceptron_data(n_samples=500, n_features=5, margin=0.1, seed=1)
    assert X.shape == (500, 5)
    assert linlib.is_linearly_separable(X, y)
    model = linlib.Perceptron().fit(X, y)
    assert model.converged_ and np.all(y * model.decision_function(X) > 0)


@pytest.mark.slow
def test_benchmarks_run_and_check_results_on_small_sizes(capsys):
    rows = bench_linlib.bench_perceptron(n_runs=1, n_samples=2000, n_features=10)
    rows += bench_linlib.bench_svm(n_runs=1, n_samples=200, n_features=3)
    bench_linlib.print_table(rows)
    out = capsys.readouterr().out
    assert "Perceptron.fit 2000x10" in out and "HardMarginSVM.fit 200x3" in out
    assert "Perceptron.fit 262x255 (notebook 04's bag of words), 3 epochs" in out
    assert all(ours > 0 and theirs > 0 for _, ours, theirs, _ in rows)


def test_runner_passes_options_to_one_benchmark(capsys, monkeypatch):
    from benchmarks import bench_scale

    seen = []
    monkeypatch.setattr(bench_scale, "main", lambda argv=None: seen.append(argv))
    assert runner.main(["scale", "--n", "5", "--workers", "1"]) == 0
    assert seen == [["--n", "5", "--workers", "1"]]
    assert runner.main(["--n", "5"]) == 2
    assert runner.main(["scale", "linlib", "--n", "5"]) == 2
    assert "exactly one benchmark" in capsys.readouterr().out
