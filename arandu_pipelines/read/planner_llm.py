"""The optional LLM query planner (seed 003): plan -> validate -> execute -> evaluate -> replan.

Off by default (`enable_llm_planner`); it runs only when the client has an LLM. The LLM sees the
index registry's descriptors (`IndexRegistry.describe()`) and answers in the seed-003 form the
heuristic planner's `registry.build_plan` also returns; `validate_plan` turns either into the
query's one `RetrievalPlan` (read/plan.py), and the same `PlanExecutor` runs it. The stage that
picks the planner and calls the executor is read/planning.py.

Safety net, in order:
- every LLM plan is validated against the registry before it runs: unknown or unavailable index,
  missing required parameter, wrong parameter type, duplicate step id, a dependency on a step
  that does not exist, a cycle, an unknown fusion strategy -> the plan is rejected;
- with no LLM, a rejected first plan, or any failure of the planner call (timeout, HTTP error,
  unparsable JSON), the deterministic plan (`registry.build_plan`) runs instead;
- after execution an evaluator judges sufficiency (per step); when insufficient a replanner
  proposes a revised plan, at most `MAX_REPLANS` times. A failing evaluator or replanner, or a
  rejected revised plan, ends the loop with the last executed (valid) plan's results;
- plans judged sufficient are cached per agent by query *shape* (folded query with the names of
  the resolved entities, numbers and quoted text masked), in a bounded LRU, and reused without a
  planner call (the evaluator still checks them; an insufficient cached plan is evicted).

The trace's "plan" step says which planner ran (`planner`: llm | cache | deterministic) and why
(`planner_reason`); the "llm_planner" step has every round, its validation and evaluation.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from arandu_pipelines.keys import fold
from arandu_pipelines.providers.json_parse import (
    LLMCallError,
    as_bool,
    as_float,
    as_str,
    as_str_list,
    complete_json,
)
from arandu_pipelines.read.executor import ExecutionResult
from arandu_pipelines.read.plan import PlanStep, RetrievalPlan
from arandu_pipelines.read.sql import fetch

TIMEOUT_SEC = 8.0  # per LLM call (planner, evaluator, replanner)
MAX_REPLANS = 2  # replanning rounds after the first plan: at most 1 + MAX_REPLANS executions
MAX_STEPS = 12
MAX_TOP_K = 200
CACHE_PER_AGENT = 128
CACHE_AGENTS = 256
STRATEGIES = ("weighted_union", "rrf", "sequential_filter")
ANSWER_TYPES = ("text", "yes_no", "number", "date", "list")
COMBINES = ("union", "intersect", "filter_by")
EXTRA_PARAMS = {"weight": "float"}  # understood by the executor's fusion for every index

PLAN_TASK = "TASK: query_plan"
EVAL_TASK = "TASK: plan_evaluation"
REPLAN_TASK = "TASK: replan"

_PLAN_FORMAT = (
    "Answer with JSON only:\n"
    '{"analysis": "...", "steps": [{"step_id": 1, "index": "<index name>", "params": {...}, '
    '"rationale": "...", "depends_on": [], "combine": "union"}], '
    '"combination_strategy": "weighted_union" | "rrf" | "sequential_filter", '
    '"expected_answer_type": "text" | "yes_no" | "number" | "date" | "list", "max_results": 20}\n'
    "Use only the indexes listed, with their parameters. Entity parameters take the canonical keys "
    "given under Known entities. Independent steps have no depends_on. Write in English."
)
_PLAN_SYSTEM = (
    f"{PLAN_TASK}\nYou are a query planner for a memory retrieval system. Given a user's question "
    "and the available indexes, generate a query plan that retrieves the most relevant information.\n"
    + _PLAN_FORMAT
)
_REPLAN_SYSTEM = (
    f"{REPLAN_TASK}\nYou are revising a query plan that did not produce sufficient results. Keep the "
    "steps that worked, replace or remove the ones that failed, add steps for the diagnosed gaps. "
    "Do NOT simply repeat the same plan.\n" + _PLAN_FORMAT
)
_EVAL_SYSTEM = (
    f"{EVAL_TASK}\nYou evaluate retrieval results for a memory system query: are they sufficient to "
    "answer it? Assess each plan step.\nAnswer with JSON only:\n"
    '{"sufficient": true|false, "confidence": 0.0-1.0, "failure_diagnosis": "..." | null, '
    '"step_assessments": {"1": {"useful": true|false, "quality": "high|medium|low|empty", '
    '"issue": "..." | null}}, "suggested_changes": ["..."]}\n'
    "If insufficient, say specifically why (missing entity, uncovered time period, unresolved "
    "relationship). Write in English."
)


from arandu_pipelines.errors import PlanValidationError


@dataclass
class Evaluation:
    sufficient: bool
    confidence: float
    failure_diagnosis: str | None
    step_assessments: dict[str, dict[str, Any]]
    suggested_changes: list[str]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0

    def add(self, i: int, o: int) -> None:
        self.input_tokens += i
        self.output_tokens += o
        self.calls += 1


# ---- validation ----------------------------------------------------------------------------------
def _coerce(value: Any, type_: str, name: str) -> Any:
    if type_ == "int":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise PlanValidationError(f"param {name} must be an int")
        try:
            return int(float(value))
        except ValueError:
            raise PlanValidationError(f"param {name} must be an int") from None
    if type_ == "float":
        v = as_float(value)
        if v is None:
            raise PlanValidationError(f"param {name} must be a number")
        return v
    if type_ == "bool":
        if not isinstance(value, (bool, str, int)):
            raise PlanValidationError(f"param {name} must be a bool")
        return as_bool(value)
    if type_ == "list[str]":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PlanValidationError(f"param {name} must be a list of strings")
        return [v.strip() for v in value if v.strip()]
    if type_ == "string":
        s = as_str(value, 500)
        if s is None:
            raise PlanValidationError(f"param {name} must be a string")
        return s
    return value


def validate_plan(
    data: Any, query: str, registry: Any, *, entities: dict[str, str] | None = None,
    session_id: str | None = None, max_results: int = 20, max_top_k: int = MAX_TOP_K,
    base: RetrievalPlan | None = None,
) -> tuple[RetrievalPlan, list[str]]:
    """A plan proposal (an LLM answer, or the heuristic planner's `registry.build_plan`) -> the
    plan the executor runs, or PlanValidationError. Both planners go through this one check.

    `entities` maps the query's known canonical keys to display names: entity parameters must
    name them (a display name is mapped to its key; anything else is dropped, and a step left
    without entities is an error). `recent_session` is pinned to the request's session.
    `top_k`-like parameters are clamped to `max_top_k`, `max_results` to max(100, `max_results`).
    With `base` (the query's plan as the heuristic planner read it) the result is that plan
    with these steps; without, a plan of the steps alone.
    Returns the plan and notes about what was normalised (dropped unknown params, clamps)."""
    if not isinstance(data, dict):
        raise PlanValidationError("plan is not a JSON object")
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise PlanValidationError("plan has no steps")
    if len(raw_steps) > MAX_STEPS:
        raise PlanValidationError(f"plan has {len(raw_steps)} steps (max {MAX_STEPS})")
    known = _KnownNames(entities or {}, session_id)
    notes: list[str] = []
    steps: list[PlanStep] = []
    seen: set[int] = set()
    for i, s in enumerate(raw_steps, start=1):
        steps.append(_validate_step(s, i, seen, registry, known, notes, max_top_k))
    ids = {s.step_id for s in steps}
    for s in steps:
        bad = [d for d in s.depends_on if d not in ids or d == s.step_id]
        if bad:
            raise PlanValidationError(f"step {s.step_id}: depends on unknown step(s) {bad}")
    _check_acyclic(steps)
    strategy = data.get("combination_strategy") or "weighted_union"
    if strategy not in STRATEGIES:
        raise PlanValidationError(f"unknown combination_strategy {strategy!r}")
    answer = data.get("expected_answer_type") or "text"
    if answer not in ANSWER_TYPES:
        notes.append(f"unknown expected_answer_type {answer!r} -> text")
        answer = "text"
    mr = data.get("max_results", max_results)
    try:
        mr = min(max(int(mr), 1), max(100, max_results))
    except (TypeError, ValueError):
        mr = max_results
    fields: dict[str, Any] = {"query": query, "analysis": as_str(data.get("analysis"), 1000) or "",
                              "steps": steps, "combination_strategy": strategy,
                              "expected_answer_type": answer, "max_results": mr}
    plan = dataclasses.replace(base, **fields) if base is not None else RetrievalPlan(**fields)
    return plan, notes


@dataclass
class _KnownNames:
    """What a plan's steps may refer to: the query's entities (key -> display name) and session."""

    entities: dict[str, str]
    session_id: str | None
    by_name: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.by_name = {fold(n): k for k, n in self.entities.items()}


def _validate_step(s: Any, i: int, seen: set[int], registry: Any, known: _KnownNames,
                   notes: list[str], max_top_k: int = MAX_TOP_K) -> PlanStep:
    """Step `i` of the plan (its ids so far in `seen`), checked and normalised."""
    if not isinstance(s, dict):
        raise PlanValidationError(f"step {i} is not an object")
    sid = _step_id(s, i, seen)
    index = s.get("index")
    adapter = registry.adapters.get(index) if isinstance(index, str) else None
    if adapter is None or not isinstance(index, str):
        raise PlanValidationError(f"step {sid}: unknown index {index!r}")
    desc = adapter.descriptor
    if not desc.available:
        raise PlanValidationError(f"step {sid}: index {index} is not available")
    params = _step_params(s, sid, desc, notes, max_top_k)
    fix = _INDEX_PARAMS.get(index)
    if fix is not None:
        fix(params, sid, known, notes)
    missing = [n for n, p in desc.query_params.items() if p.required and n not in params]
    if missing:
        raise PlanValidationError(f"step {sid}: {index} lacks required {', '.join(missing)}")
    deps = _step_deps(s, sid)
    combine = s.get("combine") or "union"
    if combine not in COMBINES:
        raise PlanValidationError(f"step {sid}: unknown combine {combine!r}")
    return PlanStep(sid, index, params, as_str(s.get("rationale"), 300) or "", sorted(set(deps)),
                    combine)


def _step_id(s: dict[str, Any], i: int, seen: set[int]) -> int:
    sid = s.get("step_id", i)
    if isinstance(sid, bool) or not isinstance(sid, (int, str)) or not str(sid).strip().isdigit():
        raise PlanValidationError(f"step {i}: step_id must be an integer")
    sid = int(sid)
    if sid in seen:
        raise PlanValidationError(f"duplicate step_id {sid}")
    seen.add(sid)
    return sid


# Numeric params clamped to a range: name -> (low, high); None: the caller's `max_top_k`.
_CLAMPS: dict[str, tuple[float, float | None]] = {"top_k": (1, None), "max_facts": (1, None),
                                                  "weight": (0.0, 5.0)}


def _step_params(s: dict[str, Any], sid: int, desc: Any, notes: list[str],
                 max_top_k: int = MAX_TOP_K) -> dict[str, Any]:
    """The step's params the index (or the executor's fusion) understands, coerced and clamped."""
    params_in = s.get("params") or {}
    if not isinstance(params_in, dict):
        raise PlanValidationError(f"step {sid}: params must be an object")
    params: dict[str, Any] = {}
    for name, value in params_in.items():
        spec = desc.query_params.get(name)
        type_ = spec.type if spec is not None else EXTRA_PARAMS.get(name)
        if type_ is None:
            notes.append(f"step {sid}: dropped unknown param {name}")
            continue
        if value is None:
            continue
        params[name] = _coerce(value, type_, name)
    for name, (low, high) in _CLAMPS.items():
        if name in params:
            params[name] = min(max(params[name], low), max_top_k if high is None else high)
    return params


def _graph_params(params: dict[str, Any], sid: int, known: _KnownNames, notes: list[str]) -> None:
    keys: list[str] = []
    for e in params.get("entities", []):
        k = e if e in known.entities else known.by_name.get(fold(e))
        if k is None:
            notes.append(f"step {sid}: dropped unknown entity {e!r}")
        elif k not in keys:
            keys.append(k)
    if not keys:
        raise PlanValidationError(f"step {sid}: graph step names no known entity")
    params["entities"] = keys


def _recent_session_params(params: dict[str, Any], sid: int, known: _KnownNames,
                           notes: list[str]) -> None:
    if known.session_id is None:
        raise PlanValidationError(f"step {sid}: recent_session without a session")
    params["session_id"] = known.session_id


def _pattern_query_params(params: dict[str, Any], sid: int, known: _KnownNames,
                          notes: list[str]) -> None:
    pats = [p for p in params.get("patterns", []) if re.fullmatch(r"[a-z_]+:[\w%]*", p)]
    if not pats:
        raise PlanValidationError(f"step {sid}: no valid entity-key patterns")
    params["patterns"] = pats


# Per-index checks of a step's params against what the request knows (entities, session).
_INDEX_PARAMS: dict[str, Callable[[dict[str, Any], int, _KnownNames, list[str]], None]] = {
    "graph": _graph_params,
    "recent_session": _recent_session_params,
    "pattern_query": _pattern_query_params,
}


def _step_deps(s: dict[str, Any], sid: int) -> list[int]:
    deps = s.get("depends_on") or []
    if isinstance(deps, (int, str)) and not isinstance(deps, bool):
        deps = [deps]
    if not isinstance(deps, list) or not all(
            (isinstance(d, int) and not isinstance(d, bool)) or (isinstance(d, str) and d.strip().isdigit())
            for d in deps):
        raise PlanValidationError(f"step {sid}: depends_on must be a list of step ids")
    return [int(d) for d in deps]


def _check_acyclic(steps: list[PlanStep]) -> None:
    deps = {s.step_id: set(s.depends_on) for s in steps}
    done: set[int] = set()
    while len(done) < len(deps):
        ready = [k for k, v in deps.items() if k not in done and v <= done]
        if not ready:
            raise PlanValidationError(f"dependency cycle among steps {sorted(set(deps) - done)}")
        done.update(ready)


# ---- query shape and the plan cache --------------------------------------------------------------
def query_shape(query: str, names: list[str]) -> str:
    """The folded query with entity names, quoted text and numbers masked."""
    q = f" {fold(query)} "
    for n in sorted({fold(x) for x in names if x and x.strip()}, key=len, reverse=True):
        q = re.sub(r"(?<!\w)" + re.escape(n) + r"(?!\w)", " <e> ", q)
    q = re.sub(r"\"[^\"]*\"|'[^']*'", " <q> ", q)
    q = re.sub(r"\d+(?:[.,:/-]\d+)*", " <n> ", q)
    q = re.sub(r"[^\w<>]+", " ", q)
    return " ".join(q.split())


class PlanCache:
    """Per agent, a bounded LRU of successful plan templates by query shape."""

    def __init__(self, per_agent: int = CACHE_PER_AGENT, agents: int = CACHE_AGENTS) -> None:
        self.per_agent, self.agents = per_agent, agents
        self._data: OrderedDict[str, OrderedDict[str, dict[str, Any]]] = OrderedDict()

    def get(self, agent_id: str, shape: str) -> dict[str, Any] | None:
        bucket = self._data.get(agent_id)
        if bucket is None or shape not in bucket:
            return None
        self._data.move_to_end(agent_id)
        bucket.move_to_end(shape)
        return bucket[shape]

    def put(self, agent_id: str, shape: str, template: dict[str, Any]) -> None:
        bucket = self._data.setdefault(agent_id, OrderedDict())
        self._data.move_to_end(agent_id)
        bucket[shape] = template
        bucket.move_to_end(shape)
        while len(bucket) > self.per_agent:
            bucket.popitem(last=False)
        while len(self._data) > self.agents:
            self._data.popitem(last=False)

    def evict(self, agent_id: str, shape: str) -> None:
        bucket = self._data.get(agent_id)
        if bucket is not None:
            bucket.pop(shape, None)

    def size(self, agent_id: str) -> int:
        return len(self._data.get(agent_id, {}))


_CACHES: weakref.WeakKeyDictionary[Any, PlanCache] = weakref.WeakKeyDictionary()
_FALLBACK_CACHE = PlanCache()


def cache_for(llm: Any) -> PlanCache:
    try:
        return _CACHES.setdefault(llm, PlanCache())
    except TypeError:
        return _FALLBACK_CACHE


def _template(plan: RetrievalPlan) -> dict[str, Any]:
    """A plan without its query-specific values: graph entities become "the query's entities",
    temporal anchors "the query's anchors", the session "the request's session"."""
    data: dict[str, Any] = plan.executable()
    for s in data["steps"]:
        if s["index"] == "graph":
            s["params"]["entities"] = "$entities"
        if s["index"] == "temporal_anchor":
            s["params"] = "$anchor"
        if s["index"] == "recent_session":
            s["params"]["session_id"] = "$session"
    return data


def _instantiate(template: dict[str, Any], query: str, anchors: list[dict[str, Any]], entities: list[str],
                 session_id: str | None) -> dict[str, Any] | None:
    """The template filled in for this query (None: it does not fit, e.g. no entities).
    `anchors` are the query's `temporal_anchor` step parameters."""
    data = json.loads(json.dumps(template))
    n_anchor = 0
    for s in data["steps"]:
        if s["index"] == "graph":
            if not entities:
                return None
            s["params"]["entities"] = list(entities)
        elif s["index"] == "temporal_anchor":
            if n_anchor >= len(anchors):
                return None
            s["params"] = dict(anchors[n_anchor])
            n_anchor += 1
        elif s["index"] == "recent_session":
            if session_id is None:
                return None
            s["params"]["session_id"] = session_id
    if n_anchor != len(anchors):
        return None
    data["query"] = query
    return data


# ---- prompts ---------------------------------------------------------------------------------------
def _context_block(query: str, registry: Any, entities: dict[str, str], analysis: str,
                   session_id: str | None) -> str:
    known = "\n".join(f"- {k} ({n})" for k, n in entities.items()) or "- none"
    return (f"## Available Indexes\n{registry.describe()}\n\n## User Query\n{query}\n\n"
            f"## Known entities\n{known}\n\n## Query Analysis\n{analysis}; "
            f"session={'yes' if session_id else 'no'}")


async def _texts(ctx: Any, ids: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    facts = [i for k, i in ids if k == "fact"]
    events = [i for k, i in ids if k == "event"]
    out: dict[tuple[str, str], str] = {}
    if facts:
        for r in await fetch(ctx.conn, "SELECT id::text AS id, fact_text AS t FROM memory_facts WHERE "
                             "agent_id = :a AND id = ANY(CAST(:ids AS uuid[]))",
                             {"a": ctx.scope.agent_id, "ids": facts}):
            out[("fact", r.id)] = r.t
    if events:
        for r in await fetch(ctx.conn, "SELECT id::text AS id, coalesce(speaker || ': ', '') || text AS t "
                             "FROM memory_events WHERE agent_id = :a AND id = ANY(CAST(:ids AS uuid[]))",
                             {"a": ctx.scope.agent_id, "ids": events}):
            out[("event", r.id)] = r.t
    return out


async def _results_summary(ctx: Any, execution: ExecutionResult) -> tuple[str, str]:
    combined = sorted(execution.candidates.values(), key=lambda c: (-c.fused, c.kind, c.id))[:10]
    per_step = {sid: sorted(r.hits, key=lambda h: (-h.score, h.id))[:3]
                for sid, r in execution.step_results.items()}
    wanted = {(c.kind, c.id) for c in combined} | {(h.kind, h.id) for hs in per_step.values() for h in hs}
    texts = await _texts(ctx, sorted(wanted))
    lines = []
    for sid in sorted(execution.step_results):
        r = execution.step_results[sid]
        lines.append(f"Step {sid} ({r.index}): {len(r.hits)} results" + (f", error: {r.error}" if r.error else ""))
        for h in per_step[sid]:
            lines.append(f"  - [{h.kind}] {texts.get((h.kind, h.id), '?')[:200]}")
    preview = "\n".join(f"- [{c.kind}] {texts.get((c.kind, c.id), '?')[:200]}" for c in combined) or "- nothing"
    return "\n".join(lines) or "no steps", preview


def _validate_eval(v: Any) -> Evaluation:
    if not isinstance(v, dict) or "sufficient" not in v:
        raise ValueError("evaluation lacks 'sufficient'")
    if not isinstance(v["sufficient"], (bool, str)):
        raise TypeError("'sufficient' must be a boolean")
    sa = v.get("step_assessments") or {}
    if not isinstance(sa, dict):
        raise TypeError("step_assessments must be an object")
    return Evaluation(as_bool(v["sufficient"]), as_float(v.get("confidence"), 0.0, 1.0) or 0.0,
                      as_str(v.get("failure_diagnosis"), 500),
                      {str(k): x for k, x in sa.items() if isinstance(x, dict)},
                      as_str_list(v.get("suggested_changes"), 8, 300))


# ---- the LLM planner: propose a plan, review its results ----------------------------------------
class LLMPlanner:
    """The LLM side of one query's planning. `propose()` gives the query's plan (cached template
    or planner call, validated) or None with the reason to use the heuristic plan; after the
    executor ran it, `review()` lets the evaluator judge it and the replanner revise it, each
    revision validated by the same validator and run by the same executor (`execute`)."""

    def __init__(self, llm: Any, registry: Any, agent_id: str, query: str, entities: dict[str, str],
                 names: list[str], session_id: str | None, analysis: str, anchors: list[dict[str, Any]],
                 validate_kw: dict[str, Any]) -> None:
        self.llm, self.registry, self.agent_id, self.query = llm, registry, agent_id, query
        self.entities, self.session_id, self.anchors = entities, session_id, anchors
        self.validate_kw = validate_kw
        self.shape = query_shape(query, names)
        self.cache = cache_for(llm)
        self.context = _context_block(query, registry, entities, analysis, session_id)
        self.usage = Usage()
        self.rounds: list[dict[str, Any]] = []

    def _validate(self, data: Any, base: RetrievalPlan, source: str) -> tuple[RetrievalPlan, list[str]]:
        plan, notes = validate_plan(data, self.query, self.registry, base=base, **self.validate_kw)
        plan.planner = source
        return plan, notes

    async def propose(self, base: RetrievalPlan) -> tuple[RetrievalPlan | None, str]:
        """The plan for `base` (the query as the heuristic planner read it), or None and why not.
        Never raises for an LLM failure."""
        cached = self.cache.get(self.agent_id, self.shape)
        if cached is not None:
            data = _instantiate(cached, self.query, self.anchors, list(self.entities), self.session_id)
            if data is not None:
                try:
                    plan, _ = self._validate(data, base, "cache")
                    self.rounds.append({"round": 0, "source": "cache", "shape": self.shape})
                    return plan, "cached plan for this query shape"
                except Exception as exc:  # noqa: BLE001 - a stale template, whatever it breaks: forget it (in the trace)
                    self.cache.evict(self.agent_id, self.shape)
                    self.rounds.append({"round": 0, "source": "cache", "rejected": str(exc)[:200]})
        t = time.perf_counter()
        try:
            data = await complete_json(self.llm, [{"role": "system", "content": _PLAN_SYSTEM},
                                                  {"role": "user", "content": self.context}],
                                       timeout=TIMEOUT_SEC, usage=self.usage, max_tokens=1200)
            plan, notes = self._validate(data, base, "llm")
            self.rounds.append({"round": 0, "source": "llm", "ms": _ms(t), "notes": notes})
            return plan, "llm plan"
        except LLMCallError as exc:
            self.rounds.append({"round": 0, "source": "llm", "ms": _ms(t), "error": str(exc)[:300]})
            return None, f"planner call failed ({exc.kind})"
        except PlanValidationError as exc:
            self.rounds.append({"round": 0, "source": "llm", "ms": _ms(t), "rejected": str(exc)[:300]})
            return None, f"plan rejected: {exc}"[:200]
        except Exception as exc:  # noqa: BLE001 - optional LLM stage, fail-safe: heuristic plan, error in the trace
            self.rounds.append({"round": 0, "source": "llm", "error": f"{type(exc).__name__}: {exc}"[:300]})
            return None, "planner error"

    async def review(
        self, plan: RetrievalPlan, execution: ExecutionResult, ctx: Any, reason: str,
        execute: Callable[[RetrievalPlan], Awaitable[tuple[ExecutionResult, Any]]],
    ) -> tuple[RetrievalPlan, ExecutionResult, Any, str]:
        """Evaluate the executed plan; while insufficient (at most MAX_REPLANS times) replan,
        validate and `execute` the revision. Ends with the last executed (valid) plan."""
        for rnd in range(MAX_REPLANS + 1):
            t = time.perf_counter()
            try:
                steps_txt, preview = await _results_summary(ctx, execution)
                evaluation = await complete_json(
                    self.llm, [{"role": "system", "content": _EVAL_SYSTEM},
                               {"role": "user", "content": f"## Original Query\n{self.query}\n\n## Plan Executed\n"
                                f"{json.dumps(plan.executable(), ensure_ascii=False)}\n\n## Results Per Step\n"
                                f"{steps_txt}\n\n## Combined Results (top 10)\n{preview}"}],
                    timeout=TIMEOUT_SEC, usage=self.usage, validate=_validate_eval, max_tokens=600)
            except Exception as exc:  # noqa: BLE001 - optional LLM stage, fail-safe: results kept, error in the trace
                self.rounds[-1]["evaluation_error"] = str(exc)[:300]
                return plan, execution, ctx, reason + "; evaluator failed, results kept"
            self.rounds[-1]["evaluation"] = evaluation.to_dict()
            self.rounds[-1]["eval_ms"] = _ms(t)
            if evaluation.sufficient:
                self.cache.put(self.agent_id, self.shape, _template(plan))
                return plan, execution, ctx, reason + "; judged sufficient"
            if plan.planner == "cache":
                self.cache.evict(self.agent_id, self.shape)
            if rnd == MAX_REPLANS:
                return plan, execution, ctx, reason + f"; still insufficient after {MAX_REPLANS} replans"
            t = time.perf_counter()
            try:
                data = await complete_json(
                    self.llm, [{"role": "system", "content": _REPLAN_SYSTEM},
                               {"role": "user", "content": f"{self.context}\n\n## Prior Plan\n"
                                f"{json.dumps(plan.executable(), ensure_ascii=False)}\n\n## Evaluation\n"
                                f"{json.dumps(evaluation.to_dict(), ensure_ascii=False)}\n\n## What to Fix\n"
                                f"{evaluation.failure_diagnosis or '-'}\n" + "\n".join(
                                    f"- {c}" for c in evaluation.suggested_changes)}],
                    timeout=TIMEOUT_SEC, usage=self.usage, max_tokens=1200)
                revised, notes = self._validate(data, plan, "llm")
            except Exception as exc:  # noqa: BLE001 - optional LLM stage, fail-safe: results kept, error in the trace
                self.rounds.append({"round": rnd + 1, "source": "replan", "ms": _ms(t), "error": str(exc)[:300]})
                return plan, execution, ctx, reason + "; replan failed, last results kept"
            self.rounds.append({"round": rnd + 1, "source": "replan", "ms": _ms(t), "notes": notes})
            plan = revised
            execution, ctx = await execute(plan)
            reason = f"llm replan round {rnd + 1}"
        return plan, execution, ctx, reason


def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 3)


__all__ = [
    "MAX_REPLANS",
    "MAX_TOP_K",
    "TIMEOUT_SEC",
    "Evaluation",
    "LLMPlanner",
    "PlanCache",
    "PlanValidationError",
    "Usage",
    "query_shape",
    "validate_plan",
]
