"""Database setup, the specification's `arandu.db`: engine, session factory, schema.

Thin names over `store.engine` and `store.migrate`: `init_db` runs the migrations (the spec's
`create_all`, but versioned, so it also upgrades an older schema), idempotently.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from arandu_pipelines.errors import ValidationError
from arandu_pipelines.store import migrate
from arandu_pipelines.store.engine import create_engine as _create_engine
from arandu_pipelines.store.engine import (
    create_session_factory as _create_session_factory,
)

#: The vector size of the bundled local embeddings (all-MiniLM-L6-v2).
DEFAULT_EMBEDDING_DIMENSIONS = 384


def create_engine(database_url: str, pool_size: int = 10, max_overflow: int = 10) -> AsyncEngine:
    """An async engine; `postgresql://` becomes `postgresql+psycopg://`. Raises ValidationError
    for anything that is not a non-empty string."""
    if not isinstance(database_url, str) or not database_url.strip():
        raise ValidationError("database_url must be a PostgreSQL URL, e.g. postgresql://user:pass@host/db")
    return _create_engine(database_url, pool_size=pool_size, max_overflow=max_overflow)


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions bound to `engine`, with `expire_on_commit=False`."""
    if not isinstance(engine, AsyncEngine):
        raise ValidationError(f"engine must be an AsyncEngine (from create_engine), got {type(engine).__name__}")
    return _create_session_factory(engine)


async def init_db(engine: AsyncEngine, embedding_dimensions: int | None = None) -> None:
    """Create (or upgrade) every memory table. Safe to call repeatedly.

    `embedding_dimensions` sizes the vector columns of a new database (default: what an existing
    database has, else 384, the bundled local model). A size that differs from an existing
    database's raises `arandu_pipelines.errors.DatabaseError` (one database per embedding model)."""
    if not isinstance(engine, AsyncEngine):
        raise ValidationError(f"engine must be an AsyncEngine (from create_engine), got {type(engine).__name__}")
    if embedding_dimensions is None:
        async with engine.connect() as conn:
            embedding_dimensions = await conn.run_sync(migrate.existing_dimension)
    await migrate.upgrade(engine, int(embedding_dimensions or DEFAULT_EMBEDDING_DIMENSIONS))


__all__ = ["DEFAULT_EMBEDDING_DIMENSIONS", "create_engine", "create_session_factory", "init_db"]
