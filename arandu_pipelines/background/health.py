"""Memory health checks: invariants of the store, as read-only SQL.

Each check returns a `HealthCheck` (passed, a count of offending rows, a few examples) for one
agent or, with ``agent_id=None``, for the whole store. They back the Dagster asset checks, and
any other scheduler or a test can call them directly.

* `check_links` — every fact-entity link points at an existing fact and an existing entity.
* `check_relationships` — every relationship's ends exist as entities of the same agent, and its
  evidence fact / event (when set) exist.
* `check_embedding_dimensions` — the vector columns have the configured dimension and no stored
  fact embedding has another length.
* `check_duplicate_facts` — no two active facts of one entity have the same (normalised) text.
* `check_extraction_backlog` — every event stored more than N minutes ago has been extracted.
* `check_aliases` — each alias of an agent resolves to one entity, and that entity exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import engine_of
from arandu_pipelines.store.status import unextracted_backlog


@dataclass
class HealthCheck:
    name: str
    passed: bool
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    description: str = ""


def _scope(alias: str) -> str:
    return f"(CAST(:a AS text) IS NULL OR {alias}.agent_id = CAST(:a AS text))"


async def _run(engine: Any, name: str, description: str, count_sql: str, example_sql: str,
               params: dict[str, Any]) -> HealthCheck:
    async with engine_of(engine).connect() as conn:
        n = int((await conn.execute(text(count_sql), params)).scalar_one())
        examples = [] if n == 0 else [
            {k: (str(v) if v is not None and not isinstance(v, (int, float, bool)) else v)
             for k, v in r._mapping.items()}
            for r in await conn.execute(text(example_sql + " LIMIT 5"), params)
        ]
    return HealthCheck(name, n == 0, n, examples, description=description)


async def check_links(engine: Any, agent_id: str | None = None) -> HealthCheck:
    bad = f"""
        FROM memory_fact_entity_links l
        LEFT JOIN memory_facts f ON f.id = l.fact_id
        LEFT JOIN memory_entities e ON e.agent_id = l.agent_id AND e.canonical_key = l.entity_key
        WHERE {_scope('l')} AND (f.id IS NULL OR f.agent_id <> l.agent_id OR e.id IS NULL)
    """
    return await _run(
        engine, "links_resolve", "every fact-entity link points at an existing fact and entity",
        f"SELECT count(*) {bad}",
        f"SELECT l.agent_id, l.fact_id, l.entity_key, f.id IS NULL AS missing_fact, "
        f"e.id IS NULL AS missing_entity {bad} ORDER BY l.agent_id, l.entity_key",
        {"a": agent_id})


async def check_relationships(engine: Any, agent_id: str | None = None) -> HealthCheck:
    bad = f"""
        FROM memory_entity_relationships r
        LEFT JOIN memory_entities s ON s.agent_id = r.agent_id AND s.canonical_key = r.source_entity_key
        LEFT JOIN memory_entities t ON t.agent_id = r.agent_id AND t.canonical_key = r.target_entity_key
        LEFT JOIN memory_facts f ON f.id = r.evidence_fact_id
        LEFT JOIN memory_events ev ON ev.id = r.evidence_event_id
        WHERE {_scope('r')} AND (s.id IS NULL OR t.id IS NULL
              OR (r.evidence_fact_id IS NOT NULL AND (f.id IS NULL OR f.agent_id <> r.agent_id))
              OR (r.evidence_event_id IS NOT NULL AND (ev.id IS NULL OR ev.agent_id <> r.agent_id)))
    """
    return await _run(
        engine, "relationships_resolve",
        "every relationship's ends, evidence fact and evidence event exist for the same agent",
        f"SELECT count(*) {bad}",
        f"SELECT r.agent_id, r.source_entity_key, r.rel_type, r.target_entity_key, "
        f"s.id IS NULL AS missing_source, t.id IS NULL AS missing_target {bad} "
        f"ORDER BY r.agent_id, r.source_entity_key",
        {"a": agent_id})


async def check_embedding_dimensions(
    engine: Any, expected: int, agent_id: str | None = None
) -> HealthCheck:
    async with engine_of(engine).connect() as conn:
        columns = {
            f"{r.relname}.{r.attname}": int(r.atttypmod)
            for r in await conn.execute(text(
                "SELECT c.relname, a.attname, a.atttypmod FROM pg_attribute a "
                "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type ty ON ty.oid = a.atttypid "
                "WHERE ty.typname = 'vector' AND c.relkind = 'r' AND NOT a.attisdropped "
                "AND c.relnamespace = current_schema()::regnamespace AND c.relname LIKE 'memory_%' "
                "ORDER BY 1, 2"))
        }
        wrong_rows = int((await conn.execute(text(
            f"SELECT count(*) FROM memory_facts f WHERE {_scope('f')} AND f.embedding_vec IS NOT NULL "
            "AND vector_dims(f.embedding_vec) <> :d"), {"a": agent_id, "d": expected})).scalar_one())
    wrong_cols = {k: v for k, v in columns.items() if v != expected}
    return HealthCheck(
        "embedding_dimensions", not wrong_cols and wrong_rows == 0, len(wrong_cols) + wrong_rows,
        [{"column": k, "dimension": v} for k, v in wrong_cols.items()][:5],
        {"expected": expected, "columns": len(columns), "wrong_rows": wrong_rows},
        "vector columns and stored fact embeddings have the configured dimension")


async def check_duplicate_facts(engine: Any, agent_id: str | None = None) -> HealthCheck:
    dup = f"""
        FROM (SELECT f.agent_id, f.entity_key,
                     lower(regexp_replace(btrim(f.fact_text), '[[:space:][:punct:]]+', ' ', 'g')) AS norm,
                     count(*) AS n
              FROM memory_facts f WHERE {_scope('f')} AND f.valid_to IS NULL
              GROUP BY 1, 2, 3 HAVING count(*) > 1) d
    """
    return await _run(
        engine, "no_duplicate_active_facts", "no two active facts of an entity have the same text",
        f"SELECT count(*) {dup}",
        f"SELECT d.agent_id, d.entity_key, d.norm AS fact_text, d.n {dup} ORDER BY d.n DESC, d.entity_key",
        {"a": agent_id})


async def check_extraction_backlog(
    engine: Any, older_than_minutes: int = 30, agent_id: str | None = None, max_attempts: int = 5
) -> HealthCheck:
    backlog = await unextracted_backlog(engine_of(engine), older_than_minutes, max_attempts, agent_id)
    return HealthCheck(
        "events_extracted", backlog.total == 0, backlog.total,
        [{"agent_id": a, "unextracted": n} for a, n in backlog.per_agent.items()][:5],
        {"older_than_minutes": older_than_minutes, "pending": backlog.pending,
         "failed": backlog.failed, "failed_out_of_attempts": backlog.exhausted,
         "oldest_created_at": backlog.oldest_created_at.isoformat() if backlog.oldest_created_at else None},
        f"every event stored more than {older_than_minutes} minutes ago is extracted")


async def check_aliases(engine: Any, agent_id: str | None = None) -> HealthCheck:
    bad = f"""
        FROM (SELECT a.agent_id, a.alias,
                     count(DISTINCT a.canonical_entity_key) AS targets,
                     bool_or(e.id IS NULL) AS dangling
              FROM memory_entity_aliases a
              LEFT JOIN memory_entities e ON e.agent_id = a.agent_id
                   AND e.canonical_key = a.canonical_entity_key
              WHERE {_scope('a')}
              GROUP BY 1, 2
              HAVING count(DISTINCT a.canonical_entity_key) > 1 OR bool_or(e.id IS NULL)) x
    """
    return await _run(
        engine, "aliases_unique", "each alias of an agent names exactly one existing entity",
        f"SELECT count(*) {bad}",
        f"SELECT x.agent_id, x.alias, x.targets, x.dangling {bad} ORDER BY x.agent_id, x.alias",
        {"a": agent_id})


async def run_all(engine: Any, expected_dimension: int, agent_id: str | None = None,
                  backlog_minutes: int = 30) -> list[HealthCheck]:
    return [
        await check_links(engine, agent_id),
        await check_relationships(engine, agent_id),
        await check_embedding_dimensions(engine, expected_dimension, agent_id),
        await check_duplicate_facts(engine, agent_id),
        await check_extraction_backlog(engine, backlog_minutes, agent_id),
        await check_aliases(engine, agent_id),
    ]
