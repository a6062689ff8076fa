"""The shell commands the documentation tells its reader to type, and a copy of the repository
to type them in.

Every fenced block of ``README.md`` and ``docs/**/*.md`` whose language is ``bash``, ``sh``,
``shell`` or ``console`` is a block of commands (for ``console``, the lines that start with
``$ ``). An HTML comment right before the block, invisible on the rendered page, says how the
test runs it::

    <!-- docs-test: slow; skip `./run test`: the whole suite, which this test is part of -->

Its directives, separated by ``;`` (a reason may hold a ``;`` not followed by a directive's
name):

- ``slow``: the block takes more than a few seconds (the slow tier runs it);
- ``skip: REASON``: the block is not run, for the reason given (a remote machine, a real LMS,
  the interactive JupyterLab);
- ``skip `COMMAND`: REASON``: that command of the block is not run;
- ``server: TEXT``: the block's last command starts a server; it passes once the server's
  output shows TEXT, and is stopped then.

A block without a comment is run in the fast tier and must finish within
:data:`FAST_TIMEOUT` seconds. Blocks run in the order of :func:`documents` (the README, then
``docs/`` by path; in two chains, :func:`chain_of`), each as one bash script
(``set -euo pipefail``) from the root of a copy of the repository, with the project's
environment activated (``VIRTUAL_ENV``, ``.venv/bin`` first on ``PATH``), as a reader who
followed the documents from the top would type them.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from course_common.paths import REPO_ROOT

ROOT = REPO_ROOT
SHELLS = frozenset({"bash", "sh", "shell", "console"})
#: Seconds a block of the fast tier may take; longer ones are marked ``slow``.
FAST_TIMEOUT = 30
#: Seconds any block may take.
SLOW_TIMEOUT = 1800
#: Seconds a server may take to show that it started.
SERVER_TIMEOUT = 120

_COMMENT = re.compile(r"^<!--\s*docs-test:(?P<body>.*?)-->\s*$", re.S)
_SKIP_ONE = re.compile(r"^skip\s+`(?P<command>[^`]+)`\s*:\s*(?P<reason>.*)$", re.S)
_SKIP_ALL = re.compile(r"^skip\s*:\s*(?P<reason>.*)$", re.S)
_SERVER = re.compile(r"^server\s*:\s*(?P<text>.+)$", re.S)
#: Directives are separated by ``;`` (a reason may hold one: not before a directive's name).
_DIRECTIVES = re.compile(r";\s*(?=(?:slow|skip|server)\b)")


@dataclass
class Block:
    """One fenced block of commands: where it is, its commands, how the test runs it."""

    path: Path  # relative to the repository root
    line: int  # 1-based line of the opening fence
    language: str
    commands: list[str]  # logical lines (continuations joined), comments and prompts kept
    slow: bool = False
    skip: str | None = None  # why the whole block is not run
    skip_commands: dict[str, str] = field(default_factory=dict)  # command -> why not run
    server: str | None = None  # text the last command's output shows once it started
    errors: list[str] = field(default_factory=list)  # a malformed comment

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"

    def to_run(self) -> list[str]:
        """The commands the test runs (those not skipped one by one)."""
        return [c for c in self.commands if _words(c) not in map(_words, self.skip_commands)]


def documents() -> list[Path]:
    """README.md, then every markdown file under docs/ (relative paths, in order)."""
    docs = sorted(p.relative_to(ROOT) for p in (ROOT / "docs").rglob("*.md"))
    return [Path("README.md"), *docs]


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def _logical_lines(text: str, language: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if language == "console":
            if not pending:
                if not line.startswith("$ "):
                    continue  # output shown after a command
                line = line[2:]
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip() and not pending.strip().startswith("#"):
            lines.append(pending.strip())
        pending = ""
    if pending.strip():
        lines.append(pending.strip())
    return lines


def _apply(block: Block, comment: str) -> None:
    for directive in (d.strip() for d in _DIRECTIVES.split(comment)):
        if not directive:
            continue
        if directive == "slow":
            block.slow = True
        elif m := _SKIP_ONE.match(directive):
            block.skip_commands[m["command"].strip()] = m["reason"].strip()
        elif m := _SKIP_ALL.match(directive):
            block.skip = m["reason"].strip()
        elif m := _SERVER.match(directive):
            block.server = m["text"].strip()
        else:
            block.errors.append(f"unknown directive {directive!r}")
    if block.skip is not None and not block.skip:
        block.errors.append("a skipped block needs its reason: skip: REASON")
    for command, reason in block.skip_commands.items():
        if not reason:
            block.errors.append(f"skipping `{command}` needs its reason")
        if _words(command) not in map(_words, block.commands):
            block.errors.append(f"skips `{command}`, which is not a command of the block")


def blocks_of(path: Path) -> list[Block]:
    """The blocks of commands of one document (path relative to the repository root)."""
    tokens = MarkdownIt("commonmark").parse((ROOT / path).read_text(encoding="utf-8"))
    found: list[Block] = []
    for index, token in enumerate(tokens):
        words = token.info.split() if token.type == "fence" else []
        if not words or words[0] not in SHELLS:
            continue
        block = Block(path, token.map[0] + 1, words[0], _logical_lines(token.content, words[0]))
        before = index - 1  # the block's previous sibling: an HTML comment says how to run it
        while before >= 0 and tokens[before].level > token.level:
            before -= 1
        if before >= 0 and tokens[before].type == "html_block":
            if m := _COMMENT.match(tokens[before].content.strip()):
                _apply(block, m["body"])
        found.append(block)
    return found


def all_blocks() -> list[Block]:
    return [block for path in documents() for block in blocks_of(path)]


#: The documents whose blocks run one after another in one copy, by the test module that runs
#: them (two modules: two test workers): the README and what its readers go on to (the
#: instructor's pages use the demo the README runs), and the pages for lecturers,
#: contributors and the benchmarks.
README_CHAIN = ("README.md", "docs/student.md", "docs/instructor/")


def chain_of(block: Block) -> str:
    """Which test module runs ``block``: ``readme`` or ``docs``."""
    return "readme" if str(block.path).startswith(README_CHAIN) else "docs"


class Copies:
    """The copies of the repository of a test module, one per tier, made on first use."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.copies: dict[str, Workspace] = {}

    def get(self, tier: str) -> Workspace:
        if tier not in self.copies:
            self.copies[tier] = Workspace(self.folder / tier, own_environment=tier == "slow")
        return self.copies[tier]


