"""Feedback pages that are safe to open: nothing a student's notebook carries runs in the
reader's browser.

Two layers, both put in by :func:`autograder.grading.config.feedback_config`:

- :class:`SanitiseNotebook`, a preprocessor run on the graded notebook before it is
  rendered: HTML outputs and raw cells go through :func:`clean_html` (``nh3``, an allowlist
  of inert tags and attributes, ``javascript:`` and ``data:`` URLs refused except images);
  JavaScript, widget and unknown outputs are dropped, and so is the notebook's widget state;
  image data that is not base64 and output metadata that the template writes into a tag
  (``width=…``, ``isolated``, ``filenames``) are dropped; an ``execution_count`` or a grade
  id that is not what nbformat/nbgrader allow is made inert. It is on wherever it is
  registered (nbconvert's preprocessors are off by default, and nbgrader's converters do
  not switch on what they register).
- :class:`SafeHTMLExporter`, nbconvert's HTML exporter (nbgrader's ``feedback`` template is
  unchanged) whose ``markdown2html`` cleans what Markdown renders to — markdown cells, their
  attachments, ``text/markdown`` outputs, nbgrader's comments — and which puts a
  Content-Security-Policy ``<meta>`` in the page's ``<head>``: scripts only from the page's
  own folder tree (MathJax, ``feedback/_mathjax/``) and the template's own inline scripts
  (by hash: those of the same template rendered for an empty notebook); no plugins,
  frames, forms or ``<base>``; images only from the page's folder tree or ``data:``.
  An image naming an attachment its cell does not carry shows its alt text
  (:func:`markdown_html`; nbconvert would refuse the whole page). It refuses to render a
  notebook that :class:`SanitiseNotebook` has not cleaned.

nbgrader's formgrader renders a submission with nbconvert's own ``HTMLExporter`` (its class
is not configurable): there :func:`autograder.grading.config.formgrader_config` puts in
:class:`SanitiseNotebook` and :class:`CleanMarkdown` (the exporter's ``markdown2html``
filter, cleaned), by configuration; that page gets no Content-Security-Policy (its template
writes per-page inline scripts that a policy in a config file cannot hash).
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote

import nh3
from jinja2 import pass_context
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.markdown_mistune import InvalidNotebook
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool
from traitlets.config import LoggingConfigurable

#: Tags of student HTML that survive: nh3's (ammonia's) default allowlist of inert tags.
TAGS = frozenset(nh3.ALLOWED_TAGS)
#: Attributes kept: nh3's defaults, plus what notebooks' HTML (pandas tables, nbconvert's
#: heading anchors) use for layout.
ATTRIBUTES: dict[str, set[str]] = {
    **{tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()},
    "*": {"class", "title", "lang", "dir", "style"},
    **{f"h{level}": {"id"} for level in range(1, 7)},
}
ATTRIBUTES["table"] = ATTRIBUTES.get("table", set()) | {"border"}
#: CSS properties kept in a ``style`` attribute (no ``url()``-taking ones, no positioning).
STYLE_PROPERTIES = frozenset(
    {
        "color",
        "background-color",
        "font-weight",
        "font-style",
        "font-size",
        "text-align",
        "text-decoration",
        "vertical-align",
        "white-space",
        "width",
        "height",
        "max-width",
        "border",
        "border-collapse",
        "padding",
        "margin",
    }
)
#: ``data:`` URLs allowed, only as an ``<img src>``: raster and SVG images (an SVG loaded as
#: an image runs no script).
_DATA_IMAGE = re.compile(r"data:image/(png|jpeg|gif|webp|svg\+xml)[;,]", re.IGNORECASE)
_URL_ATTRIBUTES = frozenset({"href", "src", "cite", "longdesc", "action", "background"})
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_GRADE_ID = re.compile(r"[A-Za-z0-9_\-.]+")
#: Output types and MIME types a feedback page shows; any other output or MIME type (and
#: so ``application/javascript``, widget views, mermaid) is dropped.
OUTPUT_TYPES = frozenset({"stream", "display_data", "execute_result", "error"})
MIME_TYPES = frozenset(
    {
        "text/plain",
        "text/html",
        "text/markdown",
        "text/latex",
        "image/png",
        "image/jpeg",
        "image/svg+xml",
    }
)


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    if attribute in _URL_ATTRIBUTES and value.strip().lower().startswith("data:"):
        return value if tag == "img" and attribute == "src" and _DATA_IMAGE.match(value) else None
    return value


def clean_html(text: str) -> str:
    """*text* (student-controlled HTML) with only inert content: nh3's allowlist of tags
    (no ``script``, ``style``, ``iframe``, ``object``, ``embed``, ``form``, ``base``,
    ``meta``, ``svg``), no event handlers, URLs only of nh3's safe schemes (never
    ``javascript:``), ``data:`` only for an image's ``src``; comments removed."""
    return nh3.clean(
        str(text),
        tags=set(TAGS),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        attribute_filter=_attribute_filter,
        url_schemes=set(nh3.ALLOWED_URL_SCHEMES) | {"data"},
        filter_style_properties=set(STYLE_PROPERTIES),
        strip_comments=True,
    )


