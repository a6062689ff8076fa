"""The catalogue's answers: a pattern read from the notation, and whether what a call did
matches it."""

from __future__ import annotations

import ast
import builtins
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.misconceptions.notation import _KINDS, _called, _expression, _number, _value
from autograder.misconceptions.observation import Observation

#: The tolerance of a number in a pattern (``linlib.grading.assert_close``'s defaults).
RTOL, ATOL = 1e-7, 1e-9


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
        prefixes: dict[type | None, str] = {list: "a list ", tuple: "a tuple "}
        prefix = prefixes.get(self.kind, "")
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
    number = _number(args[0]) if name in ("int", "float") and len(args) == 1 else None
    if number is not None:
        return _Number(number, name)
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
    """The answer pattern *text* stands for (see :mod:`autograder.misconceptions`)."""
    return _pattern(_expression(text), str(text).strip())
