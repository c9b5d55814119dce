"""Sleep-time job 2 (entity summaries) and L3 profile consolidation, offline and deterministic.

Both read an entity's active facts and write text back to `memory_entities`; both have an LLM
version (the `llm` argument; see `_llm_refresh` below). Offline:

* **summary** (`summary_text`) — the entity's three most important active facts, as sentences:
  facts where it is the subject first, then facts that mention it; ties by confidence, then by
  recency, then by id, so the text is the same on every run over the same facts.
* **profile** (`profile_text`) — "<name> (<type>)." followed by up to 50 active facts (subject
  first, by importance) and its active relationships ("Relationships: Rafael partner of Ana; ...").

Stale means: no text yet, or refreshed longer ago than `summary_refresh_interval_days`, or a
fact linked to the entity was created or closed after the last refresh. Stale entities are
refreshed in importance order (run `compute_entity_importance` first); `limit` caps one run
(default: unlimited offline — a string aggregate costs nothing — and the spec's 10 summaries /
20 profiles per run when an LLM writes them). Entities without any active fact are skipped.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import Timer, agent_transaction, engine_of
from arandu_pipelines.background._llm import LLMCallError, ask, english_text, error_note
from arandu_pipelines.background.results import (
    ProfileConsolidationResult,
    SummaryRefreshResult,
)
from arandu_pipelines.config import MemoryConfig

SUMMARY_FACTS = 3
PROFILE_FACTS = 50
LLM_SUMMARY_LIMIT = 10
LLM_PROFILE_LIMIT = 20


def _stale(text_col: str, at_col: str) -> str:
    return f"""
        e.{text_col} IS NULL OR e.{at_col} IS NULL
        OR e.{at_col} < now() - make_interval(days => :interval_days)
        OR EXISTS (SELECT 1 FROM memory_fact_entity_links l JOIN memory_facts f ON f.id = l.fact_id
                   WHERE l.agent_id = :a AND l.entity_key = e.canonical_key
                     AND (f.created_at > e.{at_col} OR f.invalidated_at > e.{at_col}))
    """


def _refresh_sql(kind: str) -> str:
    if kind == "summary":
        text_col, at_col = "summary_text", "summary_refreshed_at"
        order = "importance_score DESC NULLS LAST, canonical_key"
        build = """
            SELECT t.k, string_agg(t.sentence, ' ' ORDER BY t.rn) AS body
            FROM ranked t WHERE t.rn <= :n_facts GROUP BY t.k
        """
    else:
        text_col, at_col = "profile_text", "profile_refreshed_at"
        order = "fact_count DESC, importance_score DESC NULLS LAST, canonical_key"
        build = """
            SELECT c.k,
                   c.display_name || ' (' || c.entity_type || ').'
                   || COALESCE(' ' || (SELECT string_agg(t.sentence, ' ' ORDER BY t.rn)
                                       FROM ranked t WHERE t.k = c.k AND t.rn <= :n_facts), '')
                   || COALESCE(' Relationships: ' || (
                        SELECT string_agg(r.phrase, '; ' ORDER BY r.phrase) FROM rels r
                        WHERE r.k = c.k) || '.', '') AS body
            FROM cand c WHERE EXISTS (SELECT 1 FROM ranked t WHERE t.k = c.k)
        """
    return f"""
    WITH cand AS (
        SELECT e.canonical_key AS k, COALESCE(e.display_name, e.canonical_key) AS display_name,
               e.entity_type
        FROM memory_entities e
        WHERE e.agent_id = :a AND e.is_active AND ({_stale(text_col, at_col)})
        ORDER BY {order}
        LIMIT :lim
    ),
    ranked AS (
        SELECT l.entity_key AS k,
               CASE WHEN right(btrim(f.fact_text), 1) IN ('.', '!', '?') THEN btrim(f.fact_text)
                    ELSE btrim(f.fact_text) || '.' END AS sentence,
               row_number() OVER (PARTITION BY l.entity_key ORDER BY l.is_primary DESC,
                   f.importance DESC, f.confidence DESC, f.valid_from DESC, f.id) AS rn
        FROM cand c
        JOIN memory_fact_entity_links l ON l.agent_id = :a AND l.entity_key = c.k
        JOIN memory_facts f ON f.id = l.fact_id AND f.valid_to IS NULL
    ),
    rels AS (
        SELECT c.k, c.display_name || ' ' || replace(r.rel_type, '_', ' ') || ' '
               || COALESCE(o.display_name, r.target_entity_key) AS phrase
        FROM cand c JOIN memory_entity_relationships r
          ON r.agent_id = :a AND r.source_entity_key = c.k AND r.valid_to IS NULL
        LEFT JOIN memory_entities o ON o.agent_id = :a AND o.canonical_key = r.target_entity_key
        UNION
        SELECT c.k, COALESCE(o.display_name, r.source_entity_key) || ' '
               || replace(r.rel_type, '_', ' ') || ' ' || c.display_name AS phrase
        FROM cand c JOIN memory_entity_relationships r
          ON r.agent_id = :a AND r.target_entity_key = c.k AND r.valid_to IS NULL
        LEFT JOIN memory_entities o ON o.agent_id = :a AND o.canonical_key = r.source_entity_key
    ),
    built AS ({build}),
    upd AS (
        UPDATE memory_entities e SET {text_col} = b.body, {at_col} = now()
        FROM built b
        WHERE e.agent_id = :a AND e.canonical_key = b.k
        RETURNING e.canonical_key, (b.body IS DISTINCT FROM
            (SELECT x.{text_col} FROM memory_entities x WHERE x.id = e.id)) AS changed
    )
    SELECT (SELECT count(*) FROM cand) AS candidates,
           (SELECT count(*) FROM upd) AS refreshed,
           (SELECT count(*) FROM upd WHERE changed) AS changed
    """


async def _refresh(engine: Any, agent_id: str, kind: str, config: MemoryConfig,
                   limit: int | None) -> tuple[int, int, int, list[dict[str, Any]]]:
    col = "summary_text" if kind == "summary" else "profile_text"
    async with agent_transaction(engine, agent_id) as conn:
        row = (
            await conn.execute(
                text(_refresh_sql(kind)),
                {"a": agent_id, "interval_days": int(config.summary_refresh_interval_days),
                 "n_facts": SUMMARY_FACTS if kind == "summary" else PROFILE_FACTS,
                 "lim": limit if limit is not None else 2**31 - 1},
            )
        ).one()
        preview = (
            await conn.execute(
                text(
                    f"SELECT canonical_key, importance_score, {col} AS body FROM memory_entities "
                    f"WHERE agent_id = :a AND is_active AND {col} IS NOT NULL "
                    "ORDER BY importance_score DESC NULLS LAST, canonical_key LIMIT 8"
                ),
                {"a": agent_id},
            )
        ).all()
    rows = [{"entity": r.canonical_key, kind: (r.body[:160] + "…") if len(r.body) > 160 else r.body}
            for r in preview]
    return int(row.candidates), int(row.refreshed), int(row.changed), rows


async def refresh_entity_summaries(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    llm: Any = None,
    limit: int | None = None,
) -> SummaryRefreshResult:
    """Refresh stale `summary_text` of the agent's entities (deterministic offline)."""
    timer = Timer()
    result = SummaryRefreshResult()
    if limit is None and llm is not None:
        limit = LLM_SUMMARY_LIMIT
    cand, refreshed, changed, result.preview = await _run(engine, agent_id, "summary", config, llm, limit, result)
    result.summaries_refreshed, result.summaries_skipped = refreshed, cand - refreshed
    result.summaries_changed, result.duration_ms = changed, timer.ms
    return result


