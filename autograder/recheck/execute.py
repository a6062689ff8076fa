"""``SafeExecute``: nbgrader's ``Execute`` with a sandboxed kernel and a trusted re-check.

Put it in place of ``Execute`` in ``Autograde.autograde_preprocessors`` (the autograder does
this when the sandbox is on). For each notebook it:

1. takes every autograded test cell's full source (visible and hidden tests) from the
   gradebook, and gives the kernel only the visible part (hidden-test source never reaches
   the student's kernel);
2. scans the student's cells for tampering patterns (:mod:`autograder.scan`);
3. executes the notebook in a kernel inside the sandbox (:mod:`autograder.sandbox`), with a
   per-cell timeout (interrupt, then kill if the interrupt is ignored), a wall clock for the
   whole notebook, and caps on the bytes of output kept per cell and per notebook;
4. with the kernel still running, re-runs each test cell's full source in this trusted
   process (:mod:`autograder.trusted`) and makes the cell's outputs say what the trusted
   re-check found: a failure becomes an ``error`` output with the failure's message (never
   hidden source), a pass loses any error or stderr output (a correct answer that warns
   keeps its points);
5. records what it noticed as readable flags in ``nb.metadata["autograder"]["flags"]`` and
   the per-test outcomes in ``nb.metadata["autograder"]["checks"]``; then stops the sandbox
   (every process the notebook started dies with it).

Configuration: the traits below (``c.SafeExecute.<name>``), or, for a whole run, the
environment variable ``AUTOGRADER_SAFE_EXECUTE`` holding a JSON object of trait values
(``{"timeout": 10, "sandbox_limits": {"total_memory": 536870912}}``).
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import time
from pathlib import Path
from queue import Empty
from typing import Any

import nbformat
from jupyter_core.utils import run_sync
from nbclient.client import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute
from traitlets import Bool, Dict, Float, Integer, Type, Unicode, default

from autograder.notebook import FLAGS_KEY, HIDDEN_BEGIN, add_flag, is_test_cell, strip_hidden_tests
from autograder.recheck import scan, trusted
from autograder.sandbox import Limits, SandboxedKernelManager

__all__ = ["ENV_CONFIG", "SafeExecute"]

ENV_CONFIG = "AUTOGRADER_SAFE_EXECUTE"


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _defs_only(source: str, exclude: set[str]) -> str:
    """Stubs of the functions a cell defines (not those in *exclude*)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    return "\n".join(
        f"def {node.name}(*args, **kwargs):\n    raise NotImplementedError()"
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name not in exclude
    )


def _running(pid: int) -> bool:
    """Alive and not a zombie (a finished child nobody waited for is not "left running")."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _tests_in(nb: NotebookNode, full_sources: dict[str, str]) -> list[tuple[str, NotebookNode]]:
    """(grade id, cell) of the notebook's autograded test cells the gradebook knows."""
    return [
        (cell.metadata.nbgrader["grade_id"], cell)
        for cell in nb.cells
        if is_test_cell(cell) and cell.metadata.nbgrader["grade_id"] in full_sources
    ]


def _msg_bytes(msg: dict[str, Any]) -> int:
    content = msg.get("content", {})
    total = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        total += len(value) if isinstance(value, str) else len(json.dumps(value))
    for line in content.get("traceback", []) or []:
        total += len(line)
    return total


