"""autograder.grading.ledger: the record of graded submissions that lets a run resume."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_the_graders_code_is_part_of_the_salt():
    """An upgraded grader (its code changed) must not reuse results it graded before: the
    fingerprint is nbgrader's version and the digest of autograder's and linlib's files
    (every file's name and bytes, caches aside: autograder.files.folder_digest, tested in
    test_files.py)."""
    import nbgrader

    import autograder
    import linlib
    from autograder.files import folder_digest
    from autograder.grading import grader_fingerprint

    roots = [Path(package.__file__).parent for package in (autograder, linlib)]
    assert grader_fingerprint() == f"nbgrader={nbgrader.__version__}|{folder_digest(*roots)}"


@pytest.mark.slow
def test_the_fingerprint_does_not_import_linlib():
    """The grader's process reads linlib's files, it does not import them (importing linlib
    imports scikit-learn: seconds of CPU in every run)."""
    import subprocess
    import sys

    from course_common.paths import REPO_ROOT

    code = (
        "import sys; from autograder.grading import grader_fingerprint; grader_fingerprint(); "
        "print(sorted(m for m in ('linlib', 'sklearn') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
