"""The detector: copydetect's fingerprints, compared pair by pair within each exercise, only
for the pairs that share a fingerprint (an inverted index).

For each exercise:

1. Every answer is tokenised and fingerprinted by copydetect (``CodeFingerprint``: pygments'
   Python tokens, every name replaced by one letter, comments, the content of strings and
   white space dropped; every k-gram of what is left hashed). The *boilerplate* — every
   k-gram of the notebook's own code: the source's cells, reference solutions included, and
   the release's stubs — is taken out, so code that the reference forces on everyone
   matches nobody.
2. A fingerprint found in many answers (more than ``common_share`` of them, and more than
   ``common_min``) is an idiom of the class, not a sign of shared work: it is dropped too.
3. An answer left with fewer than ``min_own`` characters of code of its own (after step 1's
   normalising) is *too short to tell*: it is counted in the report and compared with nobody.
   An exercise whose answers are all this short (a one-line ``return w @ x + b``) is left
   out whole, and the report says so.
4. The pairs that share a fingerprint are found with a sparse answers × fingerprints matrix
   (its product with its transpose counts the fingerprints each pair shares); a pair whose
   shared fingerprints cannot reach ``list_floor`` is not compared further, the others by
   copydetect's ``compare_files``. A pair's score is the share of the two answers' own code
   that matches, ``(overlap_a + overlap_b) / (own_a + own_b)``: symmetric, so an enormous
   answer that holds a bit of everyone's matches nobody much.

Cost: tokenising is linear in the class; a pair that shares no uncommon fingerprint costs
nothing. Each fingerprint is held by at most ``common_share`` of the answers, so the pairs
compared grow with the number of answers that share code of their own, not with n².

copydetect hashes with Python's ``hash``, which differs between processes unless
PYTHONHASHSEED is set: an exercise is fingerprinted and compared in one process, every
k-gram is kept (a window of 1, copydetect's default), so no result depends on the hash
values, only on which k-grams are equal.
"""

from __future__ import annotations

import functools
import io
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from autograder.similarity.statements import keys_of, statements


@dataclass(frozen=True)
class Settings:
    """The detector's parameters (see the module's docstring); the defaults are the ones
    measured on the planted set (``python -m benchmarks similarity``)."""

    threshold: float = 0.6
    k: int = 15  # k-grams of this many normalised characters (copydetect's noise threshold)
    min_own: int = 30  # normalised characters of its own an answer needs to be compared
    common_share: float = 0.2
    common_min: int = 8
    list_floor: float = 0.25  # pairs scoring less are not listed
    long_factor: float = 5.0  # an answer this many times the median length is flagged


@dataclass
class Pair:
    """Two students' answers to one exercise that share code of their own."""

    exercise: str
    student_a: str
    student_b: str
    score: float
    share_a: float  # of student_a's own code, the share found in student_b's
    share_b: float
    spans_a: list[tuple[int, int]]  # matched character ranges in student_a's code
    spans_b: list[tuple[int, int]]
    lines_a: list[tuple[int, int]]  # the same as line ranges (1-based, inclusive)
    lines_b: list[tuple[int, int]]


@dataclass
class ExerciseResult:
    """One exercise compared: its pairs and what was left out."""

    exercise: str
    answers: int
    compared: int  # answers with enough code of their own
    too_short: list[str]  # students whose answer is too short to tell
    candidate_pairs: int  # pairs sharing an uncommon fingerprint
    compared_pairs: int  # of those, compared by copydetect
    common_fingerprints: int
    pairs: list[Pair] = field(default_factory=list)  # scoring list_floor or more, best first
    flags: dict[str, list[str]] = field(default_factory=dict)  # student -> flags
    error: str = ""  # why the exercise could not be compared (then no pairs)

    @property
    def all_pairs(self) -> int:
        return self.answers * (self.answers - 1) // 2


def _fingerprint(code: str, k: int, boilerplate: np.ndarray):
    from copydetect import CodeFingerprint

    return CodeFingerprint(
        "answer.py", k, 1, boilerplate=boilerplate, language="python", fp=io.StringIO(code)
    )


@functools.lru_cache(maxsize=16)
def boilerplate_hashes(code: str, k: int) -> np.ndarray:
    """Every k-gram hash of the course's own code (copydetect's boilerplate), once per
    process and notebook."""
    fingerprint = _fingerprint(code, k, np.array([], dtype=np.int64))
    return np.unique(np.fromiter(fingerprint.hashes, dtype=np.int64))


