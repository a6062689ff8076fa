"""The lecturer's build: a course site and one reveal.js deck per notebook, offline.

``python -m lecture build`` (what ``./run lecture`` runs) reads the source notebooks and
their stored outputs (nothing is executed) and writes ``build/lecture/``:

* ``index.html`` and one page per notebook, built by Sphinx with MyST-NB and the
  sphinx-book-theme (:mod:`lecture.site`);
* ``slides/NN_name.slides.html``, built by nbconvert's reveal.js exporter
  (:mod:`lecture.decks`), from the slide metadata that :mod:`lecture.slides` writes, its
  cells split to fit a 1280×720 slide by the height model of :mod:`lecture.layout`;
* MathJax and reveal.js copied from ``node_modules/`` (installed by ``./run`` from the
  committed ``package-lock.json``), so no page fetches anything at view time.
"""

from course_common.assets import AssetsMissing, mathjax_dir
from lecture._notebooks import course_notebooks, lecture_copy, mark_solutions, without_student_text
from lecture.assets import reveal_dir

__all__ = [
    "AssetsMissing",
    "course_notebooks",
    "lecture_copy",
    "mark_solutions",
    "mathjax_dir",
    "reveal_dir",
    "without_student_text",
]
