"""What ``SafeExecute`` needs to know before it runs a notebook: the full source of every
autograded test cell (from the gradebook), and the instructor's code (from the source
notebook, or what stands in for it).
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbgrader import utils

from autograder.notebook import add_flag, grade_id, test_id
from autograder.recheck import scan
from autograder.recheck.names import InstructorCode
from course_common.solutions import SOLUTION_MARKERS, Markers

__all__ = [
    "MAX_FILES_BYTES",
    "enforce_test_metadata",
    "instructor_code",
    "source_notebook_path",
    "test_sources",
    "tests_in",
    "trusted_folder",
]

#: The most bytes of an assignment's files copied for the re-check's working folder.
MAX_FILES_BYTES = 64 * 1024 * 1024


def _nbgrader_info(resources: Any) -> dict[str, Any]:
    return resources.get("nbgrader", {}) if isinstance(resources, dict) else {}


@contextlib.contextmanager
def _gradebook_notebook(info: dict[str, Any]) -> Iterator[Any]:
    """The gradebook's record of the notebook being graded, or None if it has none."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(info["db_url"]) as gb:
        try:
            notebook = gb.find_notebook(info["notebook"], info["assignment"])
        except MissingEntry:
            notebook = None
        yield notebook


def test_sources(nb: NotebookNode, resources: Any) -> dict[str, str]:
    """grade id -> full source of every autograded test cell, from the gradebook.

    The gradebook (not the submission's metadata) says which cells are autograded
    tests; without a gradebook (outside nbgrader), the notebook's metadata does.
    """
    info = _nbgrader_info(resources)
    if not info.get("db_url"):
        return {gid: cell.source for cell in nb.cells if (gid := test_id(cell)) is not None}
    sources: dict[str, str] = {}
    with _gradebook_notebook(info) as notebook:
        if notebook is None:
            return sources
        solutions = {c.name for c in notebook.solution_cells}
        by_name = {c.name: c for c in notebook.source_cells}
        for cell in notebook.grade_cells:
            if cell.cell_type == "code" and cell.name not in solutions and cell.name in by_name:
                sources[cell.name] = by_name[cell.name].source
    return sources


def _solution_stubs(resources: Any) -> dict[str, str]:
    info = _nbgrader_info(resources)
    if not info.get("db_url"):
        return {}
    with _gradebook_notebook(info) as notebook:
        if notebook is None:
            return {}
        return {cell.name: cell.source for cell in notebook.source_cells}


def tests_in(nb: NotebookNode, full_sources: dict[str, str]) -> list[tuple[str, NotebookNode]]:
    """(grade id, cell) of the notebook's autograded test cells the gradebook knows."""
    return [
        (gid, cell)
        for cell in nb.cells
        if (gid := test_id(cell)) is not None and gid in full_sources
    ]


def enforce_test_metadata(nb: NotebookNode, full_sources: dict[str, str]) -> None:
    """A test cell stays an autograded test cell, whatever the student set."""
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        if not meta or meta.get("grade_id") not in full_sources or cell.cell_type != "code":
            continue
        if meta.get("solution") or not meta.get("grade"):
            add_flag(
                nb,
                f"test cell {meta['grade_id']} was marked as an answer cell in the "
                "submission (restored)",
            )
        meta["grade"] = True
        meta["solution"] = False
        meta["locked"] = True


def source_notebook_path(resources: Any, folder: str, coursedir: Any) -> Path | None:
    """The instructor's notebook: in *folder* if set, else in the course's source folder."""
    info = _nbgrader_info(resources)
    notebook, assignment = info.get("notebook"), info.get("assignment")
    if not notebook:
        return None
    candidates = []
    if folder:
        candidates.append(Path(folder) / f"{notebook}.ipynb")
    if coursedir is not None and assignment:
        with contextlib.suppress(Exception):
            path = coursedir.format_path(coursedir.source_directory, ".", assignment)
            candidates.append(Path(path) / f"{notebook}.ipynb")
    for path in candidates:
        if path.is_file():
            return path
    return None


