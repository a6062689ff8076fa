"""autograder.feedback.student_page: the flags the grader's own code writes, in the student's
words; the diagnoses under the failing tests; tracebacks without the grader's frames; whole
scores as whole numbers. (Through ``python -m autograder grade``:
``tests/autograder/test_student_page.py``.)"""

from __future__ import annotations

import nbformat
import pytest
from nbconvert.filters import clean_html as nbconvert_clean_html
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.feedback.student_page import (
    ExplainToStudent,
    student_note,
    trim_traceback,
    whole_round,
)
from autograder.grading.preprocessors import (
    _CHANGE_LINES,
    OTHER_RELEASE_LINE,
    RecordSubmissionFlags,
)
from autograder.notebook import add_flag
from autograder.recheck.channel import HungCall
from autograder.recheck.names import InstructorCode
from autograder.recheck.outcomes import RunState, _flag_disagreement, finish, hang_flags
from autograder.recheck.runner import CheckResult
from autograder.recheck.scan import Finding
from autograder.recheck.sources import enforce_test_metadata


def _flags(nb) -> list[str]:
    return list(nb.metadata["autograder"]["flags"])


def _test_cell(grade_id: str, **meta) -> nbformat.NotebookNode:
    cell = new_code_cell("assert True")
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": grade_id, **meta}
    return cell


def _real_flags() -> dict[str, str]:
    """kind -> a flag as the grader's code writes it."""
    flags: dict[str, str] = {}
    instructor = InstructorCode([("solution", "train_perceptron", "def train_perceptron(): ...")])
    state = RunState(
        timeouts=[(7, 30)],
        restarted=8,
        out_of_time="the notebook ran longer than 300 s; the cells after that were not run "
        "(answer cells excepted)",
        hung=[HungCall("train_perceptron", 30.0, False)],
    )
    results = {
        "train_perceptron_visible": CheckResult(
            "train_perceptron_visible", False, "KernelCallTimeout", "train_perceptron: no answer"
        )
    }
    timeout, restart, out_of_time, hung = hang_flags(state, results, instructor)
    flags.update(timeout=timeout, restart=restart, out_of_time=out_of_time, hung=hung)
    nb = new_notebook()
    finish(nb, RunState(dead="memory limit exceeded", truncated={2: 10}), {}, {}, {})
    flags["dead"], flags["truncated"] = _flags(nb)
    nb = new_notebook(cells=[_test_cell("t_visible", solution=True)])
    enforce_test_metadata(nb, {"t_visible": "assert True"})
    (flags["made_answer"],) = _flags(nb)
    expected = {
        "t_visible": {"meta": {"grade": True, "solution": False}},
        "t_hidden": {"meta": {"grade": True, "solution": False}},
        "answer": {"meta": {"grade": False, "solution": True}},
    }
    nb = new_notebook()
    counts = {"t_visible": 2, "t_hidden": 0, "answer": 0}
    RecordSubmissionFlags._structure_flags(nb, expected, counts)
    flags["duplicated"], flags["deleted"], flags["answer_deleted"] = _flags(nb)
    for kind, template in _CHANGE_LINES.items():
        flags[f"change_{kind}"] = template.format(cells="'mine'")
    nb = new_notebook()
    kernel_error = [new_output("error", ename="E", evalue="x", traceback=[])]
    passed, failed = CheckResult("t", True), CheckResult("t", False, "AssertionError", "m")
    _flag_disagreement(nb, "t_visible", "fail (E: x)", kernel_error, passed)
    _flag_disagreement(nb, "t_visible", "pass", [], failed)
    flags["kernel_failed"], flags["recheck_failed"] = _flags(nb)
    flags["scan"] = str(Finding("perceptron_update", 3, "patches an assert of the tests"))
    return flags


FLAGS = _real_flags()


@pytest.mark.parametrize("kind", sorted(FLAGS))
def test_every_flag_about_the_students_work_has_words(kind):
    words = student_note(FLAGS[kind], {"train_perceptron": {"hint": "a cap is missing"}})
    assert words, f"no words for {FLAGS[kind]!r}"
    assert "instructor" not in words and "trusted" not in words


def test_a_hang_names_the_function_and_the_exercises_hint():
    words = student_note(FLAGS["hung"], {"train_perceptron": {"hint": "the cap is missing"}})
    assert "<code>train_perceptron</code> did not return within 30 s: the cap is missing" in words
    assert "did not return within 30 s. Its" in student_note(FLAGS["hung"], {})


