"""The lecture's pictures in the documents, taken from a build of the lecture:
``./run python -m tests.e2e.lecture_pictures`` (after a change that shows in them).

* ``docs/lecture-slide.png``: a slide at 1280×720 whose code stands beside its figure, the
  first such slide of notebook 06's deck (without reveal.js's controls);
* ``docs/lecture-site.png``: the site's page of notebook 01 at its first exercise, 1200×750.

Each is a screenshot of Debian's chromium driven by Playwright, of a build made into a
temporary folder and served on 127.0.0.1: nothing of this machine shows in it, and the same
build on the same machine gives the same bytes (a page opened at its place, no transition,
its fonts and MathJax loaded first). ``tests/e2e/test_lecture_site.py`` takes them again
from its own build and compares them with the committed files
(``test_the_documents_pictures_are_current``).
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from course_common.paths import REPO_ROOT

from .browser import launch_chromium, serve_folder

DOCS = REPO_ROOT / "docs"

# The first slide whose code stands beside its figure: its reveal.js indices.
_BESIDE = """() => {
  const cell = document.querySelector(".reveal .slides section .celltag_slide-beside");
  if (!cell) return null;
  const at = Reveal.getIndices(cell.closest(".reveal .slides > section > section"));
  return [at.h, at.v];
}"""

# The slide alone: no controls, progress bar or slide number (which a slide added before
# it would change).
_SLIDE_ALONE = "Reveal.configure({controls: false, progress: false, slideNumber: false})"

# The id of the section of the page's first exercise.
_EXERCISE = """() => {
  const heading = Array.from(document.querySelectorAll("h3"))
    .find((h) => h.textContent.startsWith("Exercise 1"));
  return heading ? heading.closest("section").id : null;
}"""

# Fonts loaded and MathJax done (the page's own promise), then two frames drawn.
_SETTLED = """async () => {
  await document.fonts.ready;
  for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (window.MathJax && MathJax.startup) await MathJax.startup.promise;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""


@dataclass(frozen=True)
class Picture:
    """A picture of the documents: its file in ``docs/`` and the browser's window."""

    name: str
    viewport: tuple[int, int]

    @property
    def path(self) -> Path:
        return DOCS / self.name


SLIDE = Picture("lecture-slide.png", (1280, 720))
SITE = Picture("lecture-site.png", (1200, 750))
PICTURES = (SLIDE, SITE)


def _new_page(browser, picture: Picture):
    width, height = picture.viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    return context, context.new_page()


def take(browser, base_url: str, picture: Picture) -> bytes:
    """The PNG of *picture*, taken in *browser* from the build served at *base_url*."""
    context, page = _new_page(browser, picture)
    try:
        if picture is SLIDE:
            deck = f"{base_url}/slides/06_svm_margins.slides.html"
            page.goto(deck, wait_until="load")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            at = page.evaluate(_BESIDE)
            if at is None:
                raise RuntimeError("no slide of deck 06 has its code beside its figure")
            # opened at the slide itself: no transition to wait for
            page.goto(f"{deck}#/{at[0]}/{at[1]}", wait_until="load")
            page.reload(wait_until="load")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            page.evaluate(_SLIDE_ALONE)
        else:
            notebook = f"{base_url}/01_hyperplanes/01_hyperplanes.html"
            page.goto(notebook, wait_until="load")
            anchor = page.evaluate(_EXERCISE)
            if anchor is None:
                raise RuntimeError("the page of notebook 01 has no heading 'Exercise 1'")
            page.goto(f"{notebook}#{anchor}", wait_until="load")
        page.evaluate(_SETTLED)
        return page.screenshot(caret="hide", animations="disabled")
    finally:
        context.close()


def main() -> int:
    """Build the lecture into a temporary folder and write the pictures into ``docs/``."""
    from playwright.sync_api import sync_playwright

    from lecture.__main__ import build

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "lecture"
        build(site)
        with serve_folder(site) as url, sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            try:
                for picture in PICTURES:
                    picture.path.write_bytes(take(browser, url, picture))
                    print(f"wrote {picture.path.relative_to(REPO_ROOT)}")
            finally:
                browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
