"""What ``SafeExecute`` writes into a graded notebook once the re-check is done.

Each test cell's outputs say what the trusted re-check found (a failure becomes an
``error`` output with the failure's message, never hidden source; a pass loses any error
or stderr output); the per-test outcomes go to ``nb.metadata["autograder"]["checks"]``;
what was noticed (a stopped kernel, cut output, a kernel and a re-check that disagree)
becomes readable flags.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import nbformat
from nbformat import NotebookNode

from autograder.notebook import add_flag, is_test_cell
from autograder.recheck.channel import HungCall
from autograder.recheck.names import InstructorCode
from autograder.recheck.runner import CheckResult

__all__ = ["NOT_REPRODUCED", "KernelCells", "RunState", "finish", "hang_flags", "short"]


def short(text: str, limit: int = 240) -> str:
    """*text* on one line, cut to *limit* characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class RunState:
    """What happened while one notebook ran; cells are known by their index."""

    #: Why the kernel stopped (None: it did not).
    dead: str | None = None
    #: Code cells that were never run.
    not_run: set[int] = field(default_factory=set)
    #: Cells whose output was cut -> bytes dropped.
    truncated: dict[int, int] = field(default_factory=dict)
    #: Cells whose output did not all arrive: the kernel said the cell was done, but IOPub
    #: never said it was idle (a message over the grader's cap ends the connection).
    lost_output: set[int] = field(default_factory=set)
    #: Cells whose hidden tests were taken out before the run -> their source.
    original_sources: dict[int, str] = field(default_factory=dict)
    #: (cell index, limit in seconds) of each cell that timed out in the kernel.
    timeouts: list[tuple[int, int]] = field(default_factory=list)
    #: Cell numbers (1-based) after which the kernel was killed: it ignored an interrupt.
    killed: list[int] = field(default_factory=list)
    #: The cell number after which the killed kernel was restarted (None: it was not).
    restarted: int | None = None
    #: The re-check restarted the kernel after a call ignored an interrupt.
    restarted_in_recheck: bool = False
    #: Why cells were not run when the notebook's time ran out (answer cells still ran).
    out_of_time: str | None = None
    #: The student's functions that did not return in time during the re-check.
    hung: list[HungCall] = field(default_factory=list)


#: Why a test cell on which the re-check and the kernel disagree, for the instructor's own
#: solution, is the kernel's to decide.
NOT_REPRODUCED = (
    "the re-check, run after the notebook, cannot reproduce the state the test met when it "
    "ran (the instructor's own solution fails it here and passes it in the kernel)"
)


@dataclass(frozen=True)
class KernelCells:
    """Which test cells are scored as the kernel ran them (their hidden tests run in the
    kernel too), not as the trusted re-check found.

    ``instructor``: the notebook is the instructor's own solution (the canary): every cell
    the re-check cannot decide by itself, or on which it fails where the kernel passes.
    Otherwise ``cells`` (grade id -> why), the cells the canary found so; None: not known
    yet (a cell the re-check cannot decide fails, provisionally: the grader grades it again
    once the canary has said).
    """

    instructor: bool = False
    cells: Mapping[str, str] | None = field(default_factory=dict)

    def full_source(self, grade_id: str) -> bool:
        """Whether the kernel runs the cell's hidden tests too."""
        return self.instructor or (self.cells is not None and grade_id in self.cells)


