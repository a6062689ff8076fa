"""Name analysis: what a test cell needs, and how the trusted namespace provides it.

:func:`free_names` finds the names a cell reads; :class:`InstructorCode` records which
statement of the instructor's notebook binds each name, and which functions are graded
(the answer cells' ``def``\\ s); the resolver builds a test cell's namespace: graded
functions become :class:`~autograder.recheck.channel.RemoteFunction` proxies, names the
instructor's code binds are re-made by running those statements here, and anything else
is fetched from the kernel as plain data (or stands in as an unavailable name).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autograder.recheck.channel import (
    KernelCallTimeout,
    KernelChannel,
    KernelUnavailable,
    RemoteFunction,
    Unavailable,
)
from autograder.recheck.codec import NotPlainData, decode
from autograder.recheck.scan import parse_cell as _parse
from course_common.solutions import SOLUTION_MARKERS, solution_lines

__all__ = [
    "DEFAULT_MODULE_ALIASES",
    "InstructorCode",
    "MirroredNamespace",
    "Resolver",
    "bound_names",
    "free_names",
    "quiet",
    "read_before_bound",
]

#: Conventional module aliases used when the instructor's notebook is not at hand.
DEFAULT_MODULE_ALIASES: Mapping[str, str] = {
    "np": "numpy",
    "numpy": "numpy",
    "linlib": "linlib",
    "math": "math",
}


def _parameters(args: ast.arguments) -> set[str]:
    """The names a function's or a lambda's parameters bind."""
    names = {arg.arg for arg in args.posonlyargs + args.args + args.kwonlyargs}
    names.update(arg.arg for arg in (args.vararg, args.kwarg) if arg is not None)
    return names


def free_names(source: str | ast.AST) -> set[str]:
    """Names a piece of code reads but does not bind itself (builtins included)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            if not isinstance(node, ast.ClassDef):
                bound |= _parameters(node.args)
        elif isinstance(node, ast.Lambda):
            bound |= _parameters(node.args)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
    return loaded - bound


def read_before_bound(body: Sequence[ast.stmt], bound: set[str] | None = None) -> set[str]:
    """Names the statements *body* read, in order, before they bind them themselves
    (``orig = squares`` before ``del squares``; ``squares = orig`` after it): names
    :func:`free_names` misses, since the cell binds them too. Compound statements are
    followed into their bodies in order; a function's or a class's body is not (it runs
    later)."""
    bound = set() if bound is None else bound
    early: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.For | ast.AsyncFor):
            early |= free_names(ast.Expression(stmt.iter)) - bound
            bound |= {n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)}
            early |= read_before_bound([*stmt.body, *stmt.orelse], bound)
        elif isinstance(stmt, ast.While | ast.If):
            early |= free_names(ast.Expression(stmt.test)) - bound
            early |= read_before_bound([*stmt.body, *stmt.orelse], bound)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                early |= free_names(ast.Expression(item.context_expr)) - bound
                if item.optional_vars is not None:
                    bound |= {n.id for n in ast.walk(item.optional_vars) if isinstance(n, ast.Name)}
            early |= read_before_bound(stmt.body, bound)
        elif isinstance(stmt, ast.Try | ast.TryStar):
            early |= read_before_bound(stmt.body, bound)
            for handler in stmt.handlers:
                if handler.type is not None:
                    early |= free_names(ast.Expression(handler.type)) - bound
                if handler.name:
                    bound.add(handler.name)
                early |= read_before_bound(handler.body, bound)
            early |= read_before_bound([*stmt.orelse, *stmt.finalbody], bound)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            decorators = [*stmt.decorator_list]
            early |= set().union(*(free_names(ast.Expression(d)) for d in decorators)) - bound
        elif not isinstance(stmt, ast.Match):
            early |= free_names(ast.Module(body=[stmt], type_ignores=[])) - bound
        bound |= _bound_names(stmt)
    return early


def bound_names(tree: ast.Module) -> set[str]:
    """Names the top-level statements of *tree* bind."""
    return set().union(*(_bound_names(stmt) for stmt in tree.body))


