"""Diagnosis in the trusted re-check: what a failed exercise looks like.

After every test cell has been re-checked (the scores are decided), for each exercise whose
tests failed — and only then, a correct answer costs nothing — the student's function is
called on the probes of the exercise's catalogue (:mod:`autograder.misconceptions`), in the
student's sandboxed kernel through the channel, the way the test cells call it
(``linlib.grading.call_student`` with the ``disable`` and ``use_reference`` of the
exercise's test cells), with the re-check's time limits: a call gets the channel's
``call_timeout``, an exercise ``time_budget`` seconds, all of them ``total_budget``. Its
answers are matched against the catalogue: the misconception whose probe they match, or the
smallest probe on which the answer is not the rule's, or nothing — never a guess.

A diagnosis changes no score: the channel may not restart the kernel meanwhile (a probe
that hangs ends the diagnosis), and a function that hung during the tests is not called
(its record says so, with the catalogue's hint for a hang).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from autograder.misconceptions import (
    Catalogue,
    Observation,
    Unanswered,
    call_options,
    diagnose,
    exercise_of,
    observe_call,
)
from autograder.recheck.channel import (
    KernelCallTimeout,
    KernelChannel,
    KernelUnavailable,
    RemoteFunction,
)
from autograder.recheck.runner import CheckResult
from linlib.grading import call_student

__all__ = ["diagnose_failures", "failed_exercises"]

#: The re-check outcomes that mean "the function did not answer", not "it answered wrong".
_NO_ANSWER = ("KernelCallTimeout", "KernelUnavailable")


class _Stop(Exception):
    """A probe call could not be made (the kernel is gone, or the call timed out)."""


def failed_exercises(
    catalogue: Catalogue, results: Mapping[str, CheckResult]
) -> dict[str, list[str]]:
    """exercise -> the grade ids of its failed tests, for the catalogue's exercises, in the
    catalogue's order."""
    failed: dict[str, list[str]] = {}
    for grade_id, result in results.items():
        owner = exercise_of(grade_id, catalogue.exercises)
        if owner is not None and not result.passed:
            failed.setdefault(owner, []).append(grade_id)
    return {name: sorted(failed[name]) for name in catalogue.exercises if name in failed}


def diagnose_failures(
    catalogue: Catalogue,
    results: Mapping[str, CheckResult],
    tests: Mapping[str, str],
    channel: KernelChannel,
    *,
    time_budget: float = 30.0,
    total_budget: float = 60.0,
) -> dict[str, dict[str, Any]]:
    """exercise -> its diagnosis record, for every exercise of *catalogue* whose tests
    failed in *results* (the re-check's outcomes) and that shows something: a
    misconception, the smallest failing probe, or (a function that did not return in
    time during the tests) ``timed_out`` with the catalogue's hint. *tests*: grade id -> the
    full source of every test cell (how the tests call each function). Exercises left
    unanswered (the release's stub) get no record."""
    failed = failed_exercises(catalogue, results)
    if not failed:
        return {}
    options = call_options(tests, catalogue.exercises)
    records: dict[str, dict[str, Any]] = {}
    end = time.monotonic() + total_budget
    restart, channel.restart = channel.restart, None  # a hang here must not restart a kernel
    try:
        for name, grade_ids in failed.items():
            entry = catalogue.exercises[name]
            hung = channel.hung.get(name)
            if hung is not None or any(results[g].ename in _NO_ANSWER for g in grade_ids):
                if hung is not None:
                    records[name] = {
                        "exercise": name,
                        "misconception": None,
                        "timed_out": round(hung.seconds),
                        "hint": entry.timeout_hint,
                        "tests": grade_ids,
                    }
                continue
            budget = min(time_budget, end - time.monotonic())
            if budget <= 0 or channel.dead_reason is not None:
                break
            record = _diagnose_one(channel, entry, options[name], budget)
            if record is not None:
                record["tests"] = grade_ids
                records[name] = record
    finally:
        channel.restart = restart
        channel.deadline = None
    return records


def _diagnose_one(
    channel: KernelChannel,
    entry: Any,
    options: tuple[tuple[str, ...], dict[str, str]],
    budget: float,
) -> dict[str, Any] | None:
    disable, references = options
    function = RemoteFunction(channel, entry.name)

    def invoke(args: list[Any], kwargs: dict[str, Any]) -> Any:
        return call_student(function, *args, disable=disable, use_reference=references, **kwargs)

    def observe(call: str) -> Observation:
        observation = observe_call(call, entry.params, invoke)
        if isinstance(observation.error, KernelCallTimeout | KernelUnavailable):
            raise _Stop(str(observation.error))
        return observation

    channel.deadline = time.monotonic() + budget
    try:
        diagnosis = diagnose(entry, observe)
    except (Unanswered, _Stop):
        return None
    finally:
        channel.deadline = None
    return None if diagnosis is None else diagnosis.as_dict()
