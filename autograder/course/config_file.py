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


def write_config_file(course_dir: Path, config: Config, *, stock: bool = False) -> None:
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
    lines += [
        "",
        "# nbgrader's formgrader (jupyter lab in this folder) renders a submission sanitised and",
        "# its Generate feedback makes the pages `python -m autograder grade` makes",
        "from pathlib import Path  # noqa: E402",
        "",
        "from autograder.course import Course  # noqa: E402",
        "from autograder.grading import formgrader_config  # noqa: E402",
        "",
        "c.merge(formgrader_config(Course(Path(__file__).parent)))",
    ]
    write_atomic(course_dir / "nbgrader_config.py", "\n".join(lines) + "\n")
