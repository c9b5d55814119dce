"""The index registry (seed 003): every retrieval signal is an index with a descriptor (what it
stores, when to use it, its parameters, what it returns, an example step) and an adapter that
runs a plan step against it. Adding an index = a descriptor + an adapter; the planner and the
executor do not change. `describe()` renders the registry for an LLM planner.

`build_plan()` is the heuristic planner's choice of steps: the same steps for the same query and
memory, in the form an LLM planner writes (one validator checks both; see read/plan.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read import lexical, semantic
from arandu_pipelines.read.entities import EntityResolution
from arandu_pipelines.read.executor import Hit, StepResult
from arandu_pipelines.read.graph import retrieve_graph_facts
from arandu_pipelines.read.lexical import QueryTerms
from arandu_pipelines.read.plan import RetrievalPlan
from arandu_pipelines.read.rank import default_weights
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.sql import fetch, fetch_one
from arandu_pipelines.read.temporal import TimeAnchor, TimeWindow


@dataclass
class ParamSpec:
    name: str
    type: str  # embedding | string | list[str] | date_range | int | bool | float
    required: bool
    description: str
    default: Any = None


@dataclass
class IndexExample:
    user_query: str
    plan_step: dict[str, Any]
    rationale: str


@dataclass
class IndexDescriptor:
    name: str
    description: str
    best_for: list[str]
    query_params: dict[str, ParamSpec]
    returns: str
    examples: list[IndexExample] = field(default_factory=list)
    available: bool = True


@dataclass
class ExecContext:
    """Everything a step may use: one connection (one snapshot), the scope, the query's terms,
    the embedding (computed concurrently; `embedding()` awaits it), and the planner's output."""

    conn: AsyncConnection
    scope: Scope
    config: MemoryConfig
    query: str
    terms: QueryTerms
    reference: datetime
    resolution: EntityResolution
    plan: RetrievalPlan
    embed: Callable[[], Awaitable[list[float] | None]]
    windows: list[TimeWindow] = field(default_factory=list)
    engine: Any = None
    graph_reach: dict[str, Any] = field(default_factory=dict)  # filled by the graph step

    async def embedding(self) -> list[float] | None:
        return await self.embed()

    @asynccontextmanager
    async def fork(self) -> AsyncIterator[ExecContext]:
        """The same context on another pooled connection (for concurrent steps), or on this one
        when none is free right now (psycopg then runs the steps' statements one after another
        on it): a retrieve never waits for a second connection while holding its first."""
        async with extra_connection(self.engine) as conn:
            yield self if conn is None else dataclasses.replace(self, conn=conn)