def _number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, str) and re.fullmatch(r"\d{1,5}(\.\d+)?", value) is not None


def _size_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """Only ``width``/``height`` that are numbers, at the top and per MIME type."""
    kept: dict[str, Any] = {}
    for key, value in metadata.items():
        if key in ("width", "height") and _number(value):
            kept[key] = value
        elif key in MIME_TYPES and isinstance(value, dict):
            sizes = {k: v for k, v in value.items() if k in ("width", "height") and _number(v)}
            if sizes:
                kept[key] = sizes
    return kept


def _base64_text(value: object) -> bool:
    text = "".join(value) if isinstance(value, list) else value
    if not isinstance(text, str) or not _BASE64.fullmatch(text):
        return False
    try:
        base64.b64decode("".join(text.split()), validate=True)
    except ValueError:
        return False
    return True


def _clean_output(output: dict[str, Any]) -> bool:
    """Clean *output* in place; False when it should be dropped."""
    kind = output.get("output_type")
    if kind not in OUTPUT_TYPES:
        return False
    if kind not in ("display_data", "execute_result"):
        return True
    data = output.get("data", {})
    for mime in list(data):
        if mime not in MIME_TYPES:
            del data[mime]
        elif mime in ("image/png", "image/jpeg") and not _base64_text(data[mime]):
            del data[mime]
        elif mime == "text/html":
            data[mime] = clean_html(
                "".join(data[mime]) if isinstance(data[mime], list) else data[mime]
            )
    output["metadata"] = _size_metadata(dict(output.get("metadata", {})))
    output.pop("svg_filename", None)
    return bool(data)


#: Set in a page's resources by :class:`SanitiseNotebook`: the notebook was cleaned.
SANITISED = "sanitised"


class SanitiseNotebook(Preprocessor):
    """Take every active element out of a notebook before it is rendered as a feedback page
    (see the module's docstring); run it after nbgrader's ``GetGrades``, which reads the
    grade ids.

    On wherever it is registered: nbconvert's ``Preprocessor`` is off by default
    (``enabled`` False) and only an exporter's own ``preprocessors`` list switches it on;
    nbgrader's converters register their ``preprocessors`` as they are (nbgrader's own
    preprocessors default to on), so in ``GenerateFeedback`` an nbconvert preprocessor
    never runs unless it is on by itself.
    """

    # not configurable: a page without it would run the student's scripts
    enabled = Bool(True)

    def preprocess(self, nb, resources):
        resources[SANITISED] = True
        nb.metadata.pop("widgets", None)
        for cell in nb.cells:
            if cell.cell_type == "raw":
                cell.source = clean_html(cell.source)
            elif cell.cell_type == "code":
                count = cell.get("execution_count")
                if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
                    cell.execution_count = None
                cell.outputs = [out for out in cell.get("outputs", []) if _clean_output(out)]
            grading = cell.metadata.get("nbgrader")
            if isinstance(grading, dict) and "grade_id" in grading:
                grade_id = str(grading["grade_id"])
                if not _GRADE_ID.fullmatch(grade_id):
                    grading["grade_id"] = html.escape(grade_id)
        return nb, resources