async def consolidate_entity_profiles(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    llm: Any = None,
    limit: int | None = None,
) -> ProfileConsolidationResult:
    """Rebuild stale `profile_text` from all active facts and relationships (L3, offline)."""
    timer = Timer()
    result = ProfileConsolidationResult()
    if limit is None and llm is not None:
        limit = LLM_PROFILE_LIMIT
    cand, refreshed, changed, result.preview = await _run(engine, agent_id, "profile", config, llm, limit, result)
    result.profiles_consolidated, result.profiles_skipped = refreshed, cand - refreshed
    result.profiles_changed, result.duration_ms = changed, timer.ms
    return result


async def _run(engine: Any, agent_id: str, kind: str, config: MemoryConfig | None, llm: Any,
               limit: int | None, result: Any) -> tuple[int, int, int, list[dict[str, Any]]]:
    """The LLM path when an LLM is given, else the deterministic one: (candidates, refreshed,
    changed, preview rows)."""
    if llm is not None:
        return await _llm_refresh(engine, agent_id, kind, config or MemoryConfig(), limit, llm, result)
    return await _refresh(engine, agent_id, kind, config or MemoryConfig(), limit)


# ---- the LLM version --------------------------------------------------------------------------
SUMMARY_TASK = "entity_summary"
PROFILE_TASK = "entity_profile"
LLM_SUMMARY_FACTS = 15
_SUMMARY_SYSTEM = (
    "Write a 2-3 sentence summary of the entity from its facts: a higher-level view of who or "
    "what it is and what matters about it. Use only the facts given. "
    'Format: {"summary": "..."}'
)
_PROFILE_SYSTEM = (
    "Write a comprehensive profile of the entity (100-300 tokens) covering ALL major aspects "
    "present in its facts and relationships (identity, work, places, people, preferences, recent "
    "changes). Use only the information given; no speculation. "
    'Format: {"profile": "..."}'
)


