"""The sandbox's first process: copy the submission in, set the rlimits, drop, exec the kernel.

Bubblewrap runs this file inside the sandbox (bound read-only, run with ``python -I -S``: no
site, no environment) with one argument, a JSON object (see :meth:`Sandbox.command`):
``uid`` (the sandbox's uid, or null without root), ``stage`` and ``work`` (where the
submission is mounted read-only and where it is copied to), ``copies`` (``[file, folder]``
pairs copied as well, best effort), ``rlimits`` (``{"RLIMIT_X": value}``), ``argv`` and
``env`` of the program to exec.

Self-contained on purpose: only the standard library; nothing of the project is importable
inside the sandbox.
"""

import json
import os
import resource
import shutil
import sys


def copy_submission(stage: str, work: str, uid: int | None) -> None:
    """Copy the staged files (regular files only) into the working directory."""
    if not os.path.isdir(stage):
        return
    for root, _dirs, files in os.walk(stage):
        rel = os.path.relpath(root, stage)
        dest = os.path.normpath(os.path.join(work, rel))
        os.makedirs(dest, exist_ok=True)
        if uid is not None:
            os.chown(dest, uid, uid)
        for name in files:
            src = os.path.join(root, name)
            if os.path.islink(src) or not os.path.isfile(src):
                continue
            shutil.copyfile(src, os.path.join(dest, name))
            if uid is not None:
                os.chown(os.path.join(dest, name), uid, uid)


def copy_extras(copies: list[list[str]], uid: int | None) -> None:
    """Copy each ``[file, folder]`` pair; a failure only loses that copy."""
    for src, dest_dir in copies:
        try:
            os.makedirs(dest_dir, exist_ok=True)
            dest = os.path.join(dest_dir, os.path.basename(src))
            shutil.copyfile(src, dest)
            if uid is not None:
                os.chown(dest_dir, uid, uid)
                os.chown(dest, uid, uid)
        except OSError:
            pass


def main(argv: list[str]) -> None:
    """Prepare the sandbox as *argv[1]* (JSON) says, then exec the program it names."""
    spec = json.loads(argv[1])
    uid = spec["uid"]
    work = spec["work"]
    copy_submission(spec["stage"], work, uid)
    copy_extras(spec.get("copies", []), uid)
    if uid is not None:
        os.chown(work, uid, uid)
        os.chmod(work, 0o700)
    for name, value in spec["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    os.umask(0o077)
    program = spec["argv"]
    os.execve(program[0], program, spec["env"])


if __name__ == "__main__":
    main(sys.argv)
