"""Warm sandboxed kernels keep one student from the next (issue 13).

Real sandboxed grading (``grade_prepared`` with one worker, so every notebook's kernel
comes from the same warm box, one after another) of a small class of the first assignment.
Student A's first answer leaves behind everything it can: files in the working folder,
``/tmp`` and ``/dev/shm``, a SysV shared-memory segment and message queue, a POSIX
semaphore, a daemon (double fork, new session) listening on 127.0.0.1, a changed
environment variable and module attribute (``numpy.pi``, ``sys.modules``); and it sends
SIGKILL to PID 1 and to every other process it can see. The students graded after it in the
same worker look for all of that and write what they find into their answer's output; an
answer that finds anything raises, and loses its points. Each also records whether its
kernel came from the warm box (the kernel's PID 1 is the box's template, forked).

The two tests: A's attack changes nothing for the next students, whose kernels still come
from the (surviving) warm box; and a warm box killed from outside while the class grades
costs nothing either (that notebook's kernel starts cold, the box starts again, the next
kernels are warm).
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import nbformat
import psutil
import pytest

from autograder.course import Course, list_assignments
from autograder.release import ensure_released
from autograder.samples import make_submission, solution_sources
from tests.autograder.grading_helpers import grade_notebooks

ASSIGNMENTS = list_assignments()

pytestmark = [
    pytest.mark.skipif(not ASSIGNMENTS, reason="no course notebooks yet"),
    pytest.mark.needs_sandbox,
]

PORT = 47013
TOKEN = "left-by-student-a"

#: Student A: leave everything behind, then try to kill every process in sight.
LEAVE = f"""\
import ctypes as _c, os as _os, signal as _signal, sys as _sys, time as _time
import numpy as _np
_libc = _c.CDLL(None, use_errno=True)
for _path in ("left.txt", "/tmp/left.txt", "/dev/shm/left"):
    with open(_path, "w") as _fh:
        _fh.write("A was here")
_libc.shmget(0xA11CE, 4096, 0o1666)
_libc.msgget(0xA11CE, 0o1666)
_libc.sem_open.restype = _c.c_void_p
_libc.sem_open(b"/left-by-a", 0o100, 0o666, 1)
_os.environ["LEFT_BY_A"] = "1"
_np.pi = 3
_sys.modules["json"] = None
_me = _os.getpid()
for _pid in [int(_p) for _p in _os.listdir("/proc") if _p.isdigit()]:
    if _pid != _me:
        try:
            _os.kill(_pid, _signal.SIGKILL)
        except OSError:
            pass
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execv(_sys.executable, [_sys.executable, "-c",
            "import socket, time\\n"
            "s = socket.socket(); s.bind(('127.0.0.1', {PORT})); s.listen()\\n"
            "while True: time.sleep(1)", "{TOKEN}"])
    _os._exit(0)
_time.sleep(1)
"""

#: The next students: look for all of it, say what was found, lose the answer if anything.
FIND = f"""\
import ctypes as _c, os as _os, socket as _socket, sys as _sys
import numpy as _np
_libc = _c.CDLL(None, use_errno=True)
_found = [_p for _p in ("left.txt", "/tmp/left.txt", "/dev/shm/left") if _os.path.exists(_p)]
_found += ["shm"] if _libc.shmget(0xA11CE, 0, 0) >= 0 else []
_found += ["msg"] if _libc.msgget(0xA11CE, 0) >= 0 else []
_found += ["sem"] if _os.path.exists("/dev/shm/sem.left-by-a") else []
_found += ["env"] if "LEFT_BY_A" in _os.environ else []
_found += ["numpy.pi"] if _np.pi != 3.141592653589793 else []
_found += ["sys.modules"] if _sys.modules.get("json") is None else []
for _pid in [_p for _p in _os.listdir("/proc") if _p.isdigit()]:
    try:
        with open(f"/proc/{{_pid}}/cmdline", "rb") as _fh:
            if b"{TOKEN}" in _fh.read():
                _found.append("process")
    except OSError:
        pass
try:
    _socket.create_connection(("127.0.0.1", {PORT}), timeout=1).close()
    _found.append("socket")
except OSError:
    pass
