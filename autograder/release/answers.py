"""What a student's linlib leaves out: the library's answers to the course's exercises.

**The answers.** A test cell names the library references a student must not hand in as
their own: the ``disable=`` of its ``call_student`` calls (read by
:func:`autograder.notebook.disabled_names`). Those of linlib are the answers: an
assignment's are the linlib functions and classes its test cells disable that no earlier
assignment's (in course order) disable: the first assignment's the functions its own
exercises reimplement, the second's those of its exercises, and so on.
No second list: a test cell that disables a new reference makes it an answer.

**The student build of an assignment** (:func:`student_build`) stubs the answers of that
assignment and of every later one (an earlier assignment's stay: later notebooks call
them), except what the assignment's release notebook needs: the linlib names its code
refers to (its demonstrations and visible tests, through ``import linlib`` / ``from
linlib... import``) and everything linlib code reachable from them refers to, so each of
its cells runs as it does with the full library. A private helper that only stubbed code
used is stubbed too (a private helper that computes an exercise's answer *is* the answer).

**Stubbing** (:func:`write_student_linlib`) works on the source with :mod:`ast`: the body
of each stubbed function — for a class, of each of its methods — and its docstring become
a docstring and a ``raise NotImplementedError`` that say the function is not part of the
student build; every other line of the module stays as written. ``linlib/_build.py``
records the assignment, the stubbed names and the library's answers that the release's
test cells need of them (:mod:`.replays`; ``linlib.grading`` reads it: a test's
``use_reference`` of a stubbed reference gets those answers, or the student's own function).

The grader uses the full library (the repository's ``linlib``); only the wheels in the
student zips are built from this.
"""

from __future__ import annotations

import ast
import json
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.course import origin
from autograder.notebook import disabled_names, is_test_cell
from course_common.paths import LINLIB_DIR

PACKAGE = "linlib"
#: The module of linlib that says which build it is (rewritten in a student build).
BUILD_MODULE = "_build.py"

#: A top-level definition of linlib: (module, name), e.g. ("linlib.geometry", "augment").
Key = tuple[str, str]


class AnswersError(ValueError):
    """The answers cannot be read from the notebooks (an unknown name, an unreadable
    ``disable=``), or a module cannot be stubbed."""


# --------------------------------------------------------------------------- linlib's source


