# --- plotting, grading helpers and the text corpus (helper B) ---
from linlib import grading, plotting  # noqa: F401
from linlib.plotting import (  # noqa: F401
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
from linlib.text import bag_of_words, load_messages, train_test_split_messages  # noqa: F401