def finish(
    nb: NotebookNode,
    state: RunState,
    full_sources: dict[str, str],
    results: dict[str, CheckResult],
    checks: dict[str, dict[str, Any]],
    instructor: InstructorCode | None = None,
    kernel_cells: KernelCells | None = None,
) -> None:
    """Put back the sources the kernel did not see, make each test cell's outputs say what
    the trusted re-check found, record per-test outcomes in *checks* and flag the rest
    (*instructor* names the exercise of a function that hung). A test cell of
    *kernel_cells* is scored as the kernel ran it, flagged ``not re-checked``; any other that
    the re-check could not decide by itself (:attr:`CheckResult.decided`) fails, saying
    why."""
    kernel_cells = kernel_cells or KernelCells()
    for text in hang_flags(state, results, instructor):
        add_flag(nb, text)
    if state.dead:
        add_flag(nb, f"kernel stopped: {state.dead}")
    if state.truncated:
        cells = ", ".join(f"#{i + 1}" for i in sorted(state.truncated))
        add_flag(nb, f"output too large: cut in cell(s) {cells}")
    if state.lost_output:
        cells = ", ".join(f"#{i + 1}" for i in sorted(state.lost_output))
        add_flag(
            nb,
            f"output lost in cell(s) {cells}: not all of it reached the grader (a message "
            "larger than the grader accepts is dropped)",
        )
    for index, cell in enumerate(nb.cells):
        if not is_test_cell(cell):
            if index in state.original_sources:
                cell.source = state.original_sources[index]
            continue
        grade_id = cell.metadata.nbgrader["grade_id"]
        if grade_id not in full_sources:
            continue
        outputs = list(cell.get("outputs", []))
        kernel_errors = [o for o in outputs if o.get("output_type") == "error"]
        if index in state.not_run:
            kernel = "not run"
        elif kernel_errors:
            err = kernel_errors[0]
            kernel = f"fail ({err.get('ename', '')}: {short(err.get('evalue', ''), 160)})"
        else:
            kernel = "pass"
        record: dict[str, Any] = {"kernel": kernel}
        result = results.get(grade_id)
        if result is None and kernel == "not run":
            # never scored as a pass just because nothing ran
            cell.outputs = [
                *outputs,
                nbformat.v4.new_output(
                    "error", ename="NotRun", evalue=str(state.dead), traceback=[]
                ),
            ]
        why = _kernel_decides(grade_id, result, kernel, kernel_cells)
        if result is not None and why:
            record["trusted"] = "not re-checked"
            record.update(result.as_dict())
            record["undecided"] = why
            add_flag(nb, f"{grade_id}: not re-checked: {why}; scored as the kernel ran it")
            cell.source = full_sources[grade_id]
            checks[grade_id] = record
            continue
        if result is not None and not result.decided:
            if kernel_cells.cells is None:
                record["provisional"] = True
            result = _undecided_failure(result)
        if result is not None:
            record["trusted"] = "pass" if result.passed else "fail"
            record.update(result.as_dict())
            _set_outputs(cell, outputs, kernel_errors, _located(result, full_sources[grade_id]))
            _flag_disagreement(nb, grade_id, kernel, kernel_errors, result)
        cell.source = full_sources[grade_id]
        checks[grade_id] = record


def _kernel_decides(
    grade_id: str, result: CheckResult | None, kernel: str, kernel_cells: KernelCells
) -> str:
    """Why the kernel decides the test cell *grade_id* ("": the re-check does)."""
    if result is None:
        return ""
    if kernel_cells.instructor:
        if not result.decided:
            return result.why_undecided()
        if not result.passed and kernel == "pass":
            return NOT_REPRODUCED
        return ""
    if kernel_cells.cells is not None and grade_id in kernel_cells.cells:
        return kernel_cells.cells[grade_id] or result.why_undecided() or NOT_REPRODUCED
    return ""


def _undecided_failure(result: CheckResult) -> CheckResult:
    """A test cell the re-check could not decide, where the instructor's solution lets it
    decide: it fails, and says why."""
    if result.limit:
        message = f"the autograder could not re-check this test: {result.limit}"
    else:
        methods = ", ".join(result.decided_by[:3])
        message = (
            f"the answer is an object whose own code decides the test ({methods}); the test "
            "needs a plain value, as the instructor's solution gives"
        )
    return dataclasses.replace(
        result, passed=False, ename="AssertionError", message=message, where="", line=None
    )


def _exercise(name: str, instructor: InstructorCode | None) -> str:
    """The grade id of the answer cell that defines the graded function *name*."""
    if instructor is not None:
        for binding in instructor.bindings.get(name, []):
            if binding.kind == "solution":
                key = instructor.cells[binding.position][1]
                if key:
                    return str(key)
    return name