def _module_name(path: Path, package_dir: Path) -> str:
    relative = path.relative_to(package_dir).with_suffix("")
    parts = [PACKAGE, *relative.parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _code_lines(source: str) -> str:
    """A notebook cell's source as Python: IPython's magics and shell lines blanked."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")
    )


@dataclass
class _Module:
    name: str
    path: Path
    source: str
    tree: ast.Module
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = field(
        default_factory=dict
    )
    # local name -> ("def", module, name) or ("module", module, "")
    bindings: dict[str, tuple[str, str, str]] = field(default_factory=dict)


def _import_bindings(tree: ast.AST, modules: Iterable[str]) -> dict[str, tuple[str, str, str]]:
    """The names the import statements of ``tree`` bind to linlib's modules and names."""
    known = set(modules)
    out: dict[str, tuple[str, str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != PACKAGE:
                    continue
                if alias.asname:
                    out[alias.asname] = ("module", alias.name, "")
                else:
                    out[PACKAGE] = ("module", PACKAGE, "")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                local = alias.asname or alias.name
                submodule = f"{node.module}.{alias.name}"
                if submodule in known:
                    out[local] = ("module", submodule, "")
                else:
                    out[local] = ("def", node.module, alias.name)
    return out


class LinlibSource:
    """linlib's modules as parsed source: their top-level functions and classes, the names
    their imports bind, and which definitions each definition refers to."""

    def __init__(self, package_dir: Path = LINLIB_DIR) -> None:
        self.package_dir = Path(package_dir)
        self.modules: dict[str, _Module] = {}
        for path in sorted(self.package_dir.glob("*.py")):
            source = path.read_text(encoding="utf-8")
            name = _module_name(path, self.package_dir)
            self.modules[name] = _Module(name, path, source, ast.parse(source, str(path)))
        for module in self.modules.values():
            for node in module.tree.body:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    module.defs[node.name] = node
            module.bindings = _import_bindings(module.tree, self.modules)
        self._refs: dict[Key, set[Key]] = {}

    # ------------------------------------------------------------------ names

    def resolve(self, module: str, name: str) -> Key | None:
        """The definition ``name`` means in ``module`` (following re-exports), or None."""
        seen: set[Key] = set()
        while (module, name) not in seen:
            seen.add((module, name))
            info = self.modules.get(module)
            if info is None:
                return None
            if name in info.defs:
                return (module, name)
            binding = info.bindings.get(name)
            if binding is None or binding[0] != "def":
                return None
            _, module, name = binding
        return None

    def resolve_dotted(self, dotted: str) -> Key | None:
        """A ``disable=`` name of linlib: ``"augment"`` (a public name) or a dotted path
        ``"linlib.geometry.augment"`` (``"linlib.Perceptron.fit"`` means the class)."""
        parts = dotted.split(".")
        if parts[0] != PACKAGE:
            parts = [PACKAGE, *parts]
        for split in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:split])
            if module in self.modules:
                return self.resolve(module, parts[split])
        return None

    def public_names(self) -> dict[Key, str]:
        """Each definition the package exports, by the name ``linlib.<name>``."""
        out: dict[Key, str] = {}
        for name in sorted(self.modules[PACKAGE].bindings):
            key = self.resolve(PACKAGE, name)
            if key is not None and not name.startswith("_"):
                out.setdefault(key, name)
        return out

    def label(self, key: Key, public: Mapping[Key, str] | None = None) -> str:
        public = self.public_names() if public is None else public
        return f"{PACKAGE}.{public[key]}" if key in public else ".".join(key)

    # ------------------------------------------------------------------ references

    def _references(self, module: str, nodes: Iterable[ast.AST]) -> set[Key]:
        info = self.modules[module]
        out: set[Key] = set()
        for top in nodes:
            for node in ast.walk(top):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    binding = info.bindings.get(node.id)
                    if node.id in info.defs:
                        out.add((module, node.id))
                    elif binding is not None and binding[0] == "def":
                        key = self.resolve(binding[1], binding[2])
                        if key is not None:
                            out.add(key)
                elif isinstance(node, ast.Attribute):
                    target = self._module_of(info, node.value)
                    if target is not None:
                        key = self.resolve(target, node.attr)
                        if key is not None:
                            out.add(key)
        return out

    def _module_of(self, info: _Module, node: ast.AST) -> str | None:
        """The linlib module an expression names (``plotting``, ``linlib.widgets``)."""
        if isinstance(node, ast.Name):
            binding = info.bindings.get(node.id)
            return binding[1] if binding is not None and binding[0] == "module" else None
        if isinstance(node, ast.Attribute):
            parent = self._module_of(info, node.value)
            if parent is not None and f"{parent}.{node.attr}" in self.modules:
                return f"{parent}.{node.attr}"
        return None

    def references(self, key: Key) -> set[Key]:
        """The linlib definitions a function or class (all its methods) refers to."""
        if key not in self._refs:
            module, name = key
            self._refs[key] = self._references(module, [self.modules[module].defs[name]])
        return self._refs[key]

    def import_time_references(self) -> set[Key]:
        """What runs when linlib is imported: module-level code, decorators, defaults,
        base classes and class bodies (a method's body runs only when called)."""
        out: set[Key] = set()
        for module in self.modules.values():
            nodes: list[ast.AST] = []
            for node in module.tree.body:
                if isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    nodes += [*node.decorator_list, *node.args.defaults]
                    nodes += [d for d in node.args.kw_defaults if d is not None]
                elif isinstance(node, ast.ClassDef):
                    nodes += [*node.decorator_list, *node.bases, *node.keywords]
                    nodes += [
                        s
                        for s in node.body
                        if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                    ]
                else:
                    nodes.append(node)
            out |= self._references(module.name, nodes)
        return out

    def closure(self, roots: Iterable[Key], *, through: set[Key] | None = None) -> set[Key]:
        """``roots`` and every definition they refer to, transitively (not looking inside
        the definitions outside ``through``, when given)."""
        seen: set[Key] = set()
        stack = list(roots)
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            if through is None or key in through:
                stack.extend(self.references(key))
        return seen

    # ------------------------------------------------------------------ notebooks

    def notebook_uses(self, sources: Iterable[str]) -> set[Key]:
        """The linlib definitions a notebook's code cells refer to: the names they import
        from linlib and the attributes they take of its modules (``linlib.Perceptron``).
        The cells share one namespace: an import in one cell binds its name in all."""
        trees = []
        for source in sources:
            try:
                trees.append(ast.parse(_code_lines(source)))
            except SyntaxError:
                continue  # a cell that is not Python runs nothing of linlib
        info = _Module("<notebook>", Path(), "", ast.Module(body=[], type_ignores=[]))
        for tree in trees:
            info.bindings.update(_import_bindings(tree, self.modules))
        out: set[Key] = set()
        for kind, module, name in info.bindings.values():
            if kind == "def":
                key = self.resolve(module, name)
                if key is not None:
                    out.add(key)
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute):
                    target = self._module_of(info, node.value)
                    if target is not None:
                        key = self.resolve(target, node.attr)
                        if key is not None:
                            out.add(key)
        return out


