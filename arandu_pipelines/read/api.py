"""The read pipeline's stages with the specification's signatures (its `arandu.read`).

Each is an adapter over the stage `retrieve()` itself runs: the planner (planner.py), entity
resolution (entities.py), graph BFS (graph.py), spreading activation (spreading.py), semantic
event search (semantic.py), the directives of procedural memory (background/directives.py).
The spec passes an `AsyncSession`; here a session, an engine or a MemoryClient is accepted and
the stage reads on a connection of its own (reads only, nothing to commit).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.background import directives as _directives
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.read import graph as _graph
from arandu_pipelines.read import planner as _planner
from arandu_pipelines.read import semantic as _semantic
from arandu_pipelines.read import spreading as _spreading
from arandu_pipelines.read.candidate import RetrievalCandidate
from arandu_pipelines.read.entities import resolve_query_entities
from arandu_pipelines.read.plan import PatternQuery, RetrievalPlan
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.types import RetrieveResult
from arandu_pipelines.store.targets import DatabaseTarget, engine_from, one_of
from arandu_pipelines.types import PipelineTrace

DirectiveBlock = _directives.DirectiveBlock
ContradictionResult = _directives.ContradictionResult
effective_confidence = _directives.effective_confidence
invalidate_directive_cache = _directives.invalidate_directive_cache


# ---- orchestrator ------------------------------------------------------------------------------
async def run_read_pipeline(
    session: DatabaseTarget,
    agent_id: str,
    query: str,
    llm: LLMProvider | None,
    embeddings: EmbeddingProvider | None,
    config: MemoryConfig | None = None,
    trace: PipelineTrace | None = None,
) -> RetrieveResult:
    """`MemoryClient.retrieve()` on the caller's database: plan, multi-signal retrieval, rerank
    (when `llm` is given and `config.enable_reranker`), format. The result has the spec's
    `facts`, `context`, `total_candidates`, `duration_ms` (and our events and sources). A given
    `trace` receives the stages' steps. Raises ValidationError for bad arguments."""
    # A facade over the client (one layer up): imported here, when called, because importing
    # the client imports read/ modules, whose package (this facade's) is then still loading.
    from arandu_pipelines.client import bound_client, settle

    client = bound_client(engine_from(session), llm, embeddings, config)
    try:
        result = await client.retrieve(agent_id, query, verbose=trace is not None)
    finally:
        await settle(client)
    if trace is not None and result.pipeline is not None:
        trace.steps.extend(result.pipeline.steps)
    return result


# ---- planner and query expansion ---------------------------------------------------------------
def plan_retrieval(
    query_text: str,
    schema_prefixes: list[str] | None = None,
    reference: datetime | None = None,
    timezone_name: str = "UTC",
) -> RetrievalPlan:
    """The deterministic plan of a query (no LLM, no database): strategy (`multi_signal` or
    `skip` for greetings), pattern queries for aggregation questions over the agent's entity
    types `schema_prefixes`, broadness and time windows (relative to `reference`, default now)."""
    if not isinstance(query_text, str):
        raise ValidationError(f"query_text must be a string, got {type(query_text).__name__}")
    return _planner.plan_retrieval(query_text, schema_prefixes,
                                   reference or datetime.now(UTC), timezone_name)


@dataclass
class ExpandedQuery:
    primed_entities: list[str] = field(default_factory=list)
    temporal_range: tuple[datetime, datetime] | None = None
    expanded_terms: list[str] = field(default_factory=list)


