"""Where the browser assets come from: ``node_modules/`` of the repository.

``./run`` installs them with ``npm ci`` from the committed ``package-lock.json`` (MathJax
3 and reveal.js); a page's build copies what it loads next to it, so nothing is fetched
from a CDN at view time. MathJax serves both the lecture's pages and the autograder's
feedback pages (and formgrader's view): its files, and the nbconvert template that loads
it from a local copy (:data:`TEMPLATES`), live here.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Callable, Collection
from pathlib import Path

from course_common.paths import NODE_MODULES

#: nbconvert templates: ``base/mathjax.html.j2`` makes any nbconvert HTML page load
#: MathJax from a local copy (put this folder in an exporter's ``extra_template_basedirs``).
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Folder of MathJax beside nbgrader's feedback pages: ``feedback/_mathjax/`` next to
#: ``feedback/<student>/<assignment>/<notebook>.html`` (the template's default URL).
FEEDBACK_MATHJAX = "_mathjax"
#: MathJax's combined component for pages (CommonHTML output with web fonts).
MATHJAX_PAGE = "tex-chtml-full.js"
#: What of MathJax's es5 folder a page can load: the component, its fonts, and the
#: parts its menu loads on demand (accessibility, speech).
_MATHJAX_PARTS = (MATHJAX_PAGE, "tex-svg-full.js", "output", "ui", "a11y", "sre", "input")


class AssetsMissing(RuntimeError):
    """The npm packages are not installed (run ``./run lecture``, or ``npm ci``)."""


def node_package(name: str, probe: str) -> Path:
    """The folder of the npm package *name* in ``node_modules/``, checked by its file *probe*
    (:class:`AssetsMissing` when it is not installed)."""
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
    return node_package("mathjax", f"es5/{MATHJAX_PAGE}") / "es5"


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


def _unless_same(copy: Callable[[str, str], object]) -> Callable[[str, str], str]:
    """*copy*, skipped where *dst* already holds *src*'s bytes: a run that ships MathJax
    again writes nothing (on a full disk too)."""

    def copy_changed(src: str, dst: str) -> str:
        same = os.path.isfile(dst) and os.path.getsize(dst) == os.path.getsize(src)
        if not (same and filecmp.cmp(src, dst, shallow=False)):
            copy(src, dst)
        return dst

    return copy_changed


def copy_tree(
    src: Path,
    dest: Path,
    *,
    copy: Callable[[str, str], object] = shutil.copy2,
    ignore: Collection[str] = (),
) -> Path:
    """Copy the folder *src* into *dest* file by file with *copy* (default ``shutil.copy2``),
    making *dest* and its folders (a folder already there is kept, a file replaced); a file
    or folder named in *ignore* is left out. Returns *dest*.

    ``shutil.copytree``, but its first failure is raised as it is: on a full disk the
    ``OSError`` ENOSPC of the file written, which a caller can tell a failure of the
    machine by (:mod:`autograder.faults`), where ``copytree`` goes on through every file
    and raises one ``shutil.Error`` that lists each failure as text."""
    dest.mkdir(parents=True, exist_ok=True)
    for root, folders, files in os.walk(src, followlinks=True):
        folders[:] = sorted(name for name in folders if name not in ignore)
        here = Path(root)
        there = dest / here.relative_to(src)
        there.mkdir(exist_ok=True)
        for name in sorted(files):
            if name not in ignore:
                copy(str(here / name), str(there / name))
    return dest


def copy_mathjax(dest: Path, *, link: bool = False) -> Path:
    """Copy the MathJax files a page loads into *dest* (with *link*, hard links to
    ``node_modules/`` where the file system allows); files already there unchanged are
    left alone; returns *dest*. A failure (a full disk) is the ``OSError`` it is
    (:func:`copy_tree`)."""
    src = mathjax_dir()
    dest.mkdir(parents=True, exist_ok=True)
    copy = _unless_same(_link_or_copy if link else shutil.copyfile)
    for part in _MATHJAX_PARTS:
        if (src / part).is_dir():
            copy_tree(src / part, dest / part, copy=copy)
        else:
            copy(str(src / part), str(dest / part))
    return dest
