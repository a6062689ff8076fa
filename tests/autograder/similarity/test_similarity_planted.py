"""The planted set (:func:`autograder.samples.copies.planted_class`): copies of the sample
answers with renamed variables, reordered functions or statements, added comments and blank
lines, a loop turned into a comprehension rank above every pair of independent answers
(a copy of an answer, anywhere in the set; two copies of one answer each disguised its own
way, within their exercise: across exercises, a loop rewritten in one and the statements
reordered in the other scores 0.65, below two alike sample answers of another exercise);
every copy is found at the threshold; two answers that are both the reference solution stay
below it. The fast tier checks one assignment (06: every disguise), the slow tier all of
them (what ``python -m benchmarks similarity`` prints)."""

from __future__ import annotations

import pytest

from autograder.samples import ASSIGNMENTS
from benchmarks.bench_similarity import run_planted


def _check(assignments: list[str]) -> set[str]:
    scores, run = run_planted(assignments, workers=1)
    kinds = {p[-1] for p in scores.pairs["copied"]}
    copied, independent = scores.scores("copied"), scores.scores("independent")
    assert copied and independent and scores.scores("reference")
    # a copy of an answer (one side the sample answer as written) above every independent pair
    of_answer = [p[0] for p in scores.pairs["copied"] if "/" not in p[-1]]
    assert min(of_answer) > max(independent), (
        f"lowest copy of an answer {min(of_answer):.3f} <= highest independent "
        f"{max(independent):.3f}"
    )
    # within each exercise, every copied pair above every pair that is no copy
    mean, worst, outranked = scores.ranking()
    assert mean == 1.0, worst
    assert not {kind: n for kind, (n, _) in outranked.items() if n}
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
        "statements reordered",
        "loop as a comprehension",
    ):
        assert any(disguise in kind for kind in kinds), disguise


@pytest.mark.slow
def test_planted_copies_rank_above_independent_answers_in_every_assignment():
    _check(list(ASSIGNMENTS))
