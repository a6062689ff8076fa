"""The commands of the pages for lecturers, contributors and the benchmarks run (the
README's and the instructor's: ``test_docs_commands.py``, which says how)."""

from __future__ import annotations

import pytest

from tests.docs.commands import Block, Copies, params, run_in_order

CHAIN = [p.values[0] for p in params("docs")]


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> Copies:
    return Copies(tmp_path_factory.mktemp("docs-commands-others"))


@pytest.mark.parametrize("block", params("docs"))
def test_documented_commands_run(block: Block, copies: Copies):
    run_in_order(block, CHAIN, copies)
