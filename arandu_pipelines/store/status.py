"""What the schedulers need to know about the store: set-based, read-only status queries.

Used by the Dagster sensors (which agents have events waiting for extraction, and since when) and
by the run metadata (row counts per table, what one run added / updated / invalidated), but free
of any orchestration import: any scheduler (cron, Celery, a loop) can call these.

"Pending" means ``extraction_status = 'pending'``; "retryable" means ``failed`` with fewer than
``max_attempts`` attempts. Failed events back off exponentially (``retry_base_seconds * 2^(n-1)``
after the n-th failure, capped at ``retry_max_seconds``), timed by ``extraction_updated_at``
(kept by a trigger, migration 0003).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine


@dataclass(frozen=True)
class PendingAgent:
    """One agent with events not yet extracted."""

    agent_id: str
    pending: int  # status 'pending'
    retryable: int  # status 'failed' with attempts below the limit
    retry_due: int  # ... of which the backoff has elapsed
    newest_event_id: str  # newest unextracted event by insertion (created_at, id)
    newest_created_at: datetime
    oldest_created_at: datetime  # oldest unextracted event by insertion
    attempts: int  # sum of extraction_attempts over the unextracted events
    last_failure_at: datetime | None = None

    @property
    def needs_run(self) -> bool:
        return self.pending > 0 or self.retry_due > 0


_PENDING_AGENTS = text(
    """
    SELECT agent_id,
           count(*) FILTER (WHERE extraction_status = 'pending') AS pending,
           count(*) FILTER (WHERE extraction_status = 'failed') AS retryable,
           count(*) FILTER (WHERE extraction_status = 'failed' AND (
               extraction_updated_at IS NULL OR extraction_updated_at <= now() - make_interval(
                   secs => LEAST(:retry_max, :retry_base * power(2, GREATEST(extraction_attempts, 1) - 1)))
           )) AS retry_due,
           (array_agg(id::text ORDER BY created_at DESC, id DESC))[1] AS newest_event_id,
           max(created_at) AS newest_created_at,
           min(created_at) AS oldest_created_at,
           COALESCE(sum(extraction_attempts), 0) AS attempts,
           max(extraction_updated_at) FILTER (WHERE extraction_status = 'failed') AS last_failure_at
    FROM memory_events
    WHERE extraction_status IN ('pending', 'failed')
      AND (extraction_status = 'pending' OR extraction_attempts < :max_attempts)
      AND (CAST(:agent AS text) IS NULL OR agent_id = CAST(:agent AS text))
    GROUP BY agent_id
    ORDER BY min(created_at), agent_id
    LIMIT :lim
    """
)


async def pending_agents(
    conn: AsyncConnection | AsyncEngine,
    max_attempts: int = 5,
    retry_base_seconds: float = 60.0,
    retry_max_seconds: float = 3600.0,
    agent_id: str | None = None,
    limit: int = 10_000,
) -> list[PendingAgent]:
    """Agents with pending or retryable events, oldest backlog first."""
    params = {"max_attempts": max_attempts, "retry_base": float(retry_base_seconds),
              "retry_max": float(retry_max_seconds), "agent": agent_id, "lim": limit}
    async with _connect(conn) as c:
        result = await c.execute(_PENDING_AGENTS, params)
        return [
            PendingAgent(r.agent_id, int(r.pending), int(r.retryable), int(r.retry_due),
                         r.newest_event_id, r.newest_created_at, r.oldest_created_at,
                         int(r.attempts), r.last_failure_at)
            for r in result
        ]


@dataclass(frozen=True)
class Backlog:
    """Events older than a threshold that are still not extracted (the freshness SLA)."""

    minutes: int
    pending: int
    failed: int
    exhausted: int  # failed with attempts >= max_attempts: they need a person (or a re-extraction)
    oldest_created_at: datetime | None
    per_agent: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.pending + self.failed


async def unextracted_backlog(
    conn: AsyncConnection | AsyncEngine,
    older_than_minutes: int = 30,
    max_attempts: int = 5,
    agent_id: str | None = None,
    top_agents: int = 10,
) -> Backlog:
    """Events stored more than N minutes ago whose extraction has not succeeded."""
    sql = text(
        """
        SELECT agent_id,
               count(*) FILTER (WHERE extraction_status = 'pending') AS pending,
               count(*) FILTER (WHERE extraction_status = 'failed') AS failed,
               count(*) FILTER (WHERE extraction_status = 'failed'
                                AND extraction_attempts >= :max_attempts) AS exhausted,
               min(created_at) AS oldest
        FROM memory_events
        WHERE extraction_status IN ('pending', 'failed')
          AND created_at < now() - make_interval(mins => :mins)
          AND (CAST(:agent AS text) IS NULL OR agent_id = CAST(:agent AS text))
        GROUP BY agent_id
        ORDER BY count(*) DESC, agent_id
        """
    )
    async with _connect(conn) as c:
        rows = (await c.execute(sql, {"mins": int(older_than_minutes), "agent": agent_id,
                                      "max_attempts": max_attempts})).all()
    oldest = min((r.oldest for r in rows), default=None)
    return Backlog(
        minutes=older_than_minutes,
        pending=sum(int(r.pending) for r in rows),
        failed=sum(int(r.failed) for r in rows),
        exhausted=sum(int(r.exhausted) for r in rows),
        oldest_created_at=oldest,
        per_agent={r.agent_id: int(r.pending) + int(r.failed) for r in rows[:top_agents]},
    )


async def agent_ids(conn: AsyncConnection | AsyncEngine) -> list[str]:
    """Every agent with at least one stored event (a skip scan over the (agent_id, ...) index)."""
    sql = text(
        """
        WITH RECURSIVE a AS (
            (SELECT agent_id FROM memory_events ORDER BY agent_id LIMIT 1)
            UNION ALL
            SELECT (SELECT e.agent_id FROM memory_events e WHERE e.agent_id > a.agent_id
                    ORDER BY e.agent_id LIMIT 1) FROM a WHERE a.agent_id IS NOT NULL
        )
        SELECT agent_id FROM a WHERE agent_id IS NOT NULL
        """
    )
    async with _connect(conn) as c:
        return [r.agent_id for r in await c.execute(sql)]


# ---- row counts for run metadata ---------------------------------------------------------------
# (table, "active" predicate or None)
TABLES: tuple[tuple[str, str | None], ...] = (
    ("memory_events", "extraction_status = 'done'"),
    ("memory_facts", "valid_to IS NULL"),
    ("memory_entities", "is_active"),
    ("memory_entity_aliases", None),
    ("memory_entity_relationships", "valid_to IS NULL"),
    ("memory_fact_entity_links", None),
    ("memory_clusters", "is_active"),
    ("memory_meta_observations", "is_active"),
)


@dataclass(frozen=True)
class TableCount:
    total: int
    active: int


async def table_counts(
    conn: AsyncConnection | AsyncEngine, agent_id: str, tables: tuple[str, ...] | None = None
) -> dict[str, TableCount]:
    """Total and active rows per memory table for one agent (one statement)."""
    chosen = [(t, p) for t, p in TABLES if tables is None or t in tables]
    parts = [
        f"SELECT '{t}' AS tbl, count(*) AS total, count(*) FILTER (WHERE {p or 'true'}) AS active "
        f"FROM {t} WHERE agent_id = :a"
        for t, p in chosen
    ]
    async with _connect(conn) as c:
        rows = (await c.execute(text(" UNION ALL ".join(parts)), {"a": agent_id})).all()
    return {r.tbl: TableCount(int(r.total), int(r.active)) for r in rows}


async def db_now(conn: AsyncConnection | AsyncEngine) -> datetime:
    async with _connect(conn) as c:
        return (await c.execute(text("SELECT now()"))).scalar_one()


async def failed_since(
    conn: AsyncConnection | AsyncEngine, agent_id: str, since: datetime, limit: int = 20,
) -> tuple[int, list[str]]:
    """Events of an agent whose extraction failed at or after `since` (the write pipeline marks
    a message it could not extract `failed` without raising): their count and up to `limit`
    "<message id>: <error>" lines, oldest first."""
    sql = text(
        """
        SELECT count(*) OVER () AS n, COALESCE(message_id, id::text) AS ref, extraction_error
        FROM memory_events
        WHERE agent_id = :a AND extraction_status = 'failed' AND extraction_updated_at >= :since
        ORDER BY extraction_updated_at, id
        LIMIT :lim
        """
    )
    async with _connect(conn) as c:
        rows = (await c.execute(sql, {"a": agent_id, "since": since, "lim": limit})).all()
    return (int(rows[0].n) if rows else 0,
            [f"{r.ref}: {(r.extraction_error or 'unknown error')[:300]}" for r in rows])


@dataclass
class TableChanges:
    added: int = 0
    updated: int = 0
    invalidated: int = 0
    total: int = 0
    active: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"added": self.added, "updated": self.updated, "invalidated": self.invalidated,
                "total": self.total, "active": self.active}


async def extraction_changes(
    conn: AsyncConnection | AsyncEngine, agent_id: str, since: datetime
) -> dict[str, TableChanges]:
    """What happened to the extraction tables of one agent since `since` (a database time).

    added = rows created since; invalidated = facts / edges closed since; updated = edges
    reinforced or reactivated since, and entities that existed before and gained facts since.
    """
    sql = text(
        """
        WITH new_facts AS (
            SELECT id FROM memory_facts WHERE agent_id = :a AND created_at >= :t
        )
        SELECT
          (SELECT count(*) FROM new_facts) AS facts_added,
          (SELECT count(*) FROM memory_facts WHERE agent_id = :a AND invalidated_at >= :t) AS facts_invalidated,
          (SELECT count(*) FROM memory_facts WHERE agent_id = :a AND created_at >= :t
             AND supersedes_fact_id IS NOT NULL) AS facts_updated,
          (SELECT count(*) FROM memory_facts WHERE agent_id = :a) AS facts_total,
          (SELECT count(*) FROM memory_facts WHERE agent_id = :a AND valid_to IS NULL) AS facts_active,
          (SELECT count(*) FROM memory_entities WHERE agent_id = :a AND created_at >= :t) AS ent_added,
          (SELECT count(DISTINCT l.entity_key) FROM memory_fact_entity_links l
             JOIN new_facts n ON n.id = l.fact_id
             JOIN memory_entities e ON e.agent_id = :a AND e.canonical_key = l.entity_key
             WHERE l.agent_id = :a AND e.created_at < :t) AS ent_updated,
          (SELECT count(*) FROM memory_entities WHERE agent_id = :a) AS ent_total,
          (SELECT count(*) FROM memory_entities WHERE agent_id = :a AND is_active) AS ent_active,
          (SELECT count(*) FROM memory_entity_aliases WHERE agent_id = :a AND created_at >= :t) AS al_added,
          (SELECT count(*) FROM memory_entity_aliases WHERE agent_id = :a) AS al_total,
          (SELECT count(*) FROM memory_entity_relationships WHERE agent_id = :a AND created_at >= :t) AS rel_added,
          (SELECT count(*) FROM memory_entity_relationships WHERE agent_id = :a AND created_at < :t
             AND updated_at >= :t AND (invalidated_at IS NULL OR invalidated_at < :t)) AS rel_updated,
          (SELECT count(*) FROM memory_entity_relationships WHERE agent_id = :a AND invalidated_at >= :t) AS rel_invalidated,
          (SELECT count(*) FROM memory_entity_relationships WHERE agent_id = :a) AS rel_total,
          (SELECT count(*) FROM memory_entity_relationships WHERE agent_id = :a AND valid_to IS NULL) AS rel_active,
          (SELECT count(*) FROM memory_fact_entity_links l JOIN new_facts n ON n.id = l.fact_id
             WHERE l.agent_id = :a) AS links_added,
          (SELECT count(*) FROM memory_fact_entity_links WHERE agent_id = :a) AS links_total
        """
    )
    async with _connect(conn) as c:
        r = (await c.execute(sql, {"a": agent_id, "t": since})).one()
    return {
        "memory_facts": TableChanges(r.facts_added, r.facts_updated, r.facts_invalidated,
                                     r.facts_total, r.facts_active),
        "memory_entities": TableChanges(r.ent_added, r.ent_updated, 0, r.ent_total, r.ent_active),
        "memory_entity_aliases": TableChanges(r.al_added, 0, 0, r.al_total, r.al_total),
        "memory_entity_relationships": TableChanges(r.rel_added, r.rel_updated, r.rel_invalidated,
                                                    r.rel_total, r.rel_active),
        "memory_fact_entity_links": TableChanges(r.links_added, 0, 0, r.links_total, r.links_total),
    }


async def preview(
    conn: AsyncConnection | AsyncEngine, sql: str, params: dict[str, Any], limit: int = 10
) -> list[dict[str, Any]]:
    """The first `limit` rows of `sql` (a literal statement ending in its ORDER BY) as dicts,
    for run metadata previews."""
    async with _connect(conn) as c:
        result = await c.execute(text(sql + " LIMIT :_lim"), {**params, "_lim": limit})
        return [dict(r._mapping) for r in result]


# ---- read-only summaries for run metadata (the Dagster UI shows them; no writes) -------------
# Newest rows first, one statement per memory table, scoped to one agent (`:a`).
PREVIEW_SQL: dict[str, str] = {
    "memory_facts": (
        "SELECT f.entity_key AS entity, f.fact_text AS fact, f.valid_from::date AS valid_from, "
        "CASE WHEN f.valid_to IS NULL THEN 'active' ELSE 'closed ' || f.valid_to::date END AS state, "
        "left(e.text, 70) AS from_message FROM memory_facts f "
        "LEFT JOIN memory_events e ON e.id = f.source_event_id WHERE f.agent_id = :a "
        "ORDER BY f.created_at DESC, f.valid_from DESC, f.id"),
    "memory_entities": (
        "SELECT canonical_key AS entity, display_name, entity_type AS type, fact_count AS facts, "
        "last_seen_at::date AS last_seen FROM memory_entities WHERE agent_id = :a "
        "ORDER BY fact_count DESC, canonical_key"),
    "memory_entity_aliases": (
        "SELECT alias_text AS alias, canonical_entity_key AS entity, source FROM "
        "memory_entity_aliases WHERE agent_id = :a ORDER BY created_at DESC, alias"),
    "memory_entity_relationships": (
        "SELECT source_entity_key AS source, rel_type AS type, target_entity_key AS target, "
        "round(CAST(strength AS numeric), 2) AS strength, CASE WHEN valid_to IS NULL THEN 'active' "
        "ELSE 'ended' END AS state FROM memory_entity_relationships WHERE agent_id = :a "
        "ORDER BY updated_at DESC, source_entity_key, rel_type"),
    "memory_fact_entity_links": (
        "SELECT l.entity_key AS entity, CASE WHEN l.is_primary THEN 'subject' ELSE 'mention' END "
        "AS role, left(f.fact_text, 80) AS fact FROM memory_fact_entity_links l JOIN memory_facts f "
        "ON f.id = l.fact_id WHERE l.agent_id = :a ORDER BY f.created_at DESC, l.entity_key"),
}


async def table_previews(
    conn: AsyncConnection | AsyncEngine, agent_id: str, tables: list[str], limit: int = 10
) -> dict[str, list[dict[str, Any]]]:
    """The newest `limit` rows of each of `tables` (keys of PREVIEW_SQL) for one agent."""
    async with _connect(conn) as c:
        return {table: await preview(c, PREVIEW_SQL[table], {"a": agent_id}, limit) for table in tables}


async def active_clusters(conn: AsyncConnection | AsyncEngine, agent_id: str) -> int:
    async with _connect(conn) as c:
        return int((await c.execute(text(
            "SELECT count(*) FROM memory_clusters WHERE agent_id = :a AND is_active"),
            {"a": agent_id})).scalar_one())


async def observation_summary(
    conn: AsyncConnection | AsyncEngine, agent_id: str, limit: int = 12
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Active meta-observations: count per type, and the most important `limit` of them."""
    async with _connect(conn) as c:
        # Column names must not shadow Row's own attributes (`t`, `count`, `index`, `tuple`):
        # `row.t` is the row as a tuple in SQLAlchemy 2, which made the key unserialisable.
        by_type = {str(row.obs_type): int(row.n) for row in await c.execute(text(
            "SELECT observation_type AS obs_type, count(*) AS n FROM memory_meta_observations "
            "WHERE agent_id = :a AND is_active GROUP BY 1 ORDER BY 1"), {"a": agent_id})}
        top = await preview(c, "SELECT observation_type AS type, title, round(CAST(confidence AS "
                            "numeric), 2) AS confidence FROM memory_meta_observations WHERE agent_id = :a "
                            "AND is_active ORDER BY importance DESC, title", {"a": agent_id}, limit)
    return by_type, top


