"""Re-extraction: throw away what an earlier extraction derived and rebuild it from the events.

The event log is immutable, so after a change of extraction model or rules every derived row
can be rebuilt. Two scopes:

* **whole agent** (``since=None``) — exact: the agent's facts, links, relationships, aliases and
  entities are deleted, its entity clusters too; fact-derived meta-observations (patterns,
  contradictions, trends, community themes) are deactivated (the consolidation graph recomputes
  them); every event except ``skipped`` ones goes back to ``pending`` with zero attempts, and
  extraction runs over all of them in ``occurred_at`` order.
* **from a point in time** (``since=t``) — every event with ``occurred_at >= t`` is re-extracted.
  A range has no end on purpose: an extraction decision depends on the state left by every
  earlier message, so everything after the first re-extracted message must be replayed too.
  Derived rows of those events are discarded (facts whose source event is in the range, edges
  first asserted or re-activated in the range, entities first seen in the range that nothing
  else references, and their aliases); facts and edges that an event in the range closed are
  re-opened, so the replay finds the state as it was at ``t``. Known approximation: an edge
  asserted before ``t`` and reinforced after it keeps its accumulated strength (the per-event
  strength history is not stored); use the whole-agent scope for an exact rebuild.

Both run under the agent's advisory lock (the write pipeline's), so no extraction of the same
agent interleaves with the invalidation; the rebuild itself goes through the ordinary
`MemoryClient.extract_pending`, chunk by chunk.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import text

from arandu_pipelines.background._common import Timer, agent_transaction
from arandu_pipelines.background.results import ReextractionResult
from arandu_pipelines.store.status import table_counts

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

    from arandu_pipelines.types import ImportReport


class ExtractionHost(Protocol):
    """What re-extraction needs of its caller: a MemoryClient's public face."""

    @property
    def engine(self) -> AsyncEngine: ...

    async def initialize(self) -> None: ...

    def forget_cached(self, agent_id: str) -> None: ...

    async def extract_pending(self, agent_id: str, limit: int = ..., chunk_size: int = ...,
                              max_attempts: int = ...) -> ImportReport: ...

FACT_DERIVED_OBSERVATIONS = ("pattern", "contradiction", "trend", "community_theme")
_TABLES = ("memory_facts", "memory_entities", "memory_entity_aliases",
           "memory_entity_relationships", "memory_fact_entity_links", "memory_clusters",
           "memory_meta_observations")


async def _active_counts(engine: Any, agent_id: str) -> dict[str, int]:
    counts = await table_counts(engine, agent_id, _TABLES)
    return {t: counts[t].active for t in _TABLES if t in counts}


async def reextract(
    client: ExtractionHost,
    agent_id: str,
    since: datetime | None = None,
    max_events: int = 1_000_000,
    chunk_size: int = 64,
    max_attempts: int = 5,
) -> ReextractionResult:
    """Invalidate what extraction derived for `agent_id` (from `since`) and rebuild it."""
    timer = Timer()
    await client.initialize()
    engine = client.engine
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    result = ReextractionResult(agent_id=agent_id, since=since)
    result.before = await _active_counts(engine, agent_id)
    async with agent_transaction(engine, agent_id) as conn:
        if since is None:
            await _invalidate_all(conn, agent_id, result)
        else:
            await _invalidate_since(conn, agent_id, since, result)
    client.forget_cached(agent_id)  # the per-process alias cache saw the discarded aliases
    # the library's one "extract until the limit" loop (never more than max_events)
    report = await client.extract_pending(agent_id, limit=max_events, chunk_size=chunk_size,
                                          max_attempts=max_attempts)
    result.events_extracted = report.events_extracted
    result.facts_added = report.facts_added
    result.extraction_errors.extend(report.extraction_errors)
    result.after = await _active_counts(engine, agent_id)
    result.preview = [
        {"table": t, "before": result.before.get(t, 0), "after": result.after.get(t, 0)}
        for t in _TABLES
    ]
    result.duration_ms = timer.ms
    return result


