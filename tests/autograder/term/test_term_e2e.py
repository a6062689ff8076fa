"""A term end to end, graded for real (unsandboxed: the sandbox's own tests are elsewhere):

- the demo's term: its summary.md shows the due dates, the extension and the late student,
  and every score before penalties is what grading the same submissions without a calendar
  gives;
- a JupyterHub course: nbgrader's own release_assignment, fetch_assignment, submit and
  collect in a temporary exchange; the collected ``submitted/`` folder graded with its
  timestamps, and the exchange's inbound folder with each resubmission policy;
- policy best on a Canvas zip with a re-upload: the better upload is graded, not the later;
- the exports of a graded course read back by the importers' rules.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.api import grade_path, run_demo
from autograder.course import Course
from autograder.notebook import notebook_bytes
from autograder.options import GradeOptions
from autograder.release import ensure_released
from autograder.samples import make_submission
from autograder.samples.demo import build_demo_submissions
from tests.autograder.term.lms_importers import canvas_import, moodle_gradebook_import

A1, A4 = "01_hyperplanes", "04_naive_bayes_linear"
DEMO = [A1, A4]


def _rows(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (out / "grades.csv").open(encoding="utf-8") as fh:
        return {(r["assignment"], r["student_id"]): r for r in csv.DictReader(fh)}


def _tests(out: Path) -> dict[tuple[str, str], dict]:
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {(s["assignment"], s["student"]): s["tests"] for s in data["submissions"]}


# --------------------------------------------------------------------------- the demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    out, course = root / "out", root / "course"
    options = GradeOptions(course_dir=course, out_dir=out, sandbox=False, workers=2)
    run = run_demo(options, assignments=DEMO)
    return root, run


@pytest.mark.slow
def test_the_demo_summary_shows_due_dates_the_extension_and_the_late_student(demo):
    root, run = demo
    summary = (root / "out" / "summary.md").read_text(encoding="utf-8")
    assert summary == run.summary
    assert "### Due dates, late submissions and extensions" in summary
    assert "#### 01_hyperplanes: due 2025-10-03 23:59 +02:00 CEST" in summary
    assert "#### 04_naive_bayes_linear: due 2025-10-24 23:59 +02:00 CEST" in summary
    (late_row,) = [line for line in summary.splitlines() if line.startswith("| `typical_bugs`")]
    cells = [cell.strip() for cell in late_row.strip("|").split("|")]
    assert cells[:3] == ["`typical_bugs`", "2025-10-26 10:01 +01:00 CET", "1 day 11 h 2 min"]
    assert cells[3].startswith("−20 % (−")
    assert (
        "- extension: `full_marks` due 2025-10-27 23:59 +01:00 CET (+3 days: illness): on time"
        in summary
    )
    rows = _rows(root / "out")
    late = rows[(A4, "typical_bugs")]
    raw, penalty, score = (
        float(late[k]) for k in ("raw_score", "late_submission_penalty", "score")
    )
    assert (
        raw > 0
        and penalty == pytest.approx(round(0.2 * raw, 2))
        and score == pytest.approx(raw - penalty)
    )
    extended = rows[(A4, "full_marks")]
    assert extended["late_submission_penalty"] == "0.0"
    assert extended["score"] == extended["raw_score"] == extended["max_score"]
    assert "on time" in extended["flags"]
    for key, row in rows.items():  # one late student only, everyone's time known
        assert row["timestamp"] and row["duedate"]
        if key != (A4, "typical_bugs"):
            assert row["late_submission_penalty"] == "0.0" and row["score"] == row["raw_score"]


def _page(out: Path, student: str, assignment: str) -> str:
    page = out / "feedback" / student / assignment / f"{assignment}.html"
    return page.read_text(encoding="utf-8")


def _shows(page: str, row: dict[str, str]) -> bool:
    """Whether a feedback page shows grades.csv's score of its row, and its late penalty
    (nbgrader's template: "(Score: 4.8 / 13)", "Late submission penalty (Score: -1.2)")."""
    score, top = float(row["score"]), float(row["max_score"])
    penalty = float(row["late_submission_penalty"])
    header = f"(Score: {score:g} / {top:g})</h4>" in page
    line = f"Late submission penalty (Score: -{penalty:g})" in page
    return header and line is (penalty > 0)


@pytest.mark.slow
def test_the_late_students_page_shows_the_score_after_the_penalty(demo, tmp_path, capsys):
    """The pages are written as the class is graded, before the term's penalties are
    recorded: a late submission's page is written again once they are, and again when an
    extension granted later takes the penalty back (the ledger grades nobody again)."""
    root, _ = demo
    rows = _rows(root / "out")
    late = rows[(A4, "typical_bugs")]
    assert float(late["late_submission_penalty"]) > 0
    for (assignment, student), row in rows.items():
        page = _page(root / "out", student, assignment)
        assert _shows(page, row) or "could not be graded" in page, (assignment, student)
    assert _shows(_page(root / "out", "typical_bugs", A4), late)
    assert not (root / "course" / "feedback-stale.json").exists()

    course = tmp_path / "course"
    shutil.copytree(root / "course", course)
    toml = course / "course.toml"
    term = toml.read_text(encoding="utf-8")
    granted = f'''
[[extensions]]
student = "typical_bugs"
assignment = "{A4}"
due = "+3 days"
'''
    args = ["grade", str(course / "demo_submissions"), "--course", str(course)]
    args += ["--unsandboxed", "--no-progress", "--lms", "nbgrader"]
    for version, penalised in [(term + granted, False), (term, True)]:
        toml.write_text(version, encoding="utf-8")
        out = tmp_path / f"out-{penalised}"
        assert main([*args, "--out", str(out)]) == 0, capsys.readouterr().err
        rows = _rows(out)
        row = rows[(A4, "typical_bugs")]
        assert (float(row["late_submission_penalty"]) > 0) is penalised
        assert row == late or not penalised
        assert _shows(_page(out, "typical_bugs", A4), row)
        for (assignment, student), row in rows.items():
            page = _page(out, student, assignment)
            assert _shows(page, row) or "could not be graded" in page, (student, penalised)
        assert not (course / "feedback-stale.json").exists()

    # a run that died after recording a penalty, before writing the page again, left its
    # name in feedback-stale.json: the next run writes it, though nothing changes
    page = course / "feedback" / "typical_bugs" / A4 / f"{A4}.html"
    page.write_text("stale", encoding="utf-8")
    (course / "feedback-stale.json").write_text(f'[["{A4}", "typical_bugs"]]', encoding="utf-8")
    out = tmp_path / "out-resumed"
    assert main([*args, "--out", str(out)]) == 0, capsys.readouterr().err
    assert _shows(_page(out, "typical_bugs", A4), late)
    assert not (course / "feedback-stale.json").exists()


@pytest.mark.slow
def test_the_demo_scores_before_penalties_are_those_of_grading_without_a_term(demo, tmp_path):
    root, _ = demo
    folder = build_demo_submissions(root / "course", tmp_path / "class", DEMO)
    options = GradeOptions(
        course_dir=tmp_path / "course", out_dir=tmp_path / "out", sandbox=False, workers=2
    )
    plain = grade_path(folder, options)
    assert plain.results and not (tmp_path / "course" / "course.toml").exists()
    assert _tests(tmp_path / "out") == _tests(root / "out")  # every test's score
    term_rows, plain_rows = _rows(root / "out"), _rows(tmp_path / "out")
    assert set(term_rows) == set(plain_rows)
    for key, row in term_rows.items():
        assert row["raw_score"] == plain_rows[key]["raw_score"], key  # before penalties
        assert plain_rows[key]["score"] == plain_rows[key]["raw_score"]  # no term, no penalty
        # timestamp.txt either way: the same instant, on the term's clock or on UTC
        ours, theirs = row["timestamp"], plain_rows[key]["timestamp"]
        assert bool(ours) == bool(theirs), key
        if ours:
            assert datetime.fromisoformat(ours) == datetime.fromisoformat(theirs), key
            assert theirs.endswith("+00:00")  # no course.toml: UTC, marked


@pytest.mark.slow
def test_exports_of_the_graded_demo_read_back(demo, tmp_path, capsys):
    root, _ = demo
    course = root / "course"
    assert (
        main(["export", "canvas", "--course", str(course), "--out", str(tmp_path / "c.csv")]) == 0
    )
    assert (
        main(["export", "moodle", "--course", str(course), "--out", str(tmp_path / "m.csv")]) == 0
    )
    capsys.readouterr()
    rows = _rows(root / "out")
    canvas = {
        s["id"]: s["grades"] for s in canvas_import((tmp_path / "c.csv").read_text())["students"]
    }
    moodle = moodle_gradebook_import((tmp_path / "m.csv").read_text(), "Username", {A1: A1, A4: A4})
    for (assignment, student), row in rows.items():
        assert float(canvas[student][assignment]) == pytest.approx(float(row["score"]))
        assert moodle[(student, assignment)] == pytest.approx(float(row["score"]))


# --------------------------------------------------------------------------- JupyterHub


def _nbgrader(*args: str, cwd: Path, exchange: Path) -> None:
    command = [str(Path(sys.executable).parent / "nbgrader"), *args]
    command += [f"--Exchange.root={exchange}", "--course=linear"]
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """Our course (released), and a JupyterHub course's exchange: alice submits once (full
    marks), bob twice (full marks, then the blank notebook); then nbgrader collects."""
    root = tmp_path_factory.mktemp("hub")
    ours = root / "course"
    ensure_released(Course(ours), [A1])
    release_nb = ours / "release" / A1 / f"{A1}.ipynb"
    full = notebook_bytes(make_submission(release_nb, ours / "source" / A1 / f"{A1}.ipynb"))
    blank = release_nb.read_bytes()
    exchange, instructor = root / "exchange", root / "instructor"
    (instructor / "release").mkdir(parents=True)
    exchange.mkdir()
    (instructor / "release" / A1).mkdir()
    (instructor / "release" / A1 / f"{A1}.ipynb").write_bytes(blank)
    _nbgrader("release_assignment", A1, cwd=instructor, exchange=exchange)
    moments = {}
    for student, versions in [("alice", [full]), ("bob", [full, blank])]:
        home = root / student
        home.mkdir()
        _nbgrader("fetch_assignment", A1, cwd=home, exchange=exchange)
        for number, content in enumerate(versions):
            if number:
                moments["between"] = datetime.now(UTC)
                time.sleep(1.5)
            moments.setdefault(f"{student} before", datetime.now(UTC))
            (home / A1 / f"{A1}.ipynb").write_bytes(content)
            _nbgrader("submit", A1, f"--student={student}", cwd=home, exchange=exchange)
    _nbgrader("collect", A1, cwd=instructor, exchange=exchange)
    return root, ours, exchange / "linear" / "inbound", instructor / "submitted", moments


def _calendar(path: Path, due: datetime, rule: str = 'rule = "per-day"\npercent = 10') -> Path:
    path.write_text(
        f"[late]\n{rule}\n\n[assignments.{A1}]\ndue = {due.isoformat()}\n", encoding="utf-8"
    )
    return path


@pytest.mark.slow
def test_a_collected_submitted_folder_is_graded_with_its_timestamps(hub, capsys):
    root, ours, _, submitted, moments = hub
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "bob"]
    stamp = (submitted / "alice" / A1 / "timestamp.txt").read_text().strip()
    assert stamp.endswith(" UTC")  # nbgrader's own format
    # due an hour before alice submitted: one started day late, 10 %
    calendar = _calendar(root / "late.toml", moments["alice before"] - timedelta(hours=1))
    out = root / "collected-out"
    args = ["grade", str(submitted), "--course", str(ours), "--out", str(out), "--unsandboxed"]
    assert main([*args, "--calendar", str(calendar), "--no-progress"]) == 0, capsys.readouterr().err
    rows = _rows(out)
    alice, bob = rows[(A1, "alice")], rows[(A1, "bob")]
    # nbgrader's time, marked: course.toml names no timezone, so the course's clock is UTC
    handed_in = datetime.fromisoformat(stamp.removesuffix(" UTC")).replace(tzinfo=UTC)
    assert alice["timestamp"].endswith("+00:00")
    assert datetime.fromisoformat(alice["timestamp"]) == handed_in
    raw = float(alice["raw_score"])
    assert raw > 0  # the full-marks notebook
    assert float(alice["late_submission_penalty"]) == pytest.approx(round(0.1 * raw, 2))
    assert "late by 1 h" in alice["flags"] and "submission_secret" not in alice["flags"]
    assert float(bob["raw_score"]) == 0.0  # collect took bob's latest: the blank notebook
    assert "late by" in bob["flags"]


