"""Courses nobody here wrote, graded with ``python -m autograder grade --source``: every grade
cell's automatic score equal to stock ``nbgrader autograde``'s on the same course and
submissions, manual answers pending as nbgrader leaves them
(:mod:`tests.autograder.foreign_courses`)."""

from __future__ import annotations

import csv
import json
import shutil
import zipfile

import nbformat
import pytest

from tests.autograder.fault_helpers import one_line_error, run_cli, snapshot
from tests.autograder.foreign_courses import (
    COPIES_ANSWERS,
    DOCS_COURSE,
    STYLE_ANSWERS,
    edit_cells,
    gradebook_cells,
    hand_in,
    our_grades,
    stock_grades,
    stock_release,
    write_copies_course,
    write_style_course,
)

pytestmark = [pytest.mark.slow, pytest.mark.needs_sandbox]


def _differences(stock: dict, ours: dict) -> list[str]:
    keys = sorted(set(stock) | set(ours))
    return [
        f"{key}: stock {stock.get(key)} ours {ours.get(key)}"
        for key in keys
        if stock.get(key) != ours.get(key)
    ]


def test_nbgrader_documentation_course_is_scored_as_stock_nbgrader_scores_it(tmp_path):
    stock = stock_grades(DOCS_COURSE, DOCS_COURSE / "submitted", tmp_path, ["ps1"])
    ours, _ = our_grades(DOCS_COURSE, DOCS_COURSE / "submitted", tmp_path)
    assert len(stock) == 18  # 2 students x 9 graded cells (4 of them manual, 1 task)
    assert not _differences(stock, ours)
    # the manually graded answers and the task await the grader, as in nbgrader
    pending = sorted(k[3] for k, (_, manual) in ours.items() if manual and k[0] == "hacker")
    assert pending == [
        "cell-938593c4a215c6cc",
        "part-a",
        "part-b",
        "sum_of_squares_application",
        "sum_of_squares_equation",
    ]
    grades = (tmp_path / "ours" / "out" / "grades.csv").read_text()
    # nbgrader's times (its timestamp.txt, UTC), marked: no course.toml, the clock is UTC
    assert "ps1,,2015-02-02T22:58:23.948203+00:00,bitdiddle,,,,1.5,0.0,1.5,13.0" in grades
    assert "ps1,,2015-02-01T17:28:58.749302+00:00,hacker,,,,3.0,0.0,3.0,13.0" in grades
    # bitdiddle commented out and emptied two test cells: nbgrader and we grade the
    # instructor's; we say so
    assert "test cell correct_squares was edited" in grades
    # what the course does not bring is said once, never an error; feedback for each notebook
    summary = (tmp_path / "ours" / "out" / "summary.md").read_text()
    assert summary.count("No misconception catalogue for this course") == 1
    for student in ("bitdiddle", "hacker"):
        for notebook in ("problem1", "problem2"):
            page = tmp_path / "ours" / "out" / "feedback" / student / "ps1" / f"{notebook}.html"
            assert "squares" in page.read_text() or notebook == "problem2"


