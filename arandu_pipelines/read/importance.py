"""Dynamic importance (spec 001, `compute_dynamic_importance`): a fact's importance as it is used.

    importance = base
                 x (1 + RETRIEVAL_WEIGHT * ln(1 + times_retrieved))      retrieval boost, saturating
                 x (1 + RECENT_USE_WEIGHT * 2^(-days since last use / 7))  recency of use, half-life 7 d
                 x 0.8^user_correction_count                               correction penalty
                 x 1.3 if the fact supports an active meta-observation     pattern boost
    clamped to [0.05, 3.0]

The spec names the components and the clamp, not how they combine; a product keeps each one a
relative change of the base (a never-used fact keeps its write-time importance). Days since the
last use are whole days.

Where it acts (spec 000: the ranking uses "the raw importance value from the database", which
"evolves over time via the background importance job"): `refresh_fact_importance` below is that
job, one set-based UPDATE run by the importance job (background/importance.py, Dagster asset
`entity_importance`, `run_consolidation`). It recomputes every used active fact from its base
and writes the result, so the ranking (0.10 x importance) and spreading activation (each reached
entity contributes its most important facts) act on it. The base is the write-time value the
spec defines: the importance category's value (IMPORTANCE_CATEGORY_MAP), else 0.5; the job
never compounds (a re-run with the same counters and clock is a no-op). Facts never used,
never corrected and in no pattern keep their write-time importance untouched.

Not at read time: the counters are written by the retrieves themselves (read/counters.py,
<= 1 s later), so ranking on a value computed from them inside retrieve() gave the same
question, asked twice a second apart, another order. Between two runs of the job the stored
value is fixed and retrieve() stays deterministic.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

RETRIEVAL_WEIGHT = 0.1
RECENT_USE_WEIGHT = 0.2
RECENT_USE_HALF_LIFE_DAYS = 7.0
CORRECTION_PENALTY = 0.8
PATTERN_BOOST = 1.3
MIN_IMPORTANCE, MAX_IMPORTANCE = 0.05, 3.0


def compute_dynamic_importance(
    base_importance: float,
    times_retrieved: int,
    last_retrieved_at: datetime | None,
    user_correction_count: int,
    is_in_active_pattern: bool,
    now: datetime | None = None,
) -> float:
    """Importance after use (module docstring), in [0.05, 3.0]."""
    now = now or datetime.now(UTC)
    value = max(float(base_importance), 0.0)
    value *= 1.0 + RETRIEVAL_WEIGHT * math.log1p(max(int(times_retrieved or 0), 0))
    if last_retrieved_at is not None:
        days = max(math.floor((now - last_retrieved_at).total_seconds() / 86400.0), 0)
        value *= 1.0 + RECENT_USE_WEIGHT * 2 ** (-days / RECENT_USE_HALF_LIFE_DAYS)
    value *= CORRECTION_PENALTY ** max(int(user_correction_count or 0), 0)
    if is_in_active_pattern:
        value *= PATTERN_BOOST
    return min(max(value, MIN_IMPORTANCE), MAX_IMPORTANCE)


# The spec's write-time importance per importance category (write/pipeline.py stores these);
# a fact without a known category starts at DEFAULT_BASE ("Otherwise, starts at 0.5").
DEFAULT_BASE = 0.5


# compute_dynamic_importance in SQL, term by term (the test checks both agree); the base is the
# category's value from the :bases JSON object, else :base0.
_REFRESH = text(
    """
    WITH pat AS (
        SELECT DISTINCT x.fid FROM memory_meta_observations m,
               LATERAL jsonb_array_elements_text(m.supporting_fact_ids) AS x(fid)
        WHERE m.agent_id = :a AND m.is_active AND jsonb_typeof(m.supporting_fact_ids) = 'array'
          AND m.observation_type <> 'contradiction'  -- a conflict is not a pattern
    ),
    calc AS (
        SELECT f.id, round(CAST(LEAST(:hi, GREATEST(:lo,
                 COALESCE(CAST(CAST(:bases AS jsonb) ->> f.category AS float8), :base0)
               * (1 + :w_ret * ln(1 + GREATEST(f.times_retrieved, 0)))
               * CASE WHEN f.last_retrieved_at IS NULL THEN 1 ELSE
                   1 + :w_use * power(2.0, -GREATEST(floor(extract(epoch FROM
                       (CAST(:now AS timestamptz) - f.last_retrieved_at)) / 86400.0), 0) / :half) END
               * power(:corr, GREATEST(f.user_correction_count, 0))
               * CASE WHEN pat.fid IS NULL THEN 1 ELSE :boost END)) AS numeric), 4)::float8 AS v
        FROM memory_facts f LEFT JOIN pat ON pat.fid = f.id::text
        WHERE f.agent_id = :a AND f.valid_to IS NULL
          AND (f.times_retrieved > 0 OR f.user_correction_count > 0 OR pat.fid IS NOT NULL)
    ),
    upd AS (
        UPDATE memory_facts f SET importance = calc.v FROM calc
        WHERE f.agent_id = :a AND f.id = calc.id AND f.importance IS DISTINCT FROM calc.v
        RETURNING f.id
    )
    SELECT (SELECT count(*) FROM calc) AS scored, (SELECT count(*) FROM upd) AS updated
    """
)


async def refresh_fact_importance(conn: AsyncConnection, agent_id: str, now: datetime) -> tuple[int, int]:
    """The background importance job for facts (module docstring): writes each used active
    fact's dynamic importance (rounded to 4 decimals, only when it changes). Returns (facts
    scored, facts updated); a re-run with the same counters and `now` updates nothing."""
    from arandu_pipelines.write.pipeline import IMPORTANCE_CATEGORY_MAP

    row = (await conn.execute(_REFRESH, {
        "a": agent_id, "now": now, "bases": json.dumps(IMPORTANCE_CATEGORY_MAP), "base0": DEFAULT_BASE, "lo": MIN_IMPORTANCE, "hi": MAX_IMPORTANCE, "w_ret": RETRIEVAL_WEIGHT,
        "w_use": RECENT_USE_WEIGHT, "half": RECENT_USE_HALF_LIFE_DAYS, "corr": CORRECTION_PENALTY,
        "boost": PATTERN_BOOST})).one()
    return int(row.scored), int(row.updated)


__all__ = ["compute_dynamic_importance", "refresh_fact_importance"]
