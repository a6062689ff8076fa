"""The student's linlib carries no answer (autograder.release.answers): which linlib names
answer an assignment (read from its test cells), and what the wheel in each zip that
``release_course`` writes holds — inspected in the wheel's own files and imported by a
separate Python (``probe_student_build.py``).

Switched off — each zip's wheel built as the full library, as before — the wheel tests
here fail: the wheels have no stubs, every graded function's reference is the library's.
Executing every release notebook on its wheel, in a student's environment built from the
zip, is ``tests/e2e/test_student_release.py``. Releasing all seven assignments takes a
while: the tests of the wheels are ``slow``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import is_solution

import linlib
from autograder.course import list_assignments
from autograder.notebook import grade_id
from autograder.release import release_course
from autograder.release.answers import (
    AnswersError,
    LinlibSource,
    course_answers,
    stub_module_source,
    student_build,
)
from course_common.paths import REPO_ROOT

REPO = REPO_ROOT
PROBE = Path(__file__).with_name("probe_student_build.py")
VISIBLE_PROBE = Path(__file__).with_name("probe_visible_tests.py")
EPOCH = 1_795_000_000
ASSIGNMENTS = list_assignments()
STUB_SAYS = "is not part of the student build of"


def _public_functions() -> set[str]:
    return {name for name in linlib.__all__ if callable(getattr(linlib, name))}


def _graded_functions(assignment: str) -> set[str]:
    """The assignment's solution cells' grade ids: the functions a student writes."""
    path = REPO / "notebooks" / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(path, as_version=4)
    return {str(grade_id(cell)) for cell in nb.cells if is_solution(cell)}


def _named_references(assignment: str) -> set[str]:
    """linlib's own graded-function references for the assignment, found independently of
    the test cells: the public functions named like one of its graded functions, and those
    whose docstring says it is "the reference for Exercise k" of this notebook."""
    number = assignment.split("_")[0]
    named = _graded_functions(assignment) & _public_functions()
    for name in _public_functions():
        doc = getattr(linlib, name).__doc__ or ""
        said = re.search(r"Introduced in (\d\d) [^\n]*\n?[^\n]*the reference for Exercise", doc)
        if said and said.group(1) == number:
            named.add(name)
    return named


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    """Every assignment released (``release_course``), each zip's wheel unpacked."""
    course = tmp_path_factory.mktemp("course")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
        zips = release_course(course, ASSIGNMENTS)
    wheels = {}
    for assignment, zip_path in zips.items():
        with zipfile.ZipFile(zip_path) as archive:
            (name,) = [n for n in archive.namelist() if n.endswith(".whl")]
            wheel = course / "wheels" / Path(name).name
            wheel.parent.mkdir(exist_ok=True)
            wheel.write_bytes(archive.read(name))
        folder = course / "unpacked" / assignment
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder)
        wheels[assignment] = folder
    return course, wheels


@pytest.fixture(scope="module")
def probed(release) -> dict[str, dict]:
    """What each wheel's linlib, imported by another Python, says of itself."""
    _, wheels = release
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(PROBE), *(str(wheels[a]) for a in ASSIGNMENTS)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {result["assignment"]: result for result in json.loads(done.stdout)}


def _builds(course: Path) -> dict:
    linlib_source = LinlibSource()
    answers = course_answers(linlib=linlib_source)
    return {
        a: student_build(
            a,
            sorted((course / "release" / a).glob("*.ipynb")),
            linlib=linlib_source,
            answers=answers,
        )
        for a in ASSIGNMENTS
    }


def test_the_answers_are_what_the_test_cells_disable_first():
    source = LinlibSource()
    public = source.public_names()
    answers = {
        a: {public.get(k, ".".join(k)) for k in keys} for a, keys in course_answers().items()
    }
    assert list(answers) == ASSIGNMENTS
    seen: set[str] = set()
    for assignment, names in answers.items():
        assert names, f"{assignment}'s test cells disable nothing of linlib"
        assert not names & seen, "an answer belongs to the first assignment that disables it"
        seen |= names
        # independent of the test cells: same-named functions, "the reference for Exercise"
        assert _named_references(assignment) <= names, assignment
    assert {"activation", "signed_distance", "perceptron_update", "kernel_perceptron"} <= seen
    assert sum(bool(_named_references(a)) for a in ASSIGNMENTS) >= 4  # the anchor bites


