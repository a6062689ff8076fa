"""Answers compared as sets of statements: a copy whose functions or independent statements
were put in another order matches its original statement for statement, where k-grams
(:mod:`autograder.similarity.detect`) lose every one that crossed a moved boundary.

Each statement of an answer (a simple statement, or the header of a compound one: ``for``,
``if``, ``while``, ``with``, ``def``, ``class``, an ``except``) is normalised as copydetect
normalises text: every name and argument stands for one placeholder, a string's content is
dropped (a docstring, all of it), numbers and attributes stay. Its weight is its size (the
nodes of its syntax tree). Statements of the notebook's own code (the boilerplate) and those
of many answers of the class are taken out, as the fingerprints are; small ones (``x = 0``,
``return x``) never count.

Two answers' score is the share of their statements' weight that the other holds, counted
as a multiset: ``(matched_a + matched_b) / (own_a + own_b)``, and the matched statements'
lines are what the report shows.
"""

from __future__ import annotations

import ast
import copy
import textwrap
from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

__all__ = ["Statements", "keys_of", "statements"]

#: A statement of fewer syntax-tree nodes than this never counts (``total = 0``).
MIN_NODES = 6


@dataclass
class Statements:
    """An answer's statements: each normalised key with its weight and its line range."""

    items: list[tuple[str, int, tuple[int, int]]] = field(default_factory=list)

    def counts(self) -> Counter[str]:
        return Counter(key for key, _, _ in self.items)

    def weight(self, drop: AbstractSet[str] = frozenset()) -> int:
        return sum(w for key, w, _ in self.items if key not in drop)


class _Normalise(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id="_", ctx=ast.Load()), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.copy_location(ast.arg(arg="_"), node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str | bytes):
            return ast.copy_location(ast.Constant(value=""), node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.name = "_"
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        node.name = "_"
        return node


_BODIES = ("body", "orelse", "finalbody", "handlers")


def _header(node: ast.stmt) -> ast.stmt:
    """A copy of the statement without the statements it holds (a compound one's header)."""
    bodies = {name: getattr(node, name) for name in _BODIES if hasattr(node, name)}
    for name in bodies:
        setattr(node, name, [])
    try:
        return copy.deepcopy(node)
    finally:
        for name, body in bodies.items():
            setattr(node, name, body)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _walk(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement of *body*, at any depth, in order."""
    for node in body:
        yield node
        for name in _BODIES:
            for child in getattr(node, name, None) or []:
                yield from _walk(child.body if isinstance(child, ast.ExceptHandler) else [child])


def _parse(code: str) -> ast.Module | None:
    """The answer as a module: as written, or dedented (the written part of a function,
    its signature dropped), or None when it is not Python."""
    for text in (code, textwrap.dedent(code)):
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def statements(code: str) -> Statements:
    """The answer's statements (none when it does not parse)."""
    tree = _parse(code)
    found = Statements()
    if tree is None:
        return found
    for node in _walk(tree.body):
        if _is_docstring(node):
            continue
        head = _header(node)
        normalised = _Normalise().visit(head)
        size = sum(1 for _ in ast.walk(normalised))
        if size < MIN_NODES:
            continue
        key = ast.dump(normalised, annotate_fields=False, include_attributes=False)
        end = getattr(node, "end_lineno", None) or node.lineno
        if any(getattr(node, name, None) for name in _BODIES):
            end = node.lineno  # a header: its own line
        found.items.append((key, size, (node.lineno, end)))
    return found


def keys_of(code: str) -> set[str]:
    """The keys of every statement of *code*, the notebook's code cells joined by blank
    lines (the boilerplate): IPython's magic and shell lines left out, and where the whole
    does not parse, each run of blank-line-separated chunks that does."""
    lines = [line for line in code.split("\n") if not line.lstrip().startswith(("%", "!"))]
    text = "\n".join(lines)
    if _parse(text) is not None:
        return {key for key, _, _ in statements(text).items}
    out: set[str] = set()
    buffer = ""
    for chunk in text.split("\n\n"):
        buffer = f"{buffer}\n\n{chunk}" if buffer else chunk
        if _parse(buffer) is not None:
            out |= {key for key, _, _ in statements(buffer).items}
            buffer = ""
    return out
