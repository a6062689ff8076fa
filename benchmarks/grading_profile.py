"""The profile of a graded class (where a notebook's seconds go) and the floor (what its
own cells need), for ``python -m benchmarks grading --profile``.

:func:`profile_tables` reads the profile ``python -m autograder grade`` writes when
``AUTOGRADER_PROFILE`` names a file (:mod:`autograder.phases`): per phase, its wall-clock
seconds, the grading processes' CPU seconds and the kernels' (read with psutil: the
cells run in the kernel), over the class and per notebook. :func:`measure_floor` runs
every notebook of the batch once, each in a fresh kernel forked from a template that has
already imported the course's modules (:mod:`autograder.grading.prewarm`: a warm kernel),
with nothing else: no sandbox, no gradebook, no nbgrader; every cell as the instructor's
notebook has it (the test cells with their hidden tests), and counts the kernel's CPU
seconds over the cells.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import nbformat

from autograder import phases
from autograder.notebook import grade_id, is_test_cell
from benchmarks.environment import child_env

#: Phases of the grader process and per worker: costs of the run, not of a notebook.
RUN_ROWS = ("canary (the instructor's solutions)", "worker start", "grader process")


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _cpu(row: list[float]) -> float:
    return row[1] + row[2]


def summarise(profile: dict[str, Any]) -> dict[str, Any]:
    """Per phase over the class (canaries apart): [wall, grader cpu, kernel cpu]; per
    notebook: phase -> [wall, cpu] summed over its submissions, and its count; the run's
    own costs."""
    total: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    per_nb: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    counts: dict[str, int] = defaultdict(int)
    waits = [0.0, 0.0, 0.0, 0.0]  # wall, cpu, the worker's and the kernels' wait for a CPU
    run: dict[str, list[float]] = {name: [0.0, 0.0, 0.0] for name in RUN_ROWS}
    for sub in profile["submissions"]:
        start = sub.get("worker_start")
        if start:
            run["worker start"][0] += start[0]
            run["worker start"][1] += start[1]
            run["worker start"][2] += start[2] if len(start) > 2 else 0.0  # its template
        if sub["canary"]:
            row = run["canary (the instructor's solutions)"]
            for values in sub["phases"].values():
                row[0] += values[0]
                row[1] += values[1]
                row[2] += values[2]
            continue
        counts[sub["assignment"]] += 1
        waits[0] += sub["wall"]
        waits[1] += sum(_cpu(v) for v in sub["phases"].values())
        waits[2] += sub.get("waits", [0.0, 0.0])[0]
        waits[3] += sub.get("waits", [0.0, 0.0])[1]
        for name, values in sub["phases"].items():
            for i in range(3):
                total[name][i] += values[i]
            per_nb[sub["assignment"]][name][0] += values[0]
            per_nb[sub["assignment"]][name][1] += _cpu(values)
    grader_phases: dict[str, list[float]] = {}
    if profile.get("run"):
        grader = run["grader process"]
        grader[0] = profile["run"]["wall"]
        grader[1] = profile["run"]["cpu"]
        grader_phases = profile["run"]["phases"]
    return {
        "grader_phases": grader_phases,
        "total": total,
        "per_notebook": per_nb,
        "counts": counts,
        "run": run,
        "waits": waits,
    }


def _ordered(names: Any) -> list[str]:
    known = [n for n in phases.ORDER if n in names]
    return known + sorted(n for n in names if n not in phases.ORDER)


def profile_tables(summary: dict[str, Any]) -> str:
    """The profile as two markdown tables: the class's totals per phase, then per notebook
    the CPU seconds (grading process + kernel) of each phase per submission."""
    total, counts = summary["total"], summary["counts"]
    n = sum(counts.values())
    cpu_all = sum(_cpu(v) for v in total.values()) + sum(_cpu(v) for v in summary["run"].values())
    lines = [
        f"Over the class ({n} notebooks, canaries apart; wall seconds add up over the workers):",
        "",
        "| phase | wall (s) | grader CPU (s) | kernel CPU (s) | CPU s per notebook | share |",
        "|---|---|---|---|---|---|",
    ]
    for name in _ordered(total):
        wall, cpu, kernel = total[name]
        lines.append(
            f"| {name} | {wall:.1f} | {cpu:.1f} | {kernel:.1f} | {(cpu + kernel) / n:.3f} "
            f"| {100 * (cpu + kernel) / cpu_all:.1f} % |"
        )
    sub_wall = sum(v[0] for v in total.values())
    sub_cpu = sum(v[1] for v in total.values())
    sub_kernel = sum(v[2] for v in total.values())
    lines.append(
        f"| **per notebook, all phases** | {sub_wall:.1f} | {sub_cpu:.1f} | {sub_kernel:.1f} "
        f"| {(sub_cpu + sub_kernel) / n:.3f} | {100 * (sub_cpu + sub_kernel) / cpu_all:.1f} % |"
    )
    for name in RUN_ROWS:
        wall, cpu, kernel = summary["run"][name]
        lines.append(
            f"| {name} (per run) | {wall:.1f} | {cpu:.1f} | {kernel:.1f} "
            f"| {(cpu + kernel) / n:.3f} | {100 * (cpu + kernel) / cpu_all:.1f} % |"
        )
    lines.append(f"| **the run** | | | | {cpu_all / n:.3f} | 100 % |")
    grader = summary.get("grader_phases") or {}
    if grader:
        lines += ["", "The grader process's own phases (wall s, CPU s):", ""]
        lines.append(
            ", ".join(
                f"{name} {grader[name][0]:.1f} / {grader[name][1]:.2f}" for name in _ordered(grader)
            )
        )
    wall, cpu, wait_worker, wait_kernel = summary["waits"]
    quiet = wall - wait_worker - wait_kernel
    lines += (
        []
        if not wait_worker + wait_kernel
        else [
            "",
            f"A notebook took {wall / n:.2f} s of wall clock, of which the grading process waited "
            f"{wait_worker / n:.2f} s and its kernel {wait_kernel / n:.2f} s for a CPU (the "
            f"machine's other load); without those waits {quiet / n:.2f} s, of which "
            f"{cpu / n:.2f} CPU s: the worker's core is idle (waiting on I/O, timers, "
            f"the other process) {100 * max(quiet - cpu, 0) / quiet:.0f} % of a notebook's time.",
        ]
    )
    notebooks = sorted(counts)
    lines += [
        "",
        "Per notebook: CPU seconds (grading process + kernel) per submission, and wall seconds:",
        "",
        "| phase | " + " | ".join(nb[:2] for nb in notebooks) + " |",
        "|---|" + "---|" * len(notebooks),
    ]
    per = summary["per_notebook"]
    names = _ordered({name for nb in notebooks for name in per[nb]})
    for name in names:
        cells = [f"{per[nb][name][1] / counts[nb]:.3f}" for nb in notebooks]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    cpu_row = [sum(v[1] for v in per[nb].values()) / counts[nb] for nb in notebooks]
    wall_row = [sum(v[0] for v in per[nb].values()) / counts[nb] for nb in notebooks]
    lines.append("| **CPU, all phases** | " + " | ".join(f"{c:.2f}" for c in cpu_row) + " |")
    lines.append("| **wall, all phases** | " + " | ".join(f"{w:.2f}" for w in wall_row) + " |")
    return "\n".join(lines)


def run_cpu(summary: dict[str, Any]) -> float:
    """Every CPU second the profile saw: the notebooks', the canaries', the workers' starts
    and the grader's."""
    return sum(_cpu(v) for v in summary["total"].values()) + sum(
        _cpu(v) for v in summary["run"].values()
    )


