"""Grades back into an LMS (``python -m autograder export LMS``): which grades are
exported — the assignments with a graded submission (or those asked for, or every one of
the gradebook), the class without the canary's students — what of them still awaits
manual grading, and the LMS's plugin (:mod:`autograder.lms`) that writes its import file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from autograder.course import Course, assignment_points, load_submissions, pending_of
from autograder.lms.base import ExportOption, LmsPlugin, lms_exporters, lms_plugin
from autograder.lms.grades import ExportReport, listed, points
from autograder.models import TermError
from autograder.text import listing


def export_to_lms(
    lms: str,
    course: Course,
    *,
    dest: str | Path | None = None,
    assignments: Iterable[str] | None = None,
    all_assignments: bool = False,
    columns: Mapping[str, str] | None = None,
    options: Mapping[str, object] | None = None,
) -> ExportReport:
    """Write the course's grades (its gradebook, after the late penalties) as ``lms``'s
    import file to ``dest`` (default: the plugin's). ``assignments``: which (default:
    every assignment with a graded submission; ``all_assignments``: every one of the
    gradebook); ``columns``: assignment -> its column in the LMS (course.toml's key of the
    LMS's name); ``options``: the export's own options by their ``dest`` (the plugin's
    :class:`~autograder.lms.base.ExportOption`; None: not given).

    The report's ``notes`` name the assignments left out and, of each assignment with
    points graded by hand, that its total (the LMS's points possible) includes them and
    whose still await a hand grade; its ``warnings`` say when answers still await manual
    grading (the exported scores lack their points).

    Raises
    ------
    TermError
        An unknown LMS, an option of another LMS's, an assignment never graded, or a file
        the LMS's importer would not read back.
    """
    # imported here: the grading layer imports its worker pool
    from autograder.grading import CANARY_PREFIX

    plugin = lms_plugin(lms)
    if plugin is None or not plugin.exports():
        choices = " or ".join(p.name for p in lms_exporters())
        raise TermError(f"unknown LMS {lms!r}; choose {choices}")
    asked = list(assignments or [])
    traits = _traits(plugin, {k: v for k, v in (options or {}).items() if v is not None}, asked)
    left_out: list[str] = []
    with course.gradebook() as gb:
        present = sorted(a.name for a in gb.assignments)
        unknown = [a for a in asked if a not in present]
        if unknown:
            known = ", ".join(present) or "none"
            raise TermError(f"{unknown[0]} has not been graded in this course (graded: {known})")
        # the class: a canary a killed run left behind is none of it
        students = sorted(s.id for s in gb.students if not s.id.startswith(CANARY_PREFIX))
        class_ = set(students)
        found = {
            key: submission
            for key, submission in load_submissions(gb, asked or present).items()
            if key[1] in class_
        }
        if asked:
            names = asked
        elif all_assignments:
            names = present
        else:
            graded = {a for a, _ in found}
            names = [a for a in present if a in graded]
            left_out = [a for a in present if a not in graded]
        if not names:
            raise TermError("nothing has been graded in this course yet")
        chosen = {a: c for a, c in (columns or {}).items() if a in names}
        exporter = plugin(assignment=names, student=students, columns=chosen, **traits)
        if dest is not None:
            exporter.to = str(dest)
        report = exporter.export(gb)
        pending = [(key, pending_of(s)) for key, s in found.items() if key[0] in names]
        worth = {a.name: assignment_points(a) for a in gb.assignments if a.name in names}
    for name in names:
        total, by_hand = worth.get(name, (0.0, 0.0))
        if not by_hand:
            continue
        awaiting = sorted(s for (a, s), p in pending if a == name and p.answers)
        report.notes.append(
            f"{name}: out of {points(total)} points, {points(by_hand)} of them graded by hand "
            "(answers and tasks, in nbgrader's formgrader): "
            + (
                f"awaiting a hand grade ({len(awaiting)}): {listed(awaiting)}"
                if awaiting
                else "none awaits a hand grade"
            )
        )
    if left_out:
        report.notes.append(
            f"not written, nothing graded yet (--all-assignments writes them too): "
            f"{listed(left_out)}"
        )
    waiting = [(key, p) for key, p in pending if p.answers]
    if waiting:
        answers = sum(p.answers for _, p in waiting)
        lacking = sum(p.points for _, p in waiting)
        which = listing(sorted({a for (a, _), _ in waiting}))
        report.warnings.append(
            f"{answers} answer{'s' * (answers != 1)} graded by hand of {len(waiting)} "
            f"submission{'s' * (len(waiting) != 1)} ({which}) still "
            f"await{'s' * (answers == 1)} manual grading: "
            f"the exported scores lack their {points(lacking)} points (grade them in "
            "nbgrader's formgrader, then export again)"
        )
    return report


def _traits(plugin: type[LmsPlugin], given: Mapping[str, object], asked: list[str]) -> dict:
    """The plugin's traits the ``given`` options set, each checked to be the plugin's."""
    own: dict[str, ExportOption] = {o.dest: o for o in plugin.options}
    traits: dict[str, object] = {}
    for dest, value in given.items():
        option = own.get(dest)
        if option is None:
            owners = [p.title for p in lms_exporters() if any(o.dest == dest for o in p.options)]
            flag = "--" + dest.replace("_", "-")
            takes = ", ".join(o.flag for o in plugin.options) or "none of these"
            raise TermError(
                f"{flag} is {' and '.join(owners) or 'no LMS'}'s, not {plugin.title}'s "
                f"({plugin.title} takes {takes})"
            )
        if option.one_assignment and len(asked) != 1:
            raise TermError(
                f"{plugin.title}'s {option.flag} is one assignment's: give one --assignment"
            )
        traits[option.trait] = str(value) if option.path else value
    return traits
