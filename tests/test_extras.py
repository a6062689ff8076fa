"""pyproject.toml's dependencies against the imports of the code they serve: each
third-party module a package imports (read with ``ast``, every module of the package) is
named, by its distribution, in the dependencies that install that package.

A grading machine (a Dask worker) installs the project with its ``grading`` extra, a
student's environment linlib with the ``student`` extra: a distribution the code imports
that only comes in through another package's requirements (jsonschema through nbformat, a
version another package allows) or not at all (copydetect) is found here rather than on
that machine. Imports under ``if TYPE_CHECKING:`` are not run and not counted; an import
name is mapped to its distribution with ``importlib.metadata.packages_distributions()``.

Issue 45: the ``grading`` extra lacked copydetect and jsonschema (and six more that
nbgrader, nbconvert and ipykernel brought in).
"""

from __future__ import annotations

import ast
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
#: The project's own packages (never a distribution to install).
FIRST_PARTY = frozenset(
    {"autograder", "linlib", "course_common", "lecture", "benchmarks", "devtools", "tests"}
)
#: Each extra -> the packages it serves, and the other extras installed with it (the
#: project's ``dependencies``, linlib's, always are).
EXTRAS = {
    # the grader, on the instructor's machine and on every Dask worker
    "grading": (("autograder", "course_common"), ()),
    # linlib in the student's environment: their kernel, nbgrader's Validate
    "student": (("linlib",), ()),
    # the project's tests, which run the grader and linlib
    "test": (("tests",), ("grading", "student")),
}


@cache
def _distributions() -> dict[str, list[str]]:
    return metadata.packages_distributions()


@cache
def _project() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return tomllib.load(fh)["project"]


def _names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def declared(extra: str) -> set[str]:
    """The distributions installed by name with ``extra``: the project's dependencies, the
    extra's and those of the extras installed with it."""
    project = _project()
    extras = project["optional-dependencies"]
    names = _names(project["dependencies"]) | _names(extras[extra])
    for other in EXTRAS[extra][1]:
        names |= _names(extras[other])
    return names


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> set[str]:
    """The top-level names of the absolute imports run by a module (not under
    ``if TYPE_CHECKING:``)."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        # imports are statements: only statements (and the blocks that hold them) are read
        stack.extend(
            child
            for child in ast.iter_child_nodes(node)
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
        )
    return found


@cache
def third_party_imports(package: str) -> dict[str, set[str]]:
    """Import name -> the modules of ``package`` that import it, for every module that is
    neither the standard library's nor the project's own."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_bytes(), filename=str(path))
        for name in _imports(tree):
            if name in sys.stdlib_module_names or name in FIRST_PARTY:
                continue
            out.setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return out


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_each_extra_names_what_its_packages_import(extra):
    distributions = _distributions()
    names = declared(extra)
    missing: dict[str, list[str]] = {}
    for package in EXTRAS[extra][0]:
        for module, where in third_party_imports(package).items():
            owners = {canonicalize_name(d) for d in distributions.get(module, [])}
            if not owners:
                missing[module] = [f"no installed distribution provides it: {sorted(where)[0]}"]
            elif not owners & names:
                missing[module] = [f"{', '.join(sorted(owners))}: {sorted(where)[0]}"]
    assert not missing, f"imported but not in the {extra!r} extra (nor what comes with it): " + (
        "; ".join(f"{m} ({', '.join(w)})" for m, w in sorted(missing.items()))
    )


def test_the_extras_bounds_hold_the_pinned_environment():
    """Every bound of the dependencies and the extras admits the version requirements.txt
    pins (the environment CI tests): a bound the tested version breaks is a wrong bound."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            requirement = Requirement(line)
            pins[canonicalize_name(requirement.name)] = next(iter(requirement.specifier)).version
    project = _project()
    every = list(project["dependencies"])
    for requirements in project["optional-dependencies"].values():
        every += requirements
    wrong = []
    for text in every:
        requirement = Requirement(text)
        pinned = pins.get(canonicalize_name(requirement.name))
        if pinned is None:
            wrong.append(f"{text}: not pinned in requirements.txt")
        elif not requirement.specifier.contains(pinned, prereleases=True):
            wrong.append(f"{text}: requirements.txt pins {pinned}")
    assert not wrong, wrong


def test_the_walk_sees_what_it_must():
    """The walk itself: a module's import and a function's are counted, one under
    ``if TYPE_CHECKING:`` is not, relative imports are the package's own."""
    tree = ast.parse(
        "import numpy.linalg\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import pandas\nelse:\n    import scipy\n"
        "def f():\n    from copydetect import CodeFingerprint\n"
        "from . import sibling\n"
    )
    assert _imports(tree) == {"numpy", "typing", "scipy", "copydetect"}
    assert "copydetect" in third_party_imports("autograder")
