"""Slide metadata for the decks: ``python -m lecture.slides [--check] [NOTEBOOK ...]``.

Every cell of a source notebook gets ``metadata.slideshow.slide_type``, computed from the
notebook itself by the rules below (the same input always gives the same types, and
running the tool twice changes nothing). Without arguments it updates every notebook of
the course; ``--check`` writes nothing and exits 1 when a notebook's metadata differs from
what the rules give (a static test runs the same check, so nobody edits it by hand).

The rules, for a 50-minute walkthrough (one idea per slide, figures large):

1. A markdown cell opening with a ``#`` or ``##`` heading starts a **slide** (the title,
   each section); one opening with ``###`` (an exercise, a sub-topic) starts a
   **subslide**.
2. A code cell with a figure among its stored outputs starts a **subslide** of its own,
   and the cell after it starts another one: the figure is not crowded.
3. nbgrader's graded test cells are **skipped**: the deck shows the exercise and its
   solution, the site and the notebook show the tests.
4. Long derivations are split: a cell that would take the current (sub)slide past
   ``MAX_LINES`` lines (source, plus text output up to ``MAX_OUTPUT_LINES``) starts a
   **subslide**. A written answer counts without its grader's rubric: the deck leaves
   the rubric out (:func:`lecture.mark_solutions`).
5. Every other cell continues the slide before it (``-``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat

from autograder.notebook import is_written_answer, split_rubric
from lecture._notebooks import ROOT, course_notebooks, is_test

#: Lines a (sub)slide holds before the next cell starts a new subslide.
MAX_LINES = 18
#: Lines of text output counted for a cell (the deck shows long outputs scrolled).
MAX_OUTPUT_LINES = 8
#: Width, in characters, that a line of prose wraps at on a slide.
WRAP = 90

SLIDE, SUBSLIDE, CONTINUE, SKIP = "slide", "subslide", "-", "skip"


def _heading_level(cell: nbformat.NotebookNode) -> int:
    """The level of the heading a markdown cell opens with (0 if none)."""
    if cell.cell_type != "markdown":
        return 0
    first = cell.source.lstrip().split("\n", 1)[0]
    hashes = len(first) - len(first.lstrip("#"))
    return hashes if 0 < hashes <= 6 and first[hashes : hashes + 1] == " " else 0


def has_figure(cell: nbformat.NotebookNode) -> bool:
    """A code cell whose stored outputs include an image."""
    return cell.cell_type == "code" and any(
        key.startswith("image/")
        for output in cell.get("outputs", [])
        for key in output.get("data", {})
    )


def cell_lines(cell: nbformat.NotebookNode) -> int:
    """How many lines a cell takes on a slide, roughly: wrapped source + text output (a
    written answer without its grader's rubric, which the slides leave out)."""
    source = split_rubric(cell.source)[0] if is_written_answer(cell) else cell.source
    lines = sum(1 + len(line) // WRAP for line in source.splitlines())
    if cell.cell_type == "code":
        text = 0
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text += output.get("text", "").count("\n")
            else:
                text += output.get("data", {}).get("text/plain", "").count("\n") + 1
        lines += min(text, MAX_OUTPUT_LINES)
    return lines


def slide_types(nb: nbformat.NotebookNode) -> list[str]:
    """The slide type of every cell of *nb*, by the module's rules."""
    types: list[str] = []
    used = 0  # lines on the current (sub)slide
    after_figure = False
    for index, cell in enumerate(nb.cells):
        if is_test(cell):
            types.append(SKIP)
            continue
        level = _heading_level(cell)
        lines = cell_lines(cell)
        if index == 0 or level in (1, 2):
            kind = SLIDE
        elif level >= 3 or has_figure(cell) or after_figure or used + lines > MAX_LINES:
            kind = SUBSLIDE
        else:
            kind = CONTINUE
        used = lines if kind != CONTINUE else used + lines
        after_figure = has_figure(cell)
        types.append(kind)
    return types


def apply(nb: nbformat.NotebookNode) -> bool:
    """Write the slide types into *nb*'s cell metadata; returns whether anything changed."""
    changed = False
    for cell, kind in zip(nb.cells, slide_types(nb), strict=True):
        if cell.metadata.get("slideshow") != {"slide_type": kind}:
            cell.metadata["slideshow"] = {"slide_type": kind}
            changed = True
    return changed


def stale(path: Path) -> bool:
    """Whether the notebook at *path* lacks the slide metadata the rules give."""
    return apply(nbformat.read(path, as_version=4))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lecture.slides", description=__doc__)
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    paths = args.notebooks or course_notebooks()
    out_of_date = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if not apply(nb):
            continue
        out_of_date.append(path)
        if not args.check:
            nbformat.write(nb, path)
    for path in out_of_date:
        shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
        verb = "stale" if args.check else "updated"
        print(f"{verb}: {shown}")
    return 1 if args.check and out_of_date else 0


if __name__ == "__main__":
    sys.exit(main())
