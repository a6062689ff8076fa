"""The detector on answers given as text: the reference's code matches nobody, disguises do
not hide a copy, an idiom of the whole class is not evidence, and hostile answers cost a
bounded time and match nobody much."""

from __future__ import annotations

import random
import time

import pytest

from autograder.notebook import notebook_bytes
from autograder.samples import VARIANTS, solution_sources
from autograder.samples.copies import (
    add_comments,
    release_notebook,
    rename_locals,
    reorder_functions,
)
from autograder.similarity import Settings, compare_exercise
from autograder.similarity.answers import read_assignment
from course_common.paths import NOTEBOOKS_DIR

ASSIGNMENT = "02_perceptron_update"
SOURCE = NOTEBOOKS_DIR / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
# the notebook's own code: every code cell of the source and of its release
BOILERPLATE = read_assignment(
    ASSIGNMENT, SOURCE.read_bytes(), notebook_bytes(release_notebook(SOURCE))
).boilerplate
REFERENCE = solution_sources(SOURCE)
SETTINGS = Settings()


def _variants(cell: str, correct: bool | None = None) -> list[str]:
    return [
        v.replace[cell]
        for v in VARIANTS[ASSIGNMENT]
        if cell in v.replace and len(v.replace) == 1 and correct in (None, v.correct)
    ]


def _scores(result) -> dict[tuple[str, str], float]:
    return {(p.student_a, p.student_b): p.score for p in result.pairs}


def test_two_reference_answers_are_not_a_pair_and_would_be_without_the_boilerplate():
    answers = [("ref_1", REFERENCE["train_perceptron"]), ("ref_2", REFERENCE["train_perceptron"])]
    answers += [(f"own_{n}", code) for n, code in enumerate(_variants("train_perceptron", True))]
    result = compare_exercise("02/train_perceptron", answers, BOILERPLATE, SETTINGS)
    assert ("ref_1", "ref_2") not in _scores(result)
    assert {"ref_1", "ref_2"} <= set(result.too_short)
    # the boilerplate is what keeps them apart: without it they are the same answer
    bare = compare_exercise("02/train_perceptron", answers, "", SETTINGS)
    assert _scores(bare)[("ref_1", "ref_2")] == 1.0


def test_disguised_copies_score_above_the_threshold():
    original = _variants("averaged_perceptron", True)[0]
    disguised = {
        "renamed": rename_locals(original, seed=1),
        "commented": add_comments(original, seed=2),
        "both": add_comments(rename_locals(original, seed=3), seed=4),
    }
    answers = [("original", original), *disguised.items()]
    answers += [(f"other_{n}", c) for n, c in enumerate(_variants("averaged_perceptron", True)[1:])]
    result = compare_exercise("02/averaged_perceptron", answers, BOILERPLATE, SETTINGS)
    scores = _scores(result)
    for name in disguised:
        pair = tuple(sorted(("original", name)))
        assert scores[pair] >= SETTINGS.threshold, name
    independent = [s for (a, b), s in scores.items() if "other" in a or "other" in b]
    assert max(independent, default=0) < min(
        scores[tuple(sorted(("original", n)))] for n in disguised
    )


def test_reordered_functions_are_the_same_answer():
    helper = _variants("perceptron_update", True)[0]
    main = _variants("perceptron_epoch", True)[0]
    two = helper.strip() + "\n\n\n" + main.strip() + "\n"
    answers = [("a", two), ("b", rename_locals(reorder_functions(two), seed=5))]
    answers += [(f"other_{n}", c) for n, c in enumerate(_variants("perceptron_epoch", True)[1:])]
    result = compare_exercise("02/perceptron_epoch", answers, BOILERPLATE, SETTINGS)
    assert _scores(result)[("a", "b")] >= 0.9


def test_an_idiom_of_the_whole_class_is_not_evidence():
    idiom = "    scaled = [value * 2.5 + offset for value in np.linspace(0.0, 1.0, 17)]\n"
    answers = [
        (f"s{n:02d}", f"def f(x):\n{idiom}    return sum(scaled) + {n} * x ** {n % 7}\n")
        for n in range(40)
    ]
    result = compare_exercise("x/f", answers, "", Settings(common_min=8, common_share=0.2))
    assert result.common_fingerprints > 0
    assert all(p.score < SETTINGS.threshold for p in result.pairs)
    # with the idiom counted, every pair shares it
    counted = compare_exercise("x/f", answers, "", Settings(common_min=100, common_share=1.0))
    assert counted.candidate_pairs == 40 * 39 // 2


def test_the_whole_reference_pasted_with_comments_matches_nobody():
    everything = "\n\n".join(
        add_comments(code, seed=n) for n, code in enumerate(REFERENCE.values())
    )
    answers = [("paster", everything), ("ref", REFERENCE["perceptron_epoch"])]
    answers += [(f"own_{n}", c) for n, c in enumerate(_variants("perceptron_epoch"))]
    result = compare_exercise("02/perceptron_epoch", answers, BOILERPLATE, SETTINGS)
    assert not [p for p in result.pairs if "paster" in (p.student_a, p.student_b)]
    assert any("the notebook's own code" in flag for flag in result.flags["paster"])
    assert "ref" in result.too_short and "ref" not in result.flags


def test_an_answer_made_to_look_like_everyone_matches_nobody_much_and_is_flagged():
    """Every sample answer of the exercise pasted into one answer, many times over."""
    everyone = _variants("train_perceptron")
    blob = "\n\n".join(rename_locals(c, seed=n) for n, c in enumerate(everyone * 6))
    answers = [("blob", blob)] + [(f"own_{n}", c) for n, c in enumerate(everyone)]
    answers += [(f"ref_{n}", REFERENCE["train_perceptron"]) for n in range(20)]
    result = compare_exercise("02/train_perceptron", answers, BOILERPLATE, SETTINGS)
    with_blob = [p.score for p in result.pairs if "blob" in (p.student_a, p.student_b)]
    assert with_blob and max(with_blob) < SETTINGS.threshold
    assert any("median length" in flag for flag in result.flags["blob"])


@pytest.mark.parametrize(
    "junk",
    [
        "".join(chr(random.Random(0).randrange(0x20, 0x2FFF)) for _ in range(20_000)),
        "(" * 20_000,
        '"""' + "x" * 19_990,
        "\ufffd\x00\x01" * 6_000,
        "def f(:\n" * 2_500,
    ],
    ids=["unicode-noise", "parentheses", "open-string", "binary", "syntax-errors"],
)
@pytest.mark.slow
def test_junk_answers_cost_a_bounded_time(junk):
    answers = [("junk", junk), ("junk_2", junk[::-1])]
    answers += [(f"own_{n}", c) for n, c in enumerate(_variants("perceptron_update"))]
    started = time.process_time()
    result = compare_exercise("02/perceptron_update", answers, BOILERPLATE, SETTINGS)
    assert time.process_time() - started < 10
    assert result.answers == len(answers)