def _bound_names(stmt: ast.stmt) -> set[str]:
    """Names a top-level statement binds."""
    names: set[str] = set()
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        for alias in stmt.names:
            if alias.name == "*":
                continue
            names.add((alias.asname or alias.name).split(".")[0])
    elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        names.add(stmt.name)
    elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    names.add(node.id)
    else:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                names.add(node.id)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    names.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
    return names


@dataclass
class _Binding:
    position: int
    stmt: ast.stmt
    #: "instructor" (a cell the student cannot edit), "given" (a solution cell's line
    #: outside its solution region), "solution" (inside it: the student's) or "test"
    kind: str


def _module_of(stmt: ast.stmt, name: str) -> str | None:
    """The module an import statement binds *name* to (``numpy`` for ``import numpy as
    np``, ``helper`` for ``from helper import f``); None for any other statement."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if (alias.asname or alias.name).split(".")[0] == name:
                return alias.name if alias.asname else alias.name.split(".")[0]
    elif isinstance(stmt, ast.ImportFrom) and not stmt.level and stmt.module:
        for alias in stmt.names:
            if (alias.asname or alias.name) == name:
                return f"{stmt.module}:{alias.name}"
    return None


def version_name(name: str, key: str) -> str:
    """The name the kernel keeps the definition of *name* made by the answer cell *key*
    under (a name no student writes)."""
    safe = "".join(c if c.isalnum() else "_" for c in key)
    return f"_autograder_{name}_as_of_{safe}"


@dataclass
class InstructorCode:
    """What the instructor's notebook binds where: the basis of the trusted namespace.

    Parameters
    ----------
    cells : sequence of (kind, key, source)
        The instructor's code cells in order; *kind* is ``"solution"`` (an answer cell:
        what its solution region binds is the student's; of its given lines, outside the
        region, the imports are trusted), ``"test"`` (an autograded test cell, *key* its
        grade id) or ``"code"`` (any other cell).
    markers : (str, str)
        The course's solution markers (a solution cell without them is all solution).
    local_modules : set of str
        Modules shipped beside the notebook: imported in the student's kernel only, where
        their state is (never trusted here).
    """

    cells: Sequence[tuple[str, str | None, str]]
    markers: tuple[str, str] = SOLUTION_MARKERS
    local_modules: frozenset[str] = frozenset()
    graded_functions: set[str] = field(default_factory=set)
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    positions: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for position, (kind, key, source) in enumerate(self.cells):
            if kind == "test" and key:
                self.positions[key] = position
            tree = _parse(source)
            if tree is None:
                continue
            region = solution_lines(source, self.markers) if kind == "solution" else None
            for stmt in tree.body:
                if kind == "solution":
                    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                        self.graded_functions.add(stmt.name)
                    lines = set(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
                    given = region is not None and not lines & region
                    what = "given" if given else "solution"
                else:
                    what = "test" if kind == "test" else "instructor"
                for name in _bound_names(stmt):
                    self.bindings.setdefault(name, []).append(_Binding(position, stmt, what))

    def redefined(self) -> dict[str, list[tuple[int, str]]]:
        """Graded functions that several answer cells define (an exercise that refines an
        earlier one under the same name): name -> (position, the answer cell's grade id) of
        each definition, in order."""
        out: dict[str, list[tuple[int, str]]] = {}
        for name in sorted(self.graded_functions):
            defs = ast.FunctionDef | ast.AsyncFunctionDef
            found = [
                (b.position, str(self.cells[b.position][1]))
                for b in self.bindings.get(name, [])
                if b.kind == "solution" and isinstance(b.stmt, defs)
            ]
            places = list(dict.fromkeys(found))
            if len(places) > 1 and all(key not in ("", "None") for _, key in places):
                out[name] = places
        return out

    def keep_after(self) -> dict[str, dict[str, str]]:
        """Answer cell grade id -> {graded function: the name its definition of it is kept
        under in the kernel} for each redefined function (:meth:`redefined`) but its last
        definition: the kernel keeps each earlier one, so that a test between two
        definitions calls the one it met."""
        out: dict[str, dict[str, str]] = {}
        for name, places in self.redefined().items():
            for _, key in places[:-1]:
                out.setdefault(key, {})[name] = version_name(name, key)
        return out

    def versions_at(self, position: int | None) -> dict[str, str]:
        """graded function -> the name of its definition a test cell at *position* met in
        the kernel, where that is not its last (:meth:`keep_after`)."""
        if position is None:
            return {}
        out: dict[str, str] = {}
        for name, places in self.redefined().items():
            before = [key for place, key in places if place < position]
            if before and before[-1] != places[-1][1]:
                out[name] = version_name(name, before[-1])
        return out

    def binding_before(self, name: str, position: int | None) -> _Binding | None:
        """The statement of the instructor's notebook (a test cell's excepted: the re-check
        runs those itself) that last binds *name* before *position*."""
        candidates = [b for b in self.bindings.get(name, []) if b.kind != "test"]
        if not candidates:
            return None
        if position is None:
            return candidates[-1]
        before = [b for b in candidates if b.position < position]
        return before[-1] if before else candidates[0]

    def trusted_import(self, name: str, binding: _Binding) -> bool:
        """Whether *binding*, an import, is made here: the instructor wrote it (in a cell
        the student cannot edit, or in a solution cell's given lines; or in the solution
        region, where the instructor's own lines also import the same as *name*), and it
        is not a module shipped beside the notebook."""
        module = _module_of(binding.stmt, name)
        if module is None or module.split(".")[0].split(":")[0] in self.local_modules:
            return False
        if binding.kind in ("instructor", "given"):
            return True
        return any(
            other.kind in ("instructor", "given") and _module_of(other.stmt, name) == module
            for other in self.bindings.get(name, [])
        )


class Resolver:
    """Builds the trusted namespace of a notebook's test cells, cell by cell: what a test
    cell reads and neither an earlier test cell nor an earlier resolution bound."""

    def __init__(
        self,
        code: InstructorCode,
        channel: KernelChannel,
        aliases: Mapping[str, str],
        namespace: dict[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.channel = channel
        self.aliases = aliases
        self.namespace: dict[str, Any] = (
            namespace
            if namespace is not None
            else {"__name__": "__main__", "__builtins__": builtins}
        )
        self.position: int | None = None
        self.notes: list[str] = []
        self._busy: set[str] = set()
        #: name -> where its value in the namespace came from: a binding of the
        #: instructor's, "kernel", "graded" or "test" (a test cell bound it)
        self.origins: dict[str, Any] = {}

    def bound_by_test(self, names: Iterable[str]) -> None:
        """*names* were bound by a test cell run here: kept for the later cells."""
        for name in names:
            if name in self.namespace:
                self.origins[name] = "test"

    def resolve_all(self, names: Iterable[str], position: int | None = None) -> dict[str, Any]:
        """Bind each of *names* for the test cell at *position* (in the instructor's
        notebook) that is not bound already as that cell would see it."""
        self.position = position
        remote: set[str] = set()
        for name in sorted(names):
            if self._current(name):
                continue
            self.namespace.pop(name, None)
            if not self._resolve_local(name, depth=0):
                remote.add(name)
        self._resolve_remote(remote)
        return self.namespace

    def _plan(self, name: str) -> Any:
        """Where *name*'s value comes from for the current cell."""
        if name in self.code.graded_functions:
            return "graded"
        binding = self.code.binding_before(name, self.position)
        if binding is None:
            return "kernel"
        if binding.kind == "instructor" or (
            binding.kind in ("given", "solution") and self.code.trusted_import(name, binding)
        ):
            return binding
        return "kernel"

    def _current(self, name: str) -> bool:
        """*name* is bound already as the current cell would see it."""
        if name not in self.namespace:
            return False
        origin = self.origins.get(name)
        if origin in ("test", None):  # a test cell's, or the namespace's own (__name__)
            return True
        return bool(origin == self._plan(name))

    def _resolve_local(self, name: str, depth: int) -> bool:
        """Bind *name* without asking the kernel for data; False if that is impossible."""
        if name in self.namespace and self._current(name):
            return True
        plan = self._plan(name)
        if plan == "graded":
            self.namespace[name] = RemoteFunction(self.channel, name)
            self.origins[name] = "graded"
            return True
        if plan == "kernel":
            if name not in self.code.bindings and name in self.aliases:
                with contextlib.suppress(ImportError):
                    self.namespace[name] = __import__(self.aliases[name], fromlist=["_"])
                    self.origins[name] = "kernel"
                    return True
            if name not in self.code.bindings and hasattr(builtins, name):
                return True
            return False
        if depth > 8 or name in self._busy:
            return False
        binding = plan
        stmt = binding.stmt
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            aliases = [a for a in stmt.names if (a.asname or a.name).split(".")[0] == name]
            if isinstance(stmt, ast.ImportFrom):
                aliases = [a for a in stmt.names if (a.asname or a.name) == name]
            node: ast.stmt
            if isinstance(stmt, ast.Import):
                node = ast.Import(names=aliases)
            else:
                node = ast.ImportFrom(module=stmt.module, names=aliases, level=stmt.level)
            return self._run(ast.fix_missing_locations(node), name, binding)
        self._busy.add(name)
        try:
            needed = free_names(ast.Module(body=[stmt], type_ignores=[]))
            if isinstance(stmt, ast.AugAssign):
                return False
            for other in needed:
                if other == name or (hasattr(builtins, other) and other not in self.code.bindings):
                    continue
                if not self._resolve_local(other, depth + 1):
                    if other in self.namespace:
                        continue
                    self._resolve_remote({other})
            return self._run(stmt, name, binding)
        finally:
            self._busy.discard(name)

    def _run(self, stmt: ast.stmt, name: str, binding: _Binding) -> bool:
        module = ast.Module(body=[stmt], type_ignores=[])
        try:
            code = compile(module, f"<instructor code for {name}>", "exec")
            with quiet():
                exec(code, self.namespace)
        except Exception as exc:  # instructor code that does not run here: ask the kernel
            self.notes.append(f"{name}: instructor code failed here ({type(exc).__name__})")
            return False
        for bound in _bound_names(stmt):
            if bound in self.namespace:
                self.origins[bound] = binding
        return name in self.namespace

    def _resolve_remote(self, names: set[str]) -> None:
        names = {n for n in names if n not in self.namespace}
        if not names:
            return
        try:
            found = self.channel.describe(names)
        except (KernelUnavailable, KernelCallTimeout, NotPlainData) as exc:
            for name in names:
                self.namespace[name] = Unavailable(name, str(exc))
            return
        for name in names:
            info = found.get(name, {})
            kind = info.get("kind")
            if kind == "data":
                try:
                    self.namespace[name] = decode(info.get("value"), refs=self.channel.proxies.get)
                    self.origins[name] = "kernel"
                except (NotPlainData, ValueError, TypeError) as exc:
                    self.namespace[name] = Unavailable(name, str(exc))
                    self.notes.append(f"{name}: {exc}")
            elif kind == "missing":
                if not hasattr(builtins, name):
                    self.namespace[name] = Unavailable(name, "it is not defined")
            else:
                why = str(info.get("message", "not plain data"))
                self.namespace[name] = Unavailable(name, why)
                self.notes.append(f"{name}: {why}")


class MirroredNamespace(dict):
    """A test cell's trusted namespace that does to the student's kernel what the cell
    does to a graded function's name at its top level: ``del squares`` moves the kernel's
    ``squares`` aside (so the student's ``sum_of_squares`` finds no ``squares``, as in
    stock nbgrader) and ``squares = saved`` puts it back; a proxy saved before the ``del``
    follows the function. A graded name bound to the grader's own object (a mock) is not
    mirrored: the student's functions keep calling theirs."""

    def __init__(
        self, namespace: Mapping[str, Any], channel: KernelChannel, graded: Iterable[str]
    ) -> None:
        super().__init__(namespace)
        self._channel = channel
        self._graded = set(graded)
        self._moved = 0

    def __delitem__(self, key: str) -> None:
        value = self.get(key)
        if isinstance(value, RemoteFunction) and value.name == key:
            self._moved += 1
            aside = f"_autograder_deleted_{key}_{self._moved}"
            self._channel.bind(aside, key, move=True)
            value.name = aside
        super().__delitem__(key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self._graded and isinstance(value, RemoteFunction) and value.name != key:
            self._channel.bind(key, value.name)
        super().__setitem__(key, value)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No warnings, no stdout, no stderr: instructor code run here prints nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
