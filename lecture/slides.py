"""Slides that fit: ``python -m lecture.slides [--check] [NOTEBOOK ...]``.

Every cell of a source notebook gets ``metadata.slideshow.slide_type``, computed from the
notebook itself by the rules below (the same input always gives the same types, and
running the tool twice changes nothing). Without arguments it updates every notebook of
the course; ``--check`` writes nothing and exits 1 when a notebook's metadata differs from
what the rules give (a static test runs the same check, so nobody edits it by hand). It
also names what cannot fit a slide whatever the split (a code line too long for the
slide's width at 18 px: reformat it in the notebook) and the figures too wide for their
text to be read on a slide (tick labels under 18 px however large the figure is drawn:
draw them narrower in the notebook).

The rules, for a 50-minute walkthrough on a 1280×720 projector (one idea per slide,
figures large, nothing taller than the slide):

1. A ``#`` or ``##`` heading starts a **slide** (the title, each section); a ``###``
   heading (an exercise, a sub-topic) starts a **subslide** — at the start of a cell or
   inside one.
2. A figure gets a **subslide** of its own, drawn as large as the slide allows, and
   whatever follows it starts another one. Its code stands beside it when both fit side
   by side (the code at 18 px or more, the figure at least 450 px tall); otherwise the
   code comes first on a subslide of its own and the figure's speaker notes repeat it.
   What the cell prints stays with its code, before the figure.
3. nbgrader's graded test cells are **skipped**: the deck shows the exercise and its
   solution, the site and the notebook show the tests.
4. Whatever would make a slide taller than the slide, or show more than
   :attr:`~lecture.layout.Typography.max_code_lines` lines of code, starts a
   **subslide**, measured by the height model of :mod:`lecture.layout`. A cell that does
   not fit one slide is split over subslides at its natural seams: prose between blocks
   (a proof between its numbered steps), code between top-level statements (functions),
   then at blank lines, then between statements (:func:`statement_starts`), then between
   lines; an output taller than a slide is split between its lines. A block that fits a
   fresh slide is moved there whole, not split; a heading is not left at the bottom of a
   slide, nor an output without its code: a cell's last statement (or line) and the
   start of its output stand on one slide (what precedes them is split, if need be).
5. Every other cell continues the slide before it (``-``).

The stored metadata is one slide type per cell (what JupyterLab's slideshow toolbar
edits). Splitting a cell is done when the deck is built: :func:`split_for_slides` (run by
the deck's nbconvert preprocessor, :class:`lecture.decks.SplitForSlides`) replaces a cell
by its pieces, each piece a cell of its own with the pieces' slide types, the code's font
size, the figure's drawn size and the speaker notes.
"""

from __future__ import annotations

import argparse
import copy
import io
import itertools
import re
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.utils import is_solution

from course_common.rubric import is_written_answer, split_rubric
from lecture._notebooks import ROOT, course_notebooks, is_test, without_student_text
from lecture.layout import (
    TYPE,
    code_height,
    code_px,
    code_width,
    figure_text_px,
    fit_image,
    markdown_blocks,
    png_dpi,
    png_size,
    text_output_height,
)

SLIDE, SUBSLIDE, CONTINUE, SKIP, NOTES = "slide", "subslide", "-", "skip", "notes"
#: Tags of a piece's cell in the deck (nbconvert makes them the classes celltag_<tag>).
CODE_SIZE_TAG = "slide-code-{px:g}"
BESIDE_TAG = "slide-beside"
FIGURE_TAG = "slide-figure"  # a figure on a slide of its own
#: Metadata of a piece that shows part of a cell's code: the cell's code and the piece's
#: lines of it, so that the deck highlights the piece as part of the whole
#: (:class:`lecture.decks.PieceHighlight`).
PART_OF_KEY = "slide_part_of"
IMAGE_TYPES = ("image/png", "image/jpeg")


# --------------------------------------------------------------------------- units


