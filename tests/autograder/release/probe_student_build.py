"""Look at the linlib this Python imports and print, as JSON, what its build leaves out.

Run as a script by a Python whose ``linlib`` is a student build (the fast tests: the
project's Python with an unpacked wheel first on ``PYTHONPATH``; the end-to-end test: the
student's own environment). It needs nothing but linlib and the standard library. For
each stubbed function or class of ``linlib._build.STUBS``: whether each function's source
is nothing but a docstring and ``raise NotImplementedError(...)`` (read with ``ast`` from
the installed file), its docstring, and what calling it raises; for every public name,
whether the build says it is a stub; and whether a test's ``use_reference`` of a stubbed
reference keeps the student's own function.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import sys
import types
from typing import Any


def _target(qualified: str) -> Any:
    module, _, name = qualified.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _functions(obj: Any) -> dict[str, types.FunctionType]:
    if isinstance(obj, types.FunctionType):
        return {obj.__name__: obj}
    out = {}
    source_file = sys.modules[obj.__module__].__file__
    for name, value in vars(obj).items():
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        elif isinstance(value, property):
            value = value.fget
        # the class's own methods only, not those a NamedTuple or a dataclass makes
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == source_file:
            out[name] = value
    return out


def _definition(fn: types.FunctionType) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The ``def`` of ``fn`` in the file it was loaded from, parsed with ``ast``."""
    code = fn.__code__
    with open(code.co_filename, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == fn.__name__:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if code.co_firstlineno == first:
                return node
    raise LookupError(f"no def of {fn.__qualname__} in {code.co_filename}")


def _body(fn: types.FunctionType) -> dict[str, Any]:
    node = _definition(fn)
    body = node.body
    is_stub = (
        len(body) == 2
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[1], ast.Raise)
        and isinstance(body[1].exc, ast.Call)
        and getattr(body[1].exc.func, "id", None) == "NotImplementedError"
    )
    return {"stub_body": is_stub, "doc": ast.get_docstring(node) or ""}


def _call(fn: Any) -> str:
    """What calling ``fn`` with a None for each required parameter raises."""
    parameters = inspect.signature(fn).parameters.values()
    args = [
        None
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    kwargs = {p.name: None for p in parameters if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    try:
        fn(*args, **kwargs)
    except Exception as error:  # what a student would see
        return f"{type(error).__name__}: {error}"
    return "returned"


def _own_function_kept(name: str) -> bool:
    """A test's ``use_reference=(name,)`` leaves the student's own ``name`` in place."""
    from linlib.grading import call_student

    namespace: dict[str, Any] = {}
    source = f"def {name}(*args, **kwargs):\n    return 'own'\n\n\n"
    source += f"def caller():\n    return {name}()\n"
    exec(source, namespace)
    return call_student(namespace["caller"], use_reference=(name,)) == "own"


def probe() -> dict[str, Any]:
    """What the linlib this Python imports leaves out (see the module's docstring)."""
    import linlib
    from linlib import _build

    stubs = {}
    for qualified in sorted(_build.STUBS):
        obj = _target(qualified)
        functions = {}
        for name, fn in _functions(obj).items():
            functions[name] = {**_body(fn), "call": _call(fn)}
        entry: dict[str, Any] = {"functions": functions, "class": isinstance(obj, type)}
        if isinstance(obj, type):
            entry["doc"] = inspect.getdoc(obj) or ""
        stubs[qualified] = entry
    public = {
        name: _build.is_stub(getattr(linlib, name))
        for name in linlib.__all__
        if callable(getattr(linlib, name))
    }
    kept_own = {
        name: _own_function_kept(name)
        for name, stubbed in public.items()
        if stubbed and isinstance(getattr(linlib, name), types.FunctionType)
    }
    return {
        "assignment": _build.ASSIGNMENT,
        "file": linlib.__file__,
        "stubs": stubs,
        "public": public,
        "use_reference_keeps_own": kept_own,
    }


def main(folders: list[str]) -> None:
    """Probe the linlib this Python imports, or, given folders, the linlib in each of them
    (one after the other in this process: numpy and the rest are imported once)."""
    if not folders:
        print(json.dumps([probe()]))
        return
    out = []
    for folder in folders:
        for name in [m for m in sys.modules if m == "linlib" or m.startswith("linlib.")]:
            del sys.modules[name]
        sys.path.insert(0, folder)
        try:
            out.append(probe())
        finally:
            sys.path.remove(folder)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
