"""The LMS plugins' registry (autograder.lms.base): an LMS added in one class, here a small
fake one registered by the test alone, is an LMS of intake (its zip told apart and read,
its students' names kept), of the times (its file of times read by ``--times``), of
course.toml (its column key) and of ``export`` (a choice of the command line, with its
own option) — and without it none of these knows it.

The fast tests call each side directly and the command line in-process (its choices are
built from the registry when it parses); the slow one grades the fake LMS's zip through
``python -m autograder grade`` and exports it back, unsandboxed (intake and the term are
tested here, not the sandbox)."""

from __future__ import annotations

import csv
import warnings
import zipfile
from datetime import UTC, datetime, tzinfo
from pathlib import Path

import pytest
from traitlets import Unicode

from autograder.__main__ import build_parser, main
from autograder.course import Course
from autograder.intake import read_submissions
from autograder.lms import (
    ExportOption,
    ExportReport,
    LmsPlugin,
    SubmissionTimes,
    lms_exporters,
    lms_intakes,
    lms_plugins,
    parse_time,
    points,
    read_course_grades,
    register,
    unregister,
)
from autograder.lms.grades import write_csv
from autograder.models import SubmissionsError, TermError
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import make_submission
from autograder.term import load_calendar, read_times

A1 = "01_hyperplanes"


class FakeLms(LmsPlugin):
    """A small LMS: its zip names each file ``u<user id>~<name>~<file>``; its file of
    times is a log ``user,handed_in``; grades go back as ``user,name,<column>...``, the
    points multiplied by ``--fake-scale``."""

    name = "fakelms"
    title = "FakeLMS"
    description = "FakeLMS's zip"
    times_file = "a FakeLMS log (columns user, handed_in)"
    column_key = "the assignment's name in FakeLMS"
    export_help = "a CSV user,name,<assignment>... (FakeLMS > Import)"
    options = (
        ExportOption("--fake-scale", "scale", "fakelms: points times X", metavar="X", path=False),
    )

    named_regexp = Unicode(r"^u(?P<student_id>\d+)~(?P<name>[^~/]+)~(?P<file_id>[^/]+)$")
    scale = Unicode("1")

    def read_times(
        self, rows: list[list[str]], source: str, zone: tzinfo | None
    ) -> SubmissionTimes | None:
        if [h.strip() for h in rows[0]] != ["user", "handed_in"]:
            return None
        times = SubmissionTimes(source=source, kind=self.name)
        for user, when in rows[1:]:
            times.times[(None, user)] = parse_time(when, zone)
            times.roster.append(user)
        return times

    def export(self, gradebook) -> ExportReport:
        grades = read_course_grades(gradebook, self.assignment, self.student)
        names = list(grades.assignments)
        rows = [["user", "name", *(self.columns.get(a, a) for a in names)]]
        for student, (last, _) in grades.students.items():
            cells = [grades.grade(a, student) for a in names]
            scaled = [points(g.score * float(self.scale)) if g else "" for g in cells]
            rows.append([student, last, *scaled])
        dest = self.to or self.default_to()
        write_csv(dest, rows)
        return ExportReport(dest=dest, rows=len(rows) - 1, columns=rows[0][2:])


@pytest.fixture
def fake_lms():
    register(FakeLms)
    yield FakeLms
    unregister(FakeLms.name)


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def _fake_class(tmp_path: Path, notebook: bytes = b"{}") -> Path:
    return _zip(
        tmp_path / "fake.zip",
        {f"u101~Ann Lee~{A1}.ipynb": notebook, "u102~Bo Ek~notes.txt": b"hi"},
    )


def _log(tmp_path: Path, text: str = "user,handed_in\n101,2025-10-03T23:59:00+02:00\n") -> Path:
    log = tmp_path / "fake-log.csv"
    log.write_text(text, encoding="utf-8")
    return log


@pytest.fixture
def graded(tmp_path, new_course) -> Course:
    """A course whose gradebook holds 101's 7.5 of 10 points of A1 (nbgrader's API), and a
    course.toml naming A1's column in FakeLMS."""
    course = new_course(tmp_path / "course")
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's add_submission: SQLAlchemy autoflush
        gb.add_assignment(A1)
        gb.add_notebook(A1, A1)
        gb.add_grade_cell("t0", A1, A1, max_score=10.0, cell_type="code")
        gb.add_student("101", last_name="Ann Lee")
        gb.add_submission(A1, "101")
        gb.find_grade("t0", A1, A1, "101").auto_score = 7.5
        gb.db.commit()
    (course.root / "course.toml").write_text(f'[assignments.{A1}]\nfakelms = "Hyperplanes"\n')
    return course


