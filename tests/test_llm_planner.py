"""The LLM query planner (read/planner_llm.py) over real HTTP against the fake OpenAI server:
a valid plan runs; invalid plans, timeouts and HTTP errors fall back to the deterministic plan;
a second query of the same shape reuses the cached plan; the replanner is capped."""

from __future__ import annotations

import pytest

from arandu_pipelines.read import planner_llm
from arandu_pipelines.read.planner_llm import (
    PlanCache,
    PlanValidationError,
    query_shape,
    validate_plan,
)
from arandu_pipelines.read.registry import DEFAULT_REGISTRY
from tests.fake_openai import Delay, Status, provider
from tests.test_read_pipeline import VERTIX_WORLD, write_all

PLAN, EVAL, REPLAN = planner_llm.PLAN_TASK, planner_llm.EVAL_TASK, planner_llm.REPLAN_TASK
ON = {"enable_llm_planner": True, "enable_reranker": False}
MARCOS = "person:marcos_tavares"

GOOD_PLAN = {
    "analysis": "Where a person lives: the person's facts and exact words.",
    "steps": [
        {"step_id": 1, "index": "graph", "params": {"entities": [MARCOS]}, "rationale": "facts of Marcos",
         "depends_on": [], "combine": "union"},
        {"step_id": 2, "index": "lexical_facts", "params": {"top_k": 20, "query_text": "ignored"},
         "rationale": "exact words", "depends_on": [], "combine": "union"},
    ],
    "combination_strategy": "rrf", "expected_answer_type": "text", "max_results": 10,
}
SUFFICIENT = {"sufficient": True, "confidence": 0.9, "failure_diagnosis": None,
              "step_assessments": {"1": {"useful": True, "quality": "high", "issue": None}},
              "suggested_changes": []}
INSUFFICIENT = {"sufficient": False, "confidence": 0.3, "failure_diagnosis": "the city is missing",
                "step_assessments": {}, "suggested_changes": ["search the messages"]}


def _plan(r):
    return r.pipeline.get("plan").data


async def _world(memory, fake):
    await write_all(memory, "ana", VERTIX_WORLD)
    memory.llm = provider(fake)


async def test_valid_llm_plan_runs(memory, fake) -> None:
    fake.on(PLAN, GOOD_PLAN)
    fake.on(EVAL, SUFFICIENT)
    await _world(memory, fake)
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON, verbose=True)
    plan = _plan(r)
    assert plan["planner"] == "llm" and "judged sufficient" in plan["planner_reason"]
    assert [s["index"] for s in plan["steps"]] == ["graph", "lexical_facts"]
    assert plan["steps"][1]["params"] == {"top_k": 20}  # unknown param dropped
    assert plan["combination_strategy"] == "rrf"
    assert "Porto Alegre" in r.facts[0].fact_text
    assert not any(s.name == "step:semantic_events" for s in r.pipeline.steps)
    # The registry's descriptors and the known entities were in the planner's prompt.
    call = fake.calls(PLAN)[0]
    assert "semantic_facts(" in call.user and "temporal_anchor(" in call.user
    assert f"{MARCOS} (Marcos Tavares)" in call.user
    assert "Porto Alegre" in fake.calls(EVAL)[0].user  # the evaluator saw the results' content
    info = r.pipeline.get("llm_planner").data
    assert info["llm_calls"] == 2 and info["input_tokens"] > 0


@pytest.mark.parametrize("broken", [
    {**GOOD_PLAN, "steps": [{"step_id": 1, "index": "hierarchical", "params": {}}]},
    {**GOOD_PLAN, "steps": [{**GOOD_PLAN["steps"][0], "depends_on": [7]}]},
    {**GOOD_PLAN, "steps": [{**GOOD_PLAN["steps"][0], "depends_on": [2]},
                            {**GOOD_PLAN["steps"][1], "depends_on": [1]}]},
    {**GOOD_PLAN, "steps": [{"step_id": 1, "index": "graph", "params": {"entities": ["person:nobody"]}}]},
    {**GOOD_PLAN, "combination_strategy": "majority_vote"},
    "not json at all",
], ids=["unknown-index", "bad-dependency", "cycle", "unknown-entity", "bad-strategy", "no-json"])
async def test_invalid_plan_falls_back_to_deterministic(memory, fake, broken) -> None:
    fake.on(PLAN, broken)
    await _world(memory, fake)
    base = await memory.retrieve("ana", "Where does Marcos Tavares live?",
                                 config_overrides={"enable_reranker": False})
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON, verbose=True)
    plan = _plan(r)
    assert plan["planner"] == "deterministic"
    assert plan["planner_reason"].startswith(("plan rejected", "planner call failed"))
    assert [f.fact_id for f in r.facts] == [f.fact_id for f in base.facts]
    assert not fake.calls(EVAL)  # nothing ran from the bad plan, nothing to evaluate


@pytest.mark.parametrize("reply,kind", [(Delay(3, GOOD_PLAN), "timeout"), (Status(500), "provider")])
async def test_timeout_or_http_error_falls_back(memory, fake, monkeypatch, reply, kind) -> None:
    monkeypatch.setattr(planner_llm, "TIMEOUT_SEC", 0.4)
    fake.on(PLAN, reply)
    await _world(memory, fake)
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON, verbose=True)
    plan = _plan(r)
    assert plan["planner"] == "deterministic" and plan["planner_reason"] == f"planner call failed ({kind})"
    assert "Porto Alegre" in r.facts[0].fact_text
    assert r.pipeline.get("llm_planner").data["rounds"][0]["error"].startswith(kind)


