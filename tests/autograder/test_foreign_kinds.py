"""Every kind of course stock nbgrader grades is graded with stock's scores
(:mod:`tests.autograder.foreign_kinds`): small courses written here, one kind each, and
public courses written by others (``tests/data/``, with their licence notices).

For each: stock nbgrader grades the class (the reference: the instructor's solution gets
what it gets, the blank release nothing, ``buggy`` loses exactly its bug's test, ``stylish``
everything); ``python -m autograder grade --source`` does not refuse it; every (student,
assignment, notebook, grade id) has stock's automatic score and ``needs_manual_grade``;
results.json and grades.csv say each submission is out of what nbgrader says (every
graded cell's points, manual answers and tasks included).

Stock grades each course once (two copies at a time); ours grades each course in one run,
and, while that run does not grade the class, each kind on its own (a copy of the course
with only its assignments), so that a refusal is told of its kind
(:class:`~tests.autograder.foreign_kinds.Graded`).
"""

from __future__ import annotations

import pytest

from tests.autograder.foreign_kinds import (
    KINDS,
    STUDENTS,
    Graded,
    Kind,
    differences,
    only,
    our_max_scores,
    ours_class,
    public_course,
    solutions,
    stock_class,
    without_kernel_name,
    write_kinds_course,
)

pytestmark = [pytest.mark.slow, pytest.mark.needs_sandbox]


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    work = tmp_path_factory.mktemp("kinds")
    return Graded(write_kinds_course(work / "kinds-101"), work, KINDS)


def _auto(cells, assignments):
    """student -> grade id -> automatic score, of the autograded tests only."""
    out = {}
    for (student, assignment, _, gid), (score, manual) in cells.items():
        if assignment in assignments and not manual:
            out.setdefault(student, {})[gid] = score
    return out


def assert_stock_shape(graded: Graded, kind: Kind, students=STUDENTS, instructor_lost=()):
    """The reference itself: stock graded every assignment of the kind (exit 0), the
    instructor's solution scored everything but *instructor_lost*, the blank release
    nothing, ``buggy`` lost exactly its bug's tests, ``stylish`` nothing (both answer every
    exercise, the one the instructor left unwritten too)."""
    for assignment in kind.assignments:
        run = graded.stock.runs[assignment]
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    auto = _auto(graded.stock.cells, kind.assignments)
    assert set(auto) == set(students), auto
    zero = {s: {g for g, v in tests.items() if v == 0} for s, tests in auto.items()}
    assert zero["instructor"] == set(instructor_lost), zero
    assert zero["blank"] == set(auto["blank"]), zero
    assert zero["buggy"] == set(kind.lost), zero
    if "stylish" in students:
        assert zero["stylish"] == set(), zero


def assert_ours_as_stock(graded: Graded, name: str):
    """Ours graded the kind (exit 0), every grade cell as stock, every submission out of
    what nbgrader says in results.json and grades.csv."""
    kind = graded.kinds[name]
    ours = graded.ours(name)
    assert ours.done.returncode == 0, ours.reason
    assert not differences(only(graded.stock.cells, kind.assignments), ours.cells)
    expected = {k: v for k, v in graded.stock.max_scores.items() if k[1] in kind.assignments}
    wrong = {}
    for output, got in our_max_scores(ours.out).items():
        got = {k: v for k, v in got.items() if k[1] in kind.assignments}
        if got != expected:
            wrong[output] = {
                k: (v, expected.get(k)) for k, v in got.items() if v != expected.get(k)
            }
    assert not wrong, f"max score (ours, nbgrader's): {wrong}"


# ------------------------------------------------------------------ courses written here


def test_a_test_reading_an_earlier_tests_variable_is_scored_as_stock(kinds):
    """1. ``squares_read`` reads ``result`` that ``squares_made`` made; the hidden part of
    ``squares_hidden_read`` reads ``big`` that of ``squares_hidden_made`` made."""
    assert_stock_shape(kinds, KINDS["shared"])
    assert_ours_as_stock(kinds, "shared")


def test_numpy_imported_in_a_solution_cells_given_lines_is_scored_as_stock(kinds):
    """2. ``import numpy as np`` stands above ``### BEGIN SOLUTION`` in the answer cell;
    no other cell imports it; the tests use ``np``."""
    assert_stock_shape(kinds, KINDS["given"])
    assert_ours_as_stock(kinds, "given")


def test_an_import_of_a_stateful_helper_module_is_scored_as_stock(kinds):
    """3. The answer is ``from helper import count, tick`` (helper.py beside the notebook);
    the tests count calls and read a cache the module keeps."""
    assert_stock_shape(kinds, KINDS["imports"])
    assert_ours_as_stock(kinds, "imports")


def test_a_generator_and_a_callable_indexable_class_are_scored_as_stock(kinds):
    """4. ``next`` and ``list`` of a student's generator; a student's class instantiated,
    called, indexed and measured by ``len``."""
    assert_stock_shape(kinds, KINDS["protocols"])
    assert_ours_as_stock(kinds, "protocols")


