"""The lecture's own browser assets: reveal.js from ``node_modules/`` of the repository,
and the decks' nbconvert template. MathJax, which the feedback pages load too, is
:mod:`course_common.assets`'s.

``./run`` installs them with ``npm ci`` from the committed ``package-lock.json``; the
build copies what the pages load next to them, so nothing is fetched from a CDN at view
time.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from course_common.assets import node_package

#: nbconvert templates of the decks (``lecture_reveal``).
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The reveal.js theme of the decks (its fonts are inlined in the stylesheet).
REVEAL_THEME = "white"


def reveal_dir() -> Path:
    """reveal.js's distribution (``node_modules/reveal.js/dist``)."""
    return node_package("reveal.js", "dist/reveal.js") / "dist"


def copy_reveal(dest: Path) -> Path:
    """Copy reveal.js (script, styles, the theme, the notes plugin) into *dest*; returns *dest*."""
    src = reveal_dir()
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("reveal.js", "reveal.css", "reset.css"):
        shutil.copyfile(src / name, dest / name)
    (dest / "theme").mkdir(exist_ok=True)
    shutil.copyfile(src / "theme" / f"{REVEAL_THEME}.css", dest / "theme" / f"{REVEAL_THEME}.css")
    (dest / "plugin").mkdir(exist_ok=True)
    shutil.copyfile(src / "plugin" / "notes.js", dest / "plugin" / "notes.js")
    return dest
