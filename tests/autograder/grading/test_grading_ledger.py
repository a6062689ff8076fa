"""The ledger of graded submissions (autograder.grading.ledger)."""

from __future__ import annotations

from autograder.grading.ledger import Ledger


def test_ledger_survives_a_torn_line(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.record("a", "alice", "d1", {"scores": {}, "flags": []})
    with (tmp_path / "ledger.jsonl").open("a") as fh:
        fh.write('{"assignment": "a", "stud')  # interrupted mid-write
    again = Ledger(tmp_path / "ledger.jsonl")
    assert again.lookup("a", "alice", "d1") == {"scores": {}, "flags": []}
    assert again.lookup("a", "alice", "other digest") is None
