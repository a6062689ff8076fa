"""The catalogue's notation read and written: a probe's call and the values in it parsed with
:mod:`ast`, never evaluated, and a value written back in the notation for a student."""

from __future__ import annotations

import ast
import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Characters of a rendered value shown to a student.
SHOWN = 240


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
    literal = node.value if isinstance(node, ast.Constant) else None
    if isinstance(literal, int | float) and not isinstance(literal, bool):
        return literal
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
    call = node if isinstance(node, ast.Call) and not node.keywords else None
    if call is not None and _called(call) == "sqrt" and len(call.args) == 1:
        inner = _number(call.args[0])
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
