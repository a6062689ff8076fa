"""Tests of linlib.widgets, driven headlessly: move a slider, the figure follows.

The expected geometry is computed here with NumPy (which side of w·x + b = 0 a point is
on, the line through the points with w·x + b = 0), and the perceptron's steps with
scikit-learn's Perceptron, never read back from the widget's own code.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.lines import AxLine
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.svm import SVC

import linlib
from linlib.plotting import CLASS_COLORS
from linlib.widgets import (
    LiveFigure,
    frontend_present,
    hyperplane_explorer,
    margin_explorer,
    perceptron_stepper,
)

pytest.importorskip("ipywidgets")


@pytest.fixture
def data():
    return linlib.make_separable(30, margin=0.3, random_state=1)


def _solid_lines(fig: LiveFigure) -> list[AxLine]:
    return [
        line
        for line in fig.ax.get_lines()
        if isinstance(line, AxLine) and line.get_linestyle() == "-"
    ]


def _on_line(line: AxLine, w: np.ndarray, b: float) -> bool:
    points = np.array([line.get_xy1(), line.get_xy2()], dtype=float)
    return bool(np.allclose(points @ w + b, 0.0, atol=1e-9))


def _point_colours(fig: LiveFigure) -> np.ndarray:
    """Face colours of every scattered class point, in the order the points were drawn."""
    colours = [c.get_facecolors() for c in fig.ax.collections if len(c.get_offsets())]
    return np.concatenate([c for c in colours if len(c)])


def test_frontend_present_follows_jupyter_servers_variable(monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert not frontend_present()
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/01_hyperplanes/01_hyperplanes.ipynb")
    assert frontend_present()


@pytest.mark.slow
def test_hyperplane_slider_moves_the_line_and_recolours_the_points(data):
    X, _ = data
    fig = hyperplane_explorer(X, w=(1.0, 0.0), b=0.0, live=False)
    (line,) = _solid_lines(fig)
    assert _on_line(line, np.array([1.0, 0.0]), 0.0)
    before = fig.png()

    fig.sliders["w2"].value = 2.0  # as a lecturer dragging the slider
    fig.sliders["b"].value = -0.5
    w, b = np.array([1.0, 2.0]), -0.5
    (line,) = _solid_lines(fig)
    assert _on_line(line, w, b)
    side = np.where(X @ w + b > 0, 1, -1)
    expected = {to_rgba(CLASS_COLORS[s]) for s in side}
    assert {tuple(c) for c in np.round(_point_colours(fig), 6)} == {
        tuple(np.round(c, 6)) for c in expected
    }
    assert f"{int(np.sum(side > 0))} points on the +1 side" in fig.caption
    assert fig.png() != before


def test_hyperplane_zero_vector_draws_no_line(data):
    X, _ = data
    fig = hyperplane_explorer(X, w=(1.0, 1.0), live=False)
    fig.update(w1=0.0, w2=0.0)
    assert _solid_lines(fig) == []
    assert "w = 0" in fig.caption


@pytest.mark.slow
def test_perceptron_stepper_follows_scikit_learns_updates(data):
    X, y = data
    fig = perceptron_stepper(X, y, live=False)
    n_steps = fig.controls[0].high
    assert _solid_lines(fig) == []  # step 0: w = 0, no line yet
    # scikit-learn's Perceptron after one epoch = the online perceptron after n steps.
    sk = SkPerceptron(shuffle=False, tol=None, max_iter=1).fit(X, y)
    fig.sliders["step"].value = len(X)
    (line,) = _solid_lines(fig)
    assert _on_line(line, sk.coef_[0], sk.intercept_[0])
    fig.sliders["step"].value = n_steps
    assert f"step {n_steps} of {n_steps}" in fig.caption


def test_margin_explorer_compares_with_the_maximum_margin(data):
    X, y = data
    svc = SVC(kernel="linear", C=1e6).fit(X, y)
    best = 1.0 / np.linalg.norm(svc.coef_[0])
    fig = margin_explorer(X, y, w=tuple(svc.coef_[0]), b=float(svc.intercept_[0]), live=False)
    assert f"the maximum margin is {best:.3f}"[:-1] in fig.caption  # libsvm's ~1e-3
    w, b = np.array([1.0, 0.2]), 0.1
    fig.update(w1=w[0], w2=w[1], b=b)
    margin = np.min(np.where(y > 0, 1, -1) * (X @ w + b)) / np.linalg.norm(w)
    expected = f"margin {margin:.3f}" if margin > 0 else "a point is misclassified"
    assert expected in fig.caption
    assert any(_on_line(line, w, b) for line in _solid_lines(fig))


@pytest.mark.slow
def test_static_output_is_the_initial_figure_and_opens_no_widget(data):
    X, _ = data
    fig = hyperplane_explorer(X, live=False)
    bundle = fig._repr_mimebundle_()
    assert set(bundle) == {"image/png", "text/plain"}
    assert fig._widget is None  # no widget (no comm) was built for a static output
    again = hyperplane_explorer(X, live=False)._repr_mimebundle_()
    assert bundle == again  # deterministic: a re-executed notebook stores the same bytes


def test_live_output_is_the_widget(data):
    X, _ = data
    fig = hyperplane_explorer(X, live=True)
    bundle = fig._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert set(fig.sliders) == {"w1", "w2", "b"}
