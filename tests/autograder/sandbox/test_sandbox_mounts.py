"""The bubblewrap argument list (autograder/sandbox/mounts.py), read without running it."""

from __future__ import annotations

import linlib
from autograder.sandbox import Limits
from autograder.sandbox.mounts import (
    STAGE_DIR,
    WORK_DIR,
    WRAPPER_PATH,
    WRAPPER_SOURCE,
    bwrap_arguments,
    is_within,
    python_paths,
)

MiB = 1024 * 1024


def arguments(tmp_path, privileged: bool) -> list[str]:
    args, _ = bwrap_arguments(
        "bwrap",
        Limits(tmp_size=7 * MiB, scratch_size=9 * MiB),
        privileged=privileged,
        extra_ro_paths=[],
        stage_dir=tmp_path / "stage",
        run_dir=tmp_path / "run",
    )
    return args


def triples(args: list[str], option: str) -> list[tuple[str, str]]:
    return [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == option]


def test_what_is_bound_and_how(tmp_path):
    args = arguments(tmp_path, privileged=True)
    ro = {dest: src for src, dest in triples(args, "--ro-bind")}
    assert ro["/usr"] == "/usr" and ro["/etc"] == "/etc"
    assert ro[WRAPPER_PATH] == WRAPPER_SOURCE and ro[STAGE_DIR] == str(tmp_path / "stage")
    assert triples(args, "--bind") == [(str(tmp_path / "run"), str(tmp_path / "run"))]
    assert any(is_within(linlib.__path__[0], dest) for dest in ro)
    assert args[-3:] == ["--chdir", WORK_DIR, "--clearenv"]
    sizes = {args[i + 1]: args[i - 3] for i, a in enumerate(args) if a == "--tmpfs"}
    assert sizes == {"/dev/shm": str(32 * MiB), "/tmp": str(7 * MiB), WORK_DIR: str(9 * MiB)}
    assert "--unshare-user" not in args and "--unshare-net" in args


def test_the_private_tmp_is_mounted_before_pythons_folders(tmp_path):
    args = arguments(tmp_path, privileged=False)
    tmp_at = args.index("--tmpfs", args.index("/dev/shm") + 1)
    assert args[tmp_at + 1] == "/tmp"
    for path in python_paths():
        if path in args:
            assert args.index(path) > tmp_at, path
    assert "--unshare-user" in args and "--disable-userns" in args


def test_is_within_is_a_path_prefix_not_a_string_prefix():
    assert is_within("/usr/lib", "/usr") and is_within("/usr", "/usr")
    assert not is_within("/usr2", "/usr")
