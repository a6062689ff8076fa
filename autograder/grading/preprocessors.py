"""nbgrader preprocessors that extend ``Autograde`` and ``GenerateFeedback`` by configuration.

- :class:`RecordSubmissionFlags` (sanitize, first): notes what a student did to the
  notebook's structure and metadata — deleted, duplicated or edited test cells, changed
  cell types, deleted answer cells, changed cell kinds, points, locked flags, checksums,
  unknown grade ids — as readable flags in ``nb.metadata["autograder"]["flags"]``.
- :class:`DeduplicateCells` (sanitize, in place of ``DeduplicateIds``): keeps the first copy
  of a duplicated cell (stock nbgrader's leftovers fail the whole notebook).
- :class:`RestoreTestCells` (sanitize, in place of ``OverwriteCells``): nbgrader's
  ``OverwriteCells`` with ``add_missing_cells`` on, and a missing cell put back after the
  nearest preceding cell that is still there (stock nbgrader raises ``KeyError`` when the
  cell just before the deleted one is missing too, which loses the whole notebook); every
  cell's nbgrader metadata comes from the gradebook (:func:`released_cells`), not from the
  submission.
- :class:`CoalesceStreams` (autograde, right after ``Execute``): consecutive stream outputs of
  one name merged into one, so how the kernel happened to flush a cell's printed lines
  (which depends on timing) shows nowhere: not in the graded notebook, not in nbgrader's
  ``LimitOutput`` cut (it counts lines per output), not in the feedback page.
- :class:`StderrToStdout` (autograde, before ``SaveAutoGrades``): a test cell that ran
  without an error keeps its points even if the student's code wrote warnings to stderr
  (stock nbgrader scores any stderr output as 0).
- :class:`RedactHiddenTests` (feedback): the source between ``### BEGIN HIDDEN TESTS`` and
  ``### END HIDDEN TESTS`` never reaches a student's feedback; a line with the cell's
  outcome and points stands in for it, and tracebacks of such cells are cut to their message.
- :class:`HideGraderPaths` (feedback): the grader machine's folders (the course's checkout,
  the Python environment, the course directory) never reach a student's feedback: a
  traceback's ``File /srv/course/linlib/grading.py`` reads ``File linlib/grading.py``.
- :class:`ShowRubric` (formgrader's submission view only, never feedback): under each
  written answer, the grader's rubric from the course's source notebook.
- :class:`KernelStartRetry` (a mixin of the grader's ``Execute`` preprocessors): a kernel
  that dies before it first answers, before any of the notebook's code ran, is started
  again, up to :data:`KERNEL_START_ATTEMPTS` times in all.
"""

from __future__ import annotations

import hashlib
import os
import re
import reprlib
import sys
import sysconfig
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from nbformat import NotebookNode, from_dict
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import DeduplicateIds, NbGraderPreprocessor, OverwriteCells
from traitlets import Bool, Unicode

from autograder.notebook import (
    HIDDEN_BEGIN,
    add_flag,
    cell_kind,
    grade_id,
    redact_hidden_source,
    rubrics,
    strip_hidden_tests,
)
from autograder.phases import ExecutorMixinBase
from autograder.text import listing
from course_common.rubric import is_written_answer


def released_cells(source_nb: Any) -> dict[str, dict[str, Any]]:
    """What the student was given, from the gradebook's record of a released notebook
    (``gb.find_notebook(...)``): grade id -> its ``nbgrader`` metadata as released (kind,
    points, locked, checksum), ``cell_type`` and ``source`` (a test cell's without its
    hidden tests), in the notebook's order.

    The checksum is the released cell's (nbgrader's ``compute_checksum`` of the cell the
    student received); the gradebook keeps the checksum of the full source instead.
    """
    grade_cells = {c.name: c for c in source_nb.grade_cells}
    solution_ids = {c.name for c in source_nb.solution_cells}
    tasks = {c.name: c for c in source_nb.task_cells}
    out: dict[str, dict[str, Any]] = {}
    for cell in source_nb.source_cells:
        name = cell.name
        points = grade_cells[name].max_score if name in grade_cells else 0
        points = tasks[name].max_score if name in tasks else points
        meta = {
            "grade": name in grade_cells,
            "grade_id": name,
            "locked": bool(cell.locked),
            "points": float(points or 0),
            "schema_version": 3,
            "solution": name in solution_ids,
            "task": name in tasks,
        }
        source = strip_hidden_tests(cell.source) if HIDDEN_BEGIN in cell.source else cell.source
        released = from_dict(
            {"cell_type": cell.cell_type, "source": source, "metadata": {"nbgrader": meta}}
        )
        meta["checksum"] = utils.compute_checksum(released)
        meta["cell_type"] = cell.cell_type
        out[name] = {"meta": meta, "cell_type": cell.cell_type, "source": source}
    return out


