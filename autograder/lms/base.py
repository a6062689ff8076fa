"""The LMS plugin — what one learning management system is to the grader, in one class —
and the registry of them.

A plugin says three things of its LMS:

- **intake**: how its bulk download names a student's files (``named_regexp``, read with
  nbgrader's ``FileNameCollectorPlugin``: :meth:`LmsPlugin.collect_all`), and what the
  names carry besides the student and the file (the student's name, a late mark, an
  upload's number, a time: the groups below);
- **times**: the file of submission times it gives (``--times``), read by
  :meth:`LmsPlugin.read_times`;
- **export**: its gradebook's import file, written by :meth:`LmsPlugin.export` from
  nbgrader's gradebook, with the options it takes on the command line (``options``).

Its shape is nbgrader's own: ``named_regexp`` and ``collect`` as nbgrader's
``FileNameCollectorPlugin`` (``nbgrader zip_collect``'s plugin), the traits ``to``,
``student``, ``assignment`` and ``export(gradebook)`` as its ``ExportPlugin`` (``nbgrader
export``'s). It is not their subclass: importing nbgrader takes seconds, and ``python -m
autograder --help`` reads the registry for its choices.

A plugin without a ``named_regexp`` is an LMS the grader only exports to: intake passes it
over (:func:`lms_intakes`), as nbgrader's ``FileNameCollectorPlugin`` collects nothing
without its regexp; one with neither intake nor export is refused.

A plugin is a subclass of :class:`LmsPlugin` decorated with :func:`register`: the modules
of :mod:`autograder.lms.plugins`, one per LMS, are imported when the registry is first
read, so adding an LMS is adding a module there. The command line's choices (``--lms``,
``export LMS`` and its options), intake's layouts, the times files and course.toml's
column keys all come from :func:`lms_plugins`.

The groups of ``named_regexp`` that intake reads: ``student_id`` and ``file_id``
(nbgrader's, required); ``name`` (the student's name as the LMS writes it: kept in the
gradebook and in the feedback folder's name), ``late`` (matched: the LMS marked the
submission late), ``submission_id`` (a number: of two files of the same name the higher
is the later upload), ``assignment`` (the assignment, when the names say it),
``submission`` (one of several submissions of a student: a folder of its own) and
``timestamp`` (when it was handed in, read by :meth:`LmsPlugin.submitted_at`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, ClassVar

from traitlets import Dict, HasTraits, List, Unicode

from autograder.lms.times import SubmissionTimes, read_timestamp

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

    from autograder.lms.grades import ExportReport

#: The package whose modules are the LMS plugins (each imported when the registry is read).
PLUGIN_PACKAGE = "autograder.lms.plugins"
#: Layouts that are not an LMS's (``--lms``): told apart, nbgrader's submitted layout.
RESERVED_NAMES = ("auto", "nbgrader")
_NAME = re.compile(r"[a-z][a-z0-9-]{0,30}")


@dataclass(frozen=True)
class ExportOption:
    """A command-line option of an LMS's export (``--gradebook FILE``): the plugin's trait
    it sets, its help, and whether it is a file; ``one_assignment``: it is of one
    assignment (``--assignment`` must name exactly one)."""

    flag: str
    trait: str
    help: str
    metavar: str = "FILE"
    path: bool = True
    one_assignment: bool = False

    @property
    def dest(self) -> str:
        """The option's name in the parsed arguments and in the export's ``options``."""
        return self.flag.removeprefix("--").replace("-", "_")


class LmsPlugin(HasTraits):
    """One learning management system (see the module docstring). Subclasses set the
    class variables and ``named_regexp``, and override what their LMS has."""

    #: its name: ``--lms NAME``, ``export NAME``, course.toml's column key
    name: ClassVar[str] = ""
    #: how it is written in a sentence ("Canvas")
    title: ClassVar[str] = ""
    #: what its bulk download is (``--lms``'s help)
    description: ClassVar[str] = ""
    #: where it comes in the detection of a layout (lower first; nbgrader's layout last)
    order: ClassVar[int] = 100
    #: the files nbgrader writes beside a submission's notebooks (``timestamp.txt``, read
    #: as its time; ``submission_secret.txt``, passed over) are nbgrader's: the exchange's
    nbgrader_files: ClassVar[bool] = False
    #: its times file, as messages name it ("" when it gives none)
    times_file: ClassVar[str] = ""
    #: course.toml's ``[assignments.X]`` takes a key of this plugin's name: the
    #: assignment's column in the LMS (its ``columns``), described so ("" when it takes none)
    column_key: ClassVar[str] = ""
    #: what its export writes and how the LMS takes it (``export --help``)
    export_help: ClassVar[str] = ""
    #: the export's own command-line options
    options: ClassVar[tuple[ExportOption, ...]] = ()

    named_regexp = Unicode(
        "", help="nbgrader's FileNameCollectorPlugin's: the groups of a submitted file's name"
    )
    to = Unicode("", help="nbgrader's ExportPlugin's: the file to write")
    student = List(Unicode(), help="the students to export (none given: every one)")
    assignment = List(Unicode(), help="the assignments to export")
    columns = Dict(value_trait=Unicode(), help="assignment -> its column in the LMS")

    # ---------------------------------------------------------------- intake

    @classmethod
    def intakes(cls) -> bool:
        """Whether the grader reads the LMS's downloads (it has a ``named_regexp``)."""
        return bool(cls().named_regexp)

    def matches(self, name: str) -> bool:
        """Whether a submitted file's name follows the LMS's pattern (never, without one:
        as nbgrader's ``FileNameCollectorPlugin`` collects nothing without its regexp)."""
        return bool(self.named_regexp) and re.match(self.named_regexp, name) is not None

    def collect_all(self, names: Iterable[str]) -> dict[str, dict[str, str | None]] | None:
        """Each name's groups, by nbgrader's ``FileNameCollectorPlugin`` with this
        ``named_regexp`` (every extension collected: an extra file is flagged, not
        dropped); None when a name does not match."""
        from nbgrader.plugins.zipcollect import FileNameCollectorPlugin

        names = list(names)
        extensions = sorted({PurePosixPath(n).suffix for n in names})
        collector = FileNameCollectorPlugin(named_regexp=self.named_regexp, valid_ext=extensions)
        matched: dict[str, dict[str, str | None]] = {}
        for name in names:
            groups = collector.collect(name)
            if not groups:
                return None
            matched[name] = groups
        return matched

    def collect(self, submitted_file: str) -> dict[str, str | None] | None:
        """nbgrader's ``FileNameCollectorPlugin.collect``: the groups of one name, or None."""
        found = self.collect_all([submitted_file])
        return None if found is None else found[submitted_file]

    def ignored(self, groups: Mapping[str, str | None]) -> bool:
        """Whether a file its name describes so is passed over (its student kept)."""
        return False

    def student_name(self, groups: Mapping[str, str | None]) -> str:
        """The student's name as the LMS writes it in the file's name ("" when it does
        not); intake keeps it printable and short."""
        return groups.get("name") or ""

    def submitted_at(self, groups: Mapping[str, str | None]) -> datetime | None:
        """When the file was handed in, when its name says (the ``timestamp`` group, read
        as nbgrader reads ``timestamp.txt``)."""
        text = groups.get("timestamp")
        if not text:
            return None
        try:
            return read_timestamp(text)
        except ValueError:
            return None

    # ---------------------------------------------------------------- times

    def read_times(
        self, rows: list[list[str]], source: str, zone: tzinfo | None
    ) -> SubmissionTimes | None:
        """The times of a ``--times`` file's CSV ``rows`` (``source``: its name; ``zone``:
        course.toml's timezone), or None when the file is not this LMS's. Raises
        :class:`~autograder.models.TermError` (one line) when it is the LMS's but wrong."""
        return None

    # ---------------------------------------------------------------- export

    @classmethod
    def exports(cls) -> bool:
        """Whether the LMS takes grades back (``export``)."""
        return cls.export is not LmsPlugin.export

    def default_to(self) -> str:
        """The file written when ``to`` is not given."""
        return f"{self.name}-grades.csv"

    def export(self, gradebook: Gradebook) -> ExportReport:
        """Write the grades of ``assignment`` for ``student`` from nbgrader's gradebook to
        ``to`` as the LMS imports them; return what was written and who was left out.
        Raises :class:`~autograder.models.TermError` (one line) when it cannot."""
        raise NotImplementedError