def floor_notebook(submitted: Path, source: Path) -> nbformat.NotebookNode:
    """The submission with each test cell's full source (hidden tests included) from the
    instructor's notebook: every cell the notebook itself has, as nbgrader runs them."""
    nb = nbformat.read(submitted, as_version=4)
    full = {
        grade_id(c): c.source for c in nbformat.read(source, as_version=4).cells if is_test_cell(c)
    }
    for cell in nb.cells:
        if is_test_cell(cell) and grade_id(cell) in full:
            cell.source = full[grade_id(cell)]
    return nb


def measure_floor(batch: Path, source_dir: Path) -> dict[str, list[float]]:
    """assignment -> the kernel CPU seconds of each of its submissions' cells, run once in
    a warm kernel (a fork of a template that imported the course's modules)."""
    from nbclient import NotebookClient

    from autograder.grading.prewarm import PrewarmedKernelManager, start_template, stop_template

    # the graders' environment (the benchmark's: the same matplotlib backend, the same hash
    # seed), which the template and its kernels inherit
    for name, value in child_env().items():
        if name in ("MPLBACKEND", "PYTHONHASHSEED", "PATH"):
            os.environ[name] = value
    start_template()
    floors: dict[str, list[float]] = defaultdict(list)
    try:
        for path in sorted(batch.glob("*/*/*.ipynb")):
            assignment = path.parent.name
            nb = floor_notebook(path, source_dir / assignment / path.name)
            with tempfile.TemporaryDirectory() as work:
                client = NotebookClient(
                    nb,
                    kernel_manager_class=PrewarmedKernelManager,
                    shutdown_kernel="immediate",
                    timeout=300,
                    allow_errors=True,
                    resources={"metadata": {"path": work}},
                )
                with client.setup_kernel():
                    assert client.kc is not None and client.km is not None  # set up
                    client.wait_for_reply(client.kc.kernel_info())
                    kernel = phases.KernelCPU(getattr(client.km.provisioner, "pid", None))
                    before = kernel.seconds()
                    for index, cell in enumerate(nb.cells):
                        if cell.cell_type == "code":
                            client.execute_cell(cell, index)
                    floors[assignment].append(kernel.seconds() - before)
    finally:
        stop_template()
    return dict(floors)


