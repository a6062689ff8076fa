"""Tests of linlib.grading: the checks and the call wrapper every notebook test cell uses."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import linlib
from linlib.grading import (
    ReferenceDisabledError,
    assert_close,
    assert_labels_equal,
    assert_raises,
    assert_true,
    call_student,
    disabled_references,
)

# ---------------------------------------------------------------------------------------
# assert_close
# ---------------------------------------------------------------------------------------


def failure(fn, *args, **kwargs) -> str:
    """The message of the AssertionError that fn(*args, **kwargs) must raise."""
    with pytest.raises(AssertionError) as info:
        fn(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (1, 1.0),
        (np.int64(3), 3),
        ([1, 2, 3], np.array([1.0, 2.0, 3.0])),
        ((1.0, 2.0), [1.0, 2.0 + 1e-12]),
        (np.array([[1, 2], [3, 4]]), [[1.0, 2.0], [3.0, 4.0]]),
        ([np.nan, 1.0], [np.nan, 1.0]),
        ([np.inf, -np.inf], [np.inf, -np.inf]),
        (True, 1),
        ([], np.zeros(0)),
    ],
)
def test_assert_close_accepts_equal_values(actual, expected):
    assert_close(actual, expected)


def test_assert_close_checks_shape_before_values():
    message = failure(assert_close, np.zeros((3, 1)), [0, 0, 0], name="w")
    assert "expected shape (3,), got shape (3, 1)" in message
    assert message.startswith("w:")
    # a scalar is not a one-element array
    assert "expected shape (1,), got shape ()" in failure(assert_close, 2.0, [2.0])


def test_assert_close_reports_worst_index_and_both_values():
    message = failure(assert_close, [1.0, 2.5, 3.1, 4.0], [1.0, 2.0, 3.0, 4.0], name="d")
    assert "index (1,)" in message  # |2.5 - 2| is the largest difference
    assert "expected 2.0, got 2.5" in message
    assert "2 of 4 entries differ" in message


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (1.0, np.inf),
        (np.inf, -np.inf),
        (1e308, np.inf),
        (np.nan, 1.0),
        (1.0, np.nan),
        (np.inf, 1.0),
        ([1.0, np.nan], [1.0, 2.0]),
    ],
)
def test_assert_close_nan_and_inf_match_only_themselves(actual, expected):
    failure(assert_close, actual, expected)


def test_assert_close_explains_none_and_non_numbers():
    assert "return" in failure(assert_close, None, 1.0)
    assert "expected numbers" in failure(assert_close, "1.0", 1.0)
    assert "rectangular" in failure(assert_close, [[1, 2], [3]], [[1, 2], [3, 4]])


def test_assert_close_writes_nothing_and_warns_nothing(capfd):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close([np.inf, np.nan, 0.0], [np.inf, np.nan, 0.0])
        failure(assert_close, [np.inf, 0.0], [-np.inf, np.nan])
    assert capfd.readouterr() == ("", "")


finite_or_special = st.one_of(
    st.floats(min_value=-1e6, max_value=1e6),
    st.sampled_from([np.nan, np.inf, -np.inf, 0.0]),
)


@given(
    hnp.arrays(np.float64, st.integers(1, 5), elements=finite_or_special),
    st.data(),
)
@pytest.mark.slow
def test_assert_close_agrees_with_numpy_allclose(expected, data):
    """np.allclose(equal_nan=True) is an independent statement of the same rule."""
    noise = data.draw(hnp.arrays(np.float64, expected.shape, elements=finite_or_special))
    scale = data.draw(st.sampled_from([0.0, 1e-12, 1e-8, 1e-6, 1.0]))
    with np.errstate(all="ignore"):
        actual = np.where(np.isfinite(noise), expected + scale * noise, noise)
    want = bool(np.allclose(actual, expected, rtol=1e-7, atol=1e-9, equal_nan=True))
    try:
        assert_close(actual, expected, rtol=1e-7, atol=1e-9)
        passed = True
    except AssertionError:
        passed = False
    assert passed == want


# ---------------------------------------------------------------------------------------
# assert_labels_equal, assert_true, assert_raises
# ---------------------------------------------------------------------------------------


def test_assert_labels_equal():
    assert_labels_equal([1, -1, 1], np.array([1.0, -1.0, 1.0]))
    assert_labels_equal(np.array(["ham", "spam"]), ["ham", "spam"])
    message = failure(assert_labels_equal, ["a", "b", "c"], ["a", "c", "c"], name="predict")
    assert message.startswith("predict: 1 of 3 labels differ")
    assert "at 1: expected 'c', got 'b'" in message
    assert "shape" in failure(assert_labels_equal, [1, 1], [1, 1, 1])
    assert "6 more" in failure(assert_labels_equal, [1] * 11, [-1] * 11)
    failure(assert_labels_equal, ["1", "-1"], [1, -1])  # strings are not numbers


def test_assert_true_is_not_an_assert_statement():
    assert_true(np.bool_(True), "never shown")
    assert failure(assert_true, 0, "w must be a unit vector") == "w must be a unit vector"


def test_assert_raises():
    def check_positive(x):
        if x <= 0:
            raise ValueError("x must be positive")
        return x

    error = assert_raises(ValueError, check_positive, -1)
    assert str(error) == "x must be positive"
    assert "returned normally" in failure(assert_raises, ValueError, check_positive, 1)
    message = failure(assert_raises, TypeError, check_positive, 0)
    assert "should raise TypeError" in message
    assert "ValueError: x must be positive" in message
    assert_raises((TypeError, ValueError), check_positive, 0)


# ---------------------------------------------------------------------------------------
# call_student and disabled_references
# ---------------------------------------------------------------------------------------

# Reference and student functions for these tests live in this module; a reference
# needs a home module to be found by a dotted name, so the tests register this module.
THIS = __name__


def reference_distance(X, w, b):
    """A stand-in for a linlib reference: signed distances."""
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    return (X @ w + b) / np.linalg.norm(w)


def student_copying(X, w, b):
    return reference_distance(X, w, b)


def student_own(X, w, b):
    X = np.asarray(X, dtype=float)
    w = np.asarray(w, dtype=float)
    return (X @ w + b) / np.sqrt(w @ w)


alias = reference_distance  # an alias taken before the test disables the reference


def student_alias(X, w, b):
    return alias(X, w, b)


X_SMALL = [[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]]
W_SMALL = [3.0, 4.0]


@pytest.fixture
def ref_in_linlib(monkeypatch):
    """Expose reference_distance as a public linlib name, like linlib.signed_distance."""
    monkeypatch.setattr(linlib, "reference_distance", reference_distance, raising=False)
    return "reference_distance"


def test_independent_solution_passes_copied_one_fails(ref_in_linlib):
    expected = np.array([24.0, -1.0, -2.0]) / 5
    got = call_student(student_own, X_SMALL, W_SMALL, -1.0, disable=(ref_in_linlib,))
    assert_close(got, expected)
    with pytest.raises(ReferenceDisabledError, match="disabled in this test: write it yourself"):
        call_student(student_copying, X_SMALL, W_SMALL, -1.0, disable=(ref_in_linlib,))
    # and the reference works again afterwards
    np.testing.assert_allclose(reference_distance(X_SMALL, W_SMALL, -1.0), expected)


def test_aliases_taken_earlier_fail_too(ref_in_linlib):
    with pytest.raises(ReferenceDisabledError):
        call_student(student_alias, X_SMALL, W_SMALL, 0.0, disable=[ref_in_linlib])
    with pytest.raises(ReferenceDisabledError):
        call_student(student_alias, X_SMALL, W_SMALL, 0.0, disable=[f"{THIS}.reference_distance"])


def test_reference_disabled_error_is_an_assertion_error():
    # nbgrader shows a failed assertion with its message; that is how the student learns
    # why the test failed.
    assert issubclass(ReferenceDisabledError, AssertionError)


def test_restored_after_exception_and_keyboard_interrupt(ref_in_linlib):
    original_code = reference_distance.__code__

    def student_crashes(X, w, b):
        raise ZeroDivisionError("student bug")

    def student_interrupted(X, w, b):
        raise KeyboardInterrupt

    with pytest.raises(ZeroDivisionError, match="student bug"):
        call_student(student_crashes, X_SMALL, W_SMALL, 0.0, disable=(ref_in_linlib,))
    assert reference_distance.__code__ is original_code
    with pytest.raises(KeyboardInterrupt):
        call_student(student_interrupted, X_SMALL, W_SMALL, 0.0, disable=(ref_in_linlib,))
    assert reference_distance.__code__ is original_code
    assert reference_distance([[1.0, 0.0]], [1.0, 0.0], 0.0)[0] == 1.0


def test_nested_disabling_of_the_same_name_restores_the_original(ref_in_linlib):
    original_code = reference_distance.__code__
    with disabled_references([ref_in_linlib]):
        with disabled_references([ref_in_linlib, f"{THIS}.reference_distance"]):
            with pytest.raises(ReferenceDisabledError):
                reference_distance(X_SMALL, W_SMALL, 0.0)
        with pytest.raises(ReferenceDisabledError):
            reference_distance(X_SMALL, W_SMALL, 0.0)
    assert reference_distance.__code__ is original_code


def test_unknown_names_are_rejected_and_nothing_stays_disabled(ref_in_linlib):
    original_code = reference_distance.__code__
    with pytest.raises(ValueError, match="no_such_function"):
        call_student(
            student_own, X_SMALL, W_SMALL, 0.0, disable=(ref_in_linlib, "no_such_function")
        )
    assert reference_distance.__code__ is original_code
    for name in ("numpy.no_such_thing", "no_such_module_xyz.f", ""):
        with pytest.raises(ValueError), disabled_references([name]):
            pass


def make_closure(offset):
    def shifted(x):
        return x + offset

    return shifted


shifted_by_one = make_closure(1)


def decorated_impl(x):
    return 2 * x


@functools.wraps(decorated_impl)
def decorated(x):
    return decorated_impl(x)


def test_closures_and_wrapped_functions_can_be_disabled():
    with disabled_references([f"{THIS}.shifted_by_one", f"{THIS}.decorated"]):
        with pytest.raises(ReferenceDisabledError):
            shifted_by_one(1)
        with pytest.raises(ReferenceDisabledError):
            decorated(1)
        with pytest.raises(ReferenceDisabledError):  # functools.wraps's __wrapped__
            decorated.__wrapped__(1)
    assert shifted_by_one(1) == 2
    assert decorated(2) == 4


def fancy(a, /, b, c=1, *args, d, e=2, **kwargs):
    return (a, b, c, args, d, e, kwargs)


def keyword_only(x, *, scale=1.0):
    return x * scale


def test_disabled_functions_keep_their_signatures():
    """Library code inspects signatures (scikit-learn's get_params reads __init__'s)."""
    import inspect

    names = [f"{THIS}.fancy", f"{THIS}.keyword_only"]
    before = [inspect.signature(fancy), inspect.signature(keyword_only)]
    with disabled_references(names):
        assert [inspect.signature(fancy), inspect.signature(keyword_only)] == before
        with pytest.raises(ReferenceDisabledError):
            fancy(1, 2, d=3)
        with pytest.raises(ReferenceDisabledError):
            keyword_only(1.0)
    assert fancy(1, 2, 3, 4, d=5, f=6) == (1, 2, 3, (4,), 5, 2, {"f": 6})
    assert keyword_only(2.0, scale=3.0) == 6.0


def test_scikit_learn_class_is_disabled_also_for_instances_made_before():
    from sklearn.naive_bayes import MultinomialNB

    X = np.array([[2, 0], [0, 3], [1, 1]])
    y = np.array([0, 1, 1])
    made_before = MultinomialNB()

    def student_uses_sklearn(X, y):
        return MultinomialNB().fit(X, y).predict(X)

    def student_uses_old_instance(X, y):
        return made_before.fit(X, y).predict(X)

    name = "sklearn.naive_bayes.MultinomialNB"
    for student in (student_uses_sklearn, student_uses_old_instance):
        with pytest.raises(ReferenceDisabledError, match="MultinomialNB"):
            call_student(student, X, y, disable=[name])
    assert list(student_uses_sklearn(X, y)) == [0, 1, 1]
    assert list(student_uses_old_instance(X, y)) == [0, 1, 1]
    # a sibling class sharing the base classes keeps working while MultinomialNB is off
    from sklearn.naive_bayes import BernoulliNB

    with disabled_references([name]):
        assert list(BernoulliNB().fit(X, y).predict(X)) == [0, 1, 1]


def test_one_method_can_be_disabled():
    from sklearn.linear_model import Perceptron

    X, y = [[0.0], [1.0]], [0, 1]
    with disabled_references(["sklearn.linear_model.Perceptron.fit"]):
        clf = Perceptron()  # constructing is fine
        with pytest.raises(ReferenceDisabledError):
            clf.fit(X, y)
    assert Perceptron(tol=None, max_iter=5).fit(X, y).score(X, y) == 1.0


def test_numpy_dispatcher_is_disabled_through_aliases():
    from numpy.linalg import norm as norm_alias

    with pytest.raises(ReferenceDisabledError):
        call_student(norm_alias, [3.0, 4.0], disable=["numpy.linalg.norm"])
    assert norm_alias([3.0, 4.0]) == 5.0


def test_builtin_without_code_is_replaced_where_it_lives():
    import math

    with disabled_references(["math.hypot"]):
        with pytest.raises(ReferenceDisabledError):
            math.hypot(3.0, 4.0)
    assert math.hypot(3.0, 4.0) == 5.0


def test_student_warnings_and_stderr_are_silenced(capfd):
    def noisy_student(x):
        warnings.warn("deprecated thing", DeprecationWarning, stacklevel=1)
        warnings.warn("runtime thing", RuntimeWarning, stacklevel=1)
        print("to stderr", file=sys.stderr)
        sys.stderr.flush()
        os.write(2, b"straight to file descriptor 2\n")
        with np.errstate(divide="warn"):
            np.log(np.zeros(1))
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # like pytest -W error: any warning would raise
        assert call_student(noisy_student, 1) == 2
    assert capfd.readouterr().err == ""
    # stderr works normally afterwards
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_student_stdout_is_left_alone(capfd):
    def chatty(x):
        print("the student's own print")
        return x

    assert call_student(chatty, 3) == 3
    assert capfd.readouterr().out == "the student's own print\n"


def test_student_exception_propagates_unchanged():
    def broken(x):
        raise IndexError("index 5 is out of bounds")

    with pytest.raises(IndexError, match="index 5"):
        call_student(broken, 1)


def test_not_callable_is_explained():
    assert "expected a function" in failure(call_student, None, 1)


class RemoteProxy:
    """Stands in for the autograder's proxy: records how it is called."""

    def __init__(self):
        self.calls = []

    def __grading_call__(self, args, kwargs, disable):
        self.calls.append((args, kwargs, disable))
        return "remote result"


