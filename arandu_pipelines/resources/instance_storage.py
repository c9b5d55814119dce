"""Dagster's own storage (runs, event log, schedules) in the project's PostgreSQL.

The committed `dagster.yaml` names this class, so every way of starting Dagster from the
repository — `arandu-pipelines dev`, plain `dagster dev`, `dg dev` — keeps its run history in one
place, the same server as the memory:

1. `ARANDU_DAGSTER_PG_URL` when set (any PostgreSQL URL; a deployment sets this);
2. else the server of `DATABASE_URL`, database `dagster` (created if missing; the memory's own
   database is not shared because both sides keep an `alembic_version` table);
3. else the embedded server of `ARANDU_HOME`, started or joined by this process (it stops when the
   last process using it exits), database `dagster`.

A plain `dagster.yaml` cannot do this (it has no `${VAR}` defaults and cannot start a server); the
class is a thin `DagsterPostgresStorage` whose URL is resolved when Dagster loads the instance.
"""

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from dagster_postgres import DagsterPostgresStorage

from arandu_pipelines.settings import settings

DAGSTER_DATABASE = "dagster"
URL_ENV = "ARANDU_DAGSTER_PG_URL"

_SERVER: list[Any] = []   # the embedded server handle, held for the life of this process


def psycopg2_url(url: str) -> str:
    """Any PostgreSQL URL with the scheme dagster-postgres' SQLAlchemy engine needs."""
    for prefix in ("postgresql+psycopg2://", "postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg2://" + url[len(prefix):]
    raise ValueError(f"{URL_ENV} / DATABASE_URL must be a PostgreSQL URL "
                     "(postgresql://user:password@host/db)")


def _libpq(url: str) -> str:
    for prefix in ("postgresql+psycopg2://", "postgresql+psycopg://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix):]
    return url


class _Server:
    """A PostgreSQL server given by URL, shaped like an embedded-server handle (`get_uri`), so
    the library's `store.embedded.ensure_database` creates the database on it."""

    def __init__(self, url: str) -> None:
        self.parts = urlsplit(url)

    def get_uri(self, database: str = "postgres") -> str:
        return urlunsplit(self.parts._replace(path="/" + database))


def dagster_storage_url() -> str:
    """The URL of Dagster's storage for this environment (see the module docstring)."""
    explicit = settings.dagster_pg_url
    if explicit:
        return psycopg2_url(explicit.strip())
    memory = settings.database_url
    if memory:
        from arandu_pipelines.store.embedded import ensure_database

        try:
            target = ensure_database(_Server(_libpq(memory.strip())), DAGSTER_DATABASE)
        except Exception as exc:  # noqa: BLE001 - re-raised below naming what to set (no CREATEDB, server down, ...)
            raise RuntimeError(
                f"could not create database {DAGSTER_DATABASE!r} for Dagster's storage on the "
                f"DATABASE_URL server ({type(exc).__name__}); create it, or set {URL_ENV} to a "
                "PostgreSQL database Dagster may use") from None
        return psycopg2_url(target)
    from arandu_pipelines.store.embedded import ensure_database, start_server

    if not _SERVER:
        _SERVER.append(start_server())
    return psycopg2_url(ensure_database(_SERVER[0], DAGSTER_DATABASE))


class AranduPostgresStorage(DagsterPostgresStorage):
    """`DagsterPostgresStorage` on the URL `dagster_storage_url()` resolves (no config)."""

    @classmethod
    def config_type(cls) -> Any:
        return {}

    @classmethod
    def from_config_value(cls, inst_data: Any | None, config_value: Any) -> "AranduPostgresStorage":
        return cls(postgres_url=dagster_storage_url(), inst_data=inst_data)


__all__ = ["AranduPostgresStorage", "dagster_storage_url", "psycopg2_url"]