async def _llm_refresh(engine: Any, agent_id: str, kind: str, config: MemoryConfig, limit: int | None,
                       llm: Any, result: Any) -> tuple[int, int, int, list[dict[str, Any]]]:
    """Stale entities -> one LLM call each -> the new text. Reads, then calls the LLM without
    holding the agent's lock, then writes in one short transaction. A failed call leaves the
    entity's old text (and its refresh time, so it is retried on the next run)."""
    text_col, at_col = ("summary_text", "summary_refreshed_at") if kind == "summary" else \
        ("profile_text", "profile_refreshed_at")
    order = "importance_score DESC NULLS LAST, canonical_key" if kind == "summary" else \
        "fact_count DESC, importance_score DESC NULLS LAST, canonical_key"
    n_facts = LLM_SUMMARY_FACTS if kind == "summary" else PROFILE_FACTS
    p = {"a": agent_id, "interval_days": int(config.summary_refresh_interval_days),
         "lim": limit if limit is not None else 2**31 - 1}
    async with engine_of(engine).connect() as conn:
        cands = (await conn.execute(text(
            "SELECT e.canonical_key AS k, COALESCE(e.display_name, e.canonical_key) AS name, "
            f"e.entity_type, e.{text_col} AS old_text FROM memory_entities e WHERE e.agent_id = :a "
            f"AND e.is_active AND ({_stale(text_col, at_col)}) ORDER BY {order} LIMIT :lim"), p)).all()
        keys = [c.k for c in cands]
        facts: dict[str, list[str]] = {}
        rels: dict[str, list[str]] = {}
        if keys:
            for r in await conn.execute(text(
                    "SELECT l.entity_key AS k, f.fact_text FROM memory_fact_entity_links l "
                    "JOIN memory_facts f ON f.id = l.fact_id AND f.valid_to IS NULL "
                    "WHERE l.agent_id = :a AND l.entity_key = ANY(CAST(:k AS text[])) "
                    "ORDER BY l.entity_key, l.is_primary DESC, f.importance DESC, f.confidence DESC, "
                    "f.valid_from DESC, f.id"), {"a": agent_id, "k": keys}):
                if len(facts.setdefault(r.k, [])) < n_facts:
                    facts[r.k].append(r.fact_text.strip())
            if kind == "profile":
                for r in await conn.execute(text(
                        "SELECT r.source_entity_key AS src, r.rel_type, r.target_entity_key AS dst, "
                        "COALESCE(so.display_name, r.source_entity_key) AS src_name, "
                        "COALESCE(tg.display_name, r.target_entity_key) AS dst_name "
                        "FROM memory_entity_relationships r "
                        "LEFT JOIN memory_entities so ON so.agent_id = :a AND so.canonical_key = r.source_entity_key "
                        "LEFT JOIN memory_entities tg ON tg.agent_id = :a AND tg.canonical_key = r.target_entity_key "
                        "WHERE r.agent_id = :a AND r.valid_to IS NULL "
                        "AND (r.source_entity_key = ANY(CAST(:k AS text[])) OR "
                        "r.target_entity_key = ANY(CAST(:k AS text[]))) "
                        "ORDER BY r.source_entity_key, r.rel_type, r.target_entity_key"),
                        {"a": agent_id, "k": keys}):
                    phrase = f"{r.src_name} {r.rel_type.replace('_', ' ')} {r.dst_name}"
                    for k in sorted({r.src, r.dst} & set(keys)):
                        rels.setdefault(k, []).append(phrase)
    field_name = "summary" if kind == "summary" else "profile"
    max_tokens = 200 if kind == "summary" else 400

    def validate(v: Any) -> str:
        return english_text(v.get(field_name) if isinstance(v, dict) else None,
                            min_words=4, max_tokens=max_tokens)

    new: dict[str, str] = {}
    for c in cands:
        if not facts.get(c.k):
            continue  # nothing to summarise: skipped, as offline
        user = f"Entity: {c.name} ({c.entity_type})\nFacts:\n" + "\n".join(f"- {f}" for f in facts[c.k])
        if rels.get(c.k):
            user += "\nRelationships:\n" + "\n".join(f"- {x}" for x in rels[c.k])
        if c.old_text and kind == "profile":
            user += f"\nPrevious profile (update it): {c.old_text}"
        try:
            new[c.k] = await ask(llm, SUMMARY_TASK if kind == "summary" else PROFILE_TASK,
                                 _SUMMARY_SYSTEM if kind == "summary" else _PROFILE_SYSTEM, user,
                                 usage=result.tokens, validate=validate, max_tokens=max_tokens + 50)
        except LLMCallError as exc:
            result.llm_errors.append(error_note(c.k, exc))
    changed = sum(1 for c in cands if c.k in new and new[c.k] != c.old_text)
    if new:
        async with agent_transaction(engine, agent_id) as conn:
            await conn.execute(text(
                f"UPDATE memory_entities e SET {text_col} = q.t, {at_col} = now() "
                "FROM unnest(CAST(:k AS text[]), CAST(:t AS text[])) AS q(k, t) "
                "WHERE e.agent_id = :a AND e.canonical_key = q.k"),
                {"a": agent_id, "k": list(new), "t": list(new.values())})
    preview = [{"entity": k, kind: (t[:160] + "…") if len(t) > 160 else t} for k, t in list(new.items())[:8]]
    refreshed = len(new)
    return len(cands), refreshed, changed, preview  # skipped = no facts or a failed LLM call
