"""Manual grading is visible: grades.csv, results.json and summary.md say what of each
submission awaits a person (nbgrader's "needs manual grade"), count its points in the
submission's maximum as nbgrader does, and a manual grade given in the gradebook (as
nbgrader's formgrader gives it) is exported by the next report.

Fast: a gradebook built with nbgrader's API (an assignment with an autograded test, a
written answer and a code answer graded by hand). Slow: the course's notebook with a
written answer graded by the command line, a manual grade given in its gradebook, and the
same batch graded again.
"""

from __future__ import annotations

import csv
import json
import shutil
import warnings
from pathlib import Path

import nbformat
import pytest
from sqlalchemy.exc import SAWarning

from autograder.course import Course
from autograder.models import SubmissionResult
from autograder.report import (
    ManualPending,
    export_grades,
    manual_pending,
    results_data,
    summarise,
    summary_text,
    totals,
)
from tests.needs import sandbox_args

#: the autograded test t, the written answer w and the code answer c (both graded by hand)
TEST_POINTS, ANSWER_POINTS, CODE_POINTS = 3.0, 2.0, 1.0
BY_HAND = ANSWER_POINTS + CODE_POINTS
MAX = TEST_POINTS + BY_HAND


def give_manual_grade(course: Course, assignment: str, student: str, score: float) -> None:
    """Grade every answer of the submission that needs it, as nbgrader's formgrader does
    (its grade API sets ``manual_score`` and clears ``needs_manual_grade``)."""
    with course.gradebook() as gb:
        submission = gb.find_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                if grade.needs_manual_grade:
                    grade.manual_score = score
                    grade.needs_manual_grade = False
        gb.db.commit()


@pytest.fixture(scope="module")
def gradebook_file(tmp_path_factory) -> Path:
    """A gradebook with assignment a1 (notebook n: autograded test t worth 3, written
    answer w worth 2, code answer c graded by hand worth 1), alice's submission autograded
    (3 points), both answers pending; built once (a new gradebook takes seconds), copied
    for each test."""
    root = tmp_path_factory.mktemp("template") / "course"
    root.mkdir()
    course = Course(root)
    with course.gradebook() as gb, warnings.catch_warnings():
        # nbgrader's own add_submission trips SQLAlchemy's autoflush warning
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_assignment("a1")
        gb.add_notebook("n", "a1")
        gb.add_student("alice")
        gb.add_grade_cell("t", "n", "a1", max_score=TEST_POINTS, cell_type="code")
        gb.add_grade_cell("w", "n", "a1", max_score=ANSWER_POINTS, cell_type="markdown")
        gb.add_solution_cell("w", "n", "a1")
        gb.add_grade_cell("c", "n", "a1", max_score=CODE_POINTS, cell_type="code")
        gb.add_solution_cell("c", "n", "a1")
        gb.add_submission("a1", "alice")
        test = gb.find_grade("t", "n", "a1", "alice")
        test.auto_score, test.needs_manual_grade = TEST_POINTS, False
        for name in ("w", "c"):  # answered: nbgrader leaves them to a person
            gb.find_grade(name, "n", "a1", "alice").needs_manual_grade = True
        gb.db.commit()
    return root / "gradebook.db"


@pytest.fixture
def course(tmp_path, gradebook_file) -> Course:
    (tmp_path / "course").mkdir()
    shutil.copyfile(gradebook_file, tmp_path / "course" / "gradebook.db")
    return Course(tmp_path / "course")


RESULT = SubmissionResult("alice", "a1", scores={"t": (TEST_POINTS, TEST_POINTS)})


