"""The trusted re-check mirrors in-place changes a student function makes to its arguments."""

import numpy as np

from autograder.recheck.trusted import _mirror


def test_list_holding_arrays_is_mirrored_without_ambiguous_truth_value():
    """A list of arrays (e.g. perceptron states) compares element-wise, never with ``==``."""
    old = [np.array([1.0, 2.0]), np.array([3.0])]
    _mirror(old, [np.array([1.0, 2.0]), np.array([4.0])])
    assert len(old) == 2
    assert np.array_equal(old[1], [4.0])


def test_unchanged_list_of_arrays_keeps_its_elements():
    """Nothing changed in the kernel: the trusted side's objects stay the very same objects."""
    first = np.array([1.0, np.nan])
    old = [first, {"w": np.zeros(2)}]
    _mirror(old, [np.array([1.0, np.nan]), {"w": np.zeros(2)}])
    assert old[0] is first


def test_dict_of_arrays_is_mirrored():
    """A dict argument changed in place by the student is changed on the trusted side too."""
    old = {"w": np.zeros(2), "b": 0.0}
    _mirror(old, {"w": np.ones(2), "b": 1.0})
    assert old["b"] == 1.0
    assert np.array_equal(old["w"], [1.0, 1.0])
