"""autograder.intake.match: which assignment each submission is, by its folder's name, else
its file names, else its notebooks' grade ids, and the doubt said where they leave one; what
belongs to none is listed, not graded."""

from __future__ import annotations

import json
import logging

import pytest

from autograder.intake import match_assignments
from autograder.models import RawSubmission, SubmissionsError

GRADED = {"01_a": {"a1", "a2", "a3"}, "02_b": {"b1", "b2"}}
NOTEBOOKS = {"01_a": ["01_a"], "02_b": ["02_b"]}


def _notebook(*grade_ids: str) -> bytes:
    cells = [{"metadata": {"nbgrader": {"grade_id": g}}} for g in grade_ids]
    return json.dumps({"cells": cells}).encode()


def _match(raws, assignment=None, id_limit=128):
    return match_assignments(
        raws,
        assignment=assignment,
        graded=GRADED,
        source_notebooks=NOTEBOOKS,
        id_limit=id_limit,
        where="class.zip",
    )


def test_file_names_guess_and_the_grade_ids_win_flagged():
    by_name = RawSubmission("ann", None, {"01_a.ipynb": _notebook("a1", "a2")})
    renamed = RawSubmission("bob", None, {"01_a (1).ipynb": _notebook("b1", "b2")})
    assigned, unmatched = _match([by_name, renamed])
    assert [(a, raw.student) for a, raw in assigned] == [("01_a", "ann"), ("02_b", "bob")]
    assert unmatched == {} and by_name.flags == []
    assert renamed.flags == [
        "the file names look like 01_a, but the notebooks carry 02_b's graded cells: graded as 02_b"
    ]


def test_a_named_assignment_is_kept_and_a_wrong_one_refused():
    raws = [RawSubmission(s, "02_b", {"x.ipynb": _notebook("a1")}) for s in ("ann", "bob")]
    with pytest.raises(SubmissionsError, match="look like 01_a, not 02_b"):
        _match(raws, assignment="02_b")
    one_odd = [*raws[:1], RawSubmission("cy", "02_b", {"02_b.ipynb": _notebook("b1")})]
    one_odd.append(RawSubmission("dee", "02_b", {"02_b.ipynb": _notebook("b2")}))
    assigned, _ = _match(one_odd, assignment="02_b")
    assert [a for a, _ in assigned] == ["02_b"] * 3  # the read assignment is not second-guessed


def test_unknown_and_too_long_ids_are_listed_with_why():
    raws = [
        RawSubmission("ann", None, {"01_a.ipynb": _notebook("a1")}),
        RawSubmission("bob", None, {"essay.docx": b"text"}),
        RawSubmission("c" * 50, None, {"01_a.ipynb": _notebook("a1")}),
    ]
    assigned, unmatched = _match(raws, id_limit=20)
    assert [raw.student for _, raw in assigned] == ["ann"]
    assert unmatched == {
        "bob/?": "not a submission of any assignment of this course (not graded)",
        f"{'c' * 40}…/?": "student id longer than 20 characters, the gradebook's limit "
        "(not graded; shorten the folder name)",
    }


def test_nothing_matched_is_an_error_naming_a_few():
    strays = [RawSubmission(f"s{i}", None, {"essay.docx": b""}) for i in range(7)]
    with pytest.raises(SubmissionsError) as info:
        _match(strays)
    assert str(info.value).endswith("found s0/?, s1/?, s2/?, s3/?, s4/?")
    with pytest.raises(SubmissionsError, match=r"no submissions found in class\.zip$"):
        _match([])


#: A course whose instructor copied cells from one assignment to the next (their grade ids
#: kept, as nbgrader allows): hw1 has a bonus notebook with its own copy of ``hyp``; hw2 and
#: hw3 each have a notebook named as hw1's; hw3's is a copy of hw1's, grade ids and all.
SHARED = {
    "hw1": {"hyp", "hyp_test", "mean", "mean_test"},
    "hw2": {"hyp", "hyp_test", "area", "area_test"},
    "hw3": {"hyp", "hyp_test", "mean", "mean_test"},
}
SHARED_NOTEBOOKS = {"hw1": ["bonus", "homework"], "hw2": ["homework"], "hw3": ["homework"]}


def _shared(raws, assignment=None, graded=SHARED, notebooks=SHARED_NOTEBOOKS):
    return match_assignments(
        raws,
        assignment=assignment,
        graded=graded,
        source_notebooks=notebooks,
        id_limit=128,
        where="class.zip",
    )


def _handed(student, *files, ids=(), folder=None):
    return RawSubmission(student, folder, {f"{name}.ipynb": _notebook(*ids) for name in files})


