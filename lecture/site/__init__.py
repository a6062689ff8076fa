"""The course site: Sphinx + MyST-NB + sphinx-book-theme over lecture copies of the notebooks.

:func:`build_site` copies the course map (``notebooks/README.md``, with a table of
contents in course order) and every notebook (as the lecture shows it:
:func:`lecture.lecture_copy`) into a staging folder, runs Sphinx on it with the
configuration of ``lecture/site/conf.py``, and copies MathJax next to the pages.
"""

from __future__ import annotations

import re
import shutil
from html import escape
from pathlib import Path

import nbformat

from course_common.assets import copy_mathjax
from lecture._notebooks import NOTEBOOKS_DIR, course_notebooks, lecture_copy, notebook_title
from lecture.decks import DECKS_FOLDER

CONF_DIR = Path(__file__).resolve().parent


def _deck_links(notebooks: list[Path]) -> str:
    """The section of the index that links every notebook's slide deck. Raw HTML: MyST
    takes a relative link to a file it does not build for a missing cross-reference."""
    items = []
    for path in notebooks:
        title = notebook_title(nbformat.read(path, as_version=4), path.stem)
        href = f"{DECKS_FOLDER}/{path.stem}.slides.html"
        items.append(f'<li><a class="reference external" href="{href}">{escape(title)}</a></li>')
    return (
        "## Slides\n\n"
        "One reveal.js deck per notebook, 1280×720 (the arrow keys move through it, `s` opens "
        "the speaker notes, `f` shows it full screen):\n\n"
        '<ul class="lecture-decks">\n' + "\n".join(items) + "\n</ul>\n"
    )


def _index_source(notebooks_dir: Path, notebooks: list[Path]) -> str:
    """The course map with the slides' links before its first section, and the table of
    contents of the notebooks' pages."""
    course_map = (notebooks_dir / "README.md").read_text(encoding="utf-8").rstrip()
    first = re.search(r"^## ", course_map, re.MULTILINE)
    at = first.start() if first else len(course_map)
    course_map = f"{course_map[:at].rstrip()}\n\n{_deck_links(notebooks)}\n{course_map[at:]}"
    entries = "\n".join(f"{path.parent.name}/{path.stem}" for path in notebooks)
    return f"{course_map.rstrip()}\n\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{entries}\n```\n"


def stage_sources(staging: Path, notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """Write the site's sources into *staging*; returns the notebooks staged."""
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    notebooks = course_notebooks(notebooks_dir)
    (staging / "index.md").write_text(_index_source(notebooks_dir, notebooks), encoding="utf-8")
    for path in notebooks:
        nb = lecture_copy(nbformat.read(path, as_version=4), site=True)
        target = staging / path.parent.name / path.name
        target.parent.mkdir()
        nbformat.write(nb, target)
    return notebooks


def build_site(out: Path, work: Path, notebooks_dir: Path = NOTEBOOKS_DIR) -> list[Path]:
    """Build the site into *out* (``index.html`` + one page per notebook); *work* holds the
    staging folder and Sphinx's caches. Returns the notebooks built. Raises
    ``RuntimeError`` when Sphinx reports a warning or an error."""
    from sphinx.cmd.build import build_main

    staging = work / "src"
    notebooks = stage_sources(staging, notebooks_dir)
    doctrees = work / "doctrees"
    if doctrees.exists():
        shutil.rmtree(doctrees)
    options = ["-b", "html", "-E", "-q", "-W", "--keep-going", "-c", str(CONF_DIR)]
    status = build_main([*options, "-d", str(doctrees), str(staging), str(out)])
    if status != 0:
        raise RuntimeError(f"sphinx-build failed (status {status}); see the messages above")
    copy_mathjax(out / "_static" / "mathjax")
    # Sphinx's record of the build configuration; not part of the site.
    (out / ".buildinfo").unlink(missing_ok=True)
    return notebooks
