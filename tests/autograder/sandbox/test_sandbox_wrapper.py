"""The sandbox's first process (autograder/sandbox/wrapper.py), run here without a sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from autograder.sandbox.mounts import WRAPPER_SOURCE

REPORT = """
import json, os, resource
umask = os.umask(0)
print(json.dumps({
    "env": dict(os.environ),
    "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
    "core": resource.getrlimit(resource.RLIMIT_CORE),
    "umask": umask,
    "files": sorted(os.path.relpath(os.path.join(r, f)) for r, _, fs in os.walk(".") for f in fs),
}))
"""


def test_the_wrapper_copies_sets_limits_and_execs_with_exactly_the_given_environment(tmp_path):
    stage, work = tmp_path / "stage", tmp_path / "work"
    (stage / "sub").mkdir(parents=True)
    (stage / "data.csv").write_text("1,2\n")
    (stage / "sub" / "more.txt").write_text("x")
    (stage / "link").symlink_to(stage / "data.csv")
    work.mkdir()
    font = tmp_path / "fontlist-v390.json"
    font.write_text("{}")
    spec = {
        "uid": None,
        "stage": str(stage),
        "work": str(work),
        "copies": [[str(font), str(work / ".matplotlib")], [str(tmp_path / "absent"), "/nowhere"]],
        "rlimits": {"RLIMIT_NOFILE": 100, "RLIMIT_CORE": 0},
        "argv": [sys.executable, "-c", REPORT],
        "env": {"ONLY": "this"},
    }
    proc = subprocess.run(
        [sys.executable, "-I", "-S", WRAPPER_SOURCE, json.dumps(spec)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
        env={"GRADER_SECRET": "x", "PATH": os.environ.get("PATH", "")},
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert {k: v for k, v in got["env"].items() if k != "LC_CTYPE"} == {"ONLY": "this"}
    assert got["nofile"] == [100, 100] and got["core"] == [0, 0]
    assert got["umask"] == 0o077
    assert got["files"] == [".matplotlib/fontlist-v390.json", "data.csv", "sub/more.txt"]
