"""Hostile submissions of a real course notebook, graded in one sandboxed batch.

Every attack of :mod:`tests.autograder.attacks` is added to a buggy sample answer and graded next to
honest submissions with ``tests.autograder.grading_helpers.grade_notebooks(sandbox=True)``.
The whole batch runs with small limits (10 s per cell, 1 GiB for a notebook's processes)
so that the attacks that must be stopped are stopped quickly.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sqlite3
import threading
import time
from pathlib import Path

import nbformat
import pytest

from autograder.course import Course
from autograder.grading.safe_execute import ENV_CONFIG
from autograder.samples import VARIANTS, make_submission, solution_sources
from course_common.paths import REPO_ROOT
from tests.autograder.attacks import ATTACKS, AttackContext, function_name, pick_variant
from tests.autograder.grading_helpers import grade_notebooks

pytestmark = pytest.mark.needs_sandbox

REPO = REPO_ROOT
NOTEBOOKS = REPO / "notebooks"
CANDIDATES = [a for a in sorted(VARIANTS) if (NOTEBOOKS / a / f"{a}.ipynb").is_file()]
# The lightest notebook when it is there: the battery grades it 15 times.
ASSIGNMENT = (
    "04_naive_bayes_linear"
    if "04_naive_bayes_linear" in CANDIDATES
    else next(iter(CANDIDATES), None)
)

#: The batch's limits: quick to hit, roomy for honest notebooks.
LIMITS = {
    "timeout": 10,
    "interrupt_grace": 2,
    "recheck_call_timeout": 5,
    "notebook_timeout": 120,
    "sandbox_limits": {"total_memory": 1024**3, "address_space": 3 * 1024**3},
}
BATCH_SECONDS = 420  # generous: the machine may be shared while the suite runs

WARNING_ANSWER = """
import sys as _sys
import warnings as _warnings

_quiet_{name} = {name}


def {name}(*args, **kwargs):
    _warnings.warn("a harmless warning from a correct answer")
    print("debug output on stderr", file=_sys.stderr)
    return _quiet_{name}(*args, **kwargs)
