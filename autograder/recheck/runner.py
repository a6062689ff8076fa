"""The runner: each autograded test cell's full source, run here in a trusted namespace.

A result decided inside the student's kernel can be forged from inside it (patch
``np.testing``, install an AST transformer that deletes asserts, return an object whose
``__eq__`` is always true). So the grader runs each autograded test cell's *full* source
(visible and hidden tests; it is the instructor's code) once more, in its own process, in a
fresh namespace with its own numpy, linlib and scikit-learn, built by
:class:`~autograder.recheck.names.Resolver`: the graded functions stay remote in the
student's sandboxed kernel (:mod:`autograder.recheck.channel`), the instructor's code is
re-run here, anything else must be plain data (:mod:`autograder.recheck.codec`).

The checks themselves (``assert_close``, ``assert``, numpy comparisons) therefore run on
genuine values with genuine code. A call that errors, times out or returns something that
is not plain data makes the test fail; a failure is located in the visible or the hidden
tests (``autograder.notebook.hidden_line_ranges``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Test cells import these; doing it once here keeps the first re-check in a worker fast.
import linlib.grading  # noqa: F401
from autograder.notebook import hidden_line_ranges
from autograder.recheck.channel import KernelCallTimeout, KernelChannel
from autograder.recheck.names import (
    DEFAULT_MODULE_ALIASES,
    InstructorCode,
    MirroredNamespace,
    Resolver,
    free_names,
    quiet,
    read_before_bound,
)
from autograder.recheck.scan import parse_cell as _parse

__all__ = ["CheckResult", "check_cells", "run_test_cell"]


@dataclass
class CheckResult:
    """The trusted outcome of one autograded test cell."""

    grade_id: str
    passed: bool
    ename: str = ""
    message: str = ""
    where: str = ""  # "visible", "hidden" or "" (passed, or not located)
    calls: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: the student's function whose call ran out of time and failed the cell, if one did
    timed_out: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "ename": self.ename,
            "message": self.message,
            "where": self.where,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
        }


def _failure_line(exc: BaseException, filename: str) -> int | None:
    # The innermost frame of the cell's own code: test cells often wrap their checks in
    # functions called at the end, so the outermost frame would always be visible code.
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run_test_cell(
    grade_id: str,
    source: str,
    code: InstructorCode,
    channel: KernelChannel,
    *,
    time_budget: float = 120.0,
    aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
) -> CheckResult:
    """Run one test cell's full source in this (trusted) process; report pass or fail."""
    start = time.monotonic()
    calls_before = channel.calls
    channel.deadline = start + time_budget
    try:
        result = _run_test_cell(grade_id, source, code, channel, aliases)
    finally:
        channel.deadline = None
    result.calls = channel.calls - calls_before
    result.seconds = time.monotonic() - start
    return result


def _run_test_cell(
    grade_id: str,
    source: str,
    code: InstructorCode,
    channel: KernelChannel,
    aliases: Mapping[str, str],
) -> CheckResult:
    filename = f"<test cell {grade_id}>"
    tree = _parse(source)
    if tree is None:
        return CheckResult(grade_id, False, "SyntaxError", "the test cell does not parse")
    resolver = Resolver(code, channel, code.positions.get(grade_id), aliases)
    names = resolver.resolve_all(free_names(tree) | read_before_bound(tree.body))
    namespace = MirroredNamespace(names, channel, code.graded_functions)
    compiled = compile(tree, filename, "exec")
    try:
        with quiet():
            exec(compiled, namespace)
    except Exception as exc:
        line = _failure_line(exc, filename)
        where = ""
        if line is not None:
            hidden = any(a <= line <= b for a, b in hidden_line_ranges(source))
            where = "hidden" if hidden else "visible"
        message = str(exc)
        notes = getattr(exc, "__notes__", None)
        if notes:
            message = (message + " " + " ".join(str(n) for n in notes)).strip()
        hung = exc.function if isinstance(exc, KernelCallTimeout) else None
        return CheckResult(
            grade_id,
            False,
            type(exc).__name__,
            message[:2000],
            where,
            notes=resolver.notes,
            timed_out=hung or "",
        )
    return CheckResult(grade_id, True, notes=resolver.notes)


def check_cells(
    cells: Iterable[tuple[str, str]],
    code: InstructorCode,
    channel: KernelChannel,
    *,
    time_budget: float = 120.0,
    total_budget: float | None = None,
    aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
) -> dict[str, CheckResult]:
    """:func:`run_test_cell` for each ``(grade_id, full source)``.

    Each cell gets *time_budget* seconds, and all of them together *total_budget*: a
    student's function that answers just before every timeout cannot stretch the re-check
    of a notebook without bound.
    """
    results: dict[str, CheckResult] = {}
    end = None if total_budget is None else time.monotonic() + total_budget
    for grade_id, source in cells:
        budget = time_budget
        if end is not None:
            budget = min(budget, end - time.monotonic())
        if budget <= 0:
            results[grade_id] = CheckResult(
                grade_id, False, "TimeoutError", "the time for re-checking this notebook ran out"
            )
            continue
        results[grade_id] = run_test_cell(
            grade_id, source, code, channel, time_budget=budget, aliases=aliases
        )
    return results
