"""How tall a notebook's content is on a slide: the decks' height model.

The decks are 1280×720 reveal.js slides (scaled as a whole to the screen: a 1920×1080
projector shows the same layout 1.5 times larger). The deck's stylesheet
(``lecture/templates/lecture_reveal/index.html.j2``) takes every size from
:data:`TYPE` below, and this module predicts, from a notebook's cells alone (no browser,
no ``node_modules/``), how tall each piece of a cell is set in that stylesheet:

* prose (markdown) is parsed into its blocks by markdown-it (headings, paragraphs, list
  items, block quotes, tables, display math, fenced code); a block's lines are wrapped
  with the advance widths of the prose font (:mod:`lecture.metrics`); inline math is
  sized from its TeX (:func:`math_width_em`), display math from its structure
  (:func:`math_height_em`: fractions, limits, rows);
* code is lines times the line height at the cell's font size, which is the largest of
  20, 19 and 18 px at which its longest line fits the slide's width (:func:`code_px`);
* text outputs are wrapped at spaces in the code font;
* a figure is its stored PNG scaled to the room the slide gives it (:func:`fit_image`).

The numbers were calibrated against chromium (the browser test renders every deck and
compares): the model errs on the tall side, so a slide it fills still fits.
"""

from __future__ import annotations

import base64
import functools
import io
import math
import re
import struct
from dataclasses import dataclass, field

from lecture.metrics import text_em


@dataclass(frozen=True)
class Typography:
    """Every size of the deck's stylesheet (CSS pixels of the 1280×720 slide)."""

    slide_width: int = 1280
    slide_height: int = 720
    pad_x: int = 28  # a slide's padding, left and right
    pad_y: int = 18  # top and bottom
    #: room kept free at the bottom of a slide: the model's margin of error
    slack: int = 14
    cell_gap: int = 12  # between two cells
    # prose (Source Sans Pro)
    prose_px: float = 22.0
    prose_lh: float = 1.35
    par_gap: int = 10  # below a paragraph, list, table, quote
    item_gap: int = 3  # below a list item
    list_indent: int = 34
    quote_indent: int = 20  # border and padding of a block quote
    quote_pad_y: int = 4
    h1_px: float = 38.0
    h2_px: float = 32.0
    h3_px: float = 27.0
    h4_px: float = 23.0
    heading_lh: float = 1.2
    heading_gap: int = 10
    table_px: float = 19.0
    table_lh: float = 1.3
    table_pad_x: int = 8
    table_pad_y: int = 3
    #: MathJax scales its TeX font to the prose font's x-height: 0.486 / 0.43 em
    math_scale: float = 1.13
    display_math_gap: int = 6  # above and below a displayed formula
    # code (the monospace font: DejaVu Sans Mono, Menlo, Consolas ... all about 0.6 em)
    code_sizes: tuple[float, ...] = (20.0, 19.0, 18.0)
    output_px: float = 18.0
    code_lh: float = 1.3
    code_char_em: float = 0.605
    code_pad_x: int = 10
    code_pad_y: int = 6
    output_gap: int = 6  # between a cell's code and its outputs
    #: the most lines of code a slide shows (the code of all its cells): more starts another
    max_code_lines: int = 16
    #: the "students write this" label above a solution cell, and its left border
    label_height: int = 24
    label_border: int = 14
    # figures
    max_upscale: float = 1.5  # a stored figure is drawn at most 1.5 times its pixel size
    beside_gap: int = 16  # between code and its figure, side by side
    min_beside_height: int = 450  # a figure beside its code is at least this tall
    #: a figure on its own slide is as wide as the slide but for this margin each side (the
    #: prose's padding is wider)
    figure_pad_x: int = 8
    #: the size of a figure's tick labels, in points: matplotlib's default ("medium" of
    #: font.size 10), which the course's figures keep (a test checks that they do)
    figure_text_pt: float = 10.0
    #: a figure's tick labels on the slide are drawn at least this large, where the
    #: stored figure allows it (:func:`figure_text_px`)
    min_figure_text_px: float = 18.0

    @property
    def content_width(self) -> int:
        return self.slide_width - 2 * self.pad_x

    @property
    def content_height(self) -> int:
        return self.slide_height - 2 * self.pad_y

    @property
    def budget(self) -> int:
        """The height a slide's content may take."""
        return self.content_height - self.slack

    def css(self) -> dict[str, object]:
        """The sizes the deck's stylesheet uses, by name."""
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        values["content_width"] = self.content_width
        values["code_sizes_max"] = max(self.code_sizes)
        return values


