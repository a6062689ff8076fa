"""autograder.course.Course on its own: the course sent to a worker process, and the folder
made from a source (its notebooks copied, its nbgrader_config.py written; a full disk the
OSError it is)."""

from __future__ import annotations

import errno
import pickle
import shutil

import nbformat
import pytest
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


def test_a_full_disk_while_the_source_is_copied_is_the_oserror_it_is(tmp_path, monkeypatch):
    """Issue 45: shutil.copytree went on past a full disk and raised one shutil.Error listing
    every failed file as text, which the command line cannot tell a full disk by (a
    traceback, not its one line: autograder.faults). Now the copy stops at the first
    failure and raises it as it is: ENOSPC, naming the file written; the files after it
    are not tried. (The same for MathJax's folders: course_common.assets.copy_tree.)"""
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    (tmp_path / "src" / "a1" / "data").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "src" / "a1" / "a1.ipynb")
    for name in ("a.csv", "b.csv", "c.csv"):
        (tmp_path / "src" / "a1" / "data" / name).write_text("1\n")
    (tmp_path / "src" / "a1" / "__pycache__").mkdir()
    (tmp_path / "src" / "a1" / "__pycache__" / "x.pyc").write_bytes(b"")
    tried: list[str] = []
    copyfile = shutil.copyfile

    def full_after_two(src: str, dst: str, **kwargs: object) -> object:
        tried.append(dst)
        if len(tried) > 2:
            raise OSError(errno.ENOSPC, "No space left on device", dst)
        return copyfile(src, dst, **kwargs)

    monkeypatch.setattr(shutil, "copyfile", full_after_two)
    course = Course(tmp_path / "c", "sqlite:///other.db")
    with pytest.raises(OSError) as raised:
        course.make(source_dir=tmp_path / "src")
    assert type(raised.value) is OSError and raised.value.errno == errno.ENOSPC
    assert raised.value.filename == tried[-1] and len(tried) == 3
    monkeypatch.setattr(shutil, "copyfile", copyfile)
    course.make(source_dir=tmp_path / "src")  # with room: the whole source, no cache
    copied = sorted(
        p.relative_to(course.source_dir("a1")).as_posix()
        for p in course.source_dir("a1").rglob("*")
        if p.is_file()
    )
    assert copied == ["a1.ipynb", "data/a.csv", "data/b.csv", "data/c.csv"]
