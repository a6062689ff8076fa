"""The library's messages: its modules log them (``logging.getLogger(__name__)``), the
command line shows them on stderr (``autograder.__main__.show_messages``) — a warning as
``note: ...``, the rest as they are — as they were printed before they were logged."""

from __future__ import annotations

import logging
import subprocess
import sys

from autograder.__main__ import show_messages
from autograder.course.lock import hold


def test_the_command_line_shows_info_as_it_is_and_a_warning_as_a_note(capsys):
    show_messages()
    show_messages()  # main() calls it on every run: one handler all the same
    logging.getLogger("autograder.course.lock").info("waiting for %s", "the other run")
    logging.getLogger("autograder.api").warning("the ledger has %d unreadable line(s)", 1)
    logging.getLogger("autograder.sandbox.warm").debug("not shown")
    logging.getLogger("elsewhere").warning("not the autograder's")
    err = capsys.readouterr().err
    assert err.startswith("waiting for the other run\nnote: the ledger has 1 unreadable line(s)\n")
    assert "not shown" not in err


def test_waiting_for_the_course_is_logged(tmp_path, caplog):
    """The lock's default ``on_wait`` logs its words (the command line shows them)."""
    root = tmp_path / "course"
    root.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from autograder.course.lock import hold\n"
            "from pathlib import Path\n"
            "with hold(Path(sys.argv[1])):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(0.3)\n",
            str(root),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with caplog.at_level(logging.INFO, logger="autograder"), hold(root):
            pass
    finally:
        holder.wait(timeout=30)
    (record,) = [r for r in caplog.records if r.name == "autograder.course.lock"]
    assert record.levelno == logging.INFO
    assert record.getMessage() == (
        f"waiting for the other run using the course folder course/ (process {holder.pid}) "
        "to finish"
    )