def test_functions_passed_into_the_students_function_are_scored_as_stock(kinds):
    """5. A lambda, and a function of the test cell's own that records its calls."""
    assert_stock_shape(kinds, KINDS["callbacks"])
    assert_ours_as_stock(kinds, "callbacks")


def test_cells_that_raise_today_outside_the_tests_are_scored_as_stock(kinds):
    """6. ``np.histogram(..., normed=True)`` (a keyword numpy removed) and ``from
    collections import Mapping`` (removed in Python 3.10) raise in cells that are not
    tests: stock gives every test its points."""
    assert_stock_shape(kinds, KINDS["legacy"])
    assert_ours_as_stock(kinds, "legacy")


def test_an_instructors_source_failing_its_own_test_is_scored_as_stock(kinds):
    """7. The source's ``area`` cell is ``raise NotImplementedError()``: stock grades the
    class, the instructor's solution scores 0 on ``area_test``."""
    assert_stock_shape(kinds, KINDS["unfinished"], instructor_lost={"area_test"})
    assert_ours_as_stock(kinds, "unfinished")


def test_a_grade_id_in_two_assignments_is_scored_as_stock(kinds):
    """8. ``mean`` and ``mean_test`` were copied from ps1 to ps2 with their grade ids."""
    assert_stock_shape(kinds, KINDS["copied"])
    for student in STUDENTS:
        assert (student, "ps1", "stats", "mean_test") in kinds.stock.cells
        assert (student, "ps2", "stats", "mean_test") in kinds.stock.cells
    assert_ours_as_stock(kinds, "copied")


def test_notebooks_with_spaces_data_files_tasks_and_manual_answers_as_stock(kinds):
    """Two notebooks ("Part one", "Part two"), data/points.csv and data/settings.json, a
    manually graded markdown answer (2 points) and code answer (1), a task (3)."""
    assert_stock_shape(kinds, KINDS["multi"])
    manual = {
        k[3] for k, (_, pending) in kinds.stock.cells.items() if pending and k[0] == "stylish"
    }
    assert manual == {"why_line", "describe", "plot_task"}, manual
    assert kinds.stock.max_scores[("stylish", "multi")] == 1 + 2 + 2 + 1 + 1 + 3
    assert_ours_as_stock(kinds, "multi")


def test_a_kernelspec_other_than_python3_with_the_courses_kernel_name(kinds):
    """The notebook names the course's own kernel ("python3-custom", "Python 3 (course)"),
    which is not installed; the course's nbgrader_config.py says ``c.Execute.kernel_name =
    "python3"``, as such a course must for stock nbgrader to grade it."""
    assert_stock_shape(kinds, KINDS["kernel"])
    assert_ours_as_stock(kinds, "kernel")


def test_a_kernelspec_that_is_not_installed_is_graded_in_python_with_a_note(kinds, tmp_path):
    """Without ``c.Execute.kernel_name``, stock ``nbgrader autograde`` cannot start the
    notebook's kernel: it exits 1 ("No such kernel named python3-custom") and leaves every
    grade cell to manual grading, no score. Ours grades the Python notebook in the sandbox's
    Python kernel, as that setting would have nbgrader do, and says so: every cell as stock
    scores it with the setting (the kind's own test, above)."""
    course = without_kernel_name(kinds.course, tmp_path / "no-kernel-name", ["kernel"])
    submitted, stock = stock_class(course, tmp_path, {"kernel": KINDS["kernel"]}, groups=1)
    run = stock.runs["kernel"]
    assert run.returncode == 1
    assert "No such kernel named python3-custom" in run.stdout + run.stderr
    assert all(v == (None, True) for v in stock.cells.values()), stock.cells
    ours = ours_class(course, submitted, tmp_path / "ours", ["kernel"])
    assert ours.done.returncode == 0, ours.reason
    assert "names the kernel 'python3-custom', which is not installed here" in ours.done.stderr
    with_setting = only(kinds.stock.cells, ("kernel",))
    assert ours.cells == {k: v for k, v in with_setting.items() if k in ours.cells}
    assert len(ours.cells) == len(with_setting)


def test_a_test_relying_on_random_seeded_in_an_earlier_cell_is_scored_as_stock(kinds):
    """``random.seed(0)`` in a cell that is not a test; ``roll_test`` expects the rolls
    [4, 4, 1] of that seed."""
    assert_stock_shape(kinds, KINDS["seeded"])
    assert_ours_as_stock(kinds, "seeded")


def test_a_failing_visible_assert_beside_hidden_tests_is_scored_as_stock(kinds):
    """``reverse_test`` holds a visible assert (buggy fails it) and hidden tests."""
    assert_stock_shape(kinds, KINDS["mixed"])
    assert_ours_as_stock(kinds, "mixed")


# ---------------------------------------------------------------- courses written by others

CS1302 = public_course("cs1302i21a")


