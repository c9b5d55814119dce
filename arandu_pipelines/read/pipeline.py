"""`retrieve()`: plan -> execute the plan's index steps -> merge & rank facts -> spreading
activation -> rank messages -> (rerank) -> format, with citations.

One plan, one executor: the query's `RetrievalPlan` is read by the heuristic planner, completed
with the database's entities here, and handed to the planning stage (read/planning.py), which
chooses its steps once (heuristic or LLM planner, one validator) and runs them once; from then
on this module only reads the outcome (`PlannerOutcome.plan` and `.execution`).

Latency: the query embedding (~10 ms of CPU) starts first, in a worker thread, and overlaps the
SQL steps that do not need it (term statistics and entity resolution in one round trip, BM25,
graph). The vector steps then run concurrently on two pooled connections, and so do the fact
ranking (+ spreading activation) and the message ranking. Connections are in autocommit: each
statement reads its own snapshot (no BEGIN/savepoint round trips, and a failing step cannot poison
the others). The LLM reranker (when configured) runs after the connections are released.
Retrieval counters are coalesced and written off the hot path (read/counters.py): the caller's
`on_retrieved` (MemoryClient's) records them in a task that `client.close()` flushes and awaits.

Determinism: no step depends on set or dict iteration order (ties break on ids), small agents
use exact vector search, and the reference time for recency is the current minute (or `as_of`):
the same stored data and query give the same result (with writes landing in between, the answer
reflects them, statement by statement).
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import fold
from arandu_pipelines.protocols import EmbeddingProvider
from arandu_pipelines.read import coverage, multihop
from arandu_pipelines.read.entities import EntityResolution, bootstrap
from arandu_pipelines.read.events import lexical_share_of, rank_events
from arandu_pipelines.read.excerpt import query_weights, word_matcher
from arandu_pipelines.read.format import (
    Cluster,
    Pattern,
    compress_broad_context,
    compress_context,
    conversation_snippets,
)
from arandu_pipelines.read.graph import score_links
from arandu_pipelines.read.listq import is_list_question
from arandu_pipelines.read.plan import PatternQuery, RetrievalPlan
from arandu_pipelines.read.planner import plan_retrieval
from arandu_pipelines.read.planning import plan_and_execute
from arandu_pipelines.read.rank import (
    FactCandidate,
    load_candidates,
    order,
    score_facts,
)
from arandu_pipelines.read.registry import (
    DEFAULT_REGISTRY,
    ExecContext,
    cancel_quietly,
    connect,
    extra_connection,
)
from arandu_pipelines.read.rerank import rerank
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.spreading import spread_activation
from arandu_pipelines.read.sql import fetch
from arandu_pipelines.read.subject import speaker_weights
from arandu_pipelines.read.types import (
    RetrieveResult,
    ScoredEvent,
    ScoredFact,
    SourceRef,
)
from arandu_pipelines.store.lookup import resolve_entity_keys
from arandu_pipelines.types import PipelineTrace
from arandu_pipelines.write.contradicts import load_edges

_EMBED_CACHE: weakref.WeakKeyDictionary[Any, OrderedDict[str, list[float]]] = weakref.WeakKeyDictionary()
_EMBED_CACHE_SIZE = 512
# Citations (`_sources`): the message ranking decides, facts compete on its scale. A message the
# ranking returned keeps its own score; each fact citing it adds SOURCE_SUPPORT_BONUS x its place in
# the returned facts' score span, ((fact - weakest) / (best - weakest))^SUPPORT_POWER (4 facts at
# most): the best fact adds the full bonus, the weakest nothing. A message only facts cite enters
# with its best fact's share of the ranking's top score, at most FACT_SOURCE_MARGIN above the lowest
# message the ranking returned. Session 10 weighed a fact by (fact / best)^3, which stays near 1 when
# the facts' scores are compressed (0.50-0.55 on dev): every citing fact then lifted its message by
# ~0.045 and pushed turns the ranking put in its top 10 past it; the span separates them
# (docs/retrieval.md, "The support bonus weighs a fact by its place among the returned facts").
SOURCE_SUPPORT_BONUS = 0.10
SUPPORT_POWER = 1.5
FACT_SOURCE_MARGIN = 0.03
# A "when" question's snippet keeps a sentence saying when ("last week") after those with its words.
TIME_CUE = 0.5


async def _embed_query(provider: EmbeddingProvider, query: str, errors: list[str] | None = None) -> list[float] | None:
    """The query's embedding, memoised per provider for repeated queries. Fail-safe: None (the
    dense steps are skipped) with the reason appended to `errors`."""
    try:
        cache = _EMBED_CACHE.setdefault(provider, OrderedDict())
    except TypeError:  # provider not weak-referenceable: no cache
        cache = None
    if cache is not None and query in cache:
        cache.move_to_end(query)
        return cache[query]
    try:
        vec = await provider.embed_one(query)
    except Exception as exc:  # noqa: BLE001 - fail-safe: dense steps skipped, reason recorded in `errors`
        if errors is not None:
            errors.append(f"{type(exc).__name__}: {exc}")
        return None
    if vec is not None and cache is not None:
        cache[query] = list(vec)
        while len(cache) > _EMBED_CACHE_SIZE:
            cache.popitem(last=False)
    return vec


class _NoTrace(PipelineTrace):
    """The trace of a call without verbose=True: nothing is kept, and the call sites skip building
    what they would have added (plan and resolution dicts cost ~1 ms per retrieve)."""

    def add(self, name: str, duration_ms: float = 0.0, **data: Any) -> Any:
        return None


_NO_TRACE = _NoTrace()


def _reference(as_of: datetime | None) -> datetime:
    if as_of is not None:
        return as_of
    return datetime.now(UTC).replace(second=0, microsecond=0)


async def retrieve(
    client: Any,
    agent_id: str,
    query: str,
    *,
    session_id: str | None = None,
    entity_keys: list[str] | None = None,
    as_of: datetime | None = None,
    config: MemoryConfig,
    warnings: list[str] | None = None,
    verbose: bool = False,
    ready: Callable[[], Awaitable[None]] | None = None,
    on_retrieved: Callable[[str, list[str]], None] | None = None,
) -> RetrieveResult:
    """`client` gives `engine`, `embeddings` and `llm`. `ready` (schema check / migration) is
    awaited only once a query needs the database; `on_retrieved(agent_id, fact_ids)` is told
    which facts were returned (not for `as_of` queries)."""
    t0 = time.perf_counter()
    trace = PipelineTrace() if verbose else _NO_TRACE
    result = RetrieveResult(config_effective=config.to_dict(), warnings=list(warnings or []))
    reference = _reference(as_of)
    tp = time.perf_counter()
    plan = plan_retrieval(query, None, reference, config.timezone)
    plan.latency_ms = (time.perf_counter() - tp) * 1000
    if plan.strategy == "skip":  # a greeting: no database, no LLM (spec: "instant response")
        trace.add("plan", plan.latency_ms, **plan.to_dict())
        result.strategy = "skip"
        result.duration_ms = (time.perf_counter() - t0) * 1000
        result.pipeline = trace if verbose else None
        return result
    if entity_keys is not None and not [k for k in entity_keys if k.strip()]:
        # An empty filter selects no entity. Chosen: nothing is searched (a filter that widened
        # to everything when a caller's key list came out empty would leak out-of-scope facts),
        # and the caller is told how to search everything.
        result.warnings.append("entity_keys is empty: it selects no entity, so nothing was retrieved; "
                               "pass entity_keys=None to search every entity")
        trace.add("plan", plan.latency_ms, **plan.to_dict(), skipped="empty entity_keys")
        result.duration_ms = (time.perf_counter() - t0) * 1000
        result.pipeline = trace if verbose else None
        return result
    if ready is not None:  # schema check / migration, only once a query needs the database
        await ready()
    embed_errors: list[str] = []
    embed_task = asyncio.create_task(_embed_query(client.embeddings, query, embed_errors))

    async def embedding() -> list[float] | None:
        return await asyncio.shield(embed_task)

    try:
        async with connect(client.engine) as conn:
            state = await _gather(conn, client, agent_id, query, session_id, entity_keys, as_of,
                                  config, plan, reference, embedding, trace, result, verbose)
    finally:
        await cancel_quietly(embed_task)
    for err in embed_errors:
        result.warnings.append(f"query embedding failed, semantic signals skipped: {err}")
        trace.add("embedding", 0.0, error=err)
    ranked: list[FactCandidate] = state["ranked"]
    pool = ranked[: 2 * config.topk_facts]
    reranked = False
    if client.llm is not None and config.enable_reranker and pool:
        tr = time.perf_counter()
        outcome = await rerank(client.llm, query, pool, config)
        trace.add("rerank", (time.perf_counter() - tr) * 1000, applied=outcome.applied,
                  error=outcome.error, scored=outcome.scored, vetoed=outcome.vetoed)
        if outcome.error:
            result.warnings.append(f"reranker skipped: {outcome.error}")
        reranked = outcome.applied
        ranked = order(ranked)
    plan = state["plan"]  # the plan the executor ran (its steps chosen and validated)
    final = _select(ranked, config, relative_floor=not reranked, limit=plan.max_results)
    result.facts = [_scored_fact(c) for c in final]
    result.events = state["events"]
    result.sources = _sources(result.facts, result.events, {c.id: c.source for c in final if c.source})
    tf = time.perf_counter()
    dated = plan.temporal_intent
    # the reranker's order, then the citations', then recency
    snippets = conversation_snippets(result.events, result.sources, result.facts if reranked else None)
    terms = state["terms"]  # long snippets are cut to the sentences holding the query's words
    match = word_matcher(query_weights(terms.lexemes, terms.events.idf), TIME_CUE if dated else 0.0)
    fact_cluster = {c.id: c.cluster_id for c in final if c.cluster_id}
    if plan.broad_query and fact_cluster:
        async with connect(client.engine) as conn:
            clusters = await _clusters(conn, agent_id, sorted(set(fact_cluster.values())))
        result.context, fstats = compress_broad_context(result.facts, clusters, fact_cluster, snippets,
                                                        state["patterns"], config, dated, match)
    else:
        result.context, fstats = compress_context(result.facts, snippets, state["patterns"], config, dated,
                                                  match)
    trace.add("format", (time.perf_counter() - tf) * 1000, **fstats)
    result.total_candidates = len(ranked) + state["events_scored"]
    if result.facts and as_of is None and on_retrieved is not None:
        on_retrieved(agent_id, [f.fact_id for f in result.facts])
    result.duration_ms = (time.perf_counter() - t0) * 1000
    result.pipeline = trace if verbose else None
    return result


async def _gather(
    conn: AsyncConnection, client: Any, agent_id: str, query: str, session_id: str | None,
    entity_keys: list[str] | None, as_of: datetime | None, config: MemoryConfig, plan: RetrievalPlan,
    reference: datetime, embedding: Any, trace: PipelineTrace, result: RetrieveResult,
    verbose: bool = False,
) -> dict[str, Any]:
    """Everything that reads the database: complete the plan with the query's entities, plan
    and execute the index steps once (read/planning.py), rank."""
    ts = time.perf_counter()
    terms, resolution = await bootstrap(conn, agent_id, query)
    scope = Scope(agent_id, session_id, as_of, min_confidence=config.min_confidence)
    if entity_keys is not None:
        keys, warns = await resolve_entity_keys(conn, agent_id, list(entity_keys))
        result.warnings.extend(warns)
        scope.entity_keys = keys
        scope.entity_names = await _display_names(conn, agent_id, keys)
    if plan.aggregation_prefixes:
        plan.aggregation_prefixes = await _present_types(conn, agent_id, plan.aggregation_prefixes)
        plan.pattern_queries = [PatternQuery(f"{p}:%") for p in plan.aggregation_prefixes]
        if not plan.pattern_queries and plan.reason == "aggregation":
            plan.reason = "deterministic"
    plan.entities = list(resolution.keys)
    if scope.entity_keys:
        plan.entities += [k for k in scope.entity_keys if k not in plan.entities]
    planning_ms = plan.latency_ms + (time.perf_counter() - ts) * 1000
    ctx = ExecContext(conn, scope, config, query, terms, reference, resolution, plan, embedding,
                      windows=list(plan.time_windows), engine=client.engine)

    async def on_step(res: Any) -> None:
        data = res.to_dict()
        data.pop("duration_ms", None)
        trace.add(f"step:{res.index}", res.duration_ms, **data)

    llm_on = config.enable_llm_planner and client.llm is not None
    outcome = await plan_and_execute(
        client.llm if llm_on else None, DEFAULT_REGISTRY, agent_id, plan, ctx, config, session_id=session_id,
        has_facts=terms.facts.n_docs > 0, has_events=terms.events.n_docs > 0,
        on_step=on_step if verbose else None, trace=trace,
        disabled_reason=None if llm_on else ("no llm" if config.enable_llm_planner else "llm planner disabled"))
    plan, execution, ctx = outcome.plan, outcome.execution, outcome.ctx
    if verbose:  # the query's one plan (the last one executed), how it was chosen
        trace.add("plan", planning_ms, **plan.to_dict(), planner_reason=outcome.reason,
                  entities_sources=resolution.to_dict(), lexemes=terms.lexemes,
                  bridged=terms.bridged)
        if outcome.rounds:
            trace.add("llm_planner", 0.0, rounds=outcome.rounds, llm_calls=outcome.usage.calls,
                      input_tokens=outcome.usage.input_tokens, output_tokens=outcome.usage.output_tokens)
        graph_meta = next((r.meta for r in execution.step_results.values() if r.index == "graph"), {})
        trace.add("retrieval", 0.0, entities_sources={
            "deterministic": list(resolution.keys), "expansion": list(graph_meta.get("neighbor_keys", [])),
            "entity_filter": list(scope.entity_keys or [])}, candidates=len(execution.candidates))
    emb = await embedding()
    speakers = list(resolution.speakers) + [n for n in scope.entity_names if n not in resolution.speakers]

    async def facts_path(c: AsyncConnection) -> dict[str, Any]:
        return await _rank_facts(c, scope, execution, terms, emb, config, reference, ctx, trace)

    async def events_path(c: AsyncConnection) -> tuple[list[ScoredEvent], int]:
        te = time.perf_counter()
        listq = is_list_question(query)
        events, n = await rank_events(c, scope, terms, emb, execution.signals("event"), speakers,
                                      ctx.windows, config.topk_events, config.event_max_scan,
                                      lexical_share_of(plan), spread=listq,
                                      roles=speaker_weights(query, speakers))
        if events and (listq or multihop.ALL_QUESTIONS):  # other sessions' turns (read/multihop.py)
            picks = await multihop.bridge(c, scope, emb, query, speakers, events)
            events = multihop.merge(events, picks, config.topk_events)
        events = coverage.rerank(events, query, listq)  # read/coverage.py
        trace.add("events", (time.perf_counter() - te) * 1000, scored=n, returned=len(events),
                  speakers=speakers)
        return events, n

    has_facts = bool(execution.ids("fact"))
    has_events = bool(execution.ids("event"))
    facts_state: dict[str, Any] = {"ranked": [], "patterns": []}
    events, n_events = [], 0
    if has_facts and has_events:  # independent: two connections (if one is free), concurrently
        async with extra_connection(client.engine) as conn2:
            facts_state, (events, n_events) = await asyncio.gather(facts_path(conn),
                                                                   events_path(conn2 or conn))
    elif has_facts:
        facts_state = await facts_path(conn)
    elif has_events:
        events, n_events = await events_path(conn)
    return {**facts_state, "events": events, "events_scored": n_events, "plan": plan, "terms": terms}


async def _rank_facts(
    conn: AsyncConnection, scope: Scope, execution: Any, terms: Any, emb: list[float] | None,
    config: MemoryConfig, reference: datetime, ctx: ExecContext, trace: PipelineTrace,
) -> dict[str, Any]:
    """Merge & rank, spreading activation, rank again; then the pool's sources and patterns."""
    tm = time.perf_counter()
    fact_signals = execution.signals("fact")
    cands = await load_candidates(conn, scope, execution.ids("fact"), terms, emb)
    folded_query = f" {fold(ctx.query)} "
    for c in cands:
        c.signals = {k: v[c.id] for k, v in fact_signals.items() if c.id in v}
        _graph_signal(c, ctx, folded_query, reference)
    plan = execution.plan
    fact_indexes = {n for n, a in DEFAULT_REGISTRY.adapters.items() if "fact" in getattr(a, "kinds", ())}
    present = plan.present_intent
    # stored `contradicts` edges among the candidates (write/contradicts.py), only for an agent
    # with meta-observations (where they are stored)
    edges = await load_edges(conn, scope.agent_id, [c.id for c in cands]) if terms.has_patterns else []
    score_facts(cands, terms, config, reference, ctx.windows, plan, fact_indexes, present, edges)
    ranked = order(cands)
    if trace is not _NO_TRACE:
        trace.add("merge_rank", (time.perf_counter() - tm) * 1000, candidates=len(cands),
                  top=[{"id": c.id, "text": c.fact_text[:80], "score": round(c.score, 4)} for c in ranked[:5]])
    tsp = time.perf_counter()
    seeds = [(c.id, c.entity_key, c.score) for c in ranked if c.score >= config.min_score][:5]
    spread = await spread_activation(conn, scope, seeds if terms.has_relationships else [], config)
    known = {c.id for c in cands}
    allowed = execution.allowed("fact")  # a plan's filter_by / intersect binds spreading too
    new_ids = sorted(i for i in spread.activation if i not in known and (allowed is None or i in allowed))
    if spread.activation:
        extra = await load_candidates(conn, scope, new_ids, terms, emb) if new_ids else []
        for c in extra:
            _graph_signal(c, ctx, folded_query, reference)
        cands += extra
        for c in cands:
            if c.id in spread.activation:
                c.signals["spreading"] = spread.activation[c.id]
        if terms.has_patterns and new_ids:
            edges = await load_edges(conn, scope.agent_id, [c.id for c in cands])
        score_facts(cands, terms, config, reference, ctx.windows, plan, fact_indexes, present, edges)
        ranked = order(cands)
    trace.add("spreading", (time.perf_counter() - tsp) * 1000,
              spreading_candidates_returned=len(spread.activation),
              spreading_candidates_unique=len(new_ids), entities_explored=spread.entities_explored,
              hop1_count=spread.hop1_count, hop2_count=spread.hop2_count, hop3_count=spread.hop3_count)
    pool = ranked[: config.topk_facts]
    patterns = await _patterns(conn, scope.agent_id, [c.id for c in pool],
                               sorted({c.entity_key for c in pool})) if terms.has_patterns else []
    return {"ranked": ranked, "patterns": patterns}


