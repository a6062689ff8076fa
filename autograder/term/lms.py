"""Grades back into an LMS (``python -m autograder export LMS``): which grades are
exported — the assignments asked for (or every one of the gradebook), the class without the
canary's students — and the LMS's plugin (:mod:`autograder.lms`) that writes its import
file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from autograder.course import Course
from autograder.grading import CANARY_PREFIX
from autograder.lms.base import ExportOption, LmsPlugin, lms_exporters, lms_plugin
from autograder.lms.grades import ExportReport
from autograder.models import TermError


def export_to_lms(
    lms: str,
    course: Course,
    *,
    dest: str | Path | None = None,
    assignments: Iterable[str] | None = None,
    columns: Mapping[str, str] | None = None,
    options: Mapping[str, object] | None = None,
) -> ExportReport:
    """Write the course's grades (its gradebook, after the late penalties) as ``lms``'s
    import file to ``dest`` (default: the plugin's). ``assignments``: which (default:
    every one of the gradebook); ``columns``: assignment -> its column in the LMS
    (course.toml's key of the LMS's name); ``options``: the export's own options by their
    ``dest`` (the plugin's :class:`~autograder.lms.base.ExportOption`; None: not given).

    Raises
    ------
    TermError
        An unknown LMS, an option of another LMS's, an assignment never graded, or a file
        the LMS's importer would not read back.
    """
    plugin = lms_plugin(lms)
    if plugin is None or not plugin.exports():
        names = " or ".join(p.name for p in lms_exporters())
        raise TermError(f"unknown LMS {lms!r}; choose {names}")
    asked = list(assignments or [])
    traits = _traits(plugin, {k: v for k, v in (options or {}).items() if v is not None}, asked)
    with course.gradebook() as gb:
        present = sorted(a.name for a in gb.assignments)
        unknown = [a for a in asked if a not in present]
        if unknown:
            graded = ", ".join(present) or "none"
            raise TermError(f"{unknown[0]} has not been graded in this course (graded: {graded})")
        # the class: a canary a killed run left behind is none of it
        students = sorted(s.id for s in gb.students if not s.id.startswith(CANARY_PREFIX))
        names = asked or present
        if not names:
            raise TermError("nothing has been graded in this course yet")
        chosen = {a: c for a, c in (columns or {}).items() if a in names}
        exporter = plugin(assignment=names, student=students, columns=chosen, **traits)
        if dest is not None:
            exporter.to = str(dest)
        return exporter.export(gb)


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
