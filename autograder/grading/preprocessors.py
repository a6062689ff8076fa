"""nbgrader preprocessors that extend ``Autograde`` and ``GenerateFeedback`` by configuration.

- :class:`RecordSubmissionFlags` (sanitize, first): notes what a student did to the
  notebook's structure — deleted, duplicated or edited test cells, changed cell types,
  deleted answer cells — as readable flags in ``nb.metadata["autograder"]["flags"]``.
- :class:`DeduplicateCells` (sanitize, in place of ``DeduplicateIds``): keeps the first copy
  of a duplicated cell (stock nbgrader's leftovers fail the whole notebook).
- :class:`RestoreTestCells` (sanitize, in place of ``OverwriteCells``): nbgrader's
  ``OverwriteCells`` with ``add_missing_cells`` on, and a missing cell put back after the
  nearest preceding cell that is still there (stock nbgrader raises ``KeyError`` when the
  cell just before the deleted one is missing too, which loses the whole notebook).
- :class:`StderrToStdout` (autograde, before ``SaveAutoGrades``): a test cell that ran
  without an error keeps its points even if the student's code wrote warnings to stderr
  (stock nbgrader scores any stderr output as 0).
- :class:`RedactHiddenTests` (feedback): the source between ``### BEGIN HIDDEN TESTS`` and
  ``### END HIDDEN TESTS`` never reaches a student's feedback; a line with the cell's
  outcome and points stands in for it, and tracebacks of such cells are cut to their message.
- :class:`HideGraderPaths` (feedback): the grader machine's folders (the course's checkout,
  the Python environment, the course directory) never reach a student's feedback: a
  traceback's ``File /srv/course/linlib/grading.py`` reads ``File linlib/grading.py``.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from collections import Counter
from pathlib import Path
from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import DeduplicateIds, NbGraderPreprocessor, OverwriteCells
from traitlets import Bool, Unicode

from autograder.notebook import HIDDEN_BEGIN, add_flag, grade_id, redact_hidden_source


class RecordSubmissionFlags(NbGraderPreprocessor):
    """Flag structural changes to a submitted notebook, before nbgrader repairs them."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict):
        notebook_id = resources["nbgrader"]["notebook"]
        assignment_id = resources["nbgrader"]["assignment"]
        with Gradebook(resources["nbgrader"]["db_url"]) as gb:
            try:
                source_nb = gb.find_notebook(notebook_id, assignment_id)
            except MissingEntry:
                return nb, resources
            grade_cells = {c.name: c for c in source_nb.grade_cells}
            solution_ids = {c.name for c in source_nb.solution_cells}
            source_cells = {c.name: c for c in source_nb.source_cells}

        counts = Counter(g for g in (grade_id(c) for c in nb.cells) if g is not None)
        tests = [name for name in grade_cells if name not in solution_ids]
        for name in tests:
            if counts[name] == 0:
                add_flag(nb, f"test cell {name} was deleted (restored from the instructor's copy)")
            elif counts[name] > 1:
                add_flag(
                    nb,
                    f"test cell {name} appears {counts[name]} times "
                    "(only one copy is graded, from the instructor's version)",
                )
        for name in sorted(solution_ids):
            if counts[name] == 0:
                add_flag(nb, f"answer cell {name} was deleted")
        for cell in nb.cells:
            name = grade_id(cell)
            if name is None or name not in source_cells:
                continue
            source = source_cells[name]
            if cell.cell_type != source.cell_type:
                add_flag(
                    nb, f"cell {name} changed type from {source.cell_type} to {cell.cell_type}"
                )
            elif name in grade_cells and name not in solution_ids:
                meta = cell.metadata.get("nbgrader", {})
                checksum = meta.get("checksum")
                if checksum and checksum != utils.compute_checksum(cell):
                    add_flag(nb, f"test cell {name} was edited (the instructor's version was used)")
        return nb, resources


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
            name = grade_id(cell)
            if name is None:
                continue
            if name in seen:
                self.log.warning("Cell with id '%s' exists multiple times!", name)
                del cell.metadata["nbgrader"]
            else:
                seen.add(name)
        return nb, resources


class RestoreTestCells(OverwriteCells):
    """``OverwriteCells`` that also puts deleted test cells back, robustly."""

    add_missing_cells = Bool(True, help="Put missing test cells back.").tag(config=True)

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
    by ``site-packages``, its standard library by ``python``."""

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
        return self._pattern.sub(lambda m: self._names[m.group(0)], text) if text else text


def _grader_folders(course_root: str = "") -> tuple[re.Pattern[str], dict[str, str]]:
    """A pattern of the grader's folders (each with its trailing separator, longest first)
    and what each becomes."""
    from autograder.course import REPO_ROOT

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
    return re.compile("|".join(re.escape(f) for f in ordered)), found
