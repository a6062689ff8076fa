"""autograder.options: a grading run's options are one frozen object."""

from __future__ import annotations

import dataclasses

import pytest

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