async def expand_query(
    session: DatabaseTarget,
    agent_id: str,
    query: str,
    plan: RetrievalPlan,
    llm: LLMProvider | None = None,
) -> ExpandedQuery:
    """Entity priming: the entities the query names (aliases, display names, speakers) and
    their direct neighbours in the relationship graph, the plan's time range, and the primed
    entities' names as extra terms. `llm` is accepted for the spec's signature and not used.
    Fail-safe as the spec says: any error gives an empty ExpandedQuery."""
    try:
        async with engine_from(session).connect() as conn:
            res = await resolve_query_entities(conn, agent_id, query)
            keys = list(dict.fromkeys([*res.keys, *plan.entities]))
            reach, _ = await _graph.bfs(conn, Scope(agent_id), keys, 1, 0.0) if keys else ({}, 0)
        primed = keys + sorted(k for k, r in reach.items() if r.hop == 1 and k not in keys)
        names = {**{k: r.name for k, r in reach.items() if r.name}, **res.names}
        folded = query.casefold()
        terms = [n for n in dict.fromkeys(names.get(k, "") for k in primed) if n and n.casefold() not in folded]
        window = plan.as_of_range
        if window is None and plan.time_windows:
            window = (plan.time_windows[0].start, plan.time_windows[0].end)
        return ExpandedQuery(primed, window, terms)
    except Exception:  # noqa: BLE001 - documented fail-safe
        return ExpandedQuery()


# ---- graph and spreading -----------------------------------------------------------------------
@dataclass
class GraphRetrievalResult:
    facts: list[dict[str, object]] = field(default_factory=list)
    neighbor_keys: list[str] = field(default_factory=list)
    edges_traversed: int = 0
    edges: list[dict[str, object]] = field(default_factory=list)


_EDGE = re.compile(r"^(?P<source>\S+) -(?P<relationship>.+?)-> (?P<target>\S+)$")


@dataclass(frozen=True)
class _Fact:
    id: str
    entity_key: str
    entity_name: str
    attribute_key: str | None
    fact_text: str
    confidence: float
    importance: float
    valid_from: datetime
    last_confirmed_at: datetime | None


async def _facts(conn: AsyncConnection, agent_id: str, ids: list[str]) -> dict[str, _Fact]:
    rows = (await conn.execute(text(
        "SELECT id::text AS id, entity_key, COALESCE(entity_name, entity_key) AS entity_name, attribute_key, "
        "fact_text, confidence, importance, valid_from, last_confirmed_at FROM memory_facts "
        "WHERE agent_id = :a AND id = ANY(CAST(:ids AS uuid[]))"), {"a": agent_id, "ids": ids})).all()
    return {r.id: _Fact(*r) for r in rows}


async def retrieve_graph_facts(
    session: DatabaseTarget,
    agent_id: str,
    entity_keys: list[str],
    *,
    min_confidence: float = 0.3,
    as_of_start: datetime | None = None,
    as_of_end: datetime | None = None,
    broad_query: bool = False,
    max_facts: int | None = None,
    query_text: str = "",
    min_edge_strength: float = 0.5,
) -> GraphRetrievalResult:
    """BFS over the relationship graph (2 hops) from `entity_keys`, facts of the entities reached
    scored `edge strength * recency * edge recency * query bonus`, best first, as dicts with
    `source="graph"`. `as_of_end` time-travels (facts and edges valid then); `as_of_start` drops
    facts that started before it."""
    out = GraphRetrievalResult()
    if not entity_keys:
        return out
    scope = Scope(agent_id, as_of=as_of_end, min_confidence=min_confidence)
    async with engine_from(session).connect() as conn:
        names: dict[str, str] = dict((await conn.execute(text(
            "SELECT canonical_key, COALESCE(display_name, canonical_key) FROM memory_entities "
            "WHERE agent_id = :a AND canonical_key = ANY(CAST(:k AS text[]))"),
            {"a": agent_id, "k": list(entity_keys)})).all())
        found = await _graph.retrieve_graph_facts(
            conn, scope, list(entity_keys), names, query_text, as_of_end or datetime.now(UTC),
            min_edge_strength, broad_query, max_facts)
        rows = await _facts(conn, agent_id, list(found.facts))
    for fid, score in found.facts.items():
        row = rows.get(fid)
        if row is None or (as_of_start is not None and row.valid_from < as_of_start):
            continue
        out.facts.append({**asdict(row), "score": score, "source": "graph"})
    out.neighbor_keys, out.edges_traversed = found.neighbor_keys, found.edges_traversed
    for e in found.edges:
        m = _EDGE.match(e)
        parts = m.groupdict() if m else {"source": e, "relationship": "", "target": ""}
        out.edges.append({**parts, "source_name": found.reach[parts["source"]].name if parts["source"] in found.reach else None,
                          "target_name": found.reach[parts["target"]].name if parts["target"] in found.reach else None})
    return out