def test_a_course_in_other_styles_is_scored_as_stock_nbgrader_scores_it(tmp_path):
    course = write_style_course(tmp_path / "stats-101")
    submitted = tmp_path / "submitted"
    for assignment in ("hw1", "hw2"):
        release = stock_release(course, tmp_path, assignment)
        for student, answers in STYLE_ANSWERS.items():
            hand_in(release, submitted, student, answers)
    # dave turned an answer into a markdown cell (nbgrader turns it back) and deleted a
    # test cell; erin deleted one too
    for student in ("dave", "erin"):
        folder = hand_in(release, submitted, student, STYLE_ANSWERS["alice"])
        retype = ("hyp", "markdown") if student == "dave" else None
        edit_cells(folder / "triangle.ipynb", delete="hyp_zero", retype=retype)
    stock = stock_grades(course, submitted, tmp_path, ["hw1", "hw2"])
    ours, _ = our_grades(course, submitted, tmp_path)
    # where we differ, on purpose: a deleted test cell is put back and run (stock nbgrader
    # leaves it to manual grading), and the submission is flagged so
    deleted = {("dave", "hw2", "triangle", "hyp_zero"), ("erin", "hw2", "triangle", "hyp_zero")}
    for key in deleted:
        assert stock[key] == (None, True) and ours[key] == (1.0, False)
    assert not _differences(
        {k: v for k, v in stock.items() if k not in deleted},
        {k: v for k, v in ours.items() if k not in deleted},
    )
    grades = (tmp_path / "ours" / "out" / "grades.csv").read_text()
    for student in ("dave", "erin"):
        rows = grades.splitlines()
        row = next(r for r in rows if r.startswith("hw2,") and f",{student}," in r)
        assert "test cell hyp_zero was deleted (restored from the instructor's copy)" in row
    assert "cell hyp changed type from code to markdown" in grades
    # alice's answers get every automatic point, bob loses exactly his tests
    auto = {k: s for k, (s, manual) in ours.items() if not manual}
    alice = {k[3]: s for k, s in auto.items() if k[0] == "alice"}
    assert all(s > 0 for s in alice.values()), alice
    bob = {k[3] for k, s in auto.items() if k[0] == "bob" and s == 0}
    assert bob == {
        "Mean-Of-File-test",
        "1_test-zscores",
        "p_value_test",
        "count-words--test",
        "hyp_test",
    }
    # his manually graded code answer does not parse: it awaits its grader, as in nbgrader
    assert ours[("bob", "hw1", "essay", "free_CODE")] == (None, True)
    # the helper module and the data file were there for the students' code, in the
    # sandbox: alice's mean_of read data/values.csv through tools.py
    assert alice["Mean-Of-File-test"] == 1.0