def _covered(intervals: list[tuple[float, float]], low: float, high: float, below: int) -> float:
    """Seconds between ``low`` and ``high`` during which fewer than ``below`` of
    ``intervals`` were running."""
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    running, last, seconds = 0, low, 0.0
    for moment, step in events:
        moment = min(max(moment, low), high)
        if running < below:
            seconds += moment - last
        last = moment
        running += step
    if running < below:
        seconds += high - last
    return seconds


def span(profile: dict[str, Any]) -> tuple[float, float] | None:
    """When the run's first notebook began and its last ended (epoch seconds), or None."""
    subs = [(s["began"], s["ended"]) for s in profile["submissions"] if "began" in s]
    return (min(a for a, _ in subs), max(b for _, b in subs)) if subs else None


def timeline(
    profile: dict[str, Any], busy: Any, started: float, ended: float, cores: int, workers: int
) -> str:
    """The run's stages in time, each with its wall clock and the machine's busy and idle
    core-seconds (``busy``: a :class:`benchmarks.machine.BusySampler` over the run, which
    ``started`` and ``ended``, epoch seconds, bound): the grader's and workers' start up to
    the first notebook, the canary, the gap before the class, the class (and its tail, the
    seconds fewer notebooks ran than there are workers), the end (scores read, reports
    written, workers stopped)."""
    subs = [s for s in profile["submissions"] if "began" in s]
    canary = [(s["began"], s["ended"]) for s in subs if s["canary"]]
    graded = [(s["began"], s["ended"]) for s in subs if not s["canary"]]
    if not graded:
        return "no notebook was graded: no timeline"
    first = min(a for a, _ in canary + graded)
    stages = [("start: the grader, intake, the workers' start", started, first)]
    class_start, class_end = min(a for a, _ in graded), max(b for _, b in graded)
    held = sum(1 for s in subs if s.get("held"))
    if canary:
        last_canary = max(b for _, b in canary)
        if class_start < last_canary:  # the class beside the canary (held until its verdict)
            stages.append((f"the canary, the class beside it ({held} held)", first, last_canary))
            stages.append(("the class after the verdict", last_canary, class_end))
        else:
            stages.append(("the canary (the instructor's solutions)", first, last_canary))
            stages.append(("between the canary and the class", last_canary, class_start))
            stages.append(("the class", class_start, class_end))
    else:
        stages.append(("the class", class_start, class_end))
    stages.append(("end: scores read, reports written, workers stopped", class_end, ended))
    lines = [
        f"The run in time ({cores} cores, {workers} workers; the machine's busy cores from "
        "/proc/stat, whatever process kept them busy):",
        "",
        "| stage | wall (s) | busy core-s | idle core-s | cores busy on average |",
        "|---|---|---|---|---|",
    ]
    idle_total = 0.0
    for name, low, high in stages:
        wall = max(high - low, 0.0)
        used = busy.busy(low, high)
        idle = max(cores * wall - used, 0.0)
        idle_total += idle
        mean = used / wall if wall else 0.0
        lines.append(f"| {name} | {wall:.1f} | {used:.1f} | {idle:.1f} | {mean:.2f} |")
    wall = ended - started
    used = busy.busy(started, ended)
    lines.append(
        f"| **the run** | {wall:.1f} | {used:.1f} | {max(cores * wall - used, 0.0):.1f} "
        f"| {used / wall:.2f} |"
    )
    tail = _covered(graded, class_start, class_end, workers)
    canary_short = _covered(canary, first, last_canary, workers) if canary else 0.0
    lines += [
        "",
        f"In the class, fewer notebooks ran than workers for {tail:.1f} s (between tasks and "
        f"at the end); in the canary, for {canary_short:.1f} s. At {cores} busy cores the "
        f"run's {used:.1f} busy core-seconds would take {used / cores:.1f} s.",
    ]
    return "\n".join(lines)