@pytest.mark.slow
def test_the_exchange_inbound_folder_and_the_resubmission_policies(hub, capsys):
    root, ours, inbound, _, moments = hub
    assert len(list(inbound.iterdir())) == 3
    calendar = _calendar(root / "between.toml", moments["between"])  # bob: once before, once after
    base = ["grade", str(inbound), "--course", str(ours), "--unsandboxed", "--no-progress"]
    base += ["--calendar", str(calendar)]
    for policy, bob_full in [("latest-on-time", True), ("latest", False)]:
        out = root / f"inbound-{policy}"
        assert main([*base, "--out", str(out), "--policy", policy]) == 0, capsys.readouterr().err
        rows = _rows(out)
        bob, alice = rows[(A1, "bob")], rows[(A1, "alice")]
        assert (float(bob["raw_score"]) > 0) is bob_full, policy
        assert (
            "2 submissions: graded the latest" in bob["flags"]
            and f"(policy {policy})" in bob["flags"]
        )
        assert "late by" not in alice["flags"]  # alice submitted before the due date
        if bob_full:
            assert "on time" in bob["flags"] and "1 later ignored" in bob["flags"]
            assert bob["late_submission_penalty"] == "0.0"
        else:
            assert "late by" in bob["flags"]


# --------------------------------------------------------------------------- policy best


