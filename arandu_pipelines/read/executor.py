"""Query plans and the plan executor (seed 003): steps over registered indexes, dependencies,
fusion.

A plan (`RetrievalPlan`, read/plan.py; `QueryPlan` is the same class) is data: steps naming an
index of the registry with parameters, `depends_on` edges, and a combination strategy. The
heuristic planner (registry.build_plan) or the LLM planner chooses the steps, the same validator
checks them, and this executor runs them, once per plan: `execute()` is the only place a query's
index steps run, and it records itself in the trace ("execute"). A sub-query a plan needs (the
anchor event of "two weeks before the trip") is a step of the plan, never a second retrieve.

Execution: steps run in dependency layers. Within a layer the steps that do not need the query
embedding run first, one after the other on the context's connection, while the embedding is
computed in a worker thread; then the steps that need it run concurrently, each on its own pooled
connection (`ctx.fork()`). Connections are in autocommit, so a failing step is recorded (error in
its StepResult), contributes nothing, and does not poison the other signals.

Fusion (per kind, fact or event), in two parts:

1. The candidate set (`fuse`): the union of the steps' hits, narrowed by every step whose `combine`
   is "intersect" (its hits and scores count) or "filter_by" (a pure filter: it narrows, it adds
   no score); with `combination_strategy = "sequential_filter"` every step after the first
   narrows the first step's hits.
2. The relevance of each candidate (`fuse_scores`, called by the rankers once every candidate
   has its score on every index, so a fact found only by the graph still has its cosine):
   - "weighted_union": a probabilistic union of weighted evidence,
         1 - prod_i (1 - w_i * s_i)          s_i in [0, 1] the candidate's score on step i's index
     (evidence from any step raises relevance, a step that did not find it lowers nothing);
   - "rrf": reciprocal-rank fusion, sum_i w_i / (60 + rank_i), over the steps that scored it,
     divided by its maximum (first in every step) so it lies in [0, 1];
   - "sequential_filter": the weighted union over the narrowed set.
   `w_i` is the step's `params["weight"]` (the deterministic planner sets it from
   `score_weights`; default 1). Steps with combine "filter_by" take no part in the scores.
`max_results` caps the facts returned (with `topk_facts`). Every candidate keeps its per-index
scores (`signals`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Protocol

from arandu_pipelines.read.plan import PlanStep, QueryPlan, RetrievalPlan, jsonable

__all__ = [
    "RRF_K",
    "Candidate",
    "ExecutionResult",
    "Hit",
    "PlanExecutor",
    "PlanStep",
    "QueryPlan",
    "RetrievalPlan",
    "StepResult",
    "fuse",
    "fuse_scores",
    "step_weight",
]

RRF_K = 60
RANK_DIGITS = 3


@dataclass
class Hit:
    kind: str  # fact | event
    id: str
    score: float


@dataclass
class StepResult:
    step_id: int
    index: str
    hits: list[Hit] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    duration_ms: float = 0.0
    error: str | None = None

    def to_dict(self, sample: int = 5) -> dict[str, Any]:
        top = sorted(self.hits, key=lambda h: (-h.score, h.id))[:sample]
        return {"step_id": self.step_id, "index": self.index, "count": len(self.hits),
                "duration_ms": round(self.duration_ms, 3), "error": self.error,
                "top": [{"kind": h.kind, "id": h.id, "score": round(h.score, 6)} for h in top],
                "meta": jsonable(self.meta)}


@dataclass
class Candidate:
    kind: str
    id: str
    fused: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)


@dataclass
class ExecutionResult:
    plan: RetrievalPlan
    step_results: dict[int, StepResult]
    candidates: dict[tuple[str, str], Candidate]
    filtered: dict[str, bool] = field(default_factory=dict)  # kind -> a filter step narrowed it

    def signals(self, kind: str) -> dict[str, dict[str, float]]:
        """index name -> {id: score} for one kind (what the rankers consume)."""
        out: dict[str, dict[str, float]] = {}
        for r in self.step_results.values():
            for h in r.hits:
                if h.kind == kind:
                    d = out.setdefault(r.index, {})
                    d[h.id] = max(d.get(h.id, 0.0), h.score)
        return out

    def ids(self, kind: str) -> list[str]:
        return sorted(i for k, i in self.candidates if k == kind)

    def allowed(self, kind: str) -> set[str] | None:
        """The ids the plan's filters let through for `kind` (None: no filter on that kind), for
        candidates added after fusion (spreading activation)."""
        if not self.filtered.get(kind):
            return None
        return {i for k, i in self.candidates if k == kind}


class IndexAdapter(Protocol):
    """Translates a plan step into an index query. `needs_embedding` orders execution."""

    name: str
    needs_embedding: bool

    async def query(self, ctx: Any, params: dict[str, Any], prior: list[StepResult]) -> StepResult: ...


class PlanExecutor:
    def __init__(self, indexes: dict[str, IndexAdapter]) -> None:
        self.indexes = indexes

    async def execute(self, plan: RetrievalPlan, ctx: Any,
                      on_step: Callable[[StepResult], Awaitable[None]] | None = None,
                      trace: Any = None) -> ExecutionResult:
        """Run `plan`, layer by layer. Steps of one layer are independent: when `ctx.fork()` is
        available (a context on another pooled connection) they run concurrently, the first
        step that needs no embedding on `ctx`'s connection and every other on its own, so the
        server works on one statement while the client sends the next and the steps that need
        the query embedding wait for it without holding the others up. Results (and `on_step`
        calls) stay in step-id order; a step's failure is its own (see `_run`). Each call adds
        one "execute" step to `trace` (a PipelineTrace): how often a query's plan ran is visible."""
        t0 = time.perf_counter()
        results: dict[int, StepResult] = {}
        layers = self._layers(plan.steps)
        fork = getattr(ctx, "fork", None)
        for layer in layers:
            layer = sorted(layer, key=lambda s: (self._needs_embedding(s), s.step_id))
            if len(layer) > 1 and fork is not None:
                async def forked(step: PlanStep) -> None:
                    async with fork() as sub:
                        await self._run(step, sub, results, None)
                await asyncio.gather(self._run(layer[0], ctx, results, None),
                                     *(forked(s) for s in layer[1:]))
                if on_step is not None:
                    for s in sorted(layer, key=lambda s: s.step_id):
                        await on_step(results[s.step_id])
            else:
                for step in layer:
                    await self._run(step, ctx, results, on_step)
        kinds = {name: set(getattr(a, "kinds", ())) for name, a in self.indexes.items()}
        cands, filtered = fuse(plan, results, kinds)
        if trace is not None:
            trace.add("execute", (time.perf_counter() - t0) * 1000, planner=plan.planner,
                      steps=len(plan.steps), layers=len(layers), candidates=len(cands),
                      failed=sorted(r.step_id for r in results.values() if r.error))
        return ExecutionResult(plan, results, cands, filtered)

    async def _run(self, step: PlanStep, ctx: Any, results: dict[int, StepResult],
                   on_step: Callable[[StepResult], Awaitable[None]] | None) -> None:
        adapter = self.indexes.get(step.index)
        t0 = time.perf_counter()
        if adapter is None:
            res = StepResult(step.step_id, step.index, error=f"unknown index {step.index!r}")
        else:
            prior = [results[d] for d in step.depends_on if d in results]
            try:
                res = await adapter.query(ctx, step.params, prior)
                res.step_id, res.index = step.step_id, step.index
            except Exception as exc:  # noqa: BLE001 - fail-safe: a broken signal must not break retrieval (step error in the trace)
                res = StepResult(step.step_id, step.index, error=f"{type(exc).__name__}: {exc}"[:300])
        res.duration_ms = (time.perf_counter() - t0) * 1000
        results[step.step_id] = res
        if on_step is not None:
            await on_step(res)

    def _layers(self, steps: list[PlanStep]) -> list[list[PlanStep]]:
        """Topological layers, each in step-id order."""
        done: set[int] = set()
        known = {s.step_id for s in steps}
        pending = sorted(steps, key=lambda s: s.step_id)
        out: list[list[PlanStep]] = []
        while pending:
            layer = [s for s in pending if all(d in done or d not in known for d in s.depends_on)]
            if not layer:  # a cycle: run the rest in id order rather than hang
                layer = pending
            out.append(layer)
            done.update(s.step_id for s in layer)
            pending = [s for s in pending if s.step_id not in done]
        return out

    def _needs_embedding(self, step: PlanStep) -> bool:
        adapter = self.indexes.get(step.index)
        return bool(getattr(adapter, "needs_embedding", False))


