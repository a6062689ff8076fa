"""summary.md: per assignment, the number of submissions, mean, median and maximum (as
nbgrader's gradebook counts them: the points graded by hand included, and how many of the
maximum's points are graded by hand), flagged count, each autograded test's pass rate and
the misconceptions seen (what to re-teach), as Markdown tables;
then what awaits manual grading, per submission; then, per assignment, its due date and late
rule, the late submissions, the extensions and who handed nothing in (:class:`TermSummary`,
from :mod:`autograder.term`)."""

from __future__ import annotations

import html
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from autograder.course import ManualPending, Totals
from autograder.models import SubmissionResult
from autograder.report.results import totals_or_tests


@dataclass
class AssignmentSummary:
    """Per-assignment figures of one grading run."""

    assignment: str
    submissions: int
    mean: float
    median: float
    max_score: float  # nbgrader's: the autograded tests, the answers graded by hand, the tasks
    flagged: int
    pass_rates: dict[str, float]  # autograded test -> share of submissions with full points
    #: (misconception, exercise) -> (students, what it looks like), most students first; the
    #: misconception is None for failed exercises no catalogued misconception matched
    misconceptions: dict[tuple[str | None, str], tuple[int, str]] = field(default_factory=dict)
    #: grade_id -> submissions in which the trusted re-check left it to the kernel's verdict
    unchecked: dict[str, int] = field(default_factory=dict)
    #: the points of ``max_score`` graded by hand (answers and tasks)
    by_hand: float = 0.0


@dataclass
class TermSummary:
    """One assignment's term, as summary.md lists it: ``heading`` (its due date and late
    rule), the late submissions (student, handed in, late by, penalty), the extensions
    (student, new due date, outcome), those not graded (student, why), and the students
    with no submission or no known submission time; ``clock``: the course's time zone its
    times are shown in (the course's, so the same for every assignment: said once)."""

    assignment: str
    heading: str
    clock: str = ""
    late: list[tuple[str, str, str, str]] = field(default_factory=list)
    extensions: list[tuple[str, str, str]] = field(default_factory=list)
    not_graded: list[tuple[str, str]] = field(default_factory=list)
    no_submission: list[str] = field(default_factory=list)
    no_time: list[str] = field(default_factory=list)


def summarise(
    results: Iterable[SubmissionResult], totals: Mapping[tuple[str, str], Totals] | None = None
) -> list[AssignmentSummary]:
    """Submissions, mean, median, maximum, per-test pass rates and flagged count per
    assignment; ``totals``: (assignment, student) -> what each submission is worth, from the
    gradebook (:func:`~.manual.totals`; a result without them counts its autograded tests
    only)."""
    totals = totals or {}
    grouped: dict[str, list[SubmissionResult]] = {}
    for result in results:
        grouped.setdefault(result.assignment, []).append(result)
    summaries = []
    for assignment in sorted(grouped):
        group = grouped[assignment]
        worth = {r.student: totals_or_tests(r, totals) for r in group}
        scores = [worth[r.student].score for r in group]
        tests: dict[str, list[bool]] = {}
        unchecked: dict[str, int] = {}
        max_score = by_hand = 0.0
        # the tests in the order of each result's scores (the source notebooks'), the results
        # by student: the same table however the class's grading finished
        for r in sorted(group, key=lambda r: r.student):
            max_score = max(max_score, worth[r.student].max_score)
            by_hand = max(by_hand, worth[r.student].by_hand)
            for grade_id, (score, points) in r.scores.items():
                tests.setdefault(grade_id, []).append(score >= points > 0)
            for grade_id in r.unchecked:
                unchecked[grade_id] = unchecked.get(grade_id, 0) + 1
        summaries.append(
            AssignmentSummary(
                assignment=assignment,
                submissions=len(group),
                mean=statistics.fmean(scores) if scores else 0.0,
                median=statistics.median(scores) if scores else 0.0,
                max_score=max_score,
                flagged=sum(1 for r in group if r.flags),
                pass_rates={t: sum(v) / len(group) for t, v in tests.items()},
                misconceptions=_misconceptions(group),
                unchecked=unchecked,
                by_hand=by_hand,
            )
        )
    return summaries


