"""A throw-away PostgreSQL cluster for the tests and the scale benchmark (Debian's
``postgresql`` package, which ``./run test`` installs).

:class:`PostgresCluster` runs ``initdb`` into a fresh temporary folder and ``pg_ctl start``
on a Unix socket in that same folder: no TCP port, so clusters of parallel test sessions
(pytest-xdist) never clash. PostgreSQL refuses to run as root; as root the cluster runs as
the unprivileged ``nobody`` user (the folder is given to it), otherwise as the current
user. It is tuned for speed, not durability (``--no-sync``, ``fsync=off``, trust
authentication on the socket only). :meth:`PostgresCluster.stop` kills it
(``pg_ctl stop -m immediate``) and removes the folder.

The session fixture ``postgres`` in ``tests/conftest.py`` starts one per test session;
``python -m benchmarks scale`` starts one per run.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Where Debian puts each installed PostgreSQL version's server programs.
DEBIAN_PREFIX = Path("/usr/lib/postgresql")
#: The unprivileged account the server runs as when the tests run as root.
UNPRIVILEGED_USER = "nobody"
#: The database superuser made by initdb (any OS user may connect as it: trust auth).
SUPERUSER = "postgres"

_SETTINGS = {
    "listen_addresses": "''",  # the Unix socket only
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "100",
    "shared_buffers": "'32MB'",
    "log_lock_waits": "on",
    "deadlock_timeout": "'200ms'",
}


def _version_key(path: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path.parent.parent.name))


def postgres_bindir() -> Path | None:
    """The folder of the newest installed PostgreSQL server's ``initdb`` and ``pg_ctl``:
    ``/usr/lib/postgresql/<version>/bin`` on Debian, else wherever ``PATH`` finds them;
    None when PostgreSQL is not installed."""
    found = [p for p in DEBIAN_PREFIX.glob("*/bin/initdb") if (p.parent / "pg_ctl").is_file()]
    if found:
        return max(found, key=_version_key).parent
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return Path(initdb).resolve().parent
    return None


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class PostgresCluster:
    """One PostgreSQL server in its own temporary folder (see the module docstring).

    Parameters
    ----------
    bindir : path, optional
        Folder of ``initdb`` and ``pg_ctl``; default :func:`postgres_bindir`.
    """

    def __init__(self, bindir: str | os.PathLike | None = None) -> None:
        found = Path(bindir) if bindir is not None else postgres_bindir()
        if found is None:
            raise FileNotFoundError(
                "PostgreSQL is not installed (Debian: apt-get install postgresql)"
            )
        self.bindir = found
        self.folder: Path | None = None
        self._ids: tuple[int, int] | None = None
        if os.geteuid() == 0:
            account = pwd.getpwnam(UNPRIVILEGED_USER)
            self._ids = (account.pw_uid, account.pw_gid)

    # ----------------------------------------------------------------------- paths

    @property
    def socket_dir(self) -> Path:
        """The folder of the server's Unix socket (the ``host`` of a connection)."""
        assert self.folder is not None, "the cluster is not started"
        return self.folder

    @property
    def data_dir(self) -> Path:
        return self.socket_dir / "data"

    @property
    def log_file(self) -> Path:
        return self.socket_dir / "server.log"

    def url(self, database: str = "postgres") -> str:
        """The SQLAlchemy URL (psycopg 3) of *database*, through the Unix socket."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.socket_dir}"

    # ----------------------------------------------------------------------- run

    def _run(self, *args: str | os.PathLike) -> subprocess.CompletedProcess:
        """A server program, as the unprivileged user when we are root."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "TZ": "UTC"}
        user, group = self._ids if self._ids is not None else (None, None)
        result = subprocess.run(
            [str(self.bindir / args[0]), *map(str, args[1:])],
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            user=user,
            group=group,
            extra_groups=[] if self._ids is not None else None,  # none but the user's own
        )
        if result.returncode != 0:
            log = self.log_file.read_text() if self.log_file.exists() else ""
            raise RuntimeError(
                f"{args[0]} failed ({result.returncode}):\n{result.stdout}{result.stderr}{log}"
            )
        return result

    def _temp_root(self) -> str:
        """The system's temporary folder, if the unprivileged user can reach into it."""
        root = Path(tempfile.gettempdir()).resolve()
        if self._ids is None:
            return str(root)
        for folder in (root, *root.parents):
            if not folder.stat().st_mode & 0o001:  # not searchable by others: use /tmp
                return "/tmp"
        return str(root)

    def start(self) -> PostgresCluster:
        """initdb into a new temporary folder and start the server; returns self."""
        self.folder = Path(tempfile.mkdtemp(prefix="pg-", dir=self._temp_root()))
        try:
            if self._ids is not None:
                os.chown(self.folder, *self._ids)
            self._run(
                "initdb",
                "--pgdata",
                self.data_dir,
                "--username",
                SUPERUSER,
                "--auth",
                "trust",
                "--encoding",
                "UTF8",
                "--locale",
                "C",
                "--no-sync",
                "--no-instructions",
            )
            settings = dict(_SETTINGS, unix_socket_directories=_quote(str(self.socket_dir)))
            with (self.data_dir / "postgresql.conf").open("a") as conf:
                conf.write("\n# a throw-away cluster (devtools/postgres.py)\n")
                conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
            self._run(
                "pg_ctl", "start", "--wait", "--pgdata", self.data_dir, "--log", self.log_file
            )
        except BaseException:
            self._remove()
            raise
        return self

    def create_database(self, name: str) -> str:
        """Create an empty database *name*; returns its URL."""
        import psycopg

        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ValueError(f"not a plain database name: {name!r}")
        with psycopg.connect(
            dbname="postgres", user=SUPERUSER, host=str(self.socket_dir), autocommit=True
        ) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Kill the server (``pg_ctl stop -m immediate``) and remove its folder."""
        if self.folder is None:
            return
        try:
            if (self.data_dir / "postmaster.pid").exists():
                self._run(
                    "pg_ctl", "stop", "--wait", "--mode", "immediate", "--pgdata", self.data_dir
                )
        finally:
            self._remove()

    def _remove(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def submission_counts(url: str) -> dict[tuple[str, str], int]:
    """How many submissions of each (assignment, student) the gradebook at ``url`` holds."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT a.name, s.student_id, count(*) FROM submitted_assignment s "
                    "JOIN assignment a ON a.id = s.assignment_id GROUP BY a.name, s.student_id"
                )
            ).all()
    finally:
        engine.dispose()
    return {(assignment, student): count for assignment, student, count in rows}
