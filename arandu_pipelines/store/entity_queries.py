"""Entity and relationship listings behind `MemoryClient.entities` and the CLI's memory view.

Static, set-based statements on one agent (`agent_id` first); rows are returned as they come,
the client maps them to `EntityDetail`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncConnection

_ACTIVE_ENTITIES = text(
    "SELECT e.id, e.canonical_key, e.display_name, e.entity_type, e.summary_text, "
    "e.fact_count, e.importance_score, e.first_seen_at, e.last_seen_at, e.profile_text, "
    "COALESCE((SELECT array_agg(a.alias_text ORDER BY a.alias_text) FROM "
    "memory_entity_aliases a WHERE a.agent_id = e.agent_id AND "
    "a.canonical_entity_key = e.canonical_key), '{}') AS aliases "
    "FROM memory_entities e WHERE e.agent_id = :a AND e.is_active "
    "ORDER BY e.last_seen_at DESC, e.canonical_key LIMIT :lim OFFSET :off"
)
_RELATIONSHIPS = text(
    "SELECT source_entity_key, rel_type, target_entity_key, strength, valid_to FROM "
    "memory_entity_relationships WHERE agent_id = :a ORDER BY valid_to NULLS FIRST, 1, 2, 3"
)


async def active_entities(
    conn: AsyncConnection, agent_id: str, limit: int, offset: int
) -> Sequence[Row[Any]]:
    """Active entities with their aliases (sorted array), most recently seen first."""
    return (await conn.execute(_ACTIVE_ENTITIES, {"a": agent_id, "lim": limit, "off": offset})).all()


async def relationships(conn: AsyncConnection, agent_id: str) -> Sequence[Row[Any]]:
    """Every relationship of the agent, active ones first (source, type, target, strength,
    valid_to)."""
    return (await conn.execute(_RELATIONSHIPS, {"a": agent_id})).all()