@dataclass
class SpreadingActivationResult:
    """The specification's description of a spreading pass, for callers who keep one; the
    function itself returns the candidates (as the specification's signature says)."""

    candidates: list[RetrievalCandidate] = field(default_factory=list)
    meta_observations: list[dict[str, object]] = field(default_factory=list)
    entities_explored: list[str] = field(default_factory=list)
    clusters_explored: list[str] = field(default_factory=list)
    hop1_count: int = 0
    hop2_count: int = 0
    kg_relationships_explored: int = 0


async def spread_activation(
    session: DatabaseTarget,
    agent_id: str,
    seed_fact_ids: list[str],
    config: MemoryConfig,
    *,
    seed_scores: dict[str, float] | None = None,
    allowed_keys: set[str] | None = None,
) -> list[RetrievalCandidate]:
    """Facts reached from the seeds' entities through the relationship graph (hop 1-2), each
    with activation `seed score * path strength * decay ** hop`, best first. `allowed_keys`
    keeps only facts of those entities. Fail-safe as the spec says: an error gives []."""
    try:
        async with engine_from(session).connect() as conn:
            seeds_rows = await _facts(conn, agent_id, list(seed_fact_ids))
            scores = seed_scores or {}
            seeds = sorted(((fid, r.entity_key, float(scores.get(fid, 1.0))) for fid, r in seeds_rows.items()),
                           key=lambda s: (-s[2], s[0]))
            spread = await _spreading.spread_activation(conn, Scope(agent_id, min_confidence=config.min_confidence),
                                                        seeds, config)
            rows = await _facts(conn, agent_id, list(spread.activation))
    except Exception:  # noqa: BLE001 - documented fail-safe
        return []
    out = [RetrievalCandidate(fid, r.entity_key, r.fact_text, a, a, "spreading", r.attribute_key,
                              r.last_confirmed_at, {"spreading": a})
           for fid, a in spread.activation.items() if (r := rows.get(fid)) is not None
           and (allowed_keys is None or r.entity_key in allowed_keys)]
    return sorted(out, key=lambda c: (-c.score, c.fact_id))


# ---- events ------------------------------------------------------------------------------------
EVENT_RECENCY_WEIGHT = 0.2
EVENT_HALF_LIFE_DAYS = 30.0


async def retrieve_relevant_events(
    session: DatabaseTarget,
    agent_id: str,
    query_embedding: list[float],
    config: MemoryConfig,
    limit: int | None = None,
) -> list[dict[str, object]]:
    """Messages most similar to the query embedding, scored `0.8 * cosine + 0.2 * recency`
    (30-day half-life from the agent's latest message), best first, as dicts with `date`,
    `text`, `score`, `event_id` (and `speaker`, `session_id`). Raises ValidationError for an
    empty embedding."""
    if not query_embedding:
        raise ValidationError("query_embedding is empty: embed the query first (embeddings.embed_one(query))")
    limit = int(limit or config.topk_events)
    async with engine_from(session).connect() as conn:
        n = (await conn.execute(text("SELECT count(*) FROM memory_events WHERE agent_id = :a"),
                                {"a": agent_id})).scalar_one()
        hits = await _semantic.search(conn, "e", "true", {"a": agent_id}, list(query_embedding),
                                      max(limit * 4, limit), int(n))
        sims = dict(hits)
        rows = (await conn.execute(text(
            "SELECT id::text AS id, text, occurred_at, speaker, session_id FROM memory_events "
            "WHERE agent_id = :a AND id = ANY(CAST(:ids AS uuid[]))"), {"a": agent_id, "ids": list(sims)})).all()
        latest = (await conn.execute(text("SELECT max(occurred_at) FROM memory_events WHERE agent_id = :a"),
                                     {"a": agent_id})).scalar_one()
    scored: list[tuple[float, str, dict[str, object]]] = []
    for r in rows:
        days = max(0.0, (latest - r.occurred_at).total_seconds() / 86400.0) if latest else 0.0
        score = round((1 - EVENT_RECENCY_WEIGHT) * sims[r.id]
                      + EVENT_RECENCY_WEIGHT * 2.0 ** (-days / EVENT_HALF_LIFE_DAYS), 6)
        scored.append((-score, r.id, {"event_id": r.id, "date": r.occurred_at, "text": r.text, "score": score,
                                      "speaker": r.speaker, "session_id": r.session_id}))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [e for _, _, e in scored[:limit]]


