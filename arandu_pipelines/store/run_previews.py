"""Previews for run metadata that erasure never has to chase: ids, states and counts, no text.

An orchestrator keeps what a run reports (Dagster's event log holds every materialization's
metadata for good), but erasure (`delete_messages`, `delete_all`) can only remove what is in the
memory tables. So the previews a run shows carry the rows' ids, dates, states and sizes — enough
to find a row with `arandu-pipelines stats --show` or SQL — and never message text, fact text,
entity names or aliases (all derived from what someone said). Read-only, one agent (`:a`) or one
import (`:s`), newest first.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from arandu_pipelines.store.status import preview

ID_PREVIEW_SQL: dict[str, str] = {
    "memory_facts": (
        "SELECT f.id AS fact_id, f.source_event_id AS event_id, f.valid_from::date AS valid_from, "
        "CASE WHEN f.valid_to IS NULL THEN 'active' ELSE 'closed ' || f.valid_to::date END AS state, "
        "round(CAST(f.confidence AS numeric), 2) AS confidence FROM memory_facts f "
        "WHERE f.agent_id = :a ORDER BY f.created_at DESC, f.valid_from DESC, f.id"),
    "memory_entities": (
        "SELECT id AS entity_id, entity_type AS type, fact_count AS facts, "
        "last_seen_at::date AS last_seen, is_active AS active FROM memory_entities WHERE agent_id = :a "
        "ORDER BY created_at DESC, id"),
    "memory_entity_aliases": (
        "SELECT a.id AS alias_id, e.id AS entity_id, a.source, a.created_at::date AS created FROM "
        "memory_entity_aliases a LEFT JOIN memory_entities e ON e.agent_id = a.agent_id AND "
        "e.canonical_key = a.canonical_entity_key WHERE a.agent_id = :a ORDER BY a.created_at DESC, a.id"),
    "memory_entity_relationships": (
        "SELECT id AS relationship_id, rel_type AS type, round(CAST(strength AS numeric), 2) AS strength, "
        "evidence_event_id AS event_id, CASE WHEN valid_to IS NULL THEN 'active' ELSE 'ended' END "
        "AS state FROM memory_entity_relationships WHERE agent_id = :a ORDER BY updated_at DESC, id"),
    "memory_fact_entity_links": (
        "SELECT l.fact_id, e.id AS entity_id, CASE WHEN l.is_primary THEN 'subject' ELSE 'mention' "
        "END AS role FROM memory_fact_entity_links l LEFT JOIN memory_entities e ON e.agent_id = "
        "l.agent_id AND e.canonical_key = l.entity_key WHERE l.agent_id = :a "
        "ORDER BY l.fact_id DESC, e.id"),
}


async def table_id_previews(
    conn: AsyncConnection | AsyncEngine, agent_id: str, tables: list[str], limit: int = 10
) -> dict[str, list[dict[str, Any]]]:
    """The newest `limit` rows of each of `tables` (keys of ID_PREVIEW_SQL), ids and states only."""
    return {t: await preview(conn, ID_PREVIEW_SQL[t], {"a": agent_id}, limit) for t in tables}


async def imported_event_ids(
    conn: AsyncConnection | AsyncEngine, sources: list[str], limit: int = 10
) -> list[dict[str, Any]]:
    """The newest events stored from the given import sources: ids, time, size and status."""
    return await preview(conn, "SELECT id AS event_id, agent_id, occurred_at, length(text) AS chars, "
                         "extraction_status AS status FROM memory_events WHERE source = ANY(:s) "
                         "ORDER BY occurred_at DESC, id", {"s": sources}, limit)


__all__ = ["ID_PREVIEW_SQL", "imported_event_ids", "table_id_previews"]