@dataclass
class Unit:
    """Something that is placed on a slide whole, or split into its *parts*.

    *group* tells the pieces of one cell apart: ``source``, ``output`` or ``figure``;
    *overhead* is what a piece of this group costs besides its units (padding, the gap
    to the cell before, the solution label).
    """

    cell: int
    group: str
    height: float
    overhead: float = 0.0
    join: float = 0.0  # its cost beyond *height* after another element of its piece
    lead: float = 0.0  # its cost beyond *height* right after the unit before, in one piece
    code_lines: int = 0  # lines of code it shows
    lead_lines: int = 0  # the blank lines of code its *lead* shows
    start: str | None = None  # a forced slide or subslide
    heading: bool = False
    figure: bool = False
    lines: tuple[int, int] | None = None  # source lines (markdown, code)
    output: int | None = None  # the output shown
    output_lines: tuple[int, int] | None = None  # a part of a long text output
    image: tuple[int, int] | None = None  # the drawn size of a figure
    beside: bool = False
    px: float | None = None  # the code's size, beside a figure
    notes: str = ""
    parts: list[Unit] = field(default_factory=list)


@dataclass
class Piece:
    """A part of one cell on one slide: one cell of the deck."""

    cell: int
    slide_type: str
    group: str
    lines: tuple[int, int] | None = None
    outputs: list[int] = field(default_factory=list)
    output_lines: dict[int, tuple[int, int]] = field(default_factory=dict)
    images: dict[int, tuple[int, int]] = field(default_factory=dict)
    beside: bool = False
    px: float | None = None
    notes: list[str] = field(default_factory=list)
    height: float = 0.0  # the model's height of the piece (its gap below included)


def _image(output: nbformat.NotebookNode) -> str | None:
    data = output.get("data", {})
    return next((kind for kind in IMAGE_TYPES if kind in data), None)


def output_text(output: nbformat.NotebookNode) -> str | None:
    """The text an output shows (None for a figure or an output without text)."""
    kind = output.get("output_type")
    if kind == "stream":
        return output.get("text", "")
    if kind == "error":
        return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.get("traceback", [])))
    data = output.get("data", {})
    if _image(output) is not None:
        return None
    return data.get("text/plain")


def _markdown_units(index: int, cell: nbformat.NotebookNode) -> list[Unit]:
    label = TYPE.label_height if is_solution(cell) else 0
    overhead = TYPE.cell_gap + label
    units = []
    source = split_rubric(cell.source)[0] if is_written_answer(cell) else cell.source
    for block in markdown_blocks(source):
        start = None
        if 0 < block.heading <= 3:
            start = SLIDE if block.heading <= 2 else SUBSLIDE
        parts = [
            Unit(index, "source", part.height, overhead, lines=(part.start, part.end))
            for part in block.parts
        ]
        units.append(
            Unit(
                index,
                "source",
                block.height,
                overhead,
                start=start,
                heading=bool(block.heading),
                lines=(block.start, block.end),
                parts=parts,
            )
        )
    if not units:  # an empty cell
        units.append(Unit(index, "source", 0.0, 0.0, lines=(0, 0)))
    return units


def statement_starts(lines: list[str]) -> set[int]:
    """The indices of the lines of a cell's code at which a statement may begin: every line
    but those inside a statement that spans lines (a string, brackets, a backslash), as
    Python's tokenizer reads the code; every line when it does not read it."""
    rows_inside: set[int] = set()
    first = None
    readline = io.StringIO("\n".join(lines) + "\n").readline
    try:
        for token in tokenize.generate_tokens(readline):
            if token.type in _BETWEEN_STATEMENTS:
                continue
            if first is None:
                first = token.start[0]
            if token.type == tokenize.NEWLINE:
                rows_inside.update(range(first + 1, token.end[0] + 1))
                first = None
    except (tokenize.TokenError, SyntaxError):
        return set(range(len(lines)))
    return {i for i in range(len(lines)) if i + 1 not in rows_inside}


