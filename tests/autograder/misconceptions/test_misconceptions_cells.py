"""autograder.misconceptions.cells: the exercise a test cell belongs to, and how the
exercise's test cells call its function."""

from __future__ import annotations

from autograder.misconceptions import call_options, exercise_of


def test_exercise_of_takes_the_longest_name():
    names = ["on_margin", "on_margin_far"]
    assert exercise_of("on_margin_far_plane", names) == "on_margin_far"
    assert exercise_of("on_margin_hidden", names) == "on_margin"
    assert exercise_of("hinge_visible", names) is None


def test_call_options_read_the_test_cells():
    tests = {
        "predict_visible": "call_student(predict, X, disable=(), use_reference=('activation',))",
        "predict_hidden": "off = ('x',)\ncall_student(predict, X, disable=off)",
        "dataset_margin_visible": (
            "call_student(dataset_margin, X, disable=('geometric_margin',), "
            "use_reference={'functional_margins': 'functional_margin'})"
        ),
    }
    options = call_options(tests, ["predict", "dataset_margin"])
    assert options["predict"] == (("x",), {"activation": "activation"})
    assert options["dataset_margin"] == (
        ("geometric_margin",),
        {"functional_margins": "functional_margin"},
    )