TYPE = Typography()


# --------------------------------------------------------------------------- prose lines


@dataclass
class _Run:
    """A piece of a line: its width in px, whether a line may break before it."""

    width: float
    space_before: float = 0.0  # the width of the space before it (0: glued to the last)
    display: float = 0.0  # a displayed formula's height in px (it sits on its own line)
    tall: float = 0.0  # how much taller than the line this run is (inline fractions)


def _face(bold: bool, italic: bool) -> str:
    return f"{'600' if bold else '400'} {'italic' if italic else 'normal'}"


def wrap_runs(runs: list[_Run], width: float, line_height: float) -> float:
    """Height of *runs* set in lines of *width*, breaking only at spaces (a run wider than
    the line takes the lines it needs)."""
    height, line, extra, started = 0.0, 0.0, 0.0, False
    for run in runs:
        if run.display:
            if started:
                height += line_height + extra
            height += run.display
            line, extra, started = 0.0, 0.0, False
            continue
        if started and run.space_before and line + run.space_before + run.width > width:
            height += line_height + extra
            line, extra = 0.0, 0.0
            started = False
        if not started:
            line, started = run.width, True
        else:
            line += run.space_before + run.width
        extra = max(extra, run.tall)
        if line > width:  # one run wider than the line: it breaks inside (a long name)
            over = math.ceil(line / width) - 1
            height += over * line_height
            line -= over * width
    if started:
        height += line_height + extra
    return height


def _inline_runs(tokens, px: float, bold: bool = False) -> list[_Run]:
    """The runs of a markdown-it inline token's children, words split at spaces."""
    runs: list[_Run] = []
    italic = False
    pending_space = 0.0
    glue = False  # the next word continues the last run (no space between)

    def add(width: float, *, breakable_before: bool, tall: float = 0.0) -> None:
        nonlocal pending_space, glue
        if runs and glue and not breakable_before:
            runs[-1].width += width
            runs[-1].tall = max(runs[-1].tall, tall)
        else:
            runs.append(_Run(width, space_before=pending_space if runs else 0.0, tall=tall))
        pending_space = 0.0
        glue = True

    for tok in tokens:
        kind = tok.type
        if kind in ("strong_open", "strong_close"):
            bold = kind == "strong_open"
        elif kind in ("em_open", "em_close"):
            italic = kind == "em_open"
        elif kind in ("text", "html_inline"):
            text = re.sub(r"<[^>]*>", "", tok.content) if kind == "html_inline" else tok.content
            face = _face(bold, italic)
            words = text.split(" ")
            for index, word in enumerate(words):
                if index > 0:
                    pending_space = text_em(" ", face) * px
                    glue = False
                if word:
                    add(text_em(word, face) * px, breakable_before=index > 0 or not glue)
        elif kind in ("softbreak", "hardbreak"):
            pending_space = text_em(" ") * px
            glue = False
        elif kind == "code_inline":
            # set in the code font at 0.9 of the prose size, with 0.2 em of padding
            words = tok.content.split(" ")
            for index, word in enumerate(words):
                if index > 0:
                    pending_space = 0.9 * px * TYPE.code_char_em
                    glue = False
                width = 0.9 * px * TYPE.code_char_em * len(word) + (0.4 * px if index == 0 else 0)
                add(width, breakable_before=index > 0 or not glue)
        elif kind == "math_inline":
            scale = px * TYPE.math_scale
            box = _math_box(tok.content, False)
            # what rises above or sinks below the line's strut makes the line taller
            tall = (max(0.0, box.above - _STRUT_ABOVE) + max(0.0, box.below - _STRUT_BELOW)) * scale
            add(box.width * scale, breakable_before=not glue, tall=tall)
        elif kind == "math_inline_double":
            runs.append(_Run(0.0, display=_display_math_px(tok.content)))
            glue = False
        elif kind == "image":
            runs.append(_Run(0.0, display=px * 8))  # markdown images: not used by the course
    return runs


