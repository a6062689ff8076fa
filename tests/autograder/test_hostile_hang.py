"""A hung answer costs its own exercise: graded through the command line next to an honest
student, in the sandbox, with small limits.

The hung answers replace a graded function that later cells of the notebook call too (the
worst case: each of those cells would wait out its limit): an endless loop, a sleep of
10**6 s, an endless loop with SIGINT ignored (the kernel must be killed), and two functions
that loop. Each must lose exactly the points of the tests that call a hung function, keep
every other point, be flagged in one line per cause, and take a bounded time.
"""

from __future__ import annotations

import ast
import csv
import json
import textwrap
import time

import nbformat
import pytest

from autograder.__main__ import main
from autograder.course import Course
from autograder.grading.safe_execute import ENV_CONFIG
from autograder.notebook import notebook_bytes
from autograder.recheck import free_names
from autograder.samples import make_submission, solution_sources

# The same notebook as the hostile battery (the lightest; its first graded function is
# called by many later cells).
from tests.autograder.test_hostile import ASSIGNMENT, NOTEBOOKS

pytestmark = [
    pytest.mark.needs_sandbox,
    pytest.mark.skipif(ASSIGNMENT is None, reason="no course notebook with sample answers"),
]

LIMITS = {
    "timeout": 10,
    "interrupt_grace": 2,
    "after_timeout": 2,
    "recheck_call_timeout": 5,
    "notebook_timeout": 120,
}

HANGS = {
    "loop": "while True:\n    pass\n",
    "sleep": "import time\ntime.sleep(10**6)\n",
    "sigint": (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n"
    ),
}


def _points(nb) -> dict[str, float]:
    """grade id -> points of every autograded test cell of the source notebook."""
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
    }


def _graded_functions(source_nb) -> list[tuple[str, str]]:
    """(answer cell grade id, function name) of each answer cell defining a function."""
    found = []
    for grade_id, source in solution_sources(source_nb).items():
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        if names:
            found.append((grade_id, names[0]))
    return found


def _callers(source_nb, function: str) -> set[str]:
    """The autograded test cells whose code uses *function*."""
    points = _points(source_nb)
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in source_nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in points
        and function in free_names(c.source)
    }


