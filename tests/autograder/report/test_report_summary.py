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


def test_the_terminal_shows_the_characters_not_their_entities():
    """The summary printed by the command line: the entities summary.md escapes shown as
    their characters (no "-&gt;" in a terminal), a student's control characters as "?"."""
    from autograder.__main__ import _terminal_text

    result = SubmissionResult("ann", "01_hyperplanes", scores={"t": (1.0, 1.0)})
    flags = {"01_hyperplanes/ann": ["locked flag changed: t (locked -> unlocked)", "a\x1b[2Jb & c"]}
    shown = _terminal_text(summary_text(summarise([result]), flags))
    assert "(locked -> unlocked)" in shown and "&gt;" not in shown
    assert "a?\\[2Jb & c" in shown and "\x1b" not in shown
