"""The planning stage of `retrieve()`: one plan per query, run once by one executor.

In: the query's `RetrievalPlan` as the heuristic planner read it (read/planner.py), its entities
resolved, and the execution context. Then, in one pass:

1. one planner chooses the index steps: the LLM planner when configured and it answers with a
   valid plan (or a cached template fits), else the heuristic planner (`registry.build_plan`);
2. the proposal goes through the one validator (`planner_llm.validate_plan`), whichever planner
   wrote it, and becomes the query's plan;
3. the executor (`executor.PlanExecutor`) runs the plan's steps once, layer by layer; every
   sub-query the plan needs (an anchor event's date, a graph walk) is one of its steps;
4. only with the LLM planner: the evaluator may judge the results insufficient and the replanner
   revise the plan (at most `MAX_REPLANS` times), each revision validated and run by the same
   executor; the last one executed is the query's plan.

The ranking, the messages and the formatting then read `PlannerOutcome.plan` and `.execution`;
nothing goes back into planning or into the index steps for the same query.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read.executor import ExecutionResult, PlanExecutor
from arandu_pipelines.read.plan import RetrievalPlan
from arandu_pipelines.read.planner_llm import (
    MAX_TOP_K,
    LLMPlanner,
    Usage,
    validate_plan,
)
from arandu_pipelines.read.registry import anchor_params, build_plan, heuristic_analysis


@dataclass
class PlannerOutcome:
    plan: RetrievalPlan  # the query's plan (the last one executed)
    execution: ExecutionResult
    ctx: Any  # the execution context the plan ran in (windows and graph reach filled by its steps)
    planner: str  # llm | cache | deterministic
    reason: str
    rounds: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def top_k_cap(config: MemoryConfig, plan: RetrievalPlan) -> int:
    """The largest `top_k` a plan may ask for: the validator's cap, or more when the caller's
    configuration asks the heuristic planner for more (a plan never fetches more than that)."""
    return max(MAX_TOP_K, config.topk_facts * 2, plan.max_facts, config.topk_events * 5)


def heuristic_plan(plan: RetrievalPlan, registry: Any, config: MemoryConfig, session_id: str | None,
                   has_facts: bool, has_events: bool, validate_kw: dict[str, Any]) -> RetrievalPlan:
    """The heuristic planner's steps for `plan`, through the validator every plan passes. A plan
    without steps (nothing stored yet) has nothing to validate. An invalid heuristic plan is a
    bug: PlanValidationError surfaces (retrieve's fail-safe reports it)."""
    proposal = build_plan(plan, config, session_id, has_facts, has_events)
    if not proposal["steps"]:
        fields = {k: v for k, v in proposal.items() if k != "steps"}
        return dataclasses.replace(plan, **fields, steps=[], planner="deterministic")
    checked, _ = validate_plan(proposal, plan.query, registry, base=plan, **validate_kw)
    checked.planner = "deterministic"
    return checked


async def plan_and_execute(
    llm: Any, registry: Any, agent_id: str, plan: RetrievalPlan, ctx: Any, config: MemoryConfig, *,
    session_id: str | None, has_facts: bool = True, has_events: bool = True, on_step: Any = None,
    trace: Any = None, disabled_reason: str | None = None,
) -> PlannerOutcome:
    """Choose the query's plan, validate it, execute it (module docstring). Never raises for an
    LLM failure; `disabled_reason` (or no `llm`) means the heuristic planner alone."""
    executor = PlanExecutor(registry.adapters)
    entities = {k: ctx.resolution.names.get(k, k) for k in plan.entities}
    validate_kw = {"entities": entities, "session_id": session_id, "max_results": config.topk_facts,
                   "max_top_k": top_k_cap(config, plan)}
    llm_planner: LLMPlanner | None = None
    chosen: RetrievalPlan | None = None
    reason = disabled_reason or "no llm"
    if llm is not None and not disabled_reason:
        names = list(entities.values()) + list(ctx.resolution.speakers) + list(ctx.resolution.mentions.values())
        anchors = [anchor_params(a) for a in plan.time_anchors] if has_events else []
        llm_planner = LLMPlanner(llm, registry, agent_id, plan.query, entities, names, session_id,
                                 heuristic_analysis(plan, has_events), anchors, validate_kw)
        chosen, reason = await llm_planner.propose(plan)
    if chosen is None:
        chosen = heuristic_plan(plan, registry, config, session_id, has_facts, has_events, validate_kw)
    ctx.plan = chosen
    execution = await executor.execute(chosen, ctx, on_step, trace)
    if llm_planner is None:
        return PlannerOutcome(chosen, execution, ctx, "deterministic", reason)
    if chosen.planner != "deterministic":

        async def execute(revised: RetrievalPlan) -> tuple[ExecutionResult, Any]:
            sub = dataclasses.replace(ctx, plan=revised, windows=list(revised.time_windows), graph_reach={})
            return await executor.execute(revised, sub, on_step, trace), sub

        chosen, execution, ctx, reason = await llm_planner.review(chosen, execution, ctx, reason, execute)
    return PlannerOutcome(chosen, execution, ctx, chosen.planner, reason, llm_planner.rounds, llm_planner.usage)


__all__ = ["PlannerOutcome", "heuristic_plan", "plan_and_execute", "top_k_cap"]
