"""autograder.intake.match: which assignment each submission is, from its notebooks' grade
ids first and its file names second; what belongs to none is listed, not graded."""

from __future__ import annotations

import json

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