@pytest.mark.slow
def test_every_wheel_stubs_its_own_answers_and_later_ones(release, probed):
    course, wheels = release
    builds = _builds(course)
    answers = course_answers()
    public = LinlibSource().public_names()
    for index, assignment in enumerate(ASSIGNMENTS):
        found, build = probed[assignment], builds[assignment]
        assert Path(found["file"]).is_relative_to(wheels[assignment])
        assert found["assignment"] == assignment
        assert set(found["stubs"]) == {".".join(key) for key in build.stubs}
        stubbed = {name for name, is_stub in found["public"].items() if is_stub}
        # the graded functions' own references in linlib: never in the student's wheel
        named = _named_references(assignment)
        assert named <= stubbed, (assignment, named - stubbed)
        # the assignment's answers and later ones, but for what its notebook uses itself
        later = {public[k] for a in ASSIGNMENTS[index:] for k in answers[a] if k in public}
        kept = {public[k] for k in build.kept if k in public}
        assert stubbed == later - kept, assignment
        assert not kept & named, "a graded function's reference is kept"
        # earlier assignments' answers stay: later notebooks call them
        earlier = {public[k] for a in ASSIGNMENTS[:index] for k in answers[a] if k in public}
        assert not earlier & stubbed, assignment
        for qualified, entry in found["stubs"].items():
            if entry["class"]:  # its docstring says so (a NamedTuple may have no method)
                assert entry["doc"].startswith("Not part of the student build"), qualified
            else:
                assert entry["functions"], qualified
            for method, seen in entry["functions"].items():
                where = f"{assignment}: {qualified}.{method}"
                assert seen["stub_body"], where  # a docstring and a raise, nothing else
                assert seen["call"].startswith("NotImplementedError: "), where
                assert f"{STUB_SAYS} {assignment}" in seen["call"], where
                assert "reference for Exercise" not in seen["doc"], where
                assert "Introduced in" not in seen["doc"], where
        # a visible test's use_reference of a stub runs the student's own function
        assert found["use_reference_keeps_own"]
        assert all(found["use_reference_keeps_own"].values()), assignment


@pytest.mark.slow
def test_a_right_later_answer_passes_its_release_tests_whatever_the_earlier_ones(release):
    """Issue 41: a test of a later exercise uses the library's reference for the earlier
    ones, in the release as when graded. Each wheel's linlib, imported by another Python,
    runs every release test cell that puts a reference in place with the instructor's
    solutions but every earlier answer it names wrong (failing the test if called): each
    passes, on the library's answers the wheel recorded; notebook 02's epoch among them."""
    course, wheels = release
    arguments = []
    for assignment in ASSIGNMENTS:
        release_dir = course / "release" / assignment
        arguments += [wheels[assignment], release_dir, REPO / "notebooks" / assignment]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(VISIBLE_PROBE), *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = {result["assignment"]: result["outcomes"] for result in json.loads(done.stdout)}
    assert set(found) == set(ASSIGNMENTS)
    failed = {
        f"{assignment}: {cell}": outcome
        for assignment, outcomes in found.items()
        for cell, outcome in outcomes.items()
        if outcome != "passed"
    }
    assert not failed, failed
    assert {"perceptron_epoch_visible", "perceptron_epoch_hidden"} <= set(
        found["02_perceptron_update"]
    )
    assert sum(len(outcomes) for outcomes in found.values()) >= 10


def _header(node: ast.AST) -> str:
    if isinstance(node, ast.ClassDef):
        return ast.dump(ast.Tuple([*node.bases, *node.decorator_list]))
    return ast.dump(ast.Tuple([node.args, *node.decorator_list]))