def step_weight(step: PlanStep, default: float = 1.0) -> float:
    try:
        return min(max(float(step.params.get("weight", default)), 0.0), 5.0)
    except (TypeError, ValueError):
        return default


def fuse(plan: RetrievalPlan, results: dict[int, StepResult], index_kinds: dict[str, set[str]] | None = None,
         ) -> tuple[dict[tuple[str, str], Candidate], dict[str, bool]]:
    """The candidate set (see the module docstring) and, per kind, whether a filter narrowed it.
    `Candidate.fused` is the step-local fusion (each step's scores over its own best), a preview
    for the LLM evaluator; the rankers call `fuse_scores` once all signals are known."""
    strategy = plan.combination_strategy
    steps = {s.step_id: s for s in plan.steps}
    cands: dict[tuple[str, str], Candidate] = {}
    ordered = [results[s.step_id] for s in sorted(plan.steps, key=lambda s: s.step_id) if s.step_id in results]
    first = next((r.step_id for r in ordered if steps[r.step_id].combine != "filter_by"), None)
    for res in ordered:
        step = steps[res.step_id]
        if step.combine == "filter_by":
            continue
        adds = strategy != "sequential_filter" or res.step_id == first  # later steps only narrow
        weight = step_weight(step)
        by_kind: dict[str, list[Hit]] = {}
        for h in res.hits:
            by_kind.setdefault(h.kind, []).append(h)
        for kind, hits in by_kind.items():
            hits = sorted(hits, key=lambda h: (-h.score, h.id))
            top = hits[0].score if hits and hits[0].score > 0 else 1.0
            for rank, h in enumerate(hits):
                if not adds and (kind, h.id) not in cands:
                    continue
                c = cands.setdefault((kind, h.id), Candidate(kind, h.id))
                c.signals[res.index] = max(c.signals.get(res.index, 0.0), h.score)
                if strategy == "rrf":
                    c.fused += weight / (RRF_K + rank + 1)
                else:
                    c.fused += weight * h.score / top
    narrowing: list[StepResult] = []
    if strategy == "sequential_filter":
        narrowing = [r for r in ordered[1:] if steps[r.step_id].combine != "filter_by"]
    narrowing += [results[s.step_id] for s in sorted(plan.steps, key=lambda s: s.step_id)
                  if s.combine in ("intersect", "filter_by") and s.step_id in results
                  and results[s.step_id] not in narrowing]
    filtered: dict[str, bool] = {}
    for res in narrowing:
        if res.error:
            continue  # a failed filter step narrows nothing (fail-safe, like a failed signal)
        # the kinds the step's index returns: a filter that found nothing keeps nothing of them
        kinds = {h.kind for h in res.hits} | set((index_kinds or {}).get(res.index, ()))
        keep = {(h.kind, h.id) for h in res.hits}
        cands = {k: c for k, c in cands.items() if k[0] not in kinds or k in keep}
        for kind in kinds:
            filtered[kind] = True
    return cands, filtered