def _hung(solutions: dict[str, str], answer: str, function: str, body: str) -> str:
    """The instructor's answer, then the function defined again to hang."""
    return (
        solutions[answer]
        + f"\n\ndef {function}(*args, **kwargs):\n"
        + textwrap.indent(body, "    ")
    )


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("hang")
    course = Course(root / "course").make([ASSIGNMENT])
    release = course.release(ASSIGNMENT)
    source_nb = nbformat.read(str(NOTEBOOKS / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    release_nb = nbformat.read(str(release / f"{ASSIGNMENT}.ipynb"), as_version=4)
    solutions = solution_sources(source_nb)
    functions = [(a, f) for a, f in _graded_functions(source_nb) if _callers(source_nb, f)]
    assert len(functions) >= 2, "the notebook needs two graded functions"
    (first_answer, first), (second_answer, second) = functions[:2]
    submissions = {"honest": (make_submission(release_nb, source_nb), ())}
    for kind, body in HANGS.items():
        replace = {first_answer: _hung(solutions, first_answer, first, body)}
        submissions[f"hang_{kind}"] = (make_submission(release_nb, source_nb, replace), (first,))
    two = {
        first_answer: _hung(solutions, first_answer, first, HANGS["loop"]),
        second_answer: _hung(solutions, second_answer, second, HANGS["sleep"]),
    }
    submissions["hang_two"] = (make_submission(release_nb, source_nb, two), (first, second))
    folder = root / "submissions"
    for student, (nb, _) in submissions.items():
        target = folder / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_bytes(notebook_bytes(nb))
    out = root / "out"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ENV_CONFIG, json.dumps(LIMITS))
        start = time.monotonic()
        status = main(
            [
                *("grade", str(folder), "--course", str(course.root), "--out", str(out)),
                *("--workers", "2", "--no-feedback", "--no-progress"),
            ]
        )
        elapsed = time.monotonic() - start
    assert status == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    seconds = {}
    for student in submissions:
        graded = course.root / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        seconds[student] = nbformat.read(str(graded), as_version=4).metadata["autograder"][
            "seconds"
        ]
    return {
        "points": _points(source_nb),
        "hung": {s: h for s, (_, h) in submissions.items()},
        "callers": {f: _callers(source_nb, f) for _, f in functions},
        "answers": dict((f, a) for a, f in functions),
        "entries": {e["student"]: e for e in results["submissions"]},
        "rows": {r["student_id"]: r for r in csv.DictReader((out / "grades.csv").open())},
        "seconds": seconds,
        "elapsed": elapsed,
    }


@pytest.mark.slow
def test_the_honest_student_keeps_a_full_readable_row(batch):
    points = batch["points"]
    row = batch["rows"]["honest"]
    assert float(row["score"]) == pytest.approx(sum(points.values()))
    assert float(row["max_score"]) == pytest.approx(sum(points.values()))
    entry = batch["entries"]["honest"]
    assert {g: t["score"] for g, t in entry["tests"].items()} == points
    assert entry["flags"] == []


@pytest.mark.slow
@pytest.mark.parametrize("student", ["hang_loop", "hang_sleep", "hang_sigint", "hang_two"])
def test_a_hang_costs_exactly_the_tests_of_its_exercise(batch, student):
    points = batch["points"]
    lost = set().union(*(batch["callers"][f] for f in batch["hung"][student]))
    assert lost and lost != set(points)
    expected = {g: (0.0 if g in lost else p) for g, p in points.items()}
    entry = batch["entries"][student]
    assert {g: t["score"] for g, t in entry["tests"].items()} == expected
    assert float(batch["rows"][student]["score"]) == pytest.approx(sum(expected.values()))


@pytest.mark.slow
@pytest.mark.parametrize("student", ["hang_loop", "hang_sleep", "hang_sigint", "hang_two"])
def test_a_hang_is_one_flag_line_per_function(batch, student):
    flags = batch["entries"][student]["flags"]
    assert all("\n" not in f and "Traceback" not in f for f in flags), flags
    assert any(f.startswith("time-out: cell(s) #") for f in flags), flags
    for function in batch["hung"][student]:
        answer = batch["answers"][function]
        line = [f for f in flags if f.startswith(f"exercise {answer}: {function} did not return")]
        assert len(line) == 1, flags
        for test in batch["callers"][function]:
            assert test in line[0]
    assert not any("ran longer than" in f and "not run" in f for f in flags), flags


@pytest.mark.slow
def test_a_kernel_that_ignores_the_interrupt_is_flagged_and_restarted(batch):
    flags = batch["entries"]["hang_sigint"]["flags"]
    assert any(
        "did not stop when interrupted: the kernel was killed and restarted" in f for f in flags
    )
    assert any("ignored the interrupt, so the kernel was killed and restarted" in f for f in flags)
    assert not any(f.startswith("kernel stopped") for f in flags), flags


@pytest.mark.slow
@pytest.mark.parametrize("student", ["hang_loop", "hang_sleep", "hang_sigint", "hang_two"])
def test_a_hung_submission_takes_a_bounded_time(batch, student):
    # Generous: per hung function, a cell limit and a call limit (each with its interrupt
    # grace) twice over, and two re-runs of the honest notebook (kernel restarts); the
    # later cells that call it get the short limit. No tight timing: the machine is shared.
    honest = batch["seconds"]["honest"]
    per_hang = 2 * (
        LIMITS["timeout"] + LIMITS["recheck_call_timeout"] + 2 * LIMITS["interrupt_grace"]
    )
    code_cells = 40 * (LIMITS["after_timeout"] + 1)
    hung = len(batch["hung"][student])
    bound = honest * 3 + hung * per_hang + code_cells + 60
    assert batch["seconds"][student] < bound, (batch["seconds"], bound)