def _report(block: Block, run: subprocess.CompletedProcess[str]) -> str:
    return (
        f"{block.id}: a documented command failed (exit {run.returncode})\n"
        f"commands: {block.to_run()}\n--- stdout (end)\n{run.stdout[-4000:]}\n"
        f"--- stderr (end)\n{run.stderr[-4000:]}"
    )


def run_in_order(block: Block, chain: list[Block], copies: Copies) -> None:
    """Run ``block`` in its tier's copy after the blocks before it in ``chain`` (those not
    run there yet: a block picked with ``-k`` runs what comes before it first); fails the
    test, with the commands' output, when one fails."""
    if block.skip is not None:
        pytest.skip(f"not run: {block.skip}")
    tier = "slow" if block.slow else "fast"
    workspace = copies.get(tier)
    for earlier in chain[: chain.index(block)]:
        if earlier.skip is not None or earlier.id in workspace.done:
            continue
        if tier == "fast" and earlier.slow:
            continue  # the fast tier never waits for a slow block
        if earlier.id in workspace.failed:
            pytest.fail(f"an earlier block failed: {earlier.id}", pytrace=False)
        run = workspace.run(earlier, SLOW_TIMEOUT if earlier.slow else FAST_TIMEOUT)
        if run.returncode != 0:
            workspace.failed.add(earlier.id)
            pytest.fail("an earlier block failed: " + _report(earlier, run), pytrace=False)
        workspace.done.add(earlier.id)
    run = workspace.run(block, SLOW_TIMEOUT if block.slow else FAST_TIMEOUT)
    if run.returncode != 0:
        workspace.failed.add(block.id)
        pytest.fail(_report(block, run), pytrace=False)
    workspace.done.add(block.id)


def params(chain: str) -> list:
    """The blocks of one chain as pytest parameters, the slow ones marked ``slow``."""
    return [
        pytest.param(b, id=b.id, marks=[pytest.mark.slow] if b.slow else [])
        for b in all_blocks()
        if chain_of(b) == chain
    ]


# -- the copy of the repository ---------------------------------------------------------------


