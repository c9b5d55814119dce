"""One plan, one executor (issue 18 item 10): one plan type; a retrieve() chooses its plan once
(heuristic or LLM planner, one validator) and the executor runs it once, every sub-query a step.
Counted through the trace a verbose retrieve returns, not through mocks."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import PlanValidationError, RetrievalError
from arandu_pipelines.read import planner_llm
from arandu_pipelines.read.plan import PlanStep, QueryPlan, RetrievalPlan
from arandu_pipelines.read.planner import plan_retrieval
from arandu_pipelines.read.planning import heuristic_plan, top_k_cap
from arandu_pipelines.read.registry import DEFAULT_REGISTRY, build_plan
from tests.fake_openai import provider
from tests.test_llm_planner import GOOD_PLAN, INSUFFICIENT, SUFFICIENT
from tests.test_read_pipeline import VERTIX_WORLD, write_all

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


def _names(r) -> list[str]:
    return [s.name for s in r.pipeline.steps]


def test_the_plan_type_is_one_class() -> None:
    from arandu_pipelines import read
    from arandu_pipelines.read import executor, planner

    assert QueryPlan is RetrievalPlan is read.RetrievalPlan is planner.RetrievalPlan is executor.QueryPlan
    # The heuristic planner's reading of the query and the validated, executable plan are one type.
    assert type(plan_retrieval("Where does Ana live?", None, NOW)) is RetrievalPlan
    plan, _ = planner_llm.validate_plan(GOOD_PLAN, "q", DEFAULT_REGISTRY,
                                        entities={"person:marcos_tavares": "Marcos Tavares"})
    assert type(plan) is RetrievalPlan and plan.combination_strategy == "rrf"
    # The two former classes took different positional orders: a stale positional call fails.
    with pytest.raises(TypeError):
        QueryPlan("q", "analysis", [PlanStep(1, "lexical_facts", {}, "")])  # type: ignore[misc]


async def test_one_retrieve_builds_one_plan_and_executes_it_once(memory) -> None:
    await write_all(memory, "ana", VERTIX_WORLD)
    # a query with an anchored time expression: the anchor event's search is a step of the plan
    r = await memory.retrieve("ana", "What did Marcos Tavares do two weeks before the trip?", session_id="s1",
                              verbose=True)
    names = _names(r)
    assert names.count("plan") == 1 and "planner" not in names  # one plan, recorded once
    assert names.count("execute") == 1  # the executor was entered once
    plan = r.pipeline.get("plan").data
    # the spec's fields and the executable steps live in the same plan
    assert plan["strategy"] == "multi_signal" and "person:marcos_tavares" in plan["entities"]
    assert plan["planner"] == "deterministic" and plan["planner_reason"] == "llm planner disabled"
    indexes = [s["index"] for s in plan["steps"]]
    assert "temporal_anchor" in indexes and "graph" in indexes and "recent_session" in indexes
    temporal = next(s for s in plan["steps"] if s["index"] == "temporal_events")
    anchor = next(s for s in plan["steps"] if s["index"] == "temporal_anchor")
    assert temporal["depends_on"] == [anchor["step_id"]]
    # every step ran exactly once, in that one execution
    ran = [s.data["step_id"] for s in r.pipeline.steps if s.name.startswith("step:")]
    assert sorted(ran) == [s["step_id"] for s in plan["steps"]]
    assert r.pipeline.get("execute").data["steps"] == len(plan["steps"])
    assert names.index("execute") < names.index("merge_rank")  # ranking reads the one execution


async def test_llm_plan_replaces_the_heuristic_one_and_revisions_reuse_the_executor(memory, fake) -> None:
    fake.on(planner_llm.PLAN_TASK, GOOD_PLAN)
    fake.on(planner_llm.EVAL_TASK, SUFFICIENT, times=1)
    await write_all(memory, "ana", VERTIX_WORLD)
    memory.llm = provider(fake)
    on = {"enable_llm_planner": True, "enable_reranker": False}
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=on, verbose=True)
    names = _names(r)
    assert names.count("plan") == 1 and names.count("execute") == 1
    assert r.pipeline.get("execute").data["planner"] == "llm"  # the heuristic steps never ran
    assert [s.data["step_id"] for s in r.pipeline.steps if s.name.startswith("step:")] == [1, 2]

    fake.on(planner_llm.EVAL_TASK, INSUFFICIENT)
    fake.on(planner_llm.REPLAN_TASK, {**GOOD_PLAN, "steps": [
        {"step_id": 1, "index": "semantic_events", "params": {"top_k": 10}}]})
    r = await memory.retrieve("ana", "Which city is Marcos Tavares living in?", config_overrides=on, verbose=True)
    names = _names(r)
    # one plan per planning round, each run by the same executor; the last one is the query's plan
    assert names.count("plan") == 1 and names.count("execute") == planner_llm.MAX_REPLANS + 1
    assert [s["index"] for s in r.pipeline.get("plan").data["steps"]] == ["semantic_events"]


async def test_the_heuristic_plan_goes_through_the_validator(memory, monkeypatch) -> None:
    """The validator the LLM's plans pass also checks the heuristic planner's: a proposal naming
    an index the registry lacks is rejected, not run."""
    from arandu_pipelines.read import planning

    await write_all(memory, "ana", VERTIX_WORLD[:3])
    real = planning.build_plan

    def broken(*a, **k):
        proposal = real(*a, **k)
        proposal["steps"].append({"step_id": 99, "index": "hierarchical", "params": {}, "rationale": "x"})
        return proposal

    monkeypatch.setattr(planning, "build_plan", broken)
    with pytest.raises(RetrievalError) as info:
        await memory.retrieve("ana", "Where does Marcos Tavares live?", strict=True)
    assert isinstance(info.value.__cause__, PlanValidationError)
    assert "unknown index 'hierarchical'" in str(info.value.__cause__)


def test_validation_keeps_what_a_large_configuration_asks_for() -> None:
    """The validator's caps bound LLM plans; the heuristic plan of a configuration asking for
    more than them runs as asked (behaviour unchanged by the validation)."""
    config = dataclasses.replace(MemoryConfig(), topk_facts=120, topk_events=50, event_max_scan=400)
    plan = plan_retrieval("Where does Marcos Tavares live?", None, NOW)
    plan.entities = ["person:marcos_tavares"]
    kw = {"entities": {"person:marcos_tavares": "Marcos Tavares"}, "session_id": "s1",
          "max_results": config.topk_facts, "max_top_k": top_k_cap(config, plan)}
    checked = heuristic_plan(plan, DEFAULT_REGISTRY, config, "s1", True, True, kw)
    proposal = build_plan(plan, config, "s1")
    assert checked.max_results == 120
    assert [s.params for s in checked.steps] == [s["params"] for s in proposal["steps"]]
    assert {s.index: s.params.get("top_k") for s in checked.steps}["lexical_facts"] == 240
    assert checked.entities == plan.entities and checked.query == plan.query  # the same plan, now executable
