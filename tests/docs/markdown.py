"""The documents as markdown-it sees them: their links, their headings' anchors, their
tables (one parser for the documents' tests, the one Jupyter's tooling already brings)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from course_common.paths import REPO_ROOT

ROOT = REPO_ROOT


@cache
def tokens(path: Path) -> list[Token]:
    """The tokens of a document (path relative to the repository root), tables included."""
    parser = MarkdownIt("commonmark").enable("table")
    return parser.parse((ROOT / path).read_text(encoding="utf-8"))


def _inline_text(token: Token) -> str:
    kinds = ("text", "code_inline")
    return "".join(child.content for child in token.children or [] if child.type in kinds)


def anchors(path: Path) -> set[str]:
    """The anchors of a document's headings, as GitHub makes them: lower case, punctuation
    dropped, spaces as hyphens, a repeated one numbered -1, -2, …"""
    seen: dict[str, int] = {}
    found: set[str] = set()
    stream = tokens(path)
    for index, token in enumerate(stream):
        if token.type != "heading_open":
            continue
        text = _inline_text(stream[index + 1]).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """Every link and image target of a document, with its line."""
    found: list[tuple[int, str]] = []
    for token in tokens(path):
        if token.type != "inline":
            continue
        line = token.map[0] + 1 if token.map else 0
        for child in token.children or []:
            if child.type == "link_open":
                found.append((line, str(child.attrs.get("href", ""))))
            elif child.type == "image":
                found.append((line, str(child.attrs.get("src", ""))))
    return found


def tables_under(path: Path, heading: str) -> list[list[list[Token]]]:
    """The tables in the section of ``heading`` (up to the next heading of its level or
    above): each a list of body rows, each row a list of its cells' inline tokens."""
    stream = tokens(path)
    tables: list[list[list[Token]]] = []
    level = None
    row: list[Token] = []
    in_body = False
    for index, token in enumerate(stream):
        if token.type == "heading_open":
            title = _inline_text(stream[index + 1]).strip()
            depth = int(token.tag[1])
            if level is not None and depth <= level:
                break
            if level is None and title == heading:
                level = depth
            continue
        if level is None:
            continue
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tbody_open":
            in_body = True
        elif token.type == "tbody_close":
            in_body = False
        elif token.type == "tr_open" and in_body:
            row = []
        elif token.type == "inline" and in_body:
            row.append(token)
        elif token.type == "tr_close" and in_body:
            tables[-1].append(row)
    return tables


def code_spans(token: Token) -> list[str]:
    """The code spans of a cell, in order."""
    return [child.content for child in token.children or [] if child.type == "code_inline"]
