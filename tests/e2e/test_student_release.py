"""A student's path from a release zip alone: the README's commands, then the notebook.

The zip is unzipped into an empty folder and the commands of its README's Linux/macOS
block are run there as written: they make a virtual environment with the zip's pinned
requirements (pip; PyPI or pip's cache) and open the notebook in JupyterLab. Then:

- in a terminal: the release notebook runs, its stubs failing with their own
  NotImplementedError (never an ImportError), and the instructor's solutions pass every
  visible test under ``nbgrader validate``, without the "No nbgrader_config.py" warning;
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
from autograder.samples import solution_sources

from .browser import jupyterlab_server, launch_chromium

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
ARTEFACTS = REPO / "build" / "test-artifacts"
FIRST = "01_hyperplanes"
EPOCH = "1795000000"
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


def test_one_environment_serves_every_assignment(student_dir):
    first = student_dir[FIRST]
    wheel = sorted(first.glob("*.whl"))
    assert len(wheel) == 1
    for folder in student_dir.values():
        assert (folder / "requirements.txt").read_bytes() == (
            first / "requirements.txt"
        ).read_bytes()
        assert (folder / wheel[0].name).read_bytes() == wheel[0].read_bytes()
    done = _run(
        [_venv_bin(student_dir, "python"), "-c", "import linlib; print(linlib.__file__)"], first
    )
    assert done.returncode == 0, done.stderr
    # linlib comes from the wheel installed in the student's environment
    assert Path(done.stdout.strip()).is_relative_to(first / ".venv")
    check = _run([_venv_bin(student_dir, "python"), "-m", "pip", "check"], first)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize("assignment", list_assignments())
def test_release_runs_and_solutions_validate(student_dir, assignment):
    folder = student_dir[assignment]
    notebook = f"{assignment}.ipynb"
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
    # The instructor's solutions, typed into the release: nbgrader validate passes.
    release = nbformat.read(folder / notebook, as_version=4)
    answers = solution_sources(REPO / "notebooks" / assignment / notebook)
    for cell in release.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = answers[grade_id]
    nbformat.write(release, folder / "solved.ipynb")
    done = _run([_venv_bin(student_dir, "nbgrader"), "validate", "solved.ipynb"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success! Your notebook passes all the tests." in done.stdout
    assert "nbgrader_config.py" not in done.stdout + done.stderr  # no "No ... found" warning


# --------------------------------------------------------------------------- the browser


@pytest.fixture
def jupyter_lab(student_dir, tmp_path) -> Iterator[tuple[str, str, Path]]:
    """JupyterLab as the README opens it, on 127.0.0.1 with a token; stopped afterwards."""
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
