"""The catalogue of misconceptions: per exercise, the typical wrong ideas students have, each
with a probe that shows it, and the diagnosis that matches a student's answers against them.

The catalogue of an assignment is a data file beside its notebook,
``<assignment>/misconceptions.toml`` of the course's source (course content, reviewed like
the notebooks; the release leaves it out of the students' folder). A course without one is
graded with the diagnosis off. One table per exercise (the graded
function, named like its answer cell), then one entry per misconception::

    [classify]
    timeout_hint = "..."            # optional: what a hang of this function usually means

    [[classify.misconception]]
    id = "tie_is_positive"
    says = "you treat a point on the plane (a = 0) as a positive point"
    hint = "§3 says which label a = 0 gets: compare the comparison in your code with it"

      [[classify.misconception.probe]]
      call = "classify([[1, 1], [3, 1]], [1, -1], 0)"
      rule = "array([-1, 1])"       # what the exercise's rule gives
      answer = "array([1, 1])"      # what this misconception gives

A probe is one call (a few probes make a misconception's probe); on it the misconception's
answer differs from the rule's and from every other catalogued misconception's answer of the
exercise (``tests/autograder/test_misconceptions.py`` checks this with the labelled sample
answers of :mod:`autograder.samples`, and checks the rule against the notebook's solution).

**The notation** of calls and answers is a small part of Python's expression syntax, read
with :mod:`ast`, never evaluated:

- values (a call's arguments): numbers (``1/3``, ``sqrt(2)``, ``inf``, ``nan``), strings,
  ``True``, ``False``, ``None``, lists, tuples; ``array(x)`` (a NumPy array;
  ``array(x, float)`` with a dtype), ``log(x)`` (natural logarithms, an array for a list),
  ``linlib.name`` (a public function of linlib) and ``partial(f, ...)``;
- answers (patterns): a number matches any number (not a bool) within the tolerance of
  ``linlib.grading.assert_close``; ``True``/``False`` only a bool; a list or tuple any
  sequence (a NumPy array too) whose items match; ``array(x)`` anything NumPy reads as an
  array of that shape and those values. Stricter forms say where the type is the point:
  ``int(3)``, ``float(3)``, ``list(x)``, ``tuple(x)``, ``ndarray(x)`` (a NumPy array),
  ``array(x, float)`` (a NumPy array of that dtype kind: ``float``, ``int``, ``bool``,
  ``str``). ``raises(ValueError)``: the call raised it. ``given(w)``: the very object passed
  as ``w``. ``anything``. ``shuffled(x)``: the items of ``x`` in another order. For (w, b)
  that must put points on their sides:
  ``classifies(X, y)`` (every ``y·(w·x + b) > 0``) and ``ties(X, y)`` (all ``>= 0``, one
  ``= 0``);
- ``changes = {w = "..."}`` in a probe: the argument ``w`` after the call (it was changed
  in place); the rule changes no argument, and returns none of its arguments as itself.

:func:`diagnose` runs an exercise's probes through a caller-supplied ``observe`` (the
re-check calls the student's function in the sandboxed kernel,
:mod:`autograder.recheck.diagnosis`; the tests call sample answers here), and reports the
misconception whose probe the answers match, or else the smallest probe on which the answer
differs from the rule — never a guess.
"""

from __future__ import annotations

import ast
import builtins
import functools
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from autograder.source import CATALOGUE_NAME

__all__ = [
    "CATALOGUE",
    "Catalogue",
    "CatalogueError",
    "Diagnosis",
    "Exercise",
    "Misconception",
    "Observation",
    "Pattern",
    "Probe",
    "diagnose",
    "exercise_of",
    "load_catalogue",
    "notebook_signatures",
    "observe_call",
    "parse_call",
    "parse_pattern",
    "parse_value",
    "render",
    "signatures",
]

#: The catalogue's file name, beside the assignment's notebook.
CATALOGUE = CATALOGUE_NAME  # its one home: autograder.source
#: The tolerance of a number in a pattern (``linlib.grading.assert_close``'s defaults).
RTOL, ATOL = 1e-7, 1e-9
#: Characters of a rendered value shown to a student.
SHOWN = 240


