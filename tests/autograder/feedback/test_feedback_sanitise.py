"""The feedback sanitiser: student HTML cleaned by nh3, outputs that could run dropped, the
template's own scripts allowed by the Content-Security-Policy and nothing else."""

from __future__ import annotations

import base64
import hashlib

import pytest
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from autograder.feedback.sanitise import (
    SanitiseNotebook,
    clean_html,
    content_security_policy,
    head_content_offset,
    head_end_offset,
)
from tests.autograder.test_hostile_html import PNG, hostile_notebook, render_feedback


@pytest.mark.parametrize(
    ("hostile", "gone"),
    [
        ("<script>alert(1)</script>ok", "alert"),
        ('<img src="x" onerror="alert(1)">', "onerror"),
        ('<a href="javascript:alert(1)">x</a>', "javascript"),
        ('<a href=" JaVaScRiPt:alert(1)">x</a>', "alert"),
        ('<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', "data:"),
        ('<img src="data:text/html;base64,PHNjcmlwdD4=">', "data:"),
        ('<svg onload="alert(1)"><circle r="1"/></svg>', "svg"),
        ('<iframe src="https://example.org"></iframe>', "iframe"),
        ('<object data="x.swf"></object><embed src="x.swf">', "x.swf"),
        ('<form action="https://example.org"><input name="q"></form>', "form"),
        ('<base href="https://example.org/">', "base"),
        ('<meta http-equiv="refresh" content="0;url=https://example.org">', "refresh"),
        ("<style>body{background:url(https://example.org/x)}</style>", "example"),
        ('<div style="background:url(https://example.org/x);color:red">x</div>', "example"),
        ("<!-- <script>alert(1)</script> -->", "script"),
    ],
)
def test_active_html_is_removed(hostile, gone):
    assert gone.lower() not in clean_html(hostile).lower()


def test_inert_html_is_kept():
    table = '<table border="1" class="dataframe"><thead><tr><th>a</th></tr></thead></table>'
    assert clean_html(table) == table
    image = f'<img src="data:image/png;base64,{PNG}" width="10">'
    assert f"data:image/png;base64,{PNG}" in clean_html(image)
    assert clean_html('<span style="color:red">x</span>') == '<span style="color:red">x</span>'
    assert 'id="the-margin"' in clean_html('<h2 id="the-margin">The margin</h2>')
    assert "$a &lt; b$" in clean_html("<p>$a < b$</p>")  # the math text stays (escaped)


def _run(nb):
    return SanitiseNotebook().preprocess(nb, {})[0]


def test_outputs_that_could_run_are_dropped_and_the_rest_cleaned():
    outputs = [
        new_output("display_data", data={"application/javascript": "alert(1)"}),
        new_output(
            "display_data",
            data={"application/vnd.jupyter.widget-view+json": {"model_id": "x"}, "text/plain": "w"},
        ),
        new_output("display_data", data={"text/html": "<b onclick='x()'>bold</b>"}),
        new_output("display_data", data={"image/png": 'AAAA" onerror="alert(1)'}),
        new_output(
            "display_data",
            data={"image/png": PNG},
            metadata={"image/png": {"width": "1 onerror=alert(1)", "height": 40}},
        ),
        new_output("display_data", data={"text/html": "<p>x</p>"}, metadata={"isolated": True}),
        new_output("stream", text="<script>printed, escaped by the template</script>"),
    ]
    nb = new_notebook(cells=[new_code_cell("x", outputs=outputs)])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    nb.cells[0].execution_count = "1]</div><script>alert(1)</script>"
    cell = _run(nb).cells[0]
    datas = [dict(out.get("data", {})) for out in cell.outputs]
    assert datas[0] == {"text/plain": "w"}
    assert datas[1] == {"text/html": "<b>bold</b>"}
    assert datas[2] == {"image/png": PNG}
    assert cell.outputs[2].metadata == {"image/png": {"height": 40}}
    assert cell.outputs[3].metadata == {}
    assert cell.outputs[4].output_type == "stream"
    assert len(cell.outputs) == 5
    assert cell.execution_count is None
    assert "widgets" not in nb.metadata


def test_raw_cells_and_grade_ids_are_made_inert():
    raw = new_raw_cell("<script>alert(1)</script><b>kept</b>")
    markdown = new_markdown_cell("text")
    markdown.metadata["nbgrader"] = {"grade_id": '"><script>alert(1)</script>', "grade": True}
    fine = new_markdown_cell("text")
    fine.metadata["nbgrader"] = {"grade_id": "proof_step_norm_growth_answer", "grade": True}
    nb = _run(new_notebook(cells=[raw, markdown, fine]))
    assert nb.cells[0].source == "<b>kept</b>"
    assert "<" not in nb.cells[1].metadata["nbgrader"]["grade_id"]
    assert nb.cells[2].metadata["nbgrader"]["grade_id"] == "proof_step_norm_growth_answer"


def test_policy_allows_no_inline_script_but_the_hashed_ones():
    digest = base64.b64encode(hashlib.sha256(b"x").digest()).decode()
    policy = content_security_policy([f"'sha256-{digest}'"])
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == f"'self' 'sha256-{digest}'"
    for name in ("object-src", "base-uri", "form-action", "frame-src"):
        assert directives[name] == "'none'"


@pytest.mark.slow
def test_the_page_policy_hashes_exactly_the_templates_inline_scripts(tmp_path):
    page = render_feedback(hostile_notebook(), tmp_path).read_text(encoding="utf-8")
    soup = BeautifulSoup(page, features="html.parser")
    policy = soup.find("meta", attrs={"http-equiv": "Content-Security-Policy"})["content"]
    script_src = next(d for d in policy.split(";") if d.strip().startswith("script-src"))
    hashes = {h.strip("'")[len("sha256-") :] for h in script_src.split() if "sha256-" in h}
    inline = [s.string for s in soup.find_all("script") if not s.get("src")]
    assert inline and hashes == {
        base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() for text in inline
    }


def test_the_policy_goes_right_after_the_real_head_tag():
    page = '<!DOCTYPE html>\n<!-- <head> in a comment -->\n<html>\n<head lang="en">\n<title>t'
    at = head_content_offset(page)
    assert page[:at].endswith('<head lang="en">') and page[at:] == "\n<title>t"
    long = "<html><head>" + "x" * 10_000
    assert head_content_offset(long) == len("<html><head>")
    with pytest.raises(ValueError):
        head_content_offset("<p>no head here</p>")


def test_the_page_style_goes_right_before_the_real_head_end_tag():
    page = (
        "<html>\n<head><style>a{}/* </head> */</style>\n<!-- </head> -->"
        + "x" * 10_000
        + "</head>\n<body><p>&lt;/head&gt;</p></body></html>"
    )
    at = head_end_offset(page)
    assert page[at:].startswith("</head>\n<body>")
    with pytest.raises(ValueError):
        head_end_offset("<html><head><title>t")