RELATIVE_RELEVANCE = 0.5


def _select(ranked: list[FactCandidate], config: MemoryConfig, relative_floor: bool = True,
            limit: int | None = None) -> list[FactCandidate]:
    """min_score (the spec's only cut), then, when no reranker judged the pool, a relative
    relevance floor: with the spec's additive formula a fresh, important but unrelated fact
    scores ~0.3 (recency + importance alone) and would pass min_score; keeping only facts at
    least half as relevant as the best one keeps the answer on topic without a fixed similarity
    threshold (MiniLM's cosine scale varies by language). With a reranker the spec's blend and
    veto decide alone. Facts reached by spreading activation are exempt: they are related
    context by design (activation = seed x edge strength x decay^hop, always well under half the
    seed) and still need min_score."""
    kept = [c for c in ranked if c.score >= config.min_score and c.score > 0]
    if relative_floor:
        best = max((c.scores.get("relevance", 0.0) for c in kept), default=0.0)
        floor = RELATIVE_RELEVANCE * best
        kept = [c for c in kept if c.scores.get("relevance", 0.0) >= floor or c.scores.get("spreading", 0.0) > 0]
    return kept[: config.topk_facts if limit is None else min(limit, config.topk_facts)]


def _graph_signal(c: FactCandidate, ctx: ExecContext, folded_query: str, reference: datetime) -> None:
    """Graph evidence for every candidate, whichever step found it: the best path from the
    query's entities to any entity the fact is linked to."""
    if ctx.graph_reach:
        g = score_links(c.links, c.valid_from, ctx.graph_reach, folded_query, reference)
        if g > c.signals.get("graph", 0.0):
            c.signals["graph"] = g


