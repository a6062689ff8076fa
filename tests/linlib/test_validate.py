"""linlib.validate: the terminal check a student's README gives (issue 41).

What it prints is nbgrader's validation of the notebook with each failure's message whole:
the formatting is tested here on nbgrader's own cells, the whole check on a released
notebook of the course with a wrong answer (slow: it runs the notebook in a kernel). The
student's own environment runs the README's command in ``tests/e2e/test_student_release.py``.
"""

from __future__ import annotations

import io
import subprocess
import sys

import nbformat
import pytest

from autograder.release import release_course
from autograder.samples import solution_sources
from course_common.paths import REPO_ROOT
from linlib.validate import _validator_class, describe_test

LONG = (
    "w after a = 0 on a positive example: values differ at index (0,) (2 of 2 entries "
    "differ): expected 2.0, got 0.0 (tolerance: rtol=1e-07, atol=1e-09). Expected [2. 1.], "
    "got [0. 0.]."
)
TEST_SOURCE = '"""perceptron_update: the first three steps of Bast\'s toy run."""\nx = 1\n'


def _failed_cell(outputs: list) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(TEST_SOURCE)
    cell.outputs = outputs
    return cell


def test_a_failure_is_its_test_line_and_its_whole_message_wrapped():
    validator = _validator_class()()
    validator.stream = io.StringIO()
    error = nbformat.v4.new_output(
        "error",
        ename="AssertionError",
        evalue=LONG,
        traceback=["\x1b[0;31m---\x1b[0m", "  File linlib/grading.py, in assert_close", LONG],
    )
    text = validator._extract_error(_failed_cell([error]))
    assert text == f"AssertionError: {LONG}"  # the exception's line: no frame
    validator._print_error(TEST_SOURCE, text)
    shown = validator.stream.getvalue()
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= validator.width
    assert not any(line.rstrip().endswith("...") for line in lines)
    words = " ".join(shown.split())
    assert f"AssertionError: {LONG}" in words
    assert "This test failed: perceptron_update: the first three steps of Bast's toy run." in words
    assert "x = 1" not in shown  # the test's code is not shown
    assert "linlib/grading.py" not in shown


def test_a_failure_that_wrote_to_stderr_says_so():
    validator = _validator_class()()
    stream = nbformat.v4.new_output("stream", name="stderr", text="UserWarning: careful\n")
    assert (
        validator._extract_error(_failed_cell([stream]))
        == "It wrote to stderr: UserWarning: careful"
    )


def test_describe_test_reads_the_opening_docstring():
    assert describe_test('"""predict:   ties\n   count."""\nimport numpy') == "predict: ties count."
    assert describe_test("import numpy") is None
    assert describe_test("def (:") is None


@pytest.mark.slow
def test_the_check_of_a_released_notebook_with_a_wrong_answer(tmp_path, monkeypatch):
    """Notebook 02 released, answered with the instructor's solutions but a wrong update:
    the check exits 1 and lists exactly the update's tests, their messages whole, and
    nothing of the library's frames or the kernel's log; answered right, it exits 0."""
    assignment = "02_perceptron_update"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795000000")
    release_course(tmp_path / "course", [assignment])
    folder = tmp_path / "course" / "release" / assignment
    notebook = nbformat.read(folder / f"{assignment}.ipynb", as_version=4)
    answers = solution_sources(REPO_ROOT / "notebooks" / assignment / f"{assignment}.ipynb")
    right = nbformat.from_dict(notebook)
    for cell in notebook.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = answers[gid]
            if gid == "perceptron_update":
                cell.source = (
                    "def perceptron_update(w, b, x, y):\n"
                    "    return np.array(w, dtype=float), b, False  # never updates\n"
                )
    nbformat.write(notebook, folder / "wrong.ipynb")

    def check(name: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "linlib.validate", name],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )

    done = check("wrong.ipynb")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert out.count("This test failed: perceptron_update:") == out.count("This test failed:")
    assert out.count("This test failed:") == 2  # the visible test and the hidden one's visible part
    assert "perceptron_epoch:" not in out  # it uses the library's update
    words = " ".join(out.split())
    assert "AssertionError: w after a = 0 on a positive example: values differ" in words
    assert "Expected [2. 1.], got [0. 0.]." in words  # the end of the message: not cut
    assert "linlib/" not in out and "Traceback" not in out
    assert "Kernel is running over TCP" not in out and "INFO" not in out
    for cell in right.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = answers[cell.metadata.nbgrader.grade_id]
    nbformat.write(right, folder / "right.ipynb")
    done = check("right.ipynb")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success! Your notebook passes all the tests." in done.stdout
