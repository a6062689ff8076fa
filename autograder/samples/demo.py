"""The demo class: four sample students per assignment, built from the course's notebooks
and the sample answers of :mod:`autograder.samples`, in nbgrader's submitted layout; and,
in one assignment, a pair of students whose answers the similarity report shows."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import nbformat

from autograder.notebook import notebook_bytes
from autograder.samples import VARIANTS, combine_variants, make_submission
from autograder.samples.copies import add_comments, rename_locals

DEMO_STUDENTS = ("full_marks", "blank", "typical_bugs", "broken_notebook")
#: Two more students, in :data:`DEMO_PAIR_ASSIGNMENT` only: the first answers the correct
#: sample answers in styles other than the instructor's, the second hands in the same
#: answers with the variables renamed and comments and blank lines added.
DEMO_PAIR = ("own_style", "own_style_reworded")
DEMO_PAIR_ASSIGNMENT = "02_perceptron_update"


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


def build_demo_submissions(course_dir: Path, dest: Path, assignments: Iterable[str]) -> Path:
    """Write the demo class in nbgrader's submitted layout under ``dest``.

    Per assignment: ``full_marks`` (the instructor's solutions), ``blank`` (the release as
    handed out), ``typical_bugs`` (the assignment's typical-bug variants from
    ``autograder.samples``, combined where they touch different cells) and
    ``broken_notebook`` (a full-marks notebook cut off half-way, i.e. corrupt JSON); in
    :data:`DEMO_PAIR_ASSIGNMENT`, also the two students of :data:`DEMO_PAIR` (both with
    full marks).
    """
    dest = Path(dest)
    for assignment in assignments:
        release_nb = Path(course_dir) / "release" / assignment / f"{assignment}.ipynb"
        source_nb = Path(course_dir) / "source" / assignment / f"{assignment}.ipynb"
        full = make_submission(release_nb, source_nb)
        bugs, used = [], set()
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
    return dest