_REGISTRY: dict[str, type[LmsPlugin]] = {}
_discovered = False


def register(plugin: type[LmsPlugin]) -> type[LmsPlugin]:
    """Add an LMS plugin to the registry (a class decorator).

    Raises
    ------
    ValueError
        Its name is not a short lowercase word, is a layout's that is no LMS's (``auto``,
        ``nbgrader``), or is another plugin's; or the plugin neither reads the LMS's
        downloads (no ``named_regexp``) nor writes its import file (no ``export``).
    """
    name = plugin.name
    if not _NAME.fullmatch(name) or name in RESERVED_NAMES:
        raise ValueError(f"not a name for an LMS plugin: {name!r}")
    other = _REGISTRY.get(name)
    if other is not None and other is not plugin:
        raise ValueError(f"two LMS plugins named {name!r}: {other.__name__}, {plugin.__name__}")
    if not (plugin.intakes() or plugin.exports()):
        raise ValueError(
            f"the LMS plugin {name!r} ({plugin.__name__}) has neither a named_regexp (intake) "
            "nor an export"
        )
    _REGISTRY[name] = plugin
    return plugin


def unregister(name: str) -> None:
    """Take the plugin of that name out of the registry (if it is in it)."""
    _REGISTRY.pop(name, None)


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = importlib.import_module(PLUGIN_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{PLUGIN_PACKAGE}.{module.name}")


def lms_plugins() -> list[type[LmsPlugin]]:
    """The registered LMS plugins, in the order layouts are told apart."""
    _discover()
    return sorted(_REGISTRY.values(), key=lambda p: (p.order, p.name))


def lms_intakes() -> list[type[LmsPlugin]]:
    """The plugins whose LMS's downloads are read (``grade --lms``'s choices, the layouts
    told apart), in the order layouts are told apart: a plugin without a ``named_regexp``
    (an LMS the grader only exports to) is none of them."""
    return [p for p in lms_plugins() if p.intakes()]


def lms_exporters() -> list[type[LmsPlugin]]:
    """The plugins whose LMS takes grades back (``export``'s choices)."""
    return [p for p in lms_plugins() if p.exports()]


def lms_plugin(name: str) -> type[LmsPlugin] | None:
    """The plugin of that name (None: there is none)."""
    _discover()
    return _REGISTRY.get(name)