# --------------------------------------------------------------------------- the answers


def _cells(path: Path) -> list[nbformat.NotebookNode]:
    """A course notebook's cells (read as JSON: only sources and metadata are needed, so
    nbformat's validation, slow on notebooks with figures, is skipped)."""
    return nbformat.from_dict(json.loads(Path(path).read_text(encoding="utf-8"))).cells


def _test_cell_sources(folder: Path) -> list[tuple[str, str]]:
    cells = []
    for path in sorted(Path(folder).glob("*.ipynb")):
        cells += [
            (f"{path.name}, {cell.metadata.nbgrader.grade_id}", "".join(cell.source))
            for cell in _cells(path)
            if is_test_cell(cell)
        ]
    return cells


def course_answers(
    notebooks_dir: Path | None = None, linlib: LinlibSource | None = None
) -> dict[str, list[Key]]:
    """Assignment -> the linlib definitions its test cells are the first to disable, in
    course order (the assignments' folder names, sorted); the course's notebooks
    (``autograder.course.origin.NOTEBOOKS_DIR``) unless ``notebooks_dir`` is given."""
    notebooks_dir = origin.NOTEBOOKS_DIR if notebooks_dir is None else notebooks_dir
    linlib = LinlibSource() if linlib is None else linlib
    answers: dict[str, list[Key]] = {}
    earlier: set[Key] = set()
    for assignment in origin.list_assignments(notebooks_dir):
        own: set[Key] = set()
        for where, source in _test_cell_sources(Path(notebooks_dir) / assignment):
            try:
                names = disabled_names(source)
            except (ValueError, SyntaxError) as error:
                raise AnswersError(f"{assignment} ({where}): {error}") from None
            for name in names:
                if "." in name and name.split(".")[0] != PACKAGE:
                    continue  # another library's (sklearn.svm.SVC): not in the wheel
                key = linlib.resolve_dotted(name)
                if key is None:
                    raise AnswersError(
                        f"{assignment} ({where}): disable names {name!r}, which is not "
                        "a function or class of linlib"
                    )
                own.add(key)
        answers[assignment] = sorted(own - earlier)
        earlier |= own
    return answers