def _script_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(script_hashes: list[str]) -> str:
    """The feedback page's Content-Security-Policy: scripts from the page's own origin
    (MathJax beside the pages) and the template's inline scripts by hash; no inline event
    handlers or ``javascript:`` URLs (no ``'unsafe-inline'`` for scripts), no plugins,
    frames, forms or ``<base>``; images from the page's origin or ``data:``."""
    scripts = " ".join(["'self'", *sorted(set(script_hashes))])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "object-src 'none'",
            "frame-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


#: The feedback page's own style sheet, last in ``<head>`` so that it wins over the
#: template's: a long line of a cell — a failing test's assertion message, a traceback, a
#: long line of code — wraps inside the page's box (between words, or anywhere in a word
#: longer than the line) instead of running off its right edge behind a scroll bar; so does
#: a long ``<code>`` in the grader's notes (in chromium, no text of a page overflows its
#: box: ``tests/autograder/feedback/test_feedback_page_browser.py``). And the box of the
#: grader's notes and of the late section above the notebook (raw cells, whose inline style
#: nbconvert's template takes out; :mod:`autograder.feedback.student_page`).
PAGE_STYLE = (
    '<style id="autograder-page">'
    "#notebook-container pre{white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere}"
    "#notebook-container code{overflow-wrap:anywhere}"
    ".autograder-notes,.autograder-late{border:2px solid #b35900;padding:0.4em 1em;"
    "margin-bottom:1em;background-color:#fff8e6}"
    "</style>"
)


class SafeHTMLExporter(HTMLExporter):
    """nbconvert's HTML exporter for feedback pages: Markdown's HTML cleaned with
    :func:`clean_html`, SVG always as an ``<img>``, a Content-Security-Policy ``<meta>``
    first in ``<head>`` (:func:`content_security_policy`) and :data:`PAGE_STYLE` last."""

    # not configurable: an inline <svg> could carry script
    skip_svg_encoding = Bool(False)

    reuse_compiled_templates = Bool(
        True,
        help="Keep the compiled templates for the process's life "
        "(autograder.feedback.template_cache): the next page's exporter skips Jinja's compiler.",
    ).tag(config=True)

    def _create_environment(self):
        environment = super()._create_environment()
        if self.reuse_compiled_templates:
            from autograder.feedback.template_cache import COMPILED_TEMPLATES

            environment.bytecode_cache = COMPILED_TEMPLATES
        return environment

    reuse_highlighted_cells = Bool(
        True,
        help="Give a code cell highlighted before the HTML it got then "
        "(autograder.feedback.template_cache.RememberedHighlight).",
    ).tag(config=True)

    def register_filter(self, name, jinja_filter):
        # nbconvert's HTMLExporter registers the notebook's highlight_code for every page
        reuse = self.reuse_highlighted_cells
        if reuse and name == "highlight_code" and type(jinja_filter) is Highlight2HTML:
            from autograder.feedback.template_cache import RememberedHighlight

            jinja_filter = RememberedHighlight(jinja_filter)
        return super().register_filter(name, jinja_filter)

    @pass_context
    def markdown2html(self, context, source):
        return markdown_html(super().markdown2html, context, source)

    def _template_script_hashes(self, resources: dict[str, Any]) -> list[str]:
        """Hashes of the inline scripts the template itself writes (rendered for an empty
        notebook with the same resources): only those may run."""
        from bs4 import BeautifulSoup
        from nbformat.v4 import new_notebook

        blank = {k: v for k, v in resources.items() if k in ("nbgrader", "metadata")}
        page, _ = super().from_notebook_node(new_notebook(), blank)
        soup = BeautifulSoup(page, features="html.parser")
        return [_script_hash(s.string or "") for s in soup.find_all("script") if not s.get("src")]

    def from_notebook_node(self, nb, resources=None, **kw):
        page, resources = super().from_notebook_node(nb, resources, **kw)
        if not resources.get(SANITISED):
            # fail closed: no page at all rather than one that runs the student's scripts
            raise ValueError("refusing to write a feedback page: SanitiseNotebook did not run")
        policy = content_security_policy(self._template_script_hashes(resources or {}))
        content = html.escape(policy, quote=False).replace('"', "&quot;")
        meta = f'<meta http-equiv="Content-Security-Policy" content="{content}">'
        end = head_end_offset(page)
        page = page[:end] + PAGE_STYLE + page[end:]
        at = head_content_offset(page)
        return page[:at] + meta + page[at:], resources