# ---- emotional context -------------------------------------------------------------------------
EMOTION_RECENT_DAYS = 7


async def get_emotional_summary_for_context(
    session: DatabaseTarget, agent_id: str, now: datetime | None = None,
) -> str | None:
    """The active `emotional_trend` observation (written by materialize_emotional_trends) as one
    line for a prompt, or None when none was refreshed in the 7 days before `now` (default: the
    wall clock, the clock `last_reinforced_at` is written in)."""
    since = (now or datetime.now(UTC)) - timedelta(days=EMOTION_RECENT_DAYS)
    async with engine_from(session).connect() as conn:
        row = (await conn.execute(text(
            "SELECT title, text FROM memory_meta_observations WHERE agent_id = :a "
            "AND observation_type = 'emotional_trend' AND is_active AND last_reinforced_at >= :since "
            "ORDER BY last_reinforced_at DESC, id LIMIT 1"), {"a": agent_id, "since": since})).first()
    return f"Emotional context: {row.text}" if row else None


# ---- procedural memory -------------------------------------------------------------------------
async def generate_optimized_directives(
    session: DatabaseTarget,
    agent_id: str,
    llm_provider: LLMProvider | None = None,
    config: MemoryConfig | None = None,
    *,
    persona_text: str = "",
    llm: LLMProvider | None = None,
) -> DirectiveBlock:
    """The persona and the learned directives merged by the LLM into one instruction block,
    cached per agent (by directive ids and reinforcement counts). Fail-safe: an empty block."""
    return await _directives.generate_optimized_directives(
        engine_from(session), agent_id, one_of("llm_provider", llm_provider, "llm", llm), config,
        persona_text=persona_text)


async def check_directive_contradiction(
    session: DatabaseTarget,
    agent_id: str,
    new_directive: str,
    embedding_provider: EmbeddingProvider | None = None,
    llm_provider: LLMProvider | None = None,
    *,
    similarity_threshold: float = 0.80,
    embeddings: EmbeddingProvider | None = None,
    llm: LLMProvider | None = None,
) -> ContradictionResult:
    """Does `new_directive` contradict an active one? Embedding pre-filter (similarity >=
    threshold), then the LLM judges. Fail-safe: no contradiction."""
    return await _directives.check_directive_contradiction(
        engine_from(session), agent_id, new_directive,
        one_of("embedding_provider", embedding_provider, "embeddings", embeddings),
        one_of("llm_provider", llm_provider, "llm", llm), similarity_threshold=similarity_threshold)


__all__ = [
    "ContradictionResult", "DirectiveBlock", "ExpandedQuery", "GraphRetrievalResult", "PatternQuery",
    "RetrievalPlan", "SpreadingActivationResult", "check_directive_contradiction", "effective_confidence", "expand_query",
    "generate_optimized_directives", "get_emotional_summary_for_context", "invalidate_directive_cache",
    "plan_retrieval", "retrieve_graph_facts", "retrieve_relevant_events", "run_read_pipeline",
    "spread_activation",
]
