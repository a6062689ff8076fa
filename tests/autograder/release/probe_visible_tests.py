"""Run a release's test cells on a student build of linlib, the earlier answers all wrong.

Run as a script by the project's Python, with folders of unpacked student wheels and, for
each, its release notebooks and source notebooks:
``probe_visible_tests.py WHEEL_DIR RELEASE_DIR SOURCE_DIR [WHEEL_DIR RELEASE_DIR SOURCE_DIR
...]``. For each, the wheel's ``linlib`` is imported (first on ``sys.path``), and every
test cell of the release notebooks that puts a library reference in place of an earlier
answer (``use_reference``) is run with the instructor's solutions, except that each
earlier answer it names is replaced by a function that fails the test when called: the
student whose later function is right and whose earlier ones are wrong. Prints, as JSON,
for each assignment, each such cell's outcome: ``"passed"`` or the failure's message.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any


def _wrong_answer(name: str) -> Any:
    def wrong(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the student's own (wrong) {name} was called")

    return wrong


def probe(release_dir: Path, source_dir: Path) -> dict[str, Any]:
    import nbformat

    from autograder.notebook import grade_id, is_test_cell, used_references
    from autograder.release.replays import solution_namespace
    from linlib import _build

    outcomes: dict[str, str] = {}
    for release in sorted(release_dir.glob("*.ipynb")):
        source = nbformat.read(source_dir / release.name, as_version=4)
        for cell in nbformat.read(release, as_version=4).cells:
            earlier = used_references(cell.source) if is_test_cell(cell) else {}
            if not earlier:
                continue
            ns = solution_namespace(source, name="probe")
            for name in earlier:
                ns[name] = _wrong_answer(name)
            code = "\n".join(
                "" if line.lstrip().startswith(("%", "!")) else line
                for line in cell.source.split("\n")
            )
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(code, str(grade_id(cell)), "exec"), ns)
            except Exception as error:
                outcomes[str(grade_id(cell))] = f"{type(error).__name__}: {error}"
            else:
                outcomes[str(grade_id(cell))] = "passed"
    return {"assignment": _build.ASSIGNMENT, "outcomes": outcomes}


def main(arguments: list[str]) -> None:
    out = []
    for index in range(0, len(arguments), 3):
        wheel, release, source = (Path(a) for a in arguments[index : index + 3])
        for name in [m for m in sys.modules if m == "linlib" or m.startswith("linlib.")]:
            del sys.modules[name]
        for name in [m for m in sys.modules if m.startswith("autograder")]:
            del sys.modules[name]
        sys.path.insert(0, str(wheel))
        try:
            out.append(probe(release, source))
        finally:
            sys.path.remove(str(wheel))
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
