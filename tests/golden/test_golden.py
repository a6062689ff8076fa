"""The demo class graded through ``python -m autograder demo`` gives, byte for byte, the
outputs of the record (``tests/golden/__init__.py`` says what it holds and how to refresh
it on purpose): every score, flag, feedback page, report and gradebook entry unchanged.

Seen to fail: with one CSS property of the feedback pages changed (the border of the box
of a page's notes, ``autograder/feedback/student_page.py``'s ``_BOX``, 2px to 3px), the
seven pages with a note are listed as changed and the diff shows the line. Before the
grader merged consecutive stream outputs, two runs of the demo gave different pages (where
the kernel flushed a cell's printed lines).
"""

from __future__ import annotations

import base64
import io

import pytest

from course_common.assets import mathjax_available
from tests.golden import (
    GRADEBOOK,
    as_text,
    differences,
    file_digest,
    fingerprints,
    grade_demo,
    read_images,
    read_record,
    read_texts,
    run_files,
    text_digest,
)
from tests.needs import require


def test_the_record_and_its_texts_were_refreshed_together():
    """The three files of the record list the same outputs: each output's recorded text
    has the recorded digest (its figures apart), and each figure of a text has its
    fingerprint."""
    record, texts, images = read_record(), read_texts(), read_images()
    assert set(record) == set(texts)
    assert GRADEBOOK in record and "results.json" in record and "grades.csv" in record
    assert any(name.startswith("feedback/") for name in record)
    assert [n for n in texts if text_digest(texts[n]) != record[n]] == []
    plain = [name for name, text in texts.items() if "data:image;sha256," not in text]
    assert "summary.md" in plain
    assert set(images) == set(texts) - set(plain)
    assert {n: len(images[n]) for n in images} == {
        n: texts[n].count("data:image;sha256,") for n in images
    }


def test_as_text_keeps_everything_but_the_image_bytes():
    page = b'<img src="data:image/png;base64,iVBORw0KGgo=\n">x'
    other = b'<img src="data:image/png;base64,iVBORw0KGgA=\n">x'
    assert as_text(page).startswith('<img src="data:image;sha256,')
    assert as_text(page).endswith('">x')
    assert as_text(page) != as_text(other)


def _figure(points: list[tuple[float, float]], pixel: tuple[int, int] | None = None) -> bytes:
    """A page with one matplotlib figure of ``points`` (with ``pixel`` of it made black)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from PIL import Image

    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.plot(*zip(*points, strict=True), "o-")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    if pixel is not None:
        with Image.open(io.BytesIO(buffer.getvalue())) as image:
            pixels = np.array(image.convert("RGBA"))
        pixels[pixel] = (0, 0, 0, 255)
        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="png")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    return f'<p>score 3 / 4</p><img src="{uri}"/>'.encode()


@pytest.mark.slow
def test_a_figure_is_the_same_up_to_a_pixel_and_differs_when_its_data_does():
    points = [(0.0, 0.0), (1.0, 2.0), (2.0, 1.0), (3.0, 3.0)]
    page = _figure(points)
    record = {"feedback/a.html": file_digest(page)}
    images = {"feedback/a.html": fingerprints(page)}
    # one pixel of anti-aliasing (another CPU's last bits): the same page
    aliased = _figure(points, pixel=(150, 200))
    assert aliased != page
    assert differences({"feedback/a.html": aliased}, record, images) == ""
    # one point moved: the figure differs, and the report says so
    moved = _figure([(0.0, 0.0), (1.0, 2.5), (2.0, 1.0), (3.0, 3.0)])
    report = differences({"feedback/a.html": moved}, record, images)
    assert "changed: feedback/a.html (figure 1: a block's mean differs by" in report
    # the page's text is held byte for byte, whatever its figures
    other_text = page.replace(b"score 3 / 4", b"score 4 / 4")
    assert "changed: feedback/a.html" in differences(
        {"feedback/a.html": other_text}, record, images
    )
    assert file_digest(page) == text_digest(as_text(page))


@pytest.mark.slow
@pytest.mark.needs_sandbox
def test_the_demo_class_grades_as_recorded(tmp_path):
    require(mathjax_available(), "MathJax is not installed (./run installs it: npm ci)")
    out, course = grade_demo(tmp_path)
    files = run_files(out, course)
    leaked = [name for name, content in files.items() if str(tmp_path).encode() in content]
    assert leaked == [], "the run's folder appears in these outputs"
    report = differences(files)
    assert not report, report