#: The prose line's strut above and below the baseline, in ems of the math font: Source
#: Sans Pro's ascent 0.952 em and descent 0.343 em with the half-leading of a 1.35 line.
_STRUT_ABOVE = (0.952 + (TYPE.prose_lh - 1.295) / 2) / TYPE.math_scale
_STRUT_BELOW = (0.343 + (TYPE.prose_lh - 1.295) / 2) / TYPE.math_scale


def _display_math_px(tex: str) -> float:
    em = math_height_em(tex, display=True)
    return em * TYPE.prose_px * TYPE.math_scale + 2 * TYPE.display_math_gap


# --------------------------------------------------------------------------- math


_TEX_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|[{}^_&]|\s+|[^\\{}^_&\s]")
_SPACES = {
    r"\,": 0.167,
    r"\:": 0.222,
    r"\;": 0.278,
    r"\!": -0.167,
    r"\ ": 0.25,
    "~": 0.33,
    r"\quad": 1.0,
    r"\qquad": 2.0,
}
_BINARY = {"+", "-", "*", r"\cdot", r"\times", r"\pm", r"\mp", r"\circ", r"\odot", r"\oplus"}
_RELATION = {
    "=",
    "<",
    ">",
    r"\le",
    r"\leq",
    r"\ge",
    r"\geq",
    r"\ne",
    r"\neq",
    r"\approx",
    r"\sim",
    r"\equiv",
    r"\to",
    r"\mapsto",
    r"\leftarrow",
    r"\rightarrow",
    r"\Rightarrow",
    r"\Leftarrow",
    r"\Leftrightarrow",
    r"\iff",
    r"\in",
    r"\notin",
    r"\subset",
    r"\subseteq",
    r"\propto",
    r"\gets",
    r"\ll",
    r"\gg",
    r"\perp",
    r"\parallel",
    r"\mid",
}
_NARROW = {",", ";", ".", ":", "!", "'", "|", "[", "]", "(", ")", "/", r"\{", r"\}", r"\|"}
_NARROW_WIDTH = {",": 0.45, ";": 0.45, ":": 0.56, "/": 0.5, "(": 0.39, ")": 0.39}
_NARROW_WIDTH |= {r"\|": 0.5, r"\{": 0.5, r"\}": 0.5, "[": 0.28, "]": 0.28, "|": 0.28}
_WIDE = {r"\sum": 1.25, r"\prod": 1.1, r"\int": 0.6, r"\infty": 1.0, r"\ldots": 1.17}
_WIDE |= {r"\dots": 1.17, r"\cdots": 1.17, r"\vdots": 0.3, r"\ddots": 1.0, r"\nabla": 0.83}
_WIDE |= {r"\lVert": 0.5, r"\rVert": 0.5, r"\Vert": 0.5, r"\lvert": 0.28, r"\rvert": 0.28}
_WIDE |= {r"\langle": 0.39, r"\rangle": 0.39, r"\lfloor": 0.45, r"\rfloor": 0.45}
_WIDE |= {r"\lceil": 0.45, r"\rceil": 0.45, r"\emptyset": 0.5, r"\partial": 0.57}
_WIDE |= {r"\top": 0.78, r"\ell": 0.42, r"\prime": 0.28, r"\star": 0.5, r"\vert": 0.28}
# Advance widths (em) of TeX's math fonts, as MathJax draws them: italic letters, bold
# upright letters (\mathbf), Greek letters.
_ITALIC = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        map(
            float,
            """.53 .43 .43 .52 .47 .49 .48 .58 .35 .41 .52 .3 .88 .6 .49 .5 .45 .45 .47 .36
            .57 .49 .72 .57 .49 .47 .75 .76 .72 .83 .74 .64 .79 .83 .44 .56 .85 .68 .97 .8
            .76 .64 .79 .76 .61 .58 .68 .58 .94 .83 .58 .68""".split(),
        ),
        strict=True,
    )
)
_BOLD = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        map(
            float,
            """.56 .64 .51 .64 .53 .35 .58 .64 .32 .35 .61 .32 .96 .64 .58 .64 .61 .47 .45
            .45 .64 .61 .83 .61 .61 .51""".split(),
        ),
        strict=True,
    )
)
_GREEK = {"alpha": 0.64, "beta": 0.57, "gamma": 0.52, "delta": 0.45, "epsilon": 0.41}
_GREEK |= {"varepsilon": 0.47, "eta": 0.5, "theta": 0.47, "lambda": 0.58, "mu": 0.6}
_GREEK |= {"xi": 0.44, "pi": 0.57, "rho": 0.52, "sigma": 0.57, "tau": 0.44, "phi": 0.6}
_GREEK |= {"varphi": 0.65, "psi": 0.65, "omega": 0.62, "kappa": 0.58, "nu": 0.53}
_GREEK |= {"chi": 0.63, "zeta": 0.47, "iota": 0.36, "Gamma": 0.63, "Delta": 0.83}
_GREEK |= {"Theta": 0.78, "Lambda": 0.69, "Sigma": 0.72, "Phi": 0.72, "Psi": 0.78}
_GREEK |= {"Omega": 0.72, "Pi": 0.75, "Xi": 0.67}

