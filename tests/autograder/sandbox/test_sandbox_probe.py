"""The probe (autograder/sandbox/probe.py): why a sandbox cannot start, and the sandbox's uid.

The sandbox and hostile-submission tests skip themselves on a machine without bubblewrap (a
developer without root). That skip must never hide a sandbox that is installed but broken —
as happened once for a checkout under /tmp, whose .venv the sandbox's private /tmp covered.
In CI (``CI`` set) the sandbox is required outright: ``./run`` installs bubblewrap there.
"""

from __future__ import annotations

import os
import shutil

import pytest

from autograder.models import GradingError, SandboxUnavailable
from autograder.sandbox import new_sandbox, probe, sandbox_unavailable_reason, uids


def test_sandbox_starts_wherever_bubblewrap_is_installed():
    """Where bwrap exists (always in CI), the sandbox probe must succeed."""
    if shutil.which("bwrap") is None and not os.environ.get("CI"):
        pytest.skip("bubblewrap is not installed here; ./run installs it when run as root")
    assert sandbox_unavailable_reason() is None


@pytest.mark.needs_sandbox
def test_unavailable_reason_names_the_missing_tool(monkeypatch):
    probe.clear_cache()
    try:
        monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
        reason = sandbox_unavailable_reason()
        assert reason is not None and "bubblewrap" in reason
    finally:
        monkeypatch.undo()
        probe.clear_cache()
    assert sandbox_unavailable_reason() is None


@pytest.mark.needs_sandbox
def test_the_probe_leaves_the_environment_alone():
    before = dict(os.environ)
    probe.clear_cache()
    try:
        assert sandbox_unavailable_reason() is None
    finally:
        probe.clear_cache()
    assert dict(os.environ) == before


def test_the_uid_follows_the_mode_and_the_override(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SANDBOX_UID", raising=False)
    assert uids.sandbox_uid("nobody") == 65534
    fresh = {uids.sandbox_uid("random") for _ in range(5)}
    assert all(1_000_000_000 <= uid < 2_000_000_000 for uid in fresh) and len(fresh) > 1
    monkeypatch.setenv("AUTOGRADER_SANDBOX_UID", "4242")
    assert uids.sandbox_uid("random") == 4242


@pytest.mark.needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="without root the sandbox has no uid of its own")
def test_new_sandbox_uses_the_mode_the_probe_found(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_SANDBOX_UID", raising=False)
    mode = probe.uid_mode()
    box = new_sandbox()
    try:
        if mode == "nobody":
            assert box.uid == 65534
        else:
            assert box.uid is not None and box.uid >= 1_000_000_000
    finally:
        box.cleanup()


@pytest.mark.parametrize(
    ("error", "hint"),
    [
        (SandboxUnavailable("the grading sandbox cannot start: no bwrap"), True),
        # another failure of the grader whose words mention the sandbox gets no such advice
        (GradingError("the sandbox's folder could not be removed"), False),
    ],
)
def test_the_command_line_advises_unsandboxed_when_the_sandbox_cannot_start(
    monkeypatch, capsys, tmp_path, error, hint
):
    """The refusal of :func:`~autograder.sandbox.resolve_sandbox` (its type, not its words)
    is what the command line answers with ``--unsandboxed``."""
    import autograder.api
    from autograder.__main__ import main

    def refuses(*args, **kwargs):
        raise error

    monkeypatch.setattr(autograder.api, "grade_path", refuses)
    assert main(["grade", str(tmp_path), "--course", str(tmp_path / "course")]) == 1
    err = capsys.readouterr().err
    assert str(error) in err
    assert ("pass --unsandboxed to grade without it" in err) == hint
