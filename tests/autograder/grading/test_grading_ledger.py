"""autograder.grading.ledger: the record of graded submissions that lets a run resume."""

from __future__ import annotations

from autograder.grading import Ledger


def test_ledger_survives_a_torn_line(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.record("a", "alice", "d1", {"scores": {}, "flags": []})
    with (tmp_path / "ledger.jsonl").open("a") as fh:
        fh.write('{"assignment": "a", "stud')  # interrupted mid-write
    again = Ledger(tmp_path / "ledger.jsonl")
    assert again.lookup("a", "alice", "d1") == {"scores": {}, "flags": []}
    assert again.lookup("a", "alice", "other digest") is None
    assert again.lookup("b", "alice", "d1") is None
    # the next record after the torn line is kept too (not glued onto the torn line)
    again.record("b", "bob", "d3", {"scores": {}, "flags": []})
    assert Ledger(tmp_path / "ledger.jsonl").lookup("b", "bob", "d3") == {"scores": {}, "flags": []}


def test_the_last_line_for_a_submission_wins(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.record("a", "alice", "d1", {"scores": {}, "flags": []})
    ledger.record("a", "alice", "d2", {"scores": {}, "flags": ["late"]})
    assert ledger.lookup("a", "alice", "d1") is None
    again = Ledger(tmp_path / "ledger.jsonl")
    assert again.lookup("a", "alice", "d1") is None
    assert again.lookup("a", "alice", "d2") == {"scores": {}, "flags": ["late"]}
