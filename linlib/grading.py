"""Helpers for the notebooks' autograded test cells.

nbgrader gives a test cell zero points when it raises *or* when it writes anything to
stderr, so every helper here fails with a plain ``AssertionError`` whose message says what
was expected and what came, and nothing here ever prints or warns.

Test cells call a student's function through :func:`call_student`, which runs it with the
library's reference implementations made unusable (so a student cannot hand in
``linlib.signed_distance`` as their own) and with warnings and stderr silenced. The same
test cell can be re-run by the autograder in a trusted process, where the student's
function is a remote proxy; :func:`call_student` hands such a proxy its arguments and lets
it do the disabling inside the student's sandboxed kernel with
:func:`disabled_references`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import io
import json
import os
import sys
import types
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from linlib import _build
from linlib.grader_kernel_wire import NotPlainData, decode, encode

__all__ = [
    "ReferenceDisabledError",
    "assert_close",
    "assert_labels_equal",
    "assert_raises",
    "assert_true",
    "call_student",
    "disabled_references",
    "recording_references",
    "references_in_place_of",
]


class ReferenceDisabledError(AssertionError):
    """Raised when a student's code calls a reference that a test cell disabled.

    It is an ``AssertionError`` so that nbgrader reports it as a failed test with its
    message, like any other failed check.

    Examples
    --------
    >>> import linlib
    >>> from linlib.grading import disabled_references
    >>> with disabled_references(["augment"]):
    ...     linlib.augment([[1, 2]])
    ...
    Traceback (most recent call last):
        ...
    linlib.grading.ReferenceDisabledError: linlib.augment is disabled in this test: write it
    yourself.

    Introduced in 01 — hyperplanes (the first test cells that disable a reference).
    """


# ---------------------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------------------


def _short(value: Any, limit: int = 300) -> str:
    """``repr`` of *value*, shortened so one failure stays one readable paragraph."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=6, threshold=20, edgeitems=3)
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Where this library's code runs from: frames there are left out of the tracebacks a
#: student sees (with the raisers of disabled references, compiled from a string).
_LIBRARY_DIR = os.path.dirname(os.path.abspath(__file__))
_RAISER_FILE = "<disabled reference>"


def _library_frame(filename: str) -> bool:
    if filename == _RAISER_FILE:
        return True
    return os.path.dirname(os.path.abspath(filename)) == _LIBRARY_DIR


