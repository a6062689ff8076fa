"""summary.md: nothing a student chose (file names, quoted in flags) renders as HTML or a link."""

from __future__ import annotations

from autograder.models import SubmissionResult
from autograder.report import summarise, summary_text


def test_student_chosen_names_are_inert_markdown():
    name = '<img src=x onerror="alert(1)">'
    result = SubmissionResult(name, "01_hyperplanes", scores={"t": (1.0, 1.0)})
    flags = {
        f"01_hyperplanes/{name}": [
            "extra file not graded: <script>alert(1)</script>.py",
            "see [here](javascript:alert(1))\nsecond line",
        ]
    }
    text = summary_text(summarise([result]), flags)
    line = next(line for line in text.splitlines() if line.startswith("- "))
    assert line.startswith('- `01_hyperplanes/<img src=x onerror="alert(1)">`: ')
    rest = line.split("`: ", 1)[1]
    assert "<script>" not in rest and "&lt;script&gt;" in rest
    assert "[here](" not in rest and "\\[here\\](" in rest
    assert "second line" in line  # one line per submission
