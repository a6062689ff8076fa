"""Live figures for lectures: sliders and buttons (ipywidgets) that redraw a linlib figure.

Each builder returns a :class:`LiveFigure`. In JupyterLab (a kernel started by a Jupyter
server) it shows as a widget: controls above the figure, which is redrawn whenever a
control moves. Anywhere else — ``nbconvert --execute``, nbval, the autograder, the
lecture site and slides — it shows as a plain figure of its initial state, and it opens
no widget at all (no comm messages, nothing random stored in the notebook), so a cell
that builds one re-executes to the same stored output and never slows grading.

The figures are drawn by linlib's plotting helpers, so they look like every other
figure of the course. ipywidgets is imported only when a widget is built.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from linlib._validation import MAX_EPOCHS, check_binary_X_y
from linlib.geometry import signed_distance
from linlib.perceptron import perceptron_trace
from linlib.plotting import (
    new_axes,
    plot_distances,
    plot_hyperplane,
    plot_margin,
    plot_points,
)
from linlib.svm import HardMarginSVM

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "Control",
    "LiveFigure",
    "frontend_present",
    "hyperplane_explorer",
    "margin_explorer",
    "perceptron_stepper",
]


def frontend_present() -> bool:
    """Whether this kernel was started by a Jupyter server (JupyterLab, Notebook), which
    renders widgets. Jupyter Server sets ``JPY_SESSION_NAME`` for the kernels it starts;
    nbclient, nbval and the autograder do not.

    Examples
    --------
    >>> from linlib.widgets import frontend_present
    >>> frontend_present() in (True, False)  # True in JupyterLab, False under nbval
    True

    Introduced in 01 — hyperplanes (the live hyperplane).
    """
    return bool(os.environ.get("JPY_SESSION_NAME"))


@dataclass(frozen=True)
class Control:
    """One slider of a :class:`LiveFigure`: the state key it sets and its range.

    Examples
    --------
    >>> from linlib.widgets import Control
    >>> Control("b", "b", low=-5.0, high=5.0, step=0.1)
    Control(name='b', description='b', low=-5.0, high=5.0, step=0.1, integer=False)

    Introduced in 01 — hyperplanes (the live hyperplane).
    """

    name: str
    description: str
    low: float
    high: float
    step: float
    integer: bool = False


class LiveFigure:
    """A figure drawn from a state (a dict of numbers) and the sliders that change it.

    Parameters
    ----------
    draw : callable(ax, state) -> str
        Draws the state on an empty Axes and returns a caption (one line of text).
    state : mapping
        Initial values, one per control.
    controls : sequence of Control
    title : str
        Shown by ``repr`` and as the text of the stored output.
    live : bool, optional
        Show as a widget (True) or as the static figure (False); by default a widget
        exactly when :func:`frontend_present`.

    Attributes
    ----------
    fig, ax : the figure (not managed by pyplot: a cell shows it once, through this object)
    state : dict, the current values
    caption : str, what :attr:`draw` returned for the current state

    Examples
    --------
    >>> from linlib.widgets import Control, LiveFigure
    >>> def draw(ax, state):
    ...     ax.axhline(state["level"])
    ...     return f"a line at {state['level']:g}"
    ...
    >>> controls = [Control("level", "y", low=-1.0, high=1.0, step=0.1)]
    >>> figure = LiveFigure(draw, {"level": 0.0}, controls, "a line", live=False)
    >>> figure.update(level=0.5)
    >>> figure.caption
    'a line at 0.5'

    Introduced in 01 — hyperplanes (the live hyperplane).
    """

    def __init__(
        self,
        draw: Callable[[Axes, Mapping[str, float]], str],
        state: Mapping[str, float],
        controls: list[Control],
        title: str,
        *,
        live: bool | None = None,
        figsize: tuple[float, float] = (5.6, 4.6),
    ) -> None:
        import matplotlib.pyplot as plt

        self._draw = draw
        self.controls = list(controls)
        self.state = dict(state)
        self.title = title
        self.live = frontend_present() if live is None else bool(live)
        self.fig, self.ax = new_axes(figsize=figsize)
        # Out of pyplot's registry: the inline backend must not show it a second time.
        plt.close(self.fig)
        self._widget: Any = None
        self._sliders: dict[str, Any] = {}
        self._output: Any = None
        self.caption = ""
        self.redraw()

    def redraw(self) -> None:
        """Draw the current state on a cleared Axes."""
        self.ax.clear()
        self.ax.grid(True, color="#dddddd", linewidth=0.6)
        self.ax.set_axisbelow(True)
        self.caption = self._draw(self.ax, self.state)
        self.ax.set_title(self.caption, fontsize="small")
        if self._output is not None:
            self._show_in_output()

    def update(self, **values: float) -> None:
        """Set some values of the state and redraw (what a slider does)."""
        unknown = set(values) - set(self.state)
        if unknown:
            raise KeyError(f"unknown controls: {sorted(unknown)}")
        self.state.update(values)
        moved = False
        for name, value in values.items():
            slider = self._sliders.get(name)
            if slider is not None and slider.value != value:
                slider.value = value  # its observer redraws
                moved = True
        if not moved:
            self.redraw()

    def png(self) -> bytes:
        """The figure of the current state as PNG bytes (what a static page shows)."""
        buffer = io.BytesIO()
        self.fig.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()

    @property
    def sliders(self) -> dict[str, Any]:
        """The ipywidgets sliders, by state key (builds the widget on first use)."""
        self.widget  # noqa: B018 - building the widget creates the sliders
        return self._sliders

    @property
    def widget(self) -> Any:
        """The ipywidgets view: the sliders above the figure (built on first use)."""
        if self._widget is None:
            self._widget = self._build_widget()
        return self._widget

    def _build_widget(self) -> Any:
        import ipywidgets as widgets

        for control in self.controls:
            kind = widgets.IntSlider if control.integer else widgets.FloatSlider
            slider = kind(
                value=self.state[control.name],
                min=control.low,
                max=control.high,
                step=control.step,
                description=control.description,
                continuous_update=False,
            )
            slider.observe(self._on_slider(control.name), names="value")
            self._sliders[control.name] = slider
        self._output = widgets.Output()
        self._show_in_output()
        # The caption is the figure's title: it changes with the figure.
        return widgets.VBox([widgets.VBox(list(self._sliders.values())), self._output])

    def _on_slider(self, name: str) -> Callable[[dict], None]:
        def changed(change: dict) -> None:
            self.state[name] = change["new"]
            self.redraw()

        return changed

    def _show_in_output(self) -> None:
        from IPython.display import Image, display

        self._output.clear_output(wait=True)
        with self._output:
            display(Image(self.png()))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if self.live:
            return self.widget._repr_mimebundle_(include=include, exclude=exclude)
        png = base64.b64encode(self.png()).decode("ascii")
        return {"image/png": png, "text/plain": f"<{self.title}>"}

    def __repr__(self) -> str:
        return f"<{self.title}>"


def _as_points(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"expected points of shape (n_samples, 2), got shape {X.shape}")
    return X, np.asarray(y)


def _keep_view(ax: Axes, X: np.ndarray) -> None:
    """A fixed view around the points, so moving a line does not move the axes."""
    low, high = X.min(axis=0), X.max(axis=0)
    pad = 0.15 * float(np.max(high - low)) + 0.5
    ax.set_xlim(low[0] - pad, high[0] + pad)
    ax.set_ylim(low[1] - pad, high[1] + pad)


def hyperplane_explorer(
    X: Any,
    w: tuple[float, float] = (1.0, 1.0),
    b: float = 0.0,
    *,
    live: bool | None = None,
) -> LiveFigure:
    """Sliders for w₁, w₂ and b: the line w·x + b = 0, its normal, the points coloured
    by the side they fall on (a point on the line is −1) and their signed distances.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
    w : (float, float)
        Initial normal vector (not the zero vector).
    b : float
        Initial offset.
    live : bool, optional
        See :class:`LiveFigure`.

    Returns
    -------
    LiveFigure
        State keys ``w1``, ``w2``, ``b``.

    Examples
    --------
    >>> import linlib
    >>> from linlib.widgets import hyperplane_explorer
    >>> X, y = linlib.boolean_table("and")
    >>> figure = hyperplane_explorer(X, w=(1.0, 1.0), b=-1.5, live=False)
    >>> figure.update(b=0.0)
    >>> figure.caption
    'w = (1.0, 1.0), b = 0.0: 1 points on the +1 side, signed distances from -1.41 to 1.41'

    Introduced in 01 — hyperplanes (the live hyperplane).
    """
    X = np.asarray(X, dtype=float)
    _as_points(X, np.zeros(len(X)))

    def draw(ax: Axes, state: Mapping[str, float]) -> str:
        w_now = np.array([state["w1"], state["w2"]])
        _keep_view(ax, X)
        if not np.any(w_now):
            plot_points(ax, X, -np.ones(len(X)))
            return "w = 0: no line, every point is −1"
        side = np.where(X @ w_now + state["b"] > 0, 1, -1)
        plot_points(ax, X, side)
        plot_distances(ax, X, w_now, state["b"])
        plot_hyperplane(ax, w_now, state["b"])
        _keep_view(ax, X)
        # As plot_distances draws them; not linlib.signed_distance, which the student
        # build of 01 leaves out (it answers one of its exercises).
        d = (X @ w_now + state["b"]) / np.linalg.norm(w_now)
        return (
            f"w = ({w_now[0]:.1f}, {w_now[1]:.1f}), b = {state['b']:.1f}: "
            f"{int(np.sum(side > 0))} points on the +1 side, "
            f"signed distances from {d.min():.2f} to {d.max():.2f}"
        )

    controls = [
        Control("w1", "w₁", -3.0, 3.0, 0.1),
        Control("w2", "w₂", -3.0, 3.0, 0.1),
        Control("b", "b", -5.0, 5.0, 0.1),
    ]
    state = {"w1": float(w[0]), "w2": float(w[1]), "b": float(b)}
    return LiveFigure(draw, state, controls, "hyperplane explorer (w₁, w₂, b)", live=live)


def perceptron_stepper(
    X: Any, y: Any, *, max_epochs: int = MAX_EPOCHS, live: bool | None = None
) -> LiveFigure:
    """A slider over the online perceptron's steps (:func:`linlib.perceptron_trace`):
    the hyperplane after each visit, the visited point circled, updates counted.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
    max_epochs : int, default=1000
        Cap on the number of passes over the data, passed to
        :func:`linlib.perceptron_trace`.
    live : bool, optional
        See :class:`LiveFigure`.

    Returns
    -------
    LiveFigure
        State key ``step`` (0 = before the first visit, ``w = 0``).

    Examples
    --------
    >>> import linlib
    >>> from linlib.widgets import perceptron_stepper
    >>> figure = perceptron_stepper(*linlib.boolean_table("and"), live=False)
    >>> figure.update(step=1)
    >>> figure.caption
    'step 1 of 8 (epoch 1, point 0): y·a = -0.00 → update; 1 updates so far'

    Introduced in 02 — the perceptron update rule (the perceptron step by step).
    """
    X, y = _as_points(X, y)
    trace = perceptron_trace(X, y, max_epochs=max_epochs)

    def draw(ax: Axes, state: Mapping[str, float]) -> str:
        k = int(state["step"])
        _keep_view(ax, X)
        plot_points(ax, X, y)
        if k == 0:
            _keep_view(ax, X)
            return f"step 0 of {len(trace)}: w = 0, b = 0 (no line yet)"
        step = trace[k - 1]
        updates = sum(s.updated for s in trace[:k])
        x = X[step.index]
        ax.scatter([x[0]], [x[1]], s=260, facecolors="none", edgecolors="#222222", zorder=5)
        if np.any(step.w):
            plot_hyperplane(ax, step.w, step.b)
        _keep_view(ax, X)
        verdict = "update" if step.updated else "no update"
        return (
            f"step {k} of {len(trace)} (epoch {step.epoch}, point {step.index}): "
            f"y·a = {step.y * step.activation:.2f} → {verdict}; {updates} updates so far"
        )

    controls = [Control("step", "step", 0, len(trace), 1, integer=True)]
    return LiveFigure(draw, {"step": 0}, controls, "perceptron stepper", live=live)


def margin_explorer(
    X: Any,
    y: Any,
    w: tuple[float, float] = (1.0, 1.0),
    b: float = 0.0,
    *,
    live: bool | None = None,
) -> LiveFigure:
    """Sliders for a chosen (w, b): its margin band (half-width the smallest signed
    distance y(w·x + b)/‖w‖ of the data, negative when a point is misclassified) drawn
    against the maximum-margin band of :class:`linlib.HardMarginSVM`.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Linearly separable data.
    y : array-like of shape (n_samples,)
    w : (float, float)
        Initial normal vector of the chosen line.
    b : float
        Initial offset of the chosen line.
    live : bool, optional
        See :class:`LiveFigure`.

    Returns
    -------
    LiveFigure
        State keys ``w1``, ``w2``, ``b``.

    Examples
    --------
    >>> import linlib
    >>> from linlib.widgets import margin_explorer
    >>> figure = margin_explorer(*linlib.boolean_table("and"), w=(1.0, 1.0), b=-1.5, live=False)
    >>> figure.caption
    'your line: margin 0.354; the maximum margin is 0.707'

    Introduced in 06 — SVM margins (the widest band).
    """
    X, y = _as_points(X, y)
    svm = HardMarginSVM().fit(X, y)
    w_best, b_best = svm.coef_[0], float(svm.intercept_[0])
    _, y_pm, _ = check_binary_X_y(X, y)

    def draw(ax: Axes, state: Mapping[str, float]) -> str:
        w_now = np.array([state["w1"], state["w2"]])
        _keep_view(ax, X)
        plot_points(ax, X, y)
        plot_margin(ax, w_best, b_best, label="maximum margin", color="#009E73")
        plot_hyperplane(ax, w_best, b_best, normal=False, color="#009E73")
        if not np.any(w_now):
            _keep_view(ax, X)
            return f"w = 0: no line; the maximum margin is {svm.margin_:.3f}"
        margin = float(np.min(y_pm * signed_distance(X, w_now, state["b"])))
        if margin > 0:
            plot_margin(ax, w_now, state["b"], margin=margin, label="your margin")
        plot_hyperplane(ax, w_now, state["b"])
        _keep_view(ax, X)
        verdict = f"margin {margin:.3f}" if margin > 0 else "a point is misclassified"
        return f"your line: {verdict}; the maximum margin is {svm.margin_:.3f}"

    controls = [
        Control("w1", "w₁", -3.0, 3.0, 0.05),
        Control("w2", "w₂", -3.0, 3.0, 0.05),
        Control("b", "b", -5.0, 5.0, 0.05),
    ]
    state = {"w1": float(w[0]), "w2": float(w[1]), "b": float(b)}
    return LiveFigure(draw, state, controls, "margin explorer (w₁, w₂, b)", live=live)
