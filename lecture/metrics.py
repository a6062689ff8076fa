"""Advance widths of the decks' prose font, for the slide layout's line wrapping.

The decks set prose in Source Sans Pro, the font that reveal.js's ``white`` theme inlines
in its stylesheet (so every machine shows the same glyphs). :mod:`lecture.layout` wraps
prose with the font's own advance widths, read from ``lecture/fonts.json``: a table made
from that stylesheet by ``python -m lecture.metrics`` (run it after updating reveal.js; a
test compares the table with the installed theme). The table is committed so that the
slide metadata (``python -m lecture.slides``) needs neither ``node_modules/`` nor a
browser, and gives the same answer on every machine.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import re
import sys
from pathlib import Path

#: The committed table: face ("400 normal", "400 italic", "600 normal", "600 italic") ->
#: [[code point, advance in thousandths of an em], ...].
FONTS_JSON = Path(__file__).resolve().parent / "fonts.json"
#: The prose font's family name in the theme's stylesheet.
FAMILY = "Source Sans Pro"
#: Code points kept in the table (the font's others are CJK-free symbols nobody types).
_MAX_CODE_POINT = 0x2FFF
#: Width of a character the font lacks (the browser falls back to another sans-serif,
#: DejaVu Sans on Debian: wider than Source Sans Pro; this is its typical advance).
FALLBACK_EM = 0.65

_FACE = re.compile(
    r"@font-face\{font-family:" + FAMILY + r";src:url\(data:font/woff;base64,([^)]*)\)"
    r"[^}]*?font-weight:(\d+);font-style:(\w+)\}"
)


def read_theme_fonts(css: str) -> dict[str, list[list[int]]]:
    """The advance widths of every face of the prose font inlined in the theme's *css*."""
    from fontTools.ttLib import TTFont

    table: dict[str, list[list[int]]] = {}
    for data, weight, style in _FACE.findall(css):
        font = TTFont(io.BytesIO(base64.b64decode(data)))
        per_em = font["head"].unitsPerEm
        metrics = font["hmtx"]
        table[f"{weight} {style}"] = [
            [code, round(1000 * metrics[glyph][0] / per_em)]
            for code, glyph in sorted(font.getBestCmap().items())
            if code <= _MAX_CODE_POINT
        ]
    return table


@functools.cache
def widths(face: str = "400 normal") -> dict[str, float]:
    """Character -> advance in ems of one face of the prose font."""
    table = json.loads(FONTS_JSON.read_text(encoding="utf-8"))
    return {chr(code): milli / 1000 for code, milli in table[face]}


def text_em(text: str, face: str = "400 normal") -> float:
    """Width of *text* in ems, set in one face of the prose font (no kerning: a little
    wider than the browser draws it, never narrower)."""
    table = widths(face)
    return sum(table.get(ch, FALLBACK_EM) for ch in text)


def main() -> int:
    """Write ``lecture/fonts.json`` from the installed reveal.js theme."""
    from lecture.assets import REVEAL_THEME, reveal_dir

    css = (reveal_dir() / "theme" / f"{REVEAL_THEME}.css").read_text(encoding="utf-8")
    table = read_theme_fonts(css)
    text = json.dumps(table, separators=(",", ":"), sort_keys=True)
    FONTS_JSON.write_text(text + "\n", encoding="utf-8")
    print(f"{FONTS_JSON.name}: {', '.join(sorted(table))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
