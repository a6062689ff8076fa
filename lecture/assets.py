"""Where the browser assets come from: ``node_modules/`` of the repository.

``./run`` installs them with ``npm ci`` from the committed ``package-lock.json`` (MathJax
3 and reveal.js); the build copies what the pages load next to them, so nothing is
fetched from a CDN at view time.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lecture._notebooks import ROOT

NODE_MODULES = ROOT / "node_modules"
#: nbconvert templates of the build; ``base/mathjax.html.j2`` makes any nbconvert HTML
#: page load MathJax from a local copy.
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Folder of MathJax beside nbgrader's feedback pages: ``feedback/_mathjax/`` next to
#: ``feedback/<student>/<assignment>/<notebook>.html`` (the template's default URL).
FEEDBACK_MATHJAX = "_mathjax"
#: MathJax's combined component for pages (CommonHTML output with web fonts).
MATHJAX_PAGE = "tex-chtml-full.js"
#: What of MathJax's es5 folder a page can load: the component, its fonts, and the
#: parts its menu loads on demand (accessibility, speech).
#: The reveal.js theme of the decks (its fonts are inlined in the stylesheet).
REVEAL_THEME = "white"
_MATHJAX_PARTS = (MATHJAX_PAGE, "tex-svg-full.js", "output", "ui", "a11y", "sre", "input")


class AssetsMissing(RuntimeError):
    """The npm packages are not installed (run ``./run lecture``, or ``npm ci``)."""


def _package(name: str, probe: str) -> Path:
    folder = NODE_MODULES / name
    if not (folder / probe).is_file():
        raise AssetsMissing(
            f"node_modules/{name} is missing: run './run lecture' (it runs 'npm ci') first"
        )
    return folder


def mathjax_available() -> bool:
    """Whether MathJax is installed in ``node_modules/`` (``./run`` installs it)."""
    return (NODE_MODULES / "mathjax" / "es5" / MATHJAX_PAGE).is_file()


def mathjax_dir() -> Path:
    """MathJax 3's browser build (``node_modules/mathjax/es5``)."""
    return _package("mathjax", f"es5/{MATHJAX_PAGE}") / "es5"


def reveal_dir() -> Path:
    """reveal.js's distribution (``node_modules/reveal.js/dist``)."""
    return _package("reveal.js", "dist/reveal.js") / "dist"


def _link_or_copy(src: str, dst: str) -> str:
    """A hard link of *src* at *dst* (no bytes copied), a copy where links cannot be made."""
    if os.path.exists(dst):
        if os.path.samefile(src, dst):
            return dst
        os.unlink(dst)
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links there
        shutil.copyfile(src, dst)
    return dst


def copy_mathjax(dest: Path, *, link: bool = False) -> Path:
    """Copy the MathJax files a page loads into *dest* (with *link*, hard links to
    ``node_modules/`` where the file system allows); returns *dest*."""
    src = mathjax_dir()
    dest.mkdir(parents=True, exist_ok=True)
    copy = _link_or_copy if link else shutil.copyfile
    for part in _MATHJAX_PARTS:
        if (src / part).is_dir():
            shutil.copytree(src / part, dest / part, dirs_exist_ok=True, copy_function=copy)
        else:
            copy(str(src / part), str(dest / part))
    return dest


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