def _student_traceback(error: BaseException) -> list[str]:
    """IPython's traceback of *error* as a student should read it: the test's lines and the
    student's own code, without the frames of linlib's files (``call_student``, the checks)
    between and after them, which explain nothing to a student. Outside IPython, Python's
    own format of the same frames."""
    kept = []
    tb = error.__traceback__
    while tb is not None:
        if not _library_frame(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    trimmed = None
    for entry in reversed(kept):
        trimmed = types.TracebackType(trimmed, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    shell = None
    if "IPython" in sys.modules:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        import traceback

        return traceback.format_exception(type(error), error, trimmed)
    return shell.InteractiveTB.structured_traceback(type(error), error, trimmed)


def _for_students(error: BaseException) -> BaseException:
    """*error*, shown by IPython (a notebook, nbgrader's Validate) without linlib's frames:
    IPython asks an exception's ``_render_traceback_`` for its traceback's lines."""
    with contextlib.suppress(AttributeError, TypeError):  # an exception without __dict__
        error._render_traceback_ = functools.partial(_student_traceback, error)  # type: ignore[attr-defined]
    return error


def _failure(message: str) -> AssertionError:
    """The ``AssertionError`` a check raises (shown without linlib's frames)."""
    error = AssertionError(message)
    _for_students(error)
    return error


def _as_number_array(value: Any, name: str, role: str) -> np.ndarray:
    """Convert *value* to a float or complex array, or fail with a message about *role*."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:  # ragged nested lists, for instance
        raise _failure(
            f"{name}: the {role} value {_short(value)} is not a number or a rectangular "
            f"array of numbers ({error})."
        ) from None
    if array.dtype == bool:
        return array.astype(float)
    if not (np.issubdtype(array.dtype, np.number)):
        raise _failure(
            f"{name}: expected numbers, but the {role} value is {_short(value)} "
            f"(of type {type(value).__name__})."
        )
    if np.issubdtype(array.dtype, np.complexfloating):
        return array.astype(complex)
    return array.astype(float)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float = 1e-7,
    atol: float = 1e-9,
    name: str = "result",
) -> None:
    """Check that *actual* equals *expected* up to a tolerance.

    Shapes are compared first (a list of three numbers and an array of shape ``(3,)``
    agree; ``(3,)`` and ``(3, 1)`` do not), then values with
    ``|actual - expected| <= atol + rtol * |expected|``. NaN matches NaN and an infinity
    matches only the same infinity.

    Parameters
    ----------
    actual : scalar, list, tuple or array of numbers
        What the student's code returned.
    expected : scalar, list, tuple or array of numbers
        The reference value.
    rtol, atol : float
        Relative and absolute tolerance.
    name : str
        What the value is, for the failure message (e.g. ``"signed_distance(X, w, b)"``).

    Raises
    ------
    AssertionError
        With one paragraph saying what was expected and what came, and where the worst
        difference is.

    Examples
    --------
    >>> from linlib.grading import assert_close
    >>> assert_close(0.1 + 0.2, 0.3)
    >>> assert_close([1.0, 2.0, 3.0], [1.0, 2.5, 3.0], name="w")
    Traceback (most recent call last):
        ...
    AssertionError: w: values differ at index (1,) (1 of 3 entries differ): expected 2.5, got
    2.0 (tolerance: rtol=1e-07, atol=1e-09). Expected [1. 2.5 3. ], got [1. 2. 3.].

    Introduced in 01 — hyperplanes.
    """
    if actual is None and expected is not None:
        raise _failure(
            f"{name}: got None. Did the function forget to `return` its result? "
            f"Expected {_short(expected)}."
        )
    got = _as_number_array(actual, name, "returned")
    want = _as_number_array(expected, name, "expected")
    if got.shape != want.shape:
        raise _failure(
            f"{name}: expected shape {want.shape}, got shape {got.shape}. "
            f"Expected {_short(np.asarray(expected))}, got {_short(np.asarray(actual))}."
        )
    if got.size == 0:
        return
    with np.errstate(all="ignore"):
        both_nan = np.isnan(got) & np.isnan(want)
        diff = np.abs(got - want)
        within = np.where(np.isinf(want), got == want, diff <= atol + rtol * np.abs(want))
        ok = both_nan | within
        if bool(np.all(ok)):
            return
        # The worst offender: NaN or infinite mismatches first, then the largest excess
        # over the tolerance.
        excess = np.where(np.isfinite(diff), diff - (atol + rtol * np.abs(want)), np.inf)
        excess = np.where(ok, -np.inf, excess)
    bad = int(np.count_nonzero(~ok))
    index = np.unravel_index(int(np.argmax(excess)), got.shape)
    if got.ndim == 0:
        where = ""
        expected_text, got_text = _short(want.item()), _short(got.item())
    else:
        where = f" at index {tuple(int(i) for i in index)}"
        where += f" ({bad} of {got.size} entries differ)"
        expected_text, got_text = _short(want[index].item()), _short(got[index].item())
    message = (
        f"{name}: values differ{where}: expected {expected_text}, got {got_text} "
        f"(tolerance: rtol={rtol:g}, atol={atol:g})."
    )
    if got.ndim > 0:
        message += f" Expected {_short(want)}, got {_short(got)}."
    raise _failure(message)


def assert_labels_equal(actual: Any, expected: Any, *, name: str = "labels") -> None:
    """Check that two sequences of class labels are equal, element by element.

    Numeric labels compare by value (``1``, ``1.0`` and ``np.int64(1)`` agree); strings
    compare as strings. The message reports how many labels differ and the first few.

    Parameters
    ----------
    actual, expected : scalar, list, tuple or array
        The predicted and the reference labels.
    name : str
        What the labels are, for the failure message.

    Raises
    ------
    AssertionError
        If the shapes or any label differ.

    Examples
    --------
    >>> from linlib.grading import assert_labels_equal
    >>> assert_labels_equal([1, -1, 1], [1.0, -1.0, 1.0])
    >>> assert_labels_equal(["ham", "spam"], ["ham", "ham"], name="predictions")
    Traceback (most recent call last):
        ...
    AssertionError: predictions: 1 of 2 labels differ (at 1: expected 'ham', got 'spam').

    Introduced in 01 — hyperplanes.
    """
    if actual is None and expected is not None:
        raise _failure(f"{name}: got None. Did the function forget to `return` its result?")
    got = np.asarray(actual)
    want = np.asarray(expected)
    if got.shape != want.shape:
        raise _failure(
            f"{name}: expected shape {want.shape}, got shape {got.shape}. "
            f"Expected {_short(want)}, got {_short(got)}."
        )
    if got.size == 0:
        return
    numeric = np.issubdtype(got.dtype, np.number) or got.dtype == bool
    numeric_expected = np.issubdtype(want.dtype, np.number) or want.dtype == bool
    if numeric and numeric_expected:
        equal = got.astype(float) == want.astype(float)
    else:
        equal = np.asarray(got.astype(object) == want.astype(object), dtype=bool)
        if equal.shape != got.shape:  # object comparison can collapse to one bool
            equal = np.array([a == e for a, e in zip(got.ravel(), want.ravel(), strict=True)])
            equal = equal.reshape(got.shape)
    if bool(np.all(equal)):
        return
    wrong = np.argwhere(~equal)
    shown = []
    for index in wrong[:5]:
        key = tuple(int(i) for i in index)
        where = key[0] if len(key) == 1 else key
        shown.append(f"at {where}: expected {want[key].item()!r}, got {got[key].item()!r}")
    more = "" if len(wrong) <= 5 else f"; and {len(wrong) - 5} more"
    raise _failure(f"{name}: {len(wrong)} of {got.size} labels differ ({'; '.join(shown)}{more}).")


def assert_true(condition: Any, message: str = "condition is false") -> None:
    """Fail with *message* unless *condition* is true.

    Unlike a bare ``assert``, this is not removed by ``python -O`` and always explains
    itself.

    Examples
    --------
    >>> from linlib.grading import assert_true
    >>> assert_true(2 > 1)
    >>> assert_true(1 > 2, "the update should increase the activation")
    Traceback (most recent call last):
        ...
    AssertionError: the update should increase the activation

    Introduced in 02 — the perceptron update rule.
    """
    if not bool(condition):
        raise _failure(message)


def assert_raises(
    exc_type: type[BaseException] | tuple[type[BaseException], ...],
    fn: Callable[..., Any],
    *args: Any,
    **kwargs: Any,
) -> BaseException:
    """Check that ``fn(*args, **kwargs)`` raises *exc_type*; return the exception.

    *fn* is called through :func:`call_student` (warnings and stderr silenced; a
    ``disable=`` keyword is passed on). An exception of another type fails the check with
    a message naming both.

    Examples
    --------
    >>> import linlib
    >>> from linlib.grading import assert_raises
    >>> error = assert_raises(ValueError, linlib.augment, [1, 2])
    >>> str(error).split(";")[0]
    'X must be 2-D of shape (n_samples, n_features)'
    >>> assert_raises(ValueError, linlib.augment, [[1, 2]])
    Traceback (most recent call last):
        ...
    AssertionError: augment should raise ValueError, but it returned normally.

    Introduced in 01 — hyperplanes.
    """
    expected_types = exc_type if isinstance(exc_type, tuple) else (exc_type,)
    wanted = " or ".join(t.__name__ for t in expected_types)
    label = getattr(fn, "__name__", "the function")
    try:
        call_student(fn, *args, **kwargs)
    except ReferenceDisabledError:
        raise
    except expected_types as error:
        return error
    except Exception as error:
        raise _failure(
            f"{label} should raise {wanted}, but it raised "
            f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
        ) from None
    raise _failure(f"{label} should raise {wanted}, but it returned normally.")


# ---------------------------------------------------------------------------------------
# Disabling references
# ---------------------------------------------------------------------------------------


def _parameters_of(code: types.CodeType) -> str:
    """The parameter list of *code* as source text, e.g. ``"self, X, /, y, *, alpha"``."""
    names = code.co_varnames
    n_pos, n_kwonly = code.co_argcount, code.co_kwonlyargcount
    params = list(names[:n_pos])
    if code.co_posonlyargcount:
        params.insert(code.co_posonlyargcount, "/")
    rest = n_pos + n_kwonly
    if code.co_flags & inspect.CO_VARARGS:
        params.append("*" + names[rest])
        rest += 1
    elif n_kwonly:
        params.append("*")
    params.extend(names[n_pos : n_pos + n_kwonly])
    if code.co_flags & inspect.CO_VARKEYWORDS:
        params.append("**" + names[rest])
    return ", ".join(params)


def _raiser_code(label: str, original: types.CodeType) -> types.CodeType:
    """Code that raises ``ReferenceDisabledError`` for *label*, in place of *original*.

    It keeps the original's parameters (the function keeps its defaults, so
    ``inspect.signature`` is unchanged: scikit-learn inspects ``__init__`` signatures in
    ``get_params``) and its free variables (CPython only lets ``__code__`` be swapped for
    code whose closure has the same size).
    """
    message = f"{label} is disabled in this test: write it yourself."
    freevars = original.co_freevars
    touch = "".join(f"        {v}\n" for v in freevars)
    assign = "".join(f"    {v} = None\n" for v in freevars)
    source = (
        "def _outer():\n"
        f"{assign}"
        f"    def disabled({_parameters_of(original)}):\n"
        f"{touch}"
        "        raise __import__('linlib.grading', fromlist=['_']).ReferenceDisabledError(\n"
        f"            {message!r})\n"
        "    return disabled\n"
    )
    outer = compile(source, _RAISER_FILE, "exec").co_consts[0]
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    if inner.co_freevars != freevars:
        raise RuntimeError(f"cannot disable {label}: unexpected closure {freevars}")
    return inner.replace(co_name=original.co_name, co_qualname=label)


def _raiser_function(label: str) -> Callable[..., Any]:
    def disabled(*args: Any, **kwargs: Any) -> Any:
        raise ReferenceDisabledError(f"{label} is disabled in this test: write it yourself.")

    disabled.__name__ = label.rsplit(".", 1)[-1]
    disabled.__qualname__ = label
    return disabled


def _functions_inside(obj: Any) -> Iterator[types.FunctionType]:
    """The Python functions that implement *obj* (a function, method or descriptor)."""
    seen: set[int] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, types.FunctionType):
            yield item
            # functools.wraps keeps the undecorated function reachable: disable it too.
            stack.append(getattr(item, "__wrapped__", None))
        elif isinstance(item, types.MethodType | staticmethod | classmethod):
            stack.append(item.__func__)
        elif isinstance(item, property):
            stack.extend([item.fget, item.fset, item.fdel])
        elif not isinstance(item, type):
            # Other descriptors keep the function in an attribute: scikit-learn's
            # ``available_if`` in ``fn``, NumPy's array-function dispatchers (np.linalg.norm)
            # in ``_implementation``.
            stack.append(getattr(item, "fn", None))
            stack.append(getattr(item, "_implementation", None))


def _resolve(name: str) -> tuple[Any, Any, str]:
    """Find the object a disable name refers to: ``(parent, object, attribute name)``.

    A bare name is a public name of ``linlib``; a dotted name is a module path followed
    by attributes (``"linlib.geometry.signed_distance"``, ``"sklearn.svm.SVC.fit"``).
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"disable names must be non-empty strings, got {name!r}")
    parts = name.split(".")
    if len(parts) == 1:
        parts = ["linlib", name]
    module = None
    split = len(parts)
    while split > 0:
        try:
            module = importlib.import_module(".".join(parts[:split]))
            break
        except ImportError:
            split -= 1
    if module is None or split == len(parts):
        raise ValueError(f"cannot disable {name!r}: no such function or class")
    parent: Any = module
    for attribute in parts[split:-1]:
        parent = getattr(parent, attribute, None)
    if parent is None or not hasattr(parent, parts[-1]):
        raise ValueError(f"cannot disable {name!r}: no such function or class")
    # Look in __dict__ first so that a class attribute gives the raw descriptor.
    if isinstance(parent, type):
        target = vars(parent).get(parts[-1], getattr(parent, parts[-1]))
    else:
        target = getattr(parent, parts[-1])
    return parent, target, parts[-1]