def test_a_package_the_grading_environment_lacks_is_refused_in_one_line(tmp_path):
    course = write_style_course(tmp_path / "theirs")
    path = course / "source" / "hw2" / "triangle.ipynb"
    nb = nbformat.read(path, as_version=4)
    # a package no grading environment has (as pandas would be, were it not installed)
    nb.cells[0].source = "import math\nimport course_only_package_xyz"
    nbformat.write(nb, path)
    submitted = tmp_path / "submitted" / "alice" / "hw2"
    submitted.mkdir(parents=True)
    nbformat.write(nb, submitted / "triangle.ipynb")
    done = run_cli(
        "grade",
        tmp_path / "submitted",
        "--source",
        course,
        "--course",
        tmp_path / "course",
        "--out",
        tmp_path / "out",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    line = one_line_error(done.stderr)
    assert "refusing to grade" in line
    assert "course_only_package_xyz cannot be imported in the sandboxed kernel" in line
    assert "add course_only_package_xyz to requirements.txt" in line and "./run setup" in line
    assert not (tmp_path / "out").exists()


def test_a_course_folder_of_another_course_is_refused_and_left_as_it_was(tmp_path):
    ours = tmp_path / "course"
    done = run_cli("release", "--source", DOCS_COURSE, "--course", ours, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    before = snapshot(ours)
    other = write_style_course(tmp_path / "theirs")
    for args in (
        ("grade", DOCS_COURSE / "submitted", "--out", tmp_path / "out"),
        ("release",),
    ):
        done = run_cli(*args, "--source", other, "--course", ours, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        line = one_line_error(done.stderr)
        assert "holds the course of" in line and "give another --course" in line
    # without --source, the course folder's own course (nbgrader's documentation course)
    done = run_cli("release", "--course", ours, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ps1:" in done.stdout
    assert snapshot(ours).keys() == before.keys()
    assert snapshot(ours)["gradebook.db"] != b""


def test_the_documentation_course_on_dask_and_postgresql_with_its_term(tmp_path, postgres):
    """Everything we have applies to another course: its course.toml beside its
    nbgrader_config.py (a due date, a late rule), Dask workers and a PostgreSQL gradebook,
    the similarity report, the Canvas export."""
    course = tmp_path / "docs-course"
    shutil.copytree(DOCS_COURSE, course, ignore=shutil.ignore_patterns("submitted"))
    (course / "course.toml").write_text(
        'timezone = "UTC"\n\n[late]\nrule = "per-day"\npercent = 10\n\n'
        "[assignments.ps1]\ndue = 2015-02-02T12:00:00\n"
    )
    url = postgres.create_database("docs_course")
    stock = stock_grades(course, DOCS_COURSE / "submitted", tmp_path, ["ps1"])
    extra = ("--db", url, "--dask", "local:2", "--similarity")
    ours, _ = our_grades(course, DOCS_COURSE / "submitted", tmp_path, *extra)
    ours_pg = gradebook_cells(url, "example_course")
    assert not _differences(stock, ours_pg)
    out = tmp_path / "ours" / "out"
    grades = (out / "grades.csv").read_text()
    # bitdiddle handed in on 2 February 22:58, 10 h 58 min late: a started day, 10 % of 1.5
    bitdiddle = next(r for r in grades.splitlines() if ",bitdiddle," in r)
    assert ",1.5,0.15,1.35,13.0," in bitdiddle, bitdiddle
    assert (out / "similarity.html").is_file() and (out / "similarity.csv").is_file()
    done = run_cli(
        "export", "canvas", "--course", tmp_path / "ours" / "course", "--db", url,
        "--out", tmp_path / "canvas.csv", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    canvas = (tmp_path / "canvas.csv").read_text()
    assert "bitdiddle" in canvas and "1.35" in canvas
    assert ours == {}  # the SQLite gradebook of the course folder was not used


def test_the_release_of_another_course_is_nbgraders(tmp_path):
    """``release --source``: each notebook as stock nbgrader releases it (the course's header,
    solution markers and stub), the files beside it, nothing of the grader's."""
    course = write_style_course(tmp_path / "stats-101")
    (course / "source" / "hw1" / "misconceptions.toml").write_text("# the grader's\n")
    (course / "source" / "hw1" / "sample_answers.py").write_text("VARIANTS = []\n")
    done = run_cli("release", "--source", course, "--course", tmp_path / "c", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "hw1:" in done.stdout and "hw2:" in done.stdout
    for assignment in ("hw1", "hw2"):
        stock = stock_release(course, tmp_path, assignment)
        ours = tmp_path / "c" / "release" / assignment
        files = sorted(p.relative_to(ours).as_posix() for p in ours.rglob("*") if p.is_file())
        # stock nbgrader releases the grader's files too (nothing tells it they are ours)
        ours_only = {"misconceptions.toml", "sample_answers.py"}
        assert files == sorted(
            p.relative_to(stock).as_posix()
            for p in stock.rglob("*")
            if p.is_file() and p.name not in ours_only
        )
        for name in files:
            if name.endswith(".ipynb"):
                mine = nbformat.read(ours / name, as_version=4)
                theirs = nbformat.read(stock / name, as_version=4)
                assert [c.source for c in mine.cells] == [c.source for c in theirs.cells]
                assert mine.cells[0].source.startswith("**Stats 101.**")  # the header
            else:
                assert (ours / name).read_bytes() == (stock / name).read_bytes()
        with zipfile.ZipFile(ours.parent / f"{assignment}.zip") as archive:
            assert sorted(archive.namelist()) == [f"{assignment}/{name}" for name in files]
    assert "misconceptions.toml" not in files and "sample_answers.py" not in files
    release = (tmp_path / "c" / "release" / "hw2" / "triangle.ipynb").read_text()
    assert "# write your answer here" in release and "BEGIN ANSWER" not in release


def test_the_documentation_course_from_a_canvas_zip(tmp_path):
    """The class as Canvas's "Download Submissions" gives it, one file per student and
    file: the same grades as the folder, the students by their Canvas user ids."""
    stock = stock_grades(DOCS_COURSE, DOCS_COURSE / "submitted", tmp_path, ["ps1"])
    ids = {"bitdiddle": "101", "hacker": "102"}
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for student, number in ids.items():
            for path in sorted((DOCS_COURSE / "submitted" / student / "ps1").iterdir()):
                if path.suffix == ".ipynb":
                    zipped.write(path, f"{student}ben_{number}_90{number}_{path.name}")
    ours, _ = our_grades(DOCS_COURSE, archive, tmp_path, "--assignment", "ps1")
    renamed = {(ids[k[0]], *k[1:]): v for k, v in stock.items()}
    assert not _differences(renamed, ours)


def test_the_courses_cell_timeout_is_honoured(tmp_path):
    """nbgrader's ``Execute.timeout`` in the course's nbgrader_config.py is the sandboxed
    kernel's cell limit: a student's cell that sleeps past 3 s is interrupted at 3 s (the
    grader's own default is 30 s), and the answer is still decided by the re-check."""
    course = write_style_course(tmp_path / "stats-101")
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text().replace("c.Execute.timeout = 60", "c.Execute.timeout = 3"))
    release = stock_release(course, tmp_path, "hw2")
    slow = {
        "hyp": "import time\n\n\ndef hyp(a, b):\n    return math.hypot(a, b)\n\n\ntime.sleep(8)"
    }
    hand_in(release, tmp_path / "submitted", "zoe", slow)
    ours, _ = our_grades(course, tmp_path / "submitted", tmp_path)
    grades = (tmp_path / "ours" / "out" / "grades.csv").read_text()
    row = next(line for line in grades.splitlines() if line.startswith("hw2,") and ",zoe," in line)
    assert "time-out: cell(s) #" in row and "(3 s)" in row, row
    assert ours[("zoe", "hw2", "triangle", "hyp_test")] == (1.0, False)


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """The copies course (:func:`write_copies_course`), its class (alice and bob hand in
    hw1, hw2 and hw3, in nbgrader's layout) and stock nbgrader's grades of it."""
    work = tmp_path_factory.mktemp("copies")
    course = write_copies_course(work / "copies-101")
    submitted = work / "submitted"
    assignments = ["hw1", "hw2", "hw3"]
    for assignment in assignments:
        release = stock_release(course, work, assignment)
        for student, answers in COPIES_ANSWERS.items():
            hand_in(release, submitted, student, answers)
    return course, submitted, stock_grades(course, submitted, work, assignments)


def test_assignments_sharing_grade_ids_from_nbgraders_layout(copies, tmp_path):
    """The same grade ids and notebook name in several assignments, and in two notebooks of
    one: the folder names tell the assignments, every grade cell as stock nbgrader's, and
    each notebook's test scored under its own name."""
    course, submitted, stock = copies
    ours, done = our_grades(course, submitted, tmp_path)
    assert len(stock) == 2 * (3 + 2 + 2)  # the test cells: 3 of hw1, 2 of hw2, 2 of hw3
    assert not _differences(stock, ours)
    assert "alike" not in done.stderr  # no doubt: the folders named the assignments
    results = json.loads((tmp_path / "ours" / "out" / "results.json").read_text())
    tests = {
        (r["student"], r["assignment"]): {t: v["score"] for t, v in r["tests"].items()}
        for r in results["submissions"]
    }
    # hw1's hyp_test is in both of its notebooks: two tests, each under its notebook's name
    assert tests[("bob", "hw1")] == {
        "homework/hyp_test": 0.0,
        "bonus/hyp_test": 0.0,
        "mean_test": 1.0,
    }
    assert tests[("alice", "hw1")] == {
        "homework/hyp_test": 1.0,
        "bonus/hyp_test": 2.0,
        "mean_test": 1.0,
    }
    # bob's mean passes hw1's test and fails hw3's: each assignment graded by its own
    assert tests[("bob", "hw3")] == {"hyp_test": 0.0, "mean_test": 0.0}
    assert tests[("bob", "hw2")] == {"hyp_test": 0.0, "area_test": 2.0}
    summary = (tmp_path / "ours" / "out" / "summary.md").read_text()
    assert "homework/hyp_test" in summary and "bonus/hyp_test" in summary


def test_assignments_sharing_grade_ids_from_a_zip_of_file_names(copies, tmp_path):
    """A Canvas zip carries file names only, no assignment (no --assignment either): the
    notebook names decide where they differ, the grade ids where the names are alike, and
    where both are alike the doubt is said with what was chosen."""
    course, submitted, stock = copies
    handed = {  # Canvas user id -> (the student's folder, the assignment, its notebooks)
        "101": ("alice", "hw1", ["homework", "bonus"]),  # only hw1 has a bonus notebook
        "102": ("bob", "hw2", ["homework"]),  # the names of three: hw2's grade ids
        "103": ("bob", "hw3", ["homework"]),  # hw1's names and grade ids as well
    }
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for number, (student, assignment, notebooks) in handed.items():
            for name in notebooks:
                path = submitted / student / assignment / f"{name}.ipynb"
                zipped.write(path, f"{student}_{number}_90{number}_{name}.ipynb")
    ours, done = our_grades(course, archive, tmp_path)
    graded_as = {"101": "hw1", "102": "hw2", "103": "hw1"}  # 103: the doubt, hw1 chosen
    for number, (student, _, notebooks) in handed.items():
        want = {
            k[2:]: v
            for k, v in stock.items()
            if k[0] == student and k[1] == graded_as[number] and k[2] in notebooks
        }
        got = {k[2:]: v for k, v in ours.items() if k[0] == number and k[2] in notebooks}
        assert want and got == want, (number, got, want)
        assert {k[1] for k in ours if k[0] == number} == {graded_as[number]}
    grades = (tmp_path / "ours" / "out" / "grades.csv").read_text()
    row = next(line for line in grades.splitlines() if ",103," in line)
    said = (
        "the file names and grade ids fit hw1 and hw3 alike: graded as hw1, the assignment "
        "of most of this batch's clear submissions (1)"
    )
    assert said in row and "--assignment" in row
    assert not any("alike" in line for line in grades.splitlines() if ",103," not in line)
    assert (
        "note: 1 submission fit hw1 and hw3 alike by their file names and grade ids (103): "
        "graded as hw1, the assignment of most of this batch's clear submissions (1); "
        "pass --assignment to choose" in done.stderr
    ), done.stderr


def _csv_rows(path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {(r["assignment"], r["student_id"]): r for r in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def style_graded(tmp_path_factory):
    """The style course's hw1 (answers graded by hand in its essay: a written answer, a code
    answer, a task) handed in by alice, bob and carol and graded by ``grade --source``: the
    work folder (``ours/course``, ``ours/out``)."""
    tmp_path = tmp_path_factory.mktemp("style-course")
    course = write_style_course(tmp_path / "stats-101")
    ours = tmp_path / "ours"
    done = run_cli("release", "--source", course, "--course", ours / "course", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for student in ("alice", "bob", "carol"):
        hand_in(ours / "course" / "release" / "hw1", tmp_path / "submitted", student,
                STYLE_ANSWERS[student])  # fmt: skip
    our_grades(course, tmp_path / "submitted", tmp_path)
    return tmp_path


def test_totals_count_the_points_graded_by_hand_as_nbgrader_does(style_graded):
    """Issue 44: a course with answers graded by hand (hw1's essay: a written answer, a code
    answer, a task) totals as nbgrader's gradebook does — results.json, grades.csv,
    summary.md and the Canvas export alike — and its code answer graded by hand is no
    autograded test: it awaits its grade beside the written answer."""
    from nbgrader.api import Gradebook

    tmp_path = style_graded
    ours = tmp_path / "ours"
    out = ours / "out"
    with Gradebook(f"sqlite:///{ours / 'course' / 'gradebook.db'}", "stats-101") as gb:
        nbgrader = {
            s: (gb.find_submission("hw1", s).score, gb.find_submission("hw1", s).max_score)
            for s in ("alice", "bob", "carol")
        }
    # 1 + 2 + 1.5 (analysis), 2 + 1 + 1 + 3 (essay: answer, code answer, test, task)
    assert {m for _, m in nbgrader.values()} == {11.5}
    data = json.loads((out / "results.json").read_text())
    for entry in data["submissions"]:
        assert (entry["score"], entry["max_score"]) == nbgrader[entry["student"]], entry
        assert "free_CODE" not in entry["tests"] and "Q-explain" not in entry["tests"]
    rows = _csv_rows(out / "grades.csv")
    for student, (score, top) in nbgrader.items():
        row = rows[("hw1", student)]
        assert (float(row["raw_score"]), float(row["max_score"])) == (score, top)
    # alice and bob answered both, and the task awaits everyone: 2 + 1 + 3 points
    alice = next(e for e in data["submissions"] if e["student"] == "alice")
    assert alice["manual_pending"] == {"answers": 3, "points": 6.0}
    assert rows[("hw1", "alice")]["manual_pending_points"] == "6.0"
    summary = (out / "summary.md").read_text()
    table = next(line for line in summary.splitlines() if line.startswith("| hw1 "))
    assert [c.strip() for c in table.strip("|").split("|")][4:6] == ["11.5", "6"], table
    tests = summary.split("### hw1: pass rate per autograded test", 1)[1].split("###")[0]
    assert "count-words--test" in tests and "free_CODE" not in tests
    assert "- `hw1/alice`: 3 answers, 6 points" in summary
    done = run_cli(
        "export", "canvas", "--course", ours / "course", "--out", tmp_path / "canvas.csv",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    canvas = list(csv.reader((tmp_path / "canvas.csv").open()))
    assert canvas[1][canvas[0].index("hw1")] == "11.5"  # Points Possible
    assert (
        "hw1: out of 11.5 points, 6 of them graded by hand (answers and tasks, in nbgrader's "
        "formgrader): awaiting a hand grade (3): alice, bob, carol" in done.stdout
    )


def test_the_page_says_what_awaits_a_hand_grade(style_graded):
    """Issue 44: a page shows an answer graded by hand at 0 points until it is graded (as
    nbgrader's template does); it says which await a person, a code answer among them,
    and that they count 0 until then."""
    feedback = style_graded / "ours" / "out" / "feedback"
    alice = (feedback / "alice" / "hw1" / "essay.html").read_text()
    assert "<strong>Graded by hand</strong>" in alice
    assert (
        "1 written answer, 1 code answer and 1 task (6 points) are graded by hand and not "
        "graded yet: until your instructor grades them, this page counts them as 0 points."
    ) in alice
    carol = (feedback / "carol" / "hw1" / "essay.html").read_text()  # handed in as released
    assert "1 task (3 points) is graded by hand and not graded yet" in carol
    assert "Graded by hand" not in (feedback / "alice" / "hw1" / "analysis.html").read_text()


@pytest.fixture(scope="module")
def docs_graded(tmp_path_factory):
    """nbgrader's documentation course graded by ``grade --source``: its output folder. Its
    submissions were made by an older nbgrader, from a release of its own."""
    work = tmp_path_factory.mktemp("docs-course")
    our_grades(DOCS_COURSE, DOCS_COURSE / "submitted", work)
    return work / "ours" / "out"


def test_metadata_of_an_older_nbgraders_release_is_not_the_students_doing(docs_graded):
    """Issue 44: hacker changed none of his notebooks' metadata, but they come from a
    release an older nbgrader made (its checksums computed otherwise, none on the task; its
    test cells flagged ``locked: false`` as the course writes them, which nbgrader reads as
    locked). His page says nothing of it; grades.csv tells the instructor what it is."""
    rows = _csv_rows(docs_graded / "grades.csv")
    hacker = rows[("ps1", "hacker")]["flags"]
    assert "locked flag" not in hacker and "checksum changed" not in hacker, hacker
    assert hacker.startswith("nbgrader metadata of another release: the checksums of squares, ")
    assert "generated by another nbgrader version" in hacker
    page = (docs_graded / "feedback" / "hacker" / "ps1" / "problem1.html").read_text()
    assert "What the grader did to your notebook" not in page
    assert "locked flag" not in page and "checksum" not in page
    # what bitdiddle did is still his: he edited two test cells
    bitdiddle = rows[("ps1", "bitdiddle")]["flags"]
    assert "locked flag" not in bitdiddle and "of another release" in bitdiddle
    page = (docs_graded / "feedback" / "bitdiddle" / "ps1" / "problem1.html").read_text()
    assert "You changed the test cell <code>correct_squares</code>" in page
    assert "checksum" not in page


def test_an_image_beside_the_notebook_is_beside_its_page(docs_graded):
    """Issue 44: problem1 shows ``jupyter.png``, an image beside the notebook in the
    release (``![](jupyter.png)``): it is beside each student's page, the release's copy;
    problem2 shows none."""
    release_image = (DOCS_COURSE / "source" / "ps1" / "jupyter.png").read_bytes()
    for student in ("bitdiddle", "hacker"):
        folder = docs_graded / "feedback" / student / "ps1"
        assert 'src="jupyter.png"' in (folder / "problem1.html").read_text()
        assert (folder / "jupyter.png").read_bytes() == release_image
        assert sorted(p.name for p in folder.iterdir()) == [
            "jupyter.png",
            "problem1.html",
            "problem2.html",
        ]
