"""Which build of linlib this is.

The repository's linlib, which the grader and the lecture use, is the full library. The
wheel in an assignment's student zip (``python -m autograder release``) is a *student
build*: the library's answers to that assignment's exercises and to later ones are stubs
that raise ``NotImplementedError`` (``autograder/release/answers.py`` writes the values
below into that wheel's copy of this module).

A test of a later exercise puts the library's reference in place of the student's earlier
function (``linlib.grading.references_in_place_of``). A student build has no reference of
the assignment's own exercises, only its answers to the calls that the instructor's
solutions make of it in the release's test cells, recorded at release time
(``autograder/release/replays.py``): ``REPLAYS``.
"""

from __future__ import annotations

from typing import Any

#: The assignment whose student build this is; None for the full library.
ASSIGNMENT: str | None = None
#: The stubbed functions and classes, as ``module.qualname`` (``linlib.geometry.augment``).
STUBS: frozenset[str] = frozenset()
#: The recorded answers of stubbed references, as JSON: ``module.qualname`` -> a list of
#: ``[arguments, result]``, the arguments bound to the reference's parameters by name, each
#: value in the re-check's wire format (``linlib.grader_kernel_wire.encode``). Empty in the
#: full library.
REPLAYS: str = "{}"


def qualified_name(obj: Any) -> str:
    """``module.qualname`` of a function or class, the form of ``STUBS`` and ``REPLAYS``."""
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def is_stub(obj: Any) -> bool:
    """True when ``obj`` is a stubbed function or class of this build (or a method of one)."""
    if not STUBS:
        return False
    name = qualified_name(obj)
    return name in STUBS or any(name.startswith(stub + ".") for stub in STUBS)