def fuse_scores(plan: RetrievalPlan, scores: dict[str, dict[str, float]], kind_indexes: AbstractSet[str],
                default_weights: dict[str, float] | None = None) -> dict[str, float]:
    """Relevance in [0, 1] of every candidate from its score on each index (`scores`: index ->
    {id: score in [0, 1]}), by the plan's combination strategy (module docstring). Only the
    plan's steps over `kind_indexes` count, each with its weight; an index used by several
    steps counts once, with the largest weight. Deterministic: ranks break ties on ids."""
    defaults = default_weights or {}
    weights: dict[str, float] = {}
    for step in plan.steps:
        if step.index in kind_indexes and step.combine != "filter_by":
            w = step_weight(step, defaults.get(step.index, 1.0))
            weights[step.index] = max(weights.get(step.index, 0.0), w)
    ids = sorted({i for idx in weights for i in scores.get(idx, {})})
    out = {i: 0.0 for i in ids}
    if not weights:
        return out
    if plan.combination_strategy == "rrf":
        best = sum(w / (RRF_K + 1) for w in weights.values()) or 1.0
        for idx, w in weights.items():
            per = scores.get(idx, {})
            # competition ranking over scores rounded to RANK_DIGITS: equal evidence, equal rank
            # (the graph gives every fact of one entity nearly the same score; ids must not decide)
            keyed = sorted(((round(s, RANK_DIGITS), i) for i, s in per.items() if s > 0), key=lambda x: (-x[0], x[1]))
            rank, prev = 0, None
            for n, (s, i) in enumerate(keyed):
                if s != prev:
                    rank, prev = n + 1, s
                out[i] += w / (RRF_K + rank)
        return {i: min(v / best, 1.0) for i, v in out.items()}
    for i in ids:
        miss = 1.0
        for idx, w in weights.items():
            s = min(max(scores.get(idx, {}).get(i, 0.0), 0.0), 1.0)
            miss *= 1.0 - min(w, 1.0) * s
        out[i] = 1.0 - miss
    return out