async def _invalidate_all(conn: Any, agent_id: str, result: ReextractionResult) -> None:
    p = {"a": agent_id}
    await conn.execute(text("DELETE FROM memory_fact_entity_links WHERE agent_id = :a"), p)
    result.relationships_discarded = (await conn.execute(
        text("DELETE FROM memory_entity_relationships WHERE agent_id = :a"), p)).rowcount or 0
    await conn.execute(text("UPDATE memory_facts SET cluster_id = NULL WHERE agent_id = :a "
                            "AND cluster_id IS NOT NULL"), p)
    await conn.execute(text("DELETE FROM memory_clusters WHERE agent_id = :a AND cluster_type = 'entity'"), p)
    result.facts_discarded = (await conn.execute(
        text("DELETE FROM memory_facts WHERE agent_id = :a"), p)).rowcount or 0
    result.aliases_discarded = (await conn.execute(
        text("DELETE FROM memory_entity_aliases WHERE agent_id = :a"), p)).rowcount or 0
    result.entities_discarded = (await conn.execute(
        text("DELETE FROM memory_entities WHERE agent_id = :a"), p)).rowcount or 0
    await conn.execute(
        text("UPDATE memory_meta_observations SET is_active = false WHERE agent_id = :a "
             "AND is_active AND observation_type = ANY(CAST(:t AS text[]))"),
        {**p, "t": list(FACT_DERIVED_OBSERVATIONS)})
    result.events_reset = (await conn.execute(
        text("UPDATE memory_events SET extraction_status = 'pending', extraction_attempts = 0, "
             "extraction_error = NULL, extracted_at = NULL WHERE agent_id = :a "
             "AND extraction_status <> 'skipped'"), p)).rowcount or 0


async def _invalidate_since(conn: Any, agent_id: str, since: datetime, result: ReextractionResult) -> None:
    p = {"a": agent_id, "t": since}
    await conn.execute(text(
        "CREATE TEMP TABLE _reextract_events ON COMMIT DROP AS SELECT id FROM memory_events "
        "WHERE agent_id = :a AND occurred_at >= :t AND extraction_status <> 'skipped'"), p)
    await conn.execute(text(
        "CREATE TEMP TABLE _reextract_facts ON COMMIT DROP AS SELECT id, supersedes_fact_id "
        "FROM memory_facts WHERE agent_id = :a AND source_event_id IN (SELECT id FROM _reextract_events)"), p)
    # re-open what the range closed: superseded by a discarded fact, or closed at/after t
    result.facts_reopened = (await conn.execute(text(
        "UPDATE memory_facts f SET valid_to = NULL, invalidated_at = NULL "
        "WHERE f.agent_id = :a AND f.valid_to IS NOT NULL AND f.invalidated_at IS NOT NULL "
        "AND f.id NOT IN (SELECT id FROM _reextract_facts) "
        "AND (f.id IN (SELECT supersedes_fact_id FROM _reextract_facts WHERE supersedes_fact_id IS NOT NULL) "
        "     OR f.valid_to >= :t)"), p)).rowcount or 0
    result.relationships_discarded = (await conn.execute(text(
        "DELETE FROM memory_entity_relationships WHERE agent_id = :a AND valid_from >= :t"), p)).rowcount or 0
    result.relationships_reopened = (await conn.execute(text(
        "UPDATE memory_entity_relationships SET valid_to = NULL, invalidated_at = NULL, updated_at = now() "
        "WHERE agent_id = :a AND valid_to >= :t AND invalidated_at IS NOT NULL"), p)).rowcount or 0
    result.facts_discarded = (await conn.execute(text(
        "DELETE FROM memory_facts WHERE id IN (SELECT id FROM _reextract_facts)"), p)).rowcount or 0
    orphan = (
        "SELECT e.canonical_key FROM memory_entities e WHERE e.agent_id = :a AND e.first_seen_at >= :t "
        "AND NOT EXISTS (SELECT 1 FROM memory_fact_entity_links l WHERE l.agent_id = :a "
        "                AND l.entity_key = e.canonical_key) "
        "AND NOT EXISTS (SELECT 1 FROM memory_entity_relationships r WHERE r.agent_id = :a "
        "                AND e.canonical_key IN (r.source_entity_key, r.target_entity_key))"
    )
    result.aliases_discarded = (await conn.execute(text(
        f"DELETE FROM memory_entity_aliases WHERE agent_id = :a AND canonical_entity_key IN ({orphan})"),
        p)).rowcount or 0
    result.entities_discarded = (await conn.execute(text(
        f"DELETE FROM memory_entities WHERE agent_id = :a AND canonical_key IN ({orphan})"), p)).rowcount or 0
    await conn.execute(text(
        "UPDATE memory_entities e SET fact_count = (SELECT count(*) FROM memory_fact_entity_links l "
        "JOIN memory_facts f ON f.id = l.fact_id AND f.valid_to IS NULL "
        "WHERE l.agent_id = :a AND l.entity_key = e.canonical_key) WHERE e.agent_id = :a"), p)
    result.events_reset = (await conn.execute(text(
        "UPDATE memory_events SET extraction_status = 'pending', extraction_attempts = 0, "
        "extraction_error = NULL, extracted_at = NULL WHERE id IN (SELECT id FROM _reextract_events)"),
        p)).rowcount or 0
