"""What a test needs of the machine, and what happens without it: the grading sandbox
(bubblewrap), Debian's chromium, a PostgreSQL server, strace, the lecture's npm assets.
``./run test`` installs each of them (as root). Without one, a test is skipped on a
developer's machine and FAILS in CI (``CI`` set): a green CI must never hide a test that did
not run, nor a test that ran on another system (``--unsandboxed`` in the sandbox's place).

- :func:`require`: skip, or fail in CI, when a condition does not hold;
- the marker ``needs_sandbox`` (``tests/conftest.py`` applies it): the test needs the
  sandbox to start here;
- :func:`sandbox_args`: ``--unsandboxed`` where the sandbox cannot start, on a developer's
  machine only (in CI the grader refuses to run, and the test fails).
"""

from __future__ import annotations

import functools
import os

import pytest

#: CI runs every test (``./run test`` installed what they need).
IN_CI = bool(os.environ.get("CI"))


def require(condition: bool, reason: str) -> None:
    """Skip the test when *condition* is false, except in CI, where it fails."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI runs every test: ./run test installs what it needs)")
    pytest.skip(reason)


@functools.cache
def sandbox_reason() -> str | None:
    """Why the grading sandbox cannot start here (None: it can); probed once."""
    from autograder.sandbox import sandbox_unavailable_reason

    return sandbox_unavailable_reason()


def require_sandbox() -> None:
    """The test needs the grading sandbox (skipped without it, failed in CI)."""
    reason = sandbox_reason()
    require(reason is None, f"no sandbox: {reason}")


def sandbox_args() -> list[str]:
    """The grader's arguments for a test that grades sandboxed where it can: none, or
    ``--unsandboxed`` where the sandbox cannot start, except in CI."""
    return [] if sandbox_reason() is None or IN_CI else ["--unsandboxed"]
