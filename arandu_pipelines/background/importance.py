"""Sleep-time job 1: entity importance, one set-based UPDATE (no LLM).

    importance = 0.30 * fact density + 0.25 * recency + 0.25 * retrieval + 0.20 * degree

* fact density — active facts linked to the entity (as subject or mention), ``ln(1+n)`` scaled
  by the agent's maximum;
* recency — ``2^(-age/half_life)`` with ``half_life = importance_recency_halflife_days`` (30) and
  age measured from the entity's last mention (``last_seen_at`` or its newest active fact) to the
  agent's clock (see `agent_clock`);
* retrieval — the sum of ``times_retrieved`` of its active facts, ``ln(1+r)`` scaled by the max;
* degree — active relationships in + out, ``ln(1+d)`` scaled by the max.

Scores are rounded to 4 decimals and written only when they change, so a re-run is a no-op.
The same job then evolves the importance of used facts (spec 001 `compute_dynamic_importance`,
read/importance.py `refresh_fact_importance`): the value retrieve() ranks on.
Run it first: summaries and profiles are refreshed in importance order.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import Timer, agent_clock, agent_transaction
from arandu_pipelines.background.results import EntityImportanceResult
from arandu_pipelines.config import MemoryConfig

WEIGHTS = {"density": 0.30, "recency": 0.25, "retrieval": 0.25, "degree": 0.20}

_SCORE = text(
    """
    WITH ents AS (
        SELECT canonical_key AS k, last_seen_at FROM memory_entities
        WHERE agent_id = :a AND is_active
    ),
    facts AS (
        SELECT l.entity_key AS k, count(*) AS n, COALESCE(sum(f.times_retrieved), 0) AS r,
               max(f.valid_from) AS newest
        FROM memory_fact_entity_links l
        JOIN memory_facts f ON f.id = l.fact_id AND f.valid_to IS NULL
        WHERE l.agent_id = :a GROUP BY l.entity_key
    ),
    deg AS (
        SELECT k, count(*) AS d FROM (
            SELECT source_entity_key AS k FROM memory_entity_relationships
             WHERE agent_id = :a AND valid_to IS NULL
            UNION ALL
            SELECT target_entity_key FROM memory_entity_relationships
             WHERE agent_id = :a AND valid_to IS NULL) x
        GROUP BY k
    ),
    raw AS (
        SELECT e.k, COALESCE(f.n, 0) AS n, COALESCE(f.r, 0) AS r, COALESCE(d.d, 0) AS d,
               GREATEST(e.last_seen_at, f.newest) AS seen
        FROM ents e LEFT JOIN facts f ON f.k = e.k LEFT JOIN deg d ON d.k = e.k
    ),
    mx AS (SELECT max(n) AS mn, max(r) AS mr, max(d) AS md FROM raw),
    scored AS (
        SELECT raw.k, round(CAST(
              :w_density * CASE WHEN mx.mn > 0 THEN ln(1 + raw.n) / ln(1 + mx.mn) ELSE 0 END
            + :w_recency * power(2.0, -GREATEST(0, extract(epoch FROM (CAST(:now AS timestamptz) - raw.seen)))
                                      / 86400.0 / :half_life)
            + :w_retrieval * CASE WHEN mx.mr > 0 THEN ln(1 + raw.r) / ln(1 + mx.mr) ELSE 0 END
            + :w_degree * CASE WHEN mx.md > 0 THEN ln(1 + raw.d) / ln(1 + mx.md) ELSE 0 END
          AS numeric), 4)::float8 AS s
        FROM raw, mx
    ),
    upd AS (
        UPDATE memory_entities e SET importance_score = scored.s
        FROM scored
        WHERE e.agent_id = :a AND e.canonical_key = scored.k
          AND e.importance_score IS DISTINCT FROM scored.s
        RETURNING e.canonical_key
    )
    SELECT (SELECT count(*) FROM scored) AS scored, (SELECT count(*) FROM upd) AS updated
    """
)


async def compute_entity_importance(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    now: datetime | None = None,
    top: int = 10,
) -> EntityImportanceResult:
    """Score every active entity of the agent from 0 to 1 (see the module docstring)."""
    config = config or MemoryConfig()
    timer = Timer()
    async with agent_transaction(engine, agent_id) as conn:
        clock = await agent_clock(conn, agent_id, now)
        row = (
            await conn.execute(
                _SCORE,
                {"a": agent_id, "now": clock,
                 "half_life": float(max(1, config.importance_recency_halflife_days)),
                 **{f"w_{k}": v for k, v in WEIGHTS.items()}},
            )
        ).one()
        from arandu_pipelines.read.importance import (
            refresh_fact_importance,  # read imports background
        )

        _, facts_updated = await refresh_fact_importance(conn, agent_id, clock)
        tops = (
            await conn.execute(
                text(
                    "SELECT canonical_key, display_name, entity_type, fact_count, importance_score "
                    "FROM memory_entities WHERE agent_id = :a AND is_active "
                    "AND importance_score IS NOT NULL "
                    "ORDER BY importance_score DESC, canonical_key LIMIT :n"
                ),
                {"a": agent_id, "n": top},
            )
        ).all()
    return EntityImportanceResult(
        entities_scored=int(row.scored),
        entities_updated=int(row.updated),
        facts_updated=facts_updated,
        top_entities=[(r.canonical_key, float(r.importance_score)) for r in tops],
        preview=[
            {"entity": r.canonical_key, "name": r.display_name, "type": r.entity_type,
             "facts": r.fact_count, "importance": round(float(r.importance_score), 3)}
            for r in tops
        ],
        reference_time=clock,
        duration_ms=timer.ms,
    )
