"""Check a notebook in a terminal, as nbgrader's Validate button does, and say what failed.

``python -m linlib.validate NOTEBOOK [NOTEBOOK ...]`` is the check a student's release
README gives for the terminal. It runs the notebook in a fresh kernel and checks it with
nbgrader's own validator, as ``nbgrader validate`` and the notebook toolbar's **Validate**
do (the configuration of ``nbgrader_config.py`` included), and prints for each test that
fails the line that says what it checks and its error message, whole, wrapped to the
terminal's width. ``nbgrader validate`` prints instead the test's code and its traceback,
cutting every line at 90 characters, the message among them, and the kernel's own log
lines with them. Exit status 1 when a test fails or a locked cell was changed, else 0.

Introduced in 01 — hyperplanes (checking a notebook before handing it in).
"""

from __future__ import annotations

import argparse
import ast
import glob
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

__all__ = ["describe_test", "main"]

#: The kernel's own log (its warning about TCP without encryption, say) says nothing about
#: the student's work: the check's kernel logs errors only.
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]


def describe_test(source: str) -> str | None:
    """What a test cell checks, in its own words: the one-line docstring it opens with
    (every test cell of the course does), or None.

    Examples
    --------
    >>> describe_test("'''predict: ties count as -1.'''\\nimport numpy as np")
    'predict: ties count as -1.'
    >>> describe_test("assert True") is None
    True

    Introduced in 01 — hyperplanes (checking a notebook before handing it in).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    doc = ast.get_docstring(tree)
    return " ".join(doc.split()) if doc else None


def _validator_class() -> type:
    from nbconvert.filters import strip_ansi
    from nbgrader.validator import Validator

    class StudentValidator(Validator):
        """nbgrader's validator, printing each failure's message whole instead of the
        test's code and traceback cut at the width."""

        results: dict[str, Any] | None = None

        def validate(self, filename: str) -> dict[str, Any]:
            self.results = super().validate(filename)
            return self.results

        def _extract_error(self, cell: Any) -> str:
            messages = []
            for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
                if output.output_type == "error":
                    evalue = " ".join(str(output.get("evalue", "")).split())
                    messages.append(f"{output.ename}: {evalue}" if evalue else output.ename)
                elif output.output_type == "stream" and output.name == "stderr":
                    messages.append("It wrote to stderr: " + " ".join(output.text.split()))
            return "\n".join(messages) if messages else super()._extract_error(cell)

        def _indent(self, val: str) -> str:
            lines = []
            for line in strip_ansi(val).split("\n"):
                lines += textwrap.wrap(
                    line,
                    width=self.width,
                    initial_indent=self.indent,
                    subsequent_indent=self.indent,
                    break_long_words=False,
                    break_on_hyphens=False,
                ) or [""]
            return "\n".join(lines)

        def _print_error(self, source: str, error: str) -> None:
            label = describe_test(source)
            if label is None:
                super()._print_error(source, error)
                return
            self.stream.write("\n" + "=" * self.width + "\n")
            self.stream.write(self._indent(f"This test failed: {label}") + "\n\n")
            self.stream.write(self._indent(error) + "\n")

    return StudentValidator


def main(argv: Sequence[str] | None = None) -> int:
    """Validate each notebook named on the command line; 1 if any test failed, else 0."""
    parser = argparse.ArgumentParser(
        prog="python -m linlib.validate",
        description="Run a notebook and list the tests that fail, each with its message.",
    )
    parser.add_argument("notebooks", nargs="+", help="the notebook(s) to check")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from nbgrader.apps.validateapp import ValidateApp

    app = ValidateApp()
    app.initialize([])  # nbgrader's configuration: nbgrader_config.py and the rest
    app.log.setLevel("WARNING")  # not "Validating ...": the check says what failed
    given = list(app.config.Execute.get("extra_arguments", []))
    app.config.Execute.extra_arguments = given + [a for a in KERNEL_ARGUMENTS if a not in given]
    validator = _validator_class()(parent=app)
    validator.width = max(60, min(100, shutil.get_terminal_size((90, 24)).columns - 1))
    failed = False
    for pattern in args.notebooks:
        filenames = sorted(glob.glob(pattern)) or [pattern]
        for filename in filenames:
            print(f"{filename}:", flush=True)
            validator.validate_and_print(filename)
            results = validator.results or {}
            failed |= any(results.get(key) for key in ("failed", "changed", "type_changed"))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
