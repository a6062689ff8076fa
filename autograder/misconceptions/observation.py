"""What one call of a graded function did on a probe's call: its value or the exception it
raised, and the arguments it changed in place."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autograder.misconceptions.notation import SHOWN, parse_call, render


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
        ename = getattr(error, "ename", "")  # its name, as the student's kernel reported it
        return f"raised {ename}" if ename.isidentifier() else "raised an exception"
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
