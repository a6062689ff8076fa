"""A catalogue read from its ``misconceptions.toml`` beside the assignment's notebook and
checked entry by entry, the graded functions' parameters read from the answer cells."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from autograder.misconceptions.catalogue import Catalogue, Exercise, Misconception, Probe
from autograder.misconceptions.notation import parse_call
from autograder.misconceptions.patterns import parse_pattern
from autograder.source import CATALOGUE_NAME

#: The catalogue's file name, beside the assignment's notebook.
CATALOGUE = CATALOGUE_NAME  # its one home: autograder.source


class CatalogueError(ValueError):
    """A catalogue that cannot be read: its file, the entry, and what is wrong."""


def _text(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CatalogueError(f"{where}: {key} must be a non-empty string")
    return " ".join(value.split())


def _probe(entry: Any, function: str, where: str) -> Probe:
    if not isinstance(entry, Mapping):
        raise CatalogueError(f"{where}: a probe is a table (call, rule, answer)")
    unknown = set(entry) - {"call", "rule", "answer", "changes"}
    if unknown:
        raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
    try:
        call = _text(entry, "call", where)
        parse_call(call, function)
        rule = parse_pattern(_text(entry, "rule", where))
        answer = parse_pattern(entry["answer"]) if "answer" in entry else None
        changes = {
            str(name): parse_pattern(text) for name, text in dict(entry.get("changes", {})).items()
        }
    except (ValueError, TypeError) as exc:
        raise CatalogueError(f"{where}: {exc}") from None
    if answer is None and not changes:
        raise CatalogueError(f"{where}: a probe needs an answer or changes")
    return Probe(call, rule, answer, changes)


def signatures(answers: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """function -> its parameter names, for each function the answer cells' sources
    *answers* define (read, not run)."""
    found: dict[str, tuple[str, ...]] = {}
    for source in answers:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                args = node.args
                found[node.name] = tuple(a.arg for a in [*args.posonlyargs, *args.args])
    return found


def notebook_signatures(notebook: str | Path) -> dict[str, tuple[str, ...]]:
    """:func:`signatures` of the answer cells of a source notebook."""
    import nbformat
    from nbgrader.utils import is_solution

    nb = nbformat.read(str(notebook), as_version=4)
    return signatures(c.source for c in nb.cells if c.cell_type == "code" and is_solution(c))


def load_catalogue(folder: str | Path, answers: Iterable[str] | None = None) -> Catalogue | None:
    """The catalogue beside the notebook of the assignment folder *folder*
    (``<folder>/misconceptions.toml``); None when the folder has no catalogue. The graded
    functions' signatures come from *answers* (the answer cells' sources), else from the
    notebook ``<folder>/<folder name>.ipynb``.

    Raises :class:`CatalogueError` for a catalogue that cannot be read."""
    folder = Path(folder)
    path = folder / CATALOGUE
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{path.name}: {exc}") from None
    notebook = folder / f"{folder.name}.ipynb"
    if answers is not None:
        defined = signatures(answers)
    else:
        defined = notebook_signatures(notebook) if notebook.is_file() else {}
    exercises: dict[str, Exercise] = {}
    for name, table in data.items():
        where = f"{folder.name}/{CATALOGUE} [{name}]"
        if not isinstance(table, Mapping):
            raise CatalogueError(f"{where}: an exercise is a table")
        unknown = set(table) - {"misconception", "timeout_hint"}
        if unknown:
            raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
        if defined and name not in defined:
            raise CatalogueError(f"{where}: the notebook's answers define no function {name}")
        entries = []
        seen: set[str] = set()
        for number, entry in enumerate(table.get("misconception", []), start=1):
            at = f"{where} misconception {number}"
            if not isinstance(entry, Mapping):
                raise CatalogueError(f"{at}: a misconception is a table")
            unknown = set(entry) - {"id", "says", "hint", "probe"}
            if unknown:
                raise CatalogueError(f"{at}: unknown keys {sorted(unknown)}")
            ident = _text(entry, "id", at)
            if not ident.isidentifier() or ident in seen:
                raise CatalogueError(f"{at}: id {ident!r} is not a fresh identifier")
            seen.add(ident)
            probes = tuple(
                _probe(p, name, f"{at} ({ident}) probe {k}")
                for k, p in enumerate(entry.get("probe", []), start=1)
            )
            if not probes:
                raise CatalogueError(f"{at} ({ident}): no probe")
            says, hint = _text(entry, "says", at), _text(entry, "hint", at)
            entries.append(Misconception(ident, says, hint, probes))
        hint = table.get("timeout_hint", "")
        exercises[name] = Exercise(
            name, defined.get(name, ()), tuple(entries), " ".join(str(hint).split())
        )
    return Catalogue(folder.name, exercises, path)
