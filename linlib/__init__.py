"""linlib: the helper library of the course on linear classifiers.

Every public name is importable from the package itself, e.g. ``linlib.Perceptron`` or
``from linlib import signed_distance``. Each function's docstring ends with the notebook
that introduces it.
"""

from linlib import grading, plotting, widgets
from linlib._validation import check_binary_X_y, check_X
from linlib.data import boolean_table, make_separable, make_xor, toy_corpus, toy_counts
from linlib.geometry import (
    activation,
    anchor_basis_to_hyperplane,
    augment,
    functional_margin,
    geometric_margin,
    hyperplane_to_anchor_basis,
    is_linearly_separable,
    novikoff_bound,
    signed_distance,
)
from linlib.naive_bayes import MultinomialNB
from linlib.perceptron import (
    BatchPerceptron,
    Perceptron,
    PerceptronCycle,
    Step,
    VotedPerceptron,
    perceptron_cycle,
    perceptron_epoch,
    perceptron_trace,
    perceptron_update,
)
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
from linlib.svm import (
    HardMarginSVM,
    SoftMarginSVM,
    canonical_form,
    hinge_slacks,
    on_margin,
    two_point_svm,
)
from linlib.text import bag_of_words, load_messages, train_test_split_messages

__all__ = [
    "CLASS_COLORS",
    "CLASS_MARKERS",
    "BatchPerceptron",
    "HardMarginSVM",
    "MultinomialNB",
    "Perceptron",
    "PerceptronCycle",
    "SoftMarginSVM",
    "Step",
    "VotedPerceptron",
    "activation",
    "anchor_basis_to_hyperplane",
    "augment",
    "bag_of_words",
    "boolean_table",
    "canonical_form",
    "check_X",
    "check_binary_X_y",
    "functional_margin",
    "geometric_margin",
    "grading",
    "hinge_slacks",
    "hyperplane_to_anchor_basis",
    "is_linearly_separable",
    "load_messages",
    "make_separable",
    "make_xor",
    "new_axes",
    "novikoff_bound",
    "on_margin",
    "perceptron_cycle",
    "perceptron_epoch",
    "perceptron_trace",
    "perceptron_update",
    "plot_decision_regions",
    "plot_distances",
    "plot_hyperplane",
    "plot_margin",
    "plot_points",
    "plot_updates",
    "plotting",
    "signed_distance",
    "toy_corpus",
    "toy_counts",
    "train_test_split_messages",
    "two_point_svm",
    "widgets",
]