def _name(cell: NotebookNode) -> str | None:
    """The cell's grade id if it is a usable one (a non-empty string), else None."""
    meta = cell.get("metadata", {}).get("nbgrader")
    name = meta.get("grade_id") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name else None


#: The checksums of a notebook that are not its release's where a cell is otherwise as
#: released (its source, type, kind, points and lock): nbgrader wrote them, another version
#: of it (an older one computed them otherwise, or wrote none) or another generation of the
#: release, not the student. The instructor's flag (grades.csv, summary.md); the student's
#: page says nothing of it (nothing of theirs to act on: the instructor's are used).
OTHER_RELEASE_LINE = (
    "nbgrader metadata of another release: the checksums of {cells} are not this release's "
    "(cells otherwise as released: the notebook was made from a release generated by "
    "another nbgrader version, or another generation of it, not changed by the student); "
    "the instructor's were used"
)

#: How each kind of metadata change is reported: one flag line per kind, listing the cells.
_CHANGE_LINES = {
    "kind": "cell kind changed: {cells}; graded as the instructor's copy says",
    "points": "points changed: {cells}; the instructor's points were used",
    "locked": "locked flag changed: {cells}; the instructor's was used",
    "checksum": "checksum changed: {cells}; the instructor's was used",
    "unknown": (
        "grade ids not in the instructor's copy: {cells} (renamed or invented; their "
        "grading metadata was removed, they run as ordinary cells)"
    ),
}