class LocalCheckingProxy(RemoteProxy):
    """A proxy that also tries the local reference while it is being called."""

    def __grading_call__(self, args, kwargs, disable):
        self.local_result = reference_distance([[1.0, 0.0]], [1.0, 0.0], 0.0)
        return super().__grading_call__(args, kwargs, disable)


def test_call_student_delegates_to_a_remote_proxy(ref_in_linlib):
    proxy = LocalCheckingProxy()
    result = call_student(proxy, [1, 2], 3.0, disable=[ref_in_linlib], b=0.5)
    assert result == "remote result"
    assert proxy.calls == [(([1, 2], 3.0), {"b": 0.5}, ("reference_distance",))]
    # The disabling is the remote side's job: nothing is disabled in this process.
    np.testing.assert_array_equal(proxy.local_result, [1.0])
    # A plain string is one name, not a sequence of letters.
    call_student(proxy, disable=ref_in_linlib)
    assert proxy.calls[-1][2] == ("reference_distance",)


def test_a_student_cannot_switch_on_delegation_with_an_attribute(ref_in_linlib):
    def cheat(X, w, b):
        return reference_distance(X, w, b)

    cheat.__grading_call__ = lambda args, kwargs, disable: reference_distance(*args)
    with pytest.raises(ReferenceDisabledError):
        call_student(cheat, X_SMALL, W_SMALL, 0.0, disable=[ref_in_linlib])