def _misconceptions(
    group: Iterable[SubmissionResult],
) -> dict[tuple[str | None, str], tuple[int, str]]:
    """(misconception, exercise) -> (how many students, what it looks like), from the
    results' diagnoses, most students first (then by exercise and id)."""
    seen: dict[tuple[str | None, str], list[str]] = {}
    words: dict[tuple[str | None, str], str] = {}
    for result in group:
        for exercise, record in result.diagnoses.items():
            ident = record.get("misconception")
            if record.get("timed_out") is not None:
                ident, text = None, "did not return in time"
            elif ident:
                text = str(record.get("says", ""))
            else:
                text = "no catalogued misconception matched (the smallest failing probe shown)"
            key = (str(ident) if ident else None, str(record.get("exercise", exercise)))
            seen.setdefault(key, []).append(result.student)
            words.setdefault(key, text)
    order = sorted(seen, key=lambda k: (-len(set(seen[k])), k[1], k[0] or ""))
    return {key: (len(set(seen[key])), words[key]) for key in order}


def _code(text: str) -> str:
    """*text* (a student-chosen name) as a Markdown code span: shown as it is, never HTML or
    a link."""
    text = " ".join(str(text).replace("`", "'").split())
    return f"`{text}`"


def _inert(text: str) -> str:
    """*text* (a flag, which may quote student-chosen names) as Markdown that renders as
    text: HTML escaped, link brackets escaped, on one line."""
    text = html.escape(" ".join(str(text).split()), quote=False)
    return text.replace("[", "\\[").replace("]", "\\]")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        cells = [str(c).ljust(w) for c, w in zip(row, widths, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _manual_lines(manual: Mapping[tuple[str, str], ManualPending]) -> list[str]:
    pending = {key: p for key, p in manual.items() if p.answers}
    if not pending:
        return []
    answers = sum(p.answers for p in pending.values())
    points = sum(p.points for p in pending.values())
    lines = [
        "",
        "### Awaiting manual grading",
        "",
        f"{_count(answers, 'answer')} worth {points:g} points in"
        f" {_count(len(pending), 'submission')}: grade them"
        " in nbgrader's formgrader; the next grade run exports the points to grades.csv.",
        "",
    ]
    for (assignment, student), p in sorted(pending.items()):
        lines.append(
            f"- {_code(f'{assignment}/{student}')}: {_count(p.answers, 'answer')},"
            f" {p.points:g} points"
        )
    return lines


def _term_lines(terms: Sequence[TermSummary]) -> list[str]:
    if not terms:
        return []
    lines = ["", "### Due dates, late submissions and extensions"]
    if terms[0].clock:
        lines += [
            "",
            f"Times are on the course's clock, {_inert(terms[0].clock)}, with their offset from "
            "UTC (grades.csv's `duedate` and `timestamp` too).",
        ]
    for term in terms:
        lines += ["", f"#### {term.assignment}: {_inert(term.heading)}", ""]
        if term.late:
            header = ["late submission", "handed in", "late by", "penalty"]
            rows = [[_code(s), _inert(t), _inert(d), _inert(p)] for s, t, d, p in term.late]
            lines += [_table(header, rows), ""]
        else:
            lines += ["No late submission.", ""]
        for student, due, status in term.extensions:
            lines.append(f"- extension: {_code(student)} due {_inert(due)}: {_inert(status)}")
        for student, why in term.not_graded:
            lines.append(f"- not graded: {_code(student)}: {_inert(why)}")
        if term.no_submission:
            names = ", ".join(_code(s) for s in term.no_submission)
            lines.append(f"- no submission ({len(term.no_submission)}): {names}")
        if term.no_time:
            names = ", ".join(_code(s) for s in term.no_time)
            lines.append(f"- no submission time, graded as on time: {names}")
        if lines[-1] == "":
            lines.pop()
    return lines


def summary_text(
    summaries: Sequence[AssignmentSummary],
    flagged: Mapping[str, list[str]] | None = None,
    manual: Mapping[tuple[str, str], ManualPending] | None = None,
    similarity: str | None = None,
    terms: Sequence[TermSummary] = (),
    uncatalogued: Sequence[str] = (),
    instructor_failures: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The summary as Markdown: one table of assignments (their maximum and its points
    graded by hand; a line saying so when some are), then per-test pass rates (and,
    once, ``uncatalogued``: the assignments with no catalogue of misconceptions, whose
    failed exercises are not diagnosed), then
    (``manual``: (assignment, student) -> what awaits manual grading) the submissions with
    answers to grade by hand and the total, then (``terms``) each assignment's due date,
    late submissions and extensions, then (``similarity``: the similarity report's line)
    how many pairs of answers look alike, then the flagged submissions. A test the trusted
    re-check left to the kernel's verdict gets a column of its count; ``instructor_failures``
    (assignment -> grade id -> why): the tests the instructor's own solution fails, as
    under stock nbgrader."""
    header = ["assignment", "submissions", "mean", "median", "max", "of it by hand", "flagged"]
    rows = [
        [
            s.assignment,
            str(s.submissions),
            f"{s.mean:.2f}",
            f"{s.median:.2f}",
            f"{s.max_score:g}",
            f"{s.by_hand:g}",
            str(s.flagged),
        ]
        for s in summaries
    ]
    parts = ["## Grading summary", "", _table(header, rows)]
    if any(s.by_hand for s in summaries):
        parts += [
            "",
            "Scores and maxima as nbgrader's gradebook counts them (before late "
            "penalties): the points graded by hand (answers and tasks, in nbgrader's "
            "formgrader) are in the maximum, and in a score once given.",
        ]
    if uncatalogued:
        graded = {s.assignment for s in summaries}
        which = (
            "this course"
            if graded <= set(uncatalogued)
            else ", ".join(a for a in uncatalogued if a in graded)
        )
        if graded & set(uncatalogued):
            parts += [
                "",
                f"No misconception catalogue for {which}: its failed exercises are not "
                "diagnosed (a `misconceptions.toml` beside a notebook adds one).",
            ]
    for s in summaries:
        parts += ["", f"### {s.assignment}: pass rate per autograded test", ""]
        own = (instructor_failures or {}).get(s.assignment, {})
        if own:
            parts += [
                "The instructor's own solution fails "
                + "; ".join(f"{_code(gid)} ({_inert(why)})" for gid, why in sorted(own.items()))
                + ", outside the sandbox too: scored as stock nbgrader scores it.",
                "",
            ]
        test_rows = [[t, f"{100 * rate:.0f}%"] for t, rate in s.pass_rates.items()]
        header = ["test", "passed"]
        if s.unchecked:
            header.append("not re-checked")
            test_rows = [[*row, str(s.unchecked.get(row[0], 0))] for row in test_rows]
        parts.append(_table(header, test_rows) if test_rows else "(no tests graded)")
        if s.misconceptions:
            parts += ["", f"### {s.assignment}: misconceptions seen (what to re-teach)", ""]
            rows = [
                [
                    _code(ident) if ident else "—",
                    _code(exercise),
                    str(count),
                    _inert(text).replace("|", "\\|"),
                ]
                for (ident, exercise), (count, text) in s.misconceptions.items()
            ]
            header = ["misconception", "exercise", "students", "what it looks like"]
            parts.append(_table(header, rows))
    parts += _manual_lines(manual or {})
    parts += _term_lines(terms)
    if similarity:
        parts += ["", _inert(similarity)]
    if flagged:
        parts += ["", "### Flagged submissions", ""]
        for key in sorted(flagged):
            parts.append(f"- {_code(key)}: " + _inert("; ".join(flagged[key])))
    return "\n".join(parts) + "\n"