class RecordSubmissionFlags(NbGraderPreprocessor):
    """Flag what a student did to the notebook's structure and nbgrader metadata, before
    :class:`RestoreTestCells` repairs it: deleted, duplicated or edited test cells, changed
    cell types, deleted answer cells, and metadata that differs from the released notebook
    (cell kind, points, locked flag, checksum, unknown grade ids) — one line per kind of
    change. A notebook that carries none of the assignment's graded cells gets one flag.

    The locked flag is compared as nbgrader reads it (``utils.is_locked``: a test cell is
    locked and an answer cell is not, whatever their flag says). Checksums that differ in a
    cell otherwise as released (its source, type, kind, points and lock) are not the
    student's doing: the notebook came from another release (another nbgrader version
    computed them, or wrote none), and its checksums are one flag of their own
    (:data:`OTHER_RELEASE_LINE`)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        notebook_id = resources["nbgrader"]["notebook"]
        assignment_id = resources["nbgrader"]["assignment"]
        with Gradebook(resources["nbgrader"]["db_url"]) as gb:
            try:
                expected = released_cells(gb.find_notebook(notebook_id, assignment_id))
            except MissingEntry:
                return nb, resources
        counts = Counter(g for g in (_name(c) for c in nb.cells) if g is not None)
        graded = {n for n, e in expected.items() if _is_graded(e["meta"])}
        if graded and not graded & set(counts):
            add_flag(
                nb,
                f"this notebook is not {assignment_id}'s: none of its {len(graded)} graded "
                "cells are there (the instructor's test cells were put back and run)",
            )
            return nb, resources
        self._structure_flags(nb, expected, counts)
        changes: dict[str, list[str]] = {}
        other_release = False  # a checksum differs in a cell otherwise as released
        seen: set[str] = set()
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if meta is None:
                continue
            name = _name(cell)
            if name not in expected:
                if not isinstance(meta, dict) or any(
                    meta.get(k) for k in ("grade", "solution", "task", "locked", "points")
                ):
                    changes.setdefault("unknown", []).append(
                        reprlib.repr(meta.get("grade_id")) if name else "(no grade id)"
                    )
                continue
            if name in seen:
                continue  # a duplicate: flagged above, and not graded
            seen.add(name)
            found = _metadata_changes(cell, expected[name])
            if [kind for kind, _ in found] == ["checksum"] and _as_released(cell, expected[name]):
                other_release = True
            for kind, text in found:
                if kind == "type":
                    add_flag(nb, text)
                elif kind == "edited":
                    add_flag(nb, f"test cell {text} was edited (the instructor's version was used)")
                else:
                    changes.setdefault(kind, []).append(text)
        checksums = changes.pop("checksum", []) if other_release else []
        for kind, template in _CHANGE_LINES.items():
            if changes.get(kind):
                add_flag(nb, template.format(cells=listing(changes[kind])))
        if checksums:
            add_flag(nb, OTHER_RELEASE_LINE.format(cells=listing(checksums)))
        return nb, resources

    @staticmethod
    def _structure_flags(nb: NotebookNode, expected: dict, counts: Counter) -> None:
        for name, e in expected.items():
            meta = e["meta"]
            if meta["grade"] and not meta["solution"]:
                if counts[name] == 0:
                    add_flag(
                        nb, f"test cell {name} was deleted (restored from the instructor's copy)"
                    )
                elif counts[name] > 1:
                    add_flag(
                        nb,
                        f"test cell {name} appears {counts[name]} times "
                        "(only one copy is graded, from the instructor's version)",
                    )
        for name in sorted(n for n, e in expected.items() if e["meta"]["solution"]):
            if counts[name] == 0:
                add_flag(nb, f"answer cell {name} was deleted")


def _is_graded(meta: dict) -> bool:
    return bool(meta.get("grade") or meta.get("solution") or meta.get("task"))


def _metadata_changes(cell: NotebookNode, expected: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind of change, "grade_id (old -> new)") for each way a submitted cell's nbgrader
    metadata differs from the released cell's; the cell type and a test cell's source are
    flagged on their own lines."""
    name, want = expected["meta"]["grade_id"], expected["meta"]
    meta = cell.metadata["nbgrader"]
    if not isinstance(meta, dict):
        return [("kind", f"{name} (metadata replaced by {type(meta).__name__})")]
    out = []
    if cell.cell_type != expected["cell_type"]:
        was = expected["cell_type"]
        out.append(("type", f"cell {name} changed type from {was} to {cell.cell_type}"))
    if cell_kind(meta) != cell_kind(want):
        out.append(("kind", f"{name} ({cell_kind(want)} -> {cell_kind(meta)})"))
    if any(bool(d.get(k)) for d in (want, meta) for k in ("grade", "task")):  # points count
        if _points(meta.get("points")) != want["points"]:
            got = reprlib.repr(meta["points"]) if "points" in meta else "removed"
            out.append(("points", f"{name} ({want['points']:g} -> {got})"))
    if utils.is_locked(cell) != want["locked"]:  # as nbgrader reads the flag
        states = ("unlocked", "locked")
        out.append(("locked", f"{name} ({states[want['locked']]} -> {states[not want['locked']]})"))
    if want["grade"] and not want["solution"] and cell.get("source") != expected["source"]:
        out.append(("edited", name))
    if meta.get("checksum") != want["checksum"]:
        out.append(("checksum", name))
    return out


def _as_released(cell: NotebookNode, expected: dict[str, Any]) -> bool:
    """Whether a cell whose metadata differs from the release in its checksum only has the
    released source too: a cell the student did not answer (an answer cell's source is the
    student's, so it never tells)."""
    return not expected["meta"]["solution"] and cell.get("source") == expected["source"]


