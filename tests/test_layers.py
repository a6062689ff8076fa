"""The layer rule of the code (docs/contributor.md, "Layout"), as import-linter's contracts in
``pyproject.toml``: the repository keeps them, and an import against them breaks them.

``./run test`` and ``./run lint`` run ``lint-imports`` too; this test is where CI sees it
whatever runs pytest.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_common.paths import REPO_ROOT

ROOT = REPO_ROOT
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))
PACKAGES = ("autograder", "lecture", "linlib", "course_common", "benchmarks", "devtools", "tests")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_the_code_keeps_its_layer_contracts():
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages' Python files and of pyproject.toml (lint-imports reads the
    packages from its working folder, before the installed ones)."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=lambda folder, names: [
                n for n in names if not n.endswith(".py") and not (Path(folder) / n).is_dir()
            ],
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("importer", "imported", "contract"),
    [
        # a shared module of the autograder reaching up to its use cases
        ("autograder/models.py", "autograder.api", "autograder's layers"),
        # one stage of the batch using another (they meet only in api)
        ("autograder/report/grades.py", "autograder.grading.batch", "autograder's layers"),
        # the lecture and the autograder share only course_common
        ("lecture/decks.py", "autograder.notebook", "Packages"),
        # the shipped code never uses what the tests and benchmarks share
        ("autograder/grading/gradebook.py", "devtools.postgres", "Packages"),
        # nothing but the tests imports the benchmarks
        ("devtools/postgres.py", "benchmarks.bench_scale", "Packages"),
        # the grader never reaches into the kernel's side of the re-check
        ("autograder/recheck/codec.py", "linlib._remote", "The grader uses linlib"),
        # a sandbox and its probe importing each other
        ("autograder/sandbox/box.py", "autograder.sandbox.probe", "No two modules"),
    ],
)
@pytest.mark.slow
def test_an_import_against_the_layers_breaks_a_contract(tree, importer, imported, contract):
    with open(tree / importer, "a", encoding="utf-8") as module:
        module.write(f"\nimport {imported}  # against the layers\n")
    run = lint_imports(tree)
    assert run.returncode == 1, run.stdout + run.stderr
    broken = [line for line in run.stdout.splitlines() if contract in line]
    assert broken, run.stdout
    dotted = importer.removesuffix(".py").replace("/", ".")
    if contract == "No two modules":  # named as the cycle's edges within their package
        assert f"No cycles are allowed in {dotted.rpartition('.')[0]}." in run.stdout
    else:
        assert f"{dotted} -> {imported}" in run.stdout, run.stdout


#: What the grader imports on use only: nbgrader and nbconvert take seconds to import,
#: nbformat and Dask a good part of one.
HEAVY = ("nbgrader", "nbconvert", "nbformat", "nbclient", "dask", "distributed", "sqlalchemy")


def _imported_after(code: str) -> list[str]:
    """Which of :data:`HEAVY` a fresh interpreter has imported after running ``code``."""
    found = f"[m for m in {HEAVY!r} if m in sys.modules]"
    probe = f"{code}\nimport json, sys\nprint(json.dumps({found}))"
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_command_lines_help_imports_no_heavy_library():
    """``python -m autograder --help`` imports the packages its choices come from (intake,
    lms, term), whose modules import the heavy libraries inside the functions using them."""
    code = (
        "import runpy, sys\n"
        "sys.argv = ['autograder', '--help']\n"
        "try:\n"
        "    runpy.run_module('autograder', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass"
    )
    assert _imported_after(code) == []


def test_a_grading_workers_start_imports_no_heavy_library():
    """A worker of the pool imports what its initializer is unpickled from (the pool and the
    task) before :func:`~autograder.grading.task.worker_init` starts its warm kernels; nbgrader
    is imported after that, while they warm up."""
    assert _imported_after("import autograder.grading.pool, autograder.grading.task") == []
