"""The release zip a student gets: its files, the linlib wheel, pins, README, dates.

Building an environment from the zip and using it (in a terminal and in a browser) is
tested in ``tests/e2e/test_student_release.py``.
"""

from __future__ import annotations

import datetime
import json
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.course import Course, list_assignments
from autograder.notebook import rubrics
from autograder.release import ensure_released, release_course, student, zips
from course_common.paths import REPO_ROOT
from course_common.rubric import RUBRIC_HEADING, is_written_answer

pytestmark = pytest.mark.slow  # releases with zips and wheels: seconds a test

ASSIGNMENT = "01_hyperplanes"
EPOCH = 1_795_000_000  # 2026-11-18 11:06:40 UTC
REPO = REPO_ROOT


def _release(course: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    return release_course(course, [ASSIGNMENT])[ASSIGNMENT]


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _release(tmp_path_factory.mktemp("course"), monkeypatch)


def _members(zip_path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(zip_path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _wheel(released: Path) -> tuple[str, bytes]:
    (name,) = [n for n in _members(released) if n.endswith(".whl")]
    return name, _members(released)[name]


def test_zip_holds_what_a_student_needs(released):
    names = sorted(_members(released))
    # the student build of the assignment: its name in the version's local label
    version = f"{student._project()['version']}+1.hyperplanes"
    wheel = f"{ASSIGNMENT}/linlib-{version}-py3-none-any.whl"
    assert names == sorted(
        [
            f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
            f"{ASSIGNMENT}/README.md",
            f"{ASSIGNMENT}/nbgrader_config.py",
            f"{ASSIGNMENT}/requirements.txt",
            wheel,
        ]
    )


def test_every_file_carries_the_release_date(released):
    expected = datetime.datetime.fromtimestamp(EPOCH, tz=datetime.UTC)
    with zipfile.ZipFile(released) as archive:
        dates = {info.date_time for info in archive.infolist()}
    assert dates == {expected.timetuple()[:6]}
    _, wheel_bytes = _wheel(released)
    wheel_path = released.parent / "wheel.whl"
    wheel_path.write_bytes(wheel_bytes)
    with zipfile.ZipFile(wheel_path) as archive:
        wheel_dates = {info.date_time for info in archive.infolist()}
    assert {d[:3] for d in wheel_dates} == {(expected.year, expected.month, expected.day)}


def test_same_release_date_gives_the_same_zip(released, tmp_path, monkeypatch):
    again = _release(tmp_path / "course", monkeypatch)
    assert again.read_bytes() == released.read_bytes()


def test_wheel_is_linlib_only_with_real_metadata(released, tmp_path):
    name, data = _wheel(released)
    path = tmp_path / Path(name).name
    path.write_bytes(data)
    with zipfile.ZipFile(path) as archive:
        files = archive.namelist()
        meta = Parser().parsestr(
            archive.read(next(f for f in files if f.endswith(".dist-info/METADATA"))).decode()
        )
        page_config = [f for f in files if f.endswith(student.PAGE_CONFIG_NAME)]
        assert len(page_config) == 1
        config = json.loads(archive.read(page_config[0]))
    modules = {f for f in files if f.startswith("linlib/")}
    source = {p.relative_to(REPO).as_posix() for p in (REPO / "linlib").glob("*.py")} | {
        "linlib/data/messages.tsv"
    }
    assert modules == source  # no generator script, no bytecode, nothing of the autograder
    assert not any(f.startswith("autograder") for f in files)
    assert meta["Name"] == "linlib"
    assert meta["Version"].endswith("+1.hyperplanes")  # pip show linlib: whose build it is
    with (REPO / "pyproject.toml").open("rb") as handle:
        declared = tomllib.load(handle)["project"]["dependencies"]
    # as the wheel's metadata writes them (a bound's specifiers in packaging's order)
    assert sorted(meta.get_all("Requires-Dist")) == sorted(str(Requirement(d)) for d in declared)
    assert {canonicalize_name(Requirement(d).name) for d in declared} >= {
        "numpy",
        "scipy",
        "scikit-learn",
        "matplotlib",
        "quadprog",
    }
    # installed into <env>/etc/jupyter/labconfig/page_config.d/, where JupyterLab reads it
    assert page_config[0].endswith(f"data/{student.PAGE_CONFIG_DIR}/{student.PAGE_CONFIG_NAME}")
    disabled = {k for k, v in config["disabledExtensions"].items() if v}
    assert disabled == {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:assignment-list",
        "@jupyter/nbgrader:course-list",
        "@jupyter/nbgrader:menu",
        "@jupyterlab/apputils-extension:announcements",  # the "Jupyter news?" toast
    }
    # installed beside nbgrader's nbgrader.json in <env>/etc/jupyter/jupyter_server_config.d/
    # and read after it: the instructor's server extensions off, validate on
    server_config = [f for f in files if f.endswith(student.SERVER_CONFIG_NAME)]
    assert len(server_config) == 1
    assert server_config[0].endswith(
        f"data/{student.SERVER_CONFIG_DIR}/{student.SERVER_CONFIG_NAME}"
    )
    assert student.SERVER_CONFIG_NAME > "nbgrader.json"
    with zipfile.ZipFile(path) as archive:
        extensions = json.loads(archive.read(server_config[0]))["ServerApp"]["jpserver_extensions"]
    assert extensions == {
        "nbgrader.server_extensions.formgrader": False,
        "nbgrader.server_extensions.assignment_list": False,
        "nbgrader.server_extensions.course_list": False,
    }


def test_requirements_pin_exactly_what_ci_uses(released):
    text = _members(released)[f"{ASSIGNMENT}/requirements.txt"].decode()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0] == f"./{Path(_wheel(released)[0]).name}"
    repo_pins = set((REPO / "requirements.txt").read_text().splitlines())
    assert set(lines[1:]) <= repo_pins
    names = {canonicalize_name(Requirement(line).name) for line in lines[1:]}
    assert {"numpy", "scikit-learn", "matplotlib", "quadprog", "jupyterlab", "nbgrader"} <= names
    # the project's own tools are not the student's
    assert not names & {"pytest", "ruff", "playwright", "hypothesis", "nbval", "pytest-xdist"}


def test_readme_names_the_commands_of_the_three_systems(released):
    text = _members(released)[f"{ASSIGNMENT}/README.md"].decode()
    notebook = f"{ASSIGNMENT}.ipynb"
    assert "Python 3.11" in text
    assert "python3.11 -m venv .venv" in text
    assert f".venv/bin/jupyter lab {notebook}" in text
    assert "py -3.11 -m venv .venv" in text
    assert f".venv\\Scripts\\jupyter lab {notebook}" in text
    # the terminal's check (linlib.validate: each failing test with its whole message)
    assert f".venv/bin/python -m linlib.validate {notebook}" in text
    assert f".venv\\Scripts\\python -m linlib.validate {notebook}" in text
    assert "pip install -r requirements.txt" in text
    assert len(text.splitlines()) <= 40


def test_student_nbgrader_config_loads(released, tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    (tmp_path / "nbgrader_config.py").write_bytes(
        _members(released)[f"{ASSIGNMENT}/nbgrader_config.py"]
    )
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert config.CourseDirectory.course_id == "linear-classifiers"


def test_release_notebook_says_what_to_do_if_linlib_is_missing(released):
    nb = nbformat.reads(
        _members(released)[f"{ASSIGNMENT}/{ASSIGNMENT}.ipynb"].decode(), as_version=4
    )
    first = nb.cells[0]
    assert first.cell_type == "markdown"
    assert "import linlib" in first.source and "README.md" in first.source


def test_zip_written_again_when_linlib_or_pins_change(tmp_path, monkeypatch):
    """grade and demo release without forcing: an unchanged source keeps its zip, but a
    zip whose wheel or pins are out of date (linlib, pyproject.toml, requirements.txt
    changed) is written again."""
    course = tmp_path / "course"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    ensure_released(Course(course), [ASSIGNMENT])
    zip_path = course / "release" / f"{ASSIGNMENT}.zip"
    first = zip_path.read_bytes()

    def dates() -> set:
        with zipfile.ZipFile(zip_path) as archive:
            return {info.date_time for info in archive.infolist()}

    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH + 86_400))
    ensure_released(Course(course), [ASSIGNMENT])
    assert zip_path.read_bytes() == first, "nothing changed: the zip must stay as it was"
    monkeypatch.setattr(zips, "_student_files_digest", lambda: "linlib changed")
    ensure_released(Course(course), [ASSIGNMENT])
    assert zip_path.read_bytes() != first
    later = datetime.datetime.fromtimestamp(EPOCH + 86_400, tz=datetime.UTC)
    assert dates() == {later.timetuple()[:6]}


def _with_rubrics() -> list[str]:
    """The assignments whose source notebook has a written answer with a rubric."""
    return [
        name
        for name in list_assignments()
        if rubrics(nbformat.read(REPO / "notebooks" / name / f"{name}.ipynb", as_version=4))
    ]


@pytest.mark.slow
def test_written_answers_reach_students_without_their_rubric(tmp_path, monkeypatch):
    """nbgrader replaces a written answer's whole cell by its stub in the release, so the
    grader's rubric (below the model answer in the source) is in neither the released
    notebook nor the zip a student gets."""
    names = _with_rubrics()
    if not names:
        pytest.skip("no written answer with a rubric")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    released_zips = release_course(tmp_path / "course", names)
    for name in names:
        source = nbformat.read(REPO / "notebooks" / name / f"{name}.ipynb", as_version=4)
        lines = [
            line.strip()
            for rubric in rubrics(source).values()
            for line in rubric.splitlines()
            if len(line.strip()) > 20
        ]
        released = (tmp_path / "course" / "release" / name / f"{name}.ipynb").read_text()
        handed_out = _members(released_zips[name])[f"{name}/{name}.ipynb"].decode("utf-8")
        for text in (released, handed_out):
            nb = nbformat.reads(text, as_version=4)
            answers = [c for c in nb.cells if is_written_answer(c)]
            assert answers and all(c.source == "YOUR ANSWER HERE" for c in answers), name
            content = "\n".join(cell.source for cell in nb.cells)
            assert RUBRIC_HEADING not in content and "Typical partial answers" not in content
            leaked = [line for line in lines if line in content]
            assert not leaked, f"{name}: rubric lines in the release: {leaked[:3]}"
