"""End to end on the real course notebooks: release, grade a class, resume, LMS zips, CLI.

One module-scoped batch (every assignment found under notebooks/): per assignment the
instructor's solution (full marks) and the release as handed out (zero); on the first
assignment also a typical bug from ``autograder.samples`` (exactly the expected tests
lost), a corrupt notebook, a missing one, a renamed one and one with a deleted and a
duplicated test cell. The batch is first interrupted after a few results and then run
again (it resumes from the ledger), then run a third time (nothing to do).

The batch is graded without the sandbox (kernels forked from the pre-warmed template: the
fast path); the Canvas run goes through the command line's default, the sandbox (helper
F's) when this machine can start it, and checks its flags and redacted feedback too. Every
variant of every notebook is graded in the sandbox by test_notebooks_grading.py.
"""

from __future__ import annotations

import copy
import csv
import html
import json
import re
import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.api import grade_path
from autograder.course import Course, list_assignments, origin
from autograder.notebook import notebook_bytes
from autograder.options import GradeOptions
from autograder.release import ensure_released
from autograder.samples import VARIANTS, make_submission
from autograder.samples.demo import (
    DEMO_PAIR,
    DEMO_PAIR_ASSIGNMENT,
    DEMO_STUDENTS,
    build_demo_submissions,
)
from autograder.sandbox import probe as probe_module
from course_common.paths import NOTEBOOKS_DIR, REPO_ROOT
from tests.autograder.fault_helpers import refusal
from tests.needs import sandbox_args

ASSIGNMENTS = list_assignments()
SANDBOX_ARGS = sandbox_args()

pytestmark = pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet")


def _points(nb) -> dict[str, float]:
    """grade id -> points of every autograded test cell."""
    out = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            out[meta["grade_id"]] = float(meta["points"])
    return out


def _tests(nb) -> list[int]:
    return [
        i
        for i, c in enumerate(nb.cells)
        if c.metadata.get("nbgrader", {}).get("grade")
        and not c.metadata.get("nbgrader", {}).get("solution")
    ]


def _buggy_variant(assignment):
    return next((v for v in VARIANTS.get(assignment, []) if v.lost), None)


_COURSE: list[Path] = []


def _source(assignment):
    # the course's copy, taken at release: the repo's notebooks may change meanwhile
    path = _COURSE[0] / "source" / assignment / f"{assignment}.ipynb"
    return nbformat.read(path, as_version=4)


@pytest.fixture(scope="module", autouse=True)
def notebooks_snapshot(tmp_path_factory):
    """Grade a snapshot of notebooks/: edits to the notebooks while the module runs would
    (rightly) make the ledger grade their assignment again."""
    snapshot = tmp_path_factory.mktemp("notebooks") / "notebooks"
    shutil.copytree(NOTEBOOKS_DIR, snapshot)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(origin, "NOTEBOOKS_DIR", snapshot)
        yield snapshot


@pytest.fixture(scope="module")
def course(tmp_path_factory, notebooks_snapshot):
    root = tmp_path_factory.mktemp("pipeline")
    course_dir = root / "course"
    notebooks = ensure_released(Course(course_dir), ASSIGNMENTS)
    _COURSE[:] = [course_dir]
    return root, course_dir, notebooks


