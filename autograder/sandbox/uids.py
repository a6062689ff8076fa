"""Which uid a sandbox runs as, when the grader is root: a fresh random one (so that
``RLIMIT_NPROC`` counts only that sandbox), or ``nobody`` (65534) where fresh uids are not
mapped (a user-namespaced container). Which of the two works here is the probe's finding
(:func:`autograder.sandbox.probe.uid_mode`); ``AUTOGRADER_SANDBOX_UID`` forces one uid.
"""

from __future__ import annotations

import os
import secrets
from typing import Literal

__all__ = ["NOBODY", "UidMode", "sandbox_uid"]

UidMode = Literal["random", "nobody"]
NOBODY = 65534


def sandbox_uid(mode: UidMode | None = None) -> int:
    """A uid for a new sandbox (with root): one nobody else uses (*mode* ``"random"`` or
    None), or nobody's (``"nobody"``)."""
    forced = os.environ.get("AUTOGRADER_SANDBOX_UID")
    if forced:
        return int(forced)
    if mode == "nobody":
        return NOBODY
    return 1_000_000_000 + secrets.randbelow(1_000_000_000)