def _points(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class DeduplicateCells(DeduplicateIds):
    """``DeduplicateIds`` that keeps the first copy of a cell and unmarks the others.

    Stock ``DeduplicateIds`` keeps the last copy and leaves ``metadata.nbgrader = {}`` on the
    others, which nbgrader's own ``CheckCellMetadata`` then rejects as an "old metadata
    format" — the whole notebook fails. Here the extra copies lose the ``nbgrader`` key, so
    they run as ordinary cells and are not graded.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        seen: set[str] = set()
        for cell in nb.cells:
            name = _name(cell)
            if name is None:
                continue
            if name in seen:
                self.log.warning("Cell with id '%s' exists multiple times!", name)
                del cell.metadata["nbgrader"]
            else:
                seen.add(name)
        return nb, resources


class RestoreTestCells(OverwriteCells):
    """``OverwriteCells`` that also puts deleted test cells back, robustly, and takes every
    known cell's nbgrader metadata (kind, points, locked, checksum) from the gradebook.

    Stock ``OverwriteCells`` restores points, locked flags and locked sources, but trusts
    the submission's cell kind: a test cell marked ``"solution": true`` or ``"grade":
    false`` fails with "Inconsistent checksums", an answer cell marked as a test fails with
    ``MissingEntry``, a test cell without ``points`` with ``KeyError``, and an unknown grade
    id keeps its other nbgrader keys, which ``CheckCellMetadata`` then rejects. Here the
    metadata of a cell whose grade id the gradebook knows is replaced by the released
    cell's before stock nbgrader checks it (an answer cell keeps its source), and a cell
    whose grade id it does not know loses its nbgrader metadata: an ordinary cell.
    """

    add_missing_cells = Bool(True, help="Put missing test cells back.").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        with Gradebook(resources["nbgrader"]["db_url"]) as gb:
            notebook = gb.find_notebook(
                resources["nbgrader"]["notebook"], resources["nbgrader"]["assignment"]
            )
            self._released = released_cells(notebook)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict, index: int):
        if "nbgrader" not in cell.get("metadata", {}):
            return cell, resources
        name = _name(cell)
        if name not in self._released:
            del cell.metadata["nbgrader"]
            return cell, resources
        cell.metadata["nbgrader"] = from_dict(self._released[name]["meta"])
        return super().preprocess_cell(cell, resources, index)

    def add_missing_grade_cells(self, nb: NotebookNode, resources: ResourcesDict):
        source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        order = [c.name for c in source_nb.source_cells]
        by_name = {c.name: c for c in source_nb.source_cells}
        grade_cells = {c.name: c for c in source_nb.grade_cells}
        solution_ids = {c.name for c in source_nb.solution_cells}
        present = {g for g in (grade_id(c) for c in nb.cells) if g is not None}
        for name in order:
            if name not in grade_cells or name in present or name in solution_ids:
                # A deleted answer cell is not put back: there is no answer to grade.
                continue
            self.log.warning("Missing grade cell %s encountered, adding to notebook", name)
            cell = self.missing_cell_transform(by_name[name], grade_cells[name].max_score)
            position = 0
            # after the nearest earlier source cell still in the notebook
            for previous in reversed(order[: order.index(name)]):
                indices = [i for i, c in enumerate(nb.cells) if grade_id(c) == previous]
                if indices:
                    position = indices[-1] + 1
                    break
            nb.cells.insert(position, cell)
            present.add(name)
        return nb, resources

    def add_missing_task_cells(self, nb: NotebookNode, resources: ResourcesDict):
        # Stock nbgrader reads cell.metadata.nbgrader["grade_id"] directly and fails on the
        # cells DeduplicateIds emptied (a duplicated test cell); same logic, tolerant lookup.
        source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        by_name = {c.name: c for c in source_nb.source_cells}
        present = {g for g in (grade_id(c) for c in nb.cells) if g is not None}
        for task in source_nb.task_cells:
            if task.name not in present:
                cell = self.missing_cell_transform(by_name[task.name], task.max_score, is_task=True)
                nb.cells.append(cell)
        return nb, resources


class CoalesceStreams(CoalesceStreamsPreprocessor):
    """nbconvert's ``CoalesceStreamsPreprocessor`` (consecutive stream outputs of one name
    merged; a line overwritten after a carriage return dropped, as a terminal shows it),
    the same merge ``./run execute`` applies to the stored notebooks. The kernel sends a
    cell's printed text in as many messages as its flushes, and where those fall depends on
    timing: unmerged, the same notebook graded twice gives pages that differ. Merging joins
    only outputs of one stream name, so whether a cell wrote to stderr (which nbgrader's
    score reads) is unchanged.

    On wherever it is registered (nbconvert's preprocessors are off by default, and
    nbgrader's converters switch none on)."""

    enabled = Bool(True)


class StderrToStdout(NbGraderPreprocessor):
    """In graded code cells that raised no error, turn stderr streams into stdout streams."""

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict, index: int):
        if cell.cell_type != "code" or not utils.is_grade(cell):
            return cell, resources
        outputs = cell.get("outputs", [])
        if any(o.get("output_type") == "error" for o in outputs):
            return cell, resources
        for output in outputs:
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                output["name"] = "stdout"
        return cell, resources