@pytest.fixture(scope="module")
def batch(course):
    root, course_dir, _ = course
    folder = root / "batch"
    first = ASSIGNMENTS[0]
    expected: dict[tuple[str, str], dict[str, float]] = {}

    def put(student, assignment, name, content):
        target = folder / student / assignment / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)

    for assignment in ASSIGNMENTS:
        release_nb = course_dir / "release" / assignment / f"{assignment}.ipynb"
        source_nb = _source(assignment)
        points = _points(source_nb)
        full = make_submission(release_nb, source_nb)
        put("full", assignment, f"{assignment}.ipynb", notebook_bytes(full))
        expected[(assignment, "full")] = dict(points)
        put("blank", assignment, f"{assignment}.ipynb", release_nb.read_bytes())
        expected[(assignment, "blank")] = dict.fromkeys(points, 0.0)
        variant = _buggy_variant(assignment)
        # one typical bug is enough here: test_notebooks_grading.py grades every variant
        if variant is not None and assignment == first:
            buggy = make_submission(release_nb, source_nb, variant.replace)
            put("bug", assignment, f"{assignment}.ipynb", notebook_bytes(buggy))
            expected[(assignment, "bug")] = {
                k: (0.0 if k in variant.lost else v) for k, v in points.items()
            }
        if assignment == first:
            data = notebook_bytes(full)
            put("corrupt", first, f"{first}.ipynb", data[: len(data) // 3])
            expected[(first, "corrupt")] = dict.fromkeys(points, 0.0)
            put("missing", first, "notes.txt", b"I forgot the notebook")
            expected[(first, "missing")] = dict.fromkeys(points, 0.0)
            put("renamed", first, f"{first} (1).ipynb", data)
            expected[(first, "renamed")] = dict(points)
            tampered = copy.deepcopy(full)
            tests = _tests(tampered)
            duplicate = copy.deepcopy(tampered.cells[tests[1]])
            duplicate.source = "pass  # the student's edited copy"
            tampered.cells.append(duplicate)
            del tampered.cells[tests[0]]
            put("tampered", first, f"{first}.ipynb", notebook_bytes(tampered))
            expected[(first, "tampered")] = dict(points)
    return folder, expected


@pytest.fixture(scope="module")
def graded(course, batch):
    """Interrupted run, resumed run, repeated run: (resumed GradeRun, repeated GradeRun)."""
    root, course_dir, _ = course
    folder, _ = batch
    seen = []

    def interrupt_after_three(result):
        seen.append(result)
        if len(seen) == 3:
            raise KeyboardInterrupt

    options = GradeOptions(course_dir=course_dir, out_dir=root / "out", workers=2, sandbox=False)
    with pytest.raises(KeyboardInterrupt):
        grade_path(folder, options, on_result=interrupt_after_three)
    resumed = grade_path(folder, options)
    csv_after_resume = (root / "out" / "grades.csv").read_text()
    repeated = grade_path(folder, options)
    return seen, resumed, repeated, csv_after_resume


def _by_key(run):
    return {(r.assignment, r.student): r for r in run.results}


@pytest.mark.slow
def test_scores_of_the_class(graded, batch):
    _, resumed, _, _ = graded
    _, expected = batch
    results = _by_key(resumed)
    assert set(results) == set(expected)
    for key, scores in expected.items():
        got = {k: s for k, (s, _) in results[key].scores.items()}
        assert got == scores, key


@pytest.mark.slow
def test_flags(graded):
    _, resumed, _, _ = graded
    results = _by_key(resumed)
    first = ASSIGNMENTS[0]
    for assignment in ASSIGNMENTS:
        assert results[(assignment, "full")].flags == []
        assert results[(assignment, "blank")].flags == []
    assert any("corrupt" in f for f in results[(first, "corrupt")].flags)
    assert any("missing" in f for f in results[(first, "missing")].flags)
    assert any("notes.txt" in f for f in results[(first, "missing")].flags)
    assert any("renamed" in f for f in results[(first, "renamed")].flags)
    tampered = " ".join(results[(first, "tampered")].flags)
    assert "was deleted" in tampered and "appears 2 times" in tampered


@pytest.mark.slow
def test_resume_keeps_what_was_graded(graded):
    seen, resumed, repeated, _ = graded
    before = {(r.assignment, r.student): r.scores for r in seen}
    results = _by_key(resumed)
    assert len(before) == 3
    for key, scores in before.items():
        assert results[key].skipped and results[key].scores == scores
    assert sum(not r.skipped for r in resumed.results) == len(resumed.results) - 3
    # a third run has nothing left to do, and reports the same grades
    assert [(r.assignment, r.student) for r in repeated.results if not r.skipped] == []
    assert {k: r.scores for k, r in _by_key(repeated).items()} == {
        k: r.scores for k, r in results.items()
    }


@pytest.mark.slow
def test_grades_csv(graded, course, batch):
    root, _, _ = course
    _, expected = batch
    _, _, _, csv_after_resume = graded
    text = (root / "out" / "grades.csv").read_text()
    assert text == csv_after_resume
    rows = list(csv.DictReader(text.splitlines()))
    assert list(rows[0]) == [
        "assignment",
        "duedate",
        "timestamp",
        "student_id",
        "last_name",
        "first_name",
        "email",
        "raw_score",
        "late_submission_penalty",
        "score",
        "max_score",
        "manual_pending",
        "manual_pending_points",
        "flags",
    ]
    by_key = {(r["assignment"], r["student_id"]): r for r in rows}
    for key, scores in expected.items():
        row = by_key[key]
        assert float(row["score"]) == pytest.approx(sum(scores.values()))
        # nbgrader's max_score also counts manually graded answers (not autograded here)
        every_grade_cell = sum(
            float(c.metadata["nbgrader"]["points"])
            for c in _source(key[0]).cells
            if c.metadata.get("nbgrader", {}).get("grade")
        )
        assert float(row["max_score"]) == pytest.approx(every_grade_cell)
    assert "corrupt" in by_key[(ASSIGNMENTS[0], "corrupt")]["flags"]
    # a student seen in the run who handed nothing in for an assignment: a row flagged
    # "no submission", not a silent 0; a handed-in notebook that scores 0 is not flagged so
    if len(ASSIGNMENTS) > 1:
        nothing = by_key[(ASSIGNMENTS[1], "corrupt")]
        assert nothing["flags"] == "no submission" and nothing["timestamp"] == ""
    assert by_key[(ASSIGNMENTS[0], "blank")]["flags"] == ""
    assert float(by_key[(ASSIGNMENTS[0], "blank")]["score"]) == 0.0
    summary = (root / "out" / "summary.md").read_text()
    for assignment in ASSIGNMENTS:
        assert assignment in summary


@pytest.mark.slow
def test_results_json_holds_every_tests_score(graded, course, batch):
    """results.json: the run as data, the same scores as the run and grades.csv."""
    root, _, _ = course
    _, expected = batch
    _, resumed, _, _ = graded
    data = json.loads((root / "out" / "results.json").read_text(encoding="utf-8"))
    assert data["format"] == 2 and data["unmatched"] == []
    keys = [(s["assignment"], s["student"]) for s in data["submissions"]]
    assert keys == sorted(keys) and set(keys) == set(expected)
    results = _by_key(resumed)
    rows = {
        (r["assignment"], r["student_id"]): r
        for r in csv.DictReader((root / "out" / "grades.csv").open(encoding="utf-8"))
    }
    for entry in data["submissions"]:
        key = (entry["assignment"], entry["student"])
        points = _points(_source(key[0]))
        assert {g: t["score"] for g, t in entry["tests"].items()} == expected[key], key
        assert {g: t["max_score"] for g, t in entry["tests"].items()} == points, key
        assert entry["score"] == pytest.approx(sum(expected[key].values()))
        assert entry["score"] == pytest.approx(float(rows[key]["score"]))
        # nbgrader's maximum, as grades.csv's: the written answers graded by hand count too
        assert entry["max_score"] == pytest.approx(float(rows[key]["max_score"]))
        assert entry["max_score"] >= sum(points.values())
        assert entry["flags"] == results[key].flags
        assert entry["ok"] is results[key].ok


def _hidden_lines(assignment) -> list[str]:
    """Distinctive lines of the source notebook's hidden-test regions: long ones that
    appear nowhere else in the notebook."""
    hidden_re = r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS"
    cells = [c.source for c in _source(assignment).cells]
    visible = "\n".join(re.sub(hidden_re, "", src, flags=re.DOTALL) for src in cells)
    lines = []
    for src in cells:
        for region in re.findall(hidden_re, src, re.DOTALL):
            lines += [
                ln.strip()
                for ln in region.splitlines()
                if len(ln.strip()) > 25 and ln.strip() not in visible
            ]
    return lines


def _html_text(path: Path) -> str:
    # drop tags (syntax highlighting splits code into spans) to get the code text back
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text()))


