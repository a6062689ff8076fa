"""Tests of linlib.plotting: the artists carry the right geometry, renders are deterministic."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import LineCollection, PathCollection, QuadMesh
from matplotlib.colors import to_rgba
from matplotlib.patches import Polygon
from matplotlib.text import Annotation
from sklearn.linear_model import Perceptron as SkPerceptron

import linlib
from linlib.plotting import (
    CLASS_COLORS,
    CLASS_MARKERS,
    new_axes,
    plot_decision_regions,
    plot_distances,
    plot_hyperplane,
    plot_margin,
    plot_points,
    plot_updates,
)

X = np.array([[1.0, 2.0], [2.0, 0.5], [-1.0, -1.0], [0.0, -2.0], [2.0, 2.0], [-2.0, 0.5]])
Y = np.array([1, 1, -1, -1, 1, -1])
W = np.array([1.0, 1.0])
B = -0.5


@pytest.fixture
def axes():
    fig, ax = new_axes()
    yield ax
    plt.close(fig)


def infinite_lines(ax):
    """The lines drawn with ax.axline, as (point, point) pairs in data coordinates."""
    return [line for line in ax.lines if hasattr(line, "get_xy1")]


def on_line(points, w, b, level=0.0, tol=1e-9):
    """Whether every point satisfies w·x + b = level."""
    points = np.atleast_2d(np.asarray(points, dtype=float))
    return np.allclose(points @ np.asarray(w) + b, level, atol=tol)


def line_points(line):
    return np.array([line.get_xy1(), line.get_xy2()], dtype=float)


def arrows(ax):
    return [
        child
        for child in ax.get_children()
        if isinstance(child, Annotation) and child.arrow_patch is not None
    ]


# ---------------------------------------------------------------------------------------


def test_new_axes_is_labelled_and_equal(axes):
    assert axes.get_xlabel() == "$x_1$"
    assert axes.get_ylabel() == "$x_2$"
    assert axes.get_aspect() == 1.0
    fig, ax = new_axes(xlabel="updates", ylabel="bound", equal=False, title="t")
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title(), ax.get_aspect()) == (
        "updates",
        "bound",
        "t",
        "auto",
    )
    plt.close(fig)


def test_class_colours_are_distinct_and_fixed():
    assert set(CLASS_COLORS) == set(CLASS_MARKERS) == {-1, 1}
    assert CLASS_COLORS[-1] != CLASS_COLORS[1]
    assert CLASS_MARKERS[-1] != CLASS_MARKERS[1]  # classes differ without colour too


def test_plot_points_colours_each_class(axes):
    assert plot_points(axes, X, Y) is axes
    scatters = [c for c in axes.collections if isinstance(c, PathCollection)]
    assert len(scatters) == 2
    for cls, scatter in zip((-1, 1), scatters, strict=True):
        np.testing.assert_array_equal(scatter.get_offsets(), X[Y == cls])
        np.testing.assert_allclose(scatter.get_facecolor()[0], to_rgba(CLASS_COLORS[cls]))
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["$y=-1$", "$y=+1$"]


def test_plot_points_follows_scikit_learns_label_rule(axes):
    """With labels other than ±1, the second class in sorted order is the +1 class."""
    labels = np.array(["spam", "spam", "ham", "ham", "spam", "ham"])
    plot_points(axes, X, labels)
    negative, positive = [c for c in axes.collections if isinstance(c, PathCollection)]
    sorted_classes = sorted(set(labels))
    np.testing.assert_array_equal(positive.get_offsets(), X[labels == sorted_classes[1]])
    np.testing.assert_array_equal(negative.get_offsets(), X[labels == sorted_classes[0]])
    assert "spam (+1)" in [t.get_text() for t in axes.get_legend().get_texts()]


def test_plot_points_rejects_bad_input(axes):
    with pytest.raises(ValueError, match="two classes"):
        plot_points(axes, X[:3], [0, 1, 2])
    with pytest.raises(ValueError, match="shape"):
        plot_points(axes, np.zeros((3, 3)), [1, -1, 1])
    with pytest.raises(ValueError, match="labels"):
        plot_points(axes, X, Y[:-1])


@pytest.mark.parametrize(
    ("w", "b"),
    [(W, B), ([0.0, 2.0], 1.0), ([3.0, 0.0], -1.5), ([-1.0, 0.3], 0.0), ([2, 5], 3)],
)
def test_plot_hyperplane_line_and_normal(axes, w, b):
    plot_points(axes, X, Y)
    assert plot_hyperplane(axes, w, b, label="h") is axes
    (line,) = infinite_lines(axes)
    assert on_line(line_points(line), w, b)
    (arrow,) = arrows(axes)
    tail, tip = np.array(arrow.xyann, dtype=float), np.array(arrow.xy, dtype=float)
    assert on_line(tail, w, b)  # the arrow starts on the line
    direction = tip - tail
    cross = direction[0] * w[1] - direction[1] * w[0]
    assert abs(cross) < 1e-9 * np.linalg.norm(direction) * np.linalg.norm(w)  # parallel to w
    assert direction @ np.asarray(w, dtype=float) > 0  # pointing to the +1 side
    assert "h" in [t.get_text() for t in axes.get_legend().get_texts()]


@pytest.mark.slow
def test_plot_hyperplane_reaches_the_edges_of_the_view(axes):
    """The drawn line is clipped to the axes: both ends on the border of the view."""
    plot_points(axes, X, Y)
    plot_hyperplane(axes, W, B)
    axes.figure.canvas.draw()
    (line,) = infinite_lines(axes)
    ends_display = line.get_transform().transform(line.get_path().vertices)
    ends = axes.transData.inverted().transform(ends_display)
    (x0, x1), (y0, y1) = axes.get_xlim(), axes.get_ylim()
    assert on_line(ends, W, B, tol=1e-6)
    for x, y in ends:
        on_border = np.isclose([x, x, y, y], [x0, x1, y0, y1], atol=1e-6).any()
        assert on_border and x0 - 1e-6 <= x <= x1 + 1e-6 and y0 - 1e-6 <= y <= y1 + 1e-6


def test_plot_hyperplane_keeps_a_view_it_crosses_and_shows_one_it_misses(axes):
    plot_points(axes, X, Y)
    before = (axes.get_xlim(), axes.get_ylim())
    plot_hyperplane(axes, W, B)
    assert (axes.get_xlim(), axes.get_ylim()) == before
    plot_hyperplane(axes, [0.0, 1.0], -10.0)  # the line y = 10, above the data
    assert axes.get_ylim()[1] >= 10.0


def test_plot_updates_keeps_the_view_on_the_data(axes):
    plot_points(axes, X, Y)
    before = (axes.get_xlim(), axes.get_ylim())
    trace = linlib.perceptron_trace(X, Y, max_epochs=50)
    plot_updates(axes, X, Y, trace)
    assert (axes.get_xlim(), axes.get_ylim()) == before


def test_plot_hyperplane_rejects_zero_and_wrong_sized_w(axes):
    with pytest.raises(ValueError, match="zero"):
        plot_hyperplane(axes, [0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="2 entries"):
        plot_hyperplane(axes, [1.0, 2.0, 3.0], 1.0)


def test_plot_hyperplane_without_normal(axes):
    plot_hyperplane(axes, W, B, normal=False)
    assert arrows(axes) == []


@pytest.mark.parametrize(("w", "b", "margin"), [(W, B, None), ([0.0, 2.0], 1.0, None), (W, B, 0.3)])
def test_plot_margin_edges_and_band(axes, w, b, margin):
    plot_points(axes, X, Y)
    plot_margin(axes, w, b, margin=margin)
    w = np.asarray(w, dtype=float)
    norm = np.linalg.norm(w)
    level = 1.0 if margin is None else margin * norm  # w·x + b on the edges
    upper, lower = infinite_lines(axes)
    assert on_line(line_points(upper), w, b, level)
    assert on_line(line_points(lower), w, b, -level)
    (band,) = [p for p in axes.get_children() if isinstance(p, Polygon) and p is not axes.patch]
    distances = (band.get_xy() @ w + b) / norm
    np.testing.assert_allclose([distances.min(), distances.max()], [-level / norm, level / norm])


def test_plot_margin_rejects_negative_margin(axes):
    with pytest.raises(ValueError, match="margin"):
        plot_margin(axes, W, B, margin=-0.1)


def test_plot_margin_leaves_the_view_alone(axes):
    plot_points(axes, X, Y)
    before = (axes.get_xlim(), axes.get_ylim())
    plot_margin(axes, W, B)
    assert (axes.get_xlim(), axes.get_ylim()) == before


def test_plot_decision_regions_matches_the_classifier(axes):
    labels = np.where(Y > 0, "spam", "ham")
    clf = SkPerceptron(shuffle=False, tol=None, max_iter=20).fit(X, labels)
    plot_decision_regions(axes, clf, X, labels, resolution=40)
    (mesh,) = [c for c in axes.collections if isinstance(c, QuadMesh)]
    values = np.asarray(mesh.get_array()).reshape(40, 40)
    centres = mesh.get_coordinates()  # "nearest" shading: one coordinate per cell centre
    if centres.shape[:2] != (40, 40):  # matplotlib stores cell corners
        centres = (centres[:-1, :-1] + centres[1:, 1:]) / 2
    expected = np.where(clf.predict(centres.reshape(-1, 2)) == "spam", 1.0, -1.0)
    np.testing.assert_array_equal(values.ravel(), expected)
    assert {-1.0, 1.0} <= set(values.ravel())
    # the grid covers the data
    assert centres[..., 0].min() <= X[:, 0].min() and centres[..., 0].max() >= X[:, 0].max()
    assert len([c for c in axes.collections if isinstance(c, PathCollection)]) == 2


def test_plot_decision_regions_accepts_a_function(axes):
    def predict(points):
        return np.where(points @ W + B > 0, 1, -1)

    plot_decision_regions(axes, predict, X, Y, resolution=10, points=False)
    (mesh,) = [c for c in axes.collections if isinstance(c, QuadMesh)]
    assert set(np.asarray(mesh.get_array()).ravel()) == {-1.0, 1.0}
    with pytest.raises(ValueError, match="predict returned"):
        plot_decision_regions(axes, lambda points: np.ones(3), X, Y, resolution=10)


def test_plot_updates_draws_each_hyperplane_of_the_trace(axes):
    trace = linlib.perceptron_trace(X, Y, max_epochs=50)
    plot_updates(axes, X, Y, trace)
    n_updates = sum(step.updated for step in trace)
    lines = infinite_lines(axes)
    assert len(lines) == n_updates  # the first update from w = 0 never gives w = 0 here
    # The last line is the perceptron's final hyperplane, as scikit-learn finds it.
    sk = SkPerceptron(shuffle=False, tol=None, max_iter=50).fit(X, Y)
    assert on_line(line_points(lines[-1]), sk.coef_[0], sk.intercept_[0], tol=1e-9)
    # Older lines are lighter than newer ones.
    greys = [to_rgba(line.get_color())[0] for line in lines]
    assert greys == sorted(greys, reverse=True)
    # Each update is numbered next to the point that caused it.
    numbers = {a.get_text(): tuple(a.xy) for a in axes.get_children() if isinstance(a, Annotation)}
    updates = [step for step in trace if step.updated]
    first = tuple(X[updates[0].index])
    assert any(first == xy and "1" in text.split(",") for text, xy in numbers.items())


def test_plot_updates_max_lines(axes):
    trace = linlib.perceptron_trace(X, Y, max_epochs=50)
    plot_updates(axes, X, Y, trace, max_lines=1, annotate=False)
    assert len(infinite_lines(axes)) == 1


def test_plot_distances_segments_end_on_the_plane(axes):
    w, b = np.array([2.0, -1.0]), 0.5
    plot_distances(axes, X, w, b, annotate=True)
    (segments,) = [c for c in axes.collections if isinstance(c, LineCollection)]
    starts = np.array([s[0] for s in segments.get_segments()])
    feet = np.array([s[1] for s in segments.get_segments()])
    np.testing.assert_allclose(starts, X)
    assert on_line(feet, w, b)
    # Length = distance from the point to the line, computed independently from two
    # points of the line and the cross product.
    p = np.array([0.0, 0.5])  # 2·0 − 0.5 + 0.5 = 0
    q = np.array([1.0, 2.5])  # 2·1 − 2.5 + 0.5 = 0
    d = q - p
    distance = np.abs(d[0] * (X[:, 1] - p[1]) - d[1] * (X[:, 0] - p[0])) / np.linalg.norm(d)
    np.testing.assert_allclose(np.linalg.norm(starts - feet, axis=1), distance)


def full_figure_png() -> bytes:
    fig, ax = new_axes()
    plot_decision_regions(ax, lambda P: np.where(P @ W + B > 0, 1, -1), X, Y, resolution=50)
    plot_hyperplane(ax, W, B, label="w·x + b = 0")
    plot_margin(ax, W, B)
    plot_distances(ax, X, W, B, annotate=True)
    plot_updates(ax, X, Y, linlib.perceptron_trace(X, Y))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=60)
    plt.close(fig)
    return buffer.getvalue()


@pytest.mark.slow
def test_renders_are_byte_identical():
    first, second = full_figure_png(), full_figure_png()
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert first == second


def test_functions_use_the_given_axes_only():
    fig, (left, right) = plt.subplots(1, 2)
    plot_points(right, X, Y)
    plot_hyperplane(right, W, B)
    plot_distances(right, X, W, B)
    assert len(left.collections) == len(left.lines) == len(left.texts) == 0
    plt.close(fig)