async def imported_events(
    conn: AsyncConnection | AsyncEngine, sources: list[str], limit: int = 10
) -> list[dict[str, Any]]:
    """The newest messages stored from the given import sources (files)."""
    return await preview(conn, "SELECT agent_id, session_id, speaker, occurred_at, left(text, 80) AS text, "
                         "extraction_status AS status FROM memory_events WHERE source = ANY(:s) "
                         "ORDER BY occurred_at DESC, id", {"s": sources}, limit)


async def events_row_count(conn: AsyncConnection | AsyncEngine) -> int:
    """Rows of memory_events: exact below a million, the planner's estimate above (an exact
    count would scan the whole table on every import run)."""
    async with _connect(conn) as c:
        return int((await c.execute(text(
            "SELECT CASE WHEN c.reltuples > 1e6 THEN c.reltuples::bigint "
            "ELSE (SELECT count(*) FROM memory_events) END FROM pg_class c "
            "WHERE c.oid = to_regclass('memory_events')"))).scalar_one())


async def table_columns(conn: AsyncConnection | AsyncEngine, table: str) -> list[tuple[str, str]]:
    """(column, data type) of a table, in order, as the database reports them."""
    async with _connect(conn) as c:
        return [(r.column_name, r.data_type) for r in await c.execute(text(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = :t ORDER BY ordinal_position"), {"t": table})]


class _connect:
    """Use a given connection as is, or open (and close) one from an engine."""

    def __init__(self, target: AsyncConnection | AsyncEngine) -> None:
        self.target = target
        self._conn: AsyncConnection | None = None

    async def __aenter__(self) -> AsyncConnection:
        if isinstance(self.target, AsyncConnection):
            return self.target
        self._conn = await self.target.connect()
        return self._conn

    async def __aexit__(self, *exc: object) -> None:
        if self._conn is not None:
            await self._conn.close()
