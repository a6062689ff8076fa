"""The planted set (:func:`autograder.samples.copies.planted_class`): copies of the sample
answers with renamed variables, reordered functions, added comments and blank lines, a loop
turned into a comprehension rank above every pair of independent answers; two answers that
are both the reference solution stay below the threshold. The fast tier checks one
assignment (06: every disguise), the slow tier all of them (what ``python -m benchmarks
similarity`` prints)."""

from __future__ import annotations

import pytest

from autograder.samples import ASSIGNMENTS
from benchmarks.bench_similarity import run_planted


def _check(assignments: list[str]) -> set[str]:
    scores, run = run_planted(assignments, workers=1)
    kinds = {p[-1] for p in scores.pairs["copied"]}
    copied, independent = scores.scores("copied"), scores.scores("independent")
    assert copied and independent and scores.scores("reference")
    assert scores.copies_above_independent, (
        f"lowest copied {min(copied):.3f} <= highest independent {max(independent):.3f}"
    )
    assert max(scores.scores("reference")) < run.settings.threshold
    assert min(copied) >= run.settings.threshold
    assert scores.too_short == 0
    return kinds


@pytest.mark.slow
def test_planted_copies_rank_above_independent_answers():
    kinds = _check(["06_svm_margins"])  # every disguise, loops as comprehensions included
    for disguise in (
        "renamed",
        "commented",
        "functions reordered, renamed",
        "loop as a comprehension",
    ):
        assert any(disguise in kind for kind in kinds), disguise


@pytest.mark.slow
def test_planted_copies_rank_above_independent_answers_in_every_assignment():
    _check(list(ASSIGNMENTS))
