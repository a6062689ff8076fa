"""The similarity report: its quality on the planted set, its cost on a large class.

``python -m benchmarks similarity [--students N] [--workers W] [--no-planted]``

1. **Planted set** (:func:`autograder.samples.copies.planted_class`, every assignment): the
   sample answers as independent students, copies of them disguised (renamed variables,
   comments and blank lines, functions reordered, a loop as a comprehension), two students
   with the reference solution. Printed: each kind of pair's scores, whether every copied
   pair ranks above every independent pair, the highest reference-only score against the
   threshold, and precision and recall at the threshold (copied pairs are the positives;
   independent and reference-only pairs the negatives; "related" sample answers — written
   one from the other — and partial copies are printed apart, in neither).
2. **Scale**: a class of N students (default 300) × every exercise (29): each answer the
   reference or a sample answer (half and half), each disguised on its own (variables
   renamed, comments added), so that many students share an approach, as in a real class,
   but no two texts are the same. The notebooks are built first; then
   :func:`autograder.similarity.compare_class` is timed with W worker processes (default 2).
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

import nbformat

from autograder.notebook import notebook_bytes
from autograder.samples import ASSIGNMENTS, VARIANTS, make_submission, solution_sources
from autograder.samples.copies import (
    PlantedClass,
    add_comments,
    planted_class,
    release_notebook,
    rename_locals,
)
from autograder.similarity import NotebookSource, Settings, SimilarityRun, compare_class
from course_common.paths import NOTEBOOKS_DIR

#: The scale target: this many students × every exercise in at most this many seconds.
TARGET_STUDENTS = 300
TARGET_SECONDS = 60.0


def notebook_sources(assignments=ASSIGNMENTS) -> list[NotebookSource]:
    """Each assignment's source notebook and its release made by nbgrader's
    ``ClearSolutions`` (no course directory needed)."""
    found = []
    for assignment in assignments:
        source = NOTEBOOKS_DIR / assignment / f"{assignment}.ipynb"
        release = notebook_bytes(release_notebook(source))
        found.append(NotebookSource(assignment, source.name, source.read_bytes(), release))
    return found


@dataclass
class PlantedScores:
    """Every pair of the planted set, scored: label -> [(score, exercise, a, b, kind)]."""

    threshold: float
    pairs: dict[str, list[tuple[float, str, str, str, str]]] = field(default_factory=dict)
    too_short: int = 0  # copied pairs with an answer too short to tell

    def scores(self, label: str) -> list[float]:
        return [p[0] for p in self.pairs.get(label, [])]

    @property
    def copies_above_independent(self) -> bool:
        """Every copied pair scores more than every independent pair."""
        return min(self.scores("copied"), default=1.0) > max(
            self.scores("independent"), default=0.0
        )

    def precision_recall(self) -> tuple[float, float, int, int]:
        """(precision, recall, true positives, false positives) at the threshold."""
        found = sum(score >= self.threshold for score in self.scores("copied"))
        wrong = sum(
            score >= self.threshold
            for label in ("independent", "reference")
            for score in self.scores(label)
        )
        copied = len(self.scores("copied"))
        return found / max(1, found + wrong), found / max(1, copied), found, wrong

    def ranking(self) -> tuple[float, str, dict[str, tuple[int, int]]]:
        """Each exercise's pairs ranked by score, copies against the pairs that are no copy
        (independent, reference-only): the mean over the exercises of the precision at k
        (k: the exercise's copied pairs; the share of its k best pairs that are copies),
        the worst exercise, and per kind of copy how many of its pairs a pair that is no
        copy outranks (ties count against the copy), of how many."""
        by_exercise: dict[str, list[tuple[float, bool, str]]] = defaultdict(list)
        for label in ("copied", "independent", "reference"):
            for score, exercise, _, _, kind in self.pairs.get(label, []):
                by_exercise[exercise].append((score, label == "copied", kind))
        precisions: list[tuple[float, str]] = []
        kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for exercise, pairs in by_exercise.items():
            copies = [p for p in pairs if p[1]]
            if not copies:
                continue
            best = sorted(pairs, key=lambda p: (-p[0], p[1]))[: len(copies)]
            precisions.append((sum(p[1] for p in best) / len(copies), exercise))
            others = [p[0] for p in pairs if not p[1]]
            top_other = max(others, default=-1.0)
            for score, _, kind in copies:
                kinds[kind][1] += 1
                kinds[kind][0] += score <= top_other
        mean = statistics.mean(p for p, _ in precisions) if precisions else 1.0
        worst = min(precisions, default=(1.0, ""))
        return mean, f"{worst[0]:.2f} ({worst[1]})", {k: (v[0], v[1]) for k, v in kinds.items()}


def score_planted(classes: list[PlantedClass], run: SimilarityRun) -> PlantedScores:
    """Label every pair of every exercise of *classes* (:meth:`PlantedClass.label`) and give
    it its score in *run* (0 for a pair not listed)."""
    listed = {(p.exercise, p.student_a, p.student_b): p.score for p in run.pairs}
    short = {(e.exercise, s) for e in run.exercises for s in e.too_short}
    result = PlantedScores(run.settings.threshold)
    for planted in classes:
        students = sorted(planted.notebooks)
        for exercise in sorted({e for e, _ in planted.origin} | _exercises(run, planted)):
            for i, a in enumerate(students):
                for b in students[i + 1 :]:
                    label = planted.label(exercise, a, b)
                    kind = planted.kind(exercise, a, b) if label == "copied" else ""
                    if label == "copied" and ({(exercise, a), (exercise, b)} & short):
                        result.too_short += 1
                    score = listed.get((exercise, a, b), 0.0)
                    result.pairs.setdefault(label, []).append((score, exercise, a, b, kind))
    return result


def _exercises(run: SimilarityRun, planted: PlantedClass) -> set[str]:
    return {e.exercise for e in run.exercises if e.exercise.startswith(planted.assignment + "/")}


def run_planted(
    assignments=ASSIGNMENTS, settings: Settings | None = None, workers: int = 2
) -> tuple[PlantedScores, SimilarityRun]:
    """Build the planted classes of *assignments*, compare them, score every pair."""
    classes = [
        planted_class(NOTEBOOKS_DIR / a / f"{a}.ipynb", a, seed=index)
        for index, a in enumerate(assignments)
    ]
    submissions = [
        (student, planted.assignment, {f"{planted.assignment}.ipynb": notebook_bytes(nb)})
        for planted in classes
        for student, nb in planted.notebooks.items()
    ]
    run = compare_class(submissions, notebook_sources(assignments), settings, workers=workers)
    return score_planted(classes, run), run


def print_planted(scores: PlantedScores) -> None:
    threshold = scores.threshold
    print(f"planted set: threshold {threshold}")
    print("| pairs | n | min | median | max | at or above the threshold |")
    print("|---|---|---|---|---|---|")
    kinds: dict[str, list[float]] = defaultdict(list)
    for score, *_, kind in scores.pairs.get("copied", []):
        kinds[f"copied: {kind}"].append(score)
    for label in ("partial", "related", "independent", "reference"):
        kinds[label] = scores.scores(label)
    for name, values in kinds.items():
        if values:
            above = sum(v >= threshold for v in values)
            print(
                f"| {name} | {len(values)} | {min(values):.3f} | {statistics.median(values):.3f}"
                f" | {max(values):.3f} | {above} |"
            )
    top = sorted(scores.pairs.get("independent", []), reverse=True)[:3]
    for score, exercise, a, b, _ in top:
        print(f"  highest independent: {score:.3f} {exercise} {a} / {b}")
    low = sorted(scores.pairs.get("copied", []))[:3]
    for score, exercise, a, b, kind in low:
        print(f"  lowest copied: {score:.3f} {exercise} {a} / {b} ({kind})")
    precision, recall, found, wrong = scores.precision_recall()
    print(
        f"every copied pair above every independent pair: {scores.copies_above_independent}; "
        f"highest reference-only pair: {max(scores.scores('reference'), default=0):.3f}; "
        f"copied pairs too short to tell: {scores.too_short}"
    )
    print(
        f"at the threshold {threshold}: precision {precision:.3f}, recall {recall:.3f} "
        f"({found} copied pairs found, {wrong} other pairs above it)"
    )
    mean, worst, kinds_ranked = scores.ranking()
    print(
        f"ranked within each exercise: precision at k (k: its copied pairs) {mean:.3f} on "
        f"average, the worst exercise {worst}"
    )
    for kind, (outranked, total) in sorted(kinds_ranked.items()):
        print(f"  {kind}: {outranked} of {total} outranked by a pair that is no copy")


def scale_class(students: int, seed: int = 0) -> list[tuple[str, str, dict[str, bytes]]]:
    """*students* × every assignment: each answer the reference or a sample answer (half and
    half), variables renamed and comments added on its own seed."""
    rng = random.Random(seed)
    submissions = []
    for assignment in ASSIGNMENTS:
        source = nbformat.read(NOTEBOOKS_DIR / assignment / f"{assignment}.ipynb", as_version=4)
        release = release_notebook(source)
        reference = solution_sources(source)
        by_cell: dict[str, list[str]] = defaultdict(list)
        for variant in VARIANTS.get(assignment, []):
            for cell, code in variant.replace.items():
                by_cell[cell].append(code)
        for number in range(students):
            replace = {}
            for cell, answer in reference.items():
                if cell not in by_cell:
                    continue  # a written answer: not compared
                code = answer if rng.random() < 0.5 else rng.choice(by_cell[cell])
                replace[cell] = add_comments(
                    rename_locals(code, rng.randrange(10**6)), rng.randrange(10**6), every=3
                )
            nb = make_submission(release, source, replace)
            name = f"{assignment}.ipynb"
            submissions.append((f"student{number:04d}", assignment, {name: notebook_bytes(nb)}))
    return submissions


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the workers)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_scale(students: int, workers: int) -> SimilarityRun:
    started = time.monotonic()
    submissions = scale_class(students)
    print(
        f"scale: {students} students × {len(ASSIGNMENTS)} notebooks built in "
        f"{time.monotonic() - started:.0f} s (not timed)"
    )
    before = _cpu()
    run = compare_class(submissions, notebook_sources(), workers=workers)
    cpu = _cpu() - before
    answers = sum(e.answers for e in run.exercises)
    print(
        f"scale: {students} students × {len(run.exercises)} exercises ({answers} answers) "
        f"compared in {run.seconds:.1f} s with {workers} workers, {cpu:.1f} CPU s "
        f"(target ≤ {TARGET_SECONDS:.0f} s for {TARGET_STUDENTS})"
    )
    candidates = sum(e.candidate_pairs for e in run.exercises)
    compared = sum(e.compared_pairs for e in run.exercises)
    short = sum(len(e.too_short) for e in run.exercises)
    print(
        f"  pairs: {run.all_pairs:,} in all, {candidates:,} sharing an uncommon fingerprint, "
        f"{compared:,} compared by copydetect, {len(run.pairs):,} listed, "
        f"{len(run.above):,} at or above the threshold; {short:,} answers too short to tell"
    )
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks similarity")
    parser.add_argument("--students", type=int, default=TARGET_STUDENTS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-planted", action="store_true", help="only the scale run")
    args = parser.parse_args(argv)
    if not args.no_planted:
        scores, run = run_planted(workers=args.workers)
        print(f"planted set compared in {run.seconds:.1f} s")
        print_planted(scores)
    run_scale(args.students, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
