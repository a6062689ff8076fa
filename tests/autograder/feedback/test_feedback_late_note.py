"""autograder.feedback.late_note: the late section of a student's page — the notes the term
records in the course folder, read back by the page writer and shown above the notebook,
every text escaped. (Through ``python -m autograder grade``, in chromium:
``tests/autograder/feedback/test_feedback_page_browser.py``.)"""

from __future__ import annotations

from nbconvert.filters import clean_html as nbconvert_clean_html
from nbformat.v4 import new_code_cell, new_notebook

from autograder.feedback.late_note import LateNote, LateNotes
from autograder.feedback.student_page import ExplainToStudent


def test_a_late_submission_page_says_when_it_was_due_and_handed_in(tmp_path):
    notes = LateNotes(tmp_path / "feedback-late.json")
    late = LateNote(
        due="2025-10-24 23:59 +02:00 CEST",
        handed_in="2025-10-26 10:01 +01:00 CET",
        rule="10 % of the score per started day, at most <b>50 %</b>",
        late_by="1 day 11 h 2 min",
        cost="−20 % (−1.2 points)",
    )
    extended = LateNote(
        due="2025-10-24 23:59 +02:00 CEST",
        handed_in="2025-10-26 12:00 +01:00 CET",
        rule="none",
        extended_to="2025-10-27 23:59 +01:00 CET",
        extension="+3 days",
    )
    notes.record({("a1", "late"): late, ("a1", "ext"): extended, ("a1", "on_time"): None})
    assert notes.read() == {("a1", "late"): late, ("a1", "ext"): extended}
    explain = ExplainToStudent(late_notes=str(notes.path))

    def page(student: str) -> list:
        nb = new_notebook(cells=[new_code_cell("x = 1")])
        resources = {"nbgrader": {"assignment": "a1", "student": student, "notebook": "a1"}}
        return explain.preprocess(nb, resources)[0].cells

    first = page("late")[0]
    assert first.cell_type == "raw" and first.metadata["raw_mimetype"] == "text/html"
    text = first.source
    # nbconvert's template cleans a raw cell down to a few tags (bleach): the section is
    # made of those only, so it reaches the page as it is (a <p> would show as text)
    assert nbconvert_clean_html(text) == text
    assert "Handed in after the due date" in text
    assert "<li>Due: 2025-10-24 23:59 +02:00 CEST</li>" in text
    assert "<li>Handed in: 2025-10-26 10:01 +01:00 CET, 1 day 11 h 2 min late</li>" in text
    assert "Late rule: 10 % of the score per started day, at most &lt;b&gt;50 %&lt;/b&gt;" in text
    assert "Penalty: −20 % (−1.2 points); the score at the top of this page is after it" in text
    text = page("ext")[0].source
    assert "Your extension: due 2025-10-27 23:59 +01:00 CET (+3 days)" in text
    assert "Handed in: 2025-10-26 12:00 +01:00 CET, on time" in text and "Penalty" not in text
    assert nbconvert_clean_html(text) == text
    assert [c.source for c in page("on_time")] == ["x = 1"]  # no note: no section
    # a note taken out (the extension withdrawn) leaves the others; none left, no file
    notes.record({("a1", "ext"): None})
    assert notes.changed({("a1", "late"): late, ("a1", "ext"): None}) == set()
    assert notes.changed({("a1", "late"): extended}) == {("a1", "late")}
    notes.record({("a1", "late"): None})
    assert not notes.path.exists() and notes.read() == {}


def test_an_unreadable_notes_file_holds_no_note(tmp_path):
    path = tmp_path / "feedback-late.json"
    for text in ("", "{not json", '{"a": 1}', "[[1, 2]]", '[["a1", "x", 3]]'):
        path.write_text(text, encoding="utf-8")
        assert LateNotes(path).read() == {}, text
    # and the page of such a course shows no section, rather than fail
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    resources = {"nbgrader": {"assignment": "a1", "student": "x", "notebook": "a1"}}
    nb, _ = ExplainToStudent(late_notes=str(path)).preprocess(nb, resources)
    assert [c.source for c in nb.cells] == ["x = 1"]