#: commands whose argument is shown as it is (fonts, accents)
_WRAPPERS = {
    r"\mathbf",
    r"\boldsymbol",
    r"\bm",
    r"\mathit",
    r"\mathcal",
    r"\mathbb",
    r"\mathsf",
    r"\mathtt",
    r"\hat",
    r"\widehat",
    r"\tilde",
    r"\widetilde",
    r"\bar",
    r"\overline",
    r"\underline",
    r"\vec",
    r"\dot",
    r"\ddot",
    r"\check",
    r"\displaystyle",
    r"\textstyle",
}
_ACCENTS = {r"\hat", r"\widehat", r"\tilde", r"\widetilde", r"\bar", r"\overline", r"\vec"}
_ACCENTS |= {r"\dot", r"\ddot", r"\check"}
_TEXT = {r"\text", r"\mathrm", r"\operatorname", r"\textrm", r"\textbf", r"\textit", r"\mbox"}
_IGNORED = {r"\left", r"\right", r"\limits", r"\nolimits", "&"}
#: a delimiter made bigger: its height in ems
_BIG = {r"\big": 1.2, r"\Big": 1.8, r"\bigg": 2.4, r"\Bigg": 3.0}
_BIG |= {name + side: h for name, h in list(_BIG.items()) for side in ("l", "r", "m")}
_IGNORED |= {r"\label", r"\nonumber", r"\notag", r"\tag"}
_LIMITS = {r"\sum", r"\prod", r"\max", r"\min", r"\lim", r"\sup", r"\inf", r"\argmax"}
_LIMITS |= {r"\argmin", r"\bigcup", r"\bigcap", r"\limsup", r"\liminf"}


@dataclass
class _Box:
    """A typeset piece of math: width, height above and depth below the baseline (em)."""

    width: float = 0.0
    above: float = 0.72
    below: float = 0.22
    limits: bool = False  # takes its scripts above and below in display style

    def beside(self, other: _Box) -> None:
        self.width += other.width
        self.above = max(self.above, other.above)
        self.below = max(self.below, other.below)


