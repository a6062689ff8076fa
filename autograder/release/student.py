"""What a student gets beside the release notebook: the files of an assignment's zip.

A release zip (``python -m autograder release``) is all a student needs::

    <assignment>/<assignment>.ipynb              the release notebook (nbgrader's)
    <assignment>/README.md                       two commands: a venv, then JupyterLab
    <assignment>/requirements.txt                exact pins: the wheel and what it needs
    <assignment>/linlib-<version>+<assignment>-py3-none-any.whl   the course's helper library
    <assignment>/nbgrader_config.py              so that the README's check finds its config

The wheel is a linlib-only distribution built at release time from the repository's
``linlib/`` with setuptools, offline: the *student build* of the assignment, in which the
library's answers to its exercises and to later assignments' are stubs (what the release
notebook itself uses stays; :mod:`autograder.release.answers`), one wheel per assignment,
its version tagged with the assignment's name. Its metadata declares the runtime dependencies listed
in ``pyproject.toml`` (``[project] dependencies``), and its data files hold a JupyterLab
page configuration (``etc/jupyter/labconfig/page_config.d/``, what ``jupyter labextension
disable`` writes at the environment's level) that hides the nbgrader panels a student
cannot use: Formgrader, Create Assignment, the Assignment and Course lists and the
nbgrader menu (and, as in the course's own JupyterLab, JupyterLab's "Jupyter news?"
toast: ``templates/linear-classifiers-course.json``), and a Jupyter server
configuration (``etc/jupyter/jupyter_server_config.d/``) that turns the server extensions
behind them off (formgrader, assignment and course lists). Validate stays.
``requirements.txt`` pins, from the repository's own ``requirements.txt``, the wheel's
dependencies and the student's tools (``[project.optional-dependencies] student``) with
everything they pull in.

Dates: every file in the zip, and in the wheel, carries the release's date: the time of
the release, or ``SOURCE_DATE_EPOCH`` when it is set (the same epoch gives the same bytes).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path

import nbformat
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from autograder.release import answers
from course_common.paths import LINLIB_DIR, REPO_ROOT

PYPROJECT = REPO_ROOT / "pyproject.toml"
REQUIREMENTS = REPO_ROOT / "requirements.txt"
TEMPLATES = Path(__file__).resolve().parent / "templates"

#: The optional-dependencies group of pyproject.toml with the student's own tools.
STUDENT_EXTRA = "student"
#: Where the wheel installs the JupyterLab page configuration, relative to the environment.
PAGE_CONFIG_DIR = "etc/jupyter/labconfig/page_config.d"
PAGE_CONFIG_NAME = "linear-classifiers-student.json"
#: Where the wheel installs the Jupyter server configuration that turns nbgrader's instructor
#: server extensions off; its name sorts after nbgrader's own ``nbgrader.json`` there (the
#: files of that folder are read in name order, a later one winning).
SERVER_CONFIG_DIR = "etc/jupyter/jupyter_server_config.d"
SERVER_CONFIG_NAME = "student-linear-classifiers.json"
#: The page configuration of every JupyterLab of the course, the course's own (``./run``
#: installs it into the project's environment) and the student's (merged into theirs):
#: JupyterLab's "Jupyter news?" toast off.
COURSE_PAGE_CONFIG = TEMPLATES / "linear-classifiers-course.json"
#: Zip files cannot hold dates before 1980.
_MIN_EPOCH = 315532800


class ReleaseError(RuntimeError):
    """The student files cannot be made (a missing pin, a failed wheel build)."""


def student_page_config() -> str:
    """The student's JupyterLab page configuration (JSON): the course's, and nbgrader's
    panels a student cannot use turned off."""
    config = json.loads(COURSE_PAGE_CONFIG.read_text(encoding="utf-8"))
    student = json.loads((TEMPLATES / "student_page_config.json").read_text(encoding="utf-8"))
    disabled = {**config["disabledExtensions"], **student["disabledExtensions"]}
    config["disabledExtensions"] = dict(sorted(disabled.items()))
    return json.dumps(config, indent=2) + "\n"


def release_epoch() -> int:
    """The release's date in seconds: ``SOURCE_DATE_EPOCH`` if set, else now."""
    text = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    epoch = int(text) if text else int(time.time())
    return max(epoch, _MIN_EPOCH)


def zip_date(epoch: int) -> tuple[int, int, int, int, int, int]:
    """``epoch`` as a zip entry's date (UTC; zip keeps even seconds)."""
    moment = datetime.datetime.fromtimestamp(epoch, tz=datetime.UTC)
    return (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)


def _project() -> dict:
    with PYPROJECT.open("rb") as handle:
        return tomllib.load(handle)["project"]


def linlib_dependencies() -> list[str]:
    """linlib's runtime dependencies, as declared in pyproject.toml."""
    return list(_project().get("dependencies", []))


def student_tools() -> list[str]:
    """What a student needs besides linlib (JupyterLab, nbgrader's Validate)."""
    return list(_project().get("optional-dependencies", {}).get(STUDENT_EXTRA, []))


def _toml_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def wheel_version(build: answers.StudentBuild | None = None) -> str:
    """The wheel's version: the project's, with the assignment as a local label for a
    student build (``0.1.0+2.ps.two`` for an assignment ``2_ps_two``), so that ``pip
    show linlib`` names the build and pip replaces one assignment's build with another's in
    a shared environment."""
    version = str(_project()["version"])
    if build is None:
        return version
    local = re.sub(r"[^a-z0-9]+", ".", build.assignment.lower()).strip(".")
    return str(Version(f"{version}+{local}"))  # normalised, as in the wheel's name


