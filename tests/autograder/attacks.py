"""Hostile submissions, built from the course's real notebooks.

Each :class:`Attack` takes a *buggy* sample answer (an ``autograder.samples.Variant`` that
loses known test cells) and adds an attack a student might try to win those points back
or to harm the grader: patched assert helpers, an AST transformer, always-equal objects,
edited/deleted/duplicated test cells, reading the instructor's notebooks, writing into the
course, network access, ``os._exit``, an uninterruptible loop, memory and fork bombs,
huge output, a detached process. Every attack is bounded by itself (a fork bomb forks at
most a few hundred sleepers that exit on their own; a memory bomb touches at most
~1.5 GiB), so a failed limit cannot take the machine down.

The test (``tests/test_hostile_grading.py``) grades them all in one batch next to honest
submissions and checks: no score above the honest buggy answer's, every lost test still
0, the flag each attack must raise, nothing written outside the sandbox, no process left.
"""

from __future__ import annotations

import ast
import copy
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import nbformat
from nbformat import NotebookNode

from autograder.samples import Variant, make_submission

__all__ = ["ATTACKS", "Attack", "AttackContext", "function_name"]


@dataclass(frozen=True)
class AttackContext:
    """What an attack may know (a student could guess all of it)."""

    release_nb: NotebookNode
    source_nb: NotebookNode
    variant: Variant  # the buggy answer the attack tries to rescue
    answer_id: str  # grade id of the answer cell the variant replaces
    function: str  # the graded function that answer cell defines
    test_ids: tuple[str, ...]  # every autograded test cell id of the notebook
    lost: tuple[str, ...]  # the test ids the buggy answer loses
    paths: Mapping[str, str]  # "course", "gradebook", "autograded", "repo_notebooks"
    port: int  # a TCP server the test listens on, on 127.0.0.1
    marker: str  # unique text for processes and files of this run

    def base(self) -> NotebookNode:
        """The honest buggy submission."""
        return make_submission(self.release_nb, self.source_nb, self.variant.replace)


@dataclass(frozen=True)
class Attack:
    """One hostile submission and what grading it must show."""

    name: str
    description: str
    build: Callable[[AttackContext], NotebookNode]
    flag: str  # a regular expression some flag must match
    kills_kernel: bool = False  # the notebook's later cells cannot run
    extra: Mapping[str, object] = field(default_factory=dict)


