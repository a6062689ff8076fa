"""The demo class: four sample students per assignment, built from the course's notebooks
and the sample answers of :mod:`autograder.samples`, in nbgrader's submitted layout, each
submission with nbgrader's ``timestamp.txt``; and the demo term's course.toml: weekly due
dates, a late rule, one extension (``full_marks``) and one late student (``typical_bugs``),
both on the week daylight saving time ends; and, in one assignment, a pair of students whose
answers the similarity report shows."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import nbformat

from autograder.notebook import notebook_bytes
from autograder.samples import (
    ASSIGNMENTS,
    VARIANTS,
    Variant,
    combine_variants,
    make_submission,
)
from autograder.samples.copies import add_comments, rename_locals
from course_common.paths import NOTEBOOKS_DIR

DEMO_STUDENTS = ("full_marks", "blank", "typical_bugs", "broken_notebook")
#: Two more students, in :data:`DEMO_PAIR_ASSIGNMENT` only: the first answers the correct
#: sample answers in styles other than the instructor's, the second hands in the same
#: answers with the variables renamed and comments and blank lines added.
DEMO_PAIR = ("own_style", "own_style_reworded")
#: The demo's choices, the course's data (``notebooks/demo.toml``).
DEMO_CHOICES = tomllib.loads((NOTEBOOKS_DIR / "demo.toml").read_text(encoding="utf-8"))
DEMO_PAIR_ASSIGNMENT: str = DEMO_CHOICES["pair"]


def _pair(release_nb: Path, source_nb: Path, assignment: str) -> dict[str, bytes]:
    first: dict[str, str] = {}
    for variant in VARIANTS.get(assignment, []):
        if variant.correct and len(variant.replace) == 1:
            for cell, code in variant.replace.items():
                first.setdefault(cell, code)
    reworded = {
        cell: add_comments(rename_locals(code, seed=n), seed=n)
        for n, (cell, code) in enumerate(first.items())
    }
    own, other = DEMO_PAIR
    return {
        own: notebook_bytes(make_submission(release_nb, source_nb, first)),
        other: notebook_bytes(make_submission(release_nb, source_nb, reworded)),
    }


DEMO_TIMEZONE = "Europe/Berlin"
#: The first assignment is due Friday 3 October 2025, 23:59 in Berlin, each next one a week
#: later; the fourth is due Friday 24 October, and daylight saving time ends on Sunday 26
#: October.
FIRST_DUE = datetime(2025, 10, 3, 23, 59, tzinfo=ZoneInfo(DEMO_TIMEZONE))
#: The assignment with the late submission and the extension (the last one given if the
#: demo grades fewer assignments).
SPECIAL_ASSIGNMENT: str = DEMO_CHOICES["late"]
#: typical_bugs hands it in on Sunday 10:01 (after the clocks went back): 1 day 11 h 2 min
#: late, in the second started day on the course's clock: 2 x 10 % of the score.
LATE_STUDENT = "typical_bugs"
LATE_AT = timedelta(days=1, hours=10, minutes=2)  # after the due date, on the wall clock
#: full_marks has three more days (an illness) and hands it in on Sunday 12:00: on time.
EXTENDED_STUDENT = "full_marks"
EXTENSION = "+3 days"
EXTENDED_AT = timedelta(days=1, hours=12, minutes=1)
#: when the others hand in: hours before the due date (23:59)
ON_TIME_BEFORE = {"full_marks": 5, "blank": 23, "typical_bugs": 1, "broken_notebook": 3}


def demo_assignment_due(assignment: str) -> datetime:
    """The demo term's due date of ``assignment`` (weekly from :data:`FIRST_DUE`, in the
    course's order; an assignment the course does not list comes after its last)."""
    week = ASSIGNMENTS.index(assignment) if assignment in ASSIGNMENTS else len(ASSIGNMENTS)
    return FIRST_DUE + timedelta(days=7 * week)


def special_assignment(assignments: Sequence[str]) -> str:
    """The assignment with the demo's late submission and extension."""
    return SPECIAL_ASSIGNMENT if SPECIAL_ASSIGNMENT in assignments else assignments[-1]


