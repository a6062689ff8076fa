"""What the grader knows of a notebook's cells: nbgrader's cell kinds, the grader's flags in a
notebook's metadata, and the hidden tests of a test cell."""

from __future__ import annotations

from pathlib import Path

import nbformat


def collect_notebook_flags(folder: Path) -> list[str]:
    """Flags recorded in graded notebooks' ``metadata["autograder"]["flags"]``."""
    flags: list[str] = []
    if not folder.is_dir():
        return flags
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = nbformat.read(str(path), as_version=4)
        except Exception:  # a graded notebook nbgrader wrote is readable; be safe anyway
            continue
        for flag in nb.metadata.get("autograder", {}).get("flags", []) or []:
            text = str(flag)
            if text not in flags:
                flags.append(text)
    return flags
