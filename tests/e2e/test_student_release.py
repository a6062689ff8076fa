"""A student's path from a release zip alone: the README's commands, then the notebook.

The zip is unzipped into an empty folder and the commands of its README's Linux/macOS
block are run there as written: they make a virtual environment with the zip's pinned
requirements (pip; PyPI or pip's cache) and open the notebook in JupyterLab. Then:

- in a terminal: the release notebook runs, its stubs failing with their own
  NotImplementedError (never an ImportError), and the instructor's solutions pass every
  visible test under ``nbgrader validate``, without the "No nbgrader_config.py" warning;
- each zip's wheel is that assignment's student build of linlib: the environment is
  switched from one assignment to the next with ``pip install -r requirements.txt`` in
  its folder; in it, every graded function's reference is a stub (read from the installed
  files with ``ast``, and called: ``tests/autograder/release/probe_student_build.py``),
  the release notebook's visible tests all fail on the student's stubs (never on one of
  the library's), and with the instructor's solutions typed in, every cell runs — the
  demonstrations too — on the student's code and what the build keeps;
- the README's terminal check (``python -m linlib.validate``) of notebook 02 answered with
  a wrong ``perceptron_update`` and the instructor's other answers: exactly the update's
  tests fail, each listed by its first line with its message whole, and nothing else is
  printed (no code, no frame of linlib, no kernel log, no line cut short); the epoch's and
  the later tests, which put the library's update in place of the student's, pass;
- in a real browser (Playwright driving Debian's chromium): a correct answer typed into
  one solution cell and a wrong one into the next, Run All Cells, Validate; the student
  sees the passing tests, the failing test's message, and Validate's list of failures.
  What the student must see is computed headlessly from the same answers (nbclient and
  nbgrader's Validator in the project's environment), not written down here.

Slow (a fresh environment takes a minute or two), hence ``slow``: ``./run test`` and CI run
it, ``pytest -m 'not slow'`` skips it. On failure the browser's screenshot and JupyterLab's
log are kept in ``build/test-artifacts/``.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from autograder.course import list_assignments
from autograder.release import release_course
from autograder.release.answers import student_build
from autograder.samples import solution_sources
from course_common.paths import REPO_ROOT

from .browser import jupyterlab_server, launch_chromium

REPO = REPO_ROOT
ARTEFACTS = REPO / "build" / "test-artifacts"
FIRST = "01_hyperplanes"
EPOCH = "1795000000"
PROBE = REPO / "tests" / "autograder" / "release" / "probe_student_build.py"
# What the library's stubs say when called (autograder.release.answers.stub_message).
STUB_SAYS = "is not part of the student build of"
# The browser test's answers (notebook 01): the instructor's `activation`, and a `predict`
# that swaps the two labels, which any test of predict catches.
CORRECT_CELL = "activation"
WRONG_CELL = "predict"
WRONG_ANSWER = '''def predict(X, w, b):
    """Swaps the labels: -1 where w·x + b > 0, else +1."""
    return np.where(activation(X, w, b) > 0, -1, 1)
'''


def _student_env() -> dict[str, str]:
    # A student's shell: nothing of this project's environment leaks into theirs.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"} and not k.startswith("JUPYTER")
    }
    project_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and p != project_bin
    )
    return env


def _readme_commands(readme: str) -> list[str]:
    """The commands of the README's first ```bash block (Linux and macOS)."""
    match = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert match, "the README has no bash block of commands"
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> dict[str, Path]:
    course = tmp_path_factory.mktemp("course")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
        return release_course(course, list_assignments())