_BETWEEN_STATEMENTS = {
    tokenize.NL,
    tokenize.COMMENT,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def _code_units(index: int, lines: list[str], px: float, overhead: float) -> list[Unit]:
    """A code cell's units: its top-level statements (split at blank lines before an
    unindented line), each split when it must be at the first of these seams that splits
    it: blank lines (between paragraphs of code, or of a docstring), statements
    (:func:`statement_starts`: never inside a string or brackets), lines (the last resort).
    The blank lines between two units are their *lead*: shown only when both are on the
    same slide."""
    line_h = px * TYPE.code_lh
    seams = statement_starts(lines)

    def blank(i: int) -> bool:
        return not lines[i].strip()

    levels = (
        lambda i: i in seams and blank(i - 1) and not blank(i) and not lines[i][:1].isspace(),
        lambda i: blank(i - 1) and not blank(i),
        lambda i: i in seams,
        lambda i: True,
    )

    def chunks(a: int, b: int, level: int) -> list[tuple[int, int]]:
        edges = [a, *(i for i in range(a + 1, b) if levels[level](i)), b]
        return list(itertools.pairwise(edges))

    def trimmed(a: int, b: int) -> int:
        while b > a + 1 and blank(b - 1):
            b -= 1
        return b

    def units(pieces: list[tuple[int, int]], lead: int, level: int) -> list[Unit]:
        found = []
        for a, b in pieces:
            found.append(unit(a, b, lead, level))
            lead = b - trimmed(a, b)
        return found

    def unit(a: int, b: int, lead: int, level: int) -> Unit:
        parts: list[Unit] = []
        while not parts and level < len(levels):
            pieces = chunks(a, b, level)
            level += 1
            if len(pieces) > 1:
                parts = units(pieces, lead, level)
        end = trimmed(a, b)
        return Unit(
            index,
            "source",
            (end - a) * line_h,
            overhead,
            lead=lead * line_h,
            lines=(a, end),
            parts=parts,
            code_lines=end - a,
            lead_lines=lead,
        )

    return units(chunks(0, len(lines), 0), 0, 1)


def _text_units(index: int, out: int, text: str) -> Unit:
    """A text output, split between its lines when it is taller than a slide."""
    width = TYPE.content_width
    pad = 2 * TYPE.code_pad_y
    join = TYPE.output_gap + pad
    rows = text.rstrip("\n").split("\n")
    parts = [
        Unit(
            index,
            "output",
            text_output_height(row, width) - pad,
            TYPE.cell_gap + join,
            join,
            output=out,
            output_lines=(k, k + 1),
        )
        for k, row in enumerate(rows)
    ]
    height = text_output_height(text, width) - pad
    return Unit(index, "output", height, TYPE.cell_gap + join, join, output=out, parts=parts)


#: The room of a figure on its own slide: the slide's width (centred, but for a margin
#: narrower than the prose's padding) and the content's height.
FIGURE_ROOM = (
    TYPE.slide_width - 2 * TYPE.figure_pad_x,
    TYPE.budget - TYPE.cell_gap - TYPE.output_gap,
)


def figure_alone_size(size: tuple[int, int]) -> tuple[int, int]:
    """The size a figure of pixel *size* is drawn at on its own slide: as large as
    :data:`FIGURE_ROOM` allows, at most 1.5 times its pixels."""
    return fit_image(size, *FIGURE_ROOM)


def _beside(cell: nbformat.NotebookNode, lines: list[str], size: tuple[int, int], dpi: float):
    """(code size, figure size) when the code and its figure fit side by side, the figure
    large enough to read (:attr:`~lecture.layout.Typography.min_figure_text_px`), else
    None."""
    solution = is_solution(cell)
    longest = max((len(line.rstrip()) for line in lines), default=0)
    if len(lines) > TYPE.max_code_lines:
        return None
    for px in TYPE.code_sizes:
        room = TYPE.content_width - code_width(longest, px, solution=solution) - TYPE.beside_gap
        if room <= 0:
            continue
        label = TYPE.label_height if solution else 0
        drawn = fit_image(size, room, TYPE.budget - TYPE.cell_gap - label)
        tall = code_height(len(lines), px, solution=solution) + TYPE.cell_gap
        legible = figure_text_px(size, dpi, drawn[0]) >= TYPE.min_figure_text_px
        if drawn[1] >= TYPE.min_beside_height and legible and tall <= TYPE.budget:
            return px, drawn
    return None


def cell_units(index: int, cell: nbformat.NotebookNode) -> list[Unit]:
    """A cell's units in order: what the slides are packed from."""
    if cell.cell_type == "markdown":
        return _markdown_units(index, cell)
    if cell.cell_type != "code":
        return [Unit(index, "source", 0.0, 0.0, lines=(0, 0))]
    lines = cell.source.split("\n") if cell.source else []
    solution = is_solution(cell)
    px = cell_code_px(cell)
    outputs = cell.get("outputs", [])
    texts = [output_text(o) for o in outputs]
    figures = [k for k, o in enumerate(outputs) if _image(o) is not None]
    shown_texts = [k for k, t in enumerate(texts) if t is not None and t.strip()]
    if len(figures) == 1 and not shown_texts and lines:
        data = outputs[figures[0]]["data"][_image(outputs[figures[0]])]
        beside = _beside(cell, lines, png_size(data), png_dpi(data))
        if beside is not None:
            code_px_, drawn = beside
            label = TYPE.label_height if solution else 0
            tall = label + max(code_height(len(lines), code_px_), drawn[1])
            return [
                Unit(
                    index,
                    "source",
                    tall,
                    TYPE.cell_gap,
                    start=SUBSLIDE,
                    figure=True,
                    lines=(0, len(lines)),
                    output=figures[0],
                    image=drawn,
                    beside=True,
                    px=code_px_,
                    code_lines=len(lines),
                )
            ]
    units: list[Unit] = []
    if lines:
        overhead = TYPE.cell_gap + code_height(0, px, solution=solution)
        units = _code_units(index, lines, px, overhead)
        if figures:
            units[0].start = SUBSLIDE
    code_notes = f"The code that draws this figure:\n\n```python\n{cell.source}\n```"
    # the printed text stays with the code that printed it, the figures come after it
    for k in [*shown_texts, *figures]:
        output = outputs[k]
        if k in figures:
            kind = _image(output)
            size = png_size(output["data"][kind])
            overhead = TYPE.cell_gap + TYPE.output_gap
            drawn = figure_alone_size(size)
            units.append(
                Unit(
                    index,
                    "figure",
                    drawn[1],
                    overhead,
                    start=SUBSLIDE,
                    figure=True,
                    output=k,
                    image=drawn,
                    notes=code_notes if lines else "",
                )
            )
        else:
            units.append(_text_units(index, k, texts[k] or ""))
    return units


def cell_code_px(cell: nbformat.NotebookNode) -> float:
    """The size a code cell's code is set at: the largest at which its longest line fits
    the slide's width (18 px when none does: :func:`too_wide` names those lines)."""
    lines = cell.source.split("\n")
    px = code_px(lines, TYPE.content_width, solution=is_solution(cell))
    return px if px is not None else min(TYPE.code_sizes)


def too_wide(nb: nbformat.NotebookNode) -> list[tuple[int, int, int]]:
    """(cell, line, length) of every shown code line too long for a slide at 18 px."""
    px = min(TYPE.code_sizes)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or is_test(cell):
            continue
        for number, line in enumerate(cell.source.split("\n")):
            width = code_width(len(line.rstrip()), px, solution=is_solution(cell))
            if width > TYPE.content_width:
                found.append((index, number + 1, len(line.rstrip())))
    return found


@dataclass(frozen=True)
class SmallFigure:
    """A figure whose tick labels are drawn under the minimum on its slide, however large
    the slide lets it be: its notebook must draw it narrower (the course keeps matplotlib's
    tick label size, and a higher dpi scales the text with the image)."""

    cell: int
    size: tuple[int, int]  # its pixels
    dpi: float
    text_px: float  # its tick labels on the slide

    def advice(self) -> str:
        """What to change in the notebook: the largest figure whose text would be legible."""
        scale = TYPE.min_figure_text_px / (TYPE.figure_text_pt * self.dpi / 72)
        width, height = (side / scale for side in FIGURE_ROOM)
        return (
            f"its figure ({self.size[0]}×{self.size[1]} px at {self.dpi:.0f} dpi) shows its "
            f"{TYPE.figure_text_pt:g}-point tick labels at {self.text_px:.1f} px on a slide, "
            f"under {TYPE.min_figure_text_px:g}: make its image at most {width:.0f}×"
            f"{height:.0f} px ({width / self.dpi:.1f} × {height / self.dpi:.1f} inches)"
        )


def small_figures(nb: nbformat.NotebookNode) -> list[SmallFigure]:
    """The figures of *nb*'s deck whose tick labels are drawn under
    :attr:`~lecture.layout.Typography.min_figure_text_px` on their slides."""
    found = []
    for piece in plan(nb):
        for k, (width, _) in sorted(piece.images.items()):
            data = nb.cells[piece.cell].outputs[k]["data"]
            data = data[_image(nb.cells[piece.cell].outputs[k])]
            size, dpi = png_size(data), png_dpi(data)
            text = figure_text_px(size, dpi, width)
            if text < TYPE.min_figure_text_px:
                found.append(SmallFigure(piece.cell, size, dpi, text))
    return found


def max_code_chars(solution: bool = False) -> int:
    """The longest code line a slide shows at 18 px."""
    n = 0
    while code_width(n + 1, min(TYPE.code_sizes), solution=solution) <= TYPE.content_width:
        n += 1
    return n


# --------------------------------------------------------------------------- packing


class _Packer:
    """Places units on slides in order, by the rules of the module."""

    def __init__(self) -> None:
        self.pieces: list[Piece] = []
        self.heights: list[float] = []  # the model's height of each finished slide
        self.used = 0.0
        self.lines = 0  # the lines of code on the slide
        self.pending: str | None = None  # the type of the slide the next piece starts
        self.after_figure = False
        self.last_heading = False
        self.last_key: tuple[int, str, int | None] | None = None

    def _new_slide(self, kind: str) -> None:
        if self.pieces and self.pending is None:
            self.heights.append(self.used)
        self.used = 0.0
        self.lines = 0
        self.pending = kind

    def _joins(self, unit: Unit) -> bool:
        """Whether *unit* continues the last piece: the same cell, on the same slide, code
        before its outputs, a figure always a piece of its own."""
        last = self.pieces[-1] if self.pieces else None
        return (
            self.pending is None
            and last is not None
            and last.cell == unit.cell
            and not unit.figure
            and not last.images
            and (last.group == unit.group or (last.group, unit.group) == ("source", "output"))
        )

    def _goes_on(self, unit: Unit) -> bool:
        """Whether *unit* continues the very element (code, an output) placed last."""
        return self._joins(unit) and self.last_key == (unit.cell, unit.group, unit.output)

    def _cost(self, unit: Unit) -> float:
        if not self._joins(unit):
            return unit.height + unit.overhead
        if self._goes_on(unit):
            return unit.height + unit.lead
        return unit.height + unit.join

    def _code_lines(self, unit: Unit) -> int:
        return unit.code_lines + (unit.lead_lines if self._goes_on(unit) else 0)

    def _kept(self, unit: Unit, follower: Unit | None) -> float:
        """The height of what must stand on *unit*'s slide with it: after a heading, what
        follows it (its first part, when it is split); after a cell's code, its text
        output (its first part, when the output is taller than a slide)."""
        if follower is None:
            return 0.0
        if unit.heading:
            split = follower.parts and not self._fits_fresh(follower)
            return (follower.parts[0] if split else follower).height
        if unit.group == "source" and follower.group == "output":
            split = follower.parts and not self._fits_fresh(follower)
            return (follower.parts[0] if split else follower).height + follower.join
        return 0.0

    def _fits_fresh(self, unit: Unit, follower: Unit | None = None) -> bool:
        """Whether *unit* (and what it keeps on its slide) fits an empty slide."""
        tall = unit.height + unit.overhead + self._kept(unit, follower) <= TYPE.budget
        return tall and unit.code_lines <= TYPE.max_code_lines

    def _place_parts(self, unit: Unit, follower: Unit | None) -> None:
        for k, part in enumerate(unit.parts):
            self.place(part, follower if k == len(unit.parts) - 1 else None)

    def place(self, unit: Unit, follower: Unit | None = None, first: bool = False) -> None:
        start = SLIDE if first else unit.start
        if unit.heading and self.last_heading and start != SLIDE:
            start = None  # a heading right under a heading stays with it
        if start is None and self.after_figure:
            start = SUBSLIDE
        if start is not None:
            self._new_slide(start)
        if not self._fits_fresh(unit, follower) and unit.parts:
            self._place_parts(unit, follower)  # too tall for any slide: split at its seams
            return
        need = self._cost(unit) + self._kept(unit, follower)
        lines = self._code_lines(unit)
        full = self.used + need > TYPE.budget or self.lines + lines > TYPE.max_code_lines
        if self.used > 0 and full:
            if self.last_heading and unit.parts and start is None:
                self._place_parts(unit, follower)  # split rather than leave the heading alone
                return
            self._new_slide(SUBSLIDE)
        cost = self._cost(unit)
        lines = self._code_lines(unit)
        if self._joins(unit):
            piece = self.pieces[-1]
            piece.group = unit.group
        else:
            piece = Piece(unit.cell, self.pending or CONTINUE, unit.group)
            self.pending = None
            self.pieces.append(piece)
        self.used += cost
        self.lines += lines
        piece.height += cost
        self._record(piece, unit)
        self.after_figure = unit.figure
        self.last_heading = unit.heading
        self.last_key = (unit.cell, unit.group, unit.output)

    def finish(self) -> None:
        self.heights.append(self.used)

    @staticmethod
    def _record(piece: Piece, unit: Unit) -> None:
        if unit.lines is not None:
            a, b = unit.lines
            piece.lines = (a, b) if piece.lines is None else (piece.lines[0], b)
        if unit.output is not None:
            if unit.output not in piece.outputs:
                piece.outputs.append(unit.output)
            if unit.output_lines is not None:
                a, b = unit.output_lines
                old = piece.output_lines.get(unit.output)
                piece.output_lines[unit.output] = (a, b) if old is None else (old[0], b)
        if unit.image is not None and unit.output is not None:
            piece.images[unit.output] = unit.image
        piece.beside = piece.beside or unit.beside
        piece.px = unit.px or piece.px
        if unit.notes:
            piece.notes.append(unit.notes)


def _pack(nb: nbformat.NotebookNode) -> _Packer:
    nb = without_student_text(nb)  # what the lecture shows
    packer = _Packer()
    units: list[Unit] = []
    for index, cell in enumerate(nb.cells):
        if not is_test(cell):
            units.extend(cell_units(index, cell))
    for k, unit in enumerate(units):
        follower = units[k + 1] if k + 1 < len(units) and units[k + 1].cell == unit.cell else None
        packer.place(unit, follower, first=k == 0)
    packer.finish()
    return packer


def plan(nb: nbformat.NotebookNode) -> list[Piece]:
    """The pieces of *nb*'s cells on the deck's slides, in order (graded tests left out)."""
    return _pack(nb).pieces


def slide_heights(nb: nbformat.NotebookNode) -> list[float]:
    """The model's height of the content of every slide of *nb*'s deck, in order."""
    return _pack(nb).heights


def slide_types(nb: nbformat.NotebookNode) -> list[str]:
    """The slide type of every cell of *nb*: its first piece's (``skip`` for a test)."""
    types = [SKIP] * len(nb.cells)
    seen: set[int] = set()
    for piece in plan(nb):
        if piece.cell not in seen:
            seen.add(piece.cell)
            types[piece.cell] = piece.slide_type
    return types


# --------------------------------------------------------------------------- the deck's cells


def _shown_lines(text: str, lines: tuple[int, int]) -> tuple[int, int]:
    """The range *lines* of *text* without its blank lines at either end."""
    rows = text.split("\n")
    a, b = lines
    while b > a and not rows[b - 1].strip():
        b -= 1
    while a < b and not rows[a].strip():
        a += 1
    return a, b


def _slice(text: str, lines: tuple[int, int] | None) -> str:
    if lines is None:
        return text
    a, b = _shown_lines(text, lines)
    return "\n".join(text.split("\n")[a:b])


def _piece_cell(cell: nbformat.NotebookNode, piece: Piece, number: int) -> nbformat.NotebookNode:
    new = copy.deepcopy(cell)
    if number and "id" in new:
        new["id"] = f"{cell['id']}-{number + 1}"
    new.metadata["slideshow"] = {"slide_type": piece.slide_type}
    tags = list(new.metadata.get("tags", []))
    if cell.cell_type == "code":
        if piece.lines is not None:
            new.source = _slice(cell.source, piece.lines if not piece.beside else None)
            shown = _shown_lines(cell.source, piece.lines)
            if not piece.beside and shown != (0, len(cell.source.split("\n"))):
                new.metadata[PART_OF_KEY] = {"source": cell.source, "lines": list(shown)}
            if piece.beside:
                tags.append(BESIDE_TAG)
            tags.append(CODE_SIZE_TAG.format(px=piece.px or cell_code_px(cell)))
        else:
            new.source = ""
            new.metadata.setdefault("transient", {})["remove_source"] = True
        if piece.images and not piece.beside:
            tags.append(FIGURE_TAG)
        outputs = []
        for k in piece.outputs:
            output = copy.deepcopy(cell.outputs[k])
            if k in piece.output_lines:
                a, b = piece.output_lines[k]
                key = "text" if output.get("output_type") == "stream" else None
                text = output_text(output) or ""
                part = "\n".join(text.rstrip("\n").split("\n")[a:b]) + "\n"
                if key:
                    output["text"] = part
                else:
                    output["data"] = {"text/plain": part}
            if k in piece.images:
                width, height = piece.images[k]
                kind = _image(output)
                output.setdefault("metadata", {})[kind] = {"width": width, "height": height}
            outputs.append(output)
        new.outputs = outputs
    else:
        new.source = _slice(cell.source, piece.lines)
    if tags:
        new.metadata["tags"] = sorted(set(tags))
    return new


def split_for_slides(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of *nb* whose cells are the deck's pieces: each with its slide type, its
    code's size (tag ``slide-code-<px>``), a figure's drawn size (the output's
    width/height metadata), ``slide-beside`` for code beside its figure, and a ``notes``
    cell after it for what its speaker notes carry. Graded tests are left out, and so is
    what only students need (:func:`lecture.without_student_text`)."""
    nb = without_student_text(nb)
    out = copy.deepcopy(nb)
    cells = []
    counts: dict[int, int] = {}
    for piece in plan(nb):
        number = counts.get(piece.cell, 0)
        counts[piece.cell] = number + 1
        cells.append(_piece_cell(nb.cells[piece.cell], piece, number))
        for note in piece.notes:
            cell = nbformat.v4.new_markdown_cell(note)
            cell["id"] = f"{cells[-1].get('id', 'cell')}-notes"
            cell.metadata["slideshow"] = {"slide_type": NOTES}
            cells.append(cell)
    out.cells = cells
    return out


# --------------------------------------------------------------------------- the command


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


def _shown(path: Path) -> Path:
    resolved = path.resolve()
    return resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lecture.slides", description=__doc__)
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    paths = args.notebooks or course_notebooks()
    out_of_date = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for index, number, length in too_wide(nb):
            print(
                f"{_shown(path)}: cell {index} line {number} has {length} characters; a slide "
                f"shows {max_code_chars()} at 18 px: reformat it",
                file=sys.stderr,
            )
        for figure in small_figures(nb):
            print(f"{_shown(path)}: cell {figure.cell}: {figure.advice()}", file=sys.stderr)
        if not apply(nb):
            continue
        out_of_date.append(path)
        if not args.check:
            nbformat.write(nb, path)
    for path in out_of_date:
        verb = "stale" if args.check else "updated"
        print(f"{verb}: {_shown(path)}")
    return 1 if args.check and out_of_date else 0


if __name__ == "__main__":
    sys.exit(main())
