"""What a similarity run writes: ``similarity.csv`` (every pair listed, best first, with the
threshold), ``similarity.html`` (the pairs at or above the threshold side by side, their
matching code marked) and the line of ``summary.md``.

Both files name no verdict: a score is a reason to look at a pair. The page is safe to open
as the feedback pages are: everything a student wrote is escaped and cleaned with the
feedback pages' sanitiser (:func:`autograder.feedback.clean_html`), and the page carries
their Content-Security-Policy (:func:`autograder.feedback.content_security_policy`, with no
script allowed: the page has none) and loads nothing from anywhere. The CSV's cells are
guarded against formulas as grades.csv's are (:func:`autograder.report.csv_cell`).
"""

from __future__ import annotations

import csv
import html
from collections.abc import Iterable, Sequence
from pathlib import Path

from autograder.feedback import clean_html, content_security_policy
from autograder.models import PreparedSubmission
from autograder.report import csv_cell
from autograder.similarity.compare import SimilarityRun, compare_class, course_notebooks
from autograder.similarity.detect import Pair

CSV_NAME = "similarity.csv"
HTML_NAME = "similarity.html"
CSV_COLUMNS = [
    "exercise",
    "student_a",
    "student_b",
    "score",
    "share_a",
    "share_b",
    "matched_lines_a",
    "matched_lines_b",
    "threshold",
]
#: Pairs shown side by side in the page (the table lists every pair above the threshold).
MAX_SHOWN = 100
#: Pairs under the threshold the page lists (the CSV has them all).
MAX_BELOW = 20
#: Rows of the page's table of pairs at or above the threshold.
MAX_LISTED = 1000

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1400px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { background: #f4f6fa; border-left: 4px solid #6a8cc7; padding: 0.6em 1em; }
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.side h4 { margin: 0.3em 0; font-family: ui-monospace, monospace; }
pre { background: #fafafa; border: 1px solid #ddd; padding: 0.5em; overflow-x: auto;
      font: 13px/1.4 ui-monospace, monospace; margin: 0; }
pre mark { background: #ffe27a; color: inherit; }
.ln { color: #999; display: inline-block; width: 3em; user-select: none; }
section.pair { margin: 1.5em 0 2.5em; }
"""


def _lines(ranges: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)


def write_csv(run: SimilarityRun, dest: Path) -> Path:
    """``similarity.csv``: every pair listed, best first; each cell guarded like grades.csv's."""
    threshold = f"{run.settings.threshold:g}"
    with open(dest, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CSV_COLUMNS)
        for p in run.pairs:
            row = [
                p.exercise,
                p.student_a,
                p.student_b,
                f"{p.score:.3f}",
                f"{p.share_a:.3f}",
                f"{p.share_b:.3f}",
                _lines(p.lines_a),
                _lines(p.lines_b),
                threshold,
            ]
            writer.writerow([csv_cell(cell) for cell in row])
    return dest


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def code_html(code: str, spans: Sequence[tuple[int, int]]) -> str:
    """*code* as numbered, escaped lines with the character ranges *spans* in ``<mark>``,
    cleaned with the feedback pages' sanitiser."""
    marked = [False] * len(code)
    for begin, end in spans:
        begin, end = max(0, begin), min(len(code), end)
        while 0 < begin < end and _word(code[begin - 1]) and _word(code[begin]):
            begin -= 1  # whole words: a match starts and ends on a token's edge
        while begin < end < len(code) and _word(code[end - 1]) and _word(code[end]):
            end += 1
        for at in range(begin, end):
            marked[at] = True
    out, at = [], 0
    for number, line in enumerate(code.split("\n"), start=1):
        out.append(f'<span class="ln">{number}</span>')
        start = at
        while at < start + len(line):
            flag = marked[at]
            end = at
            while end < start + len(line) and marked[end] == flag:
                end += 1
            text = html.escape(code[at:end], quote=False)
            out.append(f"<mark>{text}</mark>" if flag else text)
            at = end
        out.append("\n")
        at += 1  # the newline
    return clean_html("".join(out))


def _pair_table(pairs: Sequence[Pair], linked: bool) -> str:
    rows = [
        "<table><thead><tr><th>#</th><th>exercise</th><th>student</th><th>student</th>"
        "<th>score</th><th>share of each one's own code</th><th>matched lines</th></tr>"
        "</thead><tbody>"
    ]
    for number, p in enumerate(pairs, start=1):
        label = f'<a href="#pair-{number}">{number}</a>' if linked and number <= MAX_SHOWN else ""
        rows.append(
            f"<tr><td>{label or number}</td><td>{_e(p.exercise)}</td><td>{_e(p.student_a)}</td>"
            f'<td>{_e(p.student_b)}</td><td class="num">{p.score:.2f}</td>'
            f'<td class="num">{p.share_a:.0%} / {p.share_b:.0%}</td>'
            f"<td>{_e(_lines(p.lines_a))} / {_e(_lines(p.lines_b))}</td></tr>"
        )
    rows.append("</tbody></table>")
    return "".join(rows)


def _pair_section(number: int, p: Pair, run: SimilarityRun) -> str:
    sides = []
    for student, spans, share in (
        (p.student_a, p.spans_a, p.share_a),
        (p.student_b, p.spans_b, p.share_b),
    ):
        code = run.answers.get((p.exercise, student), "")
        sides.append(
            f'<div class="side"><h4>{_e(student)}</h4>'
            f"<p>{share:.0%} of this answer's own code is found in the other answer.</p>"
            f"<pre>{code_html(code, spans)}</pre></div>"
        )
    return (
        f'<section class="pair"><h3 id="pair-{number}">{number}. {_e(p.exercise)}: '
        f"{_e(p.student_a)} and {_e(p.student_b)}, score {p.score:.2f}</h3>"
        f'<div class="sides">{"".join(sides)}</div></section>'
    )


def _exercise_table(run: SimilarityRun) -> str:
    threshold = run.settings.threshold
    rows = [
        "<table><thead><tr><th>exercise</th><th>answers</th><th>compared</th>"
        "<th>too short to tell</th><th>pairs compared</th><th>at or above the threshold</th>"
        "</tr></thead><tbody>"
    ]
    for e in run.exercises:
        above = sum(p.score >= threshold for p in e.pairs)
        if e.error:
            note = f"not compared: {_e(e.error)}"
        elif e.answers and not e.compared:
            note = "left out: every answer is too short to tell"
        else:
            note = ""
        rows.append(
            f"<tr><td>{_e(e.exercise)}</td><td class='num'>{e.answers}</td>"
            f"<td class='num'>{e.compared}</td><td class='num'>{len(e.too_short)}</td>"
            f"<td class='num'>{e.compared_pairs}</td><td class='num'>{above}</td>"
            + (f"<td>{note}</td>" if note else "<td></td>")
            + "</tr>"
        )
    rows.append("</tbody></table>")
    return "".join(rows)


def page(run: SimilarityRun) -> str:
    """``similarity.html`` as text (see the module's docstring)."""
    s = run.settings
    above = run.above
    below = [p for p in run.pairs if p.score < s.threshold][:MAX_BELOW]
    short = sum(len(e.too_short) for e in run.exercises)
    left_out = [e.exercise for e in run.exercises if e.answers and not e.compared]
    policy = html.escape(content_security_policy([]), quote=True)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="referrer" content="no-referrer">',
        "<title>Similar answers: look at these</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Similar answers: look at these</h1>",
        '<p class="note">Each pair is two students\' answers to one exercise whose own code '
        "matches: what they wrote beyond the notebook's code, the stub they were given and "
        "the reference solution, compared with names, comments, strings and layout set "
        "aside. The score is the share of the two answers' own code that matches, from 0 to "
        "1. A score is a reason to look at a pair and talk with the students, not a finding: "
        "short answers, a shared textbook idiom or working together as allowed can all make "
        "answers alike.</p>",
        f"<p>Threshold {s.threshold:g}: <strong>{len(above)}</strong> pairs at or above it, "
        f"among {run.all_pairs:,} pairs of answers of {run.students} students in "
        f"{len(run.exercises)} exercises. {short:,} answers had fewer than {s.min_own} "
        "characters of code of their own and are too short to tell (compared with nobody)"
        + (
            "; left out whole, every answer too short to tell: "
            + ", ".join(_e(x) for x in left_out)
            if left_out
            else ""
        )
        + f". {CSV_NAME} lists every pair scoring {s.list_floor:g} or more.</p>",
        "<h2>Pairs at or above the threshold</h2>",
        _pair_table(above[:MAX_LISTED], linked=True) if above else "<p>None.</p>",
    ]
    if len(above) > MAX_LISTED:
        parts.append(f"<p>and {len(above) - MAX_LISTED:,} more in {CSV_NAME}.</p>")
    if len(above) > MAX_SHOWN:
        parts.append(f"<p>The first {MAX_SHOWN} are shown side by side below.</p>")
    parts += [_pair_section(n, p, run) for n, p in enumerate(above[:MAX_SHOWN], start=1)]
    parts += [
        f"<h2>The next {len(below)} pairs, under the threshold</h2>",
        _pair_table(below, linked=False) if below else "<p>None.</p>",
        "<h2>Exercises</h2>",
        _exercise_table(run),
    ]
    if run.flags:
        parts += ["<h2>Answers cut or not compared</h2>", "<ul>"]
        for key in sorted(run.flags):
            parts.append(f"<li><code>{_e(key)}</code>: {_e('; '.join(run.flags[key]))}</li>")
        parts.append("</ul>")
    parts.append(
        f"<p>Detector: copydetect's fingerprints (k-grams of {s.k} normalised characters), "
        f"the notebook's own code as boilerplate, fingerprints held by more than "
        f"{s.common_share:.0%} of an exercise's answers (and {s.common_min}) set aside; "
        "compared offline.</p></body></html>"
    )
    return "\n".join(parts) + "\n"


def write_similarity(run: SimilarityRun, out_dir: Path) -> list[Path]:
    """Write ``similarity.csv`` and ``similarity.html`` into *out_dir*."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(run, out_dir / CSV_NAME)
    (out_dir / HTML_NAME).write_text(page(run), encoding="utf-8")
    return [out_dir / HTML_NAME, out_dir / CSV_NAME]


def summary_line(run: SimilarityRun) -> str:
    """summary.md's line: how many pairs are at or above the threshold."""
    count = len(run.above)
    threshold = f"{run.settings.threshold:g}"
    if not count:
        return (
            f"Similar answers: no pair scores {threshold} or more "
            f"({run.all_pairs:,} pairs of answers in {len(run.exercises)} exercises; "
            f"{HTML_NAME})."
        )
    pairs = "1 pair" if count == 1 else f"{count:,} pairs"
    return (
        f"Similar answers: {pairs} of answers score {threshold} or more: look at these in "
        f"{HTML_NAME} ({CSV_NAME} lists every pair from {run.settings.list_floor:g})."
    )


def report_class(
    prepared: Iterable[PreparedSubmission],
    course_root: Path,
    out_dir: Path,
    workers: int | None = None,
) -> SimilarityRun:
    """Compare a graded batch's notebooks (as handed in, under their proper names) with
    the course's source and release notebooks in *course_root*; write the report into
    *out_dir*. The run's :func:`summary_line` is the line for summary.md."""
    prepared = list(prepared)
    notebooks = course_notebooks(course_root, {p.assignment for p in prepared})
    submissions = [(p.student, p.assignment, p.notebooks) for p in prepared]
    run = compare_class(submissions, notebooks, workers=workers)
    write_similarity(run, out_dir)
    return run