def _drop(fingerprint, hashes: set[int], k: int) -> None:
    """Take *hashes* out of a copydetect fingerprint, as its own boilerplate option does."""
    from copydetect.utils import get_token_coverage

    gone = fingerprint.hashes & hashes
    if not gone:
        return
    fingerprint.hashes = fingerprint.hashes - gone
    fingerprint.hash_idx = {h: i for h, i in fingerprint.hash_idx.items() if h not in gone}
    fingerprint.token_coverage = get_token_coverage(
        fingerprint.hash_idx, k, len(fingerprint.filtered_code)
    )


def _line_starts(code: str) -> np.ndarray:
    return np.cumsum([0] + [len(line) + 1 for line in code.split("\n")])


def _line_ranges(starts: np.ndarray, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character ranges as 1-based line ranges, merged (*starts*: where each line starts)."""
    ranges: list[tuple[int, int]] = []
    for begin, end in spans:
        first = int(np.searchsorted(starts, begin, side="right"))
        last = int(np.searchsorted(starts, max(begin, end - 1), side="right"))
        if ranges and first <= ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], last))
        else:
            ranges.append((first, last))
    return ranges


def _spans(slices: np.ndarray, code: str) -> list[tuple[int, int]]:
    if slices.size == 0:
        return []
    ends = zip(slices[0], slices[1], strict=True)
    return [(int(a), min(int(b), len(code))) for a, b in ends if int(a) < len(code)]


def _shared_counts(prints: list, usable: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs (i < j, indices into *prints*) of usable answers that share fingerprints,
    and how many each shares: the upper triangle of M·Mᵀ for the answers × fingerprints
    matrix M."""
    from scipy import sparse

    columns: dict[int, int] = {}
    rows, cols = [], []
    for row, i in enumerate(usable):
        for h in prints[i].hashes:
            rows.append(row)
            cols.append(columns.setdefault(h, len(columns)))
    if not rows:
        empty = np.array([], dtype=np.int64)
        return empty, empty, empty
    matrix = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(len(usable), len(columns))
    )
    shared = sparse.triu(matrix @ matrix.T, k=1).tocoo()
    index = np.asarray(usable)
    return index[shared.row], index[shared.col], shared.data


@functools.lru_cache(maxsize=16)
def statement_boilerplate(code: str) -> frozenset[str]:
    """The statements of the course's own code, once per process and notebook."""
    return frozenset(keys_of(code))


Kept = list[tuple[str, int, tuple[int, int]]]