async def _display_names(conn: AsyncConnection, agent_id: str, keys: list[str]) -> list[str]:
    if not keys:
        return []
    rows = await fetch(conn, "SELECT DISTINCT display_name FROM memory_entities WHERE agent_id = :a AND "
                       "canonical_key = ANY(CAST(:k AS text[])) AND display_name IS NOT NULL",
                       {"a": agent_id, "k": keys})
    return sorted(r.display_name for r in rows)


async def _present_types(conn: AsyncConnection, agent_id: str, wanted: list[str]) -> list[str]:
    rows = await fetch(conn, "SELECT DISTINCT entity_type FROM memory_entities WHERE agent_id = :a AND "
                       "is_active AND entity_type = ANY(CAST(:t AS text[]))", {"a": agent_id, "t": wanted})
    return sorted(r.entity_type for r in rows)


async def _patterns(conn: AsyncConnection, agent_id: str, fact_ids: list[str], keys: list[str]) -> list[Pattern]:
    """Active meta-observations about the top facts or their entities, best first (at most 3)."""
    rows = await fetch(conn, """
        SELECT title, text FROM memory_meta_observations WHERE agent_id = :a AND is_active
        AND (supporting_fact_ids ?| CAST(:f AS text[]) OR entity_keys ?| CAST(:k AS text[]))
        ORDER BY importance * confidence DESC, times_reinforced DESC, id LIMIT 3
        """, {"a": agent_id, "f": fact_ids, "k": keys})
    return [Pattern(r.title, r.text) for r in rows]


