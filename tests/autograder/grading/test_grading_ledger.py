"""autograder.grading.ledger: the record of graded submissions that lets a run resume."""

from __future__ import annotations

from autograder.grading import Ledger


def test_ledger_survives_a_torn_line(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.record("a", "alice", "d1", {"scores": {}, "flags": []})
    with (tmp_path / "ledger.jsonl").open("a") as fh:
        fh.write('{"assignment": "a", "stud')  # interrupted mid-write
    again = Ledger(tmp_path / "ledger.jsonl")
    assert again.unreadable == [2]  # ignored, and said
    assert again.lookup("a", "alice", "d1") == {"scores": {}, "flags": []}
    assert again.lookup("a", "alice", "other digest") is None
    assert again.lookup("b", "alice", "d1") is None
    # the next record after the torn line is kept too (not glued onto the torn line)
    again.record("b", "bob", "d3", {"scores": {}, "flags": []})
    last = Ledger(tmp_path / "ledger.jsonl")
    assert last.lookup("b", "bob", "d3") == {"scores": {}, "flags": []}
    assert last.unreadable == [2]


def test_the_last_line_for_a_submission_wins(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.record("a", "alice", "d1", {"scores": {}, "flags": []})
    ledger.record("a", "alice", "d2", {"scores": {}, "flags": ["late"]})
    assert ledger.lookup("a", "alice", "d1") is None
    again = Ledger(tmp_path / "ledger.jsonl")
    assert again.lookup("a", "alice", "d1") is None
    assert again.lookup("a", "alice", "d2") == {"scores": {}, "flags": ["late"]}


def test_the_graders_code_is_part_of_the_salt(tmp_path):
    """An upgraded grader (its code changed) must not reuse results it graded before: the
    fingerprint follows every file's name and bytes, and caches do not count."""
    from autograder.files import folder_digest
    from autograder.grading import grader_fingerprint

    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    before = folder_digest(tmp_path / "pkg")
    (tmp_path / "pkg" / "__pycache__" / "a.pyc").write_bytes(b"cache")
    assert folder_digest(tmp_path / "pkg") == before
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")
    changed = folder_digest(tmp_path / "pkg")
    assert changed != before
    (tmp_path / "pkg" / "a.py").rename(tmp_path / "pkg" / "b.py")
    assert folder_digest(tmp_path / "pkg") not in (before, changed)
    assert grader_fingerprint().startswith("nbgrader=")
