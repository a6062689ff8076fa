"""Every command the README and ``docs/`` tell their reader to type runs, so the documents
cannot drift from the code: a command that breaks fails its block's test.

How a block is marked (slow, skipped with its reason, a server) is ``tests/docs/commands.py``'s
docstring. This module runs the README's blocks and those of ``docs/student.md`` and
``docs/instructor/``; ``test_docs_commands_others.py`` the other pages' (two modules, so
that two test workers share them). The blocks run in document order in one copy of the
repository, a reader
following the documents from the top; a block whose earlier blocks were deselected runs them
first (``-k`` picks any one). The fast tier's blocks run in a copy of their own, so that
they never wait for a slow block; that copy shares the repository's environment (quicker to
make), so a block that grades in the sandbox belongs to the slow tier.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.docs.commands import ROOT, Block, Copies, all_blocks, params, run_in_order

BLOCKS = all_blocks()


CHAIN = [p.values[0] for p in params("readme")]


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> Copies:
    return Copies(tmp_path_factory.mktemp("docs-commands"))


def test_every_block_is_marked_well():
    """A comment that says how to run a block is well formed, and a skip gives its reason."""
    problems = [f"{b.id}: {e}" for b in BLOCKS for e in b.errors]
    assert not problems, "\n".join(problems)
    assert BLOCKS, "no block of commands found in README.md and docs/"


@pytest.mark.parametrize("block", params("readme"))
def test_documented_commands_run(block: Block, copies: Copies):
    """The README's blocks and those of the pages its readers go on to (``docs/student.md``,
    ``docs/instructor/``); the other pages' in ``test_docs_commands_others.py``."""
    run_in_order(block, CHAIN, copies)


def _jobs() -> set[str]:
    """The jobs ``./run --help`` lists."""
    usage = subprocess.run(
        ["./run", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    jobs = usage.split("Jobs:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^  ([a-z][\w-]*)", jobs, re.M)}


def _module_problems(command: str, jobs: set[str]) -> list[str]:
    words = shlex.split(command, comments=True)
    problems = []
    if words[:1] == ["./run"] and (len(words) < 2 or words[1] not in jobs):
        problems.append(f"`{command}`: ./run has no such job")
    for index, word in enumerate(words[:-2]):
        if Path(word).name.startswith("python") and words[index + 1] == "-m":
            module = words[index + 2]
            top = module.split(".")[0]
            if top in {"autograder", "benchmarks", "lecture", "linlib", "devtools"}:
                if importlib.util.find_spec(module) is None:
                    problems.append(f"`{command}`: no module {module}")
    return problems


def test_commands_not_run_name_what_exists():
    """The commands the test does not run still name a job of ``./run`` and a module of the
    repository that exist, and every test file a skip's reason points to exists."""
    jobs = _jobs()
    problems = []
    for block in BLOCKS:
        skipped = block.commands if block.skip is not None else list(block.skip_commands)
        for command in skipped:
            problems += [f"{block.id}: {p}" for p in _module_problems(command, jobs)]
        reasons = [block.skip or "", *block.skip_commands.values()]
        for path in re.findall(r"tests/[\w/]+\.py", " ".join(reasons)):
            if not (ROOT / path).is_file():
                problems.append(f"{block.id}: the reason names {path}, which does not exist")
    assert not problems, "\n".join(problems)