def function_name(source: str) -> str:
    """The first function a cell defines."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            return node.name
    raise ValueError("no function in the answer")


def _grade_id(cell: NotebookNode) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _index(nb: NotebookNode, grade_id: str) -> int:
    for i, cell in enumerate(nb.cells):
        if _grade_id(cell) == grade_id:
            return i
    raise KeyError(grade_id)


def _insert_after(nb: NotebookNode, grade_id: str, code: str) -> NotebookNode:
    nb.cells.insert(_index(nb, grade_id) + 1, nbformat.v4.new_code_cell(textwrap.dedent(code)))
    return nb


def _append_to_answer(nb: NotebookNode, grade_id: str, code: str) -> NotebookNode:
    cell = nb.cells[_index(nb, grade_id)]
    cell.source = cell.source.rstrip() + "\n\n" + textwrap.dedent(code)
    return nb


# --------------------------------------------------------------------------- attacks


def _patch_asserts(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        """
        import numpy as np
        import numpy.testing
        import linlib.grading as _g

        def _yes(*args, **kwargs):
            return None

        np.testing.assert_allclose = _yes
        np.testing.assert_array_equal = _yes
        np.allclose = lambda *a, **k: True
        np.array_equal = lambda *a, **k: True
        for _name in ("assert_close", "assert_labels_equal", "assert_true", "assert_raises"):
            setattr(_g, _name, _yes)
            globals()[_name] = _yes
        """,
    )


def _ast_transformer(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        """
        import ast

        class _NoChecks(ast.NodeTransformer):
            def visit_Assert(self, node):
                return ast.Pass()

            def visit_Call(self, node):
                self.generic_visit(node)
                name = ast.unparse(node.func)
                if "assert" in name:
                    return ast.Constant(None)
                return node

        get_ipython().ast_transformers.append(_NoChecks())
        """,
    )


def _always_equal(ctx: AttackContext) -> NotebookNode:
    return _append_to_answer(
        ctx.base(),
        ctx.answer_id,
        f"""
        import numpy as _np

        class _AlwaysEqual(_np.ndarray):
            def __eq__(self, other):
                return True

            def __ne__(self, other):
                return False

            def __bool__(self):
                return True

        _honest_{ctx.function} = {ctx.function}

        def {ctx.function}(*args, **kwargs):
            result = _np.asarray(_honest_{ctx.function}(*args, **kwargs))
            return result.view(_AlwaysEqual)
        """,
    )


def _test_cells(ctx: AttackContext) -> NotebookNode:
    """Edits one failing test cell, deletes the other, fakes a duplicate of a third."""
    nb = ctx.base()
    first, *rest = ctx.lost
    nb.cells[_index(nb, first)].source = "pass  # nothing to see here"
    for grade_id in rest:
        del nb.cells[_index(nb, grade_id)]
    other = next(t for t in ctx.test_ids if t not in ctx.lost)
    index = _index(nb, other)
    fake = copy.deepcopy(nb.cells[index])
    fake.source = "print('all good')"
    nb.cells.insert(index, fake)  # the fake comes first
    return nb


def _escape(ctx: AttackContext) -> NotebookNode:
    """Reads the instructor's notebooks, writes into the course, calls the grader's loopback."""
    nb = _read_sources(ctx)
    for extra in (_write_outside, _network):
        added = extra(ctx).cells[_index(nb, ctx.answer_id) + 1]
        nb.cells.insert(_index(nb, ctx.answer_id) + 1, added)
    return nb


def _read_sources(ctx: AttackContext) -> NotebookNode:
    paths = [ctx.paths["course"], ctx.paths["repo_notebooks"], ctx.paths["autograded"]]
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        f"""
        import glob, json, os
        found = []
        for root in {paths!r} + ["/", "/root", "/home", "/tmp", "/work", ".."]:
            try:
                found += glob.glob(os.path.join(root, "**", "*.ipynb"), recursive=True)
            except Exception:
                pass
        for path in found:
            try:
                nb = json.load(open(path))
            except Exception:
                continue
            print("FOUND", path)
            for cell in nb.get("cells", []):
                src = "".join(cell.get("source", []))
                if "def {ctx.function}(" in src and "BEGIN SOLUTION" in src:
                    exec(src.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""))
                if "BEGIN HIDDEN TESTS" in src:
                    print("HIDDEN", src)
        """,
    )


def _write_outside(ctx: AttackContext) -> NotebookNode:
    targets = [
        ctx.paths["gradebook"],
        ctx.paths["course"] + f"/{ctx.marker}.txt",
        ctx.paths["autograded"] + f"/{ctx.marker}.txt",
        ctx.paths["repo_notebooks"] + f"/{ctx.marker}.txt",
    ]
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        f"""
        import os, sqlite3
        for path in {targets!r}:
            try:
                with open(path, "a") as fh:
                    fh.write("pwned")
                print("WROTE", path)
            except Exception as exc:
                print("refused", type(exc).__name__)
        with open("/tmp/{ctx.marker}-escape.txt", "w") as fh:  # the sandbox's own /tmp
            fh.write("private")
        try:
            db = sqlite3.connect({ctx.paths["gradebook"]!r})
            db.execute("update grade set manual_score = 100")
            db.commit()
            print("WROTE gradebook")
        except Exception as exc:
            print("refused", type(exc).__name__)
        """,
    )


def _network(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        f"""
        import socket
        for host in ("127.0.0.1", "localhost", "::1"):
            try:
                s = socket.create_connection((host, {ctx.port}), timeout=2)
                s.sendall(b"{ctx.marker}")
                s.close()
                print("CONNECTED", host)
            except OSError as exc:
                print("no network:", type(exc).__name__)
        """,
    )


def _os_exit(ctx: AttackContext) -> NotebookNode:
    return _insert_after(ctx.base(), ctx.answer_id, "import os\nos._exit(0)\n")


def _endless_loop(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        """
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        while True:
            pass
        """,
    )


def _endless_function(ctx: AttackContext) -> NotebookNode:
    # Only the re-check's calls hang (linlib._remote, the kernel side of the re-check, is on
    # the stack): the notebook itself runs normally.
    return _append_to_answer(
        ctx.base(),
        ctx.answer_id,
        f"""
        import inspect as _inspect
        import signal as _signal
        _honest_{ctx.function} = {ctx.function}

        def {ctx.function}(*args, **kwargs):
            if any(f.filename.endswith("_remote.py") for f in _inspect.stack()):
                _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
                while True:
                    pass
            return _honest_{ctx.function}(*args, **kwargs)
        """,
    )


def _memory_bomb(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        """
        import os, time
        try:
            huge = bytearray(8 * 1024**3)  # one process: stopped by RLIMIT_AS
        except MemoryError:
            print("MemoryError")
        children = []
        for _ in range(6):  # together ~1.5 GiB, each under RLIMIT_AS
            pid = os.fork()
            if pid == 0:
                block = bytearray(256 * 1024**2)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(30)
                os._exit(0)
            children.append(pid)
        time.sleep(30)
        """,
    )


def _fork_bomb(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        """
        import os, time
        made = refused = 0
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                refused += 1
                continue
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            made += 1
        print("forked", made, "refused", refused)
        """,
    )


def _huge_output(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        """
        import sys
        for _ in range(100):
            print("y" * 1_000_000, flush=True)
        sys.stdout.write("x" * 100_000_000)
        sys.stdout.flush()
        """,
    )


def _detached_process(ctx: AttackContext) -> NotebookNode:
    return _insert_after(
        ctx.base(),
        ctx.answer_id,
        f"""
        import os, subprocess, sys, time
        subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)  # {ctx.marker}"],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if os.fork() == 0:  # a classic daemon: double fork
            os.setsid()
            if os.fork() == 0:
                code = "import time; time.sleep(600)  # {ctx.marker}"
                os.execv(sys.executable, [sys.executable, "-c", code])
            os._exit(0)
        time.sleep(0.5)
        """,
    )


#: The flag of a test the student's kernel passed and the trusted re-check failed.
_DISAGREE = r"kernel reported a pass, but the trusted re-check of the visible tests failed"

ATTACKS: tuple[Attack, ...] = (
    Attack(
        "patched_asserts",
        "replaces np.testing and linlib's assert helpers",
        _patch_asserts,
        r"scan: .*(patches|rebinds)",
    ),
    Attack(
        "ast_transformer",
        "an IPython AST transformer deleting every check",
        _ast_transformer,
        r"scan: .*(transformer|ast_transformers)",
    ),
    Attack(
        "always_equal",
        "returns an array subclass whose == is always true",
        _always_equal,
        r"scan: .*comparison tricks",
    ),
    Attack(
        "test_cells",
        "edits a failing test cell, deletes another, fakes a duplicate first",
        _test_cells,
        r"was edited.*|.*was deleted|appears 2 times",
        extra={"all_flags": (r"was edited", r"was deleted", r"appears 2 times")},
    ),
    Attack(
        "escape",
        "reads the instructor's notebooks from any path and runs the solution, "
        "writes into the gradebook, the course and the output folder, connects to the "
        "grader's loopback",
        _escape,
        r"scan: .*notebook",
        extra={
            "all_flags": (r"scan: .*notebook", r"scan: .*(database|sqlite)", r"scan: .*network")
        },
    ),
    Attack(
        "os_exit",
        "ends its own kernel with os._exit",
        _os_exit,
        r"kernel stopped",
        kills_kernel=True,
    ),
    Attack(
        "endless_loop",
        "an endless loop with SIGINT ignored",
        _endless_loop,
        r"did not stop when interrupted",
        kills_kernel=True,
    ),
    Attack(
        "endless_function",
        "the answer hangs (SIGINT ignored) when re-checked",
        _endless_function,
        r"(did not stop|ignored the interrupt|no answer)",
    ),
    Attack(
        "memory_bomb",
        "six processes of 256 MiB each, and one 8 GiB allocation",
        _memory_bomb,
        r"memory",
        kills_kernel=True,
    ),
    Attack("fork_bomb", "forks up to 300 sleeping processes", _fork_bomb, r"left \d+ process"),
    Attack(
        "huge_output",
        "prints 100 lines of 1 MB, then 100 MB in one message (over the grader's 64 MiB)",
        _huge_output,
        r"output too large",
        extra={"all_flags": (r"output too large", r"output lost in cell")},
    ),
    Attack(
        "detached_process",
        "leaves a detached process and a daemon running",
        _detached_process,
        r"left \d+ process",
    ),
)


def lost_tests(variant: Variant) -> tuple[str, ...]:
    return tuple(sorted(variant.lost))


def pick_variant(variants: list[Variant]) -> Variant:
    """A buggy answer that changes one cell and loses a visible and a hidden test."""
    for variant in variants:
        if len(variant.replace) == 1 and len(variant.lost) >= 2:
            return variant
    for variant in variants:
        if len(variant.replace) == 1 and variant.lost:
            return variant
    raise LookupError("no single-cell buggy variant")