class _TexReader:
    """A small reader of TeX math: enough structure to size a formula (fractions,
    scripts, roots, rows), not to typeset it."""

    def __init__(self, tex: str, display: bool) -> None:
        self.tokens = [t for t in _TEX_TOKEN.findall(tex) if not t.isspace()]
        self.pos = 0
        self.display = display
        self.bold = False  # inside \mathbf, \boldsymbol
        self.script = 0  # inside a sub- or superscript: operators get no spaces

    def _next(self) -> str | None:
        if self.pos >= len(self.tokens):
            return None
        self.pos += 1
        return self.tokens[self.pos - 1]

    def _group_text(self) -> str:
        """The raw text of the next group (``{...}`` or one token)."""
        tok = self._next()
        if tok != "{":
            return tok or ""
        depth, out = 1, []
        while (tok := self._next()) is not None:
            depth += {"{": 1, "}": -1}.get(tok, 0)
            if depth == 0:
                break
            out.append(tok)
        return "".join(out)

    def _argument(self, display: bool) -> _Box:
        tok = self._next()
        if tok is None:
            return _Box(0.0)
        if tok == "{":
            return self.row(until="}", display=display)
        self.pos -= 1
        return self.atom(display=display)

    def row(self, until: str | None = None, display: bool | None = None) -> _Box:
        """A sequence of atoms, with rows (``\\\\``) stacked."""
        display = self.display if display is None else display
        rows: list[_Box] = [_Box(0.0)]
        while self.pos < len(self.tokens):
            tok = self.tokens[self.pos]
            if until is not None and tok == until:
                self.pos += 1
                break
            if tok == r"\end":
                self.pos += 1
                self._group_text()
                break
            if tok == "\\\\":
                self.pos += 1
                rows.append(_Box(0.0))
                continue
            rows[-1].beside(self.atom(display=display))
        if len(rows) == 1:
            return rows[0]
        height = sum(r.above + r.below for r in rows) + 0.3 * (len(rows) - 1) + 0.3
        return _Box(max(r.width for r in rows), above=height / 2 + 0.25, below=height / 2 - 0.25)

    def atom(self, display: bool) -> _Box:
        tok = self._next()
        box: _Box
        if tok in _SPACES:
            return _Box(_SPACES[tok], 0.0, 0.0)
        if tok in _BIG:
            delimiter = self._next()
            size = _BIG[tok]
            width = _NARROW_WIDTH.get(delimiter or "", 0.4) * (1 + (size - 1) / 2)
            return _Box(width, above=0.25 + size / 2, below=size / 2 - 0.25)
        if tok in _IGNORED:
            if tok in (r"\label", r"\tag"):
                self._group_text()
            return _Box(0.0, 0.0, 0.0)
        if tok == "{":
            box = self.row(until="}", display=display)
        elif tok in (r"\frac", r"\dfrac", r"\tfrac", r"\binom"):
            # in display style its parts are set in text style, else in script style
            big = (display and tok != r"\tfrac") or tok == r"\dfrac"
            num, den = self._argument(False), self._argument(False)
            shrink = 1.0 if big else 0.707
            width = max(num.width, den.width) * shrink + 0.24
            box = _Box(
                width,
                above=(0.68 if big else 0.39) + num.above * shrink,
                below=(0.69 if big else 0.34) + den.below * shrink,
            )
        elif tok == r"\sqrt":
            inner = self._argument(display)
            box = _Box(inner.width + 0.85, inner.above + 0.25, max(inner.below, 0.3))
        elif tok in _TEXT:
            text = self._group_text()
            box = _Box(text_em(text) * 1.15)  # TeX's roman is wider than the prose font
        elif tok in _WRAPPERS:
            bold = self.bold
            self.bold = bold or tok in (r"\mathbf", r"\boldsymbol", r"\bm")
            inner = self._argument(display)
            self.bold = bold
            box = _Box(inner.width, inner.above, inner.below)
            if tok in _ACCENTS:
                box.above += 0.2
        elif tok in (r"\underbrace", r"\overbrace", r"\underset", r"\overset", r"\stackrel"):
            first = self._argument(display)
            if tok in (r"\underset", r"\overset", r"\stackrel"):
                base = self._argument(display)
                box = _Box(max(base.width, first.width * 0.707), base.above, base.below)
                extra = (first.above + first.below) * 0.707 + 0.1
                if tok == r"\underset":
                    box.below += extra
                else:
                    box.above += extra
            else:
                box = _Box(first.width, first.above, first.below)
                if tok == r"\underbrace":
                    box.below += 0.45
                else:
                    box.above += 0.45
                box.limits = True
        elif tok == r"\begin":
            env = self._group_text()
            if env in ("array", "tabular"):
                self._group_text()
            inner = self.row(display=True)
            pad = 1.2 if env in ("pmatrix", "bmatrix", "cases", "vmatrix", "Bmatrix") else 0.0
            box = _Box(inner.width + pad, inner.above, inner.below)
            if "align" in env or env in ("gather", "equation"):
                box.width += 0.5
        elif tok in _BINARY or tok in _RELATION:
            before = self.tokens[self.pos - 2] if self.pos >= 2 else None
            after = self.tokens[self.pos] if self.pos < len(self.tokens) else None
            glyph = 0.28 if tok == r"\cdot" else 0.78
            if tok in _RELATION:
                space = 0.56
            elif before in (None, "(", "[", "{", ",", "^", "_", "&", *_RELATION) or after in (
                None,
                "}",
            ):
                space = 0.0  # a sign, not an operation
            else:
                space = 0.44
            box = _Box(glyph + (0.0 if self.script else space), 0.58, 0.08)
        elif tok in _NARROW:
            tall = tok in ("(", ")", "[", "]", "|", r"\|", r"\{", r"\}", "/")
            width = _NARROW_WIDTH.get(tok, 0.28)
            box = _Box(width, 0.75 if tall else 0.12, 0.25 if tall else 0.1)
        elif tok in _WIDE:
            box = _Box(_WIDE[tok])
            if tok in (r"\sum", r"\prod", r"\int"):
                box.above, box.below = 0.75, 0.25
            if tok in (r"\sum", r"\prod") and display:
                box = _Box(1.44, 0.95, 0.45, limits=True)
        elif tok is not None and tok.startswith("\\") and len(tok) > 2:
            name = tok[1:]
            if tok in _LIMITS or name in ("log", "exp", "sign", "det", "arg", "ln", "tr"):
                box = _Box(text_em(name) * 0.95 + 0.17, 0.7, 0.05, limits=tok in _LIMITS)
            else:  # a Greek letter or another symbol
                box = _Box(_GREEK.get(name, 0.62 if name[0].islower() else 0.75))
                if self.bold:
                    box.width *= 1.1
        elif tok is not None and tok.isdigit():
            box = _Box(0.575 if self.bold else 0.5, 0.68, 0.01)
        elif tok is not None and tok.isalpha():
            if self.bold:
                width = _BOLD.get(tok, 0.86 if tok.isupper() else 0.62)
            else:
                width = _ITALIC.get(tok, 0.6)
            box = _Box(width, 0.7, 0.2 if tok in "fgjpqyQ" else 0.01)
        else:
            box = _Box(0.5)
        return self._scripts(box, display)

    def _scripts(self, base: _Box, display: bool) -> _Box:
        sup = sub = None
        while self.pos < len(self.tokens) and self.tokens[self.pos] in ("^", "_", "'"):
            tok = self._next()
            if tok == "'":
                base.width += 0.28
                continue
            self.script += 1
            script = self._argument(display=False)
            self.script -= 1
            if tok == "^":
                sup = script
            else:
                sub = script
        if sup is None and sub is None:
            return base
        shrink = 0.707
        if base.limits and display:
            width = max(base.width, (sup.width if sup else 0) * shrink)
            width = max(width, (sub.width if sub else 0) * shrink)
            above = base.above + ((sup.above + sup.below) * shrink + 0.15 if sup else 0)
            below = base.below + ((sub.above + sub.below) * shrink + 0.15 if sub else 0)
            return _Box(width, above, below)
        width = base.width + max(sup.width if sup else 0, sub.width if sub else 0) * shrink
        above = max(base.above, 0.4 + sup.above * shrink) if sup else base.above
        # a subscript hangs from the base's depth (a sum, a parenthesis) or at least 0.15 em
        drop = max(0.25 if sup else 0.15, base.below + 0.05 if base.below > 0.1 else 0.0)
        below = max(base.below, drop + sub.below * shrink) if sub else base.below
        return _Box(width + 0.05, above, below)


