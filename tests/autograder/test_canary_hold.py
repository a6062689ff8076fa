"""The canary beside the class (:mod:`autograder.grading.hold`), through the command line:
the students graded while the instructor's solution is still being graded are held out of
the course, and a refusal leaves the gradebook, the ledger and ``--out`` exactly as they
were.

The broken environment is one the canary exists for: a cell time limit too short for the
instructor's own solution (``AUTOGRADER_SAFE_EXECUTE``), whose answer takes four seconds,
while the students' answers are quick. With two workers the canary holds one, and the other
grades the class beside it: the students finish before the canary's verdict. Switching the
hold off (the students graded straight into the course) makes
``test_a_refusal_leaves_the_course_as_it_was`` fail: their grades are in the gradebook.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tests.autograder.fault_helpers import environment, one_line_error, run_cli, snapshot
from tests.autograder.foreign_courses import answer, check, fill, notebook
from tests.golden import gradebook_dump

pytestmark = [pytest.mark.slow, pytest.mark.needs_sandbox]

SLOW = (
    "def double(x):\n    ### BEGIN SOLUTION\n    time.sleep(4)\n    return 2 * x\n"
    "    ### END SOLUTION"
)
QUICK = "def double(x):\n    return x + x"
#: A time limit too short for the instructor's answer (a cell, and a call in the re-check).
LIMITS = json.dumps({"timeout": 2, "recheck_call_timeout": 2})


def _course(root: Path) -> Path:
    """One assignment whose instructor's answer takes four seconds."""
    (root / "source" / "slow").mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(
        'c = get_config()  # noqa: F821\nc.CourseDirectory.course_id = "slow"\n'
    )
    nb = notebook(
        [
            nbformat.v4.new_code_cell("import time"),
            answer(SLOW, "double"),
            check("assert double(2) == 4", "double_test", 1),
        ]
    )
    nbformat.write(nb, root / "source" / "slow" / "slow.ipynb")
    return root


def _class(release: Path, dest: Path, students: list[str]) -> Path:
    for student in students:
        folder = dest / student / "slow"
        folder.mkdir(parents=True)
        nbformat.write(fill(release / "slow.ipynb", {"double": QUICK}), folder / "slow.ipynb")
    return dest


def _state(course: Path, out: Path) -> dict:
    """What the refusal must leave as it was: the gradebook's rows, the ledger, the outputs."""
    return {
        "gradebook": gradebook_dump(course),
        "ledger": (course / "ledger.jsonl").read_bytes(),
        "out": snapshot(out),
    }


@pytest.mark.parametrize("executor", [["--workers", "2"], ["--dask", "local:2"]], ids=str)
def test_a_refusal_leaves_the_course_as_it_was(tmp_path, executor):
    source = _course(tmp_path / "slow-course")
    course, out = tmp_path / "course", tmp_path / "out"
    args = ("--source", source, "--course", course, "--out", out, *executor)
    done = run_cli("release", "--source", source, "--course", course, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first = _class(course / "release" / "slow", tmp_path / "first", ["ann", "ben"])
    done = run_cli("grade", first, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    before = _state(course, out)
    assert json.loads(before["gradebook"])  # the first class is in it
    # a second class, more students, and ann again with another answer; the cell limit too
    # short for the instructor's solution
    second = _class(
        course / "release" / "slow", tmp_path / "second", ["ann", "cid", "dee", "eve", "fay"]
    )
    env = dict(environment(), AUTOGRADER_SAFE_EXECUTE=LIMITS)
    done = run_cli("grade", second, *args, cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    line = one_line_error(done.stderr)
    assert "refusing to grade: the instructor's solution of slow does not pass double_test" in line
    # students finished beside the canary, and were set aside
    assert "nothing was written (" in line and "graded beside it set aside)" in line, line
    assert _state(course, out) == before
    assert not (course / "held").exists(), sorted(str(p) for p in (course / "held").rglob("*"))
    assert not list(course.glob(".canary-passed-*"))


def test_students_past_the_scratch_course_wait_for_the_verdict(tmp_path, monkeypatch, capsys):
    """Only the first students (``HELD_PER_WORKER`` a worker) are copied into the scratch
    course; one after them that starts before the verdict waits for it, so that a refusal
    still leaves nothing, and a pass grades them in the course."""
    from autograder.__main__ import main
    from autograder.grading import batch

    monkeypatch.setattr(batch, "HELD_PER_WORKER", 1)
    source = _course(tmp_path / "slow-course")
    course, out = tmp_path / "course", tmp_path / "out"
    args = ["--source", source, "--course", course, "--out", out, "--workers", "2"]
    assert main(["release", *map(str, args[:4])]) == 0
    students = ["ann", "ben", "cid", "dee", "eve", "fay"]
    batch_dir = _class(course / "release" / "slow", tmp_path / "class", students)
    monkeypatch.setenv("AUTOGRADER_SAFE_EXECUTE", LIMITS)
    capsys.readouterr()
    assert main(["grade", str(batch_dir), *map(str, args), "--no-progress"]) == 1
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "refusing to grade" in line and "set aside" in line, line
    assert json.loads(gradebook_dump(course))["students"] == []
    assert not (course / "ledger.jsonl").exists() and not out.exists()
    monkeypatch.delenv("AUTOGRADER_SAFE_EXECUTE")
    assert main(["grade", str(batch_dir), *map(str, args), "--no-progress"]) == 0
    grades = (out / "grades.csv").read_text()
    assert all(f",{student},,,,1.0,0.0,1.0,1.0," in grades for student in students), grades