def _defs_only(source: str, exclude: set[str]) -> str:
    """Stubs of the functions a cell defines (not those in *exclude*)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    return "\n".join(
        f"def {node.name}(*args, **kwargs):\n    raise NotImplementedError()"
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name not in exclude
    )


def local_modules(folder: Path) -> frozenset[str]:
    """The modules shipped beside a notebook in *folder*: its ``.py`` files and its folders
    that hold Python files (a student's kernel imports them from its own copy)."""
    names: set[str] = set()
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            if entry.suffix == ".py" and entry.is_file():
                names.add(entry.stem)
            elif entry.is_dir() and any(entry.glob("*.py")):
                names.add(entry.name)
    return frozenset(names)


def instructor_code(
    nb: NotebookNode,
    resources: Any,
    full_sources: dict[str, str],
    path: Path | None,
    markers: Markers = SOLUTION_MARKERS,
) -> InstructorCode:
    """The instructor's code cells in order, from the source notebook at *path* if any
    (*markers*: the course's solution markers; the modules beside it are the course's own,
    :func:`local_modules`).

    Without it, the submission's locked and test cells (nbgrader restored their source)
    and the gradebook's answer-cell stubs stand in.
    """
    cells: list[tuple[str, str | None, str]] = []
    if path is not None:
        source_nb = nbformat.read(str(path), as_version=4)
        for cell in source_nb.cells:
            if cell.cell_type != "code":
                continue
            key = grade_id(cell)
            if utils.is_solution(cell):
                cells.append(("solution", key, cell.source))
            elif (test := test_id(cell)) is not None:
                cells.append(("test", test, full_sources.get(test, cell.source)))
            else:
                cells.append(("code", key, cell.source))
        return InstructorCode(cells, markers, local_modules(path.parent))
    stubs = _solution_stubs(resources)
    # Only outside nbgrader (no gradebook) do an answer's own definitions stand in for
    # the stub, and never for a name the instructor's cells import (say call_student).
    imported = scan.imported_names(
        c.source for c in nb.cells if c.cell_type == "code" and utils.is_locked(c)
    )
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        key = grade_id(cell)
        if utils.is_solution(cell):
            stub = stubs.get(key) if key is not None else None
            if stub is None:
                stub = _defs_only(cell.source, exclude=imported)
            cells.append(("solution", key, stub))
        elif (test := test_id(cell)) is not None:
            cells.append(("test", test, full_sources.get(test, "")))
        elif utils.is_locked(cell):
            cells.append(("code", key, cell.source))
    return InstructorCode(cells)


@contextlib.contextmanager
def trusted_folder(folder: Path | None) -> Iterator[Path | None]:
    """The re-check's working folder, as the kernel's is the notebook's: a fresh copy of
    the files beside the instructor's notebook in *folder* (its data, its modules; not the
    notebooks, nor the grader's own files), so that a test cell that reads ``data/x.csv``
    reads the instructor's file, and one that writes leaves nothing for the next notebook.
    Nothing is copied, and the folder stays the process's, when *folder* is None or its
    files are over :data:`MAX_FILES_BYTES` in all."""
    import os
    import shutil
    import tempfile

    from autograder.source import COURSE_DATA

    files: list[Path] = []
    if folder is not None:
        with contextlib.suppress(OSError):
            files = [
                p
                for p in sorted(folder.rglob("*"))
                if p.is_file()
                and p.suffix != ".ipynb"
                and p.name not in COURSE_DATA
                and "__pycache__" not in p.parts
                and ".ipynb_checkpoints" not in p.parts
            ]
    try:
        total = sum(p.stat().st_size for p in files)
    except OSError:
        total = MAX_FILES_BYTES + 1
    if folder is None or total > MAX_FILES_BYTES:
        yield None
        return
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="ag-recheck-") as tmp:
        for path in files:
            copy = Path(tmp) / path.relative_to(folder)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(here)