class RedactHiddenTests(NbGraderPreprocessor):
    """Withhold hidden-test source from feedback, showing outcome and points instead."""

    #: Text that replaces a hidden-test region; fields: outcome, score, points.
    note = "# hidden tests (source withheld): {outcome}, {score:g} of {points:g} points"

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict, index: int):
        if cell.cell_type != "code" or HIDDEN_BEGIN not in cell.source:
            return cell, resources
        score, points = self._score(cell)
        outcome = "passed" if points and score >= points else "failed"
        note = self.note.format(outcome=outcome, score=score, points=points)
        cell.source, _ = redact_hidden_source(cell.source, note)
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                # an IPython traceback quotes the failing line: keep only the message
                output["traceback"] = [
                    f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                ]
            outputs.append(output)
        cell["outputs"] = outputs
        return cell, resources

    @staticmethod
    def _score(cell: NotebookNode) -> tuple[float, float]:
        meta: dict[str, Any] = cell.metadata.get("nbgrader", {})
        points = float(meta.get("points", 0) or 0)
        # GetGrades (which runs earlier in GenerateFeedback) stores the gradebook's score.
        score = meta.get("score")
        if score is None:
            if utils.is_grade(cell):
                auto, points = utils.determine_grade(cell)
                score = auto or 0.0
            else:
                score = 0.0
        return float(score), points


class HideGraderPaths(NbGraderPreprocessor):
    """Replace the grader machine's absolute folders in a notebook's outputs (tracebacks,
    printed text) by names that say nothing of the machine: the project's checkout and the
    course directory by nothing (``linlib/grading.py``), the Python environment's packages
    by ``site-packages``, its standard library by ``python``, and the kernel's folder of
    cell files (ipykernel's ``<temporary folder>/ipykernel_<pid>/``, which a warning raised
    in a cell names: ``/tmp/ipykernel_4711/1189467442.py:12: RuntimeWarning``) by nothing
    (``1189467442.py:12: RuntimeWarning``: the file's name is a hash of the cell's code,
    the same on every machine; the kernel's process id is not)."""

    course_root = Unicode("", help="The course directory (its path is hidden too).").tag(
        config=True
    )

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        self._pattern, self._names = _grader_folders(self.course_root)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict, index: int):
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if "traceback" in output:
                output["traceback"] = [self._hide(line) for line in output["traceback"]]
            if "evalue" in output:
                output["evalue"] = self._hide(output["evalue"])
            if isinstance(output.get("text"), str):
                output["text"] = self._hide(output["text"])
            plain = output.get("data", {}).get("text/plain")
            if isinstance(plain, str):
                output["data"]["text/plain"] = self._hide(plain)
        return cell, resources

    def _hide(self, text: str) -> str:
        return self._pattern.sub(lambda m: self._names.get(m.group(0), ""), text) if text else text


#: What heads the rubric in formgrader's view (tests look for it).
RUBRIC_LABEL = "Rubric for the grader"
#: The box the rubric is shown in (inline style: the cleaning keeps these properties).
_RUBRIC_BOX = (
    '<div class="autograder-rubric" '
    'style="border: 2px solid #b35900; padding: 0.2em 1em; background-color: #fff8e6">'
)


def rubric_cell(grade_id: str, rubric: str) -> NotebookNode:
    """A markdown cell that shows *rubric* (of the written answer *grade_id*) as the
    grader's: in a framed box headed by :data:`RUBRIC_LABEL` (the markdown between the
    box's tags is rendered as usual, tables and math included)."""
    head = (
        f"**{RUBRIC_LABEL}** of `{grade_id}`, from the course's source notebook "
        "(students never see it)"
    )
    digest = hashlib.sha1(grade_id.encode("utf-8")).hexdigest()[:12]
    return from_dict(
        {
            "cell_type": "markdown",
            "id": f"rubric-{digest}",
            "metadata": {"autograder": {"rubric": grade_id}},
            "source": f"{_RUBRIC_BOX}\n\n{head}\n\n{rubric}\n\n</div>",
        }
    )


def _notebook_names(resources: ResourcesDict) -> tuple[str, str]:
    """The assignment and notebook being rendered: formgrader's submission view passes
    ``assignment_id`` and ``notebook_id``, nbgrader's converters ``nbgrader.assignment`` and
    ``nbgrader.notebook``; ``("", "")`` when neither (or a name that is not one folder)."""
    converter = resources.get("nbgrader") or {}
    names = (
        str(resources.get("assignment_id") or converter.get("assignment") or ""),
        str(resources.get("notebook_id") or converter.get("notebook") or ""),
    )
    if not all(name and Path(name).name == name and name not in (".", "..") for name in names):
        return "", ""
    return names