async def test_same_shape_query_hits_the_plan_cache(memory, fake) -> None:
    fake.on(PLAN, GOOD_PLAN)
    fake.on(EVAL, SUFFICIENT)
    await _world(memory, fake)
    await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON)
    r = await memory.retrieve("ana", "Where does Bruno Almeida live?", config_overrides=ON, verbose=True)
    assert len(fake.calls(PLAN)) == 1  # the second query did not call the planner
    plan = _plan(r)
    assert plan["planner"] == "cache"
    assert plan["steps"][0]["params"]["entities"] == ["person:bruno_almeida"]
    # A different shape asks the planner again.
    await memory.retrieve("ana", "What does Bruno Almeida do for fun?", config_overrides=ON)
    assert len(fake.calls(PLAN)) == 2


async def test_replanner_is_capped(memory, fake) -> None:
    revised = {**GOOD_PLAN, "steps": [{"step_id": 1, "index": "semantic_events", "params": {"top_k": 10}}]}
    fake.on(PLAN, GOOD_PLAN)
    fake.on(REPLAN, revised)
    fake.on(EVAL, INSUFFICIENT)
    await _world(memory, fake)
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON, verbose=True)
    assert len(fake.calls(PLAN)) == 1
    assert len(fake.calls(REPLAN)) == planner_llm.MAX_REPLANS
    assert len(fake.calls(EVAL)) == planner_llm.MAX_REPLANS + 1
    assert "the city is missing" in fake.calls(REPLAN)[0].user
    plan = _plan(r)
    assert plan["planner"] == "llm" and "still insufficient" in plan["planner_reason"]
    assert [s["index"] for s in plan["steps"]] == ["semantic_events"]
    # Nothing judged sufficient: nothing cached, the next same-shape query plans again.
    await memory.retrieve("ana", "Where does Bruno Almeida live?", config_overrides=ON)
    assert len(fake.calls(PLAN)) == 2


async def test_replan_failure_keeps_last_results(memory, fake) -> None:
    fake.on(PLAN, GOOD_PLAN)
    fake.on(REPLAN, {"steps": [{"step_id": 1, "index": "nope"}]})
    fake.on(EVAL, INSUFFICIENT)
    await _world(memory, fake)
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON, verbose=True)
    plan = _plan(r)
    assert plan["planner"] == "llm" and "replan failed" in plan["planner_reason"]
    assert [s["index"] for s in plan["steps"]] == ["graph", "lexical_facts"]
    assert "Porto Alegre" in r.facts[0].fact_text


async def test_flag_off_or_no_llm_is_deterministic(memory, fake) -> None:
    await write_all(memory, "ana", VERTIX_WORLD[:3])
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?", config_overrides=ON, verbose=True)
    assert _plan(r)["planner"] == "deterministic" and _plan(r)["planner_reason"] == "no llm"
    memory.llm = provider(fake)
    r = await memory.retrieve("ana", "Where does Marcos Tavares live?",
                              config_overrides={"enable_reranker": False}, verbose=True)
    assert _plan(r)["planner_reason"] == "llm planner disabled"
    assert not fake.requests


def test_validate_plan_units() -> None:
    ents = {MARCOS: "Marcos Tavares"}
    plan, notes = validate_plan({**GOOD_PLAN, "steps": [
        {"step_id": 1, "index": "graph", "params": {"entities": ["Marcos Tavares", "Nobody"]}},
        {"step_id": 2, "index": "recent_session", "params": {"session_id": "other", "top_k": "4"},
         "depends_on": [1]}]}, "q", DEFAULT_REGISTRY, entities=ents, session_id="s1")
    assert plan.steps[0].params["entities"] == [MARCOS]  # display name -> key; unknown dropped
    assert plan.steps[1].params == {"session_id": "s1", "top_k": 4}  # pinned to the request's session
    assert any("Nobody" in n for n in notes)
    with pytest.raises(PlanValidationError, match="lacks required"):
        validate_plan({"steps": [{"step_id": 1, "index": "temporal_anchor", "params": {"anchor_text": "trip"}}]},
                      "q", DEFAULT_REGISTRY)
    with pytest.raises(PlanValidationError, match="must be an int"):
        validate_plan({"steps": [{"step_id": 1, "index": "lexical_facts", "params": {"top_k": [1]}}]},
                      "q", DEFAULT_REGISTRY)
    with pytest.raises(PlanValidationError, match="recent_session without a session"):
        validate_plan({"steps": [{"step_id": 1, "index": "recent_session", "params": {}}]}, "q", DEFAULT_REGISTRY)


def test_query_shape_and_cache_bounds() -> None:
    a = query_shape("Where does Marcos Tavares live since 2023?", ["Marcos Tavares"])
    b = query_shape("where does BRUNO ALMEIDA live since 2019", ["Bruno Almeida"])
    assert a == b == "where does <e> live since <n>"
    cache = PlanCache(per_agent=2)
    for i in range(3):
        cache.put("ana", f"s{i}", {"i": i})
    assert cache.size("ana") == 2 and cache.get("ana", "s0") is None and cache.get("bob", "s2") is None
