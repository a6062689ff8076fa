"""The Examples of linlib's docstrings run, as doctests, and every public function and
class has some.

One pytest item per docstring. Outputs compare with doctest's NORMALIZE_WHITESPACE (long
messages are wrapped to the line length) and ELLIPSIS.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import matplotlib.pyplot as plt
import pytest

import linlib
from tests.linlib.test_api import PUBLIC

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
MODULES = [
    importlib.import_module(m.name) for m in pkgutil.iter_modules(linlib.__path__, "linlib.")
]


def docstring_tests() -> dict[str, doctest.DocTest]:
    """Every docstring with examples: of linlib's modules, and of the public objects
    (``contextlib.contextmanager`` wraps two of them, which hides them from a module
    search)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    found: dict[str, doctest.DocTest] = {}  # one test per docstring
    tests = [test for module in MODULES for test in finder.find(module)]
    for name, obj in PUBLIC.items():
        tests += finder.find(obj, name, module=inspect.getmodule(obj))
    for test in tests:
        if test.examples:
            found.setdefault(test.docstring, test)
    return {test.name: test for test in found.values()}


TESTS = docstring_tests()


@pytest.mark.parametrize("name", sorted(TESTS))
@pytest.mark.slow
def test_docstring_examples_run(name):
    test = TESTS[name]
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    try:
        runner.run(test, out=report.append, clear_globs=False)
    finally:
        plt.close("all")
    assert runner.failures == 0, "".join(report)


def _has_examples(obj) -> bool:
    return "\nExamples\n--------\n>>> " in (inspect.getdoc(obj) or "")


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_function_and_class_has_examples(name):
    assert _has_examples(PUBLIC[name]), f"{name}: no Examples section with a >>> example"


def test_the_examples_are_found_and_can_fail():
    assert len(TESTS) >= len(PUBLIC)
    broken = doctest.DocTestParser().get_doctest(
        ">>> import linlib\n>>> linlib.augment([[1, 2]])\narray([[1., 2., 0.]])\n",
        {},
        "broken",
        None,
        0,
    )
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(broken, out=lambda _: None)
    assert runner.failures == 1