@dataclass(frozen=True)
class StudentBuild:
    """What the student build of one assignment stubs and what it keeps of the answers."""

    assignment: str
    #: stubbed definition -> its name in messages (``linlib.<function>``)
    stubs: Mapping[Key, str]
    #: answers kept because the release notebook needs them -> their name
    kept: Mapping[Key, str]
    #: the library's answers to the calls the release's test cells make of stubbed
    #: references (``module.qualname`` -> [[arguments, result]]; :mod:`.replays`)
    replays: Mapping[str, list[list[Any]]] = field(default_factory=dict)

    def stubbed_names(self) -> list[str]:
        return sorted(self.stubs.values())


def student_build(
    assignment: str,
    release_notebooks: Sequence[Path],
    *,
    notebooks_dir: Path | None = None,
    linlib: LinlibSource | None = None,
    answers: Mapping[str, Sequence[Key]] | None = None,
) -> StudentBuild:
    """Which definitions the student build of ``assignment`` stubs (see the module's
    docstring); ``release_notebooks`` are its release notebooks (what the student runs).
    ``linlib`` and ``answers`` (:func:`course_answers`) are read when not given."""
    linlib = LinlibSource() if linlib is None else linlib
    answers = course_answers(notebooks_dir, linlib) if not answers else answers
    order = list(answers)
    if assignment not in answers:
        raise AnswersError(f"unknown assignment {assignment!r}")
    later = {key for name in order[order.index(assignment) :] for key in answers[name]}
    sources = [
        "".join(cell.source)
        for path in release_notebooks
        for cell in _cells(path)
        if cell.cell_type == "code"
    ]
    needed = linlib.closure(linlib.notebook_uses(sources) | linlib.import_time_references())
    stubbed = later - needed
    # Private helpers that only stubbed code reaches go too: they hold the answer's code.
    every = {(m.name, name) for m in linlib.modules.values() for name in m.defs}
    while True:
        live_roots = {key for key in every - stubbed if not key[1].startswith("_")}
        live = linlib.closure(live_roots | linlib.import_time_references(), through=every - stubbed)
        dead = {
            ref
            for key in stubbed
            for ref in linlib.references(key)
            if ref[1].startswith("_") and ref not in live and ref not in stubbed
        }
        if not dead:
            break
        stubbed |= dead
    public = linlib.public_names()
    return StudentBuild(
        assignment,
        {key: linlib.label(key, public) for key in sorted(stubbed)},
        {key: linlib.label(key, public) for key in sorted(later & needed)},
    )


# --------------------------------------------------------------------------- the source


def stub_message(label: str, assignment: str, *, helper: bool = False) -> str:
    """What a stub says when it is called (``helper``: a private helper of answers)."""
    if helper:
        why = "a helper of the answers it leaves out"
    else:
        why = "it would answer one of the course's exercises (write your own)"
    return f"{label} is not part of the student build of {assignment}: {why}"


def _stub_docstring(indent: str, helper: bool) -> str:
    what = "a helper of the answers it leaves out" if helper else "an answer to an exercise"
    return f'{indent}"""Not part of the student build of linlib: {what}."""'


def _stub_body(indent: str, label: str, assignment: str, helper: bool) -> list[str]:
    message = stub_message(label, assignment, helper=helper)
    return [
        _stub_docstring(indent, helper),
        f"{indent}raise NotImplementedError({json.dumps(message)})",
    ]


def _body_span(
    node: ast.FunctionDef | ast.AsyncFunctionDef, lines: Sequence[str]
) -> tuple[int, int]:
    """The lines of a function's body (1-based, inclusive), which must start on a line of
    its own: everything before the first statement on its line is indentation."""
    first, last = node.body[0], node.body[-1]
    if lines[first.lineno - 1][: first.col_offset].strip():
        raise AnswersError(f"line {node.lineno}: {node.name}'s body starts on its header line")
    return first.lineno, last.end_lineno or last.lineno


def _function_edit(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    label: str,
    assignment: str,
    lines: list[str],
    helper: bool,
) -> tuple[int, int, list[str]]:
    start, end = _body_span(node, lines)
    indent = lines[start - 1][: node.body[0].col_offset]
    return start, end, _stub_body(indent, label, assignment, helper)


