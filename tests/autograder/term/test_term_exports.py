"""Canvas and Moodle exports, read back by the importers' own rules (lms_importers.py),
from a gradebook made with nbgrader's API: scores, a late penalty, and students with no
submission."""

from __future__ import annotations

import csv
import io
import re
import warnings

import pytest

from autograder.__main__ import main
from autograder.grading import CANARY_PREFIX
from autograder.lms.plugins.canvas import read_canvas_gradebook
from autograder.models import TermError
from autograder.term import export_to_lms
from tests.autograder.fault_helpers import one_line_error, run_cli
from tests.autograder.term.lms_importers import (
    ImportRejected,
    canvas_import,
    moodle_gradebook_import,
    moodle_worksheet_import,
)

A1, A4 = "01_hyperplanes", "04_naive_bayes_linear"
#: (assignment, student) -> (auto scores of its test cells, late penalty)
SUBMISSIONS = {
    (A1, "102"): ([4.0, 5.0], 1.8),  # 9 points, late: 7.2
    (A1, "103"): ([0.0, 6.0], 0.0),  # 6
    (A4, "102"): ([10.0], 0.0),  # 10
    (A4, "104"): ([2.5], 0.0),  # 2.5
}
POINTS = {A1: [4.0, 6.0], A4: [10.0]}
FINAL = {(A1, "102"): 7.2, (A1, "103"): 6.0, (A4, "102"): 10.0, (A4, "104"): 2.5}
STUDENTS = {"102": ("Doe", "Jane"), "103": ("Smith", "John"), "104": ("Lee", "Ann")}

#: Canvas's gradebook export (Grades > Export), with SIS ids, totals and the points row
CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Hyperplanes (4401),"
    "04_naive_bayes_linear (4404),Essay (4405),Current Points,Final Points,Current Score,"
    "Unposted Current Score,Final Score,Unposted Final Score\r\n"
    "    Points Possible,,,,,10.00,20.00,5.00,(read only),(read only),(read only),"
    "(read only),(read only),(read only)\r\n"
    '"Smith, John",103,S103,jsmith,Section A,,,4.00,4.00,4.00,11.43,11.43,11.43,11.43\r\n'
    '"Doe, Jane",102,S102,jdoe,Section A,,,,0.00,0.00,,,0.00,0.00\r\n'
    '"Park, Sam",105,S105,spark,Section B,,,,0.00,0.00,,,0.00,0.00\r\n'
)

#: Moodle's grading worksheet of 01_hyperplanes, maximum grade 100, participants 102, 103, 105
WORKSHEET = (
    'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
    '"Grade can be changed","Last modified (submission)","Last modified (grade)",'
    '"Feedback comments"\r\n'
    '"Participant 102","Jane Doe",jane@example.org,"Submitted for grading",,100.00,Yes,'
    '"Sunday, 5 October 2025, 9:00 AM",-,\r\n'
    '"Participant 103","John Smith",john@example.org,"Submitted for grading",,100.00,Yes,'
    '"Friday, 3 October 2025, 6:00 PM","Monday, 6 October 2025, 8:00 AM","Well done, John"\r\n'
    '"Participant 105","Sam Park",sam@example.org,"No submission",,100.00,Yes,-,-,\r\n'
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, new_course):
    """A course whose gradebook holds SUBMISSIONS (nbgrader's API, no grading); made once,
    only read by the tests."""
    course = new_course(tmp_path_factory.mktemp("exports") / "course")
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's add_submission: SQLAlchemy autoflush
        for assignment, points in POINTS.items():
            gb.add_assignment(assignment)
            gb.add_notebook(assignment, assignment)
            for index, max_score in enumerate(points):
                gb.add_grade_cell(
                    f"t{index}", assignment, assignment, max_score=max_score, cell_type="code"
                )
        for student, (last, first) in STUDENTS.items():
            gb.add_student(student, last_name=last, first_name=first)
        # the canary's student, as a grading run killed during its canary leaves it behind:
        # never a student of an export (the exports' students are STUDENTS exactly)
        gb.add_student(f"{CANARY_PREFIX}0123456789ab")
        for (assignment, student), (scores, penalty) in SUBMISSIONS.items():
            gb.add_submission(assignment, student)
            for index, score in enumerate(scores):
                gb.find_grade(f"t{index}", assignment, assignment, student).auto_score = score
            notebook = gb.find_submission_notebook(assignment, assignment, student)
            notebook.late_submission_penalty = penalty
        gb.db.commit()
    return course


def _canvas_matching(graded, export, dest, **kwargs):
    """The Canvas import of ``graded`` matching Canvas's own gradebook export ``export``."""
    return export_to_lms("canvas", graded, dest=dest, options={"gradebook": export}, **kwargs)


