"""The canary, through the command line: before a batch grades any student, the instructor's
solution of each assignment is graded the same way; in a broken grading environment the
batch is refused (one line, exit 1) and nothing is written.

The broken environment is a real one, not a mock of the grader: the grader's Python imports
linlib from a folder on ``PYTHONPATH`` (a copy of the package), so the sandbox binds that
folder, while the sandboxed kernel's Python (its environment cleared, as always) looks for
linlib where this environment installed it, a folder the sandbox does not bind: every
kernel fails with ``No module named 'linlib'``. An instructor meets this when linlib is on
the grader's path but not installed where the kernels' Python finds it. Before the canary,
that class scored 0.00 each, exit 0, no flag (the tests below then fail: exit 0, not 1).

Switching the canary off (no canaries passed to ``grade_prepared``) makes
``test_a_broken_environment_refuses_the_class``, its ``--dask`` and ``demo`` variants fail:
the run exits 0 and writes grades.csv with 0.00 for the instructor's own solution.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.course import Course, list_assignments
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import make_submission
from course_common.assets import FEEDBACK_MATHJAX
from tests.autograder.fault_helpers import refusal

ASSIGNMENTS = list_assignments()
FIRST = ASSIGNMENTS[0] if ASSIGNMENTS else ""
BROKEN = "linlib cannot be imported in the sandboxed kernel: No module named 'linlib'"

pytestmark = [
    pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet"),
    pytest.mark.needs_sandbox,
]


def _cli(args: list[str], cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """``python -m autograder ARGS`` in a process of its own, as an instructor runs it."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    command = [sys.executable, "-m", "autograder", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def shadow(tmp_path_factory) -> Path:
    """A folder holding a copy of linlib, for the grader's PYTHONPATH (the broken set-up)."""
    import linlib

    folder = tmp_path_factory.mktemp("shadow")
    source = Path(linlib.__file__).parent
    shutil.copytree(source, folder / "linlib", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture(scope="module")
def class_dir(tmp_path_factory) -> Path:
    """A released course and a class of the first assignment: the instructor's solution
    handed in by ``full``, the release as handed out by ``blank``."""
    root = tmp_path_factory.mktemp("canary")
    course = Course(root / "course")
    ensure_released(course, [FIRST], zips=False)
    release_nb = course.root / "release" / FIRST / f"{FIRST}.ipynb"
    source_nb = course.source_dir(FIRST) / f"{FIRST}.ipynb"
    for student, content in (
        ("full", notebook_bytes(make_submission(release_nb, source_nb))),
        ("blank", release_nb.read_bytes()),
    ):
        target = root / "batch" / student / FIRST / f"{FIRST}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_bytes(content)
    return root


def _students(course_dir: Path) -> list[str]:
    with Course(course_dir).gradebook() as gb:
        return sorted(s.id for s in gb.students)


def _student_folders(course_dir: Path) -> list[str]:
    return sorted(
        f"{step}/{p.name}"
        for step in ("submitted", "autograded", "feedback")
        if (course_dir / step).is_dir()
        for p in (course_dir / step).iterdir()
        if p.name != FEEDBACK_MATHJAX  # the course's MathJax, for formgrader
    )


def _assert_refused(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 1, proc.stderr[-3000:]
    line = refusal(proc.stderr)  # after grade's course folder line, one line
    assert line.startswith("python -m autograder: error: refusing to grade: ")
    assert "the instructor's solution of " in line and BROKEN in line
    assert proc.stdout == ""
    return line


def _ledger_lines(course_dir: Path) -> list[dict]:
    path = course_dir / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_a_broken_environment_refuses_the_class(class_dir, shadow):
    course_dir, out = class_dir / "course", class_dir / "out"
    args = ["grade", "batch", "--course", "course", "--out", "out", "--workers", "2"]
    proc = _cli(args, class_dir, pythonpath=shadow)
    line = _assert_refused(proc)
    assert f"solution of {FIRST} does not pass " in line
    # nothing written: no outputs, no ledger entry, no student in the gradebook or the
    # course's folders (the release, made before, is the course's, not the run's)
    assert not out.exists()
    assert _ledger_lines(course_dir) == []
    assert _students(course_dir) == []
    assert _student_folders(course_dir) == []


@pytest.mark.slow
def test_the_same_class_in_a_working_environment_is_graded(class_dir):
    """After the refusal, the same command in a working environment grades the class (no
    zeros replayed: nothing was recorded) and the canary is nowhere in what it wrote."""
    from autograder.grading import CANARY_PREFIX, canary_student

    course_dir, out = class_dir / "course", class_dir / "out"
    args = ["grade", "batch", "--course", "course", "--out", "out", "--workers", "2"]
    proc = _cli(args, class_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"the instructor's solution of {FIRST} got full marks" in proc.stderr
    rows = {r["student_id"]: r for r in csv.DictReader((out / "grades.csv").open())}
    assert sorted(rows) == ["blank", "full"]
    assert float(rows["full"]["score"]) == float(rows["full"]["max_score"]) > 0
    assert float(rows["blank"]["score"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert sorted(r["student"] for r in results["submissions"]) == ["blank", "full"]
    feedback = (out / "feedback").iterdir()
    assert sorted(p.name for p in feedback if p.is_dir() and p.name != FEEDBACK_MATHJAX) == [
        "blank",
        "full",
    ]
    for text in ((out / "summary.md").read_text(), proc.stdout):
        assert CANARY_PREFIX not in text
    assert _students(course_dir) == ["blank", "full"]
    assert _student_folders(course_dir) == [
        f"{step}/{s}" for step in ("autograded", "feedback", "submitted") for s in ("blank", "full")
    ]
    assert sorted(e["student"] for e in _ledger_lines(course_dir)) == ["blank", "full"]
    assert canary_student(Course(course_dir)).startswith(CANARY_PREFIX)


@pytest.mark.slow
def test_a_rerun_reuses_and_regrade_grades_again(class_dir):
    """A re-run with nothing changed reuses the ledger (nothing graded: no canary either);
    ``--regrade --student S`` grades S again, ``--regrade`` everyone, each after the
    canary; the scores stay."""
    course_dir, out = class_dir / "course", class_dir / "out"
    args = ["grade", "batch", "--course", "course", "--out", "out", "--workers", "2"]
    before = len(_ledger_lines(course_dir))
    grades = (out / "grades.csv").read_text()

    proc = _cli(args, class_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "grading environment checked" not in proc.stderr
    assert len(_ledger_lines(course_dir)) == before
    # not in silence: the run says it graded nothing and reused every result
    assert "graded 0 submissions, reused 2 recorded result(s)" in proc.stdout

    proc = _cli([*args, "--regrade", "--student", "full"], class_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "graded 1 submission, reused 1 recorded result(s)" in proc.stdout
    assert "grading environment checked" in proc.stderr
    added = _ledger_lines(course_dir)[before:]
    assert [e["student"] for e in added] == ["full"]

    proc = _cli([*args, "--regrade"], class_dir)
    assert proc.returncode == 0, proc.stderr[-3000:]
    added = _ledger_lines(course_dir)[before + 1 :]
    assert sorted(e["student"] for e in added) == ["blank", "full"]
    assert (out / "grades.csv").read_text() == grades
    assert _students(course_dir) == ["blank", "full"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--student", "full"], "--student names whom --regrade grades again"),
        (["--regrade", "--student", "nobody"], "--student nobody: no submission of that student"),
    ],
)
def test_regrade_arguments_are_checked(class_dir, extra, message):
    args = ["grade", "batch", "--course", "course", "--out", "out2", "--unsandboxed", *extra]
    proc = _cli(args, class_dir)
    assert proc.returncode == 2
    assert message in refusal(proc.stderr)
    assert not (class_dir / "out2").exists()


@pytest.mark.slow
def test_a_broken_environment_refuses_the_class_on_dask(class_dir, shadow, tmp_path):
    """``--dask``: the canary is graded by the Dask workers' grading processes, as the
    class would be; the refusal is the same, and nothing is written."""
    course_dir = tmp_path / "course"
    args = ["grade", str(class_dir / "batch"), "--course", "course", "--out", "out"]
    proc = _cli([*args, "--dask", "local:1"], tmp_path, pythonpath=shadow)
    _assert_refused(proc)
    assert not (tmp_path / "out").exists()
    assert _ledger_lines(course_dir) == []
    assert _students(course_dir) == []
    assert _student_folders(course_dir) == []


@pytest.mark.slow
def test_the_demo_is_refused_in_a_broken_environment(tmp_path, shadow):
    """``demo`` is a ``grade``: the same canary, the same refusal."""
    args = ["demo", "--course", "course", "--out", "out", "--workers", "2"]
    proc = _cli(args, tmp_path, pythonpath=shadow)
    _assert_refused(proc)
    assert not (tmp_path / "out").exists()
    assert _ledger_lines(tmp_path / "course") == []
    assert _students(tmp_path / "course") == []
    assert _student_folders(tmp_path / "course") == []