def test_assert_raises_goes_through_call_student(ref_in_linlib):
    def student_validates_by_calling_reference(X, w, b):
        return reference_distance(X, w, b)

    # A disabled reference is reported as such, not as "raised the wrong exception".
    with pytest.raises(ReferenceDisabledError):
        assert_raises(
            ValueError,
            student_validates_by_calling_reference,
            X_SMALL,
            [0.0, 0.0],
            0.0,
            disable=[ref_in_linlib],
        )


# ---------------------------------------------------------------------------------------
# The real linlib references (helper A's modules)
# ---------------------------------------------------------------------------------------


def test_linlib_signed_distance_is_disabled_by_public_and_dotted_name():
    from linlib.geometry import signed_distance as taken_early

    def cheat(X, w, b):
        return taken_early(X, w, b)

    X, w, b = np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([0.6, 0.8]), 0.5
    expected = X @ w + b  # w is a unit vector
    for name in ("signed_distance", "linlib.geometry.signed_distance"):
        with pytest.raises(ReferenceDisabledError, match="signed_distance"):
            call_student(cheat, X, w, b, disable=(name,))
    assert_close(call_student(student_own, X, w, b, disable=("signed_distance",)), expected)
    assert_close(taken_early(X, w, b), expected)


def test_linlib_perceptron_class_is_disabled():
    from sklearn.linear_model import Perceptron as SkPerceptron

    X = np.array([[1.0, 1.0], [-1.0, -1.0], [2.0, 0.5]])
    y = np.array([1, -1, 1])

    def cheat(X, y):
        return linlib.Perceptron().fit(X, y).predict(X)

    with pytest.raises(ReferenceDisabledError, match="Perceptron"):
        call_student(cheat, X, y, disable=("Perceptron",))
    expected = SkPerceptron(shuffle=False, tol=None, max_iter=10).fit(X, y).predict(X)
    assert_labels_equal(cheat(X, y), expected)