def test_a_plugin_in_one_class_is_an_lms_of_intake_times_and_export(
    fake_lms, graded, tmp_path, capsys
):
    # the command line's choices
    args = build_parser().parse_args(["grade", "fake.zip", "--lms", "fakelms"])
    assert args.lms == "fakelms"
    args = build_parser().parse_args(["export", "fakelms", "--fake-scale", "2"])
    assert (args.lms, args.fake_scale) == ("fakelms", "2")
    assert fake_lms in lms_plugins() and fake_lms in lms_exporters()
    # intake: its names read as nbgrader's FileNameCollectorPlugin reads them, its zip
    # told apart from the others' and grouped by its user ids, the names kept
    assert fake_lms().collect(f"u101~Ann Lee~{A1}.ipynb") == {
        "student_id": "101",
        "name": "Ann Lee",
        "file_id": f"{A1}.ipynb",
    }
    assert fake_lms().collect(f"Ann Lee_101_1_{A1}.ipynb") is None
    raws = read_submissions(_fake_class(tmp_path), assignment=A1)
    assert [(r.student, r.name, sorted(r.files)) for r in raws] == [
        ("101", "Ann Lee", [f"{A1}.ipynb"]),
        ("102", "Bo Ek", ["notes.txt"]),
    ]
    # times: its log read by --times, in course.toml's zone when it has none
    times = read_times(_log(tmp_path), UTC, [A1])
    assert times.kind == "fakelms" and times.roster == ["101"]
    assert times.time_for("101", A1) == datetime(2025, 10, 3, 21, 59, tzinfo=UTC)
    # course.toml: its column key
    calendar = load_calendar(graded.root / "course.toml", [A1])
    assert calendar.term(A1).columns == {"fakelms": "Hyperplanes"}
    # export: a choice of the command line, with its own option and course.toml's column
    dest = tmp_path / "fake-grades.csv"
    status = main(
        ["export", "fakelms", "--course", str(graded.root), "--fake-scale", "2", "--out", str(dest)]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert f"wrote {dest}: 1 students, Hyperplanes" in captured.out
    assert list(csv.reader(dest.open())) == [
        ["user", "name", "Hyperplanes"],
        ["101", "Ann Lee", "15"],
    ]
    # another LMS's option is refused in one line
    status = main(["export", "fakelms", "--course", str(graded.root), "--gradebook", "x.csv"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1
    assert "--gradebook is Canvas's, not FakeLMS's (FakeLMS takes --fake-scale)" in err


def test_without_the_plugin_no_layer_knows_the_lms(graded, tmp_path, capsys):
    assert "fakelms" not in {p.name for p in lms_plugins()}
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["grade", "fake.zip", "--lms", "fakelms"])
    assert exited.value.code == 2
    with pytest.raises(SubmissionsError, match="cannot tell the layout"):
        read_submissions(_fake_class(tmp_path), assignment=A1)
    with pytest.raises(TermError, match="neither a Moodle grading worksheet"):
        read_times(_log(tmp_path), UTC, [A1])
    with pytest.raises(TermError, match="unknown key 'fakelms'"):
        load_calendar(graded.root / "course.toml", [A1])
    with pytest.raises(SystemExit) as exited:
        main(["export", "fakelms", "--course", str(graded.root)])
    assert exited.value.code == 2
    assert "invalid choice: 'fakelms'" in capsys.readouterr().err


class ExportOnlyLms(LmsPlugin):
    """An LMS the grader only exports to: no ``named_regexp``, its downloads never read."""

    name = "exportonly"
    title = "ExportOnly"
    description = "ExportOnly's (never read)"

    def export(self, gradebook) -> ExportReport:
        dest = self.to or self.default_to()
        write_csv(dest, [["user"], *([s] for s in self.student)])
        return ExportReport(dest=dest, rows=len(self.student))


@pytest.fixture
def export_only():
    register(ExportOnlyLms)
    yield ExportOnlyLms
    unregister(ExportOnlyLms.name)


def test_an_lms_without_intake_is_no_layout_of_grade(export_only, graded, tmp_path, capsys):
    """Issue 45: an LMS plugin without a ``named_regexp`` matched every file name (an empty
    pattern matches anything), so, tried before nbgrader's layout (the default order 100),
    it took every folder for its download and ``grade FOLDER`` failed with "file names do
    not follow the exportonly pattern". Now it is passed over, as nbgrader's
    FileNameCollectorPlugin collects nothing without its regexp: intake reads nbgrader's
    layout, ``grade --lms`` does not offer it, and ``export`` does."""
    folder = tmp_path / "submitted"
    notebook = folder / "alice" / A1 / f"{A1}.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_bytes(b"{}")
    # through the command line: intake reads the folder, and the run stops right after it
    # (--student names no one of the class: before anything is written)
    args = ["grade", str(folder), "--course", str(tmp_path / "grading"), "--unsandboxed"]
    status = main([*args, "--out", str(tmp_path / "out"), "--regrade", "--student", "nobody"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "--student nobody: no submission of that student in" in err, err
    assert not (tmp_path / "out").exists()
    assert not export_only().matches(f"{A1}.ipynb")
    assert [r.student for r in read_submissions(folder)] == ["alice"]
    with pytest.raises(SystemExit):
        build_parser().parse_args(["grade", str(folder), "--lms", "exportonly"])
    capsys.readouterr()
    assert export_only in lms_exporters() and export_only not in lms_intakes()
    dest = tmp_path / "exported.csv"
    assert main(["export", "exportonly", "--course", str(graded.root), "--out", str(dest)]) == 0
    assert dest.read_text().splitlines() == ["user", "101"]


def test_a_plugin_of_neither_intake_nor_export_is_refused():
    idle = type("Idle", (LmsPlugin,), {"name": "idle"})
    with pytest.raises(ValueError, match=r"neither a named_regexp \(intake\) nor an export"):
        register(idle)
    assert "idle" not in {p.name for p in lms_plugins()}


@pytest.mark.parametrize("name", ["auto", "nbgrader", "Fake LMS", "", "x" * 40])
def test_a_plugin_needs_a_name_of_its_own(name):
    plugin = type("Named", (LmsPlugin,), {"name": name})
    with pytest.raises(ValueError, match="not a name for an LMS plugin"):
        register(plugin)
    assert name not in {p.name for p in lms_plugins()}


def test_two_plugins_of_one_name_are_refused():
    canvas = type("Canvas2", (LmsPlugin,), {"name": "canvas"})
    with pytest.raises(ValueError, match="two LMS plugins named 'canvas'"):
        register(canvas)
    assert [p.__name__ for p in lms_plugins() if p.name == "canvas"] == ["CanvasPlugin"]


@pytest.mark.slow
def test_the_fake_lms_graded_and_exported_through_the_command_line(
    fake_lms, tmp_path, capsys, monkeypatch
):
    """Its zip graded by ``grade`` (the layout detected), late by its own log's time
    (course.toml: due a day before, 10 % a started day), its student named in grades.csv
    and in the feedback folder; then exported by ``export fakelms``."""
    course = tmp_path / "course"
    ensure_released(Course(course), [A1])
    release_nb = course / "release" / A1 / f"{A1}.ipynb"
    full = notebook_bytes(make_submission(release_nb, course / "source" / A1 / f"{A1}.ipynb"))
    (course / "course.toml").write_text(
        f'[late]\nrule = "per-day"\npercent = 10\n\n[assignments.{A1}]\n'
        f'due = 2025-10-02T23:59:00+02:00\nfakelms = "Hyperplanes"\n'
    )
    out = tmp_path / "out"
    args = ["grade", str(_fake_class(tmp_path, full)), "--course", str(course), "--out", str(out)]
    args += ["--assignment", A1, "--times", str(_log(tmp_path)), "--unsandboxed", "--no-progress"]
    status = main(args)
    assert status == 0, capsys.readouterr().err
    with (out / "grades.csv").open(newline="", encoding="utf-8") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    ann = rows["101"]
    assert ann["last_name"] == "Ann Lee" and rows["102"]["last_name"] == "Bo Ek"
    # the log's time; course.toml names no timezone, so the course's clock is UTC, marked
    assert ann["timestamp"] == "2025-10-03T21:59:00+00:00"
    raw, penalty = float(ann["raw_score"]), float(ann["late_submission_penalty"])
    assert raw > 0 and penalty == pytest.approx(raw * 0.1)
    assert (out / "feedback" / "101-Ann-Lee" / A1 / f"{A1}.html").is_file()
    monkeypatch.chdir(tmp_path)
    assert main(["export", "fakelms", "--course", str(course), "--fake-scale", "2"]) == 0
    written = list(csv.reader((tmp_path / "fakelms-grades.csv").open()))
    assert written[0] == ["user", "name", "Hyperplanes"]
    assert ["101", "Ann Lee", points(2 * (raw - penalty))] in written