@pass_context
class CleanMarkdown(LoggingConfigurable):
    """A ``markdown2html`` Jinja filter for any HTML exporter (set by configuration in
    ``HTMLExporter.filters``, nbconvert makes one per exporter, its parent): the exporter's
    own ``markdown2html`` (attachments and math as usual), cleaned with :func:`clean_html`.
    """

    def __call__(self, context: Any, source: str) -> str:
        exporter = self.parent
        assert exporter is not None, "made by nbconvert for an exporter, its parent"
        return markdown_html(exporter.markdown2html, context, source)


#: What an image reference to an attachment the cell does not carry becomes: a URL with a
#: scheme the cleaning drops, so the image shows its alt text.
_MISSING_ATTACHMENT = "missing-attachment:"
#: Missing attachments made inert one by one in a cell before all its references are.
_MAX_MISSING = 20


def markdown_html(render: Any, context: Any, source: str) -> str:
    """*render* (an exporter's ``markdown2html``) of a markdown cell's *source*, cleaned with
    :func:`clean_html`.

    nbconvert refuses a whole page (``InvalidNotebook``) for one image that names an
    attachment the cell does not carry (a cell copied from another notebook loses its
    attachments); each such reference is made inert (the image shows its alt text) and the
    cell rendered again; the attachments the cell does carry still show.
    """
    for _ in range(_MAX_MISSING):
        try:
            return clean_html(render(context, source))
        except InvalidNotebook as exc:
            inert = source
            # nbconvert says which attachment in its message only ("missing attachment:
            # NAME"): no attribute holds it
            name = str(exc).removeprefix("missing attachment: ")
            for written in dict.fromkeys((name, unquote(name))):  # as read, or %-decoded
                inert = inert.replace(f"attachment:{written}", f"{_MISSING_ATTACHMENT}{written}")
            if inert == source:  # not written as nbconvert read it: make every one inert
                inert = source.replace("attachment:", _MISSING_ATTACHMENT)
            source = inert
    return clean_html(render(context, source.replace("attachment:", _MISSING_ATTACHMENT)))


class _HeadFinder(HTMLParser):
    """Where the content of ``<head>`` starts (after its start tag) and where it ends (at
    its end tag), as (line, column) of Python's HTML parser."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: tuple[int, int] | None = None
        self.closed: tuple[int, int] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if self.found is None and tag == "head":
            line, column = self.getpos()
            self.found = (line, column + len(self.get_starttag_text() or ""))

    def handle_endtag(self, tag: str) -> None:
        if self.found is not None and self.closed is None and tag == "head":
            self.closed = self.getpos()


def _head_position(page: str, which: str, chunk: int = 4096) -> int:
    """The index in *page* of the ``found`` (after ``<head>``) or ``closed`` (``</head>``)
    position of :class:`_HeadFinder`, fed only as far as needed (a page's images make it
    megabytes long)."""
    finder = _HeadFinder()
    for start in range(0, len(page), chunk):
        finder.feed(page[start : start + chunk])
        if getattr(finder, which) is not None:
            break
    position = getattr(finder, which)
    if position is None:
        raise ValueError("the feedback page has no <head>" if which == "found" else "no </head>")
    line, column = position
    # the parser counts lines by "\n" only
    return sum(len(text) + 1 for text in page.split("\n")[: line - 1]) + column


def head_content_offset(page: str, chunk: int = 4096) -> int:
    """The index in *page* right after its ``<head>`` start tag, found by Python's HTML
    parser (fed only as far as needed: a page's images make it megabytes long)."""
    return _head_position(page, "found", chunk)


def head_end_offset(page: str, chunk: int = 4096) -> int:
    """The index in *page* of its ``</head>`` end tag (where a style sheet goes to come
    after the template's own), found by Python's HTML parser."""
    return _head_position(page, "closed", chunk)
