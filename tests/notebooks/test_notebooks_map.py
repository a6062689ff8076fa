"""The course map, ``notebooks/README.md``, agrees with the notebooks' nbgrader metadata.

The map's points table lists, for every notebook, each graded exercise with the points
its test cells are worth (written answers graded by hand are marked), and the totals.
The numbers are read from the notebooks here and compared with the table, so the map
cannot drift: change a test cell's points and this test fails with the row to paste.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from course_common.paths import REPO_ROOT

ROOT = REPO_ROOT
README = ROOT / "notebooks" / "README.md"
NOTEBOOKS = sorted(ROOT.glob("notebooks/*/*.ipynb"))

# A table row: | [title](NN_name/NN_name.ipynb) | `id` 3, `id` 2 (by hand) | 10 | 2 | 12 |
ROW = re.compile(
    r"^\|\s*\[(?P<title>[^\]]+)\]\((?P<link>[^)]+\.ipynb)\)\s*\|(?P<items>[^|]*)\|"
    r"\s*(?P<auto>[\d.]+)\s*\|\s*(?P<manual>[\d.]+)\s*\|\s*(?P<total>[\d.]+)\s*\|\s*$"
)
TOTAL_ROW = re.compile(
    r"^\|\s*\*\*course\*\*\s*\|[^|]*\|\s*\*\*(?P<auto>[\d.]+)\*\*\s*\|"
    r"\s*\*\*(?P<manual>[\d.]+)\*\*\s*\|\s*\*\*(?P<total>[\d.]+)\*\*\s*\|\s*$"
)
ITEM = re.compile(r"`(?P<gid>[a-z0-9_]+)` (?P<points>[\d.]+)(?P<manual> \(by hand\))?")

pytestmark = pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks yet")


def _meta(cell) -> dict:
    return dict(cell.get("metadata", {}).get("nbgrader", {}))


def graded_items(path: Path) -> list[tuple[str, float, bool]]:
    """(exercise grade id, points, graded by hand) for every exercise, in notebook order.

    A code exercise is worth the points of its test cells (grade ids ``<exercise>_…``);
    a written answer (graded markdown solution cell) carries its own points.
    """
    cells = nbformat.read(path, as_version=4).cells
    tests = [
        _meta(c)
        for c in cells
        if c.cell_type == "code" and _meta(c).get("grade") and not _meta(c).get("solution")
    ]
    items = []
    for cell in cells:
        meta = _meta(cell)
        if not meta.get("solution"):
            continue
        gid = meta["grade_id"]
        if cell.cell_type == "markdown":
            items.append((gid, float(meta["points"]), True))
        else:
            points = sum(t["points"] for t in tests if t["grade_id"].startswith(gid + "_"))
            items.append((gid, float(points), False))
    return items


def _fmt(value: float) -> str:
    return f"{value:g}"


def expected_row(path: Path, title: str) -> str:
    items = graded_items(path)
    auto = sum(p for _, p, manual in items if not manual)
    manual = sum(p for _, p, by_hand in items if by_hand)
    listed = ", ".join(
        f"`{gid}` {_fmt(p)}" + (" (by hand)" if by_hand else "") for gid, p, by_hand in items
    )
    link = f"{path.parent.name}/{path.name}"
    totals = f"{_fmt(auto)} | {_fmt(manual)} | {_fmt(auto + manual)}"
    return f"| [{title}]({link}) | {listed} | {totals} |"


def _rows() -> list[re.Match]:
    return [m for line in README.read_text(encoding="utf-8").splitlines() if (m := ROW.match(line))]


def test_notebooks_map_exists_and_lists_every_notebook_once():
    """Every notebook has exactly one row, every row links to a notebook, in course order."""
    assert README.is_file(), "notebooks/README.md (the course map) is missing"
    links = [m["link"] for m in _rows()]
    on_disk = [f"{p.parent.name}/{p.name}" for p in NOTEBOOKS]
    missing = [link for link in on_disk if link not in links]
    assert not missing, "no row in the map for: " + "; ".join(
        expected_row(ROOT / "notebooks" / link, "TITLE") for link in missing
    )
    unknown = [link for link in links if link not in on_disk]
    assert not unknown, f"the map links to notebooks that do not exist: {unknown}"
    assert len(links) == len(set(links)), f"a notebook has two rows: {links}"
    assert links == sorted(links), f"rows not in course order: {links}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_map_row_matches_metadata(path):
    """The row's exercises, points and totals are those of the notebook's test cells."""
    link = f"{path.parent.name}/{path.name}"
    row = next((m for m in _rows() if m["link"] == link), None)
    if row is None:
        pytest.fail(f"no row for {link}")
    want = expected_row(path, row["title"])
    listed = [
        (m["gid"], float(m["points"]), bool(m["manual"])) for m in ITEM.finditer(row["items"])
    ]
    assert listed == graded_items(path), f"exercises or points differ; the row should read\n{want}"
    auto = sum(p for _, p, manual in listed if not manual)
    manual = sum(p for _, p, by_hand in listed if by_hand)
    totals = (float(row["auto"]), float(row["manual"]), float(row["total"]))
    assert totals == (auto, manual, auto + manual), f"totals are wrong; the row should read\n{want}"
    assert row["title"].startswith(path.stem[:2]), f"title should start with {path.stem[:2]}"


def test_notebooks_map_course_total():
    """The course's total row adds up the notebooks' rows."""
    lines = README.read_text(encoding="utf-8").splitlines()
    totals = [m for line in lines if (m := TOTAL_ROW.match(line))]
    assert len(totals) == 1, "one row '| **course** | … | **auto** | **by hand** | **total** |'"
    items = [item for path in NOTEBOOKS for item in graded_items(path)]
    auto = sum(p for _, p, manual in items if not manual)
    manual = sum(p for _, p, by_hand in items if by_hand)
    got = tuple(float(totals[0][k]) for k in ("auto", "manual", "total"))
    assert got == (auto, manual, auto + manual), (
        f"course totals should be **{_fmt(auto)}** | **{_fmt(manual)}** | **{_fmt(auto + manual)}**"
    )
