"""Static scan of a submission's own code for tampering patterns.

The trusted re-check makes these tricks useless for the score; the scan makes them
visible to the instructor. Findings are readable flags, never automatic zeros: a student
may have a good reason for ``import subprocess`` in a try-it cell.

What is looked for, in the cells the student can edit (answer cells and unlocked cells):

- patched modules: assignments/``setattr``/``del`` on attributes of imported modules or
  objects (``np.testing.assert_allclose = ...``), ``sys.modules`` edits, ``importlib.reload``,
  ``__builtins__``/``builtins`` edits, rebinding a name the notebook imports;
- IPython hooks: ``ast_transformers``, input transformers, ``events.register``, magics;
- objects that lie in comparisons: classes defining ``__eq__``, ``__ne__``, ``__bool__``,
  ``__array__``, ``__array_ufunc__``, ``__float__`` ...;
- reading other files: ``.ipynb`` names, absolute paths or ``..`` in string literals,
  ``nbformat``, ``glob``/``os.walk`` of the file system;
- running other code: ``exec``/``eval``/``compile``, ``subprocess``, ``os.system``,
  ``os.fork``/``spawn``/``exec*``, ``multiprocessing``, ``socket`` and HTTP clients,
  ``ctypes``;
- introspection and escape hatches: ``__code__`` swaps, ``inspect.getsource``, frame
  access (``sys._getframe``, ``inspect.currentframe``), ``gc.get_objects``/``get_referrers``,
  ``sys.settrace``, ``signal.signal``, ``os._exit``/``os.kill``, ``resource.setrlimit``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from nbformat import NotebookNode
from nbgrader import utils

from autograder.notebook import grade_id
from autograder.recheck.scan_rules import (
    DANGEROUS_ATTRS,
    DANGEROUS_CALLS,
    DANGEROUS_MODULES,
    IPYTHON_HOOKS,
    LYING_DUNDERS,
    WELL_KNOWN_MODULES,
)

__all__ = ["Finding", "imported_names", "scan_notebook", "scan_source", "student_cells"]


@dataclass(frozen=True)
class Finding:
    """One suspicious pattern in a student's cell."""

    cell: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"scan: {self.cell}, line {self.line}: {self.message}"


