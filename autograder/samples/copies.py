"""Answers copied and disguised, built from the sample answers: for the similarity report's
demo pair and for its planted test set (:func:`planted_class`).

The disguises a copier uses, each a function of the answer's source that keeps what it
computes: :func:`rename_locals` (local variables renamed), :func:`add_comments` (comment
lines and blank lines between statements), :func:`reorder_functions` (the functions of a
cell in another order), :func:`reorder_statements` (independent statements swapped); and a
loop turned into a comprehension, which is written by hand
(:data:`LOOP_TO_COMPREHENSION`, the sample answer's loop rewritten and nothing else).
"""

from __future__ import annotations

import ast
import builtins
import copy
import difflib
import io
import itertools
import keyword
import random
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import ClearSolutions

from autograder.samples import (
    SAMPLE_MODULES,
    VARIANTS,
    Variant,
    make_submission,
    solution_sources,
)

#: Names a copier picks for the variables they rename.
_NAMES = (
    "acc",
    "arr",
    "buf",
    "cur",
    "data",
    "item",
    "tmp",
    "val",
    "vec",
    "res",
    "out_vals",
    "step",
    "count_",
    "part",
    "elem",
    "pair",
    "num",
    "summed",
    "best_val",
    "holder",
)

_COMMENTS = (
    "# compute it step by step",
    "# TODO check this",
    "# loop over the data",
    "# here we use numpy",
    "# this is the main part",
    "# make sure the shapes match",
    "# as in the lecture",
    "# return the result",
)


def _local_names(tree: ast.Module) -> set[str]:
    """Variables assigned inside the functions of *tree*, less the functions' parameters
    (a copier keeps the signature the tests call), the names used as keyword arguments and
    the names of functions and imports."""
    assigned: set[str] = set()
    kept: set[str] = set(dir(builtins)) | set(keyword.kwlist)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            kept.add(node.name)
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    kept.add(arg.arg)
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                    assigned.add(inner.id)
        elif isinstance(node, ast.keyword) and node.arg:
            kept.add(node.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            kept.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Attribute):
            kept.add(node.attr)
    return assigned - kept


def rename_locals(code: str, seed: int = 0) -> str:
    """*code* with its local variables renamed (token by token: comments and layout stay)."""
    rng = random.Random(seed)
    names = sorted(_local_names(ast.parse(code)))
    taken = {t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)}
    pool = [n for n in _NAMES if n not in taken]
    rng.shuffle(pool)
    mapping = {}
    for index, name in enumerate(names):
        mapping[name] = pool[index] if index < len(pool) else f"{name}_{index}"
    tokens = []
    previous = None
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.NAME and tok.string in mapping and previous != ".":
            tok = tok._replace(string=mapping[tok.string])
        tokens.append(tok)
        previous = tok.string
    return tokenize.untokenize(tokens)


def _statement_lines(code: str) -> list[int]:
    """0-based numbers of the lines on which a statement starts."""
    starts, new = [], True
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.NL):
            new = new or tok.type == tokenize.NEWLINE
            continue
        if tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT):
            continue
        if new and tok.type != tokenize.ENDMARKER:
            starts.append(tok.start[0] - 1)
        new = False
    return starts


def add_comments(code: str, seed: int = 0, every: int = 2) -> str:
    """*code* with a comment line before about one statement in *every*, a blank line before
    some others, and a comment at the end of the last line."""
    rng = random.Random(seed)
    lines = code.split("\n")
    starts = set(_statement_lines(code)[1:])
    out = []
    for number, line in enumerate(lines):
        if number in starts:
            indent = line[: len(line) - len(line.lstrip())]
            if rng.random() < 1 / every:
                out.append(indent + rng.choice(_COMMENTS))
            elif rng.random() < 0.5:
                out.append("")
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    out[-1] += "  # done"
    return "\n".join(out) + "\n"


def reorder_functions(code: str) -> str:
    """*code* with its top-level functions in the reverse order (imports and other
    statements first, as they were)."""
    tree = ast.parse(code)
    lines = code.split("\n")
    blocks: list[str] = []
    others: list[str] = []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[first - 1 : node.end_lineno])
        (blocks if isinstance(node, ast.FunctionDef) else others).append(text)
    return "\n".join([*others, "", *("\n\n" + b for b in reversed(blocks))]).strip("\n") + "\n"


def _names(node: ast.AST) -> tuple[set[str], set[str]]:
    """The names a statement reads and those it writes (a method called on a name, or an
    item or attribute assigned, writes that name)."""
    reads: set[str] = set()
    writes: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            (writes if isinstance(inner.ctx, ast.Store | ast.Del) else reads).add(inner.id)
        elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
            target = inner.func.value
            if isinstance(target, ast.Name):
                writes.add(target.id)
        elif isinstance(inner, ast.Subscript | ast.Attribute) and isinstance(
            inner.ctx, ast.Store | ast.Del
        ):
            if isinstance(inner.value, ast.Name):
                writes.add(inner.value.id)
    return reads, writes


_MOVABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _independent(a: ast.stmt, b: ast.stmt) -> bool:
    """Whether two statements may change places: neither writes what the other reads or
    writes, and both are plain statements (no control flow)."""
    if not isinstance(a, _MOVABLE) or not isinstance(b, _MOVABLE):
        return False
    reads_a, writes_a = _names(a)
    reads_b, writes_b = _names(b)
    return not (writes_a & (reads_b | writes_b) or writes_b & reads_a)


def reorder_statements(code: str, seed: int = 0) -> str:
    """*code* with some independent statements swapped, each with the one after it: in
    every block (a function's body, a loop's), a pair of adjacent plain statements that
    neither reads nor writes what the other writes (a copier's disguise that keeps what the
    code computes). Comments and blank lines stay where they were."""
    rng = random.Random(seed)
    tree = ast.parse(code)
    lines = code.split("\n")
    moves: list[tuple[int, int, int, int]] = []  # (first a, last a, first b, last b), 0-based
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            index = 0
            while index + 1 < len(block):
                a, b = block[index], block[index + 1]
                if _independent(a, b) and rng.random() < 0.7:
                    moves.append((a.lineno - 1, a.end_lineno - 1, b.lineno - 1, b.end_lineno - 1))
                    index += 2
                else:
                    index += 1
    for first_a, last_a, first_b, last_b in sorted(moves, reverse=True):
        a, gap, b = (
            lines[first_a : last_a + 1],
            lines[last_a + 1 : first_b],
            lines[first_b : last_b + 1],
        )
        lines[first_a : last_b + 1] = b + gap + a
    return "\n".join(lines)


#: (assignment, sample answer's name) -> that answer with one of its loops written as a
#: comprehension or a generator expression (the rest of its lines as they were): the
#: ``LOOP_TO_COMPREHENSION`` of each assignment's sample answers, written by hand.
LOOP_TO_COMPREHENSION: dict[tuple[str, str], str] = {
    (assignment, name): code
    for assignment, module in SAMPLE_MODULES.items()
    for name, code in getattr(module, "LOOP_TO_COMPREHENSION", {}).items()
}


def release_notebook(source_nb: NotebookNode | str | Path) -> NotebookNode:
    """The source notebook with its solutions cleared by nbgrader's ``ClearSolutions`` (the
    course's stubs), as the release hands it out: for building submissions without a
    release."""
    nb = copy.deepcopy(
        source_nb
        if isinstance(source_nb, NotebookNode)
        else nbformat.read(str(source_nb), as_version=4)
    )
    nb, _ = ClearSolutions(enforce_metadata=False).preprocess(nb, {})
    return nb


def _plain_lines(code: str) -> list[str]:
    """The lines of *code* stripped of indentation, without blank lines, comment lines and
    lines that open or close a docstring."""
    lines = (line.strip() for line in code.split("\n"))
    return [line for line in lines if line and not line.startswith(("#", '"""', "'''"))]


def shared_lines(a: str, b: str) -> float:
    """The share of the shorter answer's lines found verbatim, in order, in the other
    (:func:`_plain_lines`, difflib's matching blocks)."""
    la, lb = _plain_lines(a), _plain_lines(b)
    if not la or not lb:
        return 0.0
    matcher = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / min(len(la), len(lb))


#: Two sample answers of an exercise that share this share of their lines verbatim
#: (:func:`shared_lines`) were written one from the other (a typical bug is often another
#: answer with one line changed): *related*, neither a copied pair nor independent work.
RELATED_LINES = 0.5


@dataclass
class PlantedClass:
    """A class of sample students for one assignment, some of whose answers are copies.

    ``notebooks``: student -> the submitted notebook; ``origin``: (exercise key, student) ->
    where that answer comes from (a sample answer's name, or "reference"; an answer made of
    two sample answers names both, joined by "+"); ``kinds``: (exercise key, student) -> the
    disguise of a copy; ``sources``: (exercise key, sample answer's name) -> its code.
    """

    assignment: str
    notebooks: dict[str, NotebookNode] = field(default_factory=dict)
    origin: dict[tuple[str, str], str] = field(default_factory=dict)
    kinds: dict[tuple[str, str], str] = field(default_factory=dict)
    sources: dict[tuple[str, str], str] = field(default_factory=dict)

    def _origins(self, exercise: str, student: str) -> set[str]:
        return set(self.origin.get((exercise, student), "reference").split("+"))

    def label(self, exercise: str, a: str, b: str) -> str:
        """What the pair (a, b) of answers to *exercise* is:

        - "copied": the same sample answer (disguised or not) in both;
        - "partial": one answer holds the other and code of its own (a helper function);
        - "reference": both are the reference solution (alike only because of it);
        - "related": two sample answers that share at least :data:`RELATED_LINES` of their
          lines (:func:`shared_lines`), or copies of such two;
        - "independent": any other pair.
        """
        oa, ob = self._origins(exercise, a), self._origins(exercise, b)
        if oa == ob == {"reference"}:
            return "reference"
        if oa & ob - {"reference"}:
            return "copied" if oa == ob else "partial"
        for x in oa - {"reference"}:
            for y in ob - {"reference"}:
                code_x, code_y = self.sources.get((exercise, x)), self.sources.get((exercise, y))
                if code_x and code_y and shared_lines(code_x, code_y) >= RELATED_LINES:
                    return "related"
        return "independent"

    def kind(self, exercise: str, a: str, b: str) -> str:
        """The disguise of a copied pair: of the copy, or "copy and copy" for two copies."""
        ka, kb = self.kinds.get((exercise, a)), self.kinds.get((exercise, b))
        return f"{ka} / {kb}" if ka and kb else (ka or kb or "as it was")