@pytest.mark.slow
def test_only_the_stubs_differ_from_the_library(release):
    course, wheels = release
    builds = _builds(course)
    for assignment, folder in wheels.items():
        stubbed = builds[assignment].stubs
        for path in sorted((REPO / "linlib").glob("*.py")):
            module = f"linlib.{path.stem}" if path.stem != "__init__" else "linlib"
            ours = (folder / "linlib" / path.name).read_text(encoding="utf-8")
            theirs = path.read_text(encoding="utf-8")
            if path.name == "_build.py":
                assert f"ASSIGNMENT: str | None = {assignment!r}" in ours
                continue
            names = {name for mod, name in stubbed if mod == module}
            if not names:
                assert ours == theirs, f"{assignment}: {path.name} changed"
                continue
            mine, original = ast.parse(ours), ast.parse(theirs)
            assert ast.get_docstring(mine) == ast.get_docstring(original)
            assert len(mine.body) == len(original.body)
            for new, old in zip(mine.body, original.body, strict=True):
                if getattr(old, "name", None) in names:
                    # the same signature (a class: bases): help() and scikit-learn agree
                    assert _header(new) == _header(old), f"{assignment}: {old.name}"
                    continue
                assert ast.dump(new) == ast.dump(old), f"{assignment}: {path.name}"


def test_the_graders_linlib_is_the_full_library():
    """The grader imports the repository's linlib: nothing stubbed, and a test's
    ``use_reference`` puts the library's reference in place of the student's function."""
    from linlib import _build
    from linlib.grading import call_student

    assert _build.ASSIGNMENT is None and not _build.STUBS
    assert not any(_build.is_stub(getattr(linlib, name)) for name in _public_functions())
    namespace: dict = {}
    exec(
        "def perceptron_update(w, b, x, y):\n    return 'own'\n\n"
        "def caller():\n    return perceptron_update([0.0], 0.0, [1.0], 1)\n",
        namespace,
    )
    w, b, updated = call_student(namespace["caller"], use_reference=("perceptron_update",))
    assert (list(w), b, updated) == ([1.0], 1.0, True)


def test_stub_module_source_replaces_bodies_only():
    source = '''"""A module."""

import functools

# a comment that stays
CONSTANT = 3


@functools.lru_cache
def answer(
    x: int,
    y: int = CONSTANT,
) -> int:
    """The reference for Exercise 1: x + y."""
    # how it is done
    return x + y


class Model:
    """Fits by the reference's secret."""

    alpha = 1.0

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    @property
    def secret(self):
        return 42


class Fields:
    @staticmethod
    def make():
        return "made by the secret"


def other():
    return answer(1)
'''
    stubs = {"answer": "pkg.answer", "Model": "pkg.Model", "Fields": "pkg.Fields"}
    out = stub_module_source(source, stubs, "01_x")
    tree = ast.parse(out)
    assert "# a comment that stays" in out and "CONSTANT = 3" in out
    assert "return answer(1)" in out  # other() as it was
    for secret in ("x + y", "how it is done", "Exercise 1", "42", "self.alpha", "by the secret"):
        assert secret not in out
    answer = next(n for n in tree.body if getattr(n, "name", "") == "answer")
    assert [ast.unparse(d) for d in answer.decorator_list] == ["functools.lru_cache"]
    assert ast.unparse(answer.args) == "x: int, y: int=CONSTANT"
    assert isinstance(answer.body[1], ast.Raise) and len(answer.body) == 2
    namespace: dict = {}
    exec(out, namespace)
    for call in (lambda: namespace["answer"](1), lambda: namespace["Model"]()):
        with pytest.raises(NotImplementedError, match="not part of the student build of 01_x"):
            call()
    assert namespace["Model"].alpha == 1.0
    assert namespace["Fields"].__doc__.startswith("Not part of the student build")
    with pytest.raises(NotImplementedError, match=r"pkg\.Fields\.make is not part"):
        namespace["Fields"].make()
    for one_line in ("def f(): return 1\n", "def f(\n    x,\n): return x\n"):
        with pytest.raises(AnswersError, match="body starts on its header line"):
            stub_module_source(one_line, {"f": "pkg.f"}, "01_x")
    with pytest.raises(AnswersError, match="no top-level definition"):
        stub_module_source("x = 1\n", {"f": "pkg.f"}, "01_x")


def test_a_test_cell_that_disables_an_unknown_name_stops_the_release(tmp_path):
    folder = tmp_path / "01_x"
    folder.mkdir()
    cell = nbformat.v4.new_code_cell(
        'call_student(f, disable=("signed_distanse",))',
        metadata={"nbgrader": {"grade": True, "grade_id": "f_visible", "points": 1}},
    )
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), folder / "01_x.ipynb")
    with pytest.raises(AnswersError, match="'signed_distanse', which is not a function"):
        course_answers(tmp_path)