def _root(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression
        return "?"


def parse_cell(source: str) -> ast.Module | None:
    """A code cell's syntax tree; IPython syntax (magics, ``!shell``) is translated first."""
    try:
        return ast.parse(source)
    except SyntaxError:
        try:
            from IPython.core.inputtransformer2 import TransformerManager

            return ast.parse(TransformerManager().transform_cell(source))
        except Exception:
            return None


def _imports(trees: Iterable[ast.Module]) -> tuple[set[str], dict[str, str]]:
    """(names bound by imports, alias -> module for ``import x as y``)."""
    names: set[str] = set()
    modules: dict[str, str] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = (alias.asname or alias.name).split(".")[0]
                    names.add(bound)
                    modules[bound] = alias.name if alias.asname else alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name != "*":
                        names.add(alias.asname or alias.name)
                        modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names, modules


def imported_names(sources: Iterable[str]) -> set[str]:
    """Every name the import statements of *sources* bind."""
    trees = [t for t in (parse_cell(s) for s in sources) if t is not None]
    return _imports(trees)[0]


def _looks_like_outside_path(text: str) -> str | None:
    if ".ipynb" in text:
        return "names a notebook file"
    if text.startswith("/") and len(text) > 1 and not text.startswith("/tmp"):
        return "uses an absolute path"
    if text.startswith("~"):
        return "uses a home-directory path"
    if "../" in text or text == "..":
        return "uses a path outside its folder (..)"
    if text.startswith(("gradebook", "sqlite:")) or text.endswith(".db"):
        return "names a database"
    return None


class _Scanner(ast.NodeVisitor):
    def __init__(self, cell: str, protected: set[str], modules: dict[str, str]) -> None:
        self.cell = cell
        self.protected = protected
        self.modules = modules
        self.findings: list[Finding] = []
        self._magic_calls: set[int] = set()

    def add(self, node: ast.AST, message: str) -> None:
        self.findings.append(Finding(self.cell, getattr(node, "lineno", 0), message))

    def _module_of(self, name: str | None) -> str | None:
        if name is None:
            return None
        return self.modules.get(name, name)

    # -- assignments ----------------------------------------------------------------------

    def _check_target(self, target: ast.AST, verb: str) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self._check_target(elt, verb)
            return
        if isinstance(target, ast.Attribute | ast.Subscript):
            root = _root(target)
            if (
                root in self.protected
                or root in self.modules
                or root in WELL_KNOWN_MODULES
                or root == "__builtins__"
            ) and not _dotted(target).startswith(("plt.rcParams", "matplotlib.rcParams")):
                self.add(target, f"{verb} {_dotted(target)} (patches an imported module)")
            elif isinstance(target, ast.Attribute) and target.attr in IPYTHON_HOOKS:
                self.add(target, f"{verb} {_dotted(target)} (an IPython hook)")
            elif isinstance(target, ast.Attribute) and target.attr == "__code__":
                self.add(target, f"{verb} {_dotted(target)} (swaps a function's code)")
            elif isinstance(target, ast.Attribute) and target.attr in (
                "__class__",
                "__globals__",
                "__dict__",
            ):
                self.add(target, f"{verb} {_dotted(target)}")
        elif isinstance(target, ast.Name):
            if target.id in self.protected and self.cell_is_student:
                self.add(target, f"rebinds {target.id}, which the notebook imports")
            if target.id == "__builtins__":
                self.add(target, "rebinds __builtins__")

    cell_is_student = True

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._check_target(target, "assigns")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target, "changes")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target, "assigns")
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._check_target(target, "deletes")
        self.generic_visit(node)

    # -- classes --------------------------------------------------------------------------

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        lying = sorted(
            stmt.name
            for stmt in node.body
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
            and stmt.name in LYING_DUNDERS
        )
        lying += sorted(
            t.id
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            for t in stmt.targets
            if isinstance(t, ast.Name) and t.id in LYING_DUNDERS
        )
        if lying:
            self.add(node, f"class {node.name} defines {', '.join(lying)} (comparison tricks)")
        for base in node.bases:
            if _root(base) in ("ast",) or _dotted(base).endswith("NodeTransformer"):
                self.add(node, f"class {node.name} is an AST transformer")
        self.generic_visit(node)

    # -- imports and calls ----------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top in DANGEROUS_MODULES:
                self.add(node, f"imports {alias.name}: {DANGEROUS_MODULES[top]}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        if top in DANGEROUS_MODULES:
            self.add(node, f"imports from {node.module}: {DANGEROUS_MODULES[top]}")
        for alias in node.names:
            key = (top, alias.name)
            if key in DANGEROUS_ATTRS:
                self.add(node, f"imports {node.module}.{alias.name}: {DANGEROUS_ATTRS[key]}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = _root(node.value)
        module = self._module_of(root)
        if isinstance(node.value, ast.Name) and module is not None:
            key = (module.split(".")[0], node.attr)
            if key in DANGEROUS_ATTRS:
                self.add(node, DANGEROUS_ATTRS[key])
        if node.attr in (
            "ast_transformers",
            "input_transformers_cleanup",
            "input_transformers_post",
            "input_transformer_manager",
        ):
            self.add(node, f"uses {_dotted(node)} (IPython input/AST transformers)")
        elif node.attr == "register" and "events" in _dotted(node.value):
            self.add(node, f"registers an IPython event callback ({_dotted(node)})")
        elif node.attr in (
            "__code__",
            "__globals__",
            "__closure__",
            "__builtins__",
            "__subclasses__",
            "__mro__",
            "__bases__",
            "f_back",
            "f_globals",
            "f_locals",
            "tb_frame",
            "gi_frame",
        ):
            self.add(node, f"uses {_dotted(node)} (introspection)")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
            if name in ("setattr", "delattr") and node.args:
                root = _root(node.args[0])
                if root in self.protected or root in self.modules or root in WELL_KNOWN_MODULES:
                    self.add(node, f"{name} on {_dotted(node.args[0])} (patches a module)")
            elif (what := DANGEROUS_CALLS.get(name)) is not None:  # exec, eval, ...
                self.add(node, what)
            elif name == "get_ipython" and not self._is_magic_call(node):
                self.add(node, "uses get_ipython()")
            elif name == "open" and node.args:
                self._check_path_arg(node.args[0], node)
        elif isinstance(func, ast.Attribute) and func.attr in (
            "write_text",
            "write_bytes",
            "read_text",
            "read_bytes",
        ):
            self._check_path_arg(func.value, node)
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> None:
        # IPython turns `%magic` into get_ipython().run_line_magic(...): remember those.
        call = node.value
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Call)
            and isinstance(call.func.value.func, ast.Name)
            and call.func.value.func.id == "get_ipython"
        ):
            attr = call.func.attr
            if attr in ("system", "getoutput"):
                self.add(node, "runs a shell command (!command)")
            elif attr in ("run_line_magic", "run_cell_magic"):
                self._magic_calls.add(id(call.func.value))
                magic = (
                    str(call.args[0].value)
                    if call.args and isinstance(call.args[0], ast.Constant)
                    else ""
                )
                if magic not in ("matplotlib", "time", "timeit", "config", "precision"):
                    self.add(node, f"runs the IPython magic %{magic}")
        self.generic_visit(node)

    def _is_magic_call(self, node: ast.Call) -> bool:
        return id(node) in self._magic_calls

    def _check_path_arg(self, arg: ast.AST, node: ast.AST) -> None:
        for sub in ast.walk(arg):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                why = _looks_like_outside_path(sub.value)
                if why:
                    self.add(node, f"opens {sub.value!r}: {why}")
                    return

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and len(node.value) < 400:
            text = node.value
            if ".ipynb" in text:
                self.add(node, f"mentions a notebook file ({text[:60]!r})")
            elif "gradebook" in text.lower():
                self.add(node, f"mentions the gradebook ({text[:60]!r})")
            elif text.startswith(("/work", "/root", "/home", "/srv", "/var", "/etc", "/proc")):
                self.add(node, f"mentions a system path ({text[:60]!r})")