class CatalogueError(ValueError):
    """A catalogue that cannot be read: its file, the entry, and what is wrong."""


# --------------------------------------------------------------------------- values


_DTYPES = {"float": float, "int": int, "bool": bool, "str": str}
_KINDS = {"float": "f", "int": "iu", "bool": "b", "str": "U"}


def _public_linlib(name: str) -> Any:
    import linlib

    if name.startswith("_") or name not in getattr(linlib, "__all__", ()):
        raise ValueError(f"linlib.{name} is not a public function of linlib")
    value = getattr(linlib, name)
    if not callable(value):
        raise ValueError(f"linlib.{name} is not a function")
    return value


_ARITHMETIC = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__}


def _number(node: ast.AST) -> float | int | None:
    """A number: a literal, ``inf``, ``nan``, ``sqrt(x)``, or + − × / of numbers (``1/3``)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in ("inf", "nan"):
        return math.inf if node.id == "inf" else math.nan
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _number(node.operand)
        if inner is not None:
            return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in (*_ARITHMETIC, ast.Div):
        left, right = _number(node.left), _number(node.right)
        if left is not None and right is not None:
            if isinstance(node.op, ast.Div):
                return left / right if right else math.copysign(math.inf, left)
            value = _ARITHMETIC[type(node.op)](float(left), float(right))
            integers = type(left) is int and type(right) is int
            return int(value) if integers else value
    if _called(node) == "sqrt" and len(node.args) == 1 and not node.keywords:  # type: ignore[attr-defined]
        inner = _number(node.args[0])  # type: ignore[attr-defined]
        if inner is not None and inner >= 0:
            return math.sqrt(inner)
    return None


def _called(node: ast.AST) -> str | None:
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None


def _value(node: ast.AST) -> Any:
    number = _number(node)
    if number is not None:
        return number
    if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (bool, str)):
        return node.value
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(item) for item in node.elts)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "linlib":
            return _public_linlib(node.attr)
    name = _called(node)
    if name == "log" and isinstance(node, ast.Call) and len(node.args) == 1:
        with np.errstate(divide="ignore"):
            logs = np.log(np.array(_value(node.args[0]), dtype=float))
        return logs if logs.ndim else float(logs)
    if name == "array" and isinstance(node, ast.Call) and not node.keywords:
        if len(node.args) == 1:
            return np.array(_value(node.args[0]))
        if len(node.args) == 2 and isinstance(node.args[1], ast.Name):
            dtype = _DTYPES.get(node.args[1].id)
            if dtype is not None:
                return np.array(_value(node.args[0]), dtype=dtype)
    if name == "partial" and isinstance(node, ast.Call) and node.args:
        func = _value(node.args[0])
        if not callable(func):
            raise ValueError("partial(...) of something that is not a function")
        keywords = {k.arg: _value(k.value) for k in node.keywords if k.arg}
        return functools.partial(func, *[_value(a) for a in node.args[1:]], **keywords)
    raise ValueError(f"not a value of the notation: {ast.unparse(node)}")


def _expression(text: str) -> ast.AST:
    try:
        return ast.parse(str(text).strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"does not parse: {text!r} ({exc.msg})") from None


def parse_value(text: str) -> Any:
    """The value the notation *text* stands for (a fresh object each time)."""
    return _value(_expression(text))


def parse_call(text: str, function: str | None = None) -> tuple[str, list[Any], dict[str, Any]]:
    """``(function name, args, kwargs)`` of a probe's call ``name(arg, ..., key=value)``,
    fresh objects each time; *function*: the name it must call."""
    node = _expression(text)
    name = _called(node)
    if name is None or not isinstance(node, ast.Call):
        raise ValueError(f"not a call: {text!r}")
    if function is not None and name != function:
        raise ValueError(f"{text!r} calls {name}, not {function}")
    if any(k.arg is None for k in node.keywords) or any(
        isinstance(a, ast.Starred) for a in node.args
    ):
        raise ValueError(f"no * or ** in a probe: {text!r}")
    args = [_value(a) for a in node.args]
    kwargs = {str(k.arg): _value(k.value) for k in node.keywords}
    return name, args, kwargs


# --------------------------------------------------------------------------- rendering


def _render(value: Any, budget: list[int], given: Mapping[int, str]) -> str:
    budget[0] -= 1
    if budget[0] < 0:
        return "…"
    if id(value) in given and isinstance(value, np.ndarray | list | dict):
        return given[id(value)]
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biufcU":
            return f"<array of {value.dtype}>"
        return "array(" + _render(value.tolist(), budget, given) + ")"
    if isinstance(value, np.generic):
        return _render(value.item(), budget, given)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 80 else value[:77] + "...")
    if isinstance(value, list | tuple):
        items = []
        for item in value:
            items.append(_render(item, budget, given))
            if budget[0] < 0:
                break
        inner = ", ".join(items)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        inner = ", ".join(
            f"{_render(k, budget, given)}: {_render(v, budget, given)}" for k, v in value.items()
        )
        return "{" + inner + "}"
    if callable(value):
        return f"<function {getattr(value, '__name__', '?')}>"
    return f"<{type(value).__name__}>"


def render(value: Any, limit: int = SHOWN, given: Mapping[int, str] | None = None) -> str:
    """*value* in the notation (``array([1.0, 2.0])``, ``(array([0.5]), 1.0, True)``), cut
    to *limit* characters. *given*: ``id()`` of an argument object -> what to write for it
    where the value holds that very object (``given(w)``)."""
    text = _render(value, [4 * limit], given or {})
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- observations


@dataclass
class Observation:
    """What one call of a function did: its value or the exception it raised, and the
    arguments it changed in place (parameter name -> the argument after the call)."""

    value: Any = None
    error: BaseException | None = None
    changed: dict[str, Any] = field(default_factory=dict)
    arguments: dict[str, Any] = field(default_factory=dict)  # parameter -> the object passed

    def returned_arguments(self) -> set[str]:
        """The parameters whose very argument object (an array, list or dict) the value
        holds: the function handed back what it was given instead of a new object."""
        found: set[str] = set()
        ids = {id(arg): name for name, arg in self.arguments.items()}
        stack = [self.value] if self.error is None else []
        while stack:
            item = stack.pop()
            if isinstance(item, np.ndarray | list | dict) and id(item) in ids:
                found.add(ids[id(item)])
            if isinstance(item, list | tuple):
                stack.extend(item)
        return found

    def describe(self) -> str:
        """In words, for a student: ``array([1, 1])``, ``raised ValueError``, ``w itself``."""
        if self.error is not None:
            text = _error_words(self.error)
        else:
            given = {
                id(arg): f"<the very {name} it was given>" for name, arg in self.arguments.items()
            }
            text = render(self.value, given=given)
        for name, after in self.changed.items():
            text += f"; and it changed {name} to {render(after, SHOWN // 2)}"
        return text


def _error_words(error: BaseException) -> str:
    """What a call that raised did, in words (the re-check's own errors by what they mean)."""
    name = type(error).__name__
    if name == "NotPlainData":
        return "returned something that is not plain data (numbers, strings, arrays, lists)"
    if name == "StudentCodeError":  # an exception type the re-check does not map
        found = re.search(r" raised (\w+)", str(error))
        return f"raised {found.group(1)}" if found else "raised an exception"
    return f"raised {name}"


def _same_plain(a: Any, b: Any) -> bool:
    """Exact equality of arguments before and after a call (arrays element by element)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        )
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same_plain(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def observe_call(
    call: str,
    params: Sequence[str],
    invoke: Callable[[list[Any], dict[str, Any]], Any],
) -> Observation:
    """Call ``invoke(args, kwargs)`` with the arguments of the probe *call* (fresh objects)
    and record what it did. *params*: the function's parameter names, in order (to name
    the arguments it changed). Exceptions of the call are recorded, not raised."""
    _, args, kwargs = parse_call(call)
    _, before_args, before_kwargs = parse_call(call)
    named = dict(zip(params, args, strict=False))
    named.update(kwargs)
    before = dict(zip(params, before_args, strict=False))
    before.update(before_kwargs)
    observation = Observation(arguments=named)
    try:
        observation.value = invoke(args, kwargs)
    except Exception as exc:
        observation.error = exc
    for name, arg in named.items():
        if not _same_plain(arg, before[name]):
            observation.changed[name] = arg
    return observation


# --------------------------------------------------------------------------- patterns


def _is_number(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, int | float | np.integer | np.floating):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def _close(got: Any, want: float) -> bool:
    got = float(got)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want):
        return got == want
    return abs(got - want) <= ATOL + RTOL * abs(want)


def _as_array(value: Any) -> np.ndarray | None:
    if value is None or isinstance(value, str | bytes | dict | set | frozenset):
        return None
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        return None
    return None if array.dtype.kind == "O" else array


class Pattern:
    """An answer of the catalogue: what an observation must be to match it."""

    text: str = ""

    def matches(self, observation: Observation) -> bool:
        if observation.error is not None:
            return False
        return self.value_matches(observation.value, observation)

    def value_matches(self, value: Any, observation: Observation) -> bool:
        raise NotImplementedError

    def describe(self) -> str:
        return self.text


@dataclass
class _Number(Pattern):
    value: float
    kind: str = ""  # "" any number, "int", "float"

    def value_matches(self, value: Any, observation: Observation) -> bool:
        if not _is_number(value):
            return False
        if self.kind == "int":
            return isinstance(value, int | np.integer) and value == self.value
        if self.kind == "float" and not isinstance(value, float | np.floating):
            return False
        return _close(value, float(self.value))

    def describe(self) -> str:
        if self.kind == "int":
            return f"{int(self.value)} (an int)"
        if self.kind == "float":
            return f"{float(self.value)!r} (a float)"
        return self.text


@dataclass
class _Exact(Pattern):
    value: Any  # a bool, a str or None

    def value_matches(self, value: Any, observation: Observation) -> bool:
        if self.value is None:
            return value is None
        if isinstance(self.value, bool):
            return isinstance(value, bool | np.bool_) and bool(value) == self.value
        return isinstance(value, str | np.str_) and str(value) == self.value


@dataclass
class _Sequence(Pattern):
    items: list[Pattern]
    kind: type | None = None  # list or tuple: that type only

    def value_matches(self, value: Any, observation: Observation) -> bool:
        if self.kind is not None:
            if type(value) is not self.kind:
                return False
        elif not (
            isinstance(value, list | tuple) or (isinstance(value, np.ndarray) and value.ndim > 0)
        ):
            return False
        if len(value) != len(self.items):
            return False
        return all(p.value_matches(v, observation) for p, v in zip(self.items, value, strict=True))

    def describe(self) -> str:
        prefix = {list: "a list ", tuple: "a tuple "}.get(self.kind, "")  # type: ignore[arg-type]
        return prefix + self.text


@dataclass
class _Array(Pattern):
    expected: np.ndarray
    strict: str = ""  # "" array-like; "ndarray"; or a dtype name of _KINDS

    def value_matches(self, value: Any, observation: Observation) -> bool:
        if self.strict and not isinstance(value, np.ndarray):
            return False
        if self.strict in _KINDS and value.dtype.kind not in _KINDS[self.strict]:
            return False
        got = _as_array(value)
        if got is None or got.shape != self.expected.shape:
            return False
        if self.expected.dtype.kind in "U":
            return got.dtype.kind == "U" and bool(np.all(got == self.expected))
        if got.dtype.kind not in "biuf":
            return False
        with np.errstate(all="ignore"):
            want = self.expected.astype(float)
            have = got.astype(float)
            both_nan = np.isnan(want) & np.isnan(have)
            close = np.where(
                np.isinf(want), have == want, np.abs(have - want) <= ATOL + RTOL * np.abs(want)
            )
        return bool(np.all(both_nan | close))

    def describe(self) -> str:
        if self.strict == "ndarray":
            return f"a NumPy {self.text}"
        if self.strict:
            inner = self.text[self.text.index("(") + 1 : self.text.rindex(",")]
            return f"array({inner}) of {self.strict}s"
        return self.text


@dataclass
class _Raises(Pattern):
    name: str

    def matches(self, observation: Observation) -> bool:
        error = observation.error
        return error is not None and self.name in {c.__name__ for c in type(error).__mro__}

    def describe(self) -> str:
        return f"raises {self.name}"


@dataclass
class _Given(Pattern):
    param: str

    def value_matches(self, value: Any, observation: Observation) -> bool:
        return self.param in observation.arguments and value is observation.arguments[self.param]

    def describe(self) -> str:
        return f"the very {self.param} it was given"


@dataclass
class _Shuffled(Pattern):
    """The same items as *items* (as text), in another order."""

    items: list[str]

    def value_matches(self, value: Any, observation: Observation) -> bool:
        if isinstance(value, np.ndarray) and value.ndim == 1:
            value = value.tolist()
        if not isinstance(value, list | tuple):
            return False
        got = [str(v) for v in value]
        return sorted(got) == sorted(self.items) and got != self.items

    def describe(self) -> str:
        return f"{self.text[len('shuffled(') : -1]} in another order"


class _Anything(Pattern):
    def value_matches(self, value: Any, observation: Observation) -> bool:
        return True

    def describe(self) -> str:
        return "anything"


@dataclass
class _Margins(Pattern):
    """``(w, b)`` against points with labels: every ``y·(w·x + b) > 0`` (``classifies``), or
    all ``>= 0`` and one ``= 0`` (``ties``)."""

    X: np.ndarray
    y: np.ndarray
    ties: bool = False

    def value_matches(self, value: Any, observation: Observation) -> bool:
        if not isinstance(value, list | tuple) or len(value) != 2:
            return False
        w, b = _as_array(value[0]), value[1]
        if w is None or w.shape != (self.X.shape[1],) or w.dtype.kind not in "iuf":
            return False
        if not _is_number(b):
            return False
        margins = self.y * (self.X @ w.astype(float) + float(b))
        if self.ties:
            return bool(np.all(margins >= 0) and np.any(margins == 0))
        return bool(np.all(margins > 0))

    def describe(self) -> str:
        rows = self.X.tolist()
        if self.ties:
            return f"(w, b) with y·(w·x + b) ≥ 0 on {rows}, = 0 on one of them"
        return f"(w, b) with y·(w·x + b) > 0 on every row of {rows}"


#: The exceptions ``raises(...)`` may name: Python's own, and the error of a switched-off
#: library reference (``linlib.grading.ReferenceDisabledError``).
_EXCEPTIONS = {
    name
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, Exception)
} | {"ReferenceDisabledError"}


def _pattern(node: ast.AST, text: str) -> Pattern:
    pattern = _pattern_of(node)
    pattern.text = text
    return pattern


def _pattern_of(node: ast.AST) -> Pattern:
    number = _number(node)
    if number is not None:
        return _Number(number)
    if isinstance(node, ast.Constant) and (node.value is None or type(node.value) in (bool, str)):
        return _Exact(node.value)
    if isinstance(node, ast.Name) and node.id == "anything":
        return _Anything()
    if isinstance(node, ast.List | ast.Tuple):
        return _Sequence([_pattern(e, ast.unparse(e)) for e in node.elts])
    name = _called(node)
    if name is None or not isinstance(node, ast.Call) or node.keywords:
        raise ValueError(f"not an answer of the notation: {ast.unparse(node)}")
    args = node.args
    if name in ("int", "float") and len(args) == 1 and _number(args[0]) is not None:
        return _Number(_number(args[0]), name)  # type: ignore[arg-type]
    if name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], ast.List | ast.Tuple):
        items = [_pattern(e, ast.unparse(e)) for e in args[0].elts]
        return _Sequence(items, list if name == "list" else tuple)
    if name == "log" and len(args) == 1:
        logs = _value(node)
        return _Array(logs) if isinstance(logs, np.ndarray) else _Number(logs)
    if name in ("array", "ndarray") and len(args) in (1, 2):
        expected = np.array(_value(args[0]))
        if expected.dtype.kind not in "biufU":
            raise ValueError(f"not an array of numbers or strings: {ast.unparse(node)}")
        if len(args) == 1:
            return _Array(expected, "ndarray" if name == "ndarray" else "")
        if name == "array" and isinstance(args[1], ast.Name) and args[1].id in _KINDS:
            return _Array(expected, args[1].id)
    if name == "raises" and len(args) == 1 and isinstance(args[0], ast.Name):
        if args[0].id in _EXCEPTIONS:
            return _Raises(args[0].id)
    if name == "given" and len(args) == 1 and isinstance(args[0], ast.Name):
        return _Given(args[0].id)
    if name == "shuffled" and len(args) == 1 and isinstance(args[0], ast.List | ast.Tuple):
        return _Shuffled([str(v) for v in _value(args[0])])
    if name in ("classifies", "ties") and len(args) == 2:
        X = np.array(_value(args[0]), dtype=float)
        y = np.array(_value(args[1]), dtype=float)
        if X.ndim == 2 and y.shape == (X.shape[0],):
            return _Margins(X, y, ties=name == "ties")
    raise ValueError(f"not an answer of the notation: {ast.unparse(node)}")


def parse_pattern(text: str) -> Pattern:
    """The answer pattern *text* stands for (see the module's docstring)."""
    return _pattern(_expression(text), str(text).strip())


# --------------------------------------------------------------------------- the catalogue


@dataclass(frozen=True)
class Probe:
    """One call of a misconception's probe and the answers on it."""

    call: str
    rule: Pattern
    answer: Pattern | None
    changes: Mapping[str, Pattern] = field(default_factory=dict)

    def rule_matches(self, observation: Observation) -> bool:
        """The observation is what the rule gives: its value, no argument changed, and no
        argument handed back as itself (the rule's results are new objects)."""
        return (
            not observation.changed
            and not observation.returned_arguments()
            and self.rule.matches(observation)
        )

    def answer_matches(self, observation: Observation) -> bool:
        """The observation is this misconception's answer on the call: its value (when the
        probe gives one), and exactly the arguments it changes, changed as given."""
        if self.answer is not None and not self.answer.matches(observation):
            return False
        if set(observation.changed) != set(self.changes):
            return False
        return all(
            pattern.value_matches(observation.changed[name], observation)
            for name, pattern in self.changes.items()
        )


@dataclass(frozen=True)
class Misconception:
    """A typical wrong idea of one exercise: its id, one sentence in the student's terms,
    a hint that points to where the notebook settles it, and its probe."""

    id: str
    says: str
    hint: str
    probes: tuple[Probe, ...]


@dataclass(frozen=True)
class Exercise:
    """An exercise's entry: the graded function, its parameters, its misconceptions."""

    name: str
    params: tuple[str, ...]
    misconceptions: tuple[Misconception, ...]
    timeout_hint: str = ""

    def calls(self) -> list[str]:
        """Every probe call of the exercise, once, in catalogue order."""
        return list(dict.fromkeys(p.call for m in self.misconceptions for p in m.probes))

    def rules(self) -> dict[str, Pattern]:
        """call -> the rule's answer on it."""
        return {p.call: p.rule for m in self.misconceptions for p in m.probes}

    def get(self, misconception: str) -> Misconception:
        for entry in self.misconceptions:
            if entry.id == misconception:
                return entry
        raise KeyError(f"{self.name}: no misconception {misconception!r}")


@dataclass(frozen=True)
class Catalogue:
    """The misconceptions of one assignment's exercises."""

    assignment: str
    exercises: dict[str, Exercise]
    path: Path | None = None


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CatalogueError(f"{where}: {key} must be a non-empty string")
    return " ".join(value.split())


def _probe(entry: Any, function: str, where: str) -> Probe:
    if not isinstance(entry, Mapping):
        raise CatalogueError(f"{where}: a probe is a table (call, rule, answer)")
    unknown = set(entry) - {"call", "rule", "answer", "changes"}
    if unknown:
        raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
    try:
        call = _text(entry, "call", where)
        parse_call(call, function)
        rule = parse_pattern(_text(entry, "rule", where))
        answer = parse_pattern(entry["answer"]) if "answer" in entry else None
        changes = {
            str(name): parse_pattern(text) for name, text in dict(entry.get("changes", {})).items()
        }
    except (ValueError, TypeError) as exc:
        raise CatalogueError(f"{where}: {exc}") from None
    if answer is None and not changes:
        raise CatalogueError(f"{where}: a probe needs an answer or changes")
    return Probe(call, rule, answer, changes)


def signatures(answers: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """function -> its parameter names, for each function the answer cells' sources
    *answers* define (read, not run)."""
    found: dict[str, tuple[str, ...]] = {}
    for source in answers:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                args = node.args
                found[node.name] = tuple(a.arg for a in [*args.posonlyargs, *args.args])
    return found


def notebook_signatures(notebook: str | Path) -> dict[str, tuple[str, ...]]:
    """:func:`signatures` of the answer cells of a source notebook."""
    import nbformat
    from nbgrader.utils import is_solution

    nb = nbformat.read(str(notebook), as_version=4)
    return signatures(c.source for c in nb.cells if c.cell_type == "code" and is_solution(c))


def load_catalogue(folder: str | Path, answers: Iterable[str] | None = None) -> Catalogue | None:
    """The catalogue beside the notebook of the assignment folder *folder*
    (``<folder>/misconceptions.toml``); None when the folder has no catalogue. The graded
    functions' signatures come from *answers* (the answer cells' sources), else from the
    notebook ``<folder>/<folder name>.ipynb``.

    Raises :class:`CatalogueError` for a catalogue that cannot be read."""
    folder = Path(folder)
    path = folder / CATALOGUE
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{path.name}: {exc}") from None
    notebook = folder / f"{folder.name}.ipynb"
    if answers is not None:
        defined = signatures(answers)
    else:
        defined = notebook_signatures(notebook) if notebook.is_file() else {}
    exercises: dict[str, Exercise] = {}
    for name, table in data.items():
        where = f"{folder.name}/{CATALOGUE} [{name}]"
        if not isinstance(table, Mapping):
            raise CatalogueError(f"{where}: an exercise is a table")
        unknown = set(table) - {"misconception", "timeout_hint"}
        if unknown:
            raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
        if defined and name not in defined:
            raise CatalogueError(f"{where}: the notebook's answers define no function {name}")
        entries = []
        seen: set[str] = set()
        for number, entry in enumerate(table.get("misconception", []), start=1):
            at = f"{where} misconception {number}"
            if not isinstance(entry, Mapping):
                raise CatalogueError(f"{at}: a misconception is a table")
            unknown = set(entry) - {"id", "says", "hint", "probe"}
            if unknown:
                raise CatalogueError(f"{at}: unknown keys {sorted(unknown)}")
            ident = _text(entry, "id", at)
            if not ident.isidentifier() or ident in seen:
                raise CatalogueError(f"{at}: id {ident!r} is not a fresh identifier")
            seen.add(ident)
            probes = tuple(
                _probe(p, name, f"{at} ({ident}) probe {k}")
                for k, p in enumerate(entry.get("probe", []), start=1)
            )
            if not probes:
                raise CatalogueError(f"{at} ({ident}): no probe")
            says, hint = _text(entry, "says", at), _text(entry, "hint", at)
            entries.append(Misconception(ident, says, hint, probes))
        hint = table.get("timeout_hint", "")
        exercises[name] = Exercise(
            name, defined.get(name, ()), tuple(entries), " ".join(str(hint).split())
        )
    return Catalogue(folder.name, exercises, path)


def exercise_of(test: str, exercises: Iterable[str]) -> str | None:
    """The exercise a test cell belongs to: its grade id starts with the exercise's name
    and ``_`` (the longest such name)."""
    owners = [name for name in exercises if test.startswith(name + "_")]
    return max(owners, key=len) if owners else None


# --------------------------------------------------------------------------- diagnosis


@dataclass
class Diagnosis:
    """What a failed exercise looks like: the misconception whose probe the student's
    answers match (``misconception`` set), or the smallest probe call on which the answer
    differs from the rule (``misconception`` None), with what came back and what the rule
    gives."""

    exercise: str
    misconception: str | None
    call: str
    got: str
    rule: str
    says: str = ""
    hint: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise,
            "misconception": self.misconception,
            "says": self.says,
            "hint": self.hint,
            "call": self.call,
            "got": self.got,
            "rule": self.rule,
        }


class Unanswered(Exception):
    """The function is still the release's stub (it raised NotImplementedError)."""


def diagnose(exercise: Exercise, observe: Callable[[str], Observation]) -> Diagnosis | None:
    """Match a function's answers on the exercise's probes against the catalogue.

    *observe* calls the function on a probe call (``Observation``; each call is observed
    once). Returns the first misconception (catalogue order) all of whose probe calls the
    answers match; else the failing probe call with the shortest text; else None (every
    probe gives the rule's answer). Raises :class:`Unanswered` when the first call raises
    ``NotImplementedError`` (an unanswered exercise has nothing to diagnose); exceptions
    of *observe* itself (a call that could not be made) propagate.
    """
    seen: dict[str, Observation] = {}

    def look(call: str) -> Observation:
        if call not in seen:
            seen[call] = observe(call)
            if len(seen) == 1 and isinstance(seen[call].error, NotImplementedError):
                raise Unanswered(exercise.name)
        return seen[call]

    for entry in exercise.misconceptions:
        shown = None
        for probe in entry.probes:
            observation = look(probe.call)
            if not probe.answer_matches(observation):
                break
            if shown is None and not probe.rule_matches(observation):
                shown = (probe, observation)  # the first call where it is not the rule's
        else:
            if shown is None:  # the catalogue's tests rule this out: never the rule's answers
                continue
            probe, observation = shown
            return Diagnosis(
                exercise.name,
                entry.id,
                probe.call,
                observation.describe(),
                probe.rule.describe(),
                entry.says,
                entry.hint,
            )
    rules = exercise.rules()
    failing = []
    for call in exercise.calls():
        observation = look(call)
        probe = Probe(call, rules[call], None, {})
        if not probe.rule_matches(observation):
            failing.append((len(call), call, observation))
    if not failing:
        return None
    _, call, observation = min(failing, key=lambda f: (f[0], f[1]))
    return Diagnosis(exercise.name, None, call, observation.describe(), rules[call].describe())


def call_options(
    tests: Mapping[str, str], exercises: Iterable[str]
) -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    """exercise -> ``(disable, use_reference)``: how its test cells call its function
    (``linlib.grading.call_student``'s keywords, read from the cells' full sources without
    running them; every call of an exercise's cells counts). A name used as a reference is
    not also disabled (``call_student`` refuses that)."""
    from autograder.notebook import disabled_names, used_references

    exercises = list(exercises)
    disable: dict[str, set[str]] = {name: set() for name in exercises}
    references: dict[str, dict[str, str]] = {name: {} for name in exercises}
    for grade_id, source in tests.items():
        owner = exercise_of(grade_id, exercises)
        if owner is None:
            continue
        disable[owner] |= disabled_names(source)
        references[owner].update(used_references(source))
    return {
        name: (
            tuple(sorted(disable[name] - set(references[name].values()))),
            references[name],
        )
        for name in exercises
    }
