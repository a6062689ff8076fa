"""Where the course's parts are in the repository: its root, linlib's folder, the source
notebooks, the browser assets ``npm ci`` installs. The one home of these paths for the
autograder, the lecture and the benchmarks."""

from __future__ import annotations

from pathlib import Path

#: The repository's root folder (the course is run from a checkout, not installed).
REPO_ROOT = Path(__file__).resolve().parents[1]
#: The helper package the notebooks import (its source; students get a build of it).
LINLIB_DIR = REPO_ROOT / "linlib"
#: The seven nbgrader source notebooks: ``notebooks/NN_name/NN_name.ipynb``.
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
#: The repository's ``node_modules/`` (``npm ci``).
NODE_MODULES = REPO_ROOT / "node_modules"