@pytest.fixture(scope="module")
def student_dir(releases, tmp_path_factory) -> dict[str, Path]:
    """Every assignment's zip unzipped into an empty folder; FIRST's README commands run."""
    root = tmp_path_factory.mktemp("student")
    folders = {}
    for name, zip_path in releases.items():
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(root)
        folders[name] = root / name
    folder = folders[FIRST]
    commands = _readme_commands((folder / "README.md").read_text())
    log = folder.parent / "setup.log"
    env = _student_env()
    for command in commands[:-1]:  # the last one opens JupyterLab: the browser test runs it
        if shutil.which("python3.11", path=env["PATH"]) is None:
            command = command.replace("python3.11", shlex.quote(sys._base_executable))
        with log.open("a") as out:
            done = subprocess.run(
                command, shell=True, cwd=folder, env=env, stdout=out, stderr=out, timeout=1800
            )
        assert done.returncode == 0, f"{command!r} failed:\n{log.read_text()[-3000:]}"
    return folders


def _imported_names(nb: nbformat.NotebookNode) -> set[str]:
    """Names bound by the import statements of a notebook's code cells."""
    names: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(
            line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def _venv_bin(student_dir: dict[str, Path], tool: str) -> str:
    return str(student_dir[FIRST] / ".venv" / "bin" / tool)


def _run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=cwd, env=_student_env(), capture_output=True, text=True, timeout=timeout
    )


