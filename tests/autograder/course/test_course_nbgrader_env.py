"""autograder.course.nbgrader_env: the gradebook's schema revision read in the process, the
one ``alembic heads`` prints."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_a_new_gradebook_gets_the_revision_alembic_heads_prints_without_running_it(
    tmp_path, monkeypatch
):
    """nbgrader runs ``alembic heads`` in a subprocess for each new gradebook; after
    prepare_nbgrader the revision is read in the process, and it is the one the command
    prints (run here as nbgrader runs it)."""
    import subprocess
    import sys
    from pathlib import Path

    import nbgrader.api
    from nbgrader.dbutil import _temp_alembic_ini
    from sqlalchemy import create_engine, text

    from autograder.course import prepare_nbgrader

    alembic = str(Path(sys.executable).parent / "alembic")
    with _temp_alembic_ini("sqlite://") as ini:
        printed = subprocess.check_output([alembic, "-c", ini, "heads"], text=True)
    expected = printed.split()[0]
    prepare_nbgrader()

    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"a subprocess for the gradebook: {args}")

    monkeypatch.setattr(nbgrader.api.sp, "check_output", no_subprocess)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with nbgrader.api.Gradebook(url):
        pass
    with create_engine(url).connect() as db:
        (stored,) = db.execute(text("SELECT version_num FROM alembic_version")).one()
    assert stored == expected