def _docstring(node: ast.AST) -> ast.Expr | None:
    body = getattr(node, "body", [])
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[0]
    return None


def stub_module_source(
    source: str, stubs: Mapping[str, str], assignment: str, *, filename: str = "<linlib>"
) -> str:
    """``source`` with the top-level functions and classes named in ``stubs`` (name ->
    label) stubbed; every other line as it was."""
    tree = ast.parse(source, filename)
    lines = source.split("\n")
    edits: list[tuple[int, int, list[str]]] = []
    found = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if node.name not in stubs:
            continue
        found.add(node.name)
        label = stubs[node.name]
        helper = node.name.startswith("_")
        if not isinstance(node, ast.ClassDef):
            edits.append(_function_edit(node, label, assignment, lines, helper))
            continue
        doc = _docstring(node)
        if doc is not None:
            indent = lines[doc.lineno - 1][: doc.col_offset]
            end = doc.end_lineno or doc.lineno
            edits.append((doc.lineno, end, [_stub_docstring(indent, helper)]))
        else:  # one is written before the first statement
            first = node.body[0]
            start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])
            indent = lines[start - 1][: first.col_offset]
            edits.append((start, start - 1, [_stub_docstring(indent, helper)]))
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                method = f"{label}.{item.name}"
                edits.append(_function_edit(item, method, assignment, lines, helper))
    missing = set(stubs) - found
    if missing:
        raise AnswersError(f"{filename}: no top-level definition {sorted(missing)}")
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1 : end] = new
    return "\n".join(lines)


def build_module_source(
    source: str, assignment: str, stubs: Iterable[str], replays: str = "{}"
) -> str:
    """``linlib/_build.py`` for the student build: its ``ASSIGNMENT``, ``STUBS`` and
    ``REPLAYS`` (the recorded answers as JSON text, :mod:`.replays`)."""
    values = {
        "ASSIGNMENT": repr(assignment),
        "STUBS": "frozenset({" + ", ".join(repr(s) for s in sorted(stubs)) + "})",
        "REPLAYS": repr(replays),
    }
    tree = ast.parse(source)
    lines = source.split("\n")
    edits = []
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            if name in values:
                text = f"{name}: {ast.unparse(node.annotation)} = {values.pop(name)}"
                edits.append((node.lineno, node.end_lineno or node.lineno, [text]))
    if values:
        raise AnswersError(f"{BUILD_MODULE} assigns no {sorted(values)}")
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1 : end] = new
    return "\n".join(lines)


def write_student_linlib(
    build: StudentBuild,
    dest: Path,
    *,
    package_dir: Path = LINLIB_DIR,
    ignore: Callable[[str, list[str]], Iterable[str]] | None = None,
) -> Path:
    """Copy linlib to ``dest/linlib`` with ``build``'s definitions stubbed."""
    target = Path(dest) / PACKAGE
    shutil.copytree(package_dir, target, ignore=ignore)
    by_module: dict[str, dict[str, str]] = {}
    for (module, name), label in build.stubs.items():
        by_module.setdefault(module, {})[name] = label
    for module, stubs in sorted(by_module.items()):
        relative = Path(*module.split(".")[1:]) if module != PACKAGE else Path("__init__")
        path = target / relative.with_suffix(".py")
        path.write_text(
            stub_module_source(
                path.read_text(encoding="utf-8"),
                stubs,
                build.assignment,
                filename=str(relative.with_suffix(".py")),
            ),
            encoding="utf-8",
        )
    qualified = [".".join(key) for key in build.stubs]
    build_path = target / BUILD_MODULE
    # sorted: the same release gives the same bytes
    replays = json.dumps(build.replays, sort_keys=True, separators=(",", ":"))
    build_path.write_text(
        build_module_source(
            build_path.read_text(encoding="utf-8"), build.assignment, qualified, replays
        ),
        encoding="utf-8",
    )
    return target
