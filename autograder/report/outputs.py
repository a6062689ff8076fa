"""What a grading run writes: results.json (the run's results as data), grades.csv
(nbgrader's export columns + flags), feedback HTML per student and notebook, and a summary
table per assignment. The CSV and the summary are views of the same results."""

from __future__ import annotations

import csv
import html
import json
import shutil
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from nbgrader.plugins.export import CsvExportPlugin
from traitlets import Dict

from autograder.course import Course
from autograder.models import SubmissionResult
from lecture.assets import FEEDBACK_MATHJAX, copy_mathjax, mathjax_available

#: nbgrader's CsvExportPlugin columns, in its order, and ours after them.
EXPORT_COLUMNS = [
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
]
COLUMNS = [*EXPORT_COLUMNS, "flags"]


class FlaggedCsvExportPlugin(CsvExportPlugin):
    """nbgrader's CSV export with a ``flags`` column, properly quoted, for the students and
    assignments of one run (``student``/``assignment`` traits, as in nbgrader's plugin).

    ``flags`` maps "assignment/student" to a list of readable strings.
    """

    flags = Dict({}, help="'assignment/student' -> list of flags").tag(config=True)

    def export(self, gradebook) -> None:
        from nbgrader.api import MissingEntry

        dest = self.to or "grades.csv"
        students = [str(s) for s in self.student]
        assignments = [str(a) for a in self.assignment]
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(COLUMNS)
            for assignment in sorted(gradebook.assignments, key=lambda a: a.name):
                if assignments and assignment.name not in assignments:
                    continue
                for student in sorted(gradebook.students, key=lambda s: s.id):
                    if students and student.id not in students:
                        continue
                    # the same values nbgrader's CsvExportPlugin computes
                    row = {
                        "assignment": assignment.name,
                        "duedate": assignment.duedate,
                        "student_id": student.id,
                        "last_name": student.last_name,
                        "first_name": student.first_name,
                        "email": student.email,
                        "max_score": assignment.max_score,
                    }
                    try:
                        submission = gradebook.find_submission(assignment.name, student.id)
                    except MissingEntry:
                        row.update(timestamp="", raw_score=0.0, late_submission_penalty=0.0)
                        row["score"] = 0.0
                    else:
                        penalty = submission.late_submission_penalty
                        row["timestamp"] = submission.timestamp
                        row["raw_score"] = submission.score
                        row["late_submission_penalty"] = penalty
                        row["score"] = max(0.0, submission.score - penalty)
                    row["flags"] = "; ".join(self.flags.get(f"{assignment.name}/{student.id}", []))
                    writer.writerow(["" if row[c] is None else str(row[c]) for c in COLUMNS])


def export_grades(course: Course, results: Iterable[SubmissionResult], dest: Path) -> Path:
    """Write ``dest`` (grades.csv) for the students and assignments of ``results``."""
    results = list(results)
    plugin = FlaggedCsvExportPlugin(
        to=str(dest),
        student=sorted({r.student for r in results}),
        assignment=sorted({r.assignment for r in results}),
        flags={f"{r.assignment}/{r.student}": list(r.flags) for r in results},
    )
    with course.gradebook() as gb:
        plugin.export(gb)
    return dest


#: Version of results.json's layout; bump it when a key changes meaning or disappears.
RESULTS_FORMAT = 1


def results_data(
    results: Iterable[SubmissionResult], unmatched: Iterable[str] = ()
) -> dict[str, object]:
    """A run's results as plain data (what results.json holds).

    ``{"format": 1, "submissions": [...], "unmatched": [...]}``; each submission, sorted
    by assignment then student: ``student``, ``assignment``, ``score``, ``max_score``,
    ``tests`` (autograded grade id -> ``{"score", "max_score"}``), ``flags``, ``ok``,
    ``error`` and ``missing`` (notebooks that could not be graded and scored 0).
    """
    submissions = []
    for r in sorted(results, key=lambda r: (r.assignment, r.student)):
        submissions.append(
            {
                "student": r.student,
                "assignment": r.assignment,
                "score": r.score,
                "max_score": r.max_score,
                "tests": {
                    gid: {"score": float(score), "max_score": float(points)}
                    for gid, (score, points) in sorted(r.scores.items())
                },
                "flags": list(r.flags),
                "ok": bool(r.ok),
                "error": r.error,
                "missing": list(r.missing),
            }
        )
    return {"format": RESULTS_FORMAT, "submissions": submissions, "unmatched": list(unmatched)}


