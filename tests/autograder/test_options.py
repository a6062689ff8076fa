"""autograder.options: a grading run's options are one frozen object, and its safe default
(the sandbox on) has one home: a direct call of the grading layer that does not say
otherwise grades in the sandbox, down to what each grading worker is started with and what
each task runs with."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from typing import ClassVar

import pytest
from nbgrader.preprocessors import Execute

from autograder import api, grading
from autograder.course import Course
from autograder.grading import autograde_config, grade_prepared
from autograder.grading import batch as batch_module
from autograder.grading.pool import Outcome
from autograder.grading.prewarm import PrewarmedExecute
from autograder.grading.safe_execute import SafeExecute
from autograder.models import PreparedSubmission
from autograder.options import GradeOptions, IntakeLimits


def test_the_options_are_frozen():
    options = GradeOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.sandbox = False  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.limits.max_files = 1  # type: ignore[misc]
    assert options.sandbox is True  # unchanged by the attempts
    # a step that needs other options makes its own copy; the caller's stay as they were
    unsandboxed = dataclasses.replace(options, sandbox=False)
    assert unsandboxed.sandbox is False and options.sandbox is True


def test_students_to_regrade_are_frozen_too():
    students = ["ann", "bob"]
    options = GradeOptions(regrade=students)
    students.append("eve")  # the caller's list changes later
    assert options.regrade == frozenset({"ann", "bob"})
    assert GradeOptions(regrade=True).regrade is True
    assert GradeOptions().regrade is False
    hash(options)  # every field frozen: the options can be a key


def test_intake_limits_from_the_command_line():
    assert IntakeLimits.from_options() == IntakeLimits()
    limits = IntakeLimits.from_options(max_files=3, max_file_mb=2, max_total_mb=0.5)
    assert (limits.max_files, limits.max_file_bytes, limits.max_total_bytes) == (
        3,
        2 * 1024 * 1024,
        512 * 1024,
    )
    assert limits.max_ratio == IntakeLimits().max_ratio


class _RecordingPool:
    """The grading layer's worker pool, running nothing: it records what each worker would
    be started with (the initializer's arguments) and each task's arguments, and reports
    every task failed."""

    def __init__(self, workers: int, *, log_dir, initializer, initargs) -> None:
        self.initializer, self.initargs = initializer, initargs
        self.tasks: list = []
        _RecordingPool.made.append(self)

    made: ClassVar[list[_RecordingPool]] = []

    def __enter__(self) -> _RecordingPool:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def run(self, tasks):
        for task in tasks:
            self.tasks.append(task)
            yield Outcome(task.key, ok=False, error="not run")


@pytest.mark.parametrize(
    ("given", "sandboxed"),
    [(None, True), (GradeOptions(sandbox=False), False)],
    ids=["none", "off"],
)
def test_a_direct_call_of_the_grading_layer_grades_in_the_sandbox(
    tmp_path, monkeypatch, given, sandboxed
):
    """``grade_prepared`` called with no options: the workers start their warm kernels for
    the sandbox (the warm box) and every task's options put the sandbox's ``SafeExecute``
    in nbgrader's ``Execute``'s place; saying ``sandbox=False`` is what turns it off."""
    monkeypatch.setattr(_RecordingPool, "made", [])
    monkeypatch.setattr(batch_module, "WorkerPool", _RecordingPool)
    course = Course(tmp_path / "course")
    course.root.mkdir()
    submissions = [
        PreparedSubmission(student, "02_x", notebooks={"02_x.ipynb": b"{}"})
        for student in ("ann", "bob")
    ]
    results = grade_prepared(course, submissions, given)
    assert [r.ok for r in results.values()] == [False, False]  # nothing ran
    (pool,) = _RecordingPool.made  # one pool for the batch
    _, worker_options = pool.initargs
    assert worker_options.sandbox is sandboxed
    assert len(pool.tasks) == len(submissions)
    for task in pool.tasks:
        _, _, _, options, prewarm, *_ = task.args  # autograde_task's
        assert isinstance(options, GradeOptions) and options.sandbox is sandboxed
        config = autograde_config(course, options, prewarm=prewarm)  # what the task builds
        steps = config.Autograde.autograde_preprocessors
        executes = [step for step in steps if issubclass(step, Execute)]
        assert executes == ([SafeExecute] if sandboxed else [PrewarmedExecute])


def _functions(module) -> list:
    """The functions and classes defined in *module* (not imported into it), and the
    methods of those classes."""
    found = []
    for _, value in inspect.getmembers(module):
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            found.append(value)
        elif inspect.isclass(value):
            found += [v for _, v in inspect.getmembers(value, inspect.isfunction)]
    return found


def test_no_function_of_the_use_cases_or_the_grading_layer_takes_a_sandbox_flag():
    """The sandbox travels in the options: no function of ``autograder.api`` or of a module of
    ``autograder.grading`` has a parameter of its own for it (nor a default to get wrong)."""
    modules = [api] + [
        importlib.import_module(f"{grading.__name__}.{info.name}")
        for info in pkgutil.iter_modules(grading.__path__)
    ]
    assert len(modules) > 10
    flagged = [
        f"{function.__module__}.{function.__qualname__}"
        for module in modules
        for function in _functions(module)
        if "sandbox" in inspect.signature(function).parameters
    ]
    assert flagged == []
