"""The demo class graded through ``python -m autograder demo`` gives, byte for byte, the
outputs of the record (``tests/golden/__init__.py`` says what it holds and how to refresh
it on purpose): every score, flag, feedback page, report and gradebook entry unchanged.

Seen to fail: with one CSS property of the feedback pages changed (the border of the box
of a page's notes, ``autograder/grading/student_page.py``'s ``_BOX``, 2px to 3px), the
seven pages with a note are listed as changed and the diff shows the line. Before the
grader merged consecutive stream outputs, two runs of the demo gave different pages (where
the kernel flushed a cell's printed lines).
"""

from __future__ import annotations

import pytest

from course_common.assets import mathjax_available
from tests.golden import (
    GRADEBOOK,
    as_text,
    differences,
    digest,
    grade_demo,
    read_record,
    read_texts,
    run_files,
)
from tests.needs import require


def test_the_record_and_its_texts_were_refreshed_together():
    """The two files of the record list the same outputs, and each output without an
    embedded image has, as text, the recorded digest."""
    record, texts = read_record(), read_texts()
    assert set(record) == set(texts)
    assert GRADEBOOK in record and "results.json" in record and "grades.csv" in record
    assert any(name.startswith("feedback/") for name in record)
    plain = [name for name, text in texts.items() if "data:image;sha256," not in text]
    assert "summary.md" in plain
    assert [n for n in plain if digest(texts[n].encode("utf-8")) != record[n]] == []


def test_as_text_keeps_everything_but_the_image_bytes():
    page = b'<img src="data:image/png;base64,iVBORw0KGgo=\n">x'
    other = b'<img src="data:image/png;base64,iVBORw0KGgA=\n">x'
    assert as_text(page).startswith('<img src="data:image;sha256,')
    assert as_text(page).endswith('">x')
    assert as_text(page) != as_text(other)


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
