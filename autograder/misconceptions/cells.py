"""An exercise's test cells: which exercise a test cell belongs to, and how the exercise's
test cells call its function."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def exercise_of(test: str, exercises: Iterable[str]) -> str | None:
    """The exercise a test cell belongs to: its grade id starts with the exercise's name
    and ``_`` (the longest such name)."""
    owners = [name for name in exercises if test.startswith(name + "_")]
    return max(owners, key=len) if owners else None


def call_options(
    tests: Mapping[str, str], exercises: Iterable[str]
) -> dict[str, tuple[tuple[str, ...], dict[str, str]]]:
    """exercise -> ``(disable, use_reference)``: how its test cells call its function
    (``linlib.grading.call_student``'s keywords, read from the cells' full sources without
    running them; every call of an exercise's cells counts). A name used as a reference is
    not also disabled (``call_student`` refuses that)."""
    from autograder.notebook import disabled_names, used_references

    exercises = list(exercises)
    disable: dict[str, set[str]] = {name: set() for name in exercises}
    references: dict[str, dict[str, str]] = {name: {} for name in exercises}
    for grade_id, source in tests.items():
        owner = exercise_of(grade_id, exercises)
        if owner is None:
            continue
        disable[owner] |= disabled_names(source)
        references[owner].update(used_references(source))
    return {
        name: (
            tuple(sorted(disable[name] - set(references[name].values()))),
            references[name],
        )
        for name in exercises
    }
