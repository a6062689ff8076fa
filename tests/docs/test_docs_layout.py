"""The layout tables of ``docs/contributor.md`` ("Layout") match the tree: the repository's
table has a row for every package and top-level module, the autograder's a row for every
package and module of ``autograder/``; and every path either table names — in its first
column, or a module or folder named in a row's description — exists.

When modules move, this fails naming each row to fix (and each package without a row).
The table of defences (``docs/instructor/security.md``) names tests that exist.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.docs.markdown import ROOT, code_spans, tables_under

DOCUMENT = Path("docs/contributor.md")
#: The folders of the section's tables, in order.
FOLDERS = [Path("."), Path("autograder")]
SECTION = "Layout"
#: A code span of a first column that names a file or folder of the tree.
PATHLIKE = re.compile(r"^[\w.\-/<>]+(/|\.(py|toml|json|md|txt|ipynb))$")
#: A code span of a description that names a module or a package (not a file the code
#: writes, such as ``summary.md``).
MODULELIKE = re.compile(r"^[\w.\-/<>]+(/|\.py)$")


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [Path(line) for line in out.splitlines() if (ROOT / line).exists()]


def _children(folder: Path) -> set[str]:
    """The packages (``name/``) and modules (``name.py``) directly in ``folder`` (relative
    to the root; ``.`` for the root), as the tables write them."""
    found: set[str] = set()
    for path in _tracked():
        try:
            rest = path.relative_to(folder)
        except ValueError:
            continue
        parts = rest.parts
        if len(parts) == 1 and rest.suffix == ".py" and rest.name != "__init__.py":
            found.add(rest.name)
        elif len(parts) == 2 and parts[1] == "__init__.py":
            found.add(parts[0] + "/")
    return found


def _exists(name: str, bases: list[Path]) -> bool:
    """Whether ``name`` (a pattern: ``NN_name``, ``NN`` and ``<x>`` stand for any name) is a file
    or folder under one of ``bases``."""
    pattern = re.sub(r"NN_name|NN|<[^>]+>", "*", name.rstrip("/"))
    return any(list((ROOT / base).glob(pattern)) for base in bases)


def _tables() -> dict[Path, list]:
    tables = tables_under(DOCUMENT, SECTION)
    assert len(tables) >= 2, f"{DOCUMENT} '{SECTION}': the repository's and autograder's tables"
    return dict(zip(FOLDERS, tables, strict=False))


@pytest.mark.parametrize("folder", FOLDERS, ids=["repository", "autograder"])
def test_the_layout_table_lists_every_package_and_module(folder: Path):
    rows = _tables()[folder]
    listed = {
        name.split("/", 1)[0] + "/" if "/" in name.rstrip("/") else name
        for row in rows
        for name in code_spans(row[0])
    }
    missing = sorted(_children(folder) - listed)
    assert not missing, (
        f"{DOCUMENT} '{SECTION}', the {folder} table has no row for: {', '.join(missing)}"
    )


@pytest.mark.parametrize("folder", FOLDERS, ids=["repository", "autograder"])
def test_the_layout_table_names_only_what_exists(folder: Path):
    problems = []
    for row in _tables()[folder]:
        entries = code_spans(row[0])
        # A row's own entries are under the table's folder; a path its description names
        # is under one of the row's folders, the table's, or the repository's root.
        bases = [folder / e for e in entries if e.endswith("/")] + [folder, Path(".")]
        for name in entries:
            if PATHLIKE.match(name) and not _exists(name, [folder]):
                problems.append(f"row {entries}: {name} does not exist under {folder}/")
        for name in (n for cell in row[1:] for n in code_spans(cell)):
            if MODULELIKE.match(name) and not _exists(name, bases):
                problems.append(f"row {entries}: {name} (in its description) does not exist")
    assert not problems, f"{DOCUMENT} '{SECTION}':\n" + "\n".join(problems)


def test_the_defences_table_names_tests_that_exist():
    """docs/instructor/security.md's table of what each defence stops names, for each layer,
    test files of ``tests/autograder/`` and test functions that exist."""
    document = Path("docs/instructor/security.md")
    tables = tables_under(document, "What each defence stops, and the test that shows it")
    assert tables and tables[0], f"{document}: the table of defences is missing"
    problems = []
    for row in tables[0]:
        for name in code_spans(row[-1]):
            file, _, function = name.partition("::")
            matches = list((ROOT / "tests" / "autograder").rglob(file))
            if not matches:
                problems.append(f"{name}: no {file} under tests/autograder/")
            elif function and not any(
                re.search(rf"^def {re.escape(function)}\(", m.read_text(), re.M) for m in matches
            ):
                problems.append(f"{name}: {file} has no test {function}")
    assert not problems, f"{document}:\n" + "\n".join(problems)


def test_the_test_layout_rule_holds():
    """The paragraph of ``docs/contributor.md`` that begins "`tests/` mirrors it": a module
    ``autograder/<layer>/x.py`` has its tests in ``tests/autograder/<layer>/test_<layer>_x.py``,
    or the paragraph names it (as `x`) with where it is tested;
    every test file the paragraph names exists."""
    text = (ROOT / DOCUMENT).read_text()
    start = text.index("`tests/` mirrors it")
    paragraph = text[start : text.index("\n\n", start)]
    named = set(re.findall(r"`([^`]+)`", paragraph))
    problems = []
    for module in sorted((ROOT / "autograder").glob("*/*.py")):
        layer, name = module.parent.name, module.stem
        if name == "__init__":
            continue
        own = ROOT / "tests" / "autograder" / layer / f"test_{layer}_{name}.py"
        if not own.exists() and name not in named:
            problems.append(
                f"autograder/{layer}/{name}.py: no {own.relative_to(ROOT)}, and the "
                "paragraph does not say where it is tested"
            )
    for name in sorted(n for n in named if n.endswith(".py") and n.startswith("test_")):
        file = name.rsplit("/", 1)[-1]
        if "*" not in file and "<" not in file and not list((ROOT / "tests").rglob(file)):
            problems.append(f"{name}: no such test file under tests/")
    assert not problems, f"{DOCUMENT}, the tests' layout:\n" + "\n".join(problems)