def hang_flags(
    state: RunState, results: dict[str, CheckResult], instructor: InstructorCode | None = None
) -> list[str]:
    """One line per time-out, killed kernel and restart: what happened and what it cost."""
    flags = []
    if state.timeouts:
        cells = ", ".join(f"#{i + 1} ({limit} s)" for i, limit in state.timeouts)
        flags.append(
            f"time-out: cell(s) {cells} did not finish in the student's kernel and were "
            "interrupted; the tests are decided by the trusted re-check"
        )
    if state.restarted is not None:
        flags.append(
            f"cell #{state.restarted} did not stop when interrupted: the kernel was killed and "
            "restarted, the cells that had finished were run again, and of the later cells "
            "only the answer cells"
        )
    if state.out_of_time:
        flags.append(state.out_of_time)
    for hung in state.hung:
        tests = [g for g, r in results.items() if r.timed_out == hung.name]
        cost = f"its tests {', '.join(tests)} scored 0" if tests else "its tests scored 0"
        text = (
            f"exercise {_exercise(hung.name, instructor)}: {hung.name} did not return within "
            f"{hung.seconds:.0f} s when re-checked (timed out; {cost})"
        )
        if hung.killed:
            text += "; it ignored the interrupt, so the kernel was killed" + (
                " and restarted for the other exercises" if state.restarted_in_recheck else ""
            )
        flags.append(text)
    return flags


def _located(result: CheckResult, source: str) -> CheckResult:
    """A failed assertion without a message says which check failed: the visible line's
    code, or that a hidden check did (a feedback page shows a test cell that holds hidden tests
    with its error's message only, never its traceback)."""
    if result.passed or result.message or result.line is None or result.ename != "AssertionError":
        return result
    if result.where == "hidden":
        return dataclasses.replace(result, message="a hidden check failed")
    lines = source.split("\n")
    code = lines[result.line - 1].strip() if 0 < result.line <= len(lines) else ""
    if not code:
        return result
    return dataclasses.replace(result, message=f"line {result.line} failed: {short(code, 160)}")


def _set_outputs(cell, outputs, kernel_errors, result: CheckResult) -> None:
    kept = []
    for output in outputs:
        if output.get("output_type") == "error":
            continue
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            output["name"] = "stdout"  # a warning is not a failure
        kept.append(output)
    if not result.passed:
        if kernel_errors and result.where == "visible":
            # The same visible test failed in the kernel: its traceback (visible code
            # only) helps the student most.
            error = kernel_errors[0]
            if not error.get("evalue") and result.message:
                error["evalue"] = result.message  # what a page without the traceback shows
            kept.append(error)
        else:
            text = f"{result.ename}: {result.message}" if result.message else result.ename
            kept.append(
                nbformat.v4.new_output(
                    "error",
                    ename=result.ename or "AssertionError",
                    evalue=result.message,
                    traceback=[
                        text,
                        "(checked by the autograder outside the notebook's kernel)",
                    ],
                )
            )
    cell.outputs = kept


def _flag_disagreement(nb, grade_id, kernel, kernel_errors, result) -> None:
    if result.ename in ("KernelUnavailable", "KernelCallTimeout"):
        return  # the "kernel stopped" flag says why
    if result.passed and kernel != "pass" and kernel != "not run":
        add_flag(
            nb,
            f"{grade_id}: failed in the student's kernel {kernel[5:]} but passed the "
            "trusted re-check; the trusted result counts",
        )
    elif not result.passed and kernel == "pass" and result.where != "hidden":
        what = "visible tests" if result.where == "visible" else "test cell"
        add_flag(
            nb,
            f"{grade_id}: the student's kernel reported a pass, but the trusted re-check "
            f"of the {what} failed ({result.ename}: {short(result.message, 200)}); "
            "the trusted result counts",
        )
    for note in result.notes:
        add_flag(nb, f"{grade_id}: re-check: {note}")
