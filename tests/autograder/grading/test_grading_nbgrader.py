"""autograder.course and autograder.grading on a tiny course notebook: release, validate,
grade through nbgrader.

The tiny notebook is written here (one function, a visible and a hidden test, a correct
answer that warns on stderr) so these tests pin the wrappers' behaviour independently of
the course notebooks; the end-to-end tests on the real notebooks live in
tests/autograder/test_api.py.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.course import Course
from autograder.samples import make_submission
from tests.autograder.grading_helpers import grade_notebooks, validate_notebook

# Runs nbgrader on a notebook (release, validate, autograde): about a minute.


def _meta(**kw):
    return {"nbgrader": dict(schema_version=3, **kw)}


SOLUTION = (
    "def double(x):\n"
    "    ### BEGIN SOLUTION\n"
    "    warnings.warn('doubling')  # a correct answer that writes to stderr\n"
    "    return 2 * x\n"
    "    ### END SOLUTION"
)


def tiny_notebook():
    nb = new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        new_markdown_cell("# Tiny"),
        new_code_cell("import warnings"),
        new_code_cell(
            SOLUTION,
            metadata=_meta(grade=False, solution=True, locked=False, grade_id="double_solution"),
        ),
        new_code_cell(
            '"""double doubles a positive number"""\nassert double(2) == 4',
            metadata=_meta(
                grade=True, solution=False, locked=True, grade_id="double_visible", points=1
            ),
        ),
        new_code_cell(
            '"""double of negatives"""\n'
            "assert double(3) == 6\n"
            "### BEGIN HIDDEN TESTS\n"
            "assert double(-1) == -2  # TINY_HIDDEN_MARK\n"
            "### END HIDDEN TESTS",
            metadata=_meta(
                grade=True, solution=False, locked=True, grade_id="double_hidden", points=2
            ),
        ),
    ]
    return nb


@pytest.fixture(scope="module")
def tiny_course(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    (root / "notebooks" / "tiny").mkdir(parents=True)
    nbformat.write(tiny_notebook(), root / "notebooks" / "tiny" / "tiny.ipynb")
    course = Course(root / "course").make(source_dir=root / "notebooks")
    release = course.release("tiny")
    return course.root, root / "notebooks" / "tiny" / "tiny.ipynb", release / "tiny.ipynb"


@pytest.mark.slow
def test_make_course_copies_source_and_writes_config(tiny_course):
    course, _, _ = tiny_course
    assert (course / "source" / "tiny" / "tiny.ipynb").is_file()
    config = (course / "nbgrader_config.py").read_text()
    assert "c.CourseDirectory.source_directory = 'source'" in config
    assert "gradebook.db" in config


@pytest.mark.slow
def test_release_strips_solution_and_hidden_tests(tiny_course):
    _, _, release = tiny_course
    text = release.read_text()
    assert "raise NotImplementedError" in text
    assert "return 2 * x" not in text
    assert "TINY_HIDDEN_MARK" not in text


@pytest.mark.slow
def test_validate_source_passes_and_release_fails_every_test(tiny_course):
    _, source, release = tiny_course
    # the source warns on stderr, which stock nbgrader validate counts as failing
    ok, report = validate_notebook(source)
    assert not ok and "VALIDATION FAILED" in report
    ok, report = validate_notebook(release, invert=True)
    assert ok, report


@pytest.mark.slow
def test_grade_batch(tiny_course):
    course, source, release = tiny_course
    good = make_submission(release, source)
    buggy = make_submission(
        release, source, {"double_solution": "def double(x):\n    return 2 * x if x > 0 else 0"}
    )
    blank = nbformat.read(release, as_version=4)
    deleted = copy.deepcopy(good)
    deleted.cells = [
        c for c in deleted.cells if c.metadata.get("nbgrader", {}).get("points") is None
    ]
    duplicated = copy.deepcopy(good)
    duplicated.cells.append(copy.deepcopy(duplicated.cells[3]))
    results = grade_notebooks(
        course,
        "tiny",
        {
            "good": {"tiny": good},
            "buggy": {"tiny": buggy},
            "blank": {"tiny.ipynb": blank},
            "deleted": {"tiny": deleted},
            "duplicated": {"tiny": duplicated},
        },
        workers=2,
        sandbox=False,
    )
    full = {"double_visible": (1.0, 1.0), "double_hidden": (2.0, 2.0)}
    # the warning on stderr does not cost the good answer its points
    assert results["good"].scores == full and results["good"].flags == []
    assert results["buggy"].scores == {"double_visible": (1.0, 1.0), "double_hidden": (0.0, 2.0)}
    assert results["blank"].scores == {"double_visible": (0.0, 1.0), "double_hidden": (0.0, 2.0)}
    # deleted test cells come back (and pass), the submission is flagged
    assert results["deleted"].scores == full
    assert any("double_hidden was deleted" in f for f in results["deleted"].flags)
    assert results["duplicated"].scores == full
    assert any("appears 2 times" in f for f in results["duplicated"].flags)