class _Undo:
    """A list of undo actions, run last-in first-out."""

    def __init__(self) -> None:
        self.actions: list[Callable[[], None]] = []

    def swap_code(self, function: types.FunctionType, label: str) -> None:
        original = function.__code__
        replacement = _raiser_code(label, original)
        # Register the undo before the swap: an interrupt in between must not leave the
        # function disabled.
        self.actions.append(lambda: setattr(function, "__code__", original))
        function.__code__ = replacement

    def set_attribute(self, owner: Any, attribute: str, value: Any) -> None:
        had = attribute in vars(owner)
        original = vars(owner).get(attribute)

        def restore() -> None:
            if had:
                setattr(owner, attribute, original)
            elif attribute in vars(owner):
                delattr(owner, attribute)

        self.actions.append(restore)
        setattr(owner, attribute, value)

    def run(self) -> None:
        """Undo everything, even if one undo fails (then re-raise its error)."""
        first_error: BaseException | None = None
        while self.actions:
            try:
                self.actions.pop()()
            except BaseException as error:
                first_error = first_error or error
        if first_error is not None:
            raise first_error


# Dunder methods a class keeps even when disabled: Python, debuggers and error messages
# call them on their own, and none of them computes a result for a student.
_KEEP_DUNDERS = frozenset({"__init_subclass__", "__class_getitem__", "__subclasshook__"})


