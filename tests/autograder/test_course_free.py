"""The grader grades any nbgrader course: the ``autograder`` package names no assignment,
graded cell or answer of this course. What the course adds on top of nbgrader (its sample
answers, misconception catalogues, the demo's choices) lives with its notebooks, read as the
course's data (``notebooks/<assignment>/``)."""

from __future__ import annotations

import ast
import re

import nbformat
from nbgrader.utils import is_solution

from autograder.source import CourseSource
from course_common.paths import NOTEBOOKS_DIR, REPO_ROOT


def _course_words() -> dict[str, str]:
    """This course's names: word -> what it is."""
    source = CourseSource(REPO_ROOT, NOTEBOOKS_DIR, None, own=True)
    words: dict[str, str] = {}
    for assignment in source.assignments():
        words[assignment] = "assignment"
        for path in source.notebook_paths(assignment):
            for cell in nbformat.read(path, as_version=4).cells:
                meta = cell.get("metadata", {}).get("nbgrader", {})
                graded = meta.get("grade") or meta.get("solution") or meta.get("task")
                if meta.get("grade_id") and graded:
                    words[meta["grade_id"]] = f"grade id in {assignment}"
                if cell.cell_type == "code" and is_solution(cell):
                    for node in ast.parse(cell.source).body:
                        if isinstance(node, ast.FunctionDef | ast.ClassDef):
                            words[node.name] = f"an answer's name in {assignment}"
    return words


def test_the_course_words_are_found():
    words = _course_words()
    assert sum(kind == "assignment" for kind in words.values()) == 7
    assert len(words) > 100  # the grade ids and the answers' names too


def test_the_grader_names_nothing_of_this_course():
    words = _course_words()
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    pattern = re.compile(rf"(?<![A-Za-z0-9])({alternatives})(?![A-Za-z0-9])")
    found = []
    for path in sorted((REPO_ROOT / "autograder").rglob("*")):
        if not path.is_file() or path.suffix not in (".py", ".txt", ".md", ".json", ".toml"):
            continue
        text = path.read_text(encoding="utf-8")
        for match in pattern.finditer(text):
            word = match.group(1)
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(REPO_ROOT)}:{line}: {word} ({words[word]})")
    assert not found, "\n".join(found)


def test_the_course_data_lives_with_its_notebooks():
    for folder in sorted(p for p in NOTEBOOKS_DIR.iterdir() if p.is_dir()):
        assert (folder / "sample_answers.py").is_file(), folder.name
        assert (folder / "misconceptions.toml").is_file(), folder.name
    assert not list((REPO_ROOT / "autograder" / "samples").glob("nb*.py"))
