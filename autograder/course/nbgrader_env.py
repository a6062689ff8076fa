"""This process made ready for nbgrader's gradebook: nbgrader's commands on ``PATH``, and
the schema revision of a new gradebook read once with alembic's API instead of by a
subprocess."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from autograder.models import GradingError


def prepare_nbgrader() -> None:
    """Ready this process for nbgrader's gradebook: this environment's ``bin/`` on ``PATH``
    (nbgrader's commands; calling .venv/bin/python directly does not put it there), and the
    schema revision nbgrader writes into a new gradebook read here, in this process.

    nbgrader's ``Gradebook`` asks for that revision by running ``alembic heads`` in a
    subprocess (``nbgrader.api.get_alembic_version``) whenever it creates a gradebook: a
    Python start that imports nbgrader again, about 3 s, for every new course. The same
    revision is read with alembic's own API from the same scripts (nbgrader's alembic.ini),
    once per process. Idempotent."""
    bin_dir = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if bin_dir not in path.split(os.pathsep):
        os.environ["PATH"] = bin_dir + (os.pathsep + path if path else "")
    import nbgrader.api

    nbgrader.api.get_alembic_version = alembic_head


@functools.cache
def alembic_head() -> str:
    """The head revision of nbgrader's gradebook migrations (what ``alembic heads`` prints
    for nbgrader's alembic.ini), read with alembic's API."""
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite://") as ini:
        head = ScriptDirectory.from_config(AlembicConfig(ini)).get_current_head()
    if not head:
        raise GradingError("nbgrader's gradebook migrations have no head revision")
    return head
