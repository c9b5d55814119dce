"""Schema upgrades through Alembic, safe to run from many processes at once.

A transaction-scoped advisory lock serialises concurrent `initialize()` calls; the vector
dimension of an existing database is checked against the configured one so a 384-d database is
never silently fed 1536-d embeddings.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from arandu_pipelines.errors import DatabaseError

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_LOCK_KEY = 0x61726E64  # "arnd"


def _alembic_config(connection: Connection, embedding_dimensions: int) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = connection
    cfg.attributes["embedding_dimensions"] = embedding_dimensions
    return cfg


def existing_dimension(connection: Connection) -> int | None:
    row = connection.execute(
        text(
            "SELECT a.atttypmod FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relname = 'memory_facts' AND a.attname = 'embedding_vec' "
            "AND c.relnamespace = current_schema()::regnamespace"
        )
    ).first()
    return int(row[0]) if row else None


def _upgrade_sync(connection: Connection, embedding_dimensions: int) -> None:
    connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
    found = existing_dimension(connection)
    if found is not None and found != embedding_dimensions:
        raise DatabaseError(
            f"this database stores {found}-dimensional embeddings but the embedding provider "
            f"gives {embedding_dimensions}; use a separate database (DATABASE_URL) for each "
            "embedding model, or set MemoryConfig.embedding_dimensions to match"
        )
    command.upgrade(_alembic_config(connection, embedding_dimensions), "head")


def _scrub(text: str, engine: AsyncEngine) -> str:
    """`text` without the URL's password, whole or in part. An unescaped `@` in a password
    (postgresql://u:p@ssword@host/db) makes the URL parser take the password's tail for the
    host, and the driver then quotes it in "failed to resolve host 'ssword@host'"."""
    url = engine.url
    secrets = [url.password or ""]
    if url.host and "@" in url.host:
        secrets.append(url.host.rsplit("@", 1)[0])
    for secret in sorted((str(s) for s in secrets if s and len(str(s)) >= 2), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


async def upgrade(engine: AsyncEngine, embedding_dimensions: int) -> None:
    """Migrate to head. A database that cannot be reached or migrated raises DatabaseError naming
    the server without its password; the driver's exception is kept as the cause only when its
    own text holds no password."""
    from arandu_pipelines.errors import MemoryError
    from arandu_pipelines.store.engine import binary_vectors_after_create, redact

    try:
        async with engine.begin() as conn:
            await conn.run_sync(_upgrade_sync, embedding_dimensions)
            await binary_vectors_after_create(conn)
    except MemoryError:
        raise
    except Exception as exc:
        detail = str(exc)
        safe = _scrub(redact(detail), engine)
        where = engine.url.render_as_string(hide_password=True)
        err = DatabaseError(f"could not open or migrate the database {redact(where)!r}: "
                            f"{type(exc).__name__}: {safe[:600]}")
        if safe == detail and redact(repr(exc)) == repr(exc):
            raise err from exc
        raise err from None


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        exists = (
            await conn.execute(text("SELECT to_regclass('alembic_version') IS NOT NULL"))
        ).scalar()
        if not exists:
            return None
        return (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()
