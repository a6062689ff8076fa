"""One gradebook engine per process and URL (:mod:`autograder.grading.gradebook`): every
``nbgrader.api.Gradebook`` of a URL after the first reuses its engine; what the gradebook
stores is nbgrader's (the SQLite-vs-PostgreSQL equality of ``tests/autograder/test_postgres.py``
grades through it)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from autograder.grading.gradebook import open_stats, share_engines, unshare_engines


@pytest.fixture
def shared():
    share_engines()
    yield
    unshare_engines()


@pytest.fixture(scope="module")
def blank(tmp_path_factory) -> Path:
    """A new gradebook made by nbgrader's first open (through the shared engines): made
    once, copied by the tests."""
    from nbgrader.api import Gradebook

    from autograder.course import prepare_nbgrader

    prepare_nbgrader()
    path = tmp_path_factory.mktemp("blank") / "gradebook.db"
    share_engines()
    try:
        with Gradebook(_url(path)):
            pass
    finally:
        unshare_engines()
    return path


def _url(path) -> str:
    return f"sqlite:///{path}"


def _copy(blank: Path, path: Path) -> Path:
    shutil.copyfile(blank, path)
    return path


def test_opens_of_one_url_share_one_engine(tmp_path, blank, shared):
    from nbgrader.api import Gradebook

    url = _url(_copy(blank, tmp_path / "gradebook.db"))
    other_url = _url(_copy(blank, tmp_path / "other.db"))
    before = open_stats()["opens"]
    with Gradebook(url) as first:
        first.add_student("ada")
    with Gradebook(url) as second, Gradebook(other_url) as other:
        # the same engine, still usable after the first gradebook was closed
        assert second.engine is first.engine
        assert other.engine is not first.engine
        assert [s.id for s in second.students] == ["ada"]
        assert other.students == []
    assert open_stats()["opens"] - before == 3


def test_the_first_open_is_nbgraders_own(blank, shared):
    """A new gradebook gets nbgrader's tables and its alembic version, as without sharing."""
    from nbgrader.api import Base, Gradebook

    with Gradebook(_url(blank)) as gb:
        tables = set(inspect(gb.engine).get_table_names())
        assert set(Base.metadata.tables) | {"alembic_version"} <= tables
        with gb.engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1


def test_a_gradebook_file_made_again_gets_a_new_engine(tmp_path, blank, shared):
    """A course directory made afresh under the same name: its new gradebook file is opened,
    not the removed file through the old connection."""
    from nbgrader.api import Gradebook

    path = _copy(blank, tmp_path / "gradebook.db")
    with Gradebook(_url(path)) as gb:
        gb.add_student("ada")
        old = gb.engine
    os.remove(path)
    _copy(blank, path)
    with Gradebook(_url(path)) as gb:
        assert gb.engine is not old
        assert gb.students == []
        gb.add_student("grace")
    with Gradebook(_url(path)) as gb:
        assert [s.id for s in gb.students] == ["grace"]


def test_unsharing_gives_nbgraders_engines_back(tmp_path, blank, shared):
    from nbgrader.api import Gradebook

    url = _url(_copy(blank, tmp_path / "gradebook.db"))
    with Gradebook(url) as gb:
        shared_engine = gb.engine
    unshare_engines()
    with Gradebook(url) as one, Gradebook(url) as two:
        assert one.engine is not two.engine
        assert shared_engine not in (one.engine, two.engine)


def test_a_course_is_checked_once_per_engine_and_each_course_id_gets_its_row(
    tmp_path, blank, shared
):
    """nbgrader's ``check_course`` (the course's row made if missing) runs on an engine's
    first open of a course id, not on every open: a second course id still gets its row."""
    from nbgrader.api import Course, Gradebook
    from sqlalchemy import event

    url = _url(_copy(blank, tmp_path / "gradebook.db"))
    statements: list[str] = []
    with Gradebook(url, "first") as gb:
        engine = gb.engine

    def seen(conn, cursor, statement, *rest) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        with Gradebook(url, "first"):
            pass
        assert not [s for s in statements if "course" in s.lower()]
        with Gradebook(url, "second") as gb:
            assert {"first", "second"} <= {c.id for c in gb.db.query(Course)}
    finally:
        event.remove(engine, "before_cursor_execute", seen)
