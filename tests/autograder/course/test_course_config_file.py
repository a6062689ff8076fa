"""autograder.course.config_file: the course folder's ``nbgrader_config.py`` loads as nbgrader
loads it and names only what exists — each name it imports is where the grader's code has
it, and each class or function its settings hold is found again by its name. (What
formgrader does with it: tests/autograder/grading/test_grading_config.py and
tests/autograder/test_hostile_formgrader.py.)"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader
from traitlets.utils.importstring import import_item

from autograder.course import Course
from autograder.feedback.sanitise import SafeHTMLExporter, SanitiseNotebook
from autograder.grading.config import formgrader_config
from autograder.grading.preprocessors import ShowRubric

#: An import line of the file: (module, name).
IMPORT = re.compile(r"^from (\S+) import (\S+)", re.M)


def _load(course_dir: Path) -> Config:
    return PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config()


def _held(config: Config) -> list:
    """Every class or function the settings hold (in lists and dicts too)."""
    found, stack = [], [config]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif callable(item):
            found.append(item)
    return found


def test_the_config_loads_and_names_what_exists(tmp_path):
    course = Course(tmp_path / "course").make([])
    text = (course.root / "nbgrader_config.py").read_text()
    imported = IMPORT.findall(text)
    for module, name in imported:
        assert hasattr(importlib.import_module(module), name), f"from {module} import {name}"
    # named from the objects themselves: where the code has them now
    assert (Course.__module__, Course.__qualname__) in imported
    assert (formgrader_config.__module__, formgrader_config.__qualname__) in imported
    held = _held(_load(course.root))
    for expected in (ShowRubric, SanitiseNotebook, SafeHTMLExporter):
        assert expected in held  # formgrader's view and its feedback pages, as the grader's
    for item in held:
        assert import_item(f"{item.__module__}.{item.__qualname__}") is item


def test_a_stock_config_names_nothing_of_the_grader(tmp_path):
    """The benchmark's baseline: the course's own settings, for stock nbgrader alone."""
    course = Course(tmp_path / "course").make([], stock=True)
    text = (course.root / "nbgrader_config.py").read_text()
    assert IMPORT.findall(text) == []
    config = _load(course.root)
    assert config.CourseDirectory.db_url == course.db_url
    assert _held(config) == []