class SafeExecute(Execute):
    """nbgrader's ``Execute`` in a sandbox, with hidden tests kept out of the kernel and
    every test cell's outcome decided by a trusted re-check outside the kernel."""

    kernel_manager_class = Type(SandboxedKernelManager, config=True)

    notebook_timeout = Integer(
        300, help="Wall-clock seconds for executing all the cells of one notebook."
    ).tag(config=True)
    interrupt_grace = Float(
        3.0, help="Seconds a kernel has to stop after an interrupt before it is killed."
    ).tag(config=True)
    recheck = Bool(True, help="Re-run test cells in the trusted process.").tag(config=True)
    recheck_call_timeout = Float(
        30.0, help="Seconds one call of a student's function may take during the re-check."
    ).tag(config=True)
    recheck_cell_timeout = Float(120.0, help="Seconds the re-check of one test cell may take.").tag(
        config=True
    )
    recheck_notebook_timeout = Float(
        200.0, help="Seconds the re-check of all the test cells of a notebook may take."
    ).tag(config=True)
    max_cell_output_bytes = Integer(
        256 * 1024, help="Bytes of output kept per cell (the rest is dropped)."
    ).tag(config=True)
    max_notebook_output_bytes = Integer(
        4 * 1024 * 1024, help="Bytes of output kept per notebook."
    ).tag(config=True)
    sandbox_limits = Dict({}, help="sandbox Limits fields to change.").tag(config=True)
    source_notebook_dir = Unicode(
        "", help="Folder of the instructor's notebooks (default: the course's source/)."
    ).tag(config=True)
    scan_submissions = Bool(True, help="Flag tampering patterns in students' code.").tag(
        config=True
    )

    @default("raise_on_iopub_timeout")
    def _default_raise_on_iopub_timeout(self) -> bool:
        # A kernel that floods or drops output must not abort the notebook's grading.
        return False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # nbgrader's Execute defaults this to the plain AsyncKernelManager: never here.
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        super().__init__(*args, **kwargs)
        overrides = os.environ.get(ENV_CONFIG)
        if overrides:
            for name, value in json.loads(overrides).items():
                if not self.has_trait(name):
                    raise ValueError(f"{ENV_CONFIG}: SafeExecute has no setting {name!r}")
                setattr(self, name, value)
        Limits.from_mapping(self.sandbox_limits)  # unknown names fail early

    # ------------------------------------------------------------------ notebook level

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None):
        resources = resources if resources is not None else {}
        meta = nb.metadata.setdefault(FLAGS_KEY, {})
        meta.setdefault("flags", [])
        checks: dict[str, dict[str, Any]] = {}
        meta["checks"] = checks
        self._notebook = nb

        full_sources = self._test_sources(nb, resources)
        self._enforce_test_metadata(nb, full_sources)
        instructor = self._instructor_code(nb, resources, full_sources)
        self._original_sources = {}
        for cell in nb.cells:
            if cell.cell_type == "code" and HIDDEN_BEGIN in cell.source:
                # Whatever its metadata says, no hidden region reaches the kernel.
                self._original_sources[id(cell)] = cell.source
                cell.source = strip_hidden_tests(cell.source)
        for grade_id, cell in _tests_in(nb, full_sources):
            cell.source = strip_hidden_tests(full_sources[grade_id])

        if self.scan_submissions:
            sources = [src for kind, _, src in instructor.cells if kind != "solution"]
            for finding in scan.scan_notebook(nb, instructor_sources=sources):
                add_flag(nb, str(finding))

        results: dict[str, trusted.CheckResult] = {}
        self._run_state: dict[str, Any] = {"dead": None, "not_run": set(), "truncated": {}}
        started = time.monotonic()
        try:
            results = self._execute_and_check(nb, resources, instructor, full_sources)
        finally:
            meta["seconds"] = round(time.monotonic() - started, 3)
        self._finish(nb, full_sources, results, checks)
        return nb, resources

    def _test_sources(self, nb: NotebookNode, resources: Any) -> dict[str, str]:
        """grade id -> full source of every autograded test cell, from the gradebook.

        The gradebook (not the submission's metadata) says which cells are autograded
        tests; without a gradebook (outside nbgrader), the notebook's metadata does.
        """
        info = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        if not info.get("db_url"):
            return {
                cell.metadata.nbgrader["grade_id"]: cell.source
                for cell in nb.cells
                if is_test_cell(cell)
            }
        from nbgrader.api import Gradebook, MissingEntry

        sources: dict[str, str] = {}
        with Gradebook(info["db_url"]) as gb:
            try:
                notebook = gb.find_notebook(info["notebook"], info["assignment"])
            except MissingEntry:
                return sources
            solutions = {c.name for c in notebook.solution_cells}
            by_name = {c.name: c for c in notebook.source_cells}
            for cell in notebook.grade_cells:
                if cell.cell_type == "code" and cell.name not in solutions and cell.name in by_name:
                    sources[cell.name] = by_name[cell.name].source
        return sources

    def _enforce_test_metadata(self, nb: NotebookNode, full_sources: dict[str, str]) -> None:
        """A test cell stays an autograded test cell, whatever the student set."""
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if not meta or meta.get("grade_id") not in full_sources or cell.cell_type != "code":
                continue
            if meta.get("solution") or not meta.get("grade"):
                add_flag(
                    nb,
                    f"test cell {meta['grade_id']} was marked as an answer cell in the "
                    "submission (restored)",
                )
            meta["grade"] = True
            meta["solution"] = False
            meta["locked"] = True

    def _source_notebook_path(self, resources: Any) -> Path | None:
        info = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        notebook, assignment = info.get("notebook"), info.get("assignment")
        if not notebook:
            return None
        candidates = []
        if self.source_notebook_dir:
            candidates.append(Path(self.source_notebook_dir) / f"{notebook}.ipynb")
        converter = getattr(getattr(self, "parent", None), "parent", None)
        coursedir = getattr(converter, "coursedir", None)
        if coursedir is not None and assignment:
            with contextlib.suppress(Exception):
                folder = coursedir.format_path(coursedir.source_directory, ".", assignment)
                candidates.append(Path(folder) / f"{notebook}.ipynb")
        for path in candidates:
            if path.is_file():
                return path
        return None

    def _instructor_code(
        self, nb: NotebookNode, resources: Any, full_sources: dict[str, str]
    ) -> trusted.InstructorCode:
        """The instructor's code cells in order, from the source notebook if available.

        Without it, the submission's locked and test cells (nbgrader restored their source)
        and the gradebook's answer-cell stubs stand in.
        """
        cells: list[tuple[str, str | None, str]] = []
        path = self._source_notebook_path(resources)
        if path is not None:
            source_nb = nbformat.read(str(path), as_version=4)
            for cell in source_nb.cells:
                if cell.cell_type != "code":
                    continue
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if utils.is_solution(cell):
                    cells.append(("solution", grade_id, cell.source))
                elif is_test_cell(cell):
                    cells.append(("test", grade_id, full_sources.get(grade_id, cell.source)))
                else:
                    cells.append(("code", grade_id, cell.source))
            return trusted.InstructorCode(cells)
        stubs = self._solution_stubs(resources)
        # Only outside nbgrader (no gradebook) do an answer's own definitions stand in for
        # the stub, and never for a name the instructor's cells import (say call_student).
        imported = scan.imported_names(
            c.source for c in nb.cells if c.cell_type == "code" and utils.is_locked(c)
        )
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if utils.is_solution(cell):
                stub = stubs.get(grade_id)
                if stub is None:
                    stub = _defs_only(cell.source, exclude=imported)
                cells.append(("solution", grade_id, stub))
            elif is_test_cell(cell):
                cells.append(("test", grade_id, full_sources.get(grade_id, "")))
            elif utils.is_locked(cell):
                cells.append(("code", grade_id, cell.source))
        return trusted.InstructorCode(cells)

    def _solution_stubs(self, resources: Any) -> dict[str, str]:
        info = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        if not info.get("db_url"):
            return {}
        from nbgrader.api import Gradebook, MissingEntry

        stubs: dict[str, str] = {}
        with Gradebook(info["db_url"]) as gb:
            try:
                notebook = gb.find_notebook(info["notebook"], info["assignment"])
            except MissingEntry:
                return stubs
            for cell in notebook.source_cells:
                stubs[cell.name] = cell.source
        return stubs

    # ------------------------------------------------------------------ execution

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager):
            km.limits = Limits.from_mapping(self.sandbox_limits)
        self._last_km = km  # nbclient forgets it when a start fails; its log says why
        return km

    def _cell_timeout(self, cell: NotebookNode) -> int:
        remaining = self._deadline - time.monotonic()
        limit = self.timeout if self.timeout and self.timeout > 0 else remaining
        return max(1, int(min(limit, remaining) + 0.999))

    def _execute_and_check(
        self,
        nb: NotebookNode,
        resources: Any,
        instructor: trusted.InstructorCode,
        full_sources: dict[str, str],
    ) -> dict[str, trusted.CheckResult]:
        state = self._run_state
        NotebookClient.__init__(self, nb, None)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self.timeout_func = self._cell_timeout
        self._deadline = time.monotonic() + self.notebook_timeout
        self._cell_bytes: dict[int, int] = {}
        self._notebook_bytes = 0
        self._kernel_ready = False
        self._last_km = None
        results: dict[str, trusted.CheckResult] = {}
        try:
            with self.setup_kernel():
                assert self.kc is not None
                info = self.wait_for_reply(self.kc.kernel_info())
                self._kernel_ready = True
                if info is not None:
                    self.nb.metadata["language_info"] = info["content"]["language_info"]
                box = getattr(self.km, "sandbox", None)
                if box is not None:
                    box.lock_run_dir()
                    self._notebook.metadata[FLAGS_KEY]["sandbox"] = {"uid": box.uid}
                for index, cell in enumerate(self.nb.cells):
                    self._run_cell(cell, resources, index)
                self.set_widgets_metadata()
                if self.recheck:
                    channel = trusted.KernelChannel(
                        self.km if state["dead"] is None else None,
                        self.kc,
                        call_timeout=self.recheck_call_timeout,
                        interrupt_grace=self.interrupt_grace,
                    )
                    if state["dead"] is not None:
                        channel.dead_reason = state["dead"]
                    tests = [(g, full_sources[g]) for g, _ in _tests_in(self.nb, full_sources)]
                    if state["dead"] is None:
                        self._note_leftover_processes()
                    results = trusted.check_cells(
                        tests,
                        instructor,
                        channel,
                        time_budget=self.recheck_cell_timeout,
                        total_budget=self.recheck_notebook_timeout,
                    )
                    if channel.dead_reason and state["dead"] is None:
                        during = next(
                            (g for g, r in results.items() if r.ename == "KernelCallTimeout"),
                            None,
                        )
                        where = f" (re-checking {during})" if during else " (during the re-check)"
                        state["dead"] = channel.dead_reason + where
                elif state["dead"] is None:
                    self._note_leftover_processes()
        except Exception as exc:
            km = getattr(self, "_last_km", None)
            log = km.kernel_log() if hasattr(km, "kernel_log") else ""
            detail = _short(log.strip().splitlines()[-1]) if log.strip() else _short(str(exc))
            if not self._kernel_ready:
                problem = f"the kernel could not start in the sandbox ({detail})"
            else:
                problem = f"grading stopped on an error ({type(exc).__name__}: {_short(str(exc))})"
            state["dead"] = state["dead"] or problem
            for cell in self.nb.cells:
                if cell.cell_type == "code" and not cell.get("outputs"):
                    state["not_run"].add(id(cell))
            if self.recheck and not results:
                channel = trusted.KernelChannel(None, None)
                channel.dead_reason = state["dead"]
                tests = [(g, full_sources[g]) for g, _ in _tests_in(self.nb, full_sources)]
                results = trusted.check_cells(tests, instructor, channel, time_budget=5)
        finally:
            box = getattr(self.km, "sandbox", None) if self.km is not None else None
            if box is not None:
                box.cleanup()
        return results

    def _run_cell(self, cell: NotebookNode, resources: Any, index: int) -> None:
        state = self._run_state
        if cell.cell_type != "code" or not cell.source.strip():
            return
        if state["dead"] is not None:
            state["not_run"].add(id(cell))
            cell.outputs = []
            return
        if time.monotonic() >= self._deadline:
            state["dead"] = (
                f"the notebook ran longer than {self.notebook_timeout} s; "
                "the remaining cells were not run"
            )
            state["not_run"].add(id(cell))
            cell.outputs = []
            self._kill_kernel()
            return
        self._timed_out = False
        try:
            self.preprocess_cell(cell, resources, index)
        except DeadKernelError:
            box = getattr(self.km, "sandbox", None)
            reason = getattr(box, "kill_reason", None) or "the kernel died"
            state["dead"] = f"{reason} (in cell #{index + 1})"
            cell.outputs.append(
                nbformat.v4.new_output(
                    "error", ename="KernelDied", evalue=state["dead"], traceback=[state["dead"]]
                )
            )
            return
        except CellTimeoutError as exc:
            self._timed_out = True
            cell.outputs.append(
                nbformat.v4.new_output(
                    "error", ename="CellTimeoutError", evalue=_short(str(exc)), traceback=[]
                )
            )
        if self._timed_out and not self._responsive():
            state["dead"] = (
                f"cell #{index + 1} ran longer than {self._cell_timeout(cell)} s and did not "
                "stop when interrupted; the kernel was killed"
            )
            self._kill_kernel()

    async def _async_handle_timeout(self, timeout: int, cell: NotebookNode | None = None):
        self._timed_out = True
        return await super()._async_handle_timeout(timeout, cell)

    def _responsive(self) -> bool:
        """After a timeout: does the kernel answer again within the grace period?"""
        if self.kc is None:
            return False

        async def probe() -> bool:
            msg_id = self.kc.kernel_info()
            deadline = time.monotonic() + self.interrupt_grace
            while time.monotonic() < deadline:
                try:
                    msg = await self.kc.shell_channel.get_msg(
                        timeout=max(0.05, deadline - time.monotonic())
                    )
                except Empty:
                    break
                if msg.get("parent_header", {}).get("msg_id") == msg_id:
                    return True
            return False

        try:
            return run_sync(probe)()
        except Exception:
            return False

    def _kill_kernel(self) -> None:
        box = getattr(self.km, "sandbox", None)
        if box is not None:
            box.kill()

    def _note_leftover_processes(self) -> None:
        box = getattr(self.km, "sandbox", None)
        if box is None or box.outer_pid is None:
            return
        from autograder.sandbox.watchdog import children as _children

        init = _children(box.outer_pid)
        kernel = [p for i in init for p in _children(i)]
        leftover = [p for p in box.pids() if p not in init and p not in kernel and _running(p)]
        if leftover:
            add_flag(
                self._notebook,
                f"the notebook left {len(leftover)} process(es) running; "
                "they were killed with the sandbox",
            )

    def handle_comm_msg(self, outs, msg, cell_index):  # type: ignore[override]
        """Widget messages are ignored: grading needs none, and a kernel could send many."""
        return None

    def output(self, outs, msg, display_id, cell_index):  # type: ignore[override]
        """nbclient's output handler with a cap on the bytes kept (per cell, per notebook)."""
        size = _msg_bytes(msg)
        used = self._cell_bytes.get(cell_index, 0)
        room = min(
            self.max_cell_output_bytes - used,
            self.max_notebook_output_bytes - self._notebook_bytes,
        )
        if size > room:
            truncated = self._run_state["truncated"]
            content = msg.get("content", {})
            first = cell_index not in truncated
            truncated[cell_index] = truncated.get(cell_index, 0) + size - max(room, 0)
            if msg.get("msg_type") == "stream" and room > 0:
                content["text"] = content.get("text", "")[:room]
                size = room
                out = self._count_and_output(outs, msg, display_id, cell_index, used, size)
            else:
                out = None
            if first:
                outs.append(
                    nbformat.v4.new_output(
                        "stream", name="stdout", text="\n[output truncated by the autograder]\n"
                    )
                )
            return out
        return self._count_and_output(outs, msg, display_id, cell_index, used, size)

    def _count_and_output(self, outs, msg, display_id, cell_index, used, size):
        self._cell_bytes[cell_index] = used + size
        self._notebook_bytes += size
        return super().output(outs, msg, display_id, cell_index)

    # ------------------------------------------------------------------ outcomes

    def _finish(
        self,
        nb: NotebookNode,
        full_sources: dict[str, str],
        results: dict[str, trusted.CheckResult],
        checks: dict[str, dict[str, Any]],
    ) -> None:
        state = self._run_state
        if state["dead"]:
            add_flag(nb, f"kernel stopped: {state['dead']}")
        if state["truncated"]:
            cells = ", ".join(f"#{i + 1}" for i in sorted(state["truncated"]))
            add_flag(nb, f"output too large: cut in cell(s) {cells}")
        for cell in nb.cells:
            if not is_test_cell(cell):
                if id(cell) in self._original_sources:
                    cell.source = self._original_sources[id(cell)]
                continue
            grade_id = cell.metadata.nbgrader["grade_id"]
            if grade_id not in full_sources:
                continue
            outputs = list(cell.get("outputs", []))
            kernel_errors = [o for o in outputs if o.get("output_type") == "error"]
            if id(cell) in state["not_run"]:
                kernel = "not run"
            elif kernel_errors:
                err = kernel_errors[0]
                kernel = f"fail ({err.get('ename', '')}: {_short(err.get('evalue', ''), 160)})"
            else:
                kernel = "pass"
            record: dict[str, Any] = {"kernel": kernel}
            result = results.get(grade_id)
            if result is None and kernel == "not run":
                # never scored as a pass just because nothing ran
                cell.outputs = [
                    *outputs,
                    nbformat.v4.new_output(
                        "error", ename="NotRun", evalue=str(state["dead"]), traceback=[]
                    ),
                ]
            if result is not None:
                record["trusted"] = "pass" if result.passed else "fail"
                record.update(result.as_dict())
                self._set_outputs(cell, outputs, kernel_errors, result)
                self._flag_disagreement(nb, grade_id, kernel, kernel_errors, result)
            cell.source = full_sources[grade_id]
            checks[grade_id] = record

    @staticmethod
    def _set_outputs(cell, outputs, kernel_errors, result: trusted.CheckResult) -> None:
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
                kept.extend(kernel_errors[:1])
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

    @staticmethod
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
                f"of the {what} failed ({result.ename}: {_short(result.message, 200)}); "
                "the trusted result counts",
            )
        for note in result.notes:
            add_flag(nb, f"{grade_id}: re-check: {note}")