@pytest.mark.slow
def test_policy_best_grades_each_upload_and_keeps_the_better(hub, capsys):
    root, ours, *_ = hub
    release_nb = ours / "release" / A1 / f"{A1}.ipynb"
    full = notebook_bytes(make_submission(release_nb, ours / "source" / A1 / f"{A1}.ipynb"))
    archive = root / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"doejane_102_9001_{A1}.ipynb", full)  # the first upload: full marks
        zf.writestr(f"doejane_102_9002_{A1}-1.ipynb", release_nb.read_bytes())  # then blank
    base = ["grade", str(archive), "--course", str(ours), "--unsandboxed", "--no-progress"]
    base += ["--calendar", str(_calendar(root / "none.toml", datetime(2030, 1, 1, tzinfo=UTC)))]
    assert main([*base, "--out", str(root / "latest")]) == 0
    assert float(_rows(root / "latest")[(A1, "102")]["raw_score"]) == 0.0  # the re-upload
    assert main([*base, "--out", str(root / "best"), "--policy", "best"]) == 0, (
        capsys.readouterr().err
    )
    best = _rows(root / "best")[(A1, "102")]
    assert float(best["raw_score"]) == float(best["max_score"])
    assert "2 submissions: graded the best (the first upload)" in best["flags"]
    assert "(the others: 0) (policy best)" in best["flags"]
    # the course's gradebook saw only the chosen one; the tries have their own
    assert (ours / "resubmissions" / "gradebook.db").exists()
    with Course(ours).gradebook() as gb:
        assert {s.id for s in gb.students} >= {"102"} and "102+1" not in {s.id for s in gb.students}
