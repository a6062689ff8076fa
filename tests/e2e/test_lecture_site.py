"""The lecture build in a real browser: Playwright driving Debian's chromium, offline.

The build (``python -m lecture build``) is made once into a temporary folder and served
by an HTTP server on 127.0.0.1 started here. Every site page and every deck must load
with no console error and no request leaving 127.0.0.1, have its math typeset by MathJax
(rendered elements present, no raw ``$`` left in the prose), and show every stored
figure, and show none of what only students need (nbgrader's solution markers, the advice
for a notebook run outside the course's environment); a deck must have at least 15 slides
and move on with the arrow keys. The build is deterministic: a second build gives the same
files.

Every deck fits a projector: rendered at 1280×720 and at 1920×1080, no slide's content
is taller (or wider) than the slide, code and text outputs are set at 18 screen pixels or
more, no slide shows more than ``TYPE.max_code_lines`` lines of code, and no line of code
wraps or runs past its box; no output stands on a slide without its code (but the rest of
an output taller than a slide); the deck has the slides the layout model planned
(``lecture.slides``), and a figure whose code stands on the slide before has that code in
its speaker notes. Every code block is highlighted as Python's tokenizer reads its whole
cell, a piece of a cell split over slides too.
"""

from __future__ import annotations

import base64
import io
import itertools
import keyword
import shutil
import tokenize
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from course_common.assets import mathjax_available
from lecture import course_notebooks, without_student_text
from lecture._notebooks import notebook_title
from lecture.layout import TYPE, png_dpi
from lecture.slides import FIGURE_ROOM, slide_heights, small_figures
from tests.golden import fingerprint, image_difference

from .browser import launch_chromium, require, serve_folder
from .lecture_pictures import PICTURES, take

NOTEBOOKS = course_notebooks()
STEMS = [path.stem for path in NOTEBOOKS]
PAGES = ["index.html"] + [f"{stem}/{stem}.html" for stem in STEMS]
DECKS = [f"slides/{stem}.slides.html" for stem in STEMS]
MIN_SLIDES = 15

# Text of the page's prose, without code, outputs and typeset math: where a raw "$"
# would mean MathJax missed a formula.
PROSE_TEXT = """() => {
  const root = (document.querySelector("article") || document.body).cloneNode(true);
  root.querySelectorAll(
    "pre, code, script, style, mjx-container, .cell_output, .jp-OutputArea, .output"
  ).forEach((node) => node.remove());
  return root.textContent;
}"""

MATHJAX_DONE = """async () => {
  for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await MathJax.startup.promise;
  return document.querySelectorAll("mjx-container").length;
}"""

# Every image scrolled into view (lazy images load), then its natural width.
IMAGE_WIDTHS = """async () => {
  const images = Array.from(document.images);
  for (const img of images) {
    img.scrollIntoView();
    if (!img.complete) {
      await new Promise((resolve) => { img.onload = resolve; img.onerror = resolve; });
    }
  }
  return images.map((img) => [img.getAttribute("src").slice(0, 60), img.naturalWidth]);
}"""


