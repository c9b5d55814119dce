"""Entity helpers of the specification's `arandu.write`: upsert one entity, read one or all.

The write pipeline creates entities itself (set-based, in `upsert.py`); these are for callers
who register or inspect entities directly. Rows come back as `EntityDetail` (our read type; the
spec's `MemoryEntity` ORM row has the same columns)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Row

from arandu_pipelines.errors import ValidationError
from arandu_pipelines.keys import normalize_type
from arandu_pipelines.store.targets import DatabaseTarget, connection_for
from arandu_pipelines.types import EntityDetail

_COLS = ("id::text AS entity_id, canonical_key, COALESCE(display_name, canonical_key) AS display_name, "
         "entity_type, summary_text, fact_count, importance_score, first_seen_at, last_seen_at, profile_text")


def _detail(r: Row[Any]) -> EntityDetail:
    return EntityDetail(r.entity_id, r.canonical_key, r.display_name, r.entity_type, r.summary_text,
                        r.fact_count, r.importance_score, r.first_seen_at, r.last_seen_at, r.profile_text)


def _key(canonical_key: object) -> str:
    if not isinstance(canonical_key, str) or ":" not in canonical_key or not canonical_key.split(":", 1)[1].strip():
        raise ValidationError(f"canonical_key must look like 'type:slug' (e.g. 'person:ana'), got {canonical_key!r}")
    return canonical_key.strip().lower()


async def create_or_update_entity(
    session: DatabaseTarget, agent_id: str, canonical_key: str, display_name: str | None = None,
    entity_type: str = "other",
) -> EntityDetail:
    """Insert the entity or refresh it (display name when given, type, last seen, active)."""
    key = _key(canonical_key)
    async with connection_for(session) as conn:
        row = (await conn.execute(text(
            "INSERT INTO memory_entities (agent_id, canonical_key, display_name, entity_type) "
            "VALUES (:a, :k, :n, :t) ON CONFLICT (agent_id, canonical_key) DO UPDATE SET "
            "display_name = COALESCE(EXCLUDED.display_name, memory_entities.display_name), "
            "entity_type = EXCLUDED.entity_type, last_seen_at = now(), is_active = true "
            f"RETURNING {_COLS}"),
            {"a": agent_id, "k": key, "n": display_name, "t": normalize_type(entity_type)})).one()
    return _detail(row)


async def get_entity_by_key(session: DatabaseTarget, agent_id: str, canonical_key: str) -> EntityDetail | None:
    """The entity with this canonical key, or None."""
    async with connection_for(session) as conn:
        row = (await conn.execute(text(
            f"SELECT {_COLS} FROM memory_entities WHERE agent_id = :a AND canonical_key = :k"),
            {"a": agent_id, "k": _key(canonical_key)})).first()
    return _detail(row) if row else None


async def get_entities_for_user(session: DatabaseTarget, agent_id: str, active_only: bool = True) -> list[EntityDetail]:
    """Every entity of the agent, most recently seen first (spec's historical name: 'user')."""
    async with connection_for(session) as conn:
        rows = (await conn.execute(text(
            f"SELECT {_COLS} FROM memory_entities WHERE agent_id = :a AND (is_active OR NOT :act) "
            "ORDER BY last_seen_at DESC, canonical_key"), {"a": agent_id, "act": bool(active_only)})).all()
    return [_detail(r) for r in rows]


__all__ = ["create_or_update_entity", "get_entities_for_user", "get_entity_by_key"]