with open("/proc/1/cmdline", "rb") as _fh:
    _warm = b"sandbox-warm" in _fh.read()
print(f"NEXT-STUDENT warm={{_warm}} found={{sorted(set(_found))}}")
if _found:
    raise RuntimeError(f"left by the student before: {{_found}}")
"""

RECORD = re.compile(r"NEXT-STUDENT warm=(True|False) found=(\[.*?\])")


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, str]:
    """A course with the first assignment released."""
    assignment = ASSIGNMENTS[0]
    course_dir = tmp_path_factory.mktemp("warm") / "course"
    ensure_released(Course(course_dir), [assignment])
    return course_dir, assignment


def _class(course_dir: Path, assignment: str, prefixes: dict[str, str]) -> dict:
    """student -> notebooks: the solution, with each student's prefix before the first code
    answer."""
    release_nb = course_dir / "release" / assignment / f"{assignment}.ipynb"
    source_nb = course_dir / "source" / assignment / f"{assignment}.ipynb"
    source = nbformat.read(source_nb, as_version=4)
    code_ids = {
        c.metadata["nbgrader"]["grade_id"]
        for c in source.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
    }
    grade_id, answer = next((k, v) for k, v in solution_sources(source).items() if k in code_ids)
    return {
        student: {assignment: make_submission(release_nb, source_nb, {grade_id: prefix + answer})}
        for student, prefix in prefixes.items()
    }


def _full_points(course_dir: Path, assignment: str) -> float:
    nb = nbformat.read(course_dir / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return sum(
        float(c.metadata["nbgrader"].get("points", 0))
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )


def _record(course_dir: Path, assignment: str, student: str) -> tuple[bool, str]:
    """(warm, found) as the student's graded notebook printed them."""
    nb = nbformat.read(
        course_dir / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4
    )
    text = "".join(
        out.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    match = RECORD.search(text)
    assert match is not None, f"{student} printed no record"
    return match.group(1) == "True", match.group(2)


@pytest.mark.slow
def test_the_next_students_find_nothing_and_the_box_survives(released):
    course_dir, assignment = released
    students = {"a_hostile": LEAVE, "b_next": FIND, "c_next": FIND, "d_honest": ""}
    results = grade_notebooks(
        course_dir, assignment, _class(course_dir, assignment, students), workers=1, sandbox=True
    )
    full = _full_points(course_dir, assignment)
    assert full > 0
    assert results["a_hostile"].ok
    for student in ("b_next", "c_next", "d_honest"):
        assert results[student].ok and results[student].autograded_score == full, results[student]
    for student in ("b_next", "c_next"):
        warm, found = _record(course_dir, assignment, student)
        assert found == "[]"
        assert warm, f"{student}'s kernel did not come from the warm box"
    assert not [
        p for p in psutil.process_iter(["cmdline"]) if TOKEN in " ".join(p.info["cmdline"] or [])
    ]


@pytest.mark.slow
def test_a_box_killed_while_the_class_grades_costs_nothing(released):
    course_dir, assignment = released
    students = {f"s{i}_next": FIND for i in range(4)}
    killed: list[int] = []
    stop = threading.Event()

    def kill_the_first_box() -> None:
        me = psutil.Process()
        while not stop.is_set() and not killed:
            for proc in me.children(recursive=True):  # this test's boxes only
                try:
                    cmdline = proc.cmdline()
                    if proc.name() == "bwrap" and "/run/sandbox-warm.py" in cmdline:
                        time.sleep(0.5)  # let it get going (it may be making a kernel)
                        proc.kill()
                        killed.append(proc.pid)
                        break
                except psutil.Error:
                    continue
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_first_box, daemon=True)
    killer.start()
    try:
        results = grade_notebooks(
            course_dir,
            assignment,
            _class(course_dir, assignment, students),
            workers=1,
            sandbox=True,
        )
    finally:
        stop.set()
        killer.join(timeout=5)
    assert killed, "no warm box was seen"
    full = _full_points(course_dir, assignment)
    for student in students:
        assert results[student].ok and results[student].autograded_score == full, results[student]
        assert _record(course_dir, assignment, student)[1] == "[]"
    # the box was started again: the last student's kernel is warm
    assert _record(course_dir, assignment, "s3_next")[0]
