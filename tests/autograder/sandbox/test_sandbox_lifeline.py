"""The lifeline: a sandbox whose grader is already gone does not start its program.

Bubblewrap ties itself to the grader (``--die-with-parent``) before the wrapper runs; a
grader that died before that sends no signal, so the wrapper checks the grader's end of a
pipe (autograder/sandbox/wrapper.py ``grader_gone``, autograder/sandbox/box.py
``lifeline_fd``). Here the grader's end is closed (gone) or kept open (alive), through real
bubblewrap.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autograder.sandbox import box as box_module
from autograder.sandbox import new_sandbox

pytestmark = pytest.mark.needs_sandbox


@pytest.mark.parametrize("grader_alive", [True, False], ids=["alive", "gone"])
def test_the_program_starts_only_while_the_grader_holds_its_end(monkeypatch, grader_alive):
    read_end, write_end = os.pipe()
    if not grader_alive:
        os.close(write_end)
    monkeypatch.setattr(box_module, "lifeline_fd", lambda: read_end)
    box = new_sandbox()
    try:
        code = "import json, os; print(json.dumps(os.listdir('/proc/self/fd')))"
        cmd, kw = box.popen_kwargs(box.command([sys.executable, "-c", code]))
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **kw
        )
        box.close_launch_fds()
    finally:
        box.cleanup()
        os.close(read_end)
        if grader_alive:
            os.close(write_end)
    if grader_alive:
        assert proc.returncode == 0, proc.stderr
        # the program ran, without the lifeline (the wrapper closed it)
        assert str(read_end) not in json.loads(proc.stdout)
    else:
        assert proc.returncode == 1
        assert proc.stdout == ""
