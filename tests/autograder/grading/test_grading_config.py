"""Every preprocessor the grader configures is on where nbgrader and nbconvert register it.

nbconvert's ``Preprocessor`` is off by default (``enabled`` False): an exporter switches on
only its own ``preprocessors`` list, and nbgrader's converters register their lists without
switching anything on, so an nbconvert preprocessor put into a converter's list is silently
skipped (the feedback sanitiser once was). Here each list is registered by the real code
(nbgrader's ``Autograde._init_preprocessors``, the two lines of ``BaseConverter.start``,
nbconvert's ``HTMLExporter`` as formgrader builds it) and every registered preprocessor
that stock nbgrader has on, and every one of ours, must be on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder.course import Course
from autograder.feedback.sanitise import CleanMarkdown, SanitiseNotebook
from autograder.grading import autograde_config, feedback_config
from autograder.options import GradeOptions


def _ours(preprocessor: object) -> bool:
    return type(preprocessor).__module__.startswith("autograder.")


def _autograde_steps(config: Config) -> list:
    """What nbgrader's Autograde registers for its two passes (sanitize, then autograde)."""
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    app = Autograde(coursedir=CourseDirectory(config=config), config=config)
    app.exporter = app.exporter_class(parent=app, config=app.config)
    steps = []
    for sanitizing in (True, False):
        app._sanitizing = sanitizing
        app._init_preprocessors()
        steps += list(app.exporter._preprocessors)
    return steps


def _feedback_steps(config: Config) -> list:
    """What GenerateFeedback registers (nbgrader's BaseConverter.start)."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory

    app = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = app.exporter_class(parent=app, config=app.config)
    for preprocessor in app.preprocessors:
        exporter.register_preprocessor(preprocessor)
    return list(exporter._preprocessors)


def _course_file_config(course_dir: Path) -> Config:
    """The course directory's nbgrader_config.py after formgrader's own settings, as the
    Jupyter server loads them."""
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension

    config = FormgradeExtension().build_extra_config()
    config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config())
    return config


@pytest.mark.parametrize(("sandbox", "prewarm"), [(True, True), (False, True), (False, False)])
def test_autograde_runs_everything_it_lists(tmp_path, sandbox, prewarm):
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory

    options = GradeOptions(sandbox=sandbox)
    steps = _autograde_steps(autograde_config(Course(tmp_path), options, prewarm=prewarm))
    assert [type(p).__name__ for p in steps if _ours(p)]  # the check below is not empty
    assert [p for p in steps if _ours(p) and not p.enabled] == []
    # nothing is off that stock nbgrader runs
    stock = Autograde(coursedir=CourseDirectory(config=Config()), config=Config())
    stock.exporter = stock.exporter_class(parent=stock, config=stock.config)
    stock_steps = []
    for sanitizing in (True, False):
        stock._sanitizing = sanitizing
        stock._init_preprocessors()
        stock_steps += list(stock.exporter._preprocessors)
    stock_on = {type(p).__name__ for p in stock_steps if p.enabled}
    off = {type(p).__name__ for p in steps if not p.enabled}
    assert off.isdisjoint(stock_on), off


@pytest.mark.parametrize(("sandbox", "prewarm"), [(True, True), (False, True), (False, False)])
def test_the_late_penalty_is_left_to_the_term(tmp_path, sandbox, prewarm):
    """Issue 45: nbgrader's AssignLatePenalties ran in the grader's autograde list, setting
    every graded notebook's late penalty to none (its LateSubmissionPlugin's "none"), and the
    term wrote it again after the run: two owners of one column. Now nbgrader's step is not
    in the list; the term (autograder.term.settle) alone writes the penalty. Every other
    step of nbgrader's autograde list is still there, in its order."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import AssignLatePenalties, Execute

    config = autograde_config(Course(tmp_path), GradeOptions(sandbox=sandbox), prewarm=prewarm)
    assert not [p for p in _autograde_steps(config) if isinstance(p, AssignLatePenalties)]
    stock = [
        step
        for step in Autograde.class_traits()["autograde_preprocessors"].default()
        if step is not AssignLatePenalties
    ]
    listed = list(config.Autograde.autograde_preprocessors)
    found = [next(t for t in listed if issubclass(t, step)) for step in stock]
    assert [listed.index(t) for t in found] == sorted(listed.index(t) for t in found)
    assert issubclass(found[stock.index(Execute)], Execute)


def test_feedback_runs_everything_it_lists(tmp_path):
    steps = _feedback_steps(feedback_config(Course(tmp_path)))
    assert [p for p in steps if not p.enabled] == []
    names = [type(p).__name__ for p in steps]
    for name in ("GetGrades", "RedactHiddenTests", "HideGraderPaths", "SanitiseNotebook"):
        assert name in names
    # the sanitiser runs after every preprocessor that reads or rewrites the notebook
    assert names.index("SanitiseNotebook") > max(
        names.index(n) for n in ("GetGrades", "RedactHiddenTests", "HideGraderPaths")
    )


def test_formgrader_runs_the_sanitiser_in_its_view_and_its_feedback(tmp_path):
    """The course directory's nbgrader_config.py, as formgrader loads it: its submission
    view (nbconvert's HTMLExporter) and its "Generate feedback" (GenerateFeedback)."""
    from nbconvert.exporters import HTMLExporter

    course = Course(tmp_path / "course").make([])
    config = _course_file_config(course.root)
    view = HTMLExporter(config=config)
    assert [type(p) for p in view._preprocessors if p.enabled].count(SanitiseNotebook) == 1
    assert isinstance(view.environment.filters["markdown2html"], CleanMarkdown)
    steps = _feedback_steps(config)
    assert [p for p in steps if not p.enabled] == []
    assert [type(p) for p in steps].count(SanitiseNotebook) == 1


def test_a_sanitiser_switched_off_by_configuration_stays_on(tmp_path):
    """``enabled`` is not configurable on the sanitiser: a course's config cannot turn the
    feedback page's cleaning off."""
    config = feedback_config(Course(tmp_path))
    config.SanitiseNotebook.enabled = False
    steps = _feedback_steps(config)
    assert [p.enabled for p in steps if isinstance(p, SanitiseNotebook)] == [True]
