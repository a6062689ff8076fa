"""linlib.data: the generators' guarantees, truth tables and seed 003's corpus."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import linlib


@settings(max_examples=60)
@given(
    n=st.integers(2, 300),
    d=st.integers(1, 60),
    radius=st.floats(0.01, 100.0),
    margin_fraction=st.floats(0.0, 0.99),
    seed=st.integers(0, 2**32 - 1),
    shift=st.floats(-50.0, 50.0),
)
def test_make_separable_guarantees(n, d, radius, margin_fraction, seed, shift):
    margin = margin_fraction * radius
    center = np.full(d, shift)
    X, y, (u, c) = linlib.make_separable(
        n,
        d,
        margin=margin,
        radius=radius,
        random_state=seed,
        center=center,
        return_separator=True,
    )
    assert X.shape == (n, d) and y.shape == (n,)
    assert set(np.unique(y)) == {-1, 1}
    assert (y == 1).sum() == (n + 1) // 2
    assert np.linalg.norm(u) == pytest.approx(1.0)
    assert c == pytest.approx(-u @ center)
    assert np.all(np.linalg.norm(X - center, axis=1) <= radius)
    assert np.all(y * (X @ u + c) >= margin)
    if margin > 0:
        assert linlib.geometric_margin(X, y, u, c) >= margin


def test_make_separable_is_seeded_and_fills_the_ball():
    a = linlib.make_separable(500, 3, margin=0.1)
    b = linlib.make_separable(500, 3, margin=0.1, random_state=0)
    c = linlib.make_separable(500, 3, margin=0.1, random_state=1)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    X, _, (u, _) = linlib.make_separable(
        4000, 2, margin=0.3, direction=[0, 2], return_separator=True
    )
    np.testing.assert_allclose(u, [0, 1])
    # Uniform on the disc minus the strip |x_2| < 0.3: the strip is empty, points reach
    # the margin and the boundary, and both halves of the disc are used evenly.
    assert np.abs(X[:, 1]).min() >= 0.3 and np.abs(X[:, 1]).min() < 0.31
    assert np.linalg.norm(X, axis=1).max() > 0.99
    assert abs(np.mean(X[:, 0] > 0) - 0.5) < 0.05

    # Uniform density: the fraction of points with |x_2| in [0.3, 0.65] matches the area.
    def area(t):  # area of the disc with 0 ≤ x_2 ≤ t, for t ≤ 1
        return t * np.sqrt(1 - t * t) + np.arcsin(t)

    expected = (area(0.65) - area(0.3)) / (area(1.0) - area(0.3))
    observed = np.mean(np.abs(X[:, 1]) <= 0.65)
    assert observed == pytest.approx(expected, abs=0.03)


def test_make_separable_rejects_bad_parameters():
    with pytest.raises(ValueError, match="margin"):
        linlib.make_separable(10, 2, margin=1.0, radius=1.0)
    with pytest.raises(ValueError, match="margin"):
        linlib.make_separable(10, 2, margin=-0.1)
    with pytest.raises(ValueError, match="n_samples"):
        linlib.make_separable(1)
    with pytest.raises(ValueError, match="n_features"):
        linlib.make_separable(10, 0)
    with pytest.raises(ValueError, match="radius"):
        linlib.make_separable(10, 2, radius=0)
    with pytest.raises(ValueError, match="direction"):
        linlib.make_separable(10, 2, direction=[0, 0])
    for kwargs in ({"margin": "0.1"}, {"radius": np.inf}, {"n_samples": True}, {"n_features": 2.0}):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            linlib.make_separable(**{"n_samples": 10, **kwargs})


@pytest.mark.parametrize(
    ("name", "truth"),
    [
        ("and", [-1, -1, -1, 1]),
        ("or", [-1, 1, 1, 1]),
        ("nand", [1, 1, 1, -1]),
        ("xor", [-1, 1, 1, -1]),
    ],
)
def test_boolean_tables(name, truth):
    X, y = linlib.boolean_table(name)
    np.testing.assert_array_equal(X, [[-1, -1], [-1, 1], [1, -1], [1, 1]])
    np.testing.assert_array_equal(y, truth)


def test_not_xor_and_unknown_names():
    X, y = linlib.boolean_table("NOT")
    np.testing.assert_array_equal(X, [[-1], [1]])
    np.testing.assert_array_equal(y, [1, -1])
    for got, want in zip(linlib.make_xor(), linlib.boolean_table("xor"), strict=True):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="Unknown boolean function"):
        linlib.boolean_table("implies")


def test_toy_corpus_and_counts_are_seed_003s():
    docs, labels = linlib.toy_corpus()
    assert docs == ["aba", "baabaaa", "bbaabbab", "abbaa", "abbb", "bbbaab"]
    assert labels == ["A", "A", "B", "A", "B", "B"]
    X, y = linlib.toy_counts()
    # The (H_a, H_b) table printed in seed 003.
    np.testing.assert_array_equal(X, [[2, 1], [5, 2], [3, 5], [3, 2], [1, 3], [2, 4]])
    np.testing.assert_array_equal(y, [1, 1, -1, 1, -1, -1])
    assert np.issubdtype(X.dtype, np.integer)
