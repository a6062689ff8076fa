"""The sandbox's first process: copy the submission in, set the rlimits, drop, exec the kernel.

Bubblewrap runs this file inside the sandbox (bound read-only, run with ``python -I -S``: no
site, no environment) with one argument, a JSON object (see :meth:`Sandbox.command`):
``uid`` (the sandbox's uid, or null without root), ``stage`` and ``work`` (where the
submission is mounted read-only and where it is copied to), ``copies`` (``[file, folder]``
pairs copied as well, best effort), ``rlimits`` (``{"RLIMIT_X": value}``), ``argv`` and
``env`` of the program to exec, and ``lifeline`` (or null): the read end of a pipe whose
write end only the grading process holds (see :func:`grader_gone`).

Self-contained on purpose: only the standard library; nothing of the project is importable
inside the sandbox. The warm box's template (:mod:`autograder.sandbox.warm_template`) loads
this file too, for :func:`copy_submission`, :func:`copy_extras` and :func:`confine`.
"""

import json
import os
import resource
import select
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


def confine(uid: int | None, work: str, rlimits: dict[str, int]) -> None:
    """Give *work* to *uid*, set the rlimits, drop to *uid* (every capability with root's
    identity), and make new files private."""
    if uid is not None:
        os.chown(work, uid, uid)
        os.chmod(work, 0o700)
    for name, value in rlimits.items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    os.umask(0o077)


def grader_gone(fd: int | None) -> bool:
    """True when the grader's end of the lifeline pipe *fd* is closed: it has died.

    Bubblewrap ties itself to the grader (``--die-with-parent``) before it lets this
    process run, but a grader that died between starting bubblewrap and that moment sends
    no signal: the pipe tells. (A descriptor that is not open is no lifeline.)
    """
    if fd is None:
        return False
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    for _fd, events in poller.poll(0):
        if events & select.POLLNVAL:
            return False
        if events & (select.POLLHUP | select.POLLERR | select.POLLIN):
            return True
    return False


def main(argv: list[str]) -> None:
    """Prepare the sandbox as *argv[1]* (JSON) says, then exec the program it names."""
    spec = json.loads(argv[1])
    uid = spec["uid"]
    work = spec["work"]
    copy_submission(spec["stage"], work, uid)
    copy_extras(spec.get("copies", []), uid)
    confine(uid, work, spec["rlimits"])
    lifeline = spec.get("lifeline")
    if grader_gone(lifeline):
        os._exit(1)
    if lifeline is not None:
        os.close(lifeline)
    program = spec["argv"]
    os.execve(program[0], program, spec["env"])


if __name__ == "__main__":
    main(sys.argv)