@pytest.mark.slow
def test_feedback_withholds_hidden_tests(graded, course):
    root, course_dir, _ = course
    for assignment in ASSIGNMENTS:
        hidden = _hidden_lines(assignment)
        assert hidden, f"{assignment}: no hidden tests found"
        for student in ("full", "blank"):
            page = root / "out" / "feedback" / student / assignment / f"{assignment}.html"
            text = _html_text(page)
            assert "hidden tests (source withheld)" in text
            # a traceback names linlib/grading.py, never the grader machine's folders
            assert str(REPO_ROOT) not in page.read_text() and str(root) not in page.read_text()
            for line in hidden:
                assert line not in text, (assignment, student, line)
        # the graded notebook itself still has them: the check above is not vacuous
        autograded = course_dir / "autograded" / "full" / assignment / f"{assignment}.ipynb"
        graded_source = "\n".join(c.source for c in nbformat.read(autograded, as_version=4).cells)
        assert all(line in graded_source for line in hidden)
    first = ASSIGNMENTS[0]
    corrupt = _html_text(root / "out" / "feedback" / "corrupt" / first / f"{first}.html")
    assert "could not be graded" in corrupt and "corrupt" in corrupt
    passed = _html_text(root / "out" / "feedback" / "full" / first / f"{first}.html")
    assert re.search(r"hidden tests \(source withheld\): passed, [\d.]+ of [\d.]+ points", passed)


# --------------------------------------------------------------------------- LMS zips, CLI


def _lms_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


@pytest.fixture(scope="module")
def lms_notebooks(course):
    _, course_dir, _ = course
    first = ASSIGNMENTS[0]
    release_nb = course_dir / "release" / first / f"{first}.ipynb"
    full = notebook_bytes(make_submission(release_nb, _source(first)))
    return first, full, release_nb.read_bytes(), sum(_points(_source(first)).values())