#: The run's targets (issue 39): our CPU at most this many times the floor's, and our
#: throughput at least this many times stock nbgrader's.
FLOOR_TARGET = 1.25
STOCK_TARGET = 3.5


def above_floor(summary: dict[str, Any], n: int) -> list[tuple[str, float]]:
    """Per notebook, the CPU seconds of every cost above the notebooks' own cells (what the
    floor does not run), largest first: the phases but the cells, the canary, the workers'
    start and the grader's process."""
    rows = [
        (name, _cpu(values) / n)
        for name, values in summary["total"].items()
        if not name.startswith("cells:")
    ]
    rows += [(name, _cpu(values) / n) for name, values in summary["run"].items()]
    return sorted(rows, key=lambda row: -row[1])


def targets(
    summary: dict[str, Any],
    n: int,
    floor: float,
    wall: float,
    stock_wall: float | None,
    busy: float,
    idle: float,
    cores: int,
) -> str:
    """The two targets side by side, each met or, with the arithmetic, held back by what:
    ``floor`` the floor's CPU seconds, ``wall`` our run's seconds, ``stock_wall`` stock
    nbgrader's (None: not run), ``busy`` and ``idle`` the run's core-seconds."""
    cpu = run_cpu(summary)
    ratio = cpu / floor
    extra = above_floor(summary, n)
    lines = ["", "Targets (issue 39), this run:", ""]
    verdict = "met" if ratio <= FLOOR_TARGET else "not met"
    lines.append(
        f"- at most {FLOOR_TARGET}x the floor: {ratio:.2f}x, {verdict} ({cpu / n:.3f} CPU s "
        f"a notebook against the floor's {floor / n:.3f})"
    )
    if ratio > FLOOR_TARGET:
        room = (FLOOR_TARGET - 1) * floor / n
        cells = cpu / n - sum(cost for _, cost in extra)
        shown = ", ".join(f"{name} {cost:.3f}" for name, cost in extra if cost >= 0.005)
        lines.append(
            f"  what the floor does not run, a notebook: {shown} (in all "
            f"{sum(c for _, c in extra):.3f}; the cells themselves {cells:.3f}); "
            f"{FLOOR_TARGET}x leaves {room:.3f} for all of it"
        )
    if stock_wall is not None:
        achieved = stock_wall / wall
        bound = stock_wall / (busy / cores)
        verdict = "met" if achieved >= STOCK_TARGET else "not met"
        lines.append(
            f"- at least {STOCK_TARGET}x stock nbgrader: {achieved:.2f}x, {verdict} "
            f"({stock_wall:.1f} s against {wall:.1f} s)"
        )
        if achieved < STOCK_TARGET:
            needed = stock_wall / STOCK_TARGET
            lines.append(
                f"  the run's {busy:.1f} busy core-seconds on {cores} cores never idle would "
                f"take {busy / cores:.1f} s: {bound:.2f}x at most; {STOCK_TARGET}x needs "
                f"{needed:.1f} s, {max(busy - cores * needed, 0):.1f} busy core-seconds fewer "
                f"and no idle one ({idle:.1f} idle here)"
            )
    return "\n".join(lines)


def model(summary: dict[str, Any], serial: float, stock_wall: float, workers: list[int]) -> str:
    """Our run on more cores, on paper: ``serial`` seconds that do not shrink (the
    grader's start before the first notebook, the workers' start in it, and its end after
    the last), the notebooks' and the canary's CPU spread over the cores, and half a
    notebook's wall clock at the end (the last notebook alone); stock nbgrader is
    sequential and stays ``stock_wall``."""
    canary = summary["run"]["canary (the instructor's solutions)"]
    cpu = sum(_cpu(v) for v in summary["total"].values()) + _cpu(canary)
    n = sum(summary["counts"].values())
    mean = summary["waits"][0] / n if n else 0.0
    rows = [
        f"spread over the cores: {cpu:.1f} CPU s (the notebooks' and the canary's)",
        "",
        "| cores (one worker each) | ours (s) | ratio to stock |",
        "|---|---|---|",
    ]
    for k in workers:
        ours = serial + cpu / k + mean / 2
        rows.append(f"| {k} | {ours:.1f} | {stock_wall / ours:.2f}x |")
    return "\n".join(rows)
