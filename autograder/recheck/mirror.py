"""The changes a student's function made to its arguments, mirrored on the grader's side.

The kernel sends a call's arguments back after the call; :func:`apply_mutations` decodes
them strictly (the functions the grader sent may come back, as sent: see
:func:`autograder.recheck.codec.encode_call`) and changes the grader's own arrays, lists
and dicts in place where they differ. Arguments that come back unchanged stay the very
same objects.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from autograder.recheck.codec import NotPlainData, decode
from autograder.recheck.remote import RemoteObject, RemoteType

__all__ = ["apply_mutations", "mirror", "plain_equal"]


def apply_mutations(
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    after_args: Any,
    after_kwargs: Any,
    sent: Mapping[str, Any] | None = None,
    refs: Callable[[dict[str, Any]], Any] | None = None,
) -> None:
    """Mirror in-place changes to *args* and *kwargs* (the kernel's *after_args*,
    *after_kwargs*). Raises :class:`NotPlainData` if what came back is not plain data, or
    holds a function the grader did not send."""
    try:
        new_args = decode(after_args, sent=sent, refs=refs)
        new_kwargs = decode(after_kwargs, sent=sent, refs=refs)
    except NotPlainData as exc:
        raise NotPlainData(f"the arguments after the call are not plain data: {exc}") from None
    if isinstance(new_args, list) and len(new_args) == len(args):
        for old, value in zip(args, new_args, strict=True):
            mirror(old, value)
    if isinstance(new_kwargs, dict):
        for key, old in kwargs.items():
            if key in new_kwargs:
                mirror(old, new_kwargs[key])


def mirror(old: Any, new: Any) -> None:
    """Make the array, list or dict *old* equal to *new*, in place, if it differs."""
    if isinstance(old, np.ndarray) and isinstance(new, np.ndarray):
        if (
            old.shape == new.shape
            and old.flags.writeable
            and not np.array_equal(old, new, equal_nan=old.dtype.kind in "fc")
        ):
            with contextlib.suppress(TypeError, ValueError):
                old[...] = new
    elif type(old) is list and isinstance(new, list):
        if not plain_equal(old, new):
            old[:] = new
    elif type(old) is dict and isinstance(new, dict):
        if not plain_equal(old, new):
            old.clear()
            old.update(new)


def plain_equal(a: Any, b: Any) -> bool:
    """Equality of decoded plain data; arrays inside lists compare element-wise, never by
    ``==``; functions (the ones the grader sent) by identity."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc")
        )
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(plain_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(plain_equal(a[k], b[k]) for k in a)
    if isinstance(a, RemoteObject | RemoteType) or isinstance(b, RemoteObject | RemoteType):
        return a is b  # the kernel's objects: never compared by their own code
    if callable(a) or callable(b):
        return a is b
    return type(a) is type(b) and bool(a == b)