def test_linlib_class_is_disabled_also_for_fitted_instances_and_not_its_siblings():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 3.0]])
    y = np.array([-1, 1, 1])
    fitted = linlib.HardMarginSVM().fit(X, y)  # made before the test disables the class
    sibling = linlib.SoftMarginSVM(C=100.0).fit(X, y)  # shares the private base classes

    def student_uses_fitted_model(X):
        return fitted.predict(X)

    def student_uses_decision_function(X):
        return fitted.decision_function(X)

    for student in (student_uses_fitted_model, student_uses_decision_function):
        with pytest.raises(ReferenceDisabledError, match="HardMarginSVM"):
            call_student(student, X, disable=("HardMarginSVM",))
    with disabled_references(["HardMarginSVM"]):
        assert_labels_equal(sibling.predict(X), y)
    # Everything is back afterwards, with the hyperplane x1 + (2/3)x2 = 1 (a closed form:
    # (2, 0) and (0, 3) on the margin, the origin on the other side).
    assert_labels_equal(student_uses_fitted_model(X), y)
    assert_close(student_uses_decision_function(X), [-1.0, 1.0, 1.0], atol=1e-8)
    assert "predict" not in vars(linlib.HardMarginSVM)


# ---------------------------------------------------------------------------------------
# A student build's recorded answers (issue 41)
# ---------------------------------------------------------------------------------------

