"""Which build of linlib this is.

The repository's linlib, which the grader and the lecture use, is the full library. The
wheel in an assignment's student zip (``python -m autograder release``) is a *student
build*: the library's answers to that assignment's exercises and to later ones are stubs
that raise ``NotImplementedError`` (``autograder/release/answers.py`` writes the values
below into that wheel's copy of this module).
"""

from __future__ import annotations

from typing import Any

#: The assignment whose student build this is; None for the full library.
ASSIGNMENT: str | None = None
#: The stubbed functions and classes, as ``module.qualname`` (``linlib.geometry.augment``).
STUBS: frozenset[str] = frozenset()


def is_stub(obj: Any) -> bool:
    """True when ``obj`` is a stubbed function or class of this build (or a method of one)."""
    if not STUBS:
        return False
    name = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
    return name in STUBS or any(name.startswith(stub + ".") for stub in STUBS)
