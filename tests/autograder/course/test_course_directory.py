"""autograder.course.Course on its own: the course sent to a worker process, and the folder
made from a source (its notebooks copied, its nbgrader_config.py written)."""

from __future__ import annotations

import pickle

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course import Course


def test_a_course_pickles_to_the_same_course(tmp_path):
    course = Course(tmp_path, "sqlite:///elsewhere.db")
    again = pickle.loads(pickle.dumps(course))
    assert (again.root, again.db_url, again.config()) == (
        course.root,
        course.db_url,
        course.config(),
    )


def test_make_copies_the_source_and_writes_the_config(tmp_path):
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    (tmp_path / "src" / "a1").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "src" / "a1" / "a1.ipynb")
    course = Course(tmp_path / "c", "sqlite:///other.db").make(source_dir=tmp_path / "src")
    assert (course.source_dir("a1") / "a1.ipynb").is_file()
    text = (course.root / "nbgrader_config.py").read_text()
    assert "c.CourseDirectory.db_url = 'sqlite:///other.db?timeout=120'" in text
    assert course.submitted_dir("s", "a1") == course.root / "submitted" / "s" / "a1"
