"""Every relative link of README.md and docs/ resolves: to a file or folder of the
repository, and its ``#anchor`` to a heading of the markdown file it names."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.docs.commands import documents
from tests.docs.markdown import ROOT, anchors, links


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the relative links of ``document`` (relative to ``root``)."""
    problems = []
    for line, target in links(root / document):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue  # a web address: not checked offline
        path = (root / document).parent / unquote(parts.path) if parts.path else root / document
        where = f"{document}:{line}: {target}"
        if not path.resolve().is_relative_to(root.resolve()) or not path.exists():
            problems.append(f"{where}: no such file")
        elif parts.fragment and path.suffix == ".md" and parts.fragment not in anchors(path):
            problems.append(f"{where}: no heading with that anchor")
    return problems


@pytest.mark.parametrize("document", documents(), ids=str)
def test_relative_links_resolve(document: Path):
    problems = broken_links(document)
    assert not problems, "\n".join(problems)


def test_the_link_check_finds_a_broken_link(tmp_path):
    """The check itself: a missing file and a missing anchor are both found."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# A heading\n", encoding="utf-8")
    (tmp_path / "docs" / "page.md").write_text(
        "[fine](there.md#a-heading) [gone](no-such-page.md) [lost](there.md#no-such-heading)\n",
        encoding="utf-8",
    )
    problems = broken_links(Path("docs/page.md"), tmp_path)
    assert len(problems) == 2, problems
    assert "no-such-page.md: no such file" in problems[0]
    assert "no-such-heading: no heading with that anchor" in problems[1]
