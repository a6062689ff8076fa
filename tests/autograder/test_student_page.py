"""The student's feedback page and the instructor's summary, through ``python -m autograder
grade`` (sandbox, trusted re-check, feedback):

- the demo class's ``typical_bugs`` (the first typical bugs of every assignment, as the demo
  builds them): under the first failing test of each failed exercise, "What this looks
  like" names the misconception its sample is labelled with, with the probe; results.json
  carries the diagnoses, summary.md the class table; the pages stay inert;
- a student who meddled with the notebook (a test cell deleted, a grade id renamed, a
  function that never returns): the flags about their work are on their page in words,
  the hang with its exercise's hint; tracebacks hold none of the grader's frames; whole
  scores print as whole numbers.

Switched off (``ExplainToStudent`` taken out of ``feedback_config``), the page tests fail:
no box, the grader's ``linlib/grading.py`` frames, scores like ``8.0 / 13.0``.
"""

from __future__ import annotations

import json
import textwrap

import nbformat
import pytest
from bs4 import BeautifulSoup

from autograder.__main__ import main
from autograder.course import Course, list_assignments
from autograder.grading.safe_execute import ENV_CONFIG
from autograder.misconceptions import exercise_of, load_catalogue
from autograder.notebook import notebook_bytes
from autograder.samples import VARIANTS, make_submission, solution_sources
from autograder.samples.demo import build_demo_submissions
from course_common.paths import REPO_ROOT as ROOT
from tests.autograder.test_hostile_html import active_content

ASSIGNMENTS = list_assignments()

pytestmark = [
    pytest.mark.needs_sandbox,
    pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks"),
]

MEDDLED = "02_perceptron_update"
LIMITS = {"timeout": 10, "interrupt_grace": 2, "after_timeout": 2, "recheck_call_timeout": 5}


def _grade(folder, course, out) -> None:
    status = main(
        [
            *("grade", str(folder), "--course", str(course), "--out", str(out)),
            *("--workers", "2", "--no-progress"),
        ]
    )
    assert status == 0


def _demo_bugs(assignment: str) -> dict[str, str]:
    """exercise -> the misconception of the typical bug the demo puts there (the demo's
    own rule: the first buggy variants, in different cells, at most two)."""
    bugs, used = {}, set()
    for variant in VARIANTS[assignment]:
        if variant.lost and not (set(variant.replace) & used) and len(bugs) < 2:
            (cell,) = variant.replace
            bugs[cell] = variant.misconception
            used |= set(variant.replace)
    return bugs


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    course = Course(root / "course").make(ASSIGNMENTS)
    for assignment in ASSIGNMENTS:
        course.release(assignment)
    everyone = build_demo_submissions(course.root, root / "all", ASSIGNMENTS)
    folder = root / "submissions"
    folder.mkdir()
    (everyone / "typical_bugs").rename(folder / "typical_bugs")
    _grade(folder, course.root, root / "out")
    out = root / "out"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {
        "out": out,
        "entries": {e["assignment"]: e for e in results["submissions"]},
        "summary": (out / "summary.md").read_text(encoding="utf-8"),
    }


def _page(out, student, assignment) -> str:
    path = out / "feedback" / student / assignment / f"{assignment}.html"
    return path.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_typical_bugs_are_diagnosed_with_their_misconceptions(demo, assignment):
    entry = demo["entries"][assignment]
    exercises = load_catalogue(ROOT / "notebooks" / assignment).exercises
    failed = {
        exercise_of(g, exercises) for g, t in entry["tests"].items() if t["score"] < t["max_score"]
    }
    diagnosed = {e: d["misconception"] for e, d in entry["diagnoses"].items()}
    # each failed exercise named with the misconception its sample is labelled with
    assert failed == set(diagnosed)
    assert diagnosed == _demo_bugs(assignment)


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_page_names_the_misconception_under_the_failing_test(demo, assignment):
    page = _page(demo["out"], "typical_bugs", assignment)
    soup = BeautifulSoup(page, features="html.parser")
    catalogue = load_catalogue(ROOT / "notebooks" / assignment)
    boxes = soup.select("div.autograder-diagnosis")
    assert len(boxes) == len(_demo_bugs(assignment))
    for exercise, ident in _demo_bugs(assignment).items():
        item = catalogue.exercises[exercise].get(ident)
        (box,) = [b for b in boxes if item.says in b.get_text()]
        text = box.get_text(" ")
        assert "What this looks like:" in text and item.hint in text
        assert "your answer" in text and "the rule's answer" in text
        assert item.probes[0].call.split("(")[0] in text
    assert active_content(page) == []


