"""Shared pytest configuration: a deterministic Hypothesis profile, loaded by default, and
the repository root on sys.path for the (not installed) benchmarks and devtools packages."""

import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The benchmarks and devtools packages are run from the repository root (python -m
# benchmarks) and are not installed; the tests import them from there.
_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# Derandomized, no example database, no deadline: the suite runs on a shared 2-core CI
# machine where timing-based deadlines would make tests flaky.
settings.register_profile(
    "course",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")


def pytest_configure(config):
    """The library's messages (``logging``) on stderr as the command line shows them (its
    ``note: ...`` lines): a test that calls the library reads them as a user would."""
    from autograder.__main__ import show_messages

    show_messages()


# The courses of others in tests/data/ that tests/autograder/test_foreign_kinds.py grades:
# nbval does not run their notebooks (their stored outputs are of their authors' machines,
# and some of their cells fail on purpose).
collect_ignore_glob = ["data/cs1302i21a/*", "data/intropy/*", "data/starboard_nbgrader/*"]


# The slow tier (pyproject.toml's "slow" marker; `pytest -m "not slow"` skips it): a slow
# test carries @pytest.mark.slow on its own function, or its module's pytestmark. nbval's
# items (one per cell of a course notebook) have no function to carry it, so they are marked
# here.
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)


def pytest_runtest_setup(item):
    """A test marked ``needs_sandbox`` is skipped where the grading sandbox cannot start,
    and fails there in CI (tests/needs.py)."""
    if item.get_closest_marker("needs_sandbox") is not None:
        from tests.needs import require_sandbox

        require_sandbox()


@pytest.fixture(scope="session")
def postgres():
    """A throw-away PostgreSQL server for the test session (devtools/postgres.py): started on
    first use, stopped and removed at the end of the session, also when tests fail. Skips the
    test when PostgreSQL is not installed (``./run test`` installs it), fails it in CI."""
    from devtools.postgres import PostgresCluster, postgres_bindir
    from tests.needs import require

    require(
        postgres_bindir() is not None,
        "PostgreSQL is not installed (Debian: apt-get install postgresql)",
    )
    cluster = PostgresCluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def postgres_url(postgres):
    """The SQLAlchemy URL (``postgresql+psycopg://``, Unix socket) of an empty database of
    the session's PostgreSQL server; ``postgres.create_database(name)`` makes more."""
    return postgres.create_database("gradebook")


@pytest.fixture(autouse=True)
def _python_handles_ctrl_c():
    """Every test runs with Python's own SIGINT handler, restored after it: Ctrl-C raises
    KeyboardInterrupt in the test, and a process the test starts gets SIGINT at its default
    (a process inherits an ignored SIGINT). Without it, a runner started with SIGINT ignored,
    or an earlier test of the same worker that left it ignored, makes the tests of Ctrl-C
    pass or fail by the order they ran in (seen in a fresh-clone suite)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