def _disable_class(cls: type, label: str, undo: _Undo) -> None:
    """Make *cls* unusable: it cannot be instantiated, its own methods raise."""
    for attribute, value in list(vars(cls).items()):
        is_dunder = attribute.startswith("__") and attribute.endswith("__")
        if is_dunder and attribute not in ("__init__", "__new__", "__call__"):
            continue
        if attribute in _KEEP_DUNDERS:
            continue
        for function in _functions_inside(value):
            undo.swap_code(function, f"{label}.{attribute}")
    if "__init__" not in vars(cls):
        # An inherited __init__ is shared with other classes: shadow it instead.
        undo.set_attribute(cls, "__init__", _raiser_function(f"{label}.__init__"))
    # linlib's classifiers inherit predict and decision_function from private bases that
    # the other classifiers share: shadow them on this class only.
    shadowed: set[str] = set()
    for base in cls.__mro__[1:]:
        if not base.__module__.startswith("linlib."):
            continue
        for attribute, value in vars(base).items():
            if attribute.startswith("_") or attribute in vars(cls) or attribute in shadowed:
                continue
            if callable(value):
                shadowed.add(attribute)
                undo.set_attribute(cls, attribute, _raiser_function(f"{label}.{attribute}"))


def _disable_one(name: str, undo: _Undo) -> None:
    parent, target, attribute = _resolve(name)
    label = name if "." in name else f"linlib.{name}"
    if isinstance(target, type):
        _disable_class(target, label, undo)
        return
    functions = list(_functions_inside(target))
    if functions:
        for function in functions:
            undo.swap_code(function, label)
        return
    # Built-in functions, ufuncs, and other C callables have no __code__: replace the
    # attribute where it lives, and the linlib public name if it is the same object.
    undo.set_attribute(parent, attribute, _raiser_function(label))
    linlib = sys.modules.get("linlib")
    if linlib is not None and parent is not linlib and getattr(linlib, attribute, None) is target:
        undo.set_attribute(linlib, attribute, _raiser_function(label))


