"""The hold's transfer (autograder.grading.hold): a held student's result moved into the
course as nbgrader's Autograde would have written it, and nothing but SQLAlchemy's
autoflush warnings hidden while it writes. The hold beside a
running canary is tested end to end in ``tests/autograder/test_canary_hold.py`` and the
golden record."""

from __future__ import annotations

import warnings

import pytest
from sqlalchemy.exc import SAWarning

from autograder.course import Course
from autograder.grading.hold import transfer

A = "01_hyperplanes"


def _define(course: Course) -> None:
    with course.gradebook() as gb:
        gb.add_assignment(A)
        gb.add_notebook(A, A)
        gb.add_grade_cell("t0", A, A, max_score=4.0, cell_type="code")
        gb.add_student("ann")


@pytest.fixture
def courses(tmp_path, new_course) -> tuple[Course, Course]:
    """A course and its scratch course of held students: ann graded in the scratch course
    (3 of 4 points, a penalty of none, as a notebook's starts)."""
    course, held = new_course(tmp_path / "course"), new_course(tmp_path / "course" / "held")
    _define(course)
    _define(held)
    with held.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        gb.add_submission(A, "ann")
        gb.find_grade("t0", A, A, "ann").auto_score = 3.0
        gb.db.commit()
    return course, held


def test_a_transfer_hides_sqlalchemys_autoflush_warnings_and_no_other(courses, monkeypatch):
    """A new submission in the course trips nbgrader's autoflush SAWarnings (hidden); a
    warning of another kind raised while the transfer writes shows (issue 45: the block
    ignored every warning)."""
    from nbgrader.api import Gradebook

    course, held = courses
    original = Gradebook.find_submission

    def warns(self, *args, **kwargs):
        warnings.warn("another kind of warning", UserWarning, stacklevel=2)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Gradebook, "find_submission", warns)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        transfer(held, course, A, "ann")
    assert seen  # the other kind shows (once per lookup), no SAWarning does
    assert {(w.category, str(w.message)) for w in seen} == {
        (UserWarning, "another kind of warning")
    }
    with course.gradebook() as gb:
        assert gb.find_submission_notebook(A, A, "ann").score == 3.0