def test_a_folder_name_then_the_file_names_decide_whatever_ids_are_shared(caplog):
    hw1 = SHARED["hw1"]
    raws = [
        _handed("ann", "homework", ids=hw1, folder="hw3"),  # nbgrader's layout: hw3/
        _handed("bob", "homework", "bonus", ids=hw1),  # only hw1 has a bonus notebook
        _handed("cy", "homework (1)", "Copy of bonus", ids=hw1),  # renamed copies too
    ]
    assigned, unmatched = _shared(raws)
    assert [(a, raw.student) for a, raw in assigned] == [
        ("hw3", "ann"),
        ("hw1", "bob"),
        ("hw1", "cy"),
    ]
    assert unmatched == {} and all(raw.flags == [] for raw in raws)
    assert not caplog.records


def test_where_the_file_names_fit_several_the_grade_ids_decide(caplog):
    raws = [
        _handed("ann", "homework", ids=SHARED["hw2"]),  # hw1, hw2 and hw3 have one
        _handed("bob", "homework", ids={"hyp", "area"}),  # answers only: still hw2's
        _handed("cy", "answers", ids={"hyp_test", "area_test"}),  # no name fits: the ids
    ]
    assigned, _ = _shared(raws)
    assert [a for a, _ in assigned] == ["hw2"] * 3
    assert all(raw.flags == [] for raw in raws) and not caplog.records


def test_grade_ids_fit_best_what_they_fill_without_a_cell_missing():
    graded = {"short": {"q1", "q2"}, "long": {"q1", "q2", "q3"}}
    notebooks = {"short": ["nb"], "long": ["nb"]}
    raws = [_handed("ann", "nb", ids={"q1", "q2"}), _handed("bob", "nb", ids={"q1", "q3"})]
    assigned, _ = _shared(raws, graded=graded, notebooks=notebooks)
    assert [a for a, _ in assigned] == ["short", "long"]
    assert raws[0].flags == raws[1].flags == []


def test_a_doubt_the_names_and_ids_leave_is_said_and_what_was_chosen(caplog):
    caplog.set_level(logging.WARNING, logger="autograder.intake.match")
    # a zip of hw3's class: its notebook is named as hw1's and carries hw1's grade ids
    raws = [_handed(s, "homework", ids=SHARED["hw3"]) for s in ("ann", "bob")]
    assigned, _ = _shared(raws)
    assert [a for a, _ in assigned] == ["hw1", "hw1"]
    assert raws[0].flags == [
        "the file names and grade ids fit hw1 and hw3 alike: graded as hw1, the first of "
        "them in the course; name the assignment with --assignment to choose"
    ]
    assert [r.getMessage() for r in caplog.records] == [
        "2 submissions fit hw1 and hw3 alike by their file names and grade ids (ann, bob): "
        "graded as hw1, the first of them in the course; pass --assignment to choose"
    ]
    # most of the batch decided: the doubtful go with them, said so
    caplog.clear()
    raws = [
        _handed("ann", "homework", ids=SHARED["hw3"]),
        *(_handed(s, "homework", ids=SHARED["hw2"]) for s in ("bob", "cy")),
        _handed("dee", "homework", ids={"hyp", "hyp_test"}),  # hw1, hw2 and hw3's alike
    ]
    assigned, _ = _shared(raws)
    assert [a for a, _ in assigned] == ["hw1", "hw2", "hw2", "hw2"]
    assert (
        raws[0]
        .flags[0]
        .endswith(
            "graded as hw1, the first of them in the course; "
            "name the assignment with --assignment to choose"
        )
    )
    assert raws[3].flags == [
        "the file names and grade ids fit hw1, hw2 and hw3 alike: graded as hw2, the "
        "assignment of most of this batch's clear submissions (2); name the assignment "
        "with --assignment to choose"
    ]
    assert len(caplog.records) == 2
    # --assignment decides: no doubt
    caplog.clear()
    raws = [_handed(s, "homework", ids=SHARED["hw3"], folder="hw3") for s in ("ann", "bob")]
    assigned, _ = _shared(raws, assignment="hw3")
    assert [a for a, _ in assigned] == ["hw3", "hw3"] and not caplog.records
    assert all(raw.flags == [] for raw in raws)


def test_a_wrong_assignment_is_refused_though_a_copied_cell_is_shared():
    raws = [_handed(s, "homework", ids=SHARED["hw2"], folder="hw1") for s in ("ann", "bob")]
    with pytest.raises(SubmissionsError) as info:
        _shared(raws, assignment="hw1")
    assert str(info.value) == (
        "these submissions look like hw2, not hw1 (all of them fit hw2's graded cells better "
        "than hw1's); check --assignment"
    )
    # hw3 is a copy of hw1, grade ids and all: hw1's class fits both alike, refused by neither
    for name in ("hw1", "hw3"):
        raws = [_handed(s, "homework", ids=SHARED["hw1"], folder=name) for s in ("ann", "bob")]
        assert [a for a, _ in _shared(raws, assignment=name)[0]] == [name, name]
