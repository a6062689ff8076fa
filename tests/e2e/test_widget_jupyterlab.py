"""A live figure of linlib.widgets, driven in JupyterLab: a slider moves, the figure is
redrawn. JupyterLab runs on 127.0.0.1 (started here, no token, a temporary root folder),
Playwright drives Debian's chromium; the page must ask nothing of any other host.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from .browser import jupyterlab_server, launch_chromium

CELL = """\
import linlib
from linlib.widgets import hyperplane_explorer
X, y = linlib.make_separable(20, margin=0.3, random_state=1)
explorer = hyperplane_explorer(X, w=(1.0, 0.0), b=0.0)
explorer"""


@pytest.fixture
def jupyterlab(tmp_path: Path):
    notebook = new_notebook(cells=[new_code_cell(CELL)])
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(notebook, tmp_path / "widget.ipynb")
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={tmp_path}",
    ]
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    with jupyterlab_server(
        command, cwd=tmp_path, env=env, log_path=tmp_path / "jupyterlab.log"
    ) as url:
        yield url


@pytest.mark.slow
def test_slider_redraws_the_figure_in_jupyterlab(jupyterlab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(f"{jupyterlab}/lab/tree/widget.ipynb")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            page.wait_for_function(  # the kernel is up
                "() => { const bar = document.querySelector('#jp-main-statusbar');"
                " return bar && bar.innerText.includes('Idle'); }",
                timeout=90_000,
            )
            page.locator(".jp-Notebook .jp-Cell").first.click()
            page.keyboard.press("Shift+Enter")
            page.wait_for_selector(".widget-slider", timeout=90_000)
            figure = page.locator(".jp-OutputArea-output img").first
            figure.wait_for(timeout=30_000)
            before = figure.get_attribute("src")

            # move w₁ one step to the right, as a lecturer would with the keyboard
            page.locator(".widget-slider .noUi-handle").first.focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                "before => { const img = document.querySelector('.jp-OutputArea-output img');"
                " return img && img.getAttribute('src') !== before; }",
                arg=before,
                timeout=30_000,
            )
            readout = page.locator(".widget-readout").first.inner_text()
            assert float(readout) == pytest.approx(1.1)
            outside = [
                url
                for url in requests
                if not url.startswith((jupyterlab, "data:", "blob:", "ws://127.0.0.1"))
            ]
            assert outside == []
        finally:
            browser.close()