def statement_score(
    a: Kept, b: Kept
) -> tuple[float, float, float, list[tuple[int, int]], list[tuple[int, int]]] | None:
    """Two answers compared as multisets of statements (:mod:`.statements`): the score,
    each one's share held by the other, and the matched statements' lines; None when
    either has no statement of its own."""
    own_a, own_b = sum(w for _, w, _ in a), sum(w for _, w, _ in b)
    if not own_a or not own_b:
        return None
    left = Counter(key for key, _, _ in b)
    right = Counter(key for key, _, _ in a)

    def matched(items: Kept, other: Counter[str]) -> tuple[int, list[tuple[int, int]]]:
        budget, weight, spans = Counter(other), 0, []
        for key, w, span in items:
            if budget[key] > 0:
                budget[key] -= 1
                weight += w
                spans.append(span)
        return weight, _merge(spans)

    match_a, lines_a = matched(a, left)
    match_b, lines_b = matched(b, right)
    score = (match_a + match_b) / (own_a + own_b)
    return score, match_a / own_a, match_b / own_b, lines_a, lines_b


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Line ranges sorted and merged where they touch."""
    out: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def _line_spans(code: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """1-based line ranges of *code* as character ranges."""
    starts = _line_starts(code)
    count = len(starts) - 1
    return [
        (int(starts[first - 1]), int(starts[min(last, count)]) - 1)
        for first, last in ranges
        if 1 <= first <= count
    ]


def compare_exercise(
    exercise: str,
    answers: Sequence[tuple[str, str]],
    boilerplate: str,
    settings: Settings = Settings(),
) -> ExerciseResult:
    """Compare the answers (student, code) to one exercise; *boilerplate*: the notebook's own
    code. Returns the pairs that score ``settings.list_floor`` or more, best first."""
    from copydetect import compare_files

    k = settings.k
    bp = boilerplate_hashes(boilerplate, k)
    prints = [_fingerprint(code, k, bp) for _, code in answers]
    n = len(prints)
    counts: dict[int, int] = {}
    for fp in prints:
        for h in fp.hashes:
            counts[h] = counts.get(h, 0) + 1
    cap = max(settings.common_min, settings.common_share * n)
    common = {h for h, c in counts.items() if c > cap}
    for fp in prints:
        _drop(fp, common, k)

    result = ExerciseResult(exercise, n, 0, [], 0, 0, len(common))
    lengths = [len(fp.filtered_code) for fp in prints]
    median = statistics.median(lengths) if lengths else 0
    for (student, _), fp, length in zip(answers, prints, lengths, strict=True):
        own = fp.token_coverage / length if length else 0.0
        long = length > settings.long_factor * median and length > 20 * settings.min_own
        pasted = length > 2 * median and length > 10 * settings.min_own and own < 0.25
        if median and (long or pasted):
            result.flags.setdefault(student, []).append(
                f"{exercise}: answer {length / median:.0f}× the median length of the class's"
                f" answers, {100 * own:.0f}% of it code of its own"
                + ("" if own >= 0.25 else " (the rest is the notebook's own code)")
            )
    usable = [i for i, fp in enumerate(prints) if fp.token_coverage >= settings.min_own]
    kept = set(usable)
    result.compared = len(usable)
    result.too_short = sorted(answers[i][0] for i in range(n) if i not in kept)

    # the same answers as sets of statements (statements.py): a reordered copy matches
    stmts = [statements(code) for _, code in answers]
    held: Counter[str] = Counter()
    for found in stmts:
        held.update(set(found.counts()))
    drop = statement_boilerplate(boilerplate) | {key for key, c in held.items() if c > cap}
    kept_stmts = [
        [(key, weight, lines) for key, weight, lines in found.items if key not in drop]
        for found in stmts
    ]

    first, second, shared = _shared_counts(prints, usable)
    result.candidate_pairs = len(shared)
    # how far one shared fingerprint can reach: k characters at each place it occurs
    reach = [k * max((len(v) for v in fp.hash_idx.values()), default=0) for fp in prints]
    own_spans: dict[int, np.ndarray] = {}  # an answer compared with itself: all its own code
    starts: dict[int, np.ndarray] = {}

    def lines(index: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        if index not in starts:
            starts[index] = _line_starts(answers[index][1])
        return _line_ranges(starts[index], spans)

    for i, j, count in zip(first.tolist(), second.tolist(), shared.tolist(), strict=True):
        fa, fb = prints[i], prints[j]
        own_a, own_b = fa.token_coverage, fb.token_coverage
        bound = min(own_a, count * reach[i]) + min(own_b, count * reach[j])
        if bound < settings.list_floor * (own_a + own_b):
            continue
        result.compared_pairs += 1
        if fa.filtered_code == fb.filtered_code:
            # the same normalised answer: everything of its own matches, as copydetect
            # finds comparing each with itself (once per answer, not once per pair)
            for index in (i, j):
                if index not in own_spans:
                    own_spans[index] = compare_files(prints[index], prints[index])[2][0]
            sim_a = sim_b = 1.0
            slices_a, slices_b = own_spans[i], own_spans[j]
        else:
            _, (sim_a, sim_b), (slices_a, slices_b) = compare_files(fa, fb)
        score = (sim_a * own_a + sim_b * own_b) / (own_a + own_b)
        (sa, code_a), (sb, code_b) = answers[i], answers[j]
        by_statements = statement_score(kept_stmts[i], kept_stmts[j])
        if by_statements is not None and by_statements[0] > score:
            score, sim_a, sim_b, lines_a, lines_b = by_statements
            if score < settings.list_floor:
                continue
            spans_a = _line_spans(code_a, lines_a)
            spans_b = _line_spans(code_b, lines_b)
        else:
            if score < settings.list_floor:
                continue
            spans_a, spans_b = _spans(slices_a, code_a), _spans(slices_b, code_b)
            lines_a, lines_b = lines(i, spans_a), lines(j, spans_b)
        if sb < sa:
            sa, sb, spans_a, spans_b = sb, sa, spans_b, spans_a
            sim_a, sim_b, lines_a, lines_b = sim_b, sim_a, lines_b, lines_a
        result.pairs.append(
            Pair(
                exercise,
                sa,
                sb,
                round(float(score), 4),
                round(float(sim_a), 4),
                round(float(sim_b), 4),
                spans_a,
                spans_b,
                lines_a,
                lines_b,
            )
        )
    result.pairs.sort(key=lambda p: (-p.score, p.student_a, p.student_b))
    return result
