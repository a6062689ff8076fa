"""One look for every figure of the course.

Every function draws on an Axes it is given (matplotlib's object-oriented API) and returns
it, so figures compose: points, then a hyperplane, then its margin. Class −1 is always
blue circles and class +1 always vermillion triangles (Okabe–Ito colours, distinguishable
with the common colour-vision deficiencies and in greyscale by marker). Geometry is drawn
with an equal aspect ratio, so that a normal vector looks perpendicular to its line.

Labels follow the course's rule: ±1 labels are used as they are; any other two labels
are sorted and the second one is the +1 class, as in scikit-learn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from linlib._validation import check_scalar_b, check_vector, pm_labels_and_classes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import ColorType

# matplotlib is imported inside the functions: importing it costs about a second, and
# every notebook kernel the autograder starts imports linlib, most without plotting.

__all__ = [
    "CLASS_COLORS",
    "CLASS_MARKERS",
    "HYPERPLANE_COLOR",
    "new_axes",
    "plot_decision_regions",
    "plot_distances",
    "plot_hyperplane",
    "plot_margin",
    "plot_points",
    "plot_updates",
]

#: Colour of each class (Okabe–Ito blue and vermillion).
CLASS_COLORS: dict[int, str] = {-1: "#0072B2", 1: "#D55E00"}
#: Marker of each class, so the classes differ without colour too.
CLASS_MARKERS: dict[int, str] = {-1: "o", 1: "^"}
#: Colour of hyperplanes, margins and distance segments.
HYPERPLANE_COLOR = "#222222"
#: Light versions of the class colours for decision regions.
REGION_ALPHA = 0.18


def new_axes(
    figsize: tuple[float, float] = (4.8, 4.2),
    *,
    xlabel: str = "$x_1$",
    ylabel: str = "$x_2$",
    title: str | None = None,
    equal: bool = True,
) -> tuple[Figure, Axes]:
    """A new figure with one labelled Axes in the course's look.

    It is ``plt.subplots`` with the course's size, labels, grid and aspect, so a
    notebook's inline backend shows and closes it like any other figure.

    Parameters
    ----------
    figsize : (float, float)
        Width and height in inches.
    xlabel, ylabel, title : str
        Axis labels and optional title.
    equal : bool
        Equal aspect ratio (geometry); False for plots such as updates vs bound.

    Returns
    -------
    fig, ax

    Examples
    --------
    >>> import linlib
    >>> fig, ax = linlib.new_axes(title="AND")
    >>> ax.get_title(), ax.get_xlabel()
    ('AND', '$x_1$')

    Introduced in 01 — hyperplanes.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    if equal:
        ax.set_aspect("equal", adjustable="box")
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    return fig, ax


def _pm_labels(y: Any) -> tuple[np.ndarray, list[str]]:
    """Labels as ±1 (the rule of linlib's classifiers) and the legend texts of −1 and +1."""
    y = np.asarray(y)
    y_pm, classes = pm_labels_and_classes(y, y.shape[0] if y.ndim else 1)
    if classes is None:
        return y_pm.astype(int), ["$y=-1$", "$y=+1$"]
    return y_pm.astype(int), [f"{classes[0]} (−1)", f"{classes[1]} (+1)"]


def _points_2d(X: Any) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"expected points of shape (n_samples, 2), got shape {X.shape}")
    return X


def _plane_2d(w: Any, b: Any) -> tuple[np.ndarray, float]:
    w = check_vector(w, "w")
    b = check_scalar_b(b)
    if w.shape != (2,):
        raise ValueError(f"expected a weight vector w of 2 entries, got shape {w.shape}")
    if not np.any(w):
        raise ValueError("w is the zero vector: w·x + b = 0 is not a line")
    return w, b


def _refresh_legend(ax: Axes) -> None:
    """Redraw an existing legend so it includes artists added since."""
    if ax.get_legend() is not None:
        ax.legend(loc="best", fontsize="small")