# Every slide of the deck shown in turn, and measured in the slide's own pixels (reveal.js
# scales the 1280×720 slide as a whole): its content's height and width, the size of every
# code and output block on screen, lines of code that wrap (drawn on more lines than the
# source has) or run past their box, its figures as drawn on screen (with their pixels and
# data, beside their code or not), its code cells and the slide's speaker notes.
MEASURE_SLIDES = r"""async () => {
  const scale = Reveal.getScale();
  const slides = Array.from(document.querySelectorAll(".reveal .slides > section > section"));
  const out = [];
  for (const slide of slides) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const box = slide.getBoundingClientRect();
    let bottom = 0, right = 0, widest = "";
    for (const node of slide.querySelectorAll("*")) {
      const r = node.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      bottom = Math.max(bottom, (r.bottom - box.top) / scale);
      if ((r.right - box.left) / scale > right) {
        right = (r.right - box.left) / scale;
        widest = (node.textContent || node.tagName).trim().slice(0, 80);
      }
    }
    const blocks = Array.from(slide.querySelectorAll("pre")).map((pre) => {
      const style = getComputedStyle(pre);
      const lineHeight = parseFloat(style.lineHeight);
      const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
      const inner = pre.clientHeight - padding;
      return {
        code: pre.closest(".jp-CodeCell .jp-InputArea") !== null,
        text: pre.textContent.replace(/\n$/, "").slice(0, 80),
        px: parseFloat(style.fontSize) * scale,
        lines: pre.textContent.replace(/\n$/, "").split("\n").length,
        drawn: Math.round(inner / lineHeight),
        overflow: pre.scrollWidth - pre.clientWidth,
      };
    });
    const notes = slide.querySelector("aside.notes");
    const images = Array.from(slide.querySelectorAll(".jp-OutputArea-output img"))
      .filter((img) => !img.closest("aside"))
      .map((img) => ({
        cell: img.closest(".jp-Cell").id.replace(/^cell-id=/, ""),
        width: img.getBoundingClientRect().width,
        height: img.getBoundingClientRect().height,
        natural: [img.naturalWidth, img.naturalHeight],
        src: img.getAttribute("src"),
        beside: img.closest(".celltag_slide-beside") !== null,
      }));
    const cells = Array.from(slide.querySelectorAll(".jp-CodeCell"))
      .filter((cell) => !cell.closest("aside"))
      .map((cell) => ({
        id: cell.id.replace(/^cell-id=/, ""),
        code: cell.querySelector(".jp-InputArea pre") !== null,
        text: cell.querySelector(".jp-OutputArea-output pre") !== null,
      }));
    out.push({
      at: [at.h, at.v],
      height: Math.max(slide.scrollHeight, bottom),
      width: Math.max(slide.scrollWidth, right),
      widest,
      blocks,
      figures: slide.querySelectorAll(".jp-OutputArea-output img").length,
      images,
      code: slide.querySelectorAll(".jp-CodeCell .jp-InputArea pre").length,
      notes: notes ? notes.textContent : "",
      cells,
    });
  }
  return {scale, width: Reveal.getConfig().width, height: Reveal.getConfig().height, slides: out};
}"""


# Every code block of a deck (speaker notes left out) as its cell's id and the runs of its
# text, each with the class of the highlighting span around it ("" for none).
CODE_RUNS = r"""() => Array.from(
  document.querySelectorAll(".reveal .slides section .jp-CodeCell .jp-InputArea pre")
).filter((pre) => !pre.closest("aside")).map((pre) => {
  const runs = [];
  const walk = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const span = walk.currentNode.parentElement.closest("span[class]");
    runs.push([walk.currentNode.textContent, span && pre.contains(span) ? span.className : ""]);
  }
  return {cell: pre.closest(".jp-Cell").id.replace(/^cell-id=/, ""), runs};
})"""


