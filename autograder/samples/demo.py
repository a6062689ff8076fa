"""The demo class: four sample students per assignment, built from the course's notebooks
and the sample answers of :mod:`autograder.samples`, in nbgrader's submitted layout."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import nbformat

from autograder.notebook import notebook_bytes
from autograder.samples import VARIANTS, combine_variants, make_submission

DEMO_STUDENTS = ("full_marks", "blank", "typical_bugs", "broken_notebook")


def build_demo_submissions(course_dir: Path, dest: Path, assignments: Iterable[str]) -> Path:
    """Write the demo class in nbgrader's submitted layout under ``dest``.

    Per assignment: ``full_marks`` (the instructor's solutions), ``blank`` (the release as
    handed out), ``typical_bugs`` (the assignment's typical-bug variants from
    ``autograder.samples``, combined where they touch different cells) and
    ``broken_notebook`` (a full-marks notebook cut off half-way, i.e. corrupt JSON).
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
        for student, content in contents.items():
            folder = dest / student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{assignment}.ipynb").write_bytes(content)
    return dest