def demo_submitted_at(student: str, assignment: str, assignments: Sequence[str]) -> datetime:
    """When ``student`` hands ``assignment`` in, in the demo term."""
    due = demo_assignment_due(assignment)
    if assignment == special_assignment(assignments):
        if student == LATE_STUDENT:
            return due + LATE_AT
        if student == EXTENDED_STUDENT:
            return due + EXTENDED_AT
    return due - timedelta(hours=ON_TIME_BEFORE.get(student, 2))


def demo_calendar(assignments: Sequence[str]) -> str:
    """The demo term's course.toml for ``assignments``."""
    special = special_assignment(assignments)
    lines = [
        "# The demo course's calendar and late policy (see docs/instructor/term.md)",
        f'timezone = "{DEMO_TIMEZONE}"',
        'policy = "latest"',
        "",
        "[late]",
        'rule = "per-day"',
        "percent = 10",
        "cap = 50",
        'close = "+7 days"',
    ]
    for assignment in assignments:
        due = demo_assignment_due(assignment).strftime("%Y-%m-%dT%H:%M:%S")
        lines += ["", f"[assignments.{assignment}]", f"due = {due}"]
    lines += [
        "",
        "[[extensions]]",
        f'student = "{EXTENDED_STUDENT}"',
        f'assignment = "{special}"',
        f'due = "{EXTENSION}"',
        'reason = "illness"',
    ]
    return "\n".join(lines) + "\n"


def write_demo_calendar(course_dir: Path, assignments: Iterable[str]) -> Path:
    """Write the demo term's course.toml into the demo's course folder."""
    path = Path(course_dir) / "course.toml"
    path.write_text(demo_calendar(list(assignments)), encoding="utf-8")
    return path


def nbgrader_timestamp(moment: datetime) -> str:
    """``moment`` as ``nbgrader submit`` writes timestamp.txt (its default: UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f %Z")


def build_demo_submissions(course_dir: Path, dest: Path, assignments: Iterable[str]) -> Path:
    """Write the demo class in nbgrader's submitted layout under ``dest``.

    Per assignment: ``full_marks`` (the instructor's solutions), ``blank`` (the release as
    handed out), ``typical_bugs`` (the assignment's typical-bug variants from
    ``autograder.samples``, combined where they touch different cells) and
    ``broken_notebook`` (a full-marks notebook cut off half-way, i.e. corrupt JSON); in
    :data:`DEMO_PAIR_ASSIGNMENT`, also the two students of :data:`DEMO_PAIR` (both with
    full marks); each
    with a ``timestamp.txt`` (:func:`demo_submitted_at`).
    """
    dest = Path(dest)
    assignments = list(assignments)
    for assignment in assignments:
        release_nb = Path(course_dir) / "release" / assignment / f"{assignment}.ipynb"
        source_nb = Path(course_dir) / "source" / assignment / f"{assignment}.ipynb"
        full = make_submission(release_nb, source_nb)
        bugs: list[Variant] = []
        used: set[str] = set()
        for variant in VARIANTS.get(assignment, []):
            # two bugs in different answers: a partial score, not a near zero
            if variant.lost and not (set(variant.replace) & used) and len(bugs) < 2:
                bugs.append(variant)
                used |= set(variant.replace)
        buggy = (
            make_submission(release_nb, source_nb, combine_variants("typical_bugs", bugs).replace)
            if bugs
            else full
        )
        blank = nbformat.read(release_nb, as_version=4)
        full_bytes = notebook_bytes(full)
        contents = {
            "full_marks": full_bytes,
            "blank": notebook_bytes(blank),
            "typical_bugs": notebook_bytes(buggy),
            "broken_notebook": full_bytes[: len(full_bytes) // 2],
        }
        if assignment == DEMO_PAIR_ASSIGNMENT:
            contents.update(_pair(release_nb, source_nb, assignment))
        for student, content in contents.items():
            folder = dest / student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{assignment}.ipynb").write_bytes(content)
            moment = demo_submitted_at(student, assignment, assignments)
            (folder / "timestamp.txt").write_text(nbgrader_timestamp(moment) + "\n")
    return dest
