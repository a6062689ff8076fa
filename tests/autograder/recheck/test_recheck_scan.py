"""autograder.recheck.scan: tampering patterns are flagged, honest code is not."""

from __future__ import annotations

import nbformat
import pytest

from autograder.recheck import scan
from course_common.paths import REPO_ROOT

REPO = REPO_ROOT
SOURCE_NOTEBOOKS = sorted(REPO.glob("notebooks/*/*.ipynb"))


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None", "patches"),
        ("import linlib.grading as g\nsetattr(g, 'assert_close', print)", "patches"),
        ("assert_close = print", "rebinds assert_close"),
        ("get_ipython().ast_transformers.append(T())", "AST transformers"),
        ("class A:\n    def __eq__(self, o):\n        return True", "comparison tricks"),
        ("import glob\nglob.glob('/**/*.ipynb', recursive=True)", "notebook"),
        ("open('../source/01/01.ipynb').read()", "notebook"),
        ("import subprocess\nsubprocess.run(['ls'])", "starts processes"),
        ("import os\nos._exit(0)", "os._exit"),
        ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)", "signal handler"),
        ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "network"),
        ("import sys\nsys.modules['numpy'] = None", "sys.modules"),
        ("f.__code__ = g.__code__", "swaps a function's code"),
        ("import inspect, linlib\ninspect.getsource(linlib)", "reads source code"),
        ("exec('x = 1')", "exec"),
    ],
)
def test_scan_finds_tampering(code, expected):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    instructor = ["import numpy as np\nfrom linlib.grading import assert_close, call_student"]
    findings = [str(f) for f in scan.scan_notebook(nb, instructor_sources=instructor)]
    assert any(expected in f for f in findings), findings


@pytest.mark.slow
def test_scan_leaves_the_instructors_own_answers_alone():
    """Honest code is not flagged: the source notebooks, handed in as they are."""
    if not SOURCE_NOTEBOOKS:
        pytest.skip("no course notebooks yet")
    for path in SOURCE_NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        instructor = [
            c.source
            for c in nb.cells
            if c.cell_type == "code"
            and not c.get("metadata", {}).get("nbgrader", {}).get("solution")
        ]
        findings = scan.scan_notebook(nb, instructor_sources=instructor)
        assert findings == [], (path.name, [str(f) for f in findings])
