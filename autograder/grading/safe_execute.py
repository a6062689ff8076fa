"""``SafeExecute``: nbgrader's ``Execute`` with a sandboxed kernel and a trusted re-check.

Put it in place of ``Execute`` in ``Autograde.autograde_preprocessors`` (the autograder does
this when the sandbox is on). For each notebook it:

1. takes every autograded test cell's full source (visible and hidden tests) from the
   gradebook, and gives the kernel only the visible part (hidden-test source never reaches
   the student's kernel);
2. scans the student's cells for tampering patterns (:mod:`autograder.recheck.scan`);
3. executes the notebook in a kernel inside the sandbox (:mod:`autograder.sandbox`), with a
   per-cell timeout (interrupt, then kill if the interrupt is ignored), a wall clock for the
   whole notebook, and caps on the bytes of output kept per cell and per notebook. A hang
   costs its own exercise, not the notebook: once a cell timed out, the later cells but the
   answer cells get ``after_timeout`` seconds each (the trusted re-check decides the tests
   anyway); a kernel killed because it ignored the interrupt is restarted
   (:mod:`autograder.recheck.restarts`), the cells that had finished re-run in it, and of the
   rest only the answer cells are run; when the notebook's time is spent, the answer cells
   still run (short limit), and the kernel is kept for the re-check;
4. with the kernel still running, re-runs each test cell's full source in this trusted
   process (:mod:`autograder.recheck.runner`) and makes the cell's outputs say what the trusted
   re-check found: a failure becomes an ``error`` output with the failure's message (never
   hidden source), a pass loses any error or stderr output (a correct answer that warns
   keeps its points);
5. for each exercise whose tests failed, with the kernel still running, calls the student's
   function on the probes of the exercise's catalogue of misconceptions and matches the
   answers (:mod:`autograder.recheck.diagnosis`; scores are final by then);
6. records what it noticed as readable flags in ``nb.metadata["autograder"]["flags"]``, the
   per-test outcomes in ``nb.metadata["autograder"]["checks"]`` and the diagnoses in
   ``nb.metadata["autograder"]["diagnoses"]``; then stops the sandbox (every process the
   notebook started dies with it).

Configuration: the traits below (``c.SafeExecute.<name>``), or, for a whole run, the
environment variable ``AUTOGRADER_SAFE_EXECUTE`` holding a JSON object of trait values
(``{"timeout": 10, "sandbox_limits": {"total_memory": 536870912}}``).
"""

from __future__ import annotations

import json
import os
import time
from queue import Empty
from typing import Any

import nbformat
import psutil
from jupyter_core.utils import run_sync
from nbclient.client import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from nbgrader.utils import is_solution
from traitlets import Bool, Dict, Float, Integer, Type, Unicode, default

from autograder import phases
from autograder.grading.canary import CANARY_PREFIX
from autograder.grading.preprocessors import KernelStartRetry
from autograder.misconceptions import CatalogueError, load_catalogue
from autograder.notebook import (
    DIAGNOSES_KEY,
    FLAGS_KEY,
    add_flag,
    grade_id,
    is_test_cell,
    strip_hidden_tests,
)
from autograder.recheck import scan
from autograder.recheck.channel import KernelChannel
from autograder.recheck.diagnosis import diagnose_failures
from autograder.recheck.names import InstructorCode
from autograder.recheck.outcomes import KernelCells, RunState, finish, short
from autograder.recheck.restarts import KernelRestarts
from autograder.recheck.runner import CheckResult, check_cells
from autograder.recheck.sources import (
    enforce_test_metadata,
    instructor_code,
    source_notebook_path,
    test_sources,
    tests_in,
    trusted_folder,
)
from autograder.sandbox import Limits, SandboxedKernelManager
from course_common.solutions import course_markers

__all__ = ["ENV_CONFIG", "SafeExecute"]

ENV_CONFIG = "AUTOGRADER_SAFE_EXECUTE"