async def _clusters(conn: AsyncConnection, agent_id: str, ids: list[str]) -> dict[str, Cluster]:
    """Active clusters by id (broad queries only)."""
    rows = await fetch(conn, "SELECT id::text AS id, label, summary_text, fact_count FROM memory_clusters "
                       "WHERE agent_id = :a AND is_active AND id = ANY(CAST(:ids AS uuid[]))",
                       {"a": agent_id, "ids": ids})
    return {r.id: Cluster(r.id, r.label, r.summary_text, int(r.fact_count or 0)) for r in rows}


def _scored_fact(c: FactCandidate) -> ScoredFact:
    return ScoredFact(
        fact_id=c.id, entity_key=c.entity_key, entity_name=c.entity_name, attribute_key=c.attribute_key,
        fact_text=c.fact_text, score=round(c.score, 6),
        scores={k: round(v, 6) for k, v in sorted(c.scores.items())}, speaker=c.speaker,
        valid_from=c.valid_from, valid_to=c.valid_to, event_date=c.event_date,
        source_event_id=c.source_event_id, source_message_id=c.source_message_id,
        confidence=c.confidence, importance=c.importance, session_id=c.session_id,
    )


def _sources(facts: list[ScoredFact], events: list[ScoredEvent], rows: dict[str, tuple[Any, ...]]) -> list[SourceRef]:
    """Unique source messages, ranked on the message ranking's scale: a returned message by its
    own score, one only facts cite by its best fact's share (fact score / best fact) of the top
    message score, at most FACT_SOURCE_MARGIN above the lowest returned message; plus
    SOURCE_SUPPORT_BONUS x span^SUPPORT_POWER per further supporting fact (4 at most), where span
    places the fact between the weakest (0) and the best (1) returned fact. Facts and messages are
    scored on different scales; this keeps a weak fact's source from pushing out a turn the
    message ranking put above it, while a strong fact's source still enters."""
    refs: dict[str, SourceRef] = {}
    own: dict[str, float] = {}
    share: dict[str, float] = {}  # event id -> its best citing fact's score / best fact
    for e in events:
        refs[e.event_id] = SourceRef(e.event_id, e.message_id, e.metadata, e.session_id, e.speaker,
                                     e.occurred_at, e.text, 0.0, ["event"])
        own[e.event_id] = e.score
    top = max(own.values(), default=0.0)
    low = min(own.values(), default=0.0)
    best = max((f.score for f in facts), default=0.0)
    weakest = min((f.score for f in facts), default=0.0)
    span: dict[str, list[float]] = {}  # event id -> each citing fact's place in [weakest, best]
    for f in facts:
        eid = f.source_event_id
        if not eid:
            continue
        if eid not in refs:
            r = rows.get(f.fact_id)
            if r is None:
                continue
            meta, session, speaker, at, body = r
            refs[eid] = SourceRef(eid, f.source_message_id, json.loads(meta) if meta else {}, session,
                                  speaker, at, body, 0.0, [])
        refs[eid].supports.append(f"fact:{f.fact_id}")
        share[eid] = max(share.get(eid, 0.0), f.score / best if best > 0 else 0.0)
        span.setdefault(eid, []).append((f.score - weakest) / (best - weakest) if best > weakest else 1.0)
    for eid, ref in refs.items():
        places = sorted(span.get(eid, []), reverse=True)
        if not own:  # no message ranking to compete with: the facts' order
            score, extra = share[eid], places[1:]
        elif eid in own:
            score, extra = own[eid], places
        else:
            score, extra = min(share[eid] * top, low + FACT_SOURCE_MARGIN), places[1:]
        ref.score = round(score + SOURCE_SUPPORT_BONUS * sum(x ** SUPPORT_POWER for x in extra[:4]), 6)
    return sorted(refs.values(), key=lambda r: (-r.score, r.occurred_at or datetime.min.replace(tzinfo=UTC),
                                                r.event_id))


__all__ = ["EntityResolution", "RetrieveResult", "retrieve"]