def test_flags_about_the_grading_itself_are_not_the_students():
    assert student_note("t_visible: re-check: X: instructor code failed here (NameError)") is None
    assert student_note("the catalogue of misconceptions cannot be read: x") is None
    # a notebook made from another nbgrader's release: nothing of the student's to act on
    assert student_note(OTHER_RELEASE_LINE.format(cells="squares, 't'")) is None


def test_a_metadata_change_does_not_read_as_the_answers_replaced():
    words = student_note(_CHANGE_LINES["checksum"].format(cells="squares"))
    assert "your answers are graded as you wrote them" in words


def test_what_a_student_chose_is_escaped():
    flag = _CHANGE_LINES["unknown"].format(cells=repr("<img src=x onerror=alert(1)>"))
    words = student_note(flag)
    assert "<img" not in words and "&lt;img" in words


def test_tracebacks_lose_the_graders_frames():
    traceback = [
        "\x1b[31mAssertionError\x1b[39m   Traceback (most recent call last)",
        "\x1b[36mCell\x1b[39m In[9], line 14\n---> 14 test_activation_visible()\n",
        "\x1b[36mFile \x1b[39m\x1b[32mlinlib/grading.py:165\x1b[39m, in assert_close\n raise\n",
        "File site-packages/numpy/linalg/_linalg.py:104, in _raise_linalgerror_singular\n",
        "\x1b[31mAssertionError\x1b[39m: activation(X, w, b): values differ",
    ]
    trimmed = trim_traceback(traceback)
    assert len(trimmed) == 4 and not any("linlib/grading.py" in t for t in trimmed)


def test_whole_scores_print_as_whole_numbers():
    assert str(whole_round(8.0, 2)) == "8" and str(whole_round(7.5, 2)) == "7.5"
    assert str(whole_round(2 / 3, 2)) == "0.67" and whole_round(2.5, 0, "floor") == 2


def test_the_page_gets_the_notes_and_the_diagnoses():
    error = new_output(
        "error",
        ename="AssertionError",
        evalue="no",
        traceback=["File linlib/grading.py:1, in call_student\n", "AssertionError: no"],
    )
    visible, hidden = _test_cell("predict_visible"), _test_cell("predict_hidden")
    visible.outputs, hidden.outputs = [], [error]
    nb = new_notebook(cells=[new_code_cell("x = 1"), visible, hidden])
    add_flag(nb, FLAGS["deleted"])
    add_flag(nb, "t_visible: re-check: X: instructor code failed here (NameError)")
    nb.metadata["autograder"]["diagnoses"] = {
        "predict": {
            "exercise": "predict",
            "misconception": "tie_is_positive",
            "says": "you treat a point on the plane as <b>positive</b>",
            "hint": "see §3",
            "call": "predict([[1.0]], [1.0], -1.0)",
            "got": "array([1])",
            "rule": "array([-1])",
            "tests": ["predict_hidden"],
        }
    }
    nb, _ = ExplainToStudent().preprocess(nb, {})
    notes = nb.cells[0]
    assert notes.cell_type == "raw" and notes.metadata["raw_mimetype"] == "text/html"
    assert "What the grader did to your notebook" in notes.source
    # a raw cell: nbconvert's template keeps a few tags of it (bleach), all the box has
    assert nbconvert_clean_html(notes.source) == notes.source
    assert "You deleted the test cell" in notes.source and "re-check" not in notes.source
    (box,) = [o for o in nb.cells[3].outputs if o.output_type == "display_data"]
    page = box.data["text/html"]
    assert "What this looks like:</strong> you treat a point on the plane as &lt;b&gt;" in page
    assert "<code>predict([[1.0]], [1.0], -1.0)</code>: your answer <code>array([1])</code>" in page
    assert "the rule's answer <code>array([-1])</code>" in page
    assert box.data["text/plain"].startswith("What this looks like: you treat")
    assert not [o for o in nb.cells[2].outputs if o.output_type == "display_data"]
    assert nb.cells[3].outputs[0].traceback == ["AssertionError: no"]


def test_an_unmatched_or_hung_exercise_says_so():
    from autograder.feedback.student_page import diagnosis_output

    unmatched = diagnosis_output(
        {"misconception": None, "call": "f(1)", "got": "2", "rule": "1", "tests": ["f_hidden"]}
    )
    assert "none of the typical mistakes" in unmatched.data["text/plain"]
    assert "f(1), your answer" not in unmatched.data["text/plain"]
    hung = diagnosis_output({"exercise": "f", "timed_out": 30, "hint": "the cap is missing"})
    assert "your f did not return within 30 s: the cap is missing" in hung.data["text/plain"]