@functools.lru_cache(maxsize=4096)
def _math_box(tex: str, display: bool) -> _Box:
    return _TexReader(tex, display).row()


def math_width_em(tex: str, display: bool = False) -> float:
    """The width of the formula *tex* in ems of the math font."""
    return _math_box(tex, display).width


def math_height_em(tex: str, display: bool = True) -> float:
    """The height (above plus below the baseline) of the formula *tex*, in ems."""
    box = _math_box(tex, display)
    return max(1.0, box.above + box.below)


# --------------------------------------------------------------------------- markdown


@dataclass
class Block:
    """A top-level block of a markdown cell (a heading, a paragraph, a list, ...).

    *start*/*end* are its source lines (end excluded); *parts* are the blocks it may be
    split into when it does not fit one slide (a list's items, a quote's paragraphs).
    """

    start: int
    end: int
    height: float
    heading: int = 0  # its level, for a heading
    parts: list[Block] = field(default_factory=list)


@functools.cache
def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=True)


def _heading_px(level: int) -> float:
    return {1: TYPE.h1_px, 2: TYPE.h2_px, 3: TYPE.h3_px}.get(level, TYPE.h4_px)


def _closing(tokens, index: int) -> int:
    """The index of the token closing the block opened at *index*."""
    depth = 0
    for j in range(index, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _blocks(tokens, width: float) -> list[Block]:
    """The blocks of a token stream at one nesting level, each with its height."""
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        end = _closing(tokens, i) if tok.nesting == 1 else i
        inner = tokens[i + 1 : end]
        start_line, end_line = tok.map if tok.map else (0, 0)
        kind = tok.type
        lh = TYPE.prose_px * TYPE.prose_lh
        if kind == "heading_open":
            level = int(tok.tag[1])
            px = _heading_px(level)
            runs = _inline_runs(inner[0].children, px, bold=True)
            height = wrap_runs(runs, width, px * TYPE.heading_lh) + TYPE.heading_gap
            blocks.append(Block(start_line, end_line, height, heading=level))
        elif kind == "paragraph_open":
            runs = _inline_runs(inner[0].children, TYPE.prose_px)
            # a tight list's items hold their text without a paragraph (no gap below)
            gap = 0 if tok.hidden else TYPE.par_gap
            blocks.append(Block(start_line, end_line, wrap_runs(runs, width, lh) + gap))
        elif kind in ("bullet_list_open", "ordered_list_open"):
            items = []
            j = 0
            while j < len(inner):
                close = _closing(inner, j)
                item = inner[j]
                children = _blocks(inner[j + 1 : close], width - TYPE.list_indent)
                body = sum(c.height for c in children)
                istart, iend = item.map
                items.append(Block(istart, iend, max(body, lh) + TYPE.item_gap))
                j = close + 1
            height = sum(item.height for item in items) + TYPE.par_gap
            blocks.append(Block(start_line, end_line, height, parts=items))
        elif kind == "blockquote_open":
            children = _blocks(inner, width - TYPE.quote_indent)
            height = sum(c.height for c in children) + 2 * TYPE.quote_pad_y + TYPE.par_gap
            blocks.append(Block(start_line, end_line, height, parts=children))
        elif kind == "table_open":
            height = _table_height(inner, width) + TYPE.par_gap
            blocks.append(Block(start_line, end_line, height))
        elif kind in ("math_block", "math_block_label"):
            blocks.append(Block(start_line, end_line, _display_math_px(tok.content)))
        elif kind in ("fence", "code_block"):
            lines = tok.content.rstrip("\n").count("\n") + 1
            height = lines * TYPE.output_px * TYPE.code_lh + 2 * TYPE.code_pad_y + TYPE.par_gap
            blocks.append(Block(start_line, end_line, height))
        elif kind == "hr":
            blocks.append(Block(start_line, end_line, 2 + 2 * TYPE.par_gap))
        elif kind == "html_block":
            text = re.sub(r"<[^>]*>", " ", tok.content)
            runs = [
                _Run(text_em(w) * TYPE.prose_px, text_em(" ") * TYPE.prose_px) for w in text.split()
            ]
            blocks.append(Block(start_line, end_line, wrap_runs(runs, width, lh) + TYPE.par_gap))
        i = end + 1
    return blocks


def _table_height(tokens, width: float) -> float:
    """Rows of a table whose columns share *width* as browsers share it (each column its
    widest word at least, the rest in proportion to its longest cell)."""
    px = TYPE.table_px
    rows: list[list[list[_Run]]] = []
    for j, tok in enumerate(tokens):
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type == "inline" and rows:
            bold = tokens[j - 1].type == "th_open"
            rows[-1].append(_inline_runs(tok.children or [], px, bold=bold))
    if not rows:
        return 0.0
    columns = max(len(r) for r in rows)
    pad = 2 * TYPE.table_pad_x
    longest = [0.0] * columns
    widest = [0.0] * columns
    for row in rows:
        for c, runs in enumerate(row):
            total = sum(r.width + r.space_before for r in runs)
            longest[c] = max(longest[c], total + pad)
            widest[c] = max(widest[c], max((r.width for r in runs), default=0.0) + pad)
    if sum(longest) <= width:
        share = longest
    else:
        spare = max(0.0, width - sum(widest))
        grow = [max(0.0, lo - wi) for lo, wi in zip(longest, widest, strict=True)]
        total = sum(grow) or 1.0
        share = [wi + spare * g / total for wi, g in zip(widest, grow, strict=True)]
    lh = px * TYPE.table_lh
    height = 0.0
    for row in rows:
        lines = [
            wrap_runs(runs, max(1.0, share[c] - pad), lh) if runs else lh
            for c, runs in enumerate(row)
        ]
        height += max(lines) + 2 * TYPE.table_pad_y + 1
    return height


def markdown_blocks(source: str, width: float | None = None) -> list[Block]:
    """The top-level blocks of a markdown cell, each with its height on a slide."""
    width = TYPE.content_width if width is None else width
    return _blocks(_parser().parse(source), width)


# --------------------------------------------------------------------------- code


def code_char_px(px: float) -> float:
    """The advance of one character of the code font at *px*."""
    return px * TYPE.code_char_em


def code_width(longest: int, px: float, *, solution: bool = False) -> float:
    """The width a code block needs for lines of *longest* characters."""
    label = TYPE.label_border if solution else 0
    return math.ceil(longest * code_char_px(px)) + 2 * TYPE.code_pad_x + label + 2


def code_px(lines: list[str], width: float, *, solution: bool = False) -> float | None:
    """The largest code size at which the longest of *lines* fits *width* (None: none)."""
    longest = max((len(line.rstrip()) for line in lines), default=0)
    for px in TYPE.code_sizes:
        if code_width(longest, px, solution=solution) <= width:
            return px
    return None


def code_height(lines: int, px: float, *, solution: bool = False) -> float:
    """The height of a code block of *lines* lines set at *px*."""
    label = TYPE.label_height if solution else 0
    return lines * px * TYPE.code_lh + 2 * TYPE.code_pad_y + label


def text_output_height(text: str, width: float, px: float | None = None) -> float:
    """The height of a text output (a ``pre`` that wraps at spaces) in *width*."""
    px = TYPE.output_px if px is None else px
    per_line = max(1, int((width - 2 * TYPE.code_pad_x) // code_char_px(px)))
    lines = 0
    for line in text.rstrip("\n").split("\n"):
        lines += _wrapped_lines(line.rstrip(), per_line)
    return lines * px * TYPE.code_lh + 2 * TYPE.code_pad_y


def _wrapped_lines(line: str, per_line: int) -> int:
    """Lines that *line* takes when wrapped at spaces to *per_line* characters."""
    if len(line) <= per_line:
        return 1
    count, used = 1, 0
    for index, word in enumerate(line.split(" ")):
        need = len(word) + (1 if index and used else 0)
        if used and used + need > per_line:
            count += 1
            used = len(word)
        else:
            used += need
        while used > per_line:
            count += 1
            used -= per_line
    return count


# --------------------------------------------------------------------------- figures


def png_size(data: str) -> tuple[int, int]:
    """The pixel size of a base64 PNG (from its header)."""
    try:
        head = base64.b64decode("".join(data[:64].split())[:32])
    except ValueError:  # binascii.Error
        head = b""
    if head[:8] != b"\x89PNG\r\n\x1a\n" or len(head) < 24:
        return (640, 480)  # not a PNG header: a figure of matplotlib's default size
    width, height = struct.unpack(">II", head[16:24])
    return width, height


#: The resolution of a PNG that records none: matplotlib's default ``figure.dpi``.
DEFAULT_DPI = 100.0


def png_dpi(data: str) -> float:
    """The resolution a base64 PNG records (its pHYs chunk: matplotlib writes the figure's
    dpi there), or :data:`DEFAULT_DPI`."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(base64.b64decode(data))) as image:
            dpi = image.info.get("dpi")
    except (ValueError, OSError):  # not a PNG
        return DEFAULT_DPI
    return float(dpi[0]) if dpi else DEFAULT_DPI


def figure_text_px(size: tuple[int, int], dpi: float, drawn_width: float) -> float:
    """How large a figure of pixel *size*, made at *dpi*, draws its tick labels (of
    :attr:`Typography.figure_text_pt`) when it is drawn *drawn_width* pixels wide."""
    return TYPE.figure_text_pt * dpi / 72 * drawn_width / size[0]


def fit_image(size: tuple[int, int], width: float, height: float) -> tuple[int, int]:
    """The size a figure of pixel *size* is drawn at, as large as the room (*width* ×
    *height*) allows, at most :attr:`Typography.max_upscale` times its pixels."""
    w, h = size
    scale = min(width / w, height / h, TYPE.max_upscale)
    return max(1, math.floor(w * scale)), max(1, math.floor(h * scale))
