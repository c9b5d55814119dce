"""Periodic consolidation (L2) without an LLM: patterns, contradictions and trends.

The window is the last `consolidation_lookback_days` of the agent's clock (its newest event, see
`agent_clock`). With fewer than `consolidation_min_events` events in the window the run is
skipped. Otherwise these deterministic detectors run, each a single query, and their findings
are upserted into `memory_meta_observations` (identity = type + fingerprint, so a re-run over
the same data writes nothing):

* **pattern / reinforced fact** — an active fact the agent heard again at least
  `PATTERN_MIN_REINFORCEMENTS` times (``reinforcement_count``), last confirmed or first stated in
  the window: "Rafael keeps mentioning: Rafael loves cycling (3 times)."
* **pattern / recurring attribute** — one entity, one multi-valued attribute (e.g. ``activity``,
  ``hobby``; single-valued ones such as ``location`` are trends instead), stated in at least
  `PATTERN_MIN_EVENTS` different messages in the window: "Rafael often talks about activity: ...".
* **contradiction** — two or more active facts of one entity for a single-valued attribute
  (``keys.SINGLE_VALUED_ATTRIBUTES``) with different values. Not windowed: it holds until
  resolved, and a contradiction no longer present is deactivated.
* **trend / change** — a fact in the window that superseded an earlier version
  (``supersedes_fact_id``): "Rafael's location changed: lived in São Paulo → moved to Rio."

With an `llm`, one more detector runs: the active facts of the window (at most
`LLM_MAX_FACTS`) go to the LLM, which returns patterns, insights, contradictions and trends, each
citing the facts it rests on. Answers are validated (known type, English title and text, at least
one cited fact of the window); an observation's fingerprint is its type plus its sorted supporting
fact ids, so a re-run over the same facts updates it in place instead of adding a copy. The call
is made before the agent's lock is taken; a failed call (recorded in `llm_errors`) leaves the
deterministic result alone. With an LLM, an active contradiction whose facts are all still
active stays active even when the offline detector does not see it (the LLM's).
Event emotions are tagged by `emotions.materialize_emotional_trends`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import (
    Observation,
    Timer,
    agent_clock,
    agent_transaction,
    deactivate_observations,
    fingerprint,
    upsert_observations,
)
from arandu_pipelines.background._llm import LLMCallError, ask, english_text, error_note
from arandu_pipelines.background.results import ConsolidationResult
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import SINGLE_VALUED_ATTRIBUTES

PATTERN_MIN_REINFORCEMENTS = 2
PATTERN_MIN_EVENTS = 3

_REINFORCED = text(
    """
    SELECT f.id::text AS id, f.entity_key, COALESCE(f.entity_name, f.entity_key) AS name,
           f.fact_text, f.reinforcement_count AS n, f.source_event_id::text AS event_id
    FROM memory_facts f
    WHERE f.agent_id = :a AND f.valid_to IS NULL AND f.reinforcement_count >= :min_n
      AND (f.valid_from >= :start OR f.last_confirmed_at >= :start)
    ORDER BY f.reinforcement_count DESC, f.id
    LIMIT 200
    """
)

_RECURRING = text(
    """
    SELECT f.entity_key, COALESCE(max(f.entity_name), f.entity_key) AS name, f.attribute_key,
           count(DISTINCT f.source_event_id) AS events,
           (array_agg(DISTINCT COALESCE(f.value_text, f.fact_text)))[1:8] AS vals,
           (array_agg(f.id::text ORDER BY f.valid_from, f.id))[1:20] AS fact_ids,
           (array_agg(DISTINCT f.source_event_id::text) FILTER (WHERE f.source_event_id IS NOT NULL))[1:20]
               AS event_ids
    FROM memory_facts f
    WHERE f.agent_id = :a AND f.attribute_key IS NOT NULL
      AND NOT (f.attribute_key = ANY(CAST(:single AS text[])))
      AND f.valid_from >= :start AND f.valid_from <= :clock
    GROUP BY f.entity_key, f.attribute_key
    HAVING count(DISTINCT f.source_event_id) >= :min_events
    ORDER BY count(DISTINCT f.source_event_id) DESC, f.entity_key, f.attribute_key
    LIMIT 200
    """
)

_CONTRADICTIONS = text(
    """
    SELECT f.entity_key, COALESCE(max(f.entity_name), f.entity_key) AS name, f.attribute_key,
           array_agg(f.fact_text ORDER BY f.valid_from, f.id) AS texts,
           array_agg(f.id::text ORDER BY f.valid_from, f.id) AS fact_ids,
           (array_agg(f.source_event_id::text ORDER BY f.valid_from, f.id)
                FILTER (WHERE f.source_event_id IS NOT NULL)) AS event_ids
    FROM memory_facts f
    WHERE f.agent_id = :a AND f.valid_to IS NULL
      AND f.attribute_key = ANY(CAST(:single AS text[]))
    GROUP BY f.entity_key, f.attribute_key
    HAVING count(DISTINCT lower(COALESCE(f.value_text, f.fact_text))) > 1
    ORDER BY f.entity_key, f.attribute_key
    LIMIT 200
    """
)

_CHANGES = text(
    """
    SELECT n.id::text AS id, n.entity_key, COALESCE(n.entity_name, n.entity_key) AS name,
           COALESCE(n.attribute_key, 'fact') AS attribute_key, o.fact_text AS old_text,
           n.fact_text AS new_text, n.valid_from, o.id::text AS old_id,
           n.source_event_id::text AS event_id, o.source_event_id::text AS old_event_id
    FROM memory_facts n JOIN memory_facts o ON o.id = n.supersedes_fact_id
    WHERE n.agent_id = :a AND n.valid_from >= :start AND n.valid_from <= :clock
    ORDER BY n.valid_from, n.id
    LIMIT 200
    """
)


def _ids(*groups: Any) -> list[str]:
    out: list[str] = []
    for g in groups:
        for x in g or []:
            if x and x not in out:
                out.append(x)
    return out


async def run_consolidation(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    llm: Any = None,
    now: datetime | None = None,
) -> ConsolidationResult:
    """Detect patterns, contradictions and trends; store them as meta-observations."""
    config = config or MemoryConfig()
    timer = Timer()
    llm_obs: list[Observation] = []
    llm_errors: list[str] = []
    tokens = None
    if llm is not None:
        from arandu_pipelines.types import TokenUsage

        tokens = TokenUsage()
        try:
            llm_obs = await _llm_observations(engine, agent_id, config, llm, now, tokens)
        except LLMCallError as exc:
            llm_errors.append(error_note("consolidation", exc))
    async with agent_transaction(engine, agent_id) as conn:
        clock = await agent_clock(conn, agent_id, now)
        start = (await conn.execute(
            text("SELECT CAST(:c AS timestamptz) - make_interval(days => :d)"),
            {"c": clock, "d": int(config.consolidation_lookback_days)})).scalar_one()
        events = (await conn.execute(
            text("SELECT count(*) FROM memory_events WHERE agent_id = :a "
                 "AND occurred_at >= :s AND occurred_at <= :c"),
            {"a": agent_id, "s": start, "c": clock})).scalar_one()
        result = ConsolidationResult(events_processed=int(events), reference_time=clock)
        if tokens is not None:
            result.tokens, result.llm_errors = tokens, llm_errors
        if events < config.consolidation_min_events:
            result.skipped = True
            result.skip_reason = (f"{events} event(s) in the last {config.consolidation_lookback_days} "
                                  f"days; at least {config.consolidation_min_events} needed")
            result.duration_ms = timer.ms
            return result
        p = {"a": agent_id, "start": start, "clock": clock, "single": sorted(SINGLE_VALUED_ATTRIBUTES),
             "min_n": PATTERN_MIN_REINFORCEMENTS, "min_events": PATTERN_MIN_EVENTS}
        obs: list[Observation] = []
        for r in await conn.execute(_REINFORCED, p):
            obs.append(Observation(
                "pattern", f"Recurring: {r.fact_text}"[:256],
                f"{r.name} keeps mentioning: {r.fact_text} ({r.n + 1} times).",
                fingerprint("reinforced", r.id), [r.entity_key], [r.id], _ids([r.event_id]),
                confidence=min(0.95, 0.6 + 0.05 * r.n), importance=0.6, times_reinforced=int(r.n)))
        for r in await conn.execute(_RECURRING, p):
            vals = sorted(str(v) for v in (r.vals or []))
            obs.append(Observation(
                "pattern", f"{r.name} often talks about {r.attribute_key}"[:256],
                f"{r.name} often talks about {r.attribute_key} ({r.events} messages in the last "
                f"{config.consolidation_lookback_days} days): {'; '.join(vals)}.",
                fingerprint("recurring", r.entity_key, r.attribute_key), [r.entity_key],
                list(r.fact_ids or []), _ids(r.event_ids),
                confidence=min(0.9, 0.5 + 0.1 * int(r.events)), importance=0.55,
                times_reinforced=int(r.events) - 1))
        contradictions: list[str] = []
        for r in await conn.execute(_CONTRADICTIONS, p):
            fp = fingerprint("contradiction", r.entity_key, r.attribute_key)
            contradictions.append(fp)
            obs.append(Observation(
                "contradiction", f"Conflicting {r.attribute_key} for {r.name}"[:256],
                f"{r.name} has {len(r.texts)} active facts for {r.attribute_key}, which holds one "
                f"value at a time: " + " | ".join(r.texts) + ". One of them needs confirmation.",
                fp, [r.entity_key], list(r.fact_ids), _ids(r.event_ids),
                confidence=0.9, importance=0.8, times_reinforced=len(r.texts) - 1))
        for r in await conn.execute(_CHANGES, p):
            obs.append(Observation(
                "trend", f"{r.name}: {r.attribute_key} changed"[:256],
                f"{r.name}'s {r.attribute_key} changed on {r.valid_from:%Y-%m-%d}: "
                f"{r.old_text} → {r.new_text}.",
                fingerprint("change", r.id), [r.entity_key], [r.old_id, r.id],
                _ids([r.old_event_id, r.event_id]), confidence=0.85, importance=0.7))
        obs += llm_obs
        contradictions += [o.fingerprint for o in llm_obs if o.observation_type == "contradiction"]
        if llm is not None:  # earlier LLM contradictions hold while all their facts are active
            contradictions += list((await conn.execute(text(
                "SELECT m.fingerprint FROM memory_meta_observations m WHERE m.agent_id = :a "
                "AND m.observation_type = 'contradiction' AND m.is_active "
                "AND jsonb_array_length(m.supporting_fact_ids) > 0 AND NOT EXISTS ("
                "SELECT 1 FROM jsonb_array_elements_text(m.supporting_fact_ids) x(id) WHERE NOT EXISTS ("
                "SELECT 1 FROM memory_facts f WHERE f.agent_id = :a AND f.id::text = x.id "
                "AND f.valid_to IS NULL))"), {"a": agent_id})).scalars())
        outcome = await upsert_observations(conn, agent_id, obs)
        result.observations_deactivated = await deactivate_observations(
            conn, agent_id, ["contradiction"], contradictions)
        preview = (await conn.execute(
            text("SELECT observation_type, title, confidence FROM memory_meta_observations "
                 "WHERE agent_id = :a AND is_active AND observation_type IN "
                 "('pattern', 'contradiction', 'trend', 'insight') "
                 "ORDER BY importance DESC, last_reinforced_at DESC, title LIMIT 10"),
            {"a": agent_id})).all()
    result.observations_created = outcome.created
    result.observations_reinforced = outcome.updated
    for o in obs:
        result.by_type[o.observation_type] = result.by_type.get(o.observation_type, 0) + 1
    result.preview = [{"type": r.observation_type, "title": r.title,
                       "confidence": round(float(r.confidence), 2)} for r in preview]
    result.duration_ms = timer.ms
    return result


# ---- the LLM detector -------------------------------------------------------------------------------
CONSOLIDATION_TASK = "consolidation"
LLM_MAX_FACTS = 60
LLM_TYPES = ("pattern", "insight", "contradiction", "trend")
_CONSOLIDATION_SYSTEM = (
    "You consolidate an agent's recent memory. From the facts below, find: patterns (recurring "
    "behaviour or topics), insights (emergent understanding from several facts), contradictions "
    "(facts that cannot all be true now) and trends (changes over time). Report only what the facts "
    "support; cite them by label. Return an empty list when there is nothing worth noting.\n"
    'Format: {"observations": [{"type": "pattern|insight|contradiction|trend", "title": "<short>", '
    '"text": "<one or two sentences>", "facts": ["F1", "F2"], "confidence": 0.0-1.0}]}'
)
_WINDOW_FACTS = text(
    """
    SELECT f.id::text AS id, f.entity_key, COALESCE(f.entity_name, f.entity_key) AS name, f.fact_text,
           f.valid_from, f.source_event_id::text AS event_id
    FROM memory_facts f
    WHERE f.agent_id = :a AND f.valid_to IS NULL
      AND ((f.valid_from >= :start AND f.valid_from <= :clock) OR f.last_confirmed_at >= :start)
    ORDER BY f.importance DESC, f.valid_from DESC, f.id
    LIMIT :n
    """
)


async def _llm_observations(engine: Any, agent_id: str, config: MemoryConfig, llm: Any,
                            now: datetime | None, tokens: Any) -> list[Observation]:
    from arandu_pipelines.background._common import engine_of

    async with engine_of(engine).connect() as conn:
        clock = await agent_clock(conn, agent_id, now)
        start = (await conn.execute(
            text("SELECT CAST(:c AS timestamptz) - make_interval(days => :d)"),
            {"c": clock, "d": int(config.consolidation_lookback_days)})).scalar_one()
        events = (await conn.execute(
            text("SELECT count(*) FROM memory_events WHERE agent_id = :a "
                 "AND occurred_at >= :s AND occurred_at <= :c"),
            {"a": agent_id, "s": start, "c": clock})).scalar_one()
        if events < config.consolidation_min_events:
            return []
        facts = (await conn.execute(_WINDOW_FACTS, {"a": agent_id, "start": start, "clock": clock,
                                                     "n": LLM_MAX_FACTS})).all()
    if len(facts) < 2:
        return []
    facts = sorted(facts, key=lambda f: (f.valid_from, f.id))
    label = {f"F{i}": f for i, f in enumerate(facts, start=1)}
    listing = "\n".join(f"{k}: [{f.valid_from:%Y-%m-%d}] {f.fact_text}" for k, f in label.items())

    def validate(v: Any) -> list[Observation]:
        items = v.get("observations") if isinstance(v, dict) else None
        if not isinstance(items, list):
            raise TypeError("no observations list")
        out: dict[str, Observation] = {}
        for it in items[:20]:
            if not isinstance(it, dict) or it.get("type") not in LLM_TYPES:
                continue
            cited = [label[x] for x in dict.fromkeys(map(str, it.get("facts") or [])) if x in label]
            if not cited:
                continue
            try:
                title = english_text(it.get("title"), min_words=2, max_tokens=60, max_chars=256)
                body = english_text(it.get("text"), min_words=4, max_tokens=200)
            except ValueError:
                continue
            ids = sorted(f.id for f in cited)
            conf = it.get("confidence")
            conf = float(conf) if isinstance(conf, (int, float)) and not isinstance(conf, bool) else 0.7
            fp = fingerprint("llm", it["type"], *ids)
            out[fp] = Observation(
                it["type"], title, body, fp, sorted({f.entity_key for f in cited}), ids,
                _ids([f.event_id for f in cited]), confidence=round(min(max(conf, 0.0), 0.95), 4),
                importance={"insight": 0.65, "contradiction": 0.8, "trend": 0.7}.get(it["type"], 0.6),
                times_reinforced=len(ids) - 1)
        return list(out.values())

    return await ask(llm, CONSOLIDATION_TASK, _CONSOLIDATION_SYSTEM,
                     f"Window: {start:%Y-%m-%d} to {clock:%Y-%m-%d}\nFacts:\n{listing}",
                     usage=tokens, validate=validate, max_tokens=1500)
