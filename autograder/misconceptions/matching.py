"""A function's answers on an exercise's probes matched against its catalogued
misconceptions: the diagnosis of a failed exercise, never a guess."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autograder.misconceptions.catalogue import Exercise, Probe
from autograder.misconceptions.observation import Observation


@dataclass
class Diagnosis:
    """What a failed exercise looks like: the misconception whose probe the student's
    answers match (``misconception`` set), or the smallest probe call on which the answer
    differs from the rule (``misconception`` None), with what came back and what the rule
    gives."""

    exercise: str
    misconception: str | None
    call: str
    got: str
    rule: str
    says: str = ""
    hint: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "exercise": self.exercise,
            "misconception": self.misconception,
            "says": self.says,
            "hint": self.hint,
            "call": self.call,
            "got": self.got,
            "rule": self.rule,
        }


class Unanswered(Exception):
    """The function is still the release's stub (it raised NotImplementedError)."""


def diagnose(exercise: Exercise, observe: Callable[[str], Observation]) -> Diagnosis | None:
    """Match a function's answers on the exercise's probes against the catalogue.

    *observe* calls the function on a probe call (``Observation``; each call is observed
    once). Returns the first misconception (catalogue order) all of whose probe calls the
    answers match; else the failing probe call with the shortest text; else None (every
    probe gives the rule's answer). Raises :class:`Unanswered` when the first call raises
    ``NotImplementedError`` (an unanswered exercise has nothing to diagnose); exceptions
    of *observe* itself (a call that could not be made) propagate.
    """
    seen: dict[str, Observation] = {}

    def look(call: str) -> Observation:
        if call not in seen:
            seen[call] = observe(call)
            if len(seen) == 1 and isinstance(seen[call].error, NotImplementedError):
                raise Unanswered(exercise.name)
        return seen[call]

    for entry in exercise.misconceptions:
        shown = None
        for probe in entry.probes:
            observation = look(probe.call)
            if not probe.answer_matches(observation):
                break
            if shown is None and not probe.rule_matches(observation):
                shown = (probe, observation)  # the first call where it is not the rule's
        else:
            if shown is None:  # the catalogue's tests rule this out: never the rule's answers
                continue
            probe, observation = shown
            return Diagnosis(
                exercise.name,
                entry.id,
                probe.call,
                observation.describe(),
                probe.rule.describe(),
                entry.says,
                entry.hint,
            )
    rules = exercise.rules()
    failing = []
    for call in exercise.calls():
        observation = look(call)
        probe = Probe(call, rules[call], None, {})
        if not probe.rule_matches(observation):
            failing.append((len(call), call, observation))
    if not failing:
        return None
    _, call, observation = min(failing, key=lambda f: (f[0], f[1]))
    return Diagnosis(exercise.name, None, call, observation.describe(), rules[call].describe())