UPDATE = "linlib.perceptron.perceptron_update"
EPOCH_SOURCE = """
import numpy as np

def perceptron_update(w, b, x, y):  # the student's, wrong: never updates
    return np.asarray(w, dtype=float), b, False

def perceptron_epoch(X, y, w, b):  # the student's, right
    n_updates = 0
    for x, label in zip(X, y):
        w, b, updated = perceptron_update(w, b, x, label)
        n_updates += int(updated)
    return w, b, n_updates
"""
TOY_X = [[2, 1], [5, 2], [3, 5], [3, 2], [1, 3], [2, 4]]
TOY_Y = [1, 1, -1, 1, -1, -1]


def _student_namespace() -> dict:
    namespace: dict = {}
    exec(EPOCH_SOURCE, namespace)
    return namespace


def _epoch(namespace: dict, X=TOY_X, y=TOY_Y, w=(0.0, 0.0), b=0.0):
    """The student's epoch called as its tests call it: the library's update in place."""
    return call_student(
        namespace["perceptron_epoch"], X, y, list(w), b, use_reference=["perceptron_update"]
    )


@pytest.fixture
def student_build(monkeypatch):
    """This process's linlib made a student build of notebook 02 whose recorded answers
    are those the full library's update gives the epoch of Bast's toy run from w = 0
    (recorded with the instructor's epoch, as the release records them)."""
    from linlib import _build, grading

    def instructors_epoch(X, y, w, b):
        X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
        n_updates = 0
        for x, label in zip(X, y, strict=True):
            w, b, updated = perceptron_update(w, b, x, label)  # noqa: F821 (put in place)
            n_updates += int(updated)
        return w, b, n_updates

    namespace = {"np": np}
    exec(compile("def perceptron_update(w, b, x, y): pass", "<stub>", "exec"), namespace)
    instructors_epoch = type(instructors_epoch)(instructors_epoch.__code__, namespace)
    with grading.recording_references([UPDATE]) as calls:
        call_student(
            instructors_epoch, TOY_X, TOY_Y, [0.0, 0.0], 0.0, use_reference=["perceptron_update"]
        )
    assert len(calls[UPDATE]) == 6  # one per example: the epoch's six steps
    monkeypatch.setattr(_build, "STUBS", frozenset({UPDATE}))
    monkeypatch.setattr(_build, "REPLAYS", json.dumps(calls))
    grading._replays.cache_clear()
    yield calls
    grading._replays.cache_clear()