@contextlib.contextmanager
def disabled_references(names: Iterable[str] = ()) -> Iterator[None]:
    """Make the named library references unusable inside the ``with`` block.

    Each name is a public name of ``linlib`` (``"signed_distance"``, ``"Perceptron"``) or
    a dotted path (``"linlib.geometry.signed_distance"``,
    ``"sklearn.naive_bayes.MultinomialNB"``, ``"numpy.linalg.norm"``). A function gets its
    ``__code__`` swapped for code that raises :class:`ReferenceDisabledError`, so aliases
    taken earlier (``from linlib import signed_distance as f``) fail too. A class cannot
    be instantiated and its own methods raise, also on existing instances. Callables
    without ``__code__`` (built-ins, ufuncs) are replaced where they live instead, which
    does not reach aliases taken earlier. Everything is restored on exit, also after an
    exception or ``KeyboardInterrupt``.

    Parameters
    ----------
    names : iterable of str
        The references to disable. An unknown name raises ``ValueError`` at once, so a
        typo in a test cell is not silently ignored.

    Examples
    --------
    >>> import linlib
    >>> from linlib.grading import disabled_references
    >>> with disabled_references(["signed_distance"]):
    ...     linlib.signed_distance([[3, 4]], w=[3, 4], b=0)
    ...
    Traceback (most recent call last):
        ...
    linlib.grading.ReferenceDisabledError: linlib.signed_distance is disabled in this test:
    write it yourself.
    >>> linlib.signed_distance([[3, 4]], w=[3, 4], b=0)
    array([5.])

    Introduced in 01 — hyperplanes.
    """
    if isinstance(names, str):
        names = (names,)
    undo = _Undo()
    try:
        for name in names:
            _disable_one(name, undo)
        yield
    finally:
        undo.run()


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """Swallow warnings and everything written to stderr (Python and file descriptor 2)."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        # Compiled code writes to the file descriptor, which ipykernel forwards to the
        # notebook's stderr: point it at /dev/null for the duration.
        saved = None
        try:
            saved = os.dup(2)
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, 2)
            finally:
                os.close(devnull)
        except OSError:
            if saved is not None:
                os.close(saved)
            saved = None
        try:
            yield
        finally:
            if saved is not None:
                os.dup2(saved, 2)
                os.close(saved)


def _grading_call_of(fn: Any) -> Callable[..., Any] | None:
    """The autograder proxy's ``__grading_call__``, or None for an ordinary callable.

    It is looked up on the type, as Python looks up special methods: a student cannot
    switch the protocol on by setting an attribute on their own function.
    """
    method = getattr(type(fn), "__grading_call__", None)
    if method is None:
        return None
    return types.MethodType(method, fn)


def _reference_names(use_reference: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """``use_reference`` as ``{student's global name: reference name}``."""
    if isinstance(use_reference, str):
        use_reference = (use_reference,)
    if isinstance(use_reference, Mapping):
        pairs = dict(use_reference)
    else:
        pairs = {name: name for name in use_reference}
    for local, reference in pairs.items():
        if not isinstance(local, str) or not local.isidentifier():
            raise ValueError(f"use_reference: {local!r} is not a name")
        if not isinstance(reference, str) or not reference:
            raise ValueError(f"use_reference: bad reference {reference!r} for {local!r}")
    return pairs


def _reference_object(name: str) -> Any:
    """The library object *name* refers to (a ``linlib`` public name or a dotted path)."""
    _, target, _ = _resolve(name)
    if not callable(target):
        raise ValueError(f"use_reference: {name!r} is not callable")
    return target


# ---------------------------------------------------------------------------------------
# The library's answers in a student build
# ---------------------------------------------------------------------------------------

#: While :func:`recording_references` runs: the labels it records and what it recorded.
_recording: tuple[frozenset[str], dict[str, list[list[Any]]]] | None = None


@contextlib.contextmanager
def recording_references(labels: Iterable[str]) -> Iterator[dict[str, list[list[Any]]]]:
    """Record what the named references answer when a test's ``use_reference`` uses them.

    For the release (``autograder/release/replays.py``): the release's test cells are run
    with the instructor's solutions, and every call that a solution makes of a reference
    named in *labels* (``module.qualname``, as in ``linlib._build.STUBS``) that
    :func:`references_in_place_of` put in place is recorded: its arguments, bound to the
    reference's parameters by name, and its result, both in the wire format of
    :mod:`linlib.grader_kernel_wire`. A call whose arguments or result are not plain data
    (a function, say) is not recorded. Yields ``{label: [[arguments, result], ...]}``,
    filled as the calls come; a student build carries it as ``linlib._build.REPLAYS``.

    Examples
    --------
    >>> from linlib.grading import call_student, recording_references
    >>> def first_step(x, y):  # a later exercise that calls the student's update
    ...     return perceptron_update([0.0], 0.0, x, y)
    >>> with recording_references(["linlib.perceptron.perceptron_update"]) as calls:
    ...     call_student(first_step, [2.0], 1, use_reference=["perceptron_update"])
    (array([2.]), 1.0, True)
    >>> len(calls["linlib.perceptron.perceptron_update"])
    1

    Introduced in 02 — the perceptron update rule (the first test that uses a reference).
    """
    global _recording
    if _recording is not None:
        raise RuntimeError("recording_references is already recording")
    calls: dict[str, list[list[Any]]] = {}
    _recording = (frozenset(labels), calls)
    try:
        yield calls
    finally:
        _recording = None


def _arguments(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any] | None:
    """A call's arguments by parameter name, defaults included (None: they do not bind)."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def _recorded(target: Callable[..., Any]) -> Callable[..., Any]:
    """*target*, or, while :func:`recording_references` records it, *target* recording."""
    if _recording is None:
        return target
    labels, calls = _recording
    label = _build.qualified_name(target)
    if label not in labels:
        return target
    signature = inspect.signature(target)

    def recorded(*args: Any, **kwargs: Any) -> Any:
        arguments = _arguments(signature, args, kwargs)
        try:  # encoded before the call, which might change them
            arguments = None if arguments is None else encode(arguments)
        except NotPlainData:
            arguments = None
        result = target(*args, **kwargs)
        if arguments is not None:
            try:
                entry = [arguments, encode(result)]
            except NotPlainData:
                return result
            known = calls.setdefault(label, [])
            if entry not in known:
                known.append(entry)
        return result

    return functools.update_wrapper(recorded, target, updated=())


@functools.cache
def _replays() -> dict[str, list[tuple[dict[str, Any], Any]]]:
    """This build's recorded answers: label -> [(arguments, encoded result)]."""
    table = json.loads(_build.REPLAYS)
    return {
        label: [(decode(arguments), result) for arguments, result in calls]
        for label, calls in table.items()
    }


def _same_value(given: Any, recorded: Any) -> bool:
    """Whether an argument a student's function passes is the one recorded: numbers and
    arrays of numbers within a relative 1e-9 (lists and arrays alike, integers and floats
    alike), strings and arrays of strings equal, None for None."""
    if recorded is None or given is None:
        return given is recorded
    try:
        mine, theirs = np.asarray(given), np.asarray(recorded)
    except (ValueError, TypeError):
        return False
    if mine.shape != theirs.shape:
        return False
    if mine.dtype.kind in "biuf" and theirs.dtype.kind in "biuf":
        return bool(
            np.allclose(
                mine.astype(float), theirs.astype(float), rtol=1e-9, atol=1e-12, equal_nan=True
            )
        )
    return mine.dtype.kind == theirs.dtype.kind == "U" and bool(np.array_equal(mine, theirs))


def _replayed(stub: Any, own: Any, local: str) -> Callable[..., Any] | None:
    """For a stubbed reference with recorded answers: a function that gives them.

    A call with the arguments of a recorded call (see :func:`_same_value`) returns the
    library's recorded result (new objects each time); any other call goes to the
    student's own function *own* (what the name meant before), as it would without
    recorded answers. None when the build recorded nothing for *stub*.
    """
    calls = _replays().get(_build.qualified_name(stub))
    if not calls:
        return None
    signature = inspect.signature(stub)

    def replayed(*args: Any, **kwargs: Any) -> Any:
        given = _arguments(signature, args, kwargs)
        for arguments, result in calls if given is not None else ():
            if (
                given is not None
                and arguments.keys() == given.keys()
                and all(_same_value(given[name], value) for name, value in arguments.items())
            ):
                return decode(result)
        if not callable(own):
            raise NameError(f"name {local!r} is not defined")
        return own(*args, **kwargs)

    replayed.__name__ = getattr(stub, "__name__", local)
    replayed.__qualname__ = getattr(stub, "__qualname__", local)
    return replayed


@contextlib.contextmanager
def references_in_place_of(
    fn: Callable[..., Any], use_reference: Iterable[str] | Mapping[str, str] = ()
) -> Iterator[None]:
    """Rebind names in the student's namespace to the library's references, temporarily.

    Inside the ``with`` block, each global name of *fn*'s module (for a notebook: the
    student's namespace) listed in *use_reference* refers to the library's reference
    implementation instead of the student's own function of that name. A test of a later
    exercise uses this so that a bug in an earlier exercise costs only that exercise: a
    student's ``perceptron_epoch`` that calls their own ``perceptron_update`` is tested
    with the reference update. Everything is restored on exit. A callable that is not a
    Python function (no ``__globals__``) is left as it is.

    In a student build of linlib (the wheel of a release zip), a reference that the build
    leaves out (a stub, see ``linlib._build``) is answered from the build's recorded
    answers instead: a call that the instructor's solution makes in the release's test
    cells gets the library's result, any other call goes to the student's own function of
    that name (which is all there is when nothing was recorded).

    Examples
    --------
    >>> import linlib
    >>> from linlib.grading import references_in_place_of
    >>> def perceptron_update(w, b, x, y):  # a student's buggy update
    ...     return w, b, False
    >>> def first_step(x, y):  # a later exercise that calls it
    ...     return perceptron_update([0.0, 0.0], 0.0, x, y)
    >>> first_step([1, 2], 1)
    ([0.0, 0.0], 0.0, False)
    >>> with references_in_place_of(first_step, ["perceptron_update"]):
    ...     first_step([1, 2], 1)
    ...
    (array([1., 2.]), 1.0, True)

    Introduced in 02 — the perceptron update rule.
    """
    pairs = _reference_names(use_reference)
    namespace = getattr(fn, "__globals__", None)
    if not pairs or not isinstance(namespace, dict):
        yield
        return
    objects = {}
    for local, reference in pairs.items():
        target = _reference_object(reference)
        if not _build.is_stub(target):
            objects[local] = _recorded(target)
            continue
        # A student build: the library's recorded answers, or the student's own function.
        replayed = _replayed(target, namespace.get(local), local)
        if replayed is not None:
            objects[local] = replayed
    missing = object()
    saved = {local: namespace.get(local, missing) for local in objects}
    try:
        namespace.update(objects)
        yield
    finally:
        for local, value in saved.items():
            if value is missing:
                namespace.pop(local, None)
            else:
                namespace[local] = value


def call_student(
    fn: Callable[..., Any],
    *args: Any,
    disable: Iterable[str] = (),
    use_reference: Iterable[str] | Mapping[str, str] = (),
    **kwargs: Any,
) -> Any:
    """Call a student's function the way a test cell must.

    Warnings are ignored and stderr is swallowed during the call (nbgrader fails a test
    cell that writes to stderr, even when the answer is right), and every reference named
    in *disable* is unusable (see :func:`disabled_references`). Exceptions raised by the
    student's function propagate unchanged.

    If the class of *fn* defines ``__grading_call__`` (the autograder's remote proxy for a
    student function), the call is delegated: ``fn.__grading_call__(args, kwargs,
    tuple(disable))``, and the proxy does the same disabling in the student's kernel.

    Parameters
    ----------
    fn : callable
        The student's function.
    *args, **kwargs
        Its arguments (plain data).
    disable : iterable of str
        Library references the student must not use, e.g. ``("signed_distance",)``.
    use_reference : iterable of str, or mapping of str to str
        The student's *earlier* graded functions that the call must not depend on: during
        the call each such global name of the student's namespace refers to the library's
        reference of the same name (or, for a mapping, of the name it maps to), see
        :func:`references_in_place_of`. A name may not be both disabled and used.

    Returns
    -------
    Whatever *fn* returns.

    Examples
    --------
    >>> import linlib
    >>> from linlib.grading import call_student
    >>> def augment(X):
    ...     return [[*row, 1] for row in X]
    ...
    >>> call_student(augment, [[1, 2]], disable=("augment",))
    [[1, 2, 1]]
    >>> call_student(linlib.augment, [[1, 2]], disable=("augment",))
    Traceback (most recent call last):
        ...
    linlib.grading.ReferenceDisabledError: linlib.augment is disabled in this test: write it
    yourself.

    Introduced in 01 — hyperplanes.
    """
    names = (disable,) if isinstance(disable, str) else tuple(disable)
    references = _reference_names(use_reference)
    clash = set(references.values()) & set(names)
    if clash:
        raise ValueError(f"both disabled and used as references: {sorted(clash)}")
    remote = _grading_call_of(fn)
    if remote is not None:
        if references:
            return remote(args, kwargs, names, use_reference=references)
        return remote(args, kwargs, names)
    if not callable(fn):
        raise _failure(
            f"expected a function, got {_short(fn)} of type {type(fn).__name__}. "
            "Did the solution cell run?"
        )
    with _silenced(), references_in_place_of(fn, references), disabled_references(names):
        try:
            return fn(*args, **kwargs)
        except Exception as error:  # the student's own error, or a disabled reference's
            _for_students(error)
            raise
