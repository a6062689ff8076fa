"""autograder.notebook's grade-id matching: which assignment a submission's notebooks
belong to, and when a batch is an instructor's mistake (a wrong --assignment)."""

from __future__ import annotations

import json

import pytest

from autograder.course import list_assignments
from autograder.notebook import (
    assignment_mismatch,
    carried_ids,
    cell_kind,
    closest_assignment,
    closest_assignments,
    folder_grade_order,
    folder_graded_ids,
    graded_ids,
    score_names,
)
from course_common.paths import NOTEBOOKS_DIR

GRADED = {"01_a": {"a1", "a2", "a3"}, "02_b": {"b1", "b2"}}


def _nb(*cells):
    return {"cells": [{"metadata": {"nbgrader": meta}} for meta in cells]}


@pytest.mark.parametrize(
    ("meta", "kind"),
    [
        ({"grade": True}, "test cell"),
        ({"solution": True}, "answer cell"),
        ({"grade": True, "solution": True}, "manually graded answer"),
        ({"task": True}, "task cell"),
        ({"locked": True}, "read-only cell"),
        ({}, "ordinary cell"),
    ],
)
def test_cell_kind(meta, kind):
    assert cell_kind(meta) == kind


def test_graded_and_carried_ids():
    nb = _nb(
        {"grade_id": "t", "grade": True},
        {"grade_id": "s", "solution": True},
        {"grade_id": "ro", "locked": True},
        {"grade_id": ["not", "a", "string"], "grade": True},
    )
    assert graded_ids(nb) == {"t", "s"}
    assert carried_ids(json.dumps(nb).encode()) == {"t", "s", "ro"}
    assert carried_ids(b"not json") == set() and carried_ids(b"[1, 2]") == set()
    assert carried_ids({"cells": [1, {"metadata": {"nbgrader": "x"}}]}) == set()


def test_closest_assignment():
    assert closest_assignment({"a1", "b1", "b2"}, GRADED) == "02_b"
    assert closest_assignment({"zz"}, GRADED) is None


def test_a_batch_of_another_assignment_is_refused():
    message = assignment_mismatch("02_b", [{"a1", "a2"}, {"a1"}, {"a3"}], GRADED)
    assert message == (
        "these submissions look like 01_a, not 02_b (none of them carry any of 02_b's 2 "
        "graded cells); check --assignment"
    )
    other_course = assignment_mismatch("02_b", [{"zz"}, {"yy"}], GRADED)
    assert "match no assignment of this course" in other_course
    # most, not all: still a mistake, and the message says how many
    assert "2 of 3" in assignment_mismatch("02_b", [{"a1"}, {"a2"}, {"b1"}], GRADED)


def test_one_odd_notebook_or_unreadable_ones_are_not_a_refusal():
    assert assignment_mismatch("02_b", [{"b1"}, {"b1", "b2"}, {"a1"}], GRADED) is None
    assert assignment_mismatch("02_b", [{"b1"}, {"a1"}], GRADED) is None  # half: not most
    # students with no readable notebook do not count either way
    assert assignment_mismatch("02_b", [set(), set(), {"b2"}], GRADED) is None
    assert assignment_mismatch("02_b", [set()], GRADED) is None


def test_copied_cells_keep_their_ids_and_the_best_fit_wins():
    graded = {"hw1": {"hyp", "mean"}, "hw2": {"hyp", "area"}, "hw3": {"hyp", "mean"}}
    assert closest_assignments({"hyp", "area"}, graded) == ["hw2"]
    assert closest_assignments({"hyp", "mean"}, graded) == ["hw1", "hw3"]  # a copy: alike
    assert closest_assignments({"hyp"}, graded, among=["hw2", "hw3"]) == ["hw2", "hw3"]
    assert closest_assignments({"zz"}, graded) == []
    assert closest_assignment({"hyp", "mean"}, graded) == "hw1"
    # a shared id alone does not make a batch of another assignment this one's
    message = assignment_mismatch("hw1", [{"hyp", "area"}] * 2, graded)
    assert message is not None and "all of them fit hw2's graded cells better than hw1's" in message


def test_a_grade_id_in_several_notebooks_is_named_with_its_notebook(tmp_path):
    def write(name, *ids):
        cells = [{"metadata": {"nbgrader": {"grade_id": g, "grade": True}}} for g in ids]
        (tmp_path / f"{name}.ipynb").write_text(json.dumps({"cells": cells}))

    write("main", "hyp", "mean_test", "hyp_test")
    write("bonus", "hyp", "hyp_test", "extra")
    assert score_names(tmp_path) == {
        ("bonus", "hyp"): "bonus/hyp",
        ("bonus", "hyp_test"): "bonus/hyp_test",
        ("bonus", "extra"): "extra",
        ("main", "hyp"): "main/hyp",
        ("main", "mean_test"): "mean_test",
        ("main", "hyp_test"): "main/hyp_test",
    }
    assert list(folder_grade_order(tmp_path)) == list(score_names(tmp_path).values())


@pytest.mark.skipif(not list_assignments(), reason="no course notebooks")
def test_the_course_assignments_share_no_graded_cell():
    """Matching by grade ids is meaningful: each assignment's are its own."""
    graded = {a: folder_graded_ids(NOTEBOOKS_DIR / a) for a in list_assignments()}
    assert all(graded.values())
    for a in graded:
        for b in graded:
            if a < b:
                assert not graded[a] & graded[b], (a, b)
        assert closest_assignment(graded[a], graded) == a
