"""The profile of a grading run (autograder.phases): where a notebook's seconds go.

The fast tests check the instrument itself (off unless asked for; nested phases counted
once; a kernel's CPU read from its own processes). The slow one grades a submission
through ``python -m autograder grade`` with ``AUTOGRADER_PROFILE`` set and checks that the
profile names every phase of a sandboxed, re-checked grading with plausible seconds, that
the kernel's CPU is counted where the cells run, and that the run's outputs are those of
the same run without the profile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import phases
from autograder.course import Course, list_assignments
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import make_submission

ASSIGNMENTS = list_assignments()


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_off_unless_asked(monkeypatch):
    monkeypatch.delenv(phases.ENV_PROFILE, raising=False)
    assert phases.start_record() is None
    with phases.phase(phases.SCAN):
        pass
    assert phases.take_record() is None


def test_nested_phases_are_counted_once(monkeypatch, tmp_path):
    monkeypatch.setenv(phases.ENV_PROFILE, str(tmp_path / "profile.json"))
    phases.start_record()
    with phases.phase(phases.RECHECK):
        _spin(0.05)
        for _ in range(3):
            with phases.phase(phases.GRADEBOOK):
                _spin(0.02)
    phases.add(phases.KERNEL_WARM, 0.0, 0.0, 0.5)
    record = phases.take_record()
    assert record is not None
    got = record["phases"]
    assert got[phases.GRADEBOOK][3] == 3
    assert got[phases.GRADEBOOK][1] == pytest.approx(0.06, abs=0.02)
    assert got[phases.RECHECK][1] == pytest.approx(0.05, abs=0.02)  # without the inner ones
    assert got[phases.KERNEL_WARM][2] == 0.5
    assert sum(v[1] for v in got.values()) == pytest.approx(record["cpu"], abs=1e-4)
    assert sum(v[0] for v in got.values()) == pytest.approx(record["wall"], abs=1e-4)


def test_kernel_cpu_is_read_from_the_kernels_processes():
    busy = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nend = time.process_time() + 0.2\n"
            "while time.process_time() < end: pass\ntime.sleep(30)",
        ]
    )
    try:
        kernel = phases.KernelCPU(busy.pid)
        deadline = time.monotonic() + 20
        while kernel.seconds() < 0.2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert 0.2 <= kernel.seconds() < 0.6
    finally:
        busy.kill()
        busy.wait()


def _grade(root: Path, batch: Path, out: Path, profile: Path | None) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    env.pop(phases.ENV_PROFILE, None)
    if profile is not None:
        env[phases.ENV_PROFILE] = str(profile)
    command = [
        sys.executable,
        "-m",
        "autograder",
        "grade",
        str(batch),
        "--course",
        str(root / "course"),
        "--out",
        str(out),
        "--workers",
        "1",
        "--no-progress",
        "--regrade",
    ]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.needs_sandbox
@pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")
def test_a_record_says_when_it_began_and_ended(monkeypatch, tmp_path):
    monkeypatch.setenv(phases.ENV_PROFILE, str(tmp_path / "profile.json"))
    before = time.time()
    phases.start_record()
    time.sleep(0.05)
    record = phases.take_record()
    after = time.time()
    assert before <= record["began"] < record["ended"] <= after
    # the timeline's length is the record's wall time, whatever the load (two clocks read
    # apart once disagreed by 17 ms on a loaded machine)
    assert record["ended"] - record["began"] == pytest.approx(record["wall"], abs=2e-6)


def test_the_timeline_counts_idle_cores_per_stage():
    from benchmarks.grading_profile import timeline
    from benchmarks.machine import BusySampler

    # a run from t=0 to t=20 on 2 cores: the canary 2-6 (two notebooks, one of 2-6, one of
    # 2-4), the class 7-17 (two workers, 7-17 and 7-12), the end 17-20
    def sub(began: float, ended: float, canary: bool) -> dict:
        return {"canary": canary, "began": began, "ended": ended, "phases": {}}

    profile = {
        "submissions": [
            sub(2, 6, True),
            sub(2, 4, True),
            sub(7, 17, False),
            sub(7, 12, False),
        ]
    }
    busy = BusySampler()
    # the machine: 1 core busy until 2, 2 until 17, 0.5 after (1 core-second per second
    # until 2: busy() interpolates between samples)
    busy.times = [0.0, 2.0, 17.0, 20.0]
    busy.values = [0.0, 2.0, 32.0, 33.5]
    text = timeline(profile, busy, 0.0, 20.0, cores=2, workers=2)
    rows = {line.split(" | ")[0].strip("| *"): line for line in text.splitlines() if "|" in line}
    assert rows["start: the grader, intake, the workers' start"].endswith(
        "| 2.0 | 2.0 | 2.0 | 1.00 |"
    )
    assert rows["the canary (the instructor's solutions)"].endswith("| 4.0 | 8.0 | 0.0 | 2.00 |")
    assert rows["between the canary and the class"].endswith("| 1.0 | 2.0 | 0.0 | 2.00 |")
    assert rows["the class"].endswith("| 10.0 | 20.0 | 0.0 | 2.00 |")
    assert rows["end: scores read, reports written, workers stopped"].endswith(
        "| 3.0 | 1.5 | 4.5 | 0.50 |"
    )
    assert rows["the run"].endswith("| 20.0 | 33.5 | 6.5 | 1.68 |")
    # fewer notebooks than workers: 12-17 in the class, 4-6 in the canary
    assert "fewer notebooks ran than workers for 5.0 s" in text
    assert "in the canary, for 2.0 s" in text


@pytest.mark.slow
def test_a_graded_run_writes_its_profile(tmp_path):
    first = ASSIGNMENTS[0]
    course = Course(tmp_path / "course")
    ensure_released(course, [first], zips=False)
    release_nb = course.root / "release" / first / f"{first}.ipynb"
    source_nb = course.source_dir(first) / f"{first}.ipynb"
    target = tmp_path / "batch" / "alice" / first / f"{first}.ipynb"
    target.parent.mkdir(parents=True)
    target.write_bytes(notebook_bytes(make_submission(release_nb, source_nb)))

    _grade(tmp_path, tmp_path / "batch", tmp_path / "plain", None)
    assert not (tmp_path / "profile.json").exists()
    _grade(tmp_path, tmp_path / "batch", tmp_path / "profiled", tmp_path / "profile.json")

    profile = json.loads((tmp_path / "profile.json").read_text())
    [sub] = [s for s in profile["submissions"] if not s["canary"]]
    [canary] = [s for s in profile["submissions"] if s["canary"]]
    assert (sub["assignment"], sub["student"]) == (first, "alice")
    assert canary["began"] < canary["ended"] and sub["began"] < sub["ended"]
    got = sub["phases"]
    for name in (
        phases.GRADEBOOK,
        phases.KERNEL_WARM,
        phases.CELLS_INSTRUCTOR,
        phases.CELLS_STUDENT,
        phases.CELLS_TESTS,
        phases.RECHECK,
        phases.SCAN,
        phases.KERNEL_STOP,
        phases.NBGRADER,
        phases.FEEDBACK,
    ):
        assert got[name][3] >= 1, name
    # the cells run in the kernel: most of their CPU is the kernel's, not the grader's
    assert got[phases.CELLS_INSTRUCTOR][2] > got[phases.CELLS_INSTRUCTOR][1] > 0
    # the test cells' calls of the student's functions run in the kernel during the re-check
    assert got[phases.RECHECK][2] > 0
    assert sum(v[0] for v in got.values()) == pytest.approx(sub["wall"], rel=1e-3)
    assert got[phases.OTHER][0] < 0.1 * sub["wall"]
    assert canary["worker_start"][1] > 0  # the worker's own start, with its first notebook
    assert profile["run"]["phases"][phases.INTAKE][3] >= 1
    assert profile["run"]["phases"][phases.REPORTS][3] >= 1

    # the profile changes nothing the run writes: results, grades, summary, feedback pages
    def outputs(folder: Path) -> dict[str, bytes]:
        return {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and "_mathjax" not in p.parts
        }

    plain, profiled = outputs(tmp_path / "plain"), outputs(tmp_path / "profiled")
    assert {"results.json", "grades.csv", "summary.md"} <= set(plain)
    assert any(name.endswith(".html") for name in plain)
    assert plain == profiled
