"""Running the read path's SQL on the driver connection under SQLAlchemy's pooled one.

retrieve() issues a dozen small statements whose rows are read once; SQLAlchemy's Row machinery
and the greenlet hop per statement cost more than the queries themselves at LoCoMo sizes
(~0.2 ms vs ~0.08 ms per statement, measured). So statements are written with SQLAlchemy-style
`:name` parameters (kept readable) and run on the psycopg AsyncConnection underneath, returning
named tuples. The pooled connection is still SQLAlchemy's: checkout, reset and disposal are
unchanged.

Statements are not server-prepared by default: the best plan of most depends on the agent (a few
hundred rows or a hundred thousand) and on array parameters, which a cached generic plan ignores.
The ones whose plan is the same index lookups for every agent (`stable_plan=True`: the bootstrap's
term statistics and entity matches, the graph's BFS and linked facts, loading candidates and
messages by primary key) are prepared once per pooled connection, so the server neither parses
nor plans them again (retrieve p50 -1.9 ms for the first three, A/B); Postgres keeps planning
them per call (plan_cache_mode=auto) if a generic plan ever looks costlier than custom ones.
`ARANDU_PREPARED_STATEMENTS=0` turns that off (e.g. behind PgBouncer in transaction mode older
than 1.21, or without its `max_prepared_statements`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from psycopg.rows import namedtuple_row
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.settings import settings

PREPARED_ENV = "ARANDU_PREPARED_STATEMENTS"
PREPARE_STABLE: bool | None = None  # None: read PREPARED_ENV at first use
_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_captured: list[tuple[str, dict[str, Any]]] | None = None


@contextmanager
def capture() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Record every statement run through this module (for EXPLAIN in bench/retrieve.py)."""
    global _captured
    _captured = []
    try:
        yield _captured
    finally:
        _captured = None


@lru_cache(maxsize=256)
def to_pyformat(sql: str) -> str:
    """`:name` -> `%(name)s` (leaving `::casts` alone); literal % doubled."""
    return _PARAM.sub(r"%(\1)s", sql.replace("%", "%%"))


async def _driver(conn: AsyncConnection) -> Any:
    """The psycopg connection under a checked-out pooled one, read as plain attributes (the
    awaitable `get_raw_connection()` costs a greenlet round trip per statement)."""
    sync = conn.sync_connection
    dbapi = getattr(sync, "_dbapi_connection", None) if sync is not None else None
    driver = getattr(dbapi, "driver_connection", None)
    if driver is not None:
        return driver
    raw = await conn.get_raw_connection()
    return raw.driver_connection


def _prepare_stable() -> bool:
    global PREPARE_STABLE
    if PREPARE_STABLE is None:
        PREPARE_STABLE = settings.prepared_statements   # SettingsError naming PREPARED_ENV
    return PREPARE_STABLE


def array_literal(values: list[Any] | tuple[Any, ...]) -> str:
    """A Postgres array literal of strings (None -> NULL), every element quoted and escaped, for
    a `CAST(:p AS type[])` parameter: psycopg's list adapter inspects every element in Python
    (71 us for 80 ids vs 10 us for this). Still one bound parameter, never SQL text."""
    return "{" + ",".join("NULL" if v is None else
                          '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


def _bind(params: dict[str, Any] | None) -> dict[str, Any]:
    """Lists of strings travel as array literals (see array_literal); everything else as is.
    Every list parameter of the read path is CAST to its array type in the SQL."""
    if not params:
        return {}
    return {k: array_literal(v) if isinstance(v, (list, tuple)) and all(x is None or isinstance(x, str) for x in v)
            else v for k, v in params.items()}


async def fetch(conn: AsyncConnection, sql: str, params: dict[str, Any] | None = None,
                stable_plan: bool = False) -> list[Any]:
    if _captured is not None:
        _captured.append((to_pyformat(sql), dict(params or {})))
    driver = await _driver(conn)
    async with driver.cursor(row_factory=namedtuple_row) as cur:
        await cur.execute(to_pyformat(sql), _bind(params), prepare=stable_plan and _prepare_stable())
        return await cur.fetchall()


async def fetch_one(conn: AsyncConnection, sql: str, params: dict[str, Any] | None = None,
                    stable_plan: bool = False) -> Any:
    rows = await fetch(conn, sql, params, stable_plan)
    if len(rows) != 1:
        raise LookupError(f"expected one row, got {len(rows)}")
    return rows[0]


async def run(conn: AsyncConnection, sql: str, params: dict[str, Any] | None = None) -> None:
    driver = await _driver(conn)
    async with driver.cursor() as cur:
        await cur.execute(to_pyformat(sql), _bind(params), prepare=False)
