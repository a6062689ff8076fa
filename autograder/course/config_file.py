"""The course folder's ``nbgrader_config.py``: its settings written out for nbgrader's own
commands, and the lines that give nbgrader's formgrader the grader's sanitised view and
feedback pages."""

from __future__ import annotations

from pathlib import Path

from traitlets.config import Config

from autograder.files import write_atomic


def _literal(value: object) -> bool:
    """A setting Python's ``repr`` writes back as the same value."""
    import ast

    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def write_config_file(
    course_dir: Path, config: Config, course_class: type, *, stock: bool = False
) -> None:
    """Write the course folder's ``nbgrader_config.py``: the settings of *config* that Python
    writes back as they are, then, unless *stock*, :func:`formgrader_lines` for
    *course_class* (the class that opens a course folder)."""
    # A real nbgrader_config.py so that stock `nbgrader ...` commands work in this directory
    # too (the benchmark runs the stock CLI); paths are this run's, never committed.
    lines = [
        '"""nbgrader configuration written by autograder.course (Course.make)."""',
        "",
        "c = get_config()  # noqa: F821",
    ]
    first = ("CourseDirectory", "ClearSolutions", "ClearHiddenTests", "Execute")
    others = sorted(name for name in config if name not in first)
    for section in (*first, *others):
        if section not in config or not isinstance(config[section], Config):
            continue
        for key, value in sorted(config[section].items()):
            if key == "root" or not _literal(value):
                continue  # a class or a function of the course's file: not written again
            lines.append(f"c.{section}.{key} = {value!r}")
    if stock:  # plain nbgrader, as its users run it: the benchmark's baseline
        write_atomic(course_dir / "nbgrader_config.py", "\n".join(lines) + "\n")
        return
    lines += formgrader_lines(course_class)
    write_atomic(course_dir / "nbgrader_config.py", "\n".join(lines) + "\n")


def formgrader_lines(course_class: type) -> list[str]:
    """The lines of ``nbgrader_config.py`` with which nbgrader's formgrader (JupyterLab opened
    in the course folder) renders a submission sanitised and its "Generate feedback" makes
    the pages ``python -m autograder grade`` makes: the grading layer's
    :func:`~autograder.grading.config.formgrader_config` of the folder.

    What the file imports is named from the objects imported here, never spelt in a string:
    the import checker sees that the course's file needs the grading layer (the one import
    against the layers, let through by name in ``pyproject.toml``), and a function that moves
    takes its line with it."""
    from autograder.grading.config import formgrader_config

    course, config = course_class.__qualname__, formgrader_config.__qualname__
    return [
        "",
        "# nbgrader's formgrader (jupyter lab in this folder) renders a submission sanitised and",
        "# its Generate feedback makes the pages `python -m autograder grade` makes",
        "from pathlib import Path  # noqa: E402",
        "",
        f"from {course_class.__module__} import {course}  # noqa: E402",
        f"from {formgrader_config.__module__} import {config}  # noqa: E402",
        "",
        f"c.merge({config}({course}(Path(__file__).parent)))",
    ]
