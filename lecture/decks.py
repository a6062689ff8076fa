"""The slide decks: nbconvert's reveal.js exporter with every asset served from the build.

The template ``lecture/templates/lecture_reveal`` extends nbconvert's ``reveal`` one and
drops what it would fetch from CDNs (jQuery, require.js, mermaid, the widget manager);
reveal.js is copied next to the decks and MathJax 3 is the site's copy
(``../_static/mathjax``). Each deck follows its notebook's slide metadata (written by
:mod:`lecture.slides`).
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import nbformat
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.preprocessors import Preprocessor

from course_common.assets import MATHJAX_PAGE
from course_common.assets import TEMPLATES as MATHJAX_TEMPLATES
from lecture._notebooks import lecture_copy, notebook_title
from lecture.assets import REVEAL_THEME, TEMPLATES, copy_reveal
from lecture.layout import TYPE
from lecture.slides import PART_OF_KEY, split_for_slides

#: The decks' folder in the build, beside the site's pages.
DECKS_FOLDER = "slides"
#: Where the decks find reveal.js and MathJax, relative to ``slides/``.
REVEAL_PREFIX = "reveal.js"
MATHJAX_URL = f"../_static/mathjax/{MATHJAX_PAGE}"


class SplitForSlides(Preprocessor):
    """Replaces each cell by its pieces on the slides (:func:`lecture.slides.split_for_slides`:
    a cell too tall for one slide becomes several, code gets its size, a figure its drawn
    size, speaker notes what was moved for space) and gives the template the layout's sizes.

    It runs before nbconvert's own reveal.js preprocessor, which turns the pieces' slide
    types into the deck's sections."""

    def preprocess(self, nb, resources):
        resources["slide_layout"] = TYPE.css()
        return split_for_slides(nb), resources


class PieceHighlight(Highlight2HTML):
    """nbconvert's highlighting of a cell's code, for a piece of a cell split over slides:
    the whole cell is highlighted, and the piece's lines of it are kept. A piece that
    begins inside a string (a long docstring) is coloured as the string it is, and the code
    after the string as code, not as the string the piece's closing quotes would open.

    Pygments' HTML formatter closes every token's ``<span>`` at the end of each line, so
    the lines of its ``<pre>`` stand alone."""

    def __call__(self, source, language=None, metadata=None):
        part_of = (metadata or {}).get(PART_OF_KEY)
        if not part_of:
            return super().__call__(source, language, metadata)
        whole = super().__call__(part_of["source"], language, metadata)
        return html_lines(whole, *part_of["lines"])


_PRE = re.compile(r"(<pre[^>]*>(?:<span></span>)?)(.*?)(</pre>)", re.DOTALL)


def html_lines(html: str, start: int, end: int) -> str:
    """Pygments' HTML of some code, with only its lines *start* to *end* (excluded)."""
    found = _PRE.search(html)
    if found is None:
        raise ValueError("not pygments' HTML: no <pre>")
    rows = found.group(2).split("\n")
    kept = "".join(f"{row}\n" for row in rows[start:end])
    return f"{html[: found.start(2)]}{kept}{html[found.end(2) :]}"


def exporter(pygments_lexer: str = "ipython3"):
    """nbconvert's SlidesExporter, configured for the offline lecture template (code
    highlighted by *pygments_lexer*, the notebook's)."""
    from nbconvert import SlidesExporter
    from traitlets.config import Config

    config = Config()
    config.SlidesExporter.extra_template_basedirs = [str(TEMPLATES), str(MATHJAX_TEMPLATES)]
    config.SlidesExporter.template_name = "lecture_reveal"
    config.SlidesExporter.reveal_url_prefix = REVEAL_PREFIX
    config.SlidesExporter.reveal_theme = REVEAL_THEME
    config.SlidesExporter.reveal_number = "c/t"
    config.SlidesExporter.reveal_width = str(TYPE.slide_width)
    config.SlidesExporter.reveal_height = str(TYPE.slide_height)
    config.SlidesExporter.preprocessors = [SplitForSlides]
    config.SlidesExporter.filters = {
        "highlight_code": PieceHighlight(pygments_lexer=pygments_lexer)
    }
    config.SlidesExporter.mathjax_url = MATHJAX_URL
    config.SlidesExporter.exclude_input_prompt = True
    config.SlidesExporter.exclude_output_prompt = True
    config.SlidesExporter.exclude_anchor_links = True
    # A widget's stored output is shown by its figure, never by a widget manager.
    config.NbConvertBase.display_data_priority = [
        "text/html",
        "text/markdown",
        "image/svg+xml",
        "text/latex",
        "image/png",
        "image/jpeg",
        "text/plain",
    ]
    exp = SlidesExporter(config=config)
    # nbconvert warns of figures without alt text on every deck; the site has the same
    # figures, and the warning says nothing about the build.
    exp.log.setLevel(logging.ERROR)
    return exp


def write_deck(path: Path, out: Path) -> Path:
    """Write the deck of the notebook at *path* into the folder *out*; returns its path."""
    nb = lecture_copy(nbformat.read(path, as_version=4), site=False)
    nb.metadata["title"] = notebook_title(nb, path.stem)
    lexer = nb.metadata.get("language_info", {}).get("pygments_lexer", "ipython3")
    body, _ = exporter(lexer).from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
    deck = out / f"{path.stem}.slides.html"
    deck.write_text(body, encoding="utf-8")
    return deck


def prepare_decks_folder(out: Path) -> None:
    """Empty *out* and copy reveal.js into it."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_reveal(out / REVEAL_PREFIX / "dist")
