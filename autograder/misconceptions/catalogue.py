"""A catalogue's entries: an assignment's exercises, the misconceptions of each and the
probes that show them, each probe's call with the rule's answer and the misconception's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from autograder.misconceptions.observation import Observation
from autograder.misconceptions.patterns import Pattern


@dataclass(frozen=True)
class Probe:
    """One call of a misconception's probe and the answers on it."""

    call: str
    rule: Pattern
    answer: Pattern | None
    changes: Mapping[str, Pattern] = field(default_factory=dict)

    def rule_matches(self, observation: Observation) -> bool:
        """The observation is what the rule gives: its value, no argument changed, and no
        argument handed back as itself (the rule's results are new objects)."""
        return (
            not observation.changed
            and not observation.returned_arguments()
            and self.rule.matches(observation)
        )

    def answer_matches(self, observation: Observation) -> bool:
        """The observation is this misconception's answer on the call: its value (when the
        probe gives one), and exactly the arguments it changes, changed as given."""
        if self.answer is not None and not self.answer.matches(observation):
            return False
        if set(observation.changed) != set(self.changes):
            return False
        return all(
            pattern.value_matches(observation.changed[name], observation)
            for name, pattern in self.changes.items()
        )


@dataclass(frozen=True)
class Misconception:
    """A typical wrong idea of one exercise: its id, one sentence in the student's terms,
    a hint that points to where the notebook settles it, and its probe."""

    id: str
    says: str
    hint: str
    probes: tuple[Probe, ...]


@dataclass(frozen=True)
class Exercise:
    """An exercise's entry: the graded function, its parameters, its misconceptions."""

    name: str
    params: tuple[str, ...]
    misconceptions: tuple[Misconception, ...]
    timeout_hint: str = ""

    def calls(self) -> list[str]:
        """Every probe call of the exercise, once, in catalogue order."""
        return list(dict.fromkeys(p.call for m in self.misconceptions for p in m.probes))

    def rules(self) -> dict[str, Pattern]:
        """call -> the rule's answer on it."""
        return {p.call: p.rule for m in self.misconceptions for p in m.probes}

    def get(self, misconception: str) -> Misconception:
        for entry in self.misconceptions:
            if entry.id == misconception:
                return entry
        raise KeyError(f"{self.name}: no misconception {misconception!r}")


@dataclass(frozen=True)
class Catalogue:
    """The misconceptions of one assignment's exercises."""

    assignment: str
    exercises: dict[str, Exercise]
    path: Path | None = None