def write_results(
    results: Iterable[SubmissionResult], dest: Path, unmatched: Iterable[str] = ()
) -> Path:
    """Write :func:`results_data` to ``dest`` (results.json), atomically."""
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".tmp")
    text = json.dumps(results_data(results, unmatched), indent=1, ensure_ascii=False)
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(dest)
    return dest


_NOT_GRADED = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1><p>This notebook could not be graded and scored 0 points:</p>
<ul>{items}</ul></body></html>
"""


def copy_feedback(course_dir: Path, results: Iterable[SubmissionResult], out_dir: Path) -> int:
    """Copy each graded submission's feedback HTML to ``out_dir/feedback/<student>/
    <assignment>/<notebook>.html``, and write a short page for each notebook that could not
    be graded (missing or corrupt) saying why; returns how many files were written.
    MathJax, when installed, is copied once to ``out_dir/feedback/_mathjax/``."""
    count = 0
    for result in results:
        src = course_dir / "feedback" / result.student / result.assignment
        dest = out_dir / "feedback" / result.student / result.assignment
        if dest.exists():
            shutil.rmtree(dest)
        if src.is_dir():
            for page in sorted(src.glob("*.html")):
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(page, dest / page.name)
                count += 1
        for notebook in result.missing:
            target = dest / f"{notebook}.html"
            if target.exists():
                continue
            dest.mkdir(parents=True, exist_ok=True)
            items = "".join(f"<li>{html.escape(flag)}</li>" for flag in result.flags)
            title = html.escape(f"{result.assignment}: {notebook} ({result.student})")
            target.write_text(_NOT_GRADED.format(title=title, items=items), encoding="utf-8")
            count += 1
    if count and mathjax_available():
        # The pages load MathJax from feedback/_mathjax/ (see grading.feedback_config).
        copy_mathjax(out_dir / "feedback" / FEEDBACK_MATHJAX)
    return count


@dataclass
class AssignmentSummary:
    """Per-assignment figures of one grading run."""

    assignment: str
    submissions: int
    mean: float
    median: float
    max_score: float
    flagged: int
    pass_rates: dict[str, float]  # grade_id -> share of submissions with full points


def summarise(results: Iterable[SubmissionResult]) -> list[AssignmentSummary]:
    """Submissions, mean, median, per-test pass rates and flagged count per assignment."""
    grouped: dict[str, list[SubmissionResult]] = {}
    for result in results:
        grouped.setdefault(result.assignment, []).append(result)
    summaries = []
    for assignment in sorted(grouped):
        group = grouped[assignment]
        scores = [r.score for r in group]
        tests: dict[str, list[bool]] = {}
        max_score = 0.0
        for r in group:
            max_score = max(max_score, r.max_score)
            for grade_id, (score, points) in r.scores.items():
                tests.setdefault(grade_id, []).append(score >= points > 0)
        summaries.append(
            AssignmentSummary(
                assignment=assignment,
                submissions=len(group),
                mean=statistics.fmean(scores) if scores else 0.0,
                median=statistics.median(scores) if scores else 0.0,
                max_score=max_score,
                flagged=sum(1 for r in group if r.flags),
                pass_rates={t: sum(v) / len(group) for t, v in tests.items()},
            )
        )
    return summaries


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        cells = [str(c).ljust(w) for c, w in zip(row, widths, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_text(
    summaries: Sequence[AssignmentSummary], flagged: Mapping[str, list[str]] | None = None
) -> str:
    """The summary as Markdown: one table of assignments, then per-test pass rates."""
    header = ["assignment", "submissions", "mean", "median", "autograded max", "flagged"]
    rows = [
        [
            s.assignment,
            str(s.submissions),
            f"{s.mean:.2f}",
            f"{s.median:.2f}",
            f"{s.max_score:g}",
            str(s.flagged),
        ]
        for s in summaries
    ]
    parts = ["## Grading summary", "", _table(header, rows)]
    for s in summaries:
        parts += ["", f"### {s.assignment}: pass rate per test", ""]
        test_rows = [[t, f"{100 * rate:.0f}%"] for t, rate in s.pass_rates.items()]
        parts.append(_table(["test", "passed"], test_rows) if test_rows else "(no tests graded)")
    if flagged:
        parts += ["", "### Flagged submissions", ""]
        for key in sorted(flagged):
            parts.append(f"- {key}: " + "; ".join(flagged[key]))
    return "\n".join(parts) + "\n"
