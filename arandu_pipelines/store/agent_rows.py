"""Agent-wide row operations: which tables hold an agent's rows, how many, and erasing them all.

Behind `MemoryClient.stats()` and `MemoryClient.delete_all()`. The table list comes from the
schema itself (information_schema), so a table added by a later migration is counted and erased
without touching this module; the known tables come first, children before parents, so foreign
keys never block the erase.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

# Tables holding an agent's rows, children first so foreign keys never block the erase.
AGENT_TABLES = (
    "memory_fact_entity_links",
    "memory_fact_confirmations",
    "memory_entity_relationships",
    "memory_facts",
    "memory_entity_aliases",
    "memory_entities",
    "memory_clusters",
    "memory_meta_observations",
    "memory_attribute_registry",
    "memory_intentions",
    "session_observations",
    "memory_quarantine",
    "memory_event_units",
    "memory_events",
)

_TABLES_WITH_AGENT_ID = text(
    "SELECT c.table_name FROM information_schema.columns c JOIN "
    "information_schema.tables t ON t.table_schema = c.table_schema AND "
    "t.table_name = c.table_name WHERE c.column_name = 'agent_id' AND "
    "c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY 1"
)
_AGENT_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:a, 0))")


async def agent_tables(conn: AsyncConnection) -> list[str]:
    """Every table of the schema that holds agent rows: the known ones in foreign-key order,
    then any other table with an agent_id column (so a table added later is never missed)."""
    found = [r[0] for r in (await conn.execute(_TABLES_WITH_AGENT_ID)).all()]
    return [t for t in AGENT_TABLES if t in found] + [t for t in found if t not in AGENT_TABLES]


async def row_counts(conn: AsyncConnection, agent_id: str) -> dict[str, int]:
    """Rows per agent table for one agent, in `agent_tables` order, in one statement."""
    tables = await agent_tables(conn)
    if not tables:
        return {}
    sql = " UNION ALL ".join(
        f'SELECT {i} AS i, count(*) AS n FROM "{table}" WHERE agent_id = :a'
        for i, table in enumerate(tables)
    )
    counts = {r.i: int(r.n) for r in (await conn.execute(text(sql), {"a": agent_id})).all()}
    return {table: counts.get(i, 0) for i, table in enumerate(tables)}


async def erase_agent(conn: AsyncConnection, agent_id: str) -> dict[str, int]:
    """Delete every row of one agent, table by table (children first), under the agent's
    advisory lock so no extraction writes in between; returns rows deleted per table. Runs in
    the caller's transaction: all or nothing."""
    await conn.execute(_AGENT_LOCK, {"a": agent_id})
    deleted: dict[str, int] = {}
    for table in await agent_tables(conn):
        res = await conn.execute(text(f'DELETE FROM "{table}" WHERE agent_id = :a'), {"a": agent_id})
        deleted[table] = res.rowcount or 0
    return deleted
