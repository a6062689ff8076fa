"""The catalogues of misconceptions (``notebooks/NN_name/misconceptions.toml``), checked
against the notebooks and the sample answers, in this process (no kernel, no grading):

* every code exercise has an entry with at least three misconceptions, each with a sentence,
  a hint and a probe;
* every buggy sample of :mod:`autograder.samples` is labelled with a misconception of its
  exercise, every misconception labels at least one sample (its model), and correct
  samples carry no label;
* the rule: the notebook's own solution gives the catalogue's rule answer on every probe
  call, changes none of its arguments, and never gives a misconception's answer;
* each misconception's probe tells it apart: its samples give its answer on every call of
  its probe, no sample of another misconception (nor a correct sample) does, so
  :func:`autograder.misconceptions.diagnose` names each buggy sample's own misconception
  and nothing for a correct one;
* probes are not hidden tests: no probe call has the arguments of a hidden test's call.

``tests/notebooks/test_notebooks_grading.py`` checks the same diagnoses through the real
grader (``python -m autograder grade``, the student's function in the sandboxed kernel).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from autograder.misconceptions import (
    Catalogue,
    Exercise,
    diagnose,
    load_catalogue,
    parse_call,
)
from autograder.notebook import hidden_line_ranges
from autograder.samples import VARIANTS, Variant
from tests.notebooks.answers import ROOT, graded_test_cells, namespace, observer, source

ASSIGNMENTS = sorted(
    path.stem for path in ROOT.glob("notebooks/*/*.ipynb") if path.parent.name == path.stem
)
#: Misconceptions per exercise, at least.
MIN_MISCONCEPTIONS = 3


@cache
def catalogue(assignment: str) -> Catalogue:
    found = load_catalogue(ROOT / "notebooks" / assignment)
    assert found is not None, f"notebooks/{assignment}/misconceptions.toml is missing"
    return found


def _exercise_of_variant(variant: Variant) -> str:
    (cell,) = variant.replace
    return cell


@cache
def _observed(assignment: str, variant_name: str | None, exercise: str) -> dict[str, Any]:
    """call -> observation of one answer (the solution: ``variant_name`` None) on every
    probe call of the exercise."""
    replace = {}
    if variant_name is not None:
        (variant,) = [v for v in VARIANTS[assignment] if v.name == variant_name]
        replace = dict(variant.replace)
    entry = catalogue(assignment).exercises[exercise]
    look = observer(assignment, entry, namespace(assignment, replace))
    return {call: look(call) for call in entry.calls()}


def _samples(assignment: str, exercise: str) -> Iterator[Variant]:
    for variant in VARIANTS[assignment]:
        if exercise in variant.replace:
            yield variant


def _code_exercises(assignment: str) -> list[str]:
    from autograder.misconceptions import notebook_signatures

    return list(notebook_signatures(source(assignment)))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_misconceptions_every_exercise_has_an_entry(assignment):
    """One entry per graded function, each with ≥ 3 misconceptions (sentence, hint,
    probe), and nothing else."""
    found = catalogue(assignment)
    assert sorted(found.exercises) == sorted(_code_exercises(assignment))
    for name, entry in found.exercises.items():
        assert len(entry.misconceptions) >= MIN_MISCONCEPTIONS, (
            f"{name}: {len(entry.misconceptions)} misconceptions"
        )
        assert entry.params, f"{name}: no signature"
        for item in entry.misconceptions:
            assert item.says and item.hint and item.probes, (name, item.id)
            assert item.says[0].islower() and not item.says.endswith("."), (
                f"{name}/{item.id}: 'says' continues 'What this looks like: …' (lower case, "
                "no full stop)"
            )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_misconceptions_label_the_samples(assignment):
    """Each buggy sample names a misconception of its own exercise, each misconception is
    the label of at least one sample, correct samples carry no label."""
    found = catalogue(assignment)
    labelled: dict[tuple[str, str], list[str]] = {}
    for variant in VARIANTS[assignment]:
        if variant.correct:
            assert not variant.misconception, f"{variant.name}: a correct sample is labelled"
            continue
        exercise = _exercise_of_variant(variant)
        ids = [m.id for m in found.exercises[exercise].misconceptions]
        assert variant.misconception in ids, (
            f"{variant.name}: label {variant.misconception!r} is not one of {exercise}'s {ids}"
        )
        labelled.setdefault((exercise, variant.misconception), []).append(variant.name)
    for name, entry in found.exercises.items():
        for item in entry.misconceptions:
            assert (name, item.id) in labelled, f"{name}/{item.id}: no sample shows it"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.slow
def test_misconceptions_rule_is_the_notebooks_solution(assignment):
    """The notebook's solution gives the rule's answer on every probe call and changes no
    argument; on every misconception's probe it differs from the misconception's answer
    (the first call where they differ is the one the feedback shows)."""
    for name, entry in catalogue(assignment).exercises.items():
        observed = _observed(assignment, None, name)
        for item in entry.misconceptions:
            for probe in item.probes:
                seen = observed[probe.call]
                assert probe.rule_matches(seen), (
                    f"{name}: the solution gives {seen.describe()} on {probe.call}, "
                    f"the catalogue's rule says {probe.rule.text}"
                )
            assert not all(p.answer_matches(observed[p.call]) for p in item.probes), (
                f"{name}/{item.id}: the solution gives this misconception's answers"
            )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.slow
def test_misconceptions_probes_tell_them_apart(assignment):
    """A sample gives every answer of its own misconception's probe and no other
    misconception's whole probe; a correct sample gives the rule's answers everywhere; so
    the diagnosis names each buggy sample's own misconception, and nothing for a correct
    one."""
    problems = []
    for name, entry in catalogue(assignment).exercises.items():
        for variant in _samples(assignment, name):
            observed = _observed(assignment, variant.name, name)
            for item in entry.misconceptions:
                matches = all(p.answer_matches(observed[p.call]) for p in item.probes)
                if item.id == variant.misconception and not matches:
                    probe = next(p for p in item.probes if not p.answer_matches(observed[p.call]))
                    problems.append(
                        f"{name}/{item.id}: its sample {variant.name} gives "
                        f"{observed[probe.call].describe()} on {probe.call}, not the "
                        "catalogue's answer"
                    )
                elif item.id != variant.misconception and matches:
                    problems.append(
                        f"{name}/{item.id}: {variant.name} ({variant.misconception or 'correct'}) "
                        "gives this misconception's answers too"
                    )
            diagnosis = diagnose(entry, lambda call, seen=observed: seen[call])
            got = diagnosis.misconception if diagnosis else None
            if variant.correct and diagnosis is not None:
                problems.append(f"{name}: the correct {variant.name} is diagnosed: {diagnosis}")
            if not variant.correct and got != variant.misconception:
                problems.append(
                    f"{name}: {variant.name} is diagnosed {got!r}, labelled "
                    f"{variant.misconception!r}"
                )
    assert not problems, "\n".join(problems)


def _hidden_calls(assignment: str, exercise: str) -> list[tuple[list[Any], dict[str, Any]]]:
    """The literal arguments of every ``call_student(<exercise>, ...)`` in the hidden part
    of the exercise's test cells (arguments that are not literals are left out: no probe
    is anything but a literal)."""
    found = []
    for grade_id, text in graded_test_cells(assignment).items():
        if not grade_id.startswith(exercise + "_"):
            continue
        for start, end in hidden_line_ranges(text):
            for node in ast.walk(ast.parse(text)):
                if not (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", None) == "call_student"
                    and start <= node.lineno <= end
                    and node.args
                    and getattr(node.args[0], "id", None) == exercise
                ):
                    continue
                try:
                    args = [ast.literal_eval(a) for a in node.args[1:]]
                except ValueError:
                    continue
                keywords = {}
                for kw in node.keywords:
                    if kw.arg not in (None, "disable", "use_reference"):
                        try:
                            keywords[kw.arg] = ast.literal_eval(kw.value)
                        except ValueError:
                            keywords = None  # type: ignore[assignment]
                            break
                if keywords is not None:
                    found.append((args, keywords))
    return found


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except ValueError:
        return False


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_misconceptions_probes_are_not_hidden_tests(assignment):
    """No probe call has the arguments of a hidden test's call: the feedback shows probes,
    never a hidden test's inputs."""
    for name, entry in catalogue(assignment).exercises.items():
        hidden = _hidden_calls(assignment, name)
        for call in entry.calls():
            _, args, kwargs = parse_call(call)
            plain = [a.tolist() if hasattr(a, "tolist") else a for a in args]
            for h_args, h_kwargs in hidden:
                same = len(h_args) == len(plain) and all(
                    _equal(a, b) for a, b in zip(plain, h_args, strict=True)
                )
                assert not (same and _equal(h_kwargs, kwargs)), f"{name}: {call} is a hidden test"


def test_misconceptions_hidden_call_reader_finds_the_hidden_calls():
    """The reader above sees hidden calls at all (else the test before passes vacuously)."""
    found = _hidden_calls("01_hyperplanes", "predict")
    assert ([[[1, 1], [2, 2], [3, 1]], [1, -1], 0], {}) in found


def test_misconceptions_exercise_entries_know_their_parameters():
    """The signatures come from the notebook's answer cells."""
    entry: Exercise = catalogue("01_hyperplanes").exercises["predict"]
    assert entry.params == ("X", "w", "b")