def _build(out: Path) -> Path:
    from lecture.__main__ import build

    require(mathjax_available(), "needs the lecture's npm assets (./run lecture installs them)")
    build(out)
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("lecture") / "lecture")


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    with serve_folder(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    require(mathjax_available(), "needs the lecture's npm assets (./run lecture installs them)")
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


class Visit:
    """A page opened in a fresh context, with what it logged and requested."""

    def __init__(self, browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.failed: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("requestfailed", lambda request: self.failed.append(request.url))
        self.page.on(
            "response",
            lambda response: (
                self.failed.append(f"{response.status} {response.url}")
                if response.status >= 400
                else None
            ),
        )
        self.page.goto(url, wait_until="load")

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def outside(self) -> list[str]:
        return [
            url
            for url in self.requests
            if not url.startswith(("http://127.0.0.1:", "data:", "blob:", "about:"))
        ]

    def close(self) -> None:
        self.context.close()


#: What only students need, never on the site or the slides: nbgrader's solution markers
#: and the advice for a notebook run outside the course's environment.
STUDENT_TEXT = ("BEGIN SOLUTION", "END SOLUTION", "ModuleNotFoundError", "import linlib` in")


def _check_no_student_text(visit: Visit) -> None:
    text = visit.page.evaluate("document.body.textContent")
    assert [words for words in STUDENT_TEXT if words in text] == [], "students' text shown"


def _check_loaded_offline(visit: Visit) -> None:
    typeset = visit.page.evaluate(MATHJAX_DONE)
    assert visit.outside() == [], "requests leaving 127.0.0.1"
    assert visit.failed == [], "requests that failed"
    assert visit.errors == [], "console errors"
    assert typeset > 0, "no formula typeset by MathJax"
    prose = visit.page.evaluate(PROSE_TEXT)
    raw = [prose[max(0, i - 40) : i + 40] for i, ch in enumerate(prose) if ch == "$"]
    assert raw == [], "raw $ left in the prose (math not typeset)"
    widths = visit.page.evaluate(IMAGE_WIDTHS)
    assert [src for src, width in widths if width == 0] == [], "figures not displayed"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_site_page_offline_math_and_figures(browser, server, page):
    visit = Visit(browser, f"{server}/{page}")
    try:
        _check_loaded_offline(visit)
        _check_no_student_text(visit)
        if page != "index.html":
            stem = page.split("/")[0]
            figures = visit.page.evaluate(IMAGE_WIDTHS)
            stored = _stored_figures(stem)
            assert len([w for _, w in figures if w > 0]) >= stored
            assert visit.page.locator(".cell.tag_solution").count() > 0, "no solution mark"
    finally:
        visit.close()


@pytest.mark.slow
def test_site_index_lists_the_notebooks_in_course_order(browser, server):
    visit = Visit(browser, f"{server}/index.html")
    try:
        links = visit.page.locator("nav.bd-docs-nav a.reference.internal")
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        order = [stem for href in hrefs for stem in STEMS if href.endswith(f"{stem}.html")]
        assert order == STEMS
    finally:
        visit.close()


@pytest.mark.slow
def test_site_index_links_every_deck(browser, server):
    """The index links each notebook's deck, in course order, each link named by its
    notebook's title; following one opens the deck."""
    visit = Visit(browser, f"{server}/index.html")
    try:
        links = visit.page.locator("article a[href$='.slides.html']")
        names = [links.nth(i).inner_text() for i in range(links.count())]
        urls = links.evaluate_all("(links) => links.map((link) => link.href)")
        assert urls == [f"{server}/{deck}" for deck in DECKS]
        titles = [notebook_title(nbformat.read(path, as_version=4), "") for path in NOTEBOOKS]
        assert names == titles
        links.first.click()
        visit.page.wait_for_url(urls[0])
        visit.page.wait_for_function("window.Reveal && Reveal.isReady()")
        assert visit.page.evaluate("Reveal.getTotalSlides()") >= MIN_SLIDES
        for url in urls[1:]:
            assert visit.page.request.get(url).status == 200
        assert visit.errors == []
    finally:
        visit.close()


@pytest.mark.slow
@pytest.mark.parametrize("deck", DECKS)
def test_deck_offline_math_and_figures(browser, server, deck):
    visit = Visit(browser, f"{server}/{deck}")
    try:
        visit.page.wait_for_function("window.Reveal && Reveal.isReady()")
        _check_loaded_offline(visit)
        _check_no_student_text(visit)
    finally:
        visit.close()


@pytest.mark.slow
@pytest.mark.parametrize("deck", DECKS)
def test_deck_arrow_keys_and_length(browser, server, deck):
    """At least 15 slides (the notebooks' slide metadata, written by ``python -m
    lecture.slides``), and the right arrow moves on."""
    visit = Visit(browser, f"{server}/{deck}")
    try:
        visit.page.wait_for_function("window.Reveal && Reveal.isReady()")
        total = visit.page.evaluate("Reveal.getTotalSlides()")
        assert total >= MIN_SLIDES, f"{deck}: {total} slides (run python -m lecture.slides)"
        visit.page.locator("body").click()
        for expected in (1, 2):
            visit.page.keyboard.press("ArrowRight")
            visit.page.wait_for_function(f"Reveal.getSlidePastCount() === {expected}")
        visit.page.keyboard.press("ArrowLeft")
        visit.page.wait_for_function("Reveal.getSlidePastCount() === 1")
        assert visit.errors == []
    finally:
        visit.close()


def _measure_deck(browser, url: str, viewport: tuple[int, int]) -> dict:
    """The deck at *url* in a window of *viewport*, measured slide by slide
    (``MEASURE_SLIDES``) once its math is typeset."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.evaluate(MATHJAX_DONE)
        return page.evaluate(MEASURE_SLIDES)
    finally:
        context.close()


@pytest.mark.slow
@pytest.mark.parametrize("viewport", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
@pytest.mark.parametrize("deck", DECKS)
def test_deck_fits_the_projector(browser, server, deck, viewport):
    """Every slide fits the slide, code is large enough and never wraps."""
    width, height = viewport
    measured = _measure_deck(browser, f"{server}/{deck}", viewport)
    assert (measured["width"], measured["height"]) == (TYPE.slide_width, TYPE.slide_height)
    assert measured["scale"] == pytest.approx(min(width / 1280, height / 720), abs=0.01)
    stem = deck.split("/")[-1].removesuffix(".slides.html")
    nb = nbformat.read(next(p for p in NOTEBOOKS if p.stem == stem), as_version=4)
    model = slide_heights(nb)
    slides = measured["slides"]
    assert len(slides) == len(model), "the deck does not have the slides lecture.slides planned"
    content = TYPE.slide_height - 2 * TYPE.pad_y
    too_tall = [
        f"slide {s['at']}: {s['height']:.0f} px of {TYPE.slide_height} (the model said "
        f"{model[k] + 2 * TYPE.pad_y:.0f})"
        for k, s in enumerate(slides)
        if s["height"] > TYPE.slide_height
    ]
    assert too_tall == [], f"{stem}: slides taller than the slide"
    too_wide = [
        (s["at"], round(s["width"]), s["widest"]) for s in slides if s["width"] > TYPE.slide_width
    ]
    assert too_wide == [], f"{stem}: slides wider than the slide"
    blocks = [(s["at"], b) for s in slides for b in s["blocks"]]
    small = [(at, round(b["px"], 1), b["text"]) for at, b in blocks if b["px"] < 18 - 1e-6]
    assert small == [], f"{stem}: code or output set below 18 px on screen"
    long = [
        (s["at"], lines)
        for s in slides
        if (lines := sum(b["lines"] for b in s["blocks"] if b["code"])) > TYPE.max_code_lines
    ]
    assert long == [], f"{stem}: slides with more than {TYPE.max_code_lines} lines of code"
    alone = _outputs_without_their_code(slides, {cell.get("id") for cell in nb.cells})
    assert alone == [], f"{stem}: outputs on a slide without their code"
    wrapped = [(at, b["text"]) for at, b in blocks if b["code"] and b["drawn"] != b["lines"]]
    assert wrapped == [], f"{stem}: code lines that wrap"
    cut = [(at, b["overflow"], b["text"]) for at, b in blocks if b["overflow"] > 0]
    assert cut == [], f"{stem}: code or output running past its box (reformat the line)"
    # a figure drawn on its own after its code: its notes carry the code
    for before, slide in itertools.pairwise(slides):
        if slide["figures"] and not slide["code"] and before["code"] and not before["figures"]:
            assert "The code that draws this figure" in slide["notes"], slide["at"]
    # the model's heights hold: what it fills stays within the content's height
    assert max(model) <= content


def _cell_id(piece: str, ids: set[str]) -> str:
    """The id of the notebook's cell that a deck's piece (``<id>`` or ``<id>-<n>``) shows."""
    return piece if piece in ids else piece.rsplit("-", 1)[0]


def _outputs_without_their_code(slides: list[dict], ids: set[str]) -> list[tuple]:
    """The text outputs shown on a slide without any code of their cell, but for the rest
    of an output taller than a slide (its cell's output is on the slide before)."""
    shown = [
        {
            kind: {_cell_id(cell["id"], ids) for cell in slide["cells"] if cell[kind]}
            for kind in ("code", "text")
        }
        for slide in slides
    ]
    alone = []
    for k, slide in enumerate(shown):
        before = shown[k - 1]["text"] if k else set()
        alone += [(slides[k]["at"], cell) for cell in slide["text"] - slide["code"] - before]
    return alone


def _token_classes(runs: list[list[str]]) -> list[list[str]]:
    """The highlighting class of every character of a code block, line by line."""
    lines: list[list[str]] = [[]]
    for text, kind in runs:
        for k, chunk in enumerate(text.split("\n")):
            if k:
                lines.append([])
            lines[-1].extend([kind] * len(chunk))
    return lines


def _misstyled(source: str, first: int, classes: list[list[str]]) -> list[str]:
    """Where the code block showing *source*'s lines from *first* on is not highlighted as
    Python's tokenizer reads the whole cell: a keyword not styled as a keyword, a string's
    text or a comment not styled as one."""
    wrong = []
    tokens = tokenize.generate_tokens(io.StringIO(source + "\n").readline)
    for token in tokens:
        if token.type == tokenize.NAME and keyword.iskeyword(token.string):
            expected, places = ("k", "ow"), [token.start]
        elif token.type == tokenize.STRING:
            # the first character of the string on each of its lines
            rows = token.string.split("\n")
            places = [token.start] + [
                (token.start[0] + k, len(row) - len(row.lstrip()))
                for k, row in enumerate(rows[1:], 1)
                if row.strip()
            ]
            expected = ("s",)
        elif token.type == tokenize.COMMENT:
            expected, places = ("c",), [token.start]
        else:
            continue
        for row, col in places:
            line = row - 1 - first
            if 0 <= line < len(classes) and col < len(classes[line]):
                kind = classes[line][col]
                if not kind.startswith(expected):
                    wrong.append(f"line {row}: {token.string[:30]!r} styled {kind!r}")
    return wrong


@pytest.mark.slow
@pytest.mark.parametrize("deck", DECKS)
def test_deck_code_is_highlighted_as_code(browser, server, deck):
    """Every code block of a deck, a piece of a cell split over slides too, is highlighted
    as part of its whole cell: every keyword styled as a keyword, every string and comment
    as one (never a docstring's second half as code, or the code after it as a string)."""
    stem = deck.split("/")[-1].removesuffix(".slides.html")
    nb = without_student_text(nbformat.read(next(p for p in NOTEBOOKS if p.stem == stem), 4))
    sources = {cell.get("id"): cell.source for cell in nb.cells if cell.cell_type == "code"}
    visit = Visit(browser, f"{server}/{deck}")
    try:
        blocks = visit.page.evaluate(CODE_RUNS)
    finally:
        visit.close()
    wrong, parts = [], 0
    for block in blocks:
        cell = _cell_id(block["cell"], set(sources))
        source = sources[cell]
        shown = "".join(text for text, _ in block["runs"]).rstrip("\n").split("\n")
        rows = source.split("\n")
        first = next(
            k for k in range(len(rows)) if rows[k : k + len(shown)] == shown
        )  # the block's lines are lines of its cell
        parts += shown != rows
        classes = _token_classes(block["runs"])
        wrong += [f"{cell}: {where}" for where in _misstyled(source, first, classes)]
    assert parts > 0, "no cell is split over slides: nothing to check"
    assert wrong == [], f"{stem}: code not highlighted as the code it is"


@pytest.mark.slow
@pytest.mark.parametrize("deck", DECKS)
def test_deck_figures_are_large_and_legible(browser, server, deck):
    """At 1280×720 every figure is drawn large — on its own slide it fills the slide's
    width or the content's height, or is 1.5 times its pixels; beside its code at least
    450 px tall —
    and its tick labels (matplotlib's 10 points at the resolution its PNG records, scaled
    as the browser draws it) are at least 18 px on screen. A figure too wide for that (three
    panels 13 inches wide) fails here, as ``python -m lecture.slides`` names it: its notebook
    must draw it narrower."""
    stem = deck.split("/")[-1].removesuffix(".slides.html")
    nb = nbformat.read(next(p for p in NOTEBOOKS if p.stem == stem), as_version=4)
    ids = {cell.get("id") for cell in nb.cells}
    measured = _measure_deck(browser, f"{server}/{deck}", (1280, 720))
    assert measured["scale"] == pytest.approx(1.0)
    figures = [dict(image, at=s["at"]) for s in measured["slides"] for image in s["images"]]
    assert len(figures) == _stored_figures(stem)
    small, not_large = set(), []
    for figure in figures:
        width, height = figure["width"], figure["height"]
        natural_width = figure["natural"][0]
        dpi = png_dpi(figure["src"].split(",", 1)[1])
        text_px = TYPE.figure_text_pt * dpi / 72 * width / natural_width
        if text_px < TYPE.min_figure_text_px:
            small.add(_cell_id(figure["cell"], ids))
            assert width >= FIGURE_ROOM[0] - 1, (figure["at"], "small text, not full width")
        if figure["beside"]:
            large = height >= TYPE.min_beside_height
        else:
            fills = width >= FIGURE_ROOM[0] - 1 or height >= FIGURE_ROOM[1] - 1
            large = fills or width >= TYPE.max_upscale * natural_width - 1
        if not large:
            not_large.append((figure["at"], round(width), round(height), figure["natural"]))
    assert not_large == [], f"{stem}: figures drawn smaller than the slide allows"
    assert small == set(), f"{stem}: figures with tick labels under 18 px (cell ids)"
    named = {nb.cells[figure.cell].get("id") for figure in small_figures(nb)}
    assert named == small, "python -m lecture.slides names other figures"


#: How far a picture of the documents may be from a new one: the largest difference of a
#: block's mean (of 255; :func:`tests.golden.image_difference`), for another machine's
#: rendering of the same text. A changed slide or page moves blocks by far more.
PICTURE_TOLERANCE = 8


def _picture_fingerprint(png: bytes) -> dict[str, object]:
    return fingerprint("data:image/png;base64," + base64.b64encode(png).decode())


@pytest.mark.slow
@pytest.mark.parametrize("picture", PICTURES, ids=[picture.name for picture in PICTURES])
def test_the_documents_pictures_are_current(browser, server, picture):
    """The lecture's pictures in the documents are what ``python -m
    tests.e2e.lecture_pictures`` takes from today's build: after a change that shows in
    them, run ``./run python -m tests.e2e.lecture_pictures`` and commit them."""
    taken = take(browser, server, picture)
    difference = image_difference(
        _picture_fingerprint(picture.path.read_bytes()), _picture_fingerprint(taken)
    )
    assert difference is not None and difference <= PICTURE_TOLERANCE, (
        f"docs/{picture.name} is stale (difference {difference}): run "
        "./run python -m tests.e2e.lecture_pictures"
    )


@pytest.mark.slow
def test_build_twice_gives_identical_files(site, tmp_path):
    again = _build(tmp_path / "lecture")
    first = {p.relative_to(site): p for p in site.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p for p in again.rglob("*") if p.is_file()}
    assert sorted(first) == sorted(second)
    differ = [
        str(rel) for rel, path in first.items() if path.read_bytes() != second[rel].read_bytes()
    ]
    assert differ == []
    shutil.rmtree(again)


def _stored_figures(stem: str) -> int:
    import nbformat

    path = next(p for p in NOTEBOOKS if p.stem == stem)
    nb = nbformat.read(path, as_version=4)
    return sum(
        1
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if any(key.startswith("image/") for key in output.get("data", {}))
    )