class _Slots:
    """How one engine's pool is shared by concurrent retrieves (per event loop).

    A retrieve holds its first connection while its concurrent steps want more. If every
    connection of the pool were held by a first connection waiting for a second, all would wait
    for the pool timeout (measured: 40 concurrent retrieves on one client, 23 failed after 30 s).
    So at most half the pool serves first connections (others wait for a slot *before* taking a
    connection) and the other half serves extra ones, taken only when free at once."""

    def __init__(self, capacity: int) -> None:
        self.first = asyncio.Semaphore(max(1, capacity // 2))
        self.extra = max(0, capacity - max(1, capacity // 2))
        self.extra_in_use = 0


_SLOTS: weakref.WeakKeyDictionary[Any, dict[int, _Slots]] = weakref.WeakKeyDictionary()


def _slots(engine: Any) -> _Slots:
    per_loop = _SLOTS.setdefault(engine, {})
    loop = id(asyncio.get_running_loop())
    if loop not in per_loop:
        pool = engine.pool
        try:
            capacity = int(pool.size()) + max(int(getattr(pool, "_max_overflow", 0)), 0)
        except (AttributeError, TypeError, ValueError):  # a pool without a size (NullPool...): no limit worth modelling
            capacity = 20
        per_loop[loop] = _Slots(capacity)
    return per_loop[loop]


@asynccontextmanager
async def connect(engine: Any) -> AsyncIterator[AsyncConnection]:
    """A retrieve's first pooled connection, in autocommit: each statement is its own snapshot,
    and a failed one does not abort the others (no transaction, no savepoints, no extra round
    trips). Waits for a slot (see `_Slots`) before taking it."""
    async with _slots(engine).first, _autocommit(engine) as conn:
        yield conn


@asynccontextmanager
async def extra_connection(engine: Any) -> AsyncIterator[AsyncConnection | None]:
    """Another autocommit connection if one of the extra slots is free now, else None."""
    slots = _slots(engine)
    if slots.extra_in_use >= slots.extra:
        yield None
        return
    slots.extra_in_use += 1
    try:
        async with _autocommit(engine) as conn:
            yield conn
    finally:
        slots.extra_in_use -= 1


@asynccontextmanager
async def _autocommit(engine: Any) -> AsyncIterator[AsyncConnection]:
    async with engine.connect() as conn:
        yield await conn.execution_options(isolation_level="AUTOCOMMIT")


def _p(name: str, type_: str, required: bool, description: str, default: Any = None) -> ParamSpec:
    return ParamSpec(name, type_, required, description, default)


# ---- adapters ----------------------------------------------------------------------------------
class SemanticFacts:
    name = "semantic_facts"
    needs_embedding = True
    kinds = ("fact",)
    descriptor = IndexDescriptor(
        name, "pgvector cosine similarity between the query and fact embeddings (HNSW, or exact for "
        "small agents).", ["general recall", "paraphrases", "conceptual similarity"],
        {"top_k": _p("top_k", "int", False, "facts to return", 50),
         "min_similarity": _p("min_similarity", "float", False, "similarity floor", 0.2)},
        "facts with cosine similarity",
        [IndexExample("Where does Ana live?", {"index": name, "params": {"top_k": 50}},
                      "facts phrased differently from the question")],
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        emb = await ctx.embedding()
        if emb is None:
            return StepResult(0, self.name, meta={"skipped": "no query embedding"})
        floor = float(params.get("min_similarity", ctx.config.min_similarity))
        rows = await semantic.search(ctx.conn, "f", ctx.scope.facts("t"), ctx.scope.params(), emb,
                                     int(params.get("top_k", 50)), ctx.terms.facts.n_docs)
        return StepResult(0, self.name, [Hit("fact", i, s) for i, s in rows if s >= floor])


class LexicalFacts:
    name = "lexical_facts"
    needs_embedding = False
    kinds = ("fact",)
    descriptor = IndexDescriptor(
        name, "BM25 over the facts' full-text vectors (english stemming, per-agent idf).",
        ["proper nouns", "exact terms", "numbers", "rare words"],
        {"top_k": _p("top_k", "int", False, "facts to return", 50)},
        "facts with BM25 scores",
        [IndexExample("What is Vertix's CNPJ?", {"index": name, "params": {"top_k": 20}},
                      "rare tokens embed poorly but match exactly")],
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        rows = await lexical.search(ctx.conn, "f", ctx.scope.facts("t"), ctx.scope.params(), ctx.terms,
                                    int(params.get("top_k", 50)))
        _, _, ideal = ctx.terms.weights("f")
        return StepResult(0, self.name, [Hit("fact", i, min(s / ideal, 1.0) if ideal else 0.0) for i, s in rows],
                          meta={"terms": ctx.terms.generators("f")})


class EntityGraph:
    name = "graph"
    needs_embedding = False
    kinds = ("fact",)
    descriptor = IndexDescriptor(
        name, "BFS up to 2 hops over entity relationships from the query's entities; facts through "
        "entity links (a fact about Clara that mentions Vertix is found from Vertix).",
        ["entity-specific questions", "relationships", "what happened to X"],
        {"entities": _p("entities", "list[str]", True, "canonical entity keys"),
         "broad_query": _p("broad_query", "bool", False, "larger budget", False),
         "max_facts": _p("max_facts", "int", False, "fact budget", 30)},
        "facts with graph scores, neighbour keys, edges",
        [IndexExample("O que aconteceu com a Vertix?", {"index": name, "params": {"entities": ["organization:vertix"]}},
                      "facts of other subjects linked to Vertix")],
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        keys = list(params.get("entities") or [])
        res = await retrieve_graph_facts(
            ctx.conn, ctx.scope, keys, ctx.resolution.names, ctx.query, ctx.reference,
            ctx.config.graph_min_edge_strength, bool(params.get("broad_query")), params.get("max_facts"))
        ctx.graph_reach.update(res.reach)
        return StepResult(0, self.name, [Hit("fact", i, s) for i, s in sorted(res.facts.items())],
                          meta={"neighbor_keys": res.neighbor_keys, "edges": res.edges,
                                "edges_traversed": res.edges_traversed})


class PatternQueryIndex:
    name = "pattern_query"
    needs_embedding = False
    kinds = ("fact",)
    descriptor = IndexDescriptor(
        name, "Facts whose entity key matches SQL LIKE patterns from an aggregation query "
        "('who are my friends?' -> person:%), most important first.",
        ["aggregation", "listing", "counting"],
        {"patterns": _p("patterns", "list[str]", True, "LIKE patterns over entity keys"),
         "top_k": _p("top_k", "int", False, "facts to return", 40)},
        "facts of the matching entities",
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        pats = list(params.get("patterns") or [])
        if not pats:
            return StepResult(0, self.name)
        rows = await fetch(
            ctx.conn,
            f"SELECT t.id::text AS id FROM memory_facts t WHERE t.agent_id = :a AND "
            f"t.entity_key LIKE ANY(CAST(:pats AS text[])) AND {ctx.scope.facts('t')} "
            "ORDER BY t.importance DESC, t.reinforcement_count DESC, t.valid_from DESC, t.id LIMIT :lim",
            {**ctx.scope.params(), "pats": pats, "lim": int(params.get("top_k", 40))})
        return StepResult(0, self.name, [Hit("fact", r.id, 1.0) for r in rows])


class SemanticEvents:
    name = "semantic_events"
    needs_embedding = True
    kinds = ("event",)
    descriptor = IndexDescriptor(
        name, "pgvector cosine similarity between the query and the raw messages.",
        ["what was said", "paraphrased content", "anything not extracted as a fact"],
        {"top_k": _p("top_k", "int", False, "messages to return", 40)},
        "messages with cosine similarity",
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        emb = await ctx.embedding()
        if emb is None:
            return StepResult(0, self.name, meta={"skipped": "no query embedding"})
        rows = await semantic.search(ctx.conn, "e", ctx.scope.events("t"), ctx.scope.params(), emb,
                                     int(params.get("top_k", 40)), ctx.terms.events.n_docs)
        return StepResult(0, self.name, [Hit("event", i, max(s, 0.0)) for i, s in rows])


class LexicalEvents:
    name = "lexical_events"
    needs_embedding = False
    kinds = ("event",)
    descriptor = IndexDescriptor(
        name, "BM25 over the raw messages (speaker + text, english stemming, per-agent idf).",
        ["exact words", "names", "rare terms"],
        {"top_k": _p("top_k", "int", False, "messages to return", 40)},
        "messages with BM25 scores",
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        rows = await lexical.search(ctx.conn, "e", ctx.scope.events("t"), ctx.scope.params(), ctx.terms,
                                    int(params.get("top_k", 40)))
        return StepResult(0, self.name, [Hit("event", i, s) for i, s in rows],
                          meta={"terms": ctx.terms.generators("e")})


class TemporalAnchorIndex:
    name = "temporal_anchor"
    needs_embedding = False
    kinds = ("event",)
    descriptor = IndexDescriptor(
        name, "Finds the event an anchored time expression refers to ('two weeks before the trip' "
        "-> the best message about 'trip') and turns the expression into a window around its date.",
        ["relative-to-event time questions"],
        {"phrase": _p("phrase", "string", False, "the time expression, labels the window", ""),
         "anchor_text": _p("anchor_text", "string", True, "the anchor event words"),
         "offset_days": _p("offset_days", "int", True, "days from the anchor (negative = before)"),
         "span_days": _p("span_days", "int", False, "window width", 1)},
        "the anchor message and the resulting window",
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        anchor = TimeAnchor(str(params.get("phrase", "")), str(params["anchor_text"]),
                            int(params["offset_days"]), int(params.get("span_days", 1)))
        sub = await lexical.load_terms(ctx.conn, ctx.scope.agent_id, anchor.anchor_text)
        rows = await lexical.search(ctx.conn, "e", ctx.scope.events("t"), ctx.scope.params(), sub, 1)
        if not rows:
            return StepResult(0, self.name, meta={"anchor": None})
        when = (await fetch_one(
            ctx.conn, "SELECT occurred_at FROM memory_events WHERE agent_id = :a AND id = CAST(:id AS uuid)",
            {"a": ctx.scope.agent_id, "id": rows[0][0]})).occurred_at
        window = anchor.window(when)
        ctx.windows.append(window)
        return StepResult(0, self.name, [Hit("event", rows[0][0], 1.0)],
                          meta={"anchor_event": rows[0][0], "window": window.to_dict()})


class TemporalEvents:
    name = "temporal_events"
    needs_embedding = False
    kinds = ("event",)
    descriptor = IndexDescriptor(
        name, "Messages inside the query's time windows (absolute, relative or anchored), best "
        "lexical match first.", ["when questions", "what happened in <period>"],
        {"top_k": _p("top_k", "int", False, "messages to return", 20)},
        "messages in the windows",
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        wins = [w for w in ctx.windows]
        if not wins:
            return StepResult(0, self.name)
        conds = " OR ".join(f"(t.occurred_at >= :s{i} AND t.occurred_at < :e{i})" for i in range(len(wins)))
        p: dict[str, Any] = {**ctx.scope.params(), **lexical.bm25_params(ctx.terms, "e"),
                             "lim": int(params.get("top_k", 20))}
        for i, w in enumerate(wins):
            p[f"s{i}"], p[f"e{i}"] = w.start, w.end
        rows = await fetch(
            ctx.conn,
            f"SELECT t.id::text AS id, {lexical.bm25_expr('t', lexical.n_terms(ctx.terms, 'e'))} AS kw "
            "FROM memory_events t "
            f"WHERE t.agent_id = :a AND ({conds}) AND {ctx.scope.events('t')} "
            "ORDER BY kw DESC, t.occurred_at, t.id LIMIT :lim", p)
        top = max((float(r.kw or 0) for r in rows), default=0.0) or 1.0
        return StepResult(0, self.name, [Hit("event", r.id, 0.5 + 0.5 * float(r.kw or 0) / top) for r in rows],
                          meta={"windows": [w.to_dict() for w in wins]})


class RecentSession:
    name = "recent_session"
    needs_embedding = False
    kinds = ("event",)
    descriptor = IndexDescriptor(
        name, "The latest messages of the current session (working memory).",
        ["follow-up questions", "what we just discussed"],
        {"session_id": _p("session_id", "string", True, "the session"),
         "top_k": _p("top_k", "int", False, "messages", 6)},
        "recent messages, newest first",
    )

    async def query(self, ctx: ExecContext, params: dict[str, Any], prior: list[StepResult]) -> StepResult:
        rows = await fetch(
            ctx.conn,
            f"SELECT t.id::text AS id FROM memory_events t WHERE t.agent_id = :a AND t.session_id = :sess "
            f"AND {ctx.scope.events('t')} ORDER BY t.occurred_at DESC, t.id DESC LIMIT :lim",
            {**ctx.scope.params(), "sess": params["session_id"], "lim": int(params.get("top_k", 6))})
        return StepResult(0, self.name, [Hit("event", r.id, 1.0 / (1 + i)) for i, r in enumerate(rows)])


ADAPTERS: list[Any] = [SemanticFacts(), LexicalFacts(), EntityGraph(), PatternQueryIndex(), SemanticEvents(),
            LexicalEvents(), TemporalAnchorIndex(), TemporalEvents(), RecentSession()]


class IndexRegistry:
    def __init__(self, adapters: list[Any] | None = None) -> None:
        # any object with name / descriptor / query (see executor.IndexAdapter) may be registered
        self.adapters: dict[str, Any] = {a.name: a for a in (adapters or ADAPTERS)}

    def register(self, adapter: Any) -> None:
        self.adapters[adapter.name] = adapter

    def descriptors(self) -> list[IndexDescriptor]:
        return [a.descriptor for a in self.adapters.values()]

    def describe(self) -> str:
        """The registry as text, for an LLM planner's prompt."""
        out = []
        for d in self.descriptors():
            params = ", ".join(f"{p.name}: {p.type}{'' if p.required else ' = ' + repr(p.default)}"
                               for p in d.query_params.values())
            out.append(f"- {d.name}({params}): {d.description} Best for: {', '.join(d.best_for)}. "
                       f"Returns: {d.returns}.")
        return "\n".join(out)


DEFAULT_REGISTRY = IndexRegistry()


def build_plan(
    plan: RetrievalPlan,
    config: MemoryConfig,
    session_id: str | None,
    has_facts: bool = True,
    has_events: bool = True,
) -> dict[str, Any]:
    """The heuristic planner's steps for `plan` (entities resolved): every signal over facts and
    messages, fused by weighted union; indexes over an empty table (an agent without facts yet)
    are left out. Returned in the seed-003 form an LLM planner writes, so one validator
    (`planner_llm.validate_plan`) turns either proposal into the query's plan. Pure."""
    steps: list[dict[str, Any]] = []

    def add(index: str, params: dict[str, Any], why: str, depends: list[int] | None = None) -> int:
        steps.append({"step_id": len(steps) + 1, "index": index, "params": params, "rationale": why,
                      "depends_on": depends or [], "combine": "union"})
        return len(steps)

    fact_k = max(config.topk_facts * 2, plan.max_facts)
    event_k = max(1, min(max(config.topk_events * 5, 40), config.event_max_scan))
    weights = default_weights(config)
    if has_facts:
        add("lexical_facts", {"top_k": fact_k, "weight": weights["lexical_facts"]}, "exact and rare words in facts")
        add("semantic_facts", {"top_k": fact_k, "min_similarity": config.min_similarity,
                               "weight": weights["semantic_facts"]}, "facts close in meaning")
    if plan.entities and has_facts:
        add("graph", {"entities": list(plan.entities), "broad_query": plan.broad_query,
                      "max_facts": 60 if plan.broad_query else 30, "weight": weights["graph"]},
            "facts of the named entities and their neighbours")
    if plan.pattern_queries and has_facts:
        add("pattern_query", {"patterns": [p.entity_pattern for p in plan.pattern_queries], "top_k": fact_k,
                              "weight": weights["pattern_query"]}, "aggregation over entity types")
    answer = "text"
    if has_events:
        add("lexical_events", {"top_k": event_k, "weight": 0.5}, "messages sharing the query's words")
        add("semantic_events", {"top_k": event_k, "weight": 0.5}, "messages close in meaning")
        anchors = [add("temporal_anchor", anchor_params(a), f"date of the event '{a.anchor_text}'")
                   for a in plan.time_anchors]
        if plan.time_windows or anchors:
            add("temporal_events", {"top_k": max(config.topk_events * 2, 20)}, "messages inside the time windows",
                anchors)
        if session_id is not None:
            add("recent_session", {"session_id": session_id, "top_k": 6}, "the session's latest messages")
        answer = "date" if plan.temporal_intent else ("list" if plan.pattern_queries else "text")
    return {"query": plan.query, "analysis": heuristic_analysis(plan, has_events), "steps": steps,
            "combination_strategy": "weighted_union", "expected_answer_type": answer,
            "max_results": config.topk_facts}


def heuristic_analysis(plan: RetrievalPlan, has_events: bool = True) -> str:
    """The heuristic planner's reading of the query, in one line (also the LLM planner's hint)."""
    if not has_events:
        return f"{plan.reason}; entities={plan.entities or '-'}; no messages stored"
    return f"{plan.reason}; entities={plan.entities or '-'}; windows={len(plan.time_windows)}; " \
           f"anchors={len(plan.time_anchors)}"


def anchor_params(anchor: TimeAnchor) -> dict[str, Any]:
    """A `temporal_anchor` step's parameters for one anchored time expression."""
    return {"phrase": anchor.phrase, "anchor_text": anchor.anchor_text, "offset_days": anchor.offset_days,
            "span_days": anchor.span_days}


async def cancel_quietly(task: asyncio.Task[Any] | None) -> None:
    if task is not None and not task.done():
        task.cancel()
        try:
            await task
        except BaseException:  # noqa: BLE001, S110 - cleanup: the cancelled task's outcome is not ours to raise
            pass