def build_linlib_wheel(
    dest_dir: str | os.PathLike,
    *,
    epoch: int | None = None,
    build: answers.StudentBuild | None = None,
) -> Path:
    """Build the linlib-only wheel into ``dest_dir`` (offline, deterministic for an epoch).

    Only what the notebooks use at run time goes in: the package's modules and its data
    file, not the script that made the data. With ``build``, the student build of its
    assignment: the answers it leaves out are stubs (:mod:`autograder.release.answers`).
    Returns the wheel's path.
    """
    epoch = release_epoch() if epoch is None else epoch
    dest_dir = Path(dest_dir).resolve()
    dest_dir.mkdir(parents=True, exist_ok=True)
    project = _project()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "make_*.py")
    with tempfile.TemporaryDirectory(prefix="linlib-wheel-") as tmp:
        root = Path(tmp)
        if build is None:
            shutil.copytree(LINLIB_DIR, root / "linlib", ignore=ignore)
        else:
            answers.write_student_linlib(build, root, package_dir=LINLIB_DIR, ignore=ignore)
        (root / PAGE_CONFIG_NAME).write_text(student_page_config(), encoding="utf-8")
        shutil.copyfile(TEMPLATES / "student_server_config.json", root / SERVER_CONFIG_NAME)
        (root / "pyproject.toml").write_text(
            "\n".join(
                [
                    "[build-system]",
                    'requires = ["setuptools>=68"]',
                    'build-backend = "setuptools.build_meta"',
                    "",
                    "[project]",
                    'name = "linlib"',
                    f"version = {json.dumps(wheel_version(build))}",
                    'description = "The helper library of the course Linear classifiers"',
                    f"requires-python = {json.dumps(project.get('requires-python', '>=3.11'))}",
                    f"dependencies = {_toml_list(linlib_dependencies())}",
                    "",
                    "[tool.setuptools]",
                    'packages = ["linlib"]',
                    "include-package-data = false",
                    "",
                    "[tool.setuptools.package-data]",
                    'linlib = ["data/*.tsv"]',
                    "",
                    "[tool.setuptools.data-files]",
                    f'"{PAGE_CONFIG_DIR}" = ["{PAGE_CONFIG_NAME}"]',
                    f'"{SERVER_CONFIG_DIR}" = ["{SERVER_CONFIG_NAME}"]',
                    "",
                ]
            )
        )
        out = root / "dist"
        env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch), "PYTHONDONTWRITEBYTECODE": "1"}
        script = (
            "import sys\nfrom setuptools import build_meta\n"
            "print(build_meta.build_wheel(sys.argv[1]))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script, str(out)],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise ReleaseError(f"building the linlib wheel failed:\n{done.stderr[-4000:]}")
        name = done.stdout.strip().splitlines()[-1]
        dest = dest_dir / name
        shutil.copyfile(out / name, dest)
    return dest


def _pins(path: Path = REQUIREMENTS) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            pins[canonicalize_name(Requirement(line).name)] = line
    return pins


def student_closure(roots: Sequence[str]) -> list[str]:
    """Canonical names of ``roots`` and everything they require in this environment."""
    seen: dict[str, set[str]] = {}
    stack = [Requirement(root) for root in roots]
    while stack:
        req = stack.pop()
        name = canonicalize_name(req.name)
        extras = set(req.extras)
        if name in seen and extras <= seen[name]:
            continue
        seen.setdefault(name, set()).update(extras)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise ReleaseError(f"{req.name} is not installed in this environment") from None
        for text in dist.requires or []:
            dep = Requirement(text)
            if dep.marker is not None and not any(
                dep.marker.evaluate({"extra": extra}) for extra in (extras or {""})
            ):
                continue
            stack.append(dep)
    return sorted(seen)


def student_requirements(wheel_name: str) -> str:
    """The zip's requirements.txt: the wheel, then exact pins of all it needs."""
    pins = _pins()
    names = student_closure(linlib_dependencies() + student_tools())
    missing = [name for name in names if name not in pins]
    if missing:
        raise ReleaseError(f"not pinned in requirements.txt: {', '.join(missing)}")
    lines = [
        "# The packages of this assignment at the exact versions the course is tested with",
        "# (Python 3.11); see README.md. Packages that only Windows or macOS need are left",
        "# to pip.",
        f"./{wheel_name}",
        *(pins[name] for name in names),
    ]
    return "\n".join(lines) + "\n"


def _title(notebook: Path) -> str:
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def student_readme(notebook: Path) -> str:
    """The zip's README.md for the release notebook ``notebook``."""
    template = (TEMPLATES / "student_README.md").read_text(encoding="utf-8")
    return template.format(title=_title(notebook), notebook=notebook.name)


def student_nbgrader_config(course_id: str) -> str:
    """The zip's nbgrader_config.py (nbgrader warns in a folder without one)."""
    template = (TEMPLATES / "student_nbgrader_config.py.txt").read_text(encoding="utf-8")
    return template.replace("{course_id}", course_id)


def student_files(release_dir: Path, wheel: Path, course_id: str) -> Mapping[str, bytes]:
    """Files to put beside the release notebooks of ``release_dir`` in its zip."""
    notebooks = sorted(Path(release_dir).glob("*.ipynb"))
    if not notebooks:
        raise ReleaseError(f"no release notebook in {Path(release_dir).name}")
    return {
        "README.md": student_readme(notebooks[0]).encode(),
        "requirements.txt": student_requirements(wheel.name).encode(),
        "nbgrader_config.py": student_nbgrader_config(course_id).encode(),
        wheel.name: wheel.read_bytes(),
    }
