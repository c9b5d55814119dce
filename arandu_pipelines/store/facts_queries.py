"""Fact queries behind `MemoryClient.get / get_all / delete` and the CLI's history listing.

Read and delete one agent's facts; every statement is static text, filters on `agent_id`
first and hands back rows (mapping them to the public dataclasses is the client's job).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncConnection

# The columns of a public `FactDetail`, in one place for every statement below.
FACT_COLUMNS = (
    "id, entity_name, entity_key, entity_type, attribute_key, fact_text, category, confidence, "
    "importance, valid_from, valid_to, created_at, source_context, speaker, source_event_id, "
    "supersedes_fact_id, invalidated_at, reinforcement_count, user_correction_count, "
    # the messages that restated the fact after its source (migration 0011), oldest first
    "ARRAY(SELECT c.event_id::text FROM memory_fact_confirmations c WHERE c.agent_id = memory_facts.agent_id "
    "AND c.fact_id = memory_facts.id ORDER BY c.confirmed_at, c.event_id) AS confirmed_event_ids"
)

_FACT_BY_ID = text(
    f"SELECT {FACT_COLUMNS} FROM memory_facts WHERE agent_id = :a AND id = CAST(:id AS uuid)"
)
# Two static statements rather than one with an optional `:keys IS NULL OR ...` filter, so each
# keeps its own plan (a prepared generic plan would otherwise serve both shapes).
_ACTIVE_FACTS = text(
    f"SELECT {FACT_COLUMNS} FROM memory_facts WHERE agent_id = :a AND valid_to IS NULL "
    "ORDER BY created_at DESC, id LIMIT :lim OFFSET :off"
)
_ACTIVE_FACTS_OF_ENTITIES = text(
    f"SELECT {FACT_COLUMNS} FROM memory_facts WHERE agent_id = :a AND valid_to IS NULL "
    "AND id IN (SELECT fact_id FROM memory_fact_entity_links "
    "WHERE agent_id = :a AND entity_key = ANY(:keys)) "
    "ORDER BY created_at DESC, id LIMIT :lim OFFSET :off"
)
_DELETE_FACT = text("DELETE FROM memory_facts WHERE agent_id = :a AND id = CAST(:id AS uuid)")
_CLOSED_FACTS = text(
    "SELECT fact_text, valid_from, valid_to FROM memory_facts WHERE agent_id = :a "
    "AND valid_to IS NOT NULL ORDER BY valid_from"
)


async def fact_by_id(conn: AsyncConnection, agent_id: str, fact_id: str) -> Row[Any] | None:
    """The agent's fact with this id (a uuid string, already checked by the caller), or None."""
    return (await conn.execute(_FACT_BY_ID, {"a": agent_id, "id": fact_id})).first()


async def active_facts(
    conn: AsyncConnection, agent_id: str, limit: int, offset: int,
    entity_keys: list[str] | None = None,
) -> Sequence[Row[Any]]:
    """Active facts (valid_to IS NULL), newest first; with `entity_keys` (canonical keys) only
    those linked to any of them."""
    params: dict[str, Any] = {"a": agent_id, "lim": limit, "off": offset}
    if entity_keys is None:
        return (await conn.execute(_ACTIVE_FACTS, params)).all()
    params["keys"] = entity_keys
    return (await conn.execute(_ACTIVE_FACTS_OF_ENTITIES, params)).all()


async def delete_fact(conn: AsyncConnection, agent_id: str, fact_id: str) -> int:
    """Hard-delete one fact (its links go by ON DELETE CASCADE); the number of rows deleted."""
    return (await conn.execute(_DELETE_FACT, {"a": agent_id, "id": fact_id})).rowcount or 0


async def closed_facts(conn: AsyncConnection, agent_id: str) -> Sequence[Row[Any]]:
    """Superseded or retracted facts (fact_text, valid_from, valid_to), oldest first."""
    return (await conn.execute(_CLOSED_FACTS, {"a": agent_id})).all()
