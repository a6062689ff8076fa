"""The list of stale feedback pages (autograder/feedback/stale.py): on disk before the
penalties are committed, read back by the next run, emptied as pages are written again. The
pages themselves, written again with the penalty, through ``python -m autograder grade``:
tests/autograder/term/test_term_e2e.py."""

from __future__ import annotations

import json

from autograder.course import Course
from autograder.feedback.stale import STALE_FILE, StaleFeedback


def _never(course, assignment, student):
    raise AssertionError(f"a page written for {assignment}/{student}")


def test_marked_pages_are_on_disk_at_once_and_read_back(tmp_path):
    course = Course(tmp_path / "course")
    course.root.mkdir()
    stale = StaleFeedback(course, _never)
    assert stale.keys == set() and not (course.root / STALE_FILE).exists()
    stale.add({("01_hyperplanes", "alice")})
    stale.add({("01_hyperplanes", "alice"), ("04_naive_bayes_linear", "bob")})
    on_disk = json.loads((course.root / STALE_FILE).read_text(encoding="utf-8"))
    assert on_disk == [["01_hyperplanes", "alice"], ["04_naive_bayes_linear", "bob"]]
    assert StaleFeedback(course, _never).keys == {
        ("01_hyperplanes", "alice"),
        ("04_naive_bayes_linear", "bob"),
    }


def test_a_submission_without_a_page_has_nothing_to_write_again(tmp_path):
    course = Course(tmp_path / "course")
    course.root.mkdir()
    stale = StaleFeedback(course, _never)
    stale.add({("01_hyperplanes", "alice")})  # never graded with feedback: no page
    assert stale.refresh() == []
    assert stale.keys == set() and not (course.root / STALE_FILE).exists()


def test_an_unreadable_list_is_said_and_ignored(tmp_path, capsys):
    course = Course(tmp_path / "course")
    course.root.mkdir()
    for text in ("[[1, 2", '{"a": 1}', '["ab"]'):
        (course.root / STALE_FILE).write_text(text, encoding="utf-8")
        assert StaleFeedback(course, _never).keys == set()
        err = capsys.readouterr().err
        assert err.startswith(f"note: {STALE_FILE} could not be read") and err.count("\n") == 1