class ShowRubric(NbGraderPreprocessor):
    """formgrader's submission view: under every written answer, the rubric that the
    course's source notebook (``source/<assignment>/<notebook>.ipynb``) has for it below
    its ``#### Rubric`` line (:func:`course_common.rubric.split_rubric`), in a markdown cell
    of its own (:func:`rubric_cell`), which the view then sanitises and renders like any
    other. Put in formgrader's exporter only (:func:`autograder.grading.formgrader_config`):
    the student's notebook never carries a rubric, and feedback pages never run this."""

    source_root = Unicode("", help="The course's source folder.").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        assignment, notebook = _notebook_names(resources)
        if not self.source_root or not assignment or not notebook:
            return nb, resources
        path = Path(self.source_root) / assignment / f"{notebook}.ipynb"
        try:
            found = rubrics(nbformat.read(path, as_version=4))
        except Exception as exc:  # no source notebook: the view without rubrics
            self.log.warning("no rubrics for %s/%s: %s", assignment, notebook, exc)
            return nb, resources
        cells = []
        for cell in nb.cells:
            cells.append(cell)
            if is_written_answer(cell) and grade_id(cell) in found:
                cells.append(rubric_cell(str(grade_id(cell)), found[str(grade_id(cell))]))
        nb.cells = cells
        return nb, resources


#: ipykernel's folder of a kernel's cell files (``ipykernel.compiler.get_tmp_directory``:
#: the kernel's temporary folder, then ``ipykernel_<pid>``), wherever that folder is.
_KERNEL_CELL_FOLDER = r"(?:/[^/\s'\"]+)*/ipykernel_[0-9]+/"


def _grader_folders(course_root: str = "") -> tuple[re.Pattern[str], dict[str, str]]:
    """A pattern of the grader's folders (the kernel's folder of cell files first, then each
    folder with its trailing separator, longest first) and what each folder becomes (the
    kernel's folder, not among them, becomes nothing)."""
    from course_common.paths import REPO_ROOT

    names: dict[str, str] = {}
    paths = sysconfig.get_paths()
    for key, name in (("purelib", "site-packages/"), ("platlib", "site-packages/")):
        names.setdefault(paths[key], name)
    names.setdefault(paths["stdlib"], "python/")
    for folder in (course_root, str(REPO_ROOT), sys.prefix):
        if folder:
            names.setdefault(folder, "")
    found: dict[str, str] = {}
    for folder, name in names.items():
        for variant in {folder, os.path.realpath(folder), str(Path(folder).resolve())}:
            found[variant.rstrip(os.sep) + os.sep] = name
    ordered = sorted(found, key=len, reverse=True)
    return re.compile("|".join([_KERNEL_CELL_FOLDER, *map(re.escape, ordered)])), found


#: Kernel starts per notebook when a kernel dies before it first answers (see
#: :class:`KernelStartRetry`).
KERNEL_START_ATTEMPTS = 3

#: jupyter_client's words (and the sandbox's ReadyClient's) for a kernel that ended before
#: it answered ``kernel_info``: jupyter_client raises a bare ``RuntimeError``, which these
#: words alone tell from its others (a kernel that did not answer in time).
_DIED_AT_START = "Kernel died before replying to kernel_info"


class KernelStartRetry(ExecutorMixinBase):
    """A mixin for nbgrader's ``Execute`` (nbclient's ``NotebookClient``): a kernel that
    dies before it first answers is started again, up to :data:`KERNEL_START_ATTEMPTS`
    times in all.

    Such a death is the machine's, not the notebook's: none of the notebook's code has run
    yet. The commonest is jupyter_client's port race — it picks free TCP ports, and by the
    time the new kernel binds them another process may hold one ("Address already in use":
    3 kernels of 10,000 in a run of the scale benchmark beside other work), which used to
    grade the notebook 0, "could not be graded", and record that in the ledger, so the next
    run did not grade it again. A kernel that dies at every start (something the submission
    brings, a broken environment) still fails the notebook, after the last attempt.
    """

    def start_new_kernel_client(self) -> Any:
        for attempt in range(1, KERNEL_START_ATTEMPTS + 1):
            try:
                return super().start_new_kernel_client()
            except RuntimeError as exc:
                if _DIED_AT_START not in str(exc) or attempt == KERNEL_START_ATTEMPTS:
                    raise
                self.log.warning(
                    "the kernel died before it answered (start %d of %d); starting another",
                    attempt,
                    KERNEL_START_ATTEMPTS,
                )
            # nbclient has shut the dead kernel down and forgotten its manager and client
            self.km = self.create_kernel_manager()
            self.start_new_kernel()
        raise AssertionError("unreachable")  # pragma: no cover
