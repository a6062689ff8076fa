"""autograder.source: a foreign course's source, and the one line (exit 2) for what cannot be
graded, said through ``python -m autograder`` before anything is built or written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.__main__ import main
from autograder.source import CourseSource, SourceError
from tests.autograder.foreign_courses import DOCS_COURSE, ODD_IDS, check, write_style_course


def _cli(capsys, *args: str | Path) -> tuple[int, list[str]]:
    status = main([str(a) for a in args])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    return status, lines


def _refused(capsys, tmp_path: Path, source: Path, *words: str) -> None:
    """``grade`` and ``release`` with ``--source`` *source* exit 2 with one line holding
    *words*, and write nothing."""
    submitted = tmp_path / "submitted"
    submitted.mkdir(exist_ok=True)
    course, out = tmp_path / "course", tmp_path / "out"
    for args in (
        ("grade", submitted, "--unsandboxed"),
        ("release",),
    ):
        status, lines = _cli(
            capsys,
            *args,
            "--source",
            source,
            "--course",
            course,
            *(["--out", out][: 2 * (args[0] == "grade")]),
        )
        assert status == 2, lines
        assert len(lines) == 1 and lines[0].startswith("python -m autograder: error: --source"), (
            lines
        )
        for word in words:
            assert word in lines[0], lines
        assert not course.exists() and not out.exists()


def test_the_documentation_course_is_read_as_nbgrader_reads_it():
    source = CourseSource.open(DOCS_COURSE)
    assert source.assignments() == ["ps1"]
    assert source.notebooks("ps1") == ["problem1", "problem2"]
    assert source.header_footer() == {"header": DOCS_COURSE / "source" / "header.ipynb"}
    assert source.config().CourseDirectory.course_id == "example_course"
    # the source folder itself names the same course
    assert CourseSource.open(DOCS_COURSE / "source").same_as(source)


def test_a_source_without_nbgrader_config_is_refused(capsys, tmp_path):
    course = tmp_path / "theirs"
    shutil.copytree(DOCS_COURSE / "source", course / "source")
    _refused(capsys, tmp_path, course, "nbgrader_config.py")
    _refused(capsys, tmp_path, course / "source", "nbgrader_config.py")
    _refused(capsys, tmp_path, tmp_path / "nowhere", "no such folder")


def test_a_notebook_that_is_not_a_notebook_is_refused(capsys, tmp_path):
    course = write_style_course(tmp_path / "theirs")
    (course / "source" / "hw2" / "triangle.ipynb").write_text('{"cells": [')
    _refused(capsys, tmp_path, course, "hw2/triangle.ipynb", "not a Jupyter notebook")


def test_an_assignment_without_graded_cells_is_refused(capsys, tmp_path):
    course = write_style_course(tmp_path / "theirs")
    plain = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    path = course / "source" / "hw2" / "triangle.ipynb"
    nbformat.write(plain, path)
    _refused(capsys, tmp_path, course, "hw2/", "no graded cell")


def test_a_grade_id_in_two_notebooks_is_nbgraders_to_allow(capsys, tmp_path):
    """nbgrader's grade ids are unique within a notebook only: an id copied into another
    assignment, or into another notebook of the same one, is read; the same id twice in one
    notebook is refused, as nbgrader refuses it, in one line."""
    course = write_style_course(tmp_path / "theirs")
    path = course / "source" / "hw2" / "triangle.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(check("assert True", "zscores", 1))  # hw1's answer cell's id
    nbformat.write(nb, path)
    essay = course / "source" / "hw1" / "essay.ipynb"
    other = nbformat.read(essay, as_version=4)
    other.cells.append(check("assert True", "p_value_test", 1))  # hw1/analysis's test's id
    nbformat.write(other, essay)
    assert CourseSource.open(course).assignments() == ["hw1", "hw2"]
    nb.cells.append(check("assert 1", "hyp_test", 1))  # triangle's own test's id again
    nbformat.write(nb, path)
    _refused(
        capsys, tmp_path, course, "hw2/triangle.ipynb", "Duplicate grade id: hyp_test",
        "unique within a notebook",
    )  # fmt: skip


@pytest.mark.parametrize("odd", ODD_IDS)
def test_grade_ids_nbgrader_refuses_are_refused_in_one_line(capsys, tmp_path, odd):
    course = write_style_course(tmp_path / "theirs")
    path = course / "source" / "hw2" / "triangle.ipynb"
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "hyp_zero":
            cell["metadata"]["nbgrader"]["grade_id"] = odd
    path.write_text(json.dumps(nb))
    _refused(capsys, tmp_path, course, "hw2/triangle.ipynb", repr(odd), "letters, digits")


def test_hidden_test_markers_of_the_courses_own_are_refused(tmp_path):
    course = write_style_course(tmp_path / "theirs")
    with (course / "nbgrader_config.py").open("a") as fh:
        fh.write('c.ClearHiddenTests.begin_test_delimeter = "BEGIN SECRET"\n')
    with pytest.raises(SourceError, match="hidden-test markers"):
        CourseSource.open(course)