"""


class _Server:
    """A TCP server on the grader's loopback that records every connection."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(1024) or b"<connected>")
                except OSError:
                    self.received.append(b"<connected>")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def _processes_with(text: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if text.encode() in fh.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _uid_processes(uids: set[int]) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid in uids:
                    found.append(int(entry))
            except OSError:
                continue
    return found


def _hidden_lines(source_nb) -> list[str]:
    """Distinctive lines that occur only inside hidden-test regions."""
    hidden_lines, visible_lines = set(), set()
    for cell in source_nb.cells:
        hidden = False
        for line in cell.source.split("\n"):
            if "BEGIN HIDDEN TESTS" in line:
                hidden = True
            elif "END HIDDEN TESTS" in line:
                hidden = False
            else:
                (hidden_lines if hidden else visible_lines).add(line.strip())
    return sorted(
        line
        for line in hidden_lines - visible_lines
        if len(line) > 25 and not any(line in v for v in visible_lines)
    )


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    if ASSIGNMENT is None:
        pytest.skip("no course notebook with sample variants yet")
    root = tmp_path_factory.mktemp("hostile")
    graded_course = Course(root / "course").make([ASSIGNMENT])
    course = graded_course.root
    release = graded_course.release(ASSIGNMENT)
    source_nb = nbformat.read(str(NOTEBOOKS / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    release_nb = nbformat.read(str(release / f"{ASSIGNMENT}.ipynb"), as_version=4)
    variant = pick_variant(VARIANTS[ASSIGNMENT])
    answer_id = next(iter(variant.replace))
    function = function_name(solution_sources(source_nb)[answer_id])
    test_ids = tuple(
        c.metadata["nbgrader"]["grade_id"]
        for c in source_nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
        and c.cell_type == "code"
    )
    marker = "agmark" + secrets.token_hex(6)
    server = _Server()
    ctx = AttackContext(
        release_nb=release_nb,
        source_nb=source_nb,
        variant=variant,
        answer_id=answer_id,
        function=function,
        test_ids=test_ids,
        lost=tuple(sorted(variant.lost)),
        paths={
            "course": str(course),
            "gradebook": str(course / "gradebook.db"),
            "autograded": str(course / "autograded"),
            "repo_notebooks": str(NOTEBOOKS),
        },
        port=server.port,
        marker=marker,
    )
    solutions = solution_sources(source_nb)
    warnings_answer = solutions[answer_id] + WARNING_ANSWER.format(name=function)
    submissions = {
        "honest_source": {ASSIGNMENT: make_submission(release_nb, source_nb)},
        "honest_buggy": {ASSIGNMENT: ctx.base()},
        "honest_warnings": {
            ASSIGNMENT: make_submission(release_nb, source_nb, {answer_id: warnings_answer})
        },
    }
    for attack in ATTACKS:
        submissions[f"attack_{attack.name}"] = {ASSIGNMENT: attack.build(ctx)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ENV_CONFIG, json.dumps(LIMITS))
        start = time.monotonic()
        results = grade_notebooks(course, ASSIGNMENT, submissions, sandbox=True, workers=2)
        elapsed = time.monotonic() - start
    time.sleep(0.5)
    server.close()
    graded = {}
    for student in submissions:
        path = course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        graded[student] = path
    return {
        "ctx": ctx,
        "course": course,
        "results": results,
        "elapsed": elapsed,
        "received": list(server.received),
        "graded": graded,
        "hidden_lines": _hidden_lines(source_nb),
    }


def _scores(batch, student):
    return batch["results"][student].scores


@pytest.mark.slow
def test_honest_submissions_graded_correctly(batch):
    ctx = batch["ctx"]
    full = _scores(batch, "honest_source")
    assert full and all(score == points for score, points in full.values()), full
    warned = _scores(batch, "honest_warnings")
    assert warned == full, "a correct answer that warns must keep every point"
    buggy = _scores(batch, "honest_buggy")
    lost = {g for g, (s, m) in buggy.items() if s < m}
    assert lost == set(ctx.lost)


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_gains_nothing(batch, attack):
    honest = _scores(batch, "honest_buggy")
    got = _scores(batch, f"attack_{attack.name}")
    assert set(got) == set(honest), "every test cell is scored"
    for grade_id, (score, _points) in got.items():
        assert score <= honest[grade_id][0], f"{grade_id}: {score} > honest {honest[grade_id]}"
    for grade_id in batch["ctx"].lost:
        assert got[grade_id][0] == 0, f"{grade_id} must stay lost"


@pytest.mark.slow
@pytest.mark.parametrize(
    "attack",
    [a for a in ATTACKS if not a.kills_kernel and a.name not in ("fork_bomb", "endless_function")],
    ids=lambda a: a.name,
)
def test_attack_that_leaves_the_kernel_alone_changes_no_score(batch, attack):
    assert _scores(batch, f"attack_{attack.name}") == _scores(batch, "honest_buggy")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_flagged(batch, attack):
    import re

    flags = batch["results"][f"attack_{attack.name}"].flags
    for pattern in attack.extra.get("all_flags", (attack.flag,)):
        assert any(re.search(pattern, flag) for flag in flags), (pattern, flags)


@pytest.mark.slow
def test_nothing_escaped_the_sandbox(batch):
    ctx = batch["ctx"]
    assert batch["received"] == [], "the sandbox reached the grader's loopback"
    for student, path in batch["graded"].items():
        nb = nbformat.read(str(path), as_version=4)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                text = json.dumps(output)
                for word in ("FOUND", "WROTE", "CONNECTED", "HIDDEN"):
                    assert word not in text, f"{student}: {word} in {text[:300]}"
    assert not list(Path(batch["course"]).rglob(f"{ctx.marker}*"))
    assert not list(NOTEBOOKS.rglob(f"{ctx.marker}*"))
    assert not Path(f"/tmp/{ctx.marker}-escape.txt").exists()
    with sqlite3.connect(ctx.paths["gradebook"]) as db:
        manual = db.execute("select count(*) from grade where manual_score is not null").fetchone()
    assert manual == (0,)


@pytest.mark.slow
def test_hidden_test_source_never_reaches_a_kernel(batch):
    lines = batch["hidden_lines"]
    assert lines
    for student, path in batch["graded"].items():
        nb = nbformat.read(str(path), as_version=4)
        outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
        for line in lines:
            assert line not in outputs, f"{student}: hidden test source in an output"


@pytest.mark.slow
def test_no_process_left_behind(batch):
    assert _processes_with(batch["ctx"].marker) == []
    uids = set()
    for path in batch["graded"].values():
        nb = nbformat.read(str(path), as_version=4)
        uid = nb.metadata.get("autograder", {}).get("sandbox", {}).get("uid")
        if uid is not None:
            uids.add(uid)
    if os.geteuid() == 0:
        assert len(uids) == len(batch["graded"]), "each notebook ran as its own uid"
    assert _uid_processes(uids) == []


@pytest.mark.slow
def test_output_is_capped(batch):
    path = batch["graded"]["attack_huge_output"]
    assert path.stat().st_size < 8 * 1024 * 1024
    assert "[output truncated by the autograder]" in path.read_text()


@pytest.mark.slow
def test_batch_finishes_in_bounded_time(batch):
    assert batch["elapsed"] < BATCH_SECONDS, batch["elapsed"]
    for student, result in batch["results"].items():
        assert result.ok, f"{student}: {result.error[:500]}"