def _use_assignment(student_dir: dict[str, Path], assignment: str) -> None:
    """Install ``assignment``'s requirements into the one environment, as a student who
    keeps an environment from one assignment to the next does: pip replaces the linlib
    build (its version names the assignment) and leaves the rest, pinned alike."""
    folder = student_dir[assignment]
    done = _run(
        [_venv_bin(student_dir, "python"), "-m", "pip", "install", "-r", "requirements.txt"],
        folder,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    which = "from linlib import _build; print(_build.ASSIGNMENT)"
    done = _run([_venv_bin(student_dir, "python"), "-c", which], folder)
    assert done.stdout.strip() == assignment, done.stdout + done.stderr


@pytest.mark.slow
def test_one_environment_serves_every_assignment(student_dir):
    first = student_dir[FIRST]
    pins = (first / "requirements.txt").read_text().splitlines()
    wheels = {}
    for assignment, folder in student_dir.items():
        (wheel,) = sorted(folder.glob("*.whl"))  # the assignment's own student build
        wheels[assignment] = wheel.read_bytes()
        lines = (folder / "requirements.txt").read_text().splitlines()
        assert lines[3] == f"./{wheel.name}"
        assert lines[:3] + lines[4:] == pins[:3] + pins[4:]  # the same pins otherwise
    assert len(set(wheels.values())) == len(wheels)
    for assignment in (list(student_dir)[1], FIRST):
        _use_assignment(student_dir, assignment)
    done = _run(
        [_venv_bin(student_dir, "python"), "-c", "import linlib; print(linlib.__file__)"], first
    )
    assert done.returncode == 0, done.stderr
    # linlib comes from the wheel installed in the student's environment
    assert Path(done.stdout.strip()).is_relative_to(first / ".venv")
    check = _run([_venv_bin(student_dir, "python"), "-m", "pip", "check"], first)
    assert check.returncode == 0, check.stdout + check.stderr


def _probe_student_build(student_dir, releases, assignment: str) -> None:
    """The installed linlib is the assignment's student build: what the release computes
    it leaves out is stubbed there (its source a docstring and a raise; calling it raises
    the build's NotImplementedError), every graded function's same-named reference in
    linlib among them; the earlier assignments' answers work."""
    done = _run([_venv_bin(student_dir, "python"), str(PROBE)], student_dir[assignment])
    assert done.returncode == 0, done.stderr[-3000:]
    (found,) = json.loads(done.stdout)
    release_dir = releases[assignment].parent / assignment
    build = student_build(assignment, sorted(release_dir.glob("*.ipynb")))
    assert found["assignment"] == assignment
    assert set(found["stubs"]) == {".".join(key) for key in build.stubs}
    graded = set(solution_sources(REPO / "notebooks" / assignment / f"{assignment}.ipynb"))
    for name in graded & set(found["public"]):
        assert found["public"][name], f"linlib.{name} answers {assignment} but is not a stub"
    for qualified, entry in found["stubs"].items():
        for method, seen in entry["functions"].items():
            where = f"{qualified}.{method}"
            assert seen["stub_body"], where
            assert seen["call"].startswith("NotImplementedError: "), where
            assert f"{STUB_SAYS} {assignment}" in seen["call"], where
    assert all(found["use_reference_keeps_own"].values())


def _outputs_text(nb: nbformat.NotebookNode) -> str:
    return json.dumps([cell.get("outputs", []) for cell in nb.cells])


@pytest.mark.slow
@pytest.mark.parametrize("assignment", list_assignments())
def test_release_runs_and_solutions_validate(student_dir, releases, assignment):
    folder = student_dir[assignment]
    notebook = f"{assignment}.ipynb"
    _use_assignment(student_dir, assignment)
    _probe_student_build(student_dir, releases, assignment)
    # The release as handed out: every error is a stub's NotImplementedError.
    done = _run(
        [
            _venv_bin(student_dir, "jupyter"),
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--allow-errors",
            "--output",
            "executed.ipynb",
            notebook,
        ],
        folder,
    )
    assert done.returncode == 0, done.stderr
    executed = nbformat.read(folder / "executed.ipynb", as_version=4)
    errors = [
        (index, out)
        for index, cell in enumerate(executed.cells)
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert errors, "the release's stubs should fail their tests"
    assert errors[0][1].ename == "NotImplementedError"
    imported = _imported_names(executed)
    for index, out in errors:
        where = f"cell {index}: {out.ename}: {out.evalue}"
        assert out.ename not in {"ImportError", "ModuleNotFoundError"}, where
        if out.ename == "NameError":
            assert re.search(r"name '(\w+)' is not defined", out.evalue).group(1) not in imported
        elif executed.cells[index].metadata.get("nbgrader", {}).get("grade"):
            # a test fails on a stub: its NotImplementedError, raised or reported
            assert "NotImplementedError" in f"{out.ename}: {out.evalue}", where
    # No visible test passes on the release, and none fails on the library's stubs: every
    # one runs to the student's own stub.
    failed = {index for index, _ in errors}
    tests = [
        index
        for index, cell in enumerate(executed.cells)
        if cell.metadata.get("nbgrader", {}).get("grade")
        and not cell.metadata.get("nbgrader", {}).get("solution")
    ]
    assert tests and set(tests) <= failed, sorted(set(tests) - failed)
    assert STUB_SAYS not in _outputs_text(executed)
    # The instructor's solutions, typed into the release: every cell runs (the
    # demonstrations on the student's functions and what the build keeps), and nbgrader
    # validate passes.
    release = nbformat.read(folder / notebook, as_version=4)
    answers = solution_sources(REPO / "notebooks" / assignment / notebook)
    for cell in release.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = answers[grade_id]
    nbformat.write(release, folder / "solved.ipynb")
    done = _run(
        [
            _venv_bin(student_dir, "jupyter"),
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--output",
            "solved-executed.ipynb",
            "solved.ipynb",
        ],
        folder,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert STUB_SAYS not in _outputs_text(nbformat.read(folder / "solved-executed.ipynb", 4))
    done = _run([_venv_bin(student_dir, "nbgrader"), "validate", "solved.ipynb"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success! Your notebook passes all the tests." in done.stdout
    assert "nbgrader_config.py" not in done.stdout + done.stderr  # no "No ... found" warning


def _readme_check(readme: str, notebook: str) -> list[str]:
    """The README's terminal check (Linux and macOS), as arguments."""
    line = next(
        line.strip()
        for line in readme.splitlines()
        if line.startswith("    .venv/bin/") and line.strip().endswith(notebook)
    )
    return shlex.split(line)


# The terminal check of notebook 02 (issues 41): a wrong update, the instructor's epoch and
# everything else. The update's tests fail, with their messages; the epoch's, which put the
# library's update in place of the student's, pass in the student's release too.
SECOND = "02_perceptron_update"
WRONG_UPDATE = '''def perceptron_update(w, b, x, y):
    """Never updates (wrong)."""
    return np.array(w, dtype=float), b, False
'''


@pytest.mark.slow
def test_terminal_check_lists_whole_messages_and_only_the_wrong_answer(student_dir, tmp_path):
    folder = student_dir[SECOND]
    notebook = f"{SECOND}.ipynb"
    _use_assignment(student_dir, SECOND)
    release = nbformat.read(folder / notebook, as_version=4)
    answers = solution_sources(REPO / "notebooks" / SECOND / notebook)
    answers["perceptron_update"] = WRONG_UPDATE
    for cell in release.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = answers[cell.metadata.nbgrader.grade_id]
    nbformat.write(release, folder / "checked.ipynb")
    command = _readme_check((folder / "README.md").read_text(), notebook)
    assert command[0] == ".venv/bin/python", command
    # the one environment this test keeps for every assignment (_use_assignment)
    command = [_venv_bin(student_dir, "python"), *command[1:-1], "checked.ipynb"]
    done = _run(command, folder)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    # Exactly the update's test cells fail, each named by its first line, with its message
    # whole (the project's own run of the same answers says which and what).
    _, failed = _expected(student_dir, release, tmp_path)
    labels = {f["source"].splitlines()[0].strip('"') for f in failed}
    assert labels and all(label.startswith("perceptron_update:") for label in labels), labels
    assert out.count("This test failed:") == len(failed)
    words = " ".join(out.split())
    for entry in failed:
        assert " ".join(entry["source"].splitlines()[0].strip('"').split()) in words
        message = entry["raw_error"].strip().splitlines()[-1]  # the exception's line
        assert " ".join(_ANSI.sub("", message).split()) in words, message
    assert "perceptron_epoch:" not in out and "train_perceptron:" not in out
    # nothing else: no code, no library frame, no kernel log, no line cut short
    assert "linlib/" not in out and "Traceback" not in out, out
    assert "Kernel is running over TCP" not in out and "INFO" not in out, out
    assert not [line for line in out.splitlines() if line.rstrip().endswith("...")], out


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


# --------------------------------------------------------------------------- the browser


@pytest.fixture
def jupyter_lab(student_dir, tmp_path) -> Iterator[tuple[str, str, Path]]:
    """JupyterLab as the README opens it, on 127.0.0.1 with a token; stopped afterwards."""
    _use_assignment(student_dir, FIRST)
    folder = student_dir[FIRST]
    command = shlex.split(_readme_commands((folder / "README.md").read_text())[-1])
    token = "student-e2e"
    env = _student_env()
    # Isolated user settings: every cell rendered (no windowing), so cells can be found;
    # no question about Jupyter's news over the notebook.
    settings = tmp_path / "lab-settings"
    for plugin, value in {
        "notebook-extension/tracker": '{"windowingMode": "none"}',
        "apputils-extension/notification": '{"fetchNews": "false"}',
    }.items():
        path = settings / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value)
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "lab-workspaces"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
    )
    log_path = tmp_path / "jupyterlab.log"
    with jupyterlab_server(command, cwd=folder, env=env, log_path=log_path, token=token) as url:
        yield url, token, log_path


def _expected(student_dir, answered: nbformat.NotebookNode, tmp_path: Path):
    """What the student must see, computed headlessly from the same answers."""
    from nbclient import NotebookClient
    from nbgrader.validator import Validator

    path = tmp_path / "expected.ipynb"
    nbformat.write(answered, path)
    executed = copy.deepcopy(answered)
    NotebookClient(
        executed, allow_errors=True, timeout=300, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    failed = Validator().validate(str(path)).get("failed", [])
    return executed, failed


def _cell_index(nb: nbformat.NotebookNode, grade_id: str) -> int:
    return next(
        i
        for i, c in enumerate(nb.cells)
        if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
    )


def _errors(cell) -> list:
    return [o for o in cell.get("outputs", []) if o.output_type == "error"]


@pytest.mark.slow
def test_student_in_jupyterlab(student_dir, jupyter_lab, tmp_path):
    from playwright import sync_api as playwright_api

    url, token, log_path = jupyter_lab
    folder = student_dir[FIRST]
    release = nbformat.read(folder / f"{FIRST}.ipynb", as_version=4)
    correct = solution_sources(REPO / "notebooks" / FIRST / f"{FIRST}.ipynb")[CORRECT_CELL]
    a, b = _cell_index(release, CORRECT_CELL), _cell_index(release, WRONG_CELL)
    answered = copy.deepcopy(release)
    answered.cells[a].source, answered.cells[b].source = correct, WRONG_ANSWER
    executed, failed = _expected(student_dir, answered, tmp_path)
    # Run All stops at the first error: the wrong answer's test, after the correct one's.
    stop = next(i for i, c in enumerate(executed.cells) if _errors(c))
    tests_passed = [
        i for i in range(a + 1, stop) if executed.cells[i].metadata.get("nbgrader", {}).get("grade")
    ]
    assert stop > b and tests_passed, "the chosen answers no longer make a pass and a fail"
    error = _errors(executed.cells[stop])[0]
    assert error.ename == "AssertionError"
    message = error.evalue.strip().splitlines()[0]

    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    with playwright_api.sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            _drive(page, playwright_api.expect, url, token, a, b, correct, stop, tests_passed)
            cells = page.locator(".jp-Notebook .jp-Cell")
            shown = cells.nth(stop).locator(".jp-OutputArea").inner_text()
            assert error.ename in shown and message in shown
            for i in tests_passed:  # ran, and no error under them
                assert re.search(r"\[\d+\]", cells.nth(i).locator(".jp-InputPrompt").inner_text())
                assert (
                    cells.nth(i)
                    .locator(
                        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
                    )
                    .count()
                    == 0
                )
            # Validate: nbgrader's dialog lists the failures that the Validator finds
            page.locator(".validate-button button, button.validate-button").first.click()
            dialog = page.locator(".jp-Dialog")
            playwright_api.expect(dialog).to_contain_text("Validation Results", timeout=300_000)
            playwright_api.expect(dialog.locator(".validation-failed")).to_be_visible(
                timeout=300_000
            )
            text = dialog.inner_text()
            # JupyterLab's "get notified about official Jupyter news?" toast never came
            assert page.get_by_text("official Jupyter news").count() == 0
            assert text.count("The following cell failed:") == len(failed)
            assert message in text
            for i in tests_passed:
                assert executed.cells[i].source.strip().splitlines()[0] not in text
        except BaseException:
            page.screenshot(path=str(ARTEFACTS / "student_in_jupyterlab.png"), full_page=True)
            shutil.copyfile(log_path, ARTEFACTS / "student_in_jupyterlab.log")
            raise
        finally:
            browser.close()


def _drive(page, expect, url, token, a, b, correct, stop, tests_passed) -> None:
    page.goto(f"{url}/lab/tree/{FIRST}.ipynb?token={token}")
    expect(page.locator(".validate-button").first).to_be_visible(timeout=120_000)
    # The instructor's panels are not there; Validate is.
    disabled = page.evaluate(
        "JSON.parse(document.getElementById('jupyter-config-data').textContent).disabledExtensions"
    )
    assert "@jupyter/nbgrader:formgrader" in disabled
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    assert page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").count() == 0
    for label in ("Formgrader", "Create Assignment", "Assignment List", "Course List"):
        assert page.get_by_text(label, exact=True).count() == 0
    # ... nor the server extensions behind them
    assert page.request.get(f"{url}/formgrader?token={token}").status == 404
    cells = page.locator(".jp-Notebook .jp-Cell")
    for index, source in ((a, correct), (b, WRONG_ANSWER)):
        editor = cells.nth(index).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        page.keyboard.insert_text(source)
        page.keyboard.press("Escape")
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    expect(cells.nth(stop).locator(".jp-OutputArea")).to_contain_text(
        "AssertionError", timeout=300_000
    )
