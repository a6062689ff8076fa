"""autograder.course.gradebook: the class loaded from the gradebook at once, the students
and the indexes put in before the workers start."""

from __future__ import annotations

import pytest

from autograder.course import Course


def _class_gradebook(course: Course, students: list[str]) -> None:
    """Two assignments; A of two notebooks (an autograded test, a written answer graded by
    hand), B of one; every student handed in A, the first also B; penalties and
    timestamps on some."""
    import datetime
    import warnings

    course.root.mkdir(parents=True, exist_ok=True)
    with course.gradebook() as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's autoflush warnings
        gb.add_assignment("A")
        gb.add_assignment("B")
        gb.add_notebook("n1", "A")
        gb.add_notebook("n2", "A")
        gb.add_notebook("m", "B")
        gb.add_grade_cell("t1", "n1", "A", max_score=3.0, cell_type="code")
        gb.add_grade_cell("w2", "n2", "A", max_score=2.5, cell_type="markdown")
        gb.add_grade_cell("t3", "m", "B", max_score=4.0, cell_type="code")
        for i, student in enumerate(students):
            gb.add_student(student)
            submission = gb.add_submission("A", student)
            submission.timestamp = datetime.datetime(2026, 1, 1) + datetime.timedelta(hours=i)
            gb.find_grade("t1", "n1", "A", student).auto_score = float(i % 4)
            gb.find_grade("t1", "n1", "A", student).needs_manual_grade = False
            written = gb.find_grade("w2", "n2", "A", student)
            written.needs_manual_grade = i % 2 == 0
            written.manual_score = None if i % 2 == 0 else 1.5
            gb.find_submission_notebook("n1", "A", student).late_submission_penalty = i * 0.25
        gb.add_submission("B", students[0])
        gb.find_grade("t3", "m", "B", students[0]).auto_score = 4.0
        gb.db.commit()


def _what_reports_read(submission) -> tuple:
    return (
        submission.score,
        submission.late_submission_penalty,
        submission.timestamp,
        sorted(
            (
                nb.name,
                nb.score,
                nb.max_score,
                nb.late_submission_penalty,
                sorted((g.name, g.needs_manual_grade, g.max_score) for g in nb.grades),
            )
            for nb in submission.notebooks
        ),
    )


@pytest.mark.slow
def test_the_class_loaded_at_once_is_what_nbgrader_finds_one_by_one(tmp_path):
    from autograder.course import load_submissions

    course = Course(tmp_path / "c")
    students = ["ann", "bo", "cy", "di", "ed"]
    _class_gradebook(course, students)
    with course.gradebook() as gb:
        found = load_submissions(gb, ["A", "B"])
        got = {key: _what_reports_read(s) for key, s in found.items()}
    with course.gradebook() as gb:  # a fresh session: nothing shared with the one above
        expected = {
            (a, s): _what_reports_read(gb.find_submission(a, s))
            for a, s in [*(("A", s) for s in students), ("B", "ann")]
        }
    assert got == expected
    assert got[("A", "di")][1] == 0.75  # the penalty is there, not a default
    with course.gradebook() as gb:
        assert set(load_submissions(gb, ["B", "nothing-such"])) == {("B", "ann")}
        assert load_submissions(gb, []) == {}


@pytest.mark.slow
def test_the_class_is_loaded_in_as_many_queries_for_5_students_as_for_40(tmp_path):
    from sqlalchemy import event

    from autograder.course import load_submissions

    def statements(students: list[str]) -> int:
        course = Course(tmp_path / f"c{len(students)}")
        _class_gradebook(course, students)
        with course.gradebook() as gb:
            count = []
            event.listen(gb.db.get_bind(), "before_cursor_execute", lambda *a: count.append(1))
            for submission in load_submissions(gb, ["A", "B"]).values():
                _what_reports_read(submission)
        return len(count)

    few, many = statements([f"s{i}" for i in range(5)]), statements([f"s{i}" for i in range(40)])
    assert few == many
    assert many < 40  # fewer than one a student (nbgrader's find_submission: about ten)


def test_ensure_students_adds_the_missing_once_and_keeps_the_rest(tmp_path):
    course = Course(tmp_path / "c")
    course.root.mkdir()
    with course.gradebook() as gb:
        gb.add_student("bo", first_name="Bo")
    course.ensure_students(["ann", "bo", "ann", "cy"])
    course.ensure_students(["cy"])
    with course.gradebook() as gb:
        students = {s.id: s.first_name for s in gb.students}
    assert students == {"ann": None, "bo": "Bo", "cy": None}


def test_names_from_the_submissions_fill_only_the_students_without_one(tmp_path, new_course):
    course = new_course(tmp_path / "c")
    with course.gradebook() as gb:
        gb.add_student("101", last_name="Lee", first_name="Ann")  # named in nbgrader
        gb.add_student("102", first_name="Bo")
        for student in ("103", "104"):
            gb.add_student(student)
    course.name_students({"101": "leeann", "102": "ekbo", "103": "doeanna", "104": ""})
    with course.gradebook() as gb:
        names = {s.id: (s.last_name, s.first_name) for s in gb.students}
    assert names == {
        "101": ("Lee", "Ann"),
        "102": (None, "Bo"),
        "103": ("doeanna", None),
        "104": (None, None),
    }


def test_the_gradebook_gets_the_indexes_its_scores_look_up(tmp_path):
    """nbgrader's tables have no index on the columns its scores are looked up by (a
    submission's notebooks, a notebook's grades): ensure_students makes them, once."""
    from sqlalchemy import create_engine, inspect

    from autograder.course.gradebook import GRADEBOOK_INDEXES

    course = Course(tmp_path / "c")
    course.root.mkdir()
    course.ensure_students(["ann"])
    course.ensure_students(["bo"])  # again: nothing to do, no error
    engine = create_engine(course.db_url)
    try:
        found = {
            index["name"]: (table, index["column_names"])
            for table in {t for t, _ in GRADEBOOK_INDEXES.values()}
            for index in inspect(engine).get_indexes(table)
        }
    finally:
        engine.dispose()
    for name, (table, column) in GRADEBOOK_INDEXES.items():
        assert found[name] == (table, [column])


def test_a_missing_notebooks_zeros_hide_sqlalchemys_autoflush_warnings_and_no_other(
    tmp_path, new_course, monkeypatch
):
    """record_zero_scores hides the SAWarnings nbgrader's add_submission trips, and only
    those: a warning of another kind raised in its block shows (issue 45: the block
    ignored every warning)."""
    import warnings

    from nbgrader.api import Gradebook

    course = new_course(tmp_path / "course")
    with course.gradebook() as gb:
        gb.add_assignment("A")
        gb.add_notebook("n1", "A")
        gb.add_grade_cell("t1", "n1", "A", max_score=3.0, cell_type="code")
    original = Gradebook.update_or_create_student

    def warns(self, *args, **kwargs):
        warnings.warn("another kind of warning", UserWarning, stacklevel=2)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Gradebook, "update_or_create_student", warns)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        course.record_zero_scores("A", "ann")
    # add_submission's SAWarnings (seen without the filter) are hidden, the other is not
    assert [(w.category, str(w.message)) for w in seen] == [
        (UserWarning, "another kind of warning")
    ]
    assert course.read_scores("A", ["ann"]) == {"ann": {"t1": (0.0, 3.0)}}