def _label_axes(ax: Axes) -> None:
    if not ax.get_xlabel():
        ax.set_xlabel("$x_1$")
    if not ax.get_ylabel():
        ax.set_ylabel("$x_2$")


def plot_points(
    ax: Axes,
    X: Any,
    y: Any,
    *,
    size: float = 36.0,
    legend: bool = True,
    aspect: Literal["auto", "equal"] | float | None = "equal",
) -> Axes:
    """Scatter 2-D points with the class colours and markers.

    Parameters
    ----------
    ax : Axes
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
        Two classes: ±1, or any two labels (sorted; the second is +1).
    size : float
        Marker area.
    legend : bool
        Add a legend entry per class.
    aspect : "equal", "auto", float or None
        Aspect ratio to set (``"equal"`` for geometry); None leaves it.

    Returns
    -------
    ax

    Examples
    --------
    >>> import linlib
    >>> fig, ax = linlib.new_axes()
    >>> X, y = linlib.boolean_table("and")
    >>> linlib.plot_points(ax, X, y) is ax
    True
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['$y=-1$', '$y=+1$']

    Introduced in 01 — hyperplanes.
    """
    X = _points_2d(X)
    y_pm, names = _pm_labels(y)
    if len(y_pm) != len(X):
        raise ValueError(f"X has {len(X)} points but y has {len(y_pm)} labels")
    for cls, name in zip((-1, 1), names, strict=True):
        mask = y_pm == cls
        ax.scatter(
            X[mask, 0],
            X[mask, 1],
            s=size,
            c=CLASS_COLORS[cls],
            marker=CLASS_MARKERS[cls],
            edgecolors="white",
            linewidths=0.6,
            label=name,
            zorder=3,
        )
    _label_axes(ax)
    if aspect is not None:
        ax.set_aspect(aspect, adjustable="box")
    if legend:
        ax.legend(loc="best", fontsize="small")
    return ax


def _view_center_and_size(ax: Axes) -> tuple[np.ndarray, float]:
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return np.array([(x0 + x1) / 2, (y0 + y1) / 2]), float(np.hypot(x1 - x0, y1 - y0))