def test_canvas_import_of_the_course_alone(graded, tmp_path):
    dest = tmp_path / "canvas.csv"
    report = export_to_lms("canvas", graded, dest=dest)
    header = dest.read_text(encoding="utf-8").splitlines()[0]
    assert header == f"Student,ID,Section,{A1},{A4}"  # no SIS ids: none are known
    imported = canvas_import(dest.read_text(encoding="utf-8"))
    assert imported["assignments"] == {A1: (A1, None, "10"), A4: (A4, None, "10")}
    assert all(s["sis_user_id"] is None for s in imported["students"])
    by_id = {s["id"]: s for s in imported["students"]}
    assert set(by_id) == set(STUDENTS)
    assert by_id["102"]["name"] == "Doe, Jane"
    for (assignment, student), final in FINAL.items():
        assert float(by_id[student]["grades"][assignment]) == pytest.approx(final)
    assert by_id["104"]["grades"][A1] is None  # no submission: no score, Canvas keeps its own
    assert by_id["103"]["grades"][A4] is None
    text = "\n".join(report.lines())
    assert "01_hyperplanes: no submission (1; blank" in text and "104" in text


def test_canvas_import_matches_canvas_own_export_row_for_row(graded, tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(CANVAS_EXPORT, encoding="utf-8")
    dest = tmp_path / "canvas.csv"
    report = _canvas_matching(graded, export, dest, columns={A1: "Hyperplanes (4401)"})
    ours = canvas_import(dest.read_text(encoding="utf-8"))
    theirs = canvas_import(CANVAS_EXPORT)
    # the same students, in Canvas's order, with Canvas's ids and SIS ids
    keep = ("name", "id", "sis_user_id", "sis_login_id")
    assert [{k: s[k] for k in keep} for s in ours["students"]] == [
        {k: s[k] for k in keep} for s in theirs["students"]
    ]
    # the course's two columns, Canvas's titles and ids and points; nothing else touched
    assert ours["assignments"] == {
        "Hyperplanes (4401)": ("Hyperplanes", "4401", "10"),
        "04_naive_bayes_linear (4404)": ("04_naive_bayes_linear", "4404", "20"),
    }
    grades = {s["id"]: s["grades"] for s in ours["students"]}
    assert float(grades["102"]["Hyperplanes (4401)"]) == pytest.approx(7.2)
    assert float(grades["103"]["Hyperplanes (4401)"]) == pytest.approx(6.0)
    assert float(grades["102"]["04_naive_bayes_linear (4404)"]) == pytest.approx(20.0)  # x2
    assert grades["103"]["04_naive_bayes_linear (4404)"] is None
    assert grades["105"] == {"Hyperplanes (4401)": None, "04_naive_bayes_linear (4404)": None}
    text = "\n".join(report.lines())
    assert "graded but not in export.csv" in text and "104" in text  # never dropped silently
    assert "04_naive_bayes_linear: worth 10 points here, 20 in Canvas" in text
    assert "no submission (2" in text and "105" in text


def test_a_semicolon_export_with_decimal_commas_is_read(graded, tmp_path):
    export = tmp_path / "export.csv"
    export.write_text(
        "Student;ID;SIS Login ID;Section;Hyperplanes (4401)\n"
        "    Points Possible;;;;10,00\n"
        '"Doe, Jane";102;jdoe;A;\n',
        encoding="utf-8",
    )
    book = read_canvas_gradebook(export)
    assert book.student_columns == 4 and list(book.assignments) == ["Hyperplanes (4401)"]
    dest = tmp_path / "canvas.csv"
    _canvas_matching(graded, export, dest, assignments=[A1], columns={A1: "x (4401)"})
    (student,) = canvas_import(dest.read_text())["students"]
    assert student["grades"] == {"Hyperplanes (4401)": "7.2"}  # matched by its id


def test_a_semicolon_export_whose_titles_hold_commas_is_read(graded, tmp_path):
    # a title with more commas than the header has semicolons: still semicolons, as Canvas
    # decides (the comma split leaves a quote inside a field, which Canvas's CSV refuses)
    export_text = (
        'Student;ID;Section;"Hyperplanes, margins, norms, distances (4401)"\n'
        "    Points Possible;;;10,00\n"
        '"Doe, Jane";102;A;\n'
    )
    export = tmp_path / "export.csv"
    export.write_text(export_text, encoding="utf-8")
    book = read_canvas_gradebook(export)
    assert book.student_columns == 3
    assert list(book.assignments) == ["Hyperplanes, margins, norms, distances (4401)"]
    assert [s["id"] for s in canvas_import(export_text)["students"]] == ["102"]
    dest = tmp_path / "canvas.csv"
    _canvas_matching(graded, export, dest, assignments=[A1], columns={A1: "x (4401)"})
    (student,) = canvas_import(dest.read_text())["students"]
    assert student["grades"] == {"Hyperplanes, margins, norms, distances (4401)": "7.2"}


def test_a_file_that_is_not_canvas_export_is_refused(graded, tmp_path):
    export = tmp_path / "export.csv"
    export.write_text("Name,Score\nJane,3\n")
    with pytest.raises(TermError, match="not a Canvas gradebook export"):
        _canvas_matching(graded, export, tmp_path / "out.csv")
    with pytest.raises(ImportRejected):  # and Canvas refuses it too: the rule is the same
        canvas_import(export.read_text())


def test_moodle_worksheet_filled_in_and_read_back(graded, tmp_path):
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(WORKSHEET, encoding="utf-8")
    dest = tmp_path / "filled.csv"
    options = {"worksheet": worksheet}
    report = export_to_lms("moodle", graded, dest=dest, assignments=[A1], options=options)
    written = dest.read_text(encoding="utf-8")
    assert moodle_worksheet_import(written, max_grade=100.0) == {
        "102": pytest.approx(72.0),
        "103": pytest.approx(60.0),
    }
    assert moodle_worksheet_import(WORKSHEET, max_grade=100.0) == {}  # before: no grades
    # every other cell as Moodle wrote it: its modified-grade dates, its feedback
    before = list(csv.reader(io.StringIO(WORKSHEET)))
    after = list(csv.reader(io.StringIO(written)))
    grade = before[0].index("Grade")
    assert [r[:grade] + r[grade + 1 :] for r in after] == [
        r[:grade] + r[grade + 1 :] for r in before
    ]
    text = "\n".join(report.lines())
    assert "no submission (1" in text and "Participant 105" in text
    assert "scaled to Moodle's maximum grade" in text


def test_moodle_rejects_what_is_not_its_worksheet(graded, tmp_path):
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text('Identifier,Grade\n"Participant 102",\n')
    with pytest.raises(TermError, match="no 'Last modified \\(grade\\)' column"):
        export_to_lms(
            "moodle",
            graded,
            dest=tmp_path / "x.csv",
            assignments=[A1],
            options={"worksheet": worksheet},
        )
    with pytest.raises(ImportRejected, match="invalidgradeimport"):
        moodle_worksheet_import(worksheet.read_text(), 100.0)


def test_moodle_gradebook_csv_read_back(graded, tmp_path):
    dest = tmp_path / "moodle.csv"
    report = export_to_lms("moodle", graded, dest=dest, options={"key_column": "ID number"})
    mapping = {A1: "item 1", A4: "item 4"}
    imported = moodle_gradebook_import(dest.read_text(), "ID number", mapping)
    for student in STUDENTS:
        for assignment, item in mapping.items():
            expected = FINAL.get((assignment, student))
            got = imported[(student, item)]
            assert got == (pytest.approx(expected) if expected is not None else None)
    rows = {r.split(",")[0]: r for r in dest.read_text().splitlines()}
    assert "late submission penalty: 1.8 points" in rows["102"]
    assert "no submission" in rows["104"]
    assert "map 'ID number'" in "\n".join(report.lines())


def test_export_through_the_command_line(graded, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(["export", "canvas", "--course", str(graded.root)])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("wrote canvas-grades.csv: 3 students")
    assert canvas_import((tmp_path / "canvas-grades.csv").read_text())["students"]
    status = main(["export", "moodle", "--course", str(graded.root), "--worksheet", "w.csv"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and "give one --assignment" in err and len(err.splitlines()) == 1
    status = main(["export", "moodle", "--course", str(tmp_path / "none")])
    assert status == 2 and "no course folder" in capsys.readouterr().err
    status = main(["export", "canvas", "--course", str(graded.root), "--assignment", "07_x"])
    assert status == 2 and "07_x has not been graded" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_an_export_on_a_full_disk_keeps_the_old_file(graded, tmp_path, namespace, lms):
    """``export`` writes its file as every output is written (autograder.files.write_atomic):
    on a full disk (a small tmpfs in a private mount namespace, filled) the command ends in
    one line saying so, exit 1, the old file as it was and no temporary file beside it.
    Before, the export wrote a fixed-name ``<file>.tmp`` without flushing it to disk, and a
    full disk ended in a Python traceback with that temporary file left behind."""
    out = tmp_path / "out"
    namespace.mount_tmpfs(out, 256)
    seen = namespace.view(out)
    dest = out / f"{lms}-grades.csv"
    (seen / dest.name).write_bytes(b"the old export\r\n")
    ballast = namespace.fill(out, 0)
    full = run_cli(
        "export", lms, "--course", graded.root, "--out", dest, cwd=tmp_path, prefix=namespace.prefix
    )
    assert full.returncode == 1, full.stderr[-3000:]
    line = one_line_error(full.stderr)
    # (nsenter starts it in the namespace's root folder: the path is shown from there)
    assert re.search(rf"error: no space left on device writing \S*out/{dest.name}: free ", line)
    assert (seen / dest.name).read_bytes() == b"the old export\r\n"
    assert sorted(p.name for p in seen.iterdir()) == sorted([dest.name, ballast.name])
    ballast.unlink()
    again = run_cli(
        "export", lms, "--course", graded.root, "--out", dest, cwd=tmp_path, prefix=namespace.prefix
    )
    assert again.returncode == 0, again.stderr[-3000:]
    export_to_lms(lms, graded, dest=tmp_path / "expected.csv")
    assert (seen / dest.name).read_bytes() == (tmp_path / "expected.csv").read_bytes()
    assert sorted(p.name for p in seen.iterdir()) == [dest.name]


@pytest.fixture(scope="module")
def half_graded(tmp_path_factory, new_course):
    """A course whose gradebook holds A1 graded (201: its written answer, 6 points, awaits
    manual grading; 202: given 5 of them in formgrader) and A4 released, which nothing was
    graded of but a canary a killed run left behind."""
    course = new_course(tmp_path_factory.mktemp("half-graded") / "course")
    canary = f"{CANARY_PREFIX}0123456789ab"
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's add_submission: SQLAlchemy autoflush
        for assignment in (A1, A4):
            gb.add_assignment(assignment)
            gb.add_notebook(assignment, assignment)
            gb.add_grade_cell("t0", assignment, assignment, max_score=4.0, cell_type="code")
        gb.add_grade_cell("w0", A1, A1, max_score=6.0, cell_type="markdown")
        for student in ("201", "202", canary):
            gb.add_student(student)
        for assignment, student in [(A1, "201"), (A1, "202"), (A4, canary)]:
            gb.add_submission(assignment, student)
            test = gb.find_grade("t0", assignment, assignment, student)
            test.auto_score, test.needs_manual_grade = 4.0, False  # as autograded
        gb.find_grade("w0", A1, A1, "201").needs_manual_grade = True
        given = gb.find_grade("w0", A1, A1, "202")
        given.manual_score, given.needs_manual_grade = 5.0, False
        gb.db.commit()
    return course


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_an_export_writes_the_graded_assignments_and_says_what_awaits_a_person(
    half_graded, tmp_path, capsys, lms
):
    """Issue 41: an assignment nothing was graded of is no column (an import would make an
    empty assignment of it) unless asked for; written answers still to grade are a line
    on stderr (the exported scores lack their points)."""
    dest = tmp_path / f"{lms}.csv"
    args = ["export", lms, "--course", str(half_graded.root), "--out", str(dest)]
    assert main(args) == 0
    captured = capsys.readouterr()
    header = next(csv.reader(dest.open()))
    assert A1 in header and A4 not in header and f"{A4} (feedback)" not in header
    assert (
        "  not written, nothing graded yet (--all-assignments writes them too): "
        "04_naive_bayes_linear\n" in captured.out
    )
    # issue 44: the total (the LMS's points possible) has the points graded by hand
    assert (
        "  01_hyperplanes: out of 10 points, 6 of them graded by hand (answers and tasks, "
        "in nbgrader's formgrader): awaiting a hand grade (1): 201\n" in captured.out
    )
    assert captured.err.splitlines() == [
        "note: 1 answer graded by hand of 1 submission (01_hyperplanes) still awaits manual "
        "grading: the exported scores lack their 6 points (grade them in nbgrader's "
        "formgrader, then export again)"
    ]
    students = {row[0] for row in csv.reader(dest.open())}
    assert {"201", "202"} <= students and not any(CANARY_PREFIX in s for s in students)
    assert main([*args, "--all-assignments"]) == 0
    captured = capsys.readouterr()
    assert A4 in next(csv.reader(dest.open())) and "not written" not in captured.out
    assert main([*args, "--assignment", A4]) == 0
    captured = capsys.readouterr()
    assert A4 in next(csv.reader(dest.open())) and A1 not in next(csv.reader(dest.open()))
    assert captured.err == ""  # nothing of A4 awaits a person
    with pytest.raises(SystemExit) as exited:
        main([*args, "--all-assignments", "--assignment", A4])
    assert exited.value.code == 2


def test_scores_and_the_points_awaiting_a_person(half_graded, tmp_path, capsys):
    dest = tmp_path / "canvas.csv"
    assert main(["export", "canvas", "--course", str(half_graded.root), "--out", str(dest)]) == 0
    capsys.readouterr()
    grades = {s["id"]: s["grades"] for s in canvas_import(dest.read_text())["students"]}
    assert float(grades["201"][A1]) == pytest.approx(4.0)  # its written answer: not yet
    assert float(grades["202"][A1]) == pytest.approx(9.0)  # 4 + the 5 given by hand
