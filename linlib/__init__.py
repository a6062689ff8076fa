"""linlib: the helper library of the course on linear classifiers.

Every public name is importable from the package itself, e.g. ``linlib.Perceptron`` or
``from linlib import signed_distance``. Each function's docstring ends with the notebook
that introduces it.
"""

from linlib import grading, plotting, widgets
from linlib._validation import check_binary_X_y, check_X
from linlib.data import boolean_table, make_separable, make_xor, toy_corpus, toy_counts
from linlib.dual import dual_objective, weights_from_dual
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
from linlib.kernels import (
    KernelPerceptron,
    kernel_perceptron,
    linear_kernel,
    polynomial_kernel,
    quadratic_feature_map,
    rbf_kernel,
)
from linlib.losses import (
    PegasosSVM,
    hinge_loss,
    logistic_loss,
    pegasos_step,
    perceptron_loss,
    perceptron_loss_grad,
    soft_margin_objective,
    zero_one_loss,
)
from linlib.multiclass import MulticlassPerceptron, one_vs_rest_predict
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
    "KernelPerceptron",
    "MulticlassPerceptron",
    "MultinomialNB",
    "PegasosSVM",
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
    "dual_objective",
    "functional_margin",
    "geometric_margin",
    "grading",
    "hinge_loss",
    "hinge_slacks",
    "hyperplane_to_anchor_basis",
    "is_linearly_separable",
    "kernel_perceptron",
    "linear_kernel",
    "load_messages",
    "logistic_loss",
    "make_separable",
    "make_xor",
    "new_axes",
    "novikoff_bound",
    "on_margin",
    "one_vs_rest_predict",
    "pegasos_step",
    "perceptron_cycle",
    "perceptron_epoch",
    "perceptron_loss",
    "perceptron_loss_grad",
    "perceptron_trace",
    "perceptron_update",
    "plot_decision_regions",
    "plot_distances",
    "plot_hyperplane",
    "plot_margin",
    "plot_points",
    "plot_updates",
    "plotting",
    "polynomial_kernel",
    "quadratic_feature_map",
    "rbf_kernel",
    "signed_distance",
    "soft_margin_objective",
    "toy_corpus",
    "toy_counts",
    "train_test_split_messages",
    "two_point_svm",
    "weights_from_dual",
    "widgets",
    "zero_one_loss",
]