def _running(pid: int) -> bool:
    """Alive and not a zombie (a finished child nobody waited for is not "left running")."""
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def _children(pid: int) -> list[int]:
    """The direct children of *pid* (none if it is gone)."""
    try:
        return [child.pid for child in psutil.Process(pid).children()]
    except psutil.Error:
        return []


def _msg_bytes(msg: dict[str, Any]) -> int:
    content = msg.get("content", {})
    total = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        total += len(value) if isinstance(value, str) else len(json.dumps(value))
    for line in content.get("traceback", []) or []:
        total += len(line)
    return total


class SafeExecute(KernelStartRetry, KernelRestarts, phases.TimedCells, Execute):
    """nbgrader's ``Execute`` in a sandbox, with hidden tests kept out of the kernel and
    every test cell's outcome decided by a trusted re-check outside the kernel."""

    kernel_manager_class = Type(SandboxedKernelManager, config=True)

    notebook_timeout = Integer(
        300, help="Wall-clock seconds for executing all the cells of one notebook."
    ).tag(config=True)
    after_timeout = Integer(
        5,
        help="Seconds each later cell (answer cells excepted) may take once a cell timed out.",
    ).tag(config=True)
    max_restarts = Integer(
        3, help="Restarts of a kernel killed because it ignored an interrupt (0: none)."
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
    diagnose = Bool(
        True,
        help="Match the answers of exercises whose tests failed against the catalogue of "
        "misconceptions beside the instructor's notebook.",
    ).tag(config=True)
    diagnosis_timeout = Float(
        60.0, help="Seconds the diagnosis of all the failed exercises of a notebook may take."
    ).tag(config=True)
    kernel_graded = Dict(
        None,
        allow_none=True,
        help="The test cells the re-check leaves to the kernel's verdict, as the canary found "
        "them (assignment -> notebook -> grade id -> why); None: not known yet.",
    ).tag(config=True)

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
        with phases.phase(phases.RECHECK):  # what the re-check needs: the full tests
            full_sources = test_sources(nb, resources)
            enforce_test_metadata(nb, full_sources)
            converter = getattr(getattr(self, "parent", None), "parent", None)
            path = source_notebook_path(
                resources, self.source_notebook_dir, getattr(converter, "coursedir", None)
            )
            markers = course_markers(self.config)
            instructor = instructor_code(nb, resources, full_sources, path, markers)
        # the catalogue beside the instructor's notebook, read only when a test fails
        self._catalogue_folder = path.parent if self.diagnose and path is not None else None
        self._files_folder = path.parent if path is not None else None
        self._instructor = instructor
        self._keep = instructor.keep_after()
        self._diagnoses: dict[str, Any] = {}
        self._run_state = state = RunState()
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                # Whatever its metadata says, no hidden region reaches the kernel.
                visible = strip_hidden_tests(cell.source)
                if visible != cell.source:
                    state.original_sources[index] = cell.source
                    cell.source = visible
        kernel_cells = self._kernel_cells(resources)
        for test, cell in tests_in(nb, full_sources):
            if kernel_cells.full_source(test):  # the kernel decides it, as nbgrader's
                cell.source = full_sources[test]
            else:
                cell.source = strip_hidden_tests(full_sources[test])

        if self.scan_submissions:
            sources = [src for kind, _, src in instructor.cells if kind != "solution"]
            with phases.phase(phases.SCAN):
                findings = scan.scan_notebook(nb, instructor_sources=sources)
            for finding in findings:
                add_flag(nb, str(finding))

        results: dict[str, CheckResult] = {}
        started = time.monotonic()
        try:
            results = self._execute_and_check(nb, resources, instructor, full_sources)
        finally:
            meta["seconds"] = round(time.monotonic() - started, 3)
        finish(nb, state, full_sources, results, checks, instructor, kernel_cells)
        if self._diagnoses:
            meta[DIAGNOSES_KEY] = self._diagnoses
        return nb, resources

    def _kernel_cells(self, resources: Any) -> KernelCells:
        """Which test cells are scored as the kernel ran them: in the instructor's own
        solution (the canary), those the re-check cannot decide or reproduce; in a
        student's, those the canary found so (not known yet while it has not said:
        :mod:`autograder.grading.canary`)."""
        info = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        if str(info.get("student", "")).startswith(CANARY_PREFIX):
            return KernelCells(instructor=True)
        profile = self.kernel_graded
        if profile is None:
            return KernelCells(cells=None)
        cells = (profile.get(str(info.get("assignment")), {}) or {}).get(
            str(info.get("notebook")), {}
        )
        return KernelCells(cells={str(k): str(v) for k, v in (cells or {}).items()})

    # ------------------------------------------------------------------ execution

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager):
            km.limits = Limits.from_mapping(self.sandbox_limits)
        self._last_km = km  # nbclient forgets it when a start fails; its log says why
        return km

    def _cell_timeout(self, cell: NotebookNode) -> int:
        full = self.timeout if self.timeout and self.timeout > 0 else self.notebook_timeout
        if self._replaying:  # cells that finished once, run again after a restart
            return max(1, int(min(full, self._replay_budget - time.monotonic()) + 0.999))
        remaining = self._deadline - time.monotonic()
        if remaining <= 0 or (self._run_state.timeouts and not is_solution(cell)):
            # after a hang (or past the notebook's time) only the answers need time
            return max(1, min(int(full), self.after_timeout))
        return max(1, int(min(full, remaining) + 0.999))

    def _execute_and_check(
        self,
        nb: NotebookNode,
        resources: Any,
        instructor: InstructorCode,
        full_sources: dict[str, str],
    ) -> dict[str, CheckResult]:
        state = self._run_state
        NotebookClient.__init__(self, nb, None)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._resources = resources
        self.timeout_func = self._cell_timeout
        self._deadline = time.monotonic() + self.notebook_timeout
        self._cell_bytes: dict[int, int] = {}
        self._notebook_bytes = 0
        self._kernel_ready = False
        self._last_km = None
        self._replaying = False
        self._restarts = 0
        # Past the notebook's time, the answer cells (as many as the instructor's notebook
        # has) get after_timeout each; re-running cells after restarts gets, in all, the
        # notebook's time once more.
        answers = sum(1 for kind, _, _ in instructor.cells if kind == "solution")
        self._answers_end = self._deadline + self.after_timeout * max(1, answers)
        self._replay_seconds = float(self.notebook_timeout)
        self._replay_budget = 0.0
        self._finished: list[int] = []  # non-test code cells that ran to the end
        results: dict[str, CheckResult] = {}
        try:
            with self.setup_kernel():
                assert self.kc is not None
                info = self.wait_for_reply(self.kc.kernel_info())
                self._kernel_ready = True
                if info is not None:
                    self.nb.metadata["language_info"] = info["content"]["language_info"]
                self._lock_sandbox()
                for index, cell in enumerate(self.nb.cells):
                    self._run_cell(cell, resources, index)
                self.set_widgets_metadata()
                if self.recheck:
                    channel = KernelChannel(
                        self.km if state.dead is None else None,
                        self.kc,
                        call_timeout=self.recheck_call_timeout,
                        interrupt_grace=self.interrupt_grace,
                        restart=self._restart_for_recheck,
                    )
                    if state.dead is not None:
                        channel.dead_reason = state.dead
                    tests = [(g, full_sources[g]) for g, _ in tests_in(self.nb, full_sources)]
                    if state.dead is None:
                        self._note_leftover_processes()
                    with (
                        phases.phase(phases.RECHECK, self.kernel_cpu),
                        trusted_folder(self._files_folder),
                    ):
                        results = check_cells(
                            tests,
                            instructor,
                            channel,
                            time_budget=self.recheck_cell_timeout,
                            total_budget=self.recheck_notebook_timeout,
                        )
                    state.hung = list(channel.hung.values())
                    if channel.dead_reason and state.dead is None:
                        during = next(
                            (g for g, r in results.items() if r.ename == "KernelCallTimeout"),
                            None,
                        )
                        where = f" (re-checking {during})" if during else " (during the re-check)"
                        state.dead = channel.dead_reason + where
                    if self._catalogue_folder is not None and state.dead is None:
                        with phases.phase(phases.DIAGNOSIS, self.kernel_cpu):
                            self._diagnose(channel, results, full_sources)
                elif state.dead is None:
                    self._note_leftover_processes()
        except Exception as exc:
            km = getattr(self, "_last_km", None)
            log = km.kernel_log() if km is not None and hasattr(km, "kernel_log") else ""
            detail = short(log.strip().splitlines()[-1]) if log.strip() else short(str(exc))
            if not self._kernel_ready:
                problem = f"the kernel could not start in the sandbox ({detail})"
            else:
                problem = f"grading stopped on an error ({type(exc).__name__}: {short(str(exc))})"
            state.dead = state.dead or problem
            for index, cell in enumerate(self.nb.cells):
                if cell.cell_type == "code" and not cell.get("outputs"):
                    state.not_run.add(index)
            if self.recheck and not results:
                channel = KernelChannel(None, None)
                channel.dead_reason = state.dead
                tests = [(g, full_sources[g]) for g, _ in tests_in(self.nb, full_sources)]
                results = check_cells(tests, instructor, channel, time_budget=5)
        finally:
            box = getattr(self.km, "sandbox", None) if self.km is not None else None
            if box is not None:
                with phases.phase(phases.KERNEL_STOP):
                    box.cleanup()
        return results

    def _diagnose(
        self,
        channel: KernelChannel,
        results: dict[str, CheckResult],
        full_sources: dict[str, str],
    ) -> None:
        """The failed exercises' diagnoses (scores are final: nothing here changes one)."""
        folder = self._catalogue_folder
        if folder is None or all(result.passed for result in results.values()):
            return
        started = time.monotonic()
        answers = [src for kind, _, src in self._instructor.cells if kind == "solution"]
        try:
            catalogue = load_catalogue(folder, answers)
        except CatalogueError as exc:
            add_flag(
                self._notebook, f"the catalogue of misconceptions cannot be read: {short(str(exc))}"
            )
            return
        if catalogue is None:
            return
        self._diagnoses = diagnose_failures(
            catalogue,
            results,
            full_sources,
            channel,
            time_budget=self.recheck_cell_timeout,
            total_budget=self.diagnosis_timeout,
        )
        self._notebook.metadata[FLAGS_KEY]["diagnosis_seconds"] = round(
            time.monotonic() - started, 3
        )

    def _skip(self, cell: NotebookNode, index: int, note: str) -> None:
        self._run_state.not_run.add(index)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"[{note}]\n")]

    def _run_cell(self, cell: NotebookNode, resources: Any, index: int) -> None:
        state = self._run_state
        if cell.cell_type != "code" or not cell.source.strip():
            return
        if state.dead is not None:
            state.not_run.add(index)
            cell.outputs = []
            return
        answer = is_solution(cell)
        if state.restarted is not None and not answer:
            note = f"not run: the kernel was restarted after cell #{state.restarted}"
            self._skip(cell, index, note)
            return
        now = time.monotonic()
        if now >= self._deadline and (not answer or now >= self._answers_end):
            state.out_of_time = (
                f"the notebook ran longer than {self.notebook_timeout} s; the cells after that "
                "were not run (answer cells excepted)"
            )
            self._skip(cell, index, f"not run: the notebook took over {self.notebook_timeout} s")
            return
        self._timed_out = False
        limit = self._cell_timeout(cell)
        try:
            self.preprocess_cell(cell, resources, index)
        except DeadKernelError:
            box = getattr(self.km, "sandbox", None)
            reason = getattr(box, "kill_reason", None) or "the kernel died"
            state.dead = f"{reason} (in cell #{index + 1})"
            cell.outputs.append(
                nbformat.v4.new_output(
                    "error", ename="KernelDied", evalue=state.dead, traceback=[state.dead]
                )
            )
            return
        except CellTimeoutError as exc:
            self._timed_out = True
            cell.outputs.append(
                nbformat.v4.new_output(
                    "error", ename="CellTimeoutError", evalue=short(str(exc)), traceback=[]
                )
            )
        if not self._timed_out:
            if not is_test_cell(cell):
                self._finished.append(index)
            self._keep_versions(cell)
            return
        state.timeouts.append((index, limit))
        if self._responsive():
            return
        self._kill_kernel()
        state.killed.append(index + 1)
        failed = self._restart(resources) if self._may_restart() else "no restart left"
        if failed is None:
            state.restarted = state.restarted or index + 1
            return
        state.dead = (
            f"cell #{index + 1} ran longer than {limit} s and did not stop when interrupted; "
            f"the kernel was killed (not restarted: {failed})"
        )

    def _keep_versions(self, cell: NotebookNode) -> None:
        """After an answer cell that defines a graded function a later answer cell defines
        again, the kernel keeps this definition under a name of its own
        (:meth:`~autograder.recheck.names.InstructorCode.keep_after`), so that the re-check
        calls the function a test between the two met. One silent request, queued before the
        next cell's."""
        keep = self._keep.get(str(grade_id(cell))) if is_solution(cell) else None
        if not keep or self.kc is None:
            return
        code = "".join(
            f"if {name!r} in globals(): globals()[{kept!r}] = globals()[{name!r}]\n"
            for name, kept in sorted(keep.items())
        )
        self.kc.execute(code, silent=True, store_history=False, allow_stdin=False)

    async def _async_handle_timeout(self, timeout: int, cell: NotebookNode | None = None):
        self._timed_out = True
        return await super()._async_handle_timeout(timeout, cell)

    def _responsive(self) -> bool:
        """After a timeout: does the kernel answer again within the grace period?"""
        client = self.kc
        if client is None:
            return False

        async def probe() -> bool:
            msg_id = client.kernel_info()
            deadline = time.monotonic() + self.interrupt_grace
            while time.monotonic() < deadline:
                try:
                    msg = await client.shell_channel.get_msg(
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
        init = _children(box.outer_pid)
        kernel = [p for i in init for p in _children(i)]
        leftover = [p for p in box.pids() if p not in init and p not in kernel and _running(p)]
        if leftover:
            add_flag(
                self._notebook,
                f"the notebook left {len(leftover)} process(es) running; "
                "they were killed with the sandbox",
            )

    async def _async_poll_for_reply(
        self, msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive
    ):
        """nbclient's wait for a cell's reply; a cell whose IOPub never said idle within
        ``iopub_timeout`` after its reply (nbclient then cancels the wait, and only logs) is
        noted: its output did not all arrive (:attr:`RunState.lost_output`), and the client
        connects to the kernel again. A message larger than the client accepts
        (``max_message_bytes``) ends that connection for good (ZeroMQ does not reconnect
        after a protocol error): without a new one, no later cell's output nor the re-check's
        replies would arrive. The kernel, and what the cells defined in it, stay."""
        reply = await super()._async_poll_for_reply(
            msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive
        )
        if task_poll_output_msg.cancelled() and not self._timed_out:
            # (a cell that timed out has no reply: nbclient made one up after interrupting
            # it; what follows a timeout is _run_cell's)
            index = next((i for i, c in enumerate(self.nb.cells) if c is cell), None)
            if index is not None:  # a cell of the notebook (not a re-check's request)
                self._run_state.lost_output.add(index)
            assert self.kc is not None and self.km is not None
            self.kc.stop_channels()  # a client's channels cannot be started again: a new one
            self.kc = self.km.client()
            self.kc.start_channels()
            await self.kc.wait_for_ready(timeout=self.startup_timeout)
        return reply

    def handle_comm_msg(self, outs, msg, cell_index):
        """Widget messages are ignored: grading needs none, and a kernel could send many."""
        return None

    def output(self, outs, msg, display_id, cell_index):
        """nbclient's output handler with a cap on the bytes kept (per cell, per notebook)."""
        size = _msg_bytes(msg)
        used = self._cell_bytes.get(cell_index, 0)
        room = min(
            self.max_cell_output_bytes - used,
            self.max_notebook_output_bytes - self._notebook_bytes,
        )
        if size > room:
            truncated = self._run_state.truncated
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