def test_a_student_build_answers_the_recorded_calls_with_the_library(student_build):
    """A right epoch over a wrong update: the recorded answers stand in for the update, so
    the epoch gets the library's first epoch of the toy run (w = (2, -2), b = 1, 3
    updates), computed by hand in notebook 02, whatever the student's update does."""
    namespace = _student_namespace()
    w, b, n_updates = _epoch(namespace)
    assert_close(w, [2.0, -2.0])
    assert (b, n_updates) == (1.0, 3)
    # integer lists, numpy integers, arrays: the same calls
    w, b, n_updates = call_student(
        namespace["perceptron_epoch"],
        np.array(TOY_X),
        np.array(TOY_Y),
        np.zeros(2, dtype=int),
        0,
        use_reference=["perceptron_update"],
    )
    assert_close(w, [2.0, -2.0])
    assert (b, n_updates) == (1.0, 3)
    # outside the call the student's own function is back
    assert namespace["perceptron_update"]([0.0, 0.0], 0.0, [1.0, 1.0], 1)[2] is False


def test_a_student_build_sends_other_calls_to_the_students_own_function(student_build):
    """Another start than the recorded one: the student's own (wrong) update answers, as
    it did before answers were recorded; a wrong epoch is not rescued."""
    namespace = _student_namespace()
    w, b, n_updates = _epoch(namespace, w=(1.0, 0.0), b=0.0)
    assert (list(w), b, n_updates) == ([1.0, 0.0], 0.0, 0)
    exec(
        "def perceptron_epoch(X, y, w, b):  # wrong: w is not carried\n"
        "    for x, label in zip(X, y):\n"
        "        new_w, new_b, _ = perceptron_update(w, b, x, label)\n"
        "    return new_w, new_b, 0\n",
        namespace,
    )
    w, b, _ = _epoch(namespace)
    assert list(w) == [0.0, 0.0]  # its last call, (0, 0, x6, -1), was not recorded
    del namespace["perceptron_update"]
    with pytest.raises(NameError, match="perceptron_update"):
        _epoch(namespace)


def test_recorded_answers_are_new_objects_each_time(student_build):
    namespace = _student_namespace()
    first = _epoch(namespace)
    first[0][:] = 99.0  # a caller that changes what it got
    second = _epoch(namespace)
    assert_close(second[0], [2.0, -2.0])


def test_recording_records_only_the_named_references_and_plain_data():
    """Only the labels asked for; the arguments as they were when the call was made; a call
    with a function among its arguments is not recorded (it cannot be answered later)."""
    from linlib.grading import recording_references

    namespace: dict = {}
    exec(
        "import numpy as np\n"
        "def caller(x):\n"
        "    w = np.zeros(2)\n"
        "    result = perceptron_update(w, 0.0, x, 1)\n"
        "    w[:] = 5.0  # changed after the call: the record keeps the zeros\n"
        "    return result, functional_margin([x], [1], [1.0, 1.0], 0.0)\n",
        namespace,
    )
    with recording_references([UPDATE]) as calls:
        call_student(
            namespace["caller"],
            [1.0, 2.0],
            use_reference=["perceptron_update", "functional_margin"],
        )
    assert list(calls) == [UPDATE]
    ((arguments, result),) = calls[UPDATE]
    from linlib.grader_kernel_wire import decode

    assert_close(decode(arguments)["w"], [0.0, 0.0])
    assert_close(decode(result)[0], [1.0, 2.0])
    with recording_references(["linlib.kernels.kernel_perceptron"]) as calls:
        exec(
            "def caller():\n    return kernel_perceptron([[1.0]], [1], linear_kernel)\n", namespace
        )
        namespace["linear_kernel"] = linlib.linear_kernel
        call_student(namespace["caller"], use_reference=["kernel_perceptron"])
    assert calls == {}
    with (
        pytest.raises(RuntimeError),
        recording_references([UPDATE]),
        recording_references([UPDATE]),
    ):
        pass