def _tracked_files(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return [name for name in out.decode().split("\0") if name and (root / name).exists()]


def _link_environment(source: Path, target: Path, old_root: Path, new_root: Path) -> None:
    """``target``: the virtual environment ``source`` as hard links (no second gigabyte),
    its paths into ``old_root`` (the editable install of the project, the scripts' ``#!``
    lines) pointed at ``new_root``; the files that change are new files, not the links."""
    subprocess.run(["cp", "-al", str(source), str(target)], check=True)
    old, new = str(old_root).encode(), str(new_root).encode()
    candidates = list((target / "bin").iterdir())
    candidates += list(target.glob("lib/python*/site-packages/__editable__*"))
    for path in candidates:
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if old in data:
            mode = path.stat().st_mode
            path.unlink()
            path.write_bytes(data.replace(old, new))
            path.chmod(mode)


def _environment_is_current() -> bool:
    """Whether ``./run`` would leave the repository's environment as it is (its stamp is
    that of requirements.txt and pyproject.toml): else a ``./run`` in a copy sharing it
    would install the project into it again, from the copy, and point it there."""
    want = hashlib.sha256(
        (ROOT / "requirements.txt").read_bytes() + (ROOT / "pyproject.toml").read_bytes()
    ).hexdigest()
    stamp = ROOT / ".venv" / ".installed"
    return stamp.is_file() and stamp.read_text().strip() == want


class Workspace:
    """A copy of the repository's files (tracked and not ignored) in ``folder``, committed
    to a git repository of its own, with the
    project's environment (``.venv``) and the lecture's npm packages (``node_modules``) as
    ``./run`` would have set them up there. Without ``own_environment`` (quicker: the
    hard links take seconds) the copy shares the repository's environment, whose editable
    install of the project points at the repository: enough for ``python -m …`` from the
    copy's root, not for the grading sandbox, which sees the copy only; and only while the
    environment is current, so that a ``./run`` in the copy never reinstalls it."""

    def __init__(self, folder: Path, own_environment: bool = True) -> None:
        self.root = folder / "repo"
        self.root.mkdir(parents=True)
        for name in _tracked_files(ROOT):
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, self.root / name, follow_symlinks=False)
        # A clone, as the reader's is: `git diff` tells what a command changed.
        git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.org"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the documents' copy"]):
            subprocess.run(git + args, cwd=self.root, check=True, capture_output=True)
        if (ROOT / ".venv").is_dir() and (own_environment or not _environment_is_current()):
            _link_environment(ROOT / ".venv", self.root / ".venv", ROOT, self.root)
        elif (ROOT / ".venv").is_dir():
            (self.root / ".venv").symlink_to(ROOT / ".venv")
        if (ROOT / "node_modules").is_dir():
            (self.root / "node_modules").symlink_to(ROOT / "node_modules")
        self.done: set[str] = set()  # the blocks run here, in order
        self.failed: set[str] = set()

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        venv = self.root / ".venv"
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env.pop("PYTHONHOME", None)
        for name in ("PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST", "COV_CORE_SOURCE"):
            env.pop(name, None)
        return env

    def run(self, block: Block, timeout: float) -> subprocess.CompletedProcess[str]:
        """Run the block's commands (as one bash script) from the copy's root."""
        commands = block.to_run()
        if block.server is not None:
            return self._serve(block, commands)
        script = "set -euo pipefail\n" + "\n".join(commands) + "\n"
        try:
            return subprocess.run(
                ["bash", "-c", script],
                cwd=self.root,
                env=self.environment(),
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as timed_out:
            out = timed_out.stdout or b""
            out = out.decode(errors="replace") if isinstance(out, bytes) else out
            return subprocess.CompletedProcess(
                script, -1, out, f"timed out after {timeout} s (mark the block slow?)"
            )

    def _serve(self, block: Block, commands: list[str]) -> subprocess.CompletedProcess[str]:
        """The commands before the last, then the last as a server: it passes once its
        output shows ``block.server``; it is stopped then (its whole process group). As
        root, the server gets a network of its own (a free port whatever else runs here)."""
        script = "set -euo pipefail\n" + "\n".join(commands) + "\n"
        argv = ["bash", "-c", script]
        if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"):
            argv = [
                "unshare",
                "--net",
                "bash",
                "-c",
                "ip link set lo up && exec bash -c " + shlex.quote(script),
            ]
        log = self.root.parent / "server.log"
        env = self.environment() | {"PYTHONUNBUFFERED": "1"}  # its output as it comes
        with open(log, "w") as out:
            process = subprocess.Popen(
                argv,
                cwd=self.root,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            deadline = time.monotonic() + SERVER_TIMEOUT
            started = False
            while time.monotonic() < deadline and process.poll() is None:
                if block.server in log.read_text(errors="replace"):
                    started = True
                    break
                time.sleep(0.5)
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        output = log.read_text(errors="replace")
        if started:
            return subprocess.CompletedProcess(script, 0, output, "")
        return subprocess.CompletedProcess(
            script,
            1,
            output,
            f"the server did not show {block.server!r} (exit {process.returncode})",
        )