def _main_variants(variants: Iterable[Variant]) -> dict[str, list[Variant]]:
    by_cell: dict[str, list[Variant]] = {}
    for variant in variants:
        if len(variant.replace) == 1:
            by_cell.setdefault(next(iter(variant.replace)), []).append(variant)
    return by_cell


def planted_class(source_nb: str | Path, assignment: str, seed: int = 0) -> PlantedClass:
    """The planted class of *assignment*: per exercise, one student for each sample answer
    (independent work), two students who wrote the reference (a pair alike only because of
    it), and copies of the correct sample answers: renamed variables, added comments and
    blank lines, both; a copy with its functions reordered (of an answer that defines two:
    the sample answer after the student's own version of the previous exercise's function)
    and, where :data:`LOOP_TO_COMPREHENSION` has one, a loop turned into a comprehension.
    Every other exercise of a student's notebook holds the reference."""
    source = nbformat.read(str(source_nb), as_version=4)
    release = release_notebook(source)
    reference = solution_sources(source)
    planted = PlantedClass(assignment)
    answers: dict[str, dict[str, str]] = {"reference_1": {}, "reference_2": {}}
    by_cell = _main_variants(VARIANTS.get(assignment, []))
    previous: dict[str, str] = {}
    cells = [c for c in reference if c in by_cell]
    for before, after in itertools.pairwise(cells):
        previous[after] = before

    def put(student: str, cell: str, code: str, origin: str, kind: str = "") -> None:
        answers.setdefault(student, {})[cell] = code
        key = f"{assignment}/{cell}"
        planted.origin[(key, student)] = origin
        if "+" not in origin:
            planted.sources.setdefault((key, origin), code)
        if kind:
            planted.kinds[(key, student)] = kind

    rng = random.Random(seed)
    for cell, variants in by_cell.items():
        for variant in variants:
            put(f"{cell}.{variant.name}", cell, variant.replace[cell], variant.name)
        for n, variant in enumerate(v for v in variants if v.correct):
            code, name = variant.replace[cell], variant.name
            put(
                f"{cell}.{name}.renamed",
                cell,
                rename_locals(code, rng.randrange(99)),
                name,
                "renamed",
            )
            put(
                f"{cell}.{name}.commented",
                cell,
                add_comments(code, rng.randrange(99)),
                name,
                "commented",
            )
            both = add_comments(rename_locals(code, rng.randrange(99)), rng.randrange(99))
            put(f"{cell}.{name}.renamed_commented", cell, both, name, "renamed and commented")
            if n == 0 and cell in previous:
                helper = next(v for v in by_cell[previous[cell]] if v.correct)
                two = (
                    helper.replace[previous[cell]].strip("\n") + "\n\n\n" + code.strip("\n") + "\n"
                )
                origin = f"{name}+{helper.name}"
                put(f"{cell}.{name}.with_helper", cell, two, origin)
                put(
                    f"{cell}.{name}.with_helper.reordered",
                    cell,
                    rename_locals(reorder_functions(two), rng.randrange(99)),
                    origin,
                    "functions reordered, renamed",
                )
                both = reorder_statements(reorder_functions(two), rng.randrange(99))
                if both != reorder_functions(two):
                    put(
                        f"{cell}.{name}.with_helper.shuffled",
                        cell,
                        rename_locals(both, rng.randrange(99)),
                        origin,
                        "functions and statements reordered, renamed",
                    )
            shuffled = reorder_statements(code, rng.randrange(99))
            if shuffled != code:
                put(f"{cell}.{name}.shuffled", cell, shuffled, name, "statements reordered")
            loop = LOOP_TO_COMPREHENSION.get((assignment, name))
            if loop is not None:
                put(f"{cell}.{name}.comprehension", cell, loop, name, "loop as a comprehension")
    for student, replace in answers.items():
        planted.notebooks[student] = make_submission(release, source, replace)
    return planted
