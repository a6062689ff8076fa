"""Sphinx configuration of the course site (MyST-NB + sphinx-book-theme), offline.

The source folder is a copy of the notebooks that :mod:`lecture.site` prepares (with the
lecture-mode marks); stored outputs are used as they are (no execution).
"""

project = "Linear classifiers"
author = "the course's authors"
copyright = "the course's authors"  # no year: building twice gives the same pages
language = "en"

extensions = ["myst_nb"]
root_doc = "index"
exclude_patterns = ["**.ipynb_checkpoints"]

# MyST: $…$ and $$…$$ math as in Jupyter, ::: admonitions for the written-answer marks.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
# $$…$$ inside a paragraph (as Jupyter allows) is display math too.
myst_dmath_double_inline = True
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type"]

# Stored outputs only; a widget shows its stored figure (no widget manager from a CDN).
nb_execution_mode = "off"
nb_ipywidgets_js: dict[str, dict[str, str]] = {}  # script URL -> its attributes: none
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
nb_merge_streams = True

# MathJax 3 from the build (copied into _static/mathjax by lecture.site), not a CDN.
mathjax_path = "mathjax/tex-chtml-full.js"

html_theme = "sphinx_book_theme"
html_title = "Linear classifiers — lecture notes"
html_static_path = ["static"]
html_css_files = ["lecture.css"]
html_favicon = "static/favicon.svg"
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False
html_last_updated_fmt = None
# The light theme from the start (pydata-sphinx-theme complains of an unset mode).
html_context = {"default_mode": "light"}
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": True,
    "use_repository_button": False,
    "use_source_button": False,
    "use_issues_button": False,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
}