def _foot(point: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """Orthogonal projection of *point* onto the plane w·x + b = 0."""
    return point - (w @ point + b) / (w @ w) * w


def _inside_view(ax: Axes, point: np.ndarray) -> bool:
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    return bool(x0 <= point[0] <= x1 and y0 <= point[1] <= y1)


def _draw_line(ax: Axes, w: np.ndarray, b: float, level: float, **style: Any) -> None:
    """Draw the infinite line w·x + b = level.

    ``ax.axline`` adds the two points it is given to the data limits, so they are taken
    next to the foot of the view's centre: a line crossing the view leaves the limits
    alone, and one that misses it brings its closest part into view.
    """
    centre, size = _view_center_and_size(ax)
    point = _foot(centre, w, b - level)
    step = 1e-3 * size * np.array([-w[1], w[0]]) / np.linalg.norm(w)
    ax.axline(tuple(point), tuple(point + step), zorder=2, **style)


def plot_hyperplane(
    ax: Axes,
    w: Any,
    b: Any,
    normal: bool = True,
    label: str | None = None,
    *,
    color: ColorType = HYPERPLANE_COLOR,
    linestyle: str = "-",
    alpha: float = 1.0,
) -> Axes:
    """Draw the line w·x + b = 0 across the whole view, with its normal vector.

    The line is infinite (``ax.axline``), so it always reaches the edges of the axes
    whatever their limits; drawing it does not change the limits if it crosses the view
    (if it misses the view, the view grows to show it). The normal arrow points along w,
    towards the +1 side, from the foot of the perpendicular from the origin (the point of
    the line closest to the origin) — or from the view's centre when that foot is out of
    view.

    Parameters
    ----------
    ax : Axes
    w : array-like of shape (2,)
        Normal vector, non-zero.
    b : float
        Offset.
    normal : bool
        Draw the normal arrow, labelled w.
    label : str, optional
        Legend label of the line.
    color, linestyle, alpha
        Line style (``color``: any matplotlib colour).

    Returns
    -------
    ax

    Examples
    --------
    >>> import linlib
    >>> fig, ax = linlib.new_axes()
    >>> ax = linlib.plot_points(ax, *linlib.boolean_table("and"))
    >>> linlib.plot_hyperplane(ax, w=[1, 1], b=-1.5, label="x₁ + x₂ = 1.5") is ax
    True

    Introduced in 01 — hyperplanes.
    """
    w, b = _plane_2d(w, b)
    _draw_line(
        ax, w, b, 0.0, color=color, linestyle=linestyle, linewidth=1.6, alpha=alpha, label=label
    )
    if normal:
        anchor = -b / (w @ w) * w
        centre, size = _view_center_and_size(ax)
        start = anchor if _inside_view(ax, anchor) else _foot(centre, w, b)
        tip = start + 0.15 * size * w / np.linalg.norm(w)
        ax.annotate(
            "",
            xy=tuple(tip),
            xytext=tuple(start),
            arrowprops={"arrowstyle": "-|>", "color": color, "linewidth": 1.4, "alpha": alpha},
            zorder=4,
        )
        ax.annotate(
            "$w$",
            xy=tuple(tip),
            xytext=(4, 4),
            textcoords="offset points",
            color=color,
            alpha=alpha,
        )
    _label_axes(ax)
    if label is not None:
        _refresh_legend(ax)
    return ax


def plot_margin(
    ax: Axes,
    w: Any,
    b: Any,
    margin: float | None = None,
    *,
    label: str | None = "margin",
    color: ColorType = HYPERPLANE_COLOR,
) -> Axes:
    """Shade the margin band around w·x + b = 0 and draw its two edges.

    Without *margin* the edges are the lines w·x + b = ±1 (the SVM's canonical form:
    the band's half-width is 1/‖w‖). With a geometric *margin* the edges are at distance
    *margin* from the hyperplane, i.e. w·x + b = ±margin·‖w‖.

    Parameters
    ----------
    ax : Axes
    w : array-like of shape (2,)
    b : float
    margin : float, optional
        Geometric half-width of the band (≥ 0).
    label : str or None
        Legend label of the band edges.
    color : matplotlib colour

    Returns
    -------
    ax

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> svm = linlib.HardMarginSVM().fit(X, y)
    >>> fig, ax = linlib.new_axes()
    >>> ax = linlib.plot_points(ax, X, y)
    >>> linlib.plot_margin(ax, svm.coef_[0], svm.intercept_[0]) is ax
    True

    Introduced in 03 — the convergence proof (margins); used again in 06 — SVM margins.
    """
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Polygon

    w, b = _plane_2d(w, b)
    norm = float(np.linalg.norm(w))
    half = 1.0 / norm if margin is None else float(margin)
    if not np.isfinite(half) or half < 0:
        raise ValueError(f"margin must be a non-negative number, got {margin!r}")
    unit = w / norm
    direction = np.array([-unit[1], unit[0]])
    for sign in (1.0, -1.0):
        edge_label = label if sign > 0 else None
        level = sign * half * norm
        _draw_line(ax, w, b, level, color=color, linestyle="--", linewidth=1.0, label=edge_label)
    # The band: a long strip along the line, clipped by the axes. add_artist (not
    # add_patch) keeps it out of the autoscaling, like the infinite lines.
    centre, size = _view_center_and_size(ax)
    middle = _foot(centre, w, b)
    reach = 1e3 * max(size, 1.0, float(np.linalg.norm(middle)))
    steps = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    corners = [middle + s * reach * direction + t * half * unit for s, t in steps]
    band = Polygon(
        np.array(corners),
        closed=True,
        facecolor=to_rgba(color, 0.08),
        edgecolor="none",
        zorder=1,
    )
    band.set_transform(ax.transData)
    band.set_clip_path(ax.patch)
    ax.add_artist(band)
    _label_axes(ax)
    if label is not None:
        _refresh_legend(ax)
    return ax


def plot_decision_regions(
    ax: Axes,
    predict: Callable[[np.ndarray], Any] | Any,
    X: Any,
    y: Any,
    resolution: int = 300,
    *,
    padding: float = 0.1,
    points: bool = True,
) -> Axes:
    """Colour the plane by the class a classifier predicts, and draw the points.

    Parameters
    ----------
    ax : Axes
    predict : callable or estimator
        ``predict(points)`` for points of shape (m, 2), returning m labels (of the same
        two classes as *y*); an object with a ``predict`` method also works.
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
    resolution : int
        Grid points per axis.
    padding : float
        Extra room around the data, as a fraction of its range.
    points : bool
        Also draw the points (:func:`plot_points`).

    Returns
    -------
    ax

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.make_xor()
    >>> model = linlib.KernelPerceptron(kernel="poly").fit(X, y)
    >>> fig, ax = linlib.new_axes()
    >>> linlib.plot_decision_regions(ax, model.predict, X, y) is ax
    True

    Introduced in 05 — XOR and linear separability.
    """
    from matplotlib.colors import ListedColormap, to_rgba

    X = _points_2d(X)
    y_arr = np.asarray(y).ravel()
    _, classes = pm_labels_and_classes(y_arr, y_arr.shape[0])
    model_predict = getattr(predict, "predict", None)
    if callable(model_predict):
        predict = model_predict
    low, high = X.min(axis=0), X.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    low, high = low - padding * span, high + padding * span
    g1, g2 = np.meshgrid(
        np.linspace(low[0], high[0], resolution), np.linspace(low[1], high[1], resolution)
    )
    grid = np.column_stack([g1.ravel(), g2.ravel()])
    predicted = np.asarray(predict(grid)).ravel()
    if predicted.shape != (len(grid),):
        raise ValueError(f"predict returned shape {predicted.shape} for {len(grid)} points")
    if classes is None:  # ±1 labels: a positive prediction is the +1 class
        positive = predicted.astype(float) > 0
    else:
        positive = predicted == classes[1]
    z = np.where(positive, 1.0, -1.0).reshape(g1.shape)
    cmap = ListedColormap(
        [to_rgba(CLASS_COLORS[-1], REGION_ALPHA), to_rgba(CLASS_COLORS[1], REGION_ALPHA)]
    )
    ax.pcolormesh(
        g1, g2, z, cmap=cmap, vmin=-1, vmax=1, shading="nearest", zorder=0, rasterized=True
    )
    # The regions fill the view exactly (no white rim from autoscaling's margins).
    ax.set_xlim(low[0], high[0])
    ax.set_ylim(low[1], high[1])
    if points:
        plot_points(ax, X, y_arr)
    _label_axes(ax)
    return ax


def plot_updates(
    ax: Axes,
    X: Any,
    y: Any,
    trace: Sequence[Any],
    *,
    annotate: bool = True,
    max_lines: int | None = None,
) -> Axes:
    """Draw the points and the perceptron's hyperplane after each update.

    Older hyperplanes are lighter, the last one is solid black; each point that caused
    an update is numbered with the update(s) it caused.

    Parameters
    ----------
    ax : Axes
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,)
    trace : sequence of Step
        From :func:`linlib.perceptron_trace`: each step has ``updated``, ``index``,
        ``w`` and ``b`` (the weights after the step).
    annotate : bool
        Number the updates next to the points that caused them.
    max_lines : int, optional
        Draw only the last *max_lines* hyperplanes (long runs get cluttered).

    Returns
    -------
    ax

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> fig, ax = linlib.new_axes()
    >>> linlib.plot_updates(ax, X, y, linlib.perceptron_trace(X, y)) is ax
    True

    Introduced in 02 — the perceptron update rule.
    """
    X = _points_2d(X)
    plot_points(ax, X, y)
    # Early hyperplanes can be far from the data: keep the view on the points.
    limits = ax.get_xlim(), ax.get_ylim()
    updates = [step for step in trace if step.updated]
    drawable = [
        (number, step)
        for number, step in enumerate(updates, start=1)
        if np.any(np.asarray(step.w, dtype=float))
    ]
    if max_lines is not None:
        drawable = drawable[-max_lines:] if max_lines > 0 else []
    n = len(drawable)
    for position, (number, step) in enumerate(drawable):
        last = position == n - 1
        # Earlier hyperplanes fade from light grey (0.85) to mid grey (0.45); the last
        # one is the solid hyperplane colour, so it stands out from all of them.
        shade = 0.85 - 0.4 * position / max(n - 2, 1)
        ax_color = (shade, shade, shade)
        plot_hyperplane(
            ax,
            step.w,
            step.b,
            normal=last,
            label=f"after update {number}" if last else None,
            color=HYPERPLANE_COLOR if last else ax_color,
            linestyle="-" if last else "--",
        )
    ax.set_xlim(limits[0])
    ax.set_ylim(limits[1])
    if annotate:
        causes: dict[int, list[int]] = {}
        for number, step in enumerate(updates, start=1):
            causes.setdefault(int(step.index), []).append(number)
        for index, numbers in sorted(causes.items()):
            text = ",".join(str(k) for k in numbers)
            ax.annotate(
                text,
                xy=tuple(X[index]),
                xytext=(5, -10),
                textcoords="offset points",
                fontsize="x-small",
                color=HYPERPLANE_COLOR,
            )
    ax.legend(loc="best", fontsize="small")
    return ax


def plot_distances(
    ax: Axes,
    X: Any,
    w: Any,
    b: Any,
    *,
    annotate: bool = False,
    color: ColorType = HYPERPLANE_COLOR,
) -> Axes:
    """Draw each point's distance to the hyperplane w·x + b = 0 as a dotted segment.

    Each segment joins a point x to its foot x − (w·x + b)/‖w‖² · w, the closest point
    of the hyperplane; its length is the point's distance |w·x + b|/‖w‖.

    Parameters
    ----------
    ax : Axes
    X : array-like of shape (n_samples, 2)
    w : array-like of shape (2,)
    b : float
    annotate : bool
        Write the signed distance (w·x + b)/‖w‖ next to each segment.
    color : matplotlib colour

    Returns
    -------
    ax

    Examples
    --------
    >>> import linlib
    >>> X, y = linlib.boolean_table("and")
    >>> fig, ax = linlib.new_axes()
    >>> ax = linlib.plot_points(ax, X, y)
    >>> ax = linlib.plot_hyperplane(ax, w=[1, 1], b=-1.5)
    >>> linlib.plot_distances(ax, X, w=[1, 1], b=-1.5, annotate=True) is ax
    True

    Introduced in 01 — hyperplanes.
    """
    from matplotlib.collections import LineCollection

    X = _points_2d(X)
    w, b = _plane_2d(w, b)
    signed = (X @ w + b) / np.linalg.norm(w)
    feet = X - np.outer((X @ w + b) / (w @ w), w)
    segments = np.stack([X, feet], axis=1)
    ax.add_collection(
        LineCollection(list(segments), colors=color, linestyles=":", linewidths=1.0, zorder=2)
    )
    if annotate:
        for point, foot, distance in zip(X, feet, signed, strict=True):
            middle = (point + foot) / 2
            ax.annotate(
                f"{distance:+.2f}",
                xy=tuple(middle),
                xytext=(3, 3),
                textcoords="offset points",
                fontsize="x-small",
                color=color,
            )
    _label_axes(ax)
    return ax