def scan_source(
    source: str,
    cell: str,
    protected: AbstractSet[str] | None = None,
    modules: dict[str, str] | None = None,
) -> list[Finding]:
    """Findings in one cell's source."""
    tree = parse_cell(source)
    if tree is None:
        return []
    scanner = _Scanner(cell, set(protected or ()), dict(modules or {}))
    scanner.visit(tree)
    return scanner.findings


def student_cells(nb: NotebookNode) -> list[tuple[str, NotebookNode]]:
    """The code cells a student can change: answer cells and unlocked ordinary cells.

    Not nbgrader's ``utils.is_locked``: that calls an answer cell unlocked whatever its
    metadata says, while here a cell marked ``locked`` is never the student's.
    """
    out = []
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        locked = (cell.get("metadata", {}).get("nbgrader") or {}).get("locked")
        if locked or (utils.is_grade(cell) and not utils.is_solution(cell)):
            continue
        label = grade_id(cell) if utils.is_solution(cell) else None
        out.append((f"cell {label}" if label else f"cell #{index + 1}", cell))
    return out


@functools.lru_cache(maxsize=32)
def _instructor_part(
    sources: tuple[str, ...],
) -> tuple[frozenset[str], dict[str, str], frozenset[str]]:
    """What :func:`scan_notebook` needs of the instructor's code, the same for every
    submission of an assignment (a grading worker parses it once): the names its imports
    bind, alias -> module, and its cells' stripped sources. The dict is never changed
    (:func:`scan_source` copies what it is given)."""
    trees = [t for t in (parse_cell(s) for s in sources) if t is not None]
    protected, modules = _imports(trees)
    return frozenset(protected), modules, frozenset(s.strip() for s in sources)


def scan_notebook(
    nb: NotebookNode,
    *,
    instructor_sources: Iterable[str] = (),
    limit: int = 25,
) -> list[Finding]:
    """Scan the student's cells of *nb*; names the instructor's code imports are protected.

    Parameters
    ----------
    nb : NotebookNode
        The submitted (sanitized) notebook.
    instructor_sources : iterable of str
        The instructor's code (locked and test cells, the source notebook): what it imports
        must not be rebound or patched by the student.
    limit : int
        At most this many findings (the first ones), plus a final "and N more".
    """
    protected, instructor_modules, unchanged = _instructor_part(tuple(instructor_sources))
    # A cell the student left exactly as the instructor wrote it is the instructor's code.
    student = [(label, c) for label, c in student_cells(nb) if c.source.strip() not in unchanged]
    student_trees = [t for t in (parse_cell(c.source) for _, c in student) if t is not None]
    _, student_modules = _imports(student_trees)
    modules = {**student_modules, **instructor_modules}
    findings: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for label, cell in student:
        for finding in scan_source(cell.source, label, protected, modules):
            key = (finding.cell, finding.message)
            if key in seen:
                continue
            seen.add(key)
            findings.append(finding)
    if len(findings) > limit:
        extra = len(findings) - limit
        findings = [*findings[:limit], Finding("notebook", 0, f"and {extra} more findings")]
    return findings