def _rows(out: Path) -> dict[str, dict[str, str]]:
    return {r["student_id"]: r for r in csv.DictReader((out / "grades.csv").open())}


@pytest.mark.slow
def test_canvas_zip_through_the_command_line(course, lms_notebooks, capsys):
    root, course_dir, _ = course
    first, full, _, total = lms_notebooks
    archive = _lms_zip(
        root / "canvas.zip",
        {f"smithjohn_LATE_102_9002_{first}-1.ipynb": full, "smithjohn_LATE_102_9003_x.txt": b""},
    )
    out = root / "canvas-out"
    args = ["grade", str(archive), "--course", str(course_dir), "--out", str(out)]
    status = main([*args, "--progress", *SANDBOX_ARGS])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "1/1" in captured.err  # the progress bar, on stderr
    assert "Grading summary" in captured.out
    row = _rows(out)["102"]  # Canvas's user id
    assert float(row["score"]) == pytest.approx(total)
    assert "late" in row["flags"] and "renamed" in row["flags"] and "x.txt" in row["flags"]
    text = _html_text(out / "feedback" / "102-smithjohn" / first / f"{first}.html")  # id, name
    assert "hidden tests (source withheld): passed" in text
    for line in _hidden_lines(first):
        assert line not in text


@pytest.mark.slow
def test_moodle_zip_through_the_command_line(course, lms_notebooks, capsys):
    root, course_dir, _ = course
    first, _, blank, _ = lms_notebooks
    archive = _lms_zip(
        root / "moodle.zip",
        {f"John Smith_4712_assignsubmission_file_/Copy of {first}.ipynb": blank},
    )
    out = root / "moodle-out"
    db_url = f"sqlite:///{root / 'moodle-gradebook.db'}"  # --db: another gradebook
    args = ["grade", str(archive), "--assignment", first, "--course", str(course_dir)]
    args += ["--db", db_url, "--out", str(out), "--no-progress", "--no-feedback"]
    status = main([*args, "--unsandboxed"])
    assert status == 0, capsys.readouterr().err
    scores = Course(course_dir, db_url).read_scores(first, ["4712"])["4712"]
    assert scores and all(score == 0.0 for score, _ in scores.values())
    assert Course(course_dir).read_scores(first, ["4712"])["4712"] == {}
    row = _rows(out)["4712"]  # Moodle's participant id
    assert float(row["score"]) == 0.0
    assert "renamed" in row["flags"]
    assert not (out / "feedback").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["grade", "does/not/exist"], "no such file or folder"),
        (["grade", ".", "--workers", "0"], "must be at least 1"),
        (["grade", ".", "--assignment", "99_nothing", "--unsandboxed"], "unknown assignment"),
        (["frobnicate"], "invalid choice"),
        (["grade", ".", "--db", "gradebook.db"], "cannot use --db: not an SQLAlchemy URL"),
        (["grade", ".", "--db", "postgresql+psycopg2://u@h/db"], "driver of 'postgresql+psycopg2'"),
        (["release", "--db", "oracle+nosuch://u@h/db"], "no database dialect 'oracle+nosuch'"),
    ],
)
def test_bad_arguments_give_one_line_and_status_2(args, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        status = main([*args, "--course", str(tmp_path / "c")] if args[0] == "grade" else args)
        raise SystemExit(status)
    assert exc.value.code == 2
    assert message in refusal(capsys.readouterr().err)


@pytest.mark.slow
def test_refuses_to_grade_without_sandbox_unless_asked(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(probe_module, "sandbox_status", lambda: (False, "no namespaces here"))
    status = main(["grade", str(tmp_path), "--course", str(tmp_path / "c")])
    line = refusal(capsys.readouterr().err)
    assert status == 1
    assert "no namespaces here" in line and "--unsandboxed" in line


@pytest.mark.slow
def test_demo_class(course, tmp_path):
    _, course_dir, _ = course
    build_demo_submissions(course_dir, tmp_path, ASSIGNMENTS)
    for assignment in ASSIGNMENTS:
        students = sorted(p.name for p in tmp_path.iterdir() if (p / assignment).is_dir())
        pair = DEMO_PAIR if assignment == DEMO_PAIR_ASSIGNMENT else ()
        assert students == sorted([*DEMO_STUDENTS, *pair])
        broken = tmp_path / "broken_notebook" / assignment / f"{assignment}.ipynb"
        with pytest.raises(Exception):  # noqa: B017 - any parse error: it is corrupt
            nbformat.reads(broken.read_text(), as_version=4)