@pytest.mark.slow
def test_the_summary_has_the_class_table(demo):
    summary = demo["summary"]
    for assignment in ASSIGNMENTS:
        assert f"### {assignment}: misconceptions seen (what to re-teach)" in summary
        for exercise, ident in _demo_bugs(assignment).items():
            (row,) = [
                line
                for line in summary.splitlines()
                if line.startswith(f"| `{ident}` ") and f"| `{exercise}` " in line
            ]
            assert row.split("|")[3].strip() == "1", row


# --------------------------------------------------------------------------- meddling


@pytest.fixture(scope="module")
def meddled(tmp_path_factory):
    root = tmp_path_factory.mktemp("meddled")
    course = Course(root / "course").make([MEDDLED])
    release = course.release(MEDDLED)
    source_nb = nbformat.read(ROOT / "notebooks" / MEDDLED / f"{MEDDLED}.ipynb", as_version=4)
    strict = next(v for v in VARIANTS[MEDDLED] if v.misconception == "tie_is_no_mistake")
    hang = solution_sources(source_nb)["train_perceptron"] + textwrap.dedent(
        """

        def train_perceptron(X, y, max_epochs):
            while True:
                pass
        """
    )
    nb = make_submission(
        release / f"{MEDDLED}.ipynb", source_nb, {**strict.replace, "train_perceptron": hang}
    )

    def grade_id(cell):
        return cell.metadata.get("nbgrader", {}).get("grade_id")

    nb.cells = [c for c in nb.cells if grade_id(c) != "averaged_perceptron_visible"]
    for cell in nb.cells:
        if grade_id(cell) == "perceptron_epoch":
            cell.metadata["nbgrader"]["grade_id"] = "my_epoch"
    folder = root / "submissions" / "meddler" / MEDDLED
    folder.mkdir(parents=True)
    (folder / f"{MEDDLED}.ipynb").write_bytes(notebook_bytes(nb))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ENV_CONFIG, json.dumps(LIMITS))
        _grade(root / "submissions", course.root, root / "out")
    results = json.loads((root / "out" / "results.json").read_text(encoding="utf-8"))
    catalogue = load_catalogue(ROOT / "notebooks" / MEDDLED)
    return {
        "page": _page(root / "out", "meddler", MEDDLED),
        "entry": results["submissions"][0],
        "hint": catalogue.exercises["train_perceptron"].timeout_hint,
    }


@pytest.mark.slow
def test_what_the_grader_did_is_on_the_students_page(meddled):
    soup = BeautifulSoup(meddled["page"], features="html.parser")
    (notes,) = soup.select("div.autograder-notes")
    text = " ".join(notes.get_text(" ").split())
    assert "What the grader did to your notebook" in text
    assert "You deleted the test cell averaged_perceptron_visible" in text
    assert "Grade ids that are not the course's ('my_epoch')" in text
    assert f"Your train_perceptron did not return within 5 s: {meddled['hint']}" in text
    assert "instructor" not in text and "re-check:" not in text


@pytest.mark.slow
def test_the_hang_and_the_bug_are_diagnosed(meddled):
    diagnoses = meddled["entry"]["diagnoses"]
    assert diagnoses["perceptron_update"]["misconception"] == "tie_is_no_mistake"
    assert diagnoses["train_perceptron"]["timed_out"] == 5
    soup = BeautifulSoup(meddled["page"], features="html.parser")
    texts = [" ".join(b.get_text(" ").split()) for b in soup.select("div.autograder-diagnosis")]
    assert any("you update only when y·a < 0" in t for t in texts)
    assert any("your train_perceptron did not return within 5 s" in t for t in texts)


@pytest.mark.slow
def test_tracebacks_and_scores_read_as_the_students(meddled):
    page = meddled["page"]
    assert "linlib/grading.py" not in page and "linlib/_remote.py" not in page
    soup = BeautifulSoup(page, features="html.parser")
    heading = soup.find("h4").get_text()
    assert ".0 /" not in heading and ".0)" not in heading, heading
    assert active_content(page) == []