def _cs1302_kinds() -> dict[str, Kind]:
    """Lab3a, Lab4 and Lab6 of CS1302, each with one bug in one exercise."""
    # assignment -> (notebook, grade id, replaced, by, the test it loses)
    bugs = {
        "Lab3a": (
            "Improved Quadratic Equation Solver",
            "degenerate",
            "roots = None",
            "roots = ()",
            "test_degenerate",
        ),
        "Lab4": (
            "Mastermind",
            "get_feedback",
            "key = 'b' * black_key_pegs_count + 'w' * white_key_pegs_count",
            "key = 'w' * white_key_pegs_count + 'b' * black_key_pegs_count",
            "test-get_feedback",
        ),
        "Lab6": (
            "Combinatorics",
            "num_permutation_k",
            "return f(n) // f(n-k)",
            "return f(n) // f(k)",
            "test-num_permutation_k",
        ),
    }
    out = {}
    for assignment, (nb, gid, old, new, lost) in bugs.items():
        source = solutions(CS1302 / "source" / assignment / f"{nb}.ipynb")[gid]
        assert old in source, (assignment, gid)
        out[assignment] = Kind(
            assignment, (assignment,), {gid: source.replace(old, new)}, {}, frozenset({lost})
        )
    return out


PUBLIC_STUDENTS = ("instructor", "blank", "buggy")


@pytest.fixture(scope="module")
def cs1302(tmp_path_factory):
    work = tmp_path_factory.mktemp("cs1302")
    return Graded(CS1302, work, _cs1302_kinds(), PUBLIC_STUDENTS)


@pytest.mark.parametrize("lab", ["Lab3a", "Lab4", "Lab6"])
def test_cs1302_labs_are_scored_as_stock(cs1302, lab):
    """Chung Chan's CS1302 (MIT): Lab3a (a notebook name with spaces, a manual markdown
    answer), Lab4 (a helper module with state, imported as the answer), Lab6 (generators
    driven by ``send``, a decorator, a test cell rebinding a name)."""
    assert_stock_shape(cs1302, cs1302.kinds[lab], PUBLIC_STUDENTS)
    assert_ours_as_stock(cs1302, lab)


INTROPY = public_course("intropy")


#: introPy's manually graded markdown answer (0 points)
INTROPY_MANUAL = "cell-1b7dde716f8757c0"


@pytest.fixture(scope="module")
def intropy(tmp_path_factory):
    source = solutions(INTROPY / "source" / "week_1" / "0_introduction.ipynb")
    wrong = source["cell-18f974e3fcc0d18f"].replace("x = 5\n", "x = 4\n")
    assert wrong != source["cell-18f974e3fcc0d18f"]
    kind = Kind("week_1", ("week_1",), {"cell-18f974e3fcc0d18f": wrong}, {}, frozenset())
    work = tmp_path_factory.mktemp("intropy")
    return Graded(INTROPY, work, {"week_1": kind}, PUBLIC_STUDENTS)


def test_intropy_introduction_is_scored_as_stock(intropy):
    """Lukas Snoek's introPy (BSD): a practice tutorial whose tests and manual answer are
    worth 0 points, a helper module with a class, ``%whos`` and ``Person?`` in its cells, a
    code cell of markdown text. Stock grades it: every test 0 of 0; the manual answer
    awaits its grader, but the blank release's is 0 and done."""
    run = intropy.stock.runs["week_1"]
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert len(intropy.stock.cells) == 13 * len(PUBLIC_STUDENTS)
    tests = {v for k, v in intropy.stock.cells.items() if k[3] != INTROPY_MANUAL}
    assert tests == {(0.0, False)}, tests
    manual = {k[0]: v for k, v in intropy.stock.cells.items() if k[3] == INTROPY_MANUAL}
    assert manual == {
        "instructor": (None, True),
        "buggy": (None, True),
        "blank": (0.0, False),
    }, manual
    assert set(intropy.stock.max_scores.values()) == {0.0}
    assert_ours_as_stock(intropy, "week_1")


STARBOARD = public_course("starboard_nbgrader")


@pytest.fixture(scope="module")
def starboard(tmp_path_factory):
    nb = STARBOARD / "source" / "my-assignment" / "Adjacency Matrices.ipynb"
    source = solutions(nb)["cell-02baf050bea44f2a"]
    elementwise = source.replace("np.linalg.matrix_power(m, k)", "m**k")
    assert elementwise != source
    kind = Kind(
        "my-assignment",
        ("my-assignment",),
        {"cell-02baf050bea44f2a": elementwise},
        {},
        frozenset({"cell-9c47b3c11ef9d1b0"}),
    )
    work = tmp_path_factory.mktemp("starboard")
    return Graded(STARBOARD, work, {"my-assignment": kind}, PUBLIC_STUDENTS)


def test_starboard_adjacency_matrices_is_scored_as_stock(starboard):
    """IllumiDesk's starboard-nbgrader example (Apache 2.0): "Adjacency Matrices.ipynb",
    ``import numpy as np`` above the solution markers of the answer cell, a manually graded
    plot (2 points) and a task."""
    assert_stock_shape(starboard, starboard.kinds["my-assignment"], PUBLIC_STUDENTS)
    pending = {k[3] for k, (_, manual) in starboard.stock.cells.items() if manual}
    assert pending == {"cell-4ba6195442b48c46", "cell-f90bec049b713924"}, pending
    assert_ours_as_stock(starboard, "my-assignment")
