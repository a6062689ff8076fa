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

import ast
import builtins
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
    bound_names,
    free_names,
    quiet,
    read_before_bound,
)
from autograder.recheck.remote import RecheckLimit
from autograder.recheck.scan import parse_cell as _parse

__all__ = ["CheckResult", "NotebookCheck", "check_cells", "run_test_cell"]


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
    #: the line of the test cell that failed (1-based; None: passed, or not located)
    line: int | None = None
    #: where the student's own code decided an outcome (``Counter.__eq__``): the verdict
    #: rests on it
    decided_by: list[str] = field(default_factory=list)
    #: why the re-check could not run the cell as the kernel ran it ("": it could)
    limit: str = ""

    @property
    def decided(self) -> bool:
        """The verdict was reached by trusted code alone."""
        return not self.decided_by and not self.limit

    def why_undecided(self) -> str:
        """Why the verdict is not the re-check's own (one line; "" when it is)."""
        if self.limit:
            return self.limit
        if self.decided_by:
            methods = ", ".join(self.decided_by[:3])
            return f"its verdict rests on the student's own code ({methods})"
        return ""

    def as_dict(self) -> dict[str, Any]:
        out = {
            "passed": self.passed,
            "ename": self.ename,
            "message": self.message,
            "where": self.where,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
        }
        if self.line is not None:
            out["line"] = self.line
        if not self.decided:
            out["undecided"] = self.why_undecided()
        return out


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


def _limited(exc: BaseException) -> RecheckLimit | None:
    """The re-check's limit behind *exc* (raised, or the cause or context of it)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, RecheckLimit):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _python_source(source: str) -> ast.Module | None:
    """The cell as Python: as written, or with IPython's syntax (magics, ``!`` commands)
    turned into calls of ``get_ipython()`` as the kernel turns it."""
    tree = _parse(source)
    if tree is not None:
        return tree
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        transformed = TransformerManager().transform_cell(source)
    except Exception:
        return None
    return _parse(transformed)


class NotebookCheck:
    """The re-check of one notebook's test cells, in order, in one trusted namespace: what a
    test cell binds (its hidden part too) is there for the next, as in the kernel."""

    def __init__(
        self,
        code: InstructorCode,
        channel: KernelChannel,
        aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
    ) -> None:
        self.code = code
        self.channel = channel
        base = {"__name__": "__main__", "__builtins__": builtins}
        self.namespace = MirroredNamespace(base, channel, code.graded_functions)
        self.resolver = Resolver(code, channel, aliases, namespace=self.namespace)

    def run(self, grade_id: str, source: str, *, time_budget: float = 120.0) -> CheckResult:
        """Run one test cell's full source here; report pass or fail, and whether the
        verdict is the re-check's own."""
        start = time.monotonic()
        calls_before = self.channel.calls
        self.channel.deadline = start + time_budget
        self.channel.reset_notes()
        notes_before = len(self.resolver.notes)
        try:
            result = self._run(grade_id, source)
        finally:
            self.channel.deadline = None
        result.calls = self.channel.calls - calls_before
        result.seconds = time.monotonic() - start
        result.notes = self.resolver.notes[notes_before:]
        result.decided_by = list(self.channel.decisions)
        if self.channel.limits and not result.limit:
            result.limit = self.channel.limits[0]
        return result

    def _run(self, grade_id: str, source: str) -> CheckResult:
        filename = f"<test cell {grade_id}>"
        tree = _python_source(source)
        if tree is None:
            return CheckResult(grade_id, False, "SyntaxError", "the test cell does not parse")
        position = self.code.positions.get(grade_id)
        # the kernel's graded functions as the test met them (a later answer cell may have
        # defined one again under the same name)
        self.channel.versions = self.code.versions_at(position)
        self.resolver.resolve_all(free_names(tree) | read_before_bound(tree.body), position)
        compiled = compile(tree, filename, "exec")
        try:
            with quiet():
                exec(compiled, self.namespace)
        except Exception as exc:
            return self._failure(grade_id, source, filename, exc)
        finally:
            self.resolver.bound_by_test(bound_names(tree))
        return CheckResult(grade_id, True)

    def _failure(
        self, grade_id: str, source: str, filename: str, exc: BaseException
    ) -> CheckResult:
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
        limit = _limited(exc)
        return CheckResult(
            grade_id,
            False,
            type(exc).__name__,
            message[:2000],
            where,
            timed_out=hung or "",
            line=line,
            limit=str(limit) if limit is not None else "",
        )


def run_test_cell(
    grade_id: str,
    source: str,
    code: InstructorCode,
    channel: KernelChannel,
    *,
    time_budget: float = 120.0,
    aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
) -> CheckResult:
    """Run one test cell's full source in this (trusted) process, in a namespace of its
    own; report pass or fail."""
    return NotebookCheck(code, channel, aliases).run(grade_id, source, time_budget=time_budget)


def check_cells(
    cells: Iterable[tuple[str, str]],
    code: InstructorCode,
    channel: KernelChannel,
    *,
    time_budget: float = 120.0,
    total_budget: float | None = None,
    aliases: Mapping[str, str] = DEFAULT_MODULE_ALIASES,
) -> dict[str, CheckResult]:
    """Each ``(grade_id, full source)`` in order, in one trusted namespace
    (:class:`NotebookCheck`).

    Each cell gets *time_budget* seconds, and all of them together *total_budget*: a
    student's function that answers just before every timeout cannot stretch the re-check
    of a notebook without bound.
    """
    results: dict[str, CheckResult] = {}
    check = NotebookCheck(code, channel, aliases)
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
        results[grade_id] = check.run(grade_id, source, time_budget=budget)
    return results
