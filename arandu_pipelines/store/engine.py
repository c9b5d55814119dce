"""Engine and URL handling. The library talks to Postgres through SQLAlchemy's async engine on
psycopg 3; vectors travel as pgvector text literals so no per-connection type registration is
needed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine


def normalize_url(database_url: str, driver: str = "psycopg") -> str:
    """Accept postgres://, postgresql://, postgresql+psycopg2:// and return the wanted driver."""
    url = database_url.strip()
    for prefix in ("postgresql+psycopg2://", "postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return f"postgresql+{driver}://" + url[len(prefix):]
    raise ValueError(
        f"database_url must be a PostgreSQL URL (postgresql://user:pass@host/db), got {url[:40]!r}"
    )


def resolve_database_url(database_url: str | None = None) -> str:
    """Explicit URL, else DATABASE_URL, else the embedded server (started on demand)."""
    url = database_url or os.environ.get("DATABASE_URL")
    if url:
        return normalize_url(url)
    from arandu_pipelines.store.embedded import embedded_url

    return normalize_url(embedded_url())


def start_batch_process(database_url: str | None = None) -> int:
    """Lower this process's CPU priority for batch work (`priority.lower_priority`), after making
    sure the database runs. When it is the embedded server and nobody has started it yet, this
    process starts it, and every PostgreSQL process forks from that server: started after the
    lowering, all of them — the backends of serving processes included — would inherit the nice
    value and SCHED_IDLE (a non-root process cannot take a lowered priority back). Returns the
    increment applied; ValueError for an invalid ARANDU_BATCH_NICE / ARANDU_BATCH_IDLE."""
    from arandu_pipelines import priority

    priority.batch_nice_from_env()   # a bad setting fails before anything starts
    priority.batch_idle_from_env()
    resolve_database_url(database_url)
    return priority.lower_priority()


def create_engine(database_url: str, pool_size: int = 10, max_overflow: int = 10) -> AsyncEngine:
    """One retrieve() runs the independent steps of its plan on up to five pooled connections at
    once; ten kept open lets two run together without overflow connections, which are opened
    (several ms) and closed again around every call."""
    engine = create_async_engine(
        normalize_url(database_url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_recycle=1800,
        connect_args={"application_name": "arandu-pipelines"},
    )
    event.listen(engine.sync_engine, "connect", _batch_backend)
    return engine


_BACKEND_SQL = ("SELECT pg_backend_pid(), "
                "coalesce(host(inet_server_addr()) IN ('127.0.0.1', '::1'), true)")


def _batch_backend(dbapi_connection: Any, _record: Any) -> None:
    """In a batch process (priority.lower_priority() applied), lower the new connection's
    backend on a local server to the process's niceness (see priority.py). Serving processes
    never pay the extra statement."""
    from arandu_pipelines import priority

    if not priority.applied():
        return
    try:
        cur = dbapi_connection.cursor()
        cur.execute(_BACKEND_SQL)
        pid, local = cur.fetchone()
        cur.close()
        dbapi_connection.rollback()
    except Exception:  # best effort: batch work runs at its priority either way
        return
    if local:
        priority.lower_local_backend(int(pid))


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker:
    return async_sessionmaker(engine, expire_on_commit=False)


def vec(values: Sequence[float] | None) -> str | None:
    """pgvector text literal; compact but lossless enough for float32 similarity. One %-format
    over the whole vector (C loop) instead of a Python generator: 43 vs 68 us for 384 floats."""
    if values is None:
        return None
    return "[" + _vec_format(len(values)) % tuple(map(float, values)) + "]"


@lru_cache(maxsize=8)
def _vec_format(n: int) -> str:
    return ",".join(["%.7g"] * n)
