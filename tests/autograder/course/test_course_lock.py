"""autograder.course.lock through Course.lock: one run at a time in a course folder, the
operating system's lock, re-entrant in its thread."""

from __future__ import annotations

import pytest

from autograder.course import Course

_HOLD = (
    "import sys, time\n"
    "from autograder.course import Course\n"
    "with Course(sys.argv[1]).lock():\n"
    "    print('held', flush=True)\n"
    "    time.sleep(float(sys.argv[2]))\n"
)


def _holder(course_dir, seconds: float = 600):
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(course_dir), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "held"
    return process


@pytest.mark.slow
def test_a_course_held_by_another_process_refuses_or_waits(tmp_path):
    """Course.lock is the operating system's lock: another process that holds it makes a
    run without ``wait`` fail at once (CourseBusy, with that process's id), and a run with
    ``wait`` say so (with the id) and go on once it is let go."""
    import time

    import pytest

    from autograder.models import CourseBusy

    course = Course(tmp_path / "c")
    holder = _holder(course.root, seconds=2)
    held_at = time.monotonic()
    try:
        with pytest.raises(CourseBusy) as refused:
            with course.lock(wait=False):
                pass
        assert refused.value.pid == holder.pid
        assert f"(process {holder.pid})" in str(refused.value)
        waited: list = []
        with course.lock(on_wait=waited.append):
            assert waited == [holder.pid]
            assert time.monotonic() - held_at > 1.5  # not before the other let it go
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.slow
def test_a_killed_holder_leaves_no_lock(tmp_path):
    """A run killed with SIGKILL cannot clean up: its lock goes with it, and the lock file it
    leaves (holding its process id) is no obstacle."""
    course = Course(tmp_path / "c")
    holder = _holder(course.root)
    holder.kill()
    holder.wait()
    assert (course.root / ".lock").read_text().strip() == str(holder.pid)
    with course.lock(wait=False):
        assert (course.root / ".lock").read_text().strip() == str(__import__("os").getpid())


def test_the_lock_is_reentrant_in_its_thread(tmp_path):
    """A use case that calls another (the demo grades) takes the course once; another
    thread of the same process still waits for it."""
    import threading

    course = Course(tmp_path / "c")
    order: list[str] = []

    def other_thread() -> None:
        with course.lock(on_wait=lambda pid: order.append(f"waits for {pid}")):
            order.append("t")

    with course.lock(wait=False):
        with Course(tmp_path / "c").lock(wait=False):
            order.append("nested")
        other = threading.Thread(target=other_thread)
        other.start()
        other.join(0.5)
        assert other.is_alive()  # waiting for this thread
    other.join(5)
    assert order == ["nested", f"waits for {__import__('os').getpid()}", "t"]