def _row(path: Path) -> dict[str, str]:
    with path.open(newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    return row


def test_pending_answers_are_counted_from_the_gradebook(course):
    assert manual_pending(course, [RESULT]) == {("a1", "alice"): ManualPending(2, BY_HAND)}
    nobody = SubmissionResult("bob", "a1")
    assert manual_pending(course, [nobody]) == {("a1", "bob"): ManualPending()}


def test_a_code_answer_graded_by_hand_is_no_autograded_test(course):
    assert course.read_scores("a1", ["alice"]) == {"alice": {"t": (TEST_POINTS, TEST_POINTS)}}


def test_totals_are_nbgraders_with_the_points_graded_by_hand(course):
    """Issue 44: a submission's maximum counts every graded cell, as nbgrader's gradebook
    and formgrader do; its score the points given by hand once they are given."""
    nobody = SubmissionResult("bob", "a1")
    worth = totals(course, [RESULT, nobody])
    alice = worth[("a1", "alice")]
    assert (alice.score, alice.max_score, alice.by_hand) == (TEST_POINTS, MAX, BY_HAND)
    assert alice.pending == ManualPending(2, BY_HAND)
    with course.gradebook() as gb:
        assert alice.max_score == gb.find_submission("a1", "alice").max_score
    assert (worth[("a1", "bob")].score, worth[("a1", "bob")].max_score) == (0.0, MAX)
    give_manual_grade(course, "a1", "alice", 0.5)
    after = totals(course, [RESULT])[("a1", "alice")]
    assert (after.score, after.max_score) == (TEST_POINTS + 2 * 0.5, MAX)
    assert after.pending == ManualPending()


def test_grades_csv_pending_then_exported_after_a_manual_grade(course, tmp_path):
    row = _row(export_grades(course, [RESULT], tmp_path / "grades.csv"))
    assert (row["manual_pending"], float(row["manual_pending_points"])) == ("2", BY_HAND)
    assert float(row["score"]) == TEST_POINTS
    assert float(row["max_score"]) == MAX
    give_manual_grade(course, "a1", "alice", 1.5)
    row = _row(export_grades(course, [RESULT], tmp_path / "grades.csv"))
    assert (row["manual_pending"], float(row["manual_pending_points"])) == ("0", 0.0)
    assert float(row["score"]) == TEST_POINTS + 2 * 1.5


def test_summary_and_results_say_what_awaits_manual_grading(course):
    worth = totals(course, [RESULT])
    manual = manual_pending(course, [RESULT])
    text = summary_text(summarise([RESULT], worth), {}, manual)
    section = text.split("### Awaiting manual grading", 1)[1]
    assert "2 answers worth 3 points in 1 submission" in section
    assert "- `a1/alice`: 2 answers, 3 points" in section
    # the table: nbgrader's maximum, the points of it graded by hand
    assert "| a1         | 1           | 3.00 | 3.00   | 6   | 3             | 0       |" in text
    assert "| c " not in text and "| t    | 100%   |" in text  # the autograded test only
    data = results_data([RESULT], totals=worth)
    alice = data["submissions"][0]
    assert alice["manual_pending"] == {"answers": 2, "points": BY_HAND}
    assert (alice["score"], alice["max_score"], list(alice["tests"])) == (TEST_POINTS, MAX, ["t"])
    give_manual_grade(course, "a1", "alice", 1.0)
    worth = totals(course, [RESULT])
    text = summary_text(summarise([RESULT], worth), {}, manual_pending(course, [RESULT]))
    assert "Awaiting manual grading" not in text
    assert results_data([RESULT], totals=worth)["submissions"][0]["score"] == TEST_POINTS + 2.0


@pytest.mark.slow
def test_next_grade_run_exports_the_formgraders_points(tmp_path):
    """The course's notebook with a written answer, graded by the command line; a manual
    grade given in the gradebook; the same batch graded again (nothing re-graded: the
    ledger) exports it: score up by the manual points, nothing pending."""
    from autograder.__main__ import main
    from autograder.course import list_assignments
    from autograder.notebook import notebook_bytes
    from autograder.release import ensure_released
    from autograder.samples import make_submission

    def written(nb) -> list[float]:
        return [
            float(c.metadata["nbgrader"]["points"])
            for c in nb.cells
            if c.cell_type == "markdown"
            and c.metadata.get("nbgrader", {}).get("grade")
            and c.metadata["nbgrader"].get("solution")
        ]

    course = Course(tmp_path / "course")
    candidates = [a for a in list_assignments() if written(_source_of(a))]
    if not candidates:
        pytest.skip("no notebook of the course has a manually graded answer")
    assignment = candidates[0]
    ensure_released(course, [assignment])
    source = nbformat.read(
        course.root / "source" / assignment / f"{assignment}.ipynb", as_version=4
    )
    answer_points = sum(written(source))
    release_nb = course.root / "release" / assignment / f"{assignment}.ipynb"
    target = tmp_path / "submitted" / "alice" / assignment / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True)
    target.write_bytes(notebook_bytes(make_submission(release_nb, source)))
    argv = ["grade", str(tmp_path / "submitted"), "--course", str(course.root)]
    argv += ["--out", str(tmp_path / "out"), "--no-feedback"]
    argv += sandbox_args()

    assert main(argv) == 0
    before = _row(tmp_path / "out" / "grades.csv")
    assert float(before["manual_pending_points"]) == answer_points
    assert int(before["manual_pending"]) == len(written(source))
    assert "Awaiting manual grading" in (tmp_path / "out" / "summary.md").read_text()

    give_manual_grade(course, assignment, "alice", 1.0)
    assert main(argv) == 0
    after = _row(tmp_path / "out" / "grades.csv")
    assert (after["manual_pending"], float(after["manual_pending_points"])) == ("0", 0.0)
    manual = len(written(source)) * 1.0
    assert float(after["score"]) == pytest.approx(float(before["score"]) + manual)
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["submissions"][0]["manual_pending"] == {"answers": 0, "points": 0.0}
    assert "Awaiting manual grading" not in (tmp_path / "out" / "summary.md").read_text()


def _source_of(assignment: str):
    from course_common.paths import NOTEBOOKS_DIR

    return nbformat.read(NOTEBOOKS_DIR / assignment / f"{assignment}.ipynb", as_version=4)