def test_the_full_library_puts_the_reference_in_place_not_a_record():
    """In the grader's linlib (no stubs) a reference is the library's own function, also
    while a recording runs for another label."""
    from linlib.grading import recording_references

    namespace = _student_namespace()
    with recording_references(["linlib.geometry.augment"]):
        w, b, n_updates = _epoch(namespace, w=(1.0, 0.0), b=0.0)
    expected = linlib.perceptron_epoch(TOY_X, TOY_Y, [1.0, 0.0], 0.0)  # the library's run
    assert_close(w, expected[0])
    assert (b, n_updates) == expected[1:]
    assert n_updates > 0  # the student's update never updates: the library's ran


# ---------------------------------------------------------------------------------------
# Tracebacks a student reads: without linlib's frames (issue 41)
# ---------------------------------------------------------------------------------------


def _rendered(error: BaseException) -> str:
    return "".join(error._render_traceback_())


def test_a_failed_check_is_shown_without_the_librarys_frames():
    """Outside IPython, Python's format of the same frames: the test's own frame and the
    message, not assert_close's."""

    def test_in_a_cell():
        assert_close([1.0, 2.0], [1.0, 3.0], name="w")

    with pytest.raises(AssertionError) as info:
        test_in_a_cell()
    text = _rendered(info.value)
    assert "test_in_a_cell" in text and "linlib/grading.py" not in text
    assert text.rstrip().endswith(str(info.value))


def test_a_students_error_is_shown_with_the_students_frames_not_call_students():
    def students_function(x):
        return [1, 2][x]

    with pytest.raises(IndexError) as info:
        call_student(students_function, 5)
    text = _rendered(info.value)
    assert "students_function" in text and "return [1, 2][x]" in text
    assert "linlib/grading.py" not in text
    with pytest.raises(ReferenceDisabledError) as info:
        call_student(lambda X: linlib.augment(X), [[1.0]], disable=("augment",))
    text = _rendered(info.value)
    assert "<disabled reference>" not in text and "linlib/grading.py" not in text
    assert "linlib.augment is disabled in this test" in text


@pytest.mark.slow
def test_a_notebook_shows_a_failed_check_without_the_librarys_frames(tmp_path):
    """In a kernel (IPython asks the exception for its traceback): the error output of a
    failing test cell holds the test's lines and the message, no frame of linlib."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "from linlib.grading import assert_close, call_student\n"
            "def f(x):\n    return [2.0 * v for v in x]\n"
        ),
        nbformat.v4.new_code_cell(
            "def test():\n"
            "    got = call_student(f, [1.0, 2.0])\n"
            "    assert_close(got, [2.0, 5.0], name='f(x)')\n"
            "test()"
        ),
        nbformat.v4.new_code_cell("call_student(lambda x: [1][x], 3)"),
    ]
    NotebookClient(nb, allow_errors=True, kernel_name="python3", timeout=120).execute()
    ansi = re.compile(r"\x1b\[[0-9;]*m")
    errors = [o for c in nb.cells for o in c.outputs if o.output_type == "error"]
    assert [e.ename for e in errors] == ["AssertionError", "IndexError"]
    for error in errors:
        text = ansi.sub("", "\n".join(error.traceback))
        assert "linlib" not in text and "linlib/grading.py" not in text, text
        assert "Cell In[" in text and "hidden" not in text, text
    first = ansi.sub("", "\n".join(errors[0].traceback))
    assert "assert_close(got, [2.0, 5.0], name='f(x)')" in first
    assert first.rstrip().endswith("Expected [2. 5.], got [2. 4.].")
