"""Issue 16: the consolidation graph is driven by declarative automation, every agent is a
partition whatever wrote its events, and erased agents leave the partition set.

The automation conditions are evaluated with Dagster's `evaluate_automation_conditions` over the
real code location; the agent sensor with `build_sensor_context` on a real memory database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dagster import (
    AssetKey,
    SensorResult,
    SkipReason,
    build_sensor_context,
    evaluate_automation_conditions,
    materialize,
)

from arandu_pipelines.assets import memory_extraction
from arandu_pipelines.partitions import AGENTS
from arandu_pipelines.sensors import agent_partitions_sensor, pending_events_sensor
from arandu_pipelines.sensors.agents import AgentsCursor, plan_agent_partitions
from tests.conftest import make_resources
from tests.test_dagster_assets import AGENT, import_sample

CONSOLIDATION = {"entity_importance", "entity_summaries", "entity_profiles", "entity_communities",
                 "memory_clusters", "community_themes", "emotional_trends", "fact_vitality",
                 "memory_meta_observations"}


@pytest.fixture(scope="module")
def defs():
    from arandu_pipelines.definitions import defs

    return defs


def _requested(result) -> dict[str, set]:
    return {k.to_user_string(): set(result.get_requested_partitions(k))
            for k in (AssetKey(n) for n in CONSOLIDATION) if result.get_requested_partitions(k)}


def _tick(sensor, instance, resources, cursor=None):
    ctx = build_sensor_context(instance=instance, cursor=cursor,
                               resources={"memory": resources["memory"]})
    result = sensor(ctx)
    if isinstance(result, SkipReason):
        return result, cursor
    assert isinstance(result, SensorResult)
    for req in result.dynamic_partitions_requests or []:   # what the sensor daemon does
        if type(req).__name__ == "AddDynamicPartitionsRequest":
            instance.add_dynamic_partitions(req.partitions_def_name, list(req.partition_keys))
        else:
            for key in req.partition_keys:
                instance.delete_dynamic_partition(req.partitions_def_name, key)
    return result, result.cursor


# ---- the pure planning function ----------------------------------------------------------------
def test_plan_adds_new_agents_removes_erased_and_warns_once_about_bad_ids():
    plan = plan_agent_partitions({"a", "b", "bad\tid"}, {"b", "gone"}, AgentsCursor())
    assert plan.add == ["a"] and plan.remove == ["gone"] and plan.newly_invalid == ["bad\tid"]
    again = plan_agent_partitions({"a", "b", "bad\tid"}, {"a", "b"}, AgentsCursor.from_json(plan.cursor.to_json()))
    assert again.add == again.remove == again.newly_invalid == []
    assert again.cursor.added_total == 1 and again.cursor.removed_total == 1
    assert AgentsCursor.from_json("not json") == AgentsCursor()


# ---- agents written outside Dagster become partitions -------------------------------------------
def _client(url, embeddings, *calls):
    """Run MemoryClient calls (name, args) in one event loop, as serving code would."""
    import asyncio

    from arandu_pipelines.client import MemoryClient

    async def go():
        async with MemoryClient(url, embeddings=embeddings) as client:
            for name, *args in calls:
                await getattr(client, name)(*args)

    asyncio.run(go())


@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_an_agent_written_by_memory_client_becomes_a_partition_and_is_consolidated(
        instance, resources, fresh_db_url, embeddings, defs):
    _client(fresh_db_url, embeddings, ("write", "served-agent", "s1", "Ana", "I moved to Porto last spring."))
    result, cursor = _tick(agent_partitions_sensor, instance, resources)
    assert "served-agent" in instance.get_dynamic_partitions(AGENTS)
    (req,) = result.run_requests
    assert req.partition_key == "served-agent" and req.run_key == "discover:served-agent"
    assert req.job_name in (None, "extraction_job")
    skip, _ = _tick(agent_partitions_sensor, instance, resources, cursor)   # nothing new
    assert isinstance(skip, SensorResult) and not skip.run_requests

    # nothing materialized for the agent yet: no consolidation
    first = evaluate_automation_conditions(defs=defs, instance=instance)
    assert _requested(first) == {}
    # the discovery run (an extraction with nothing pending) -> eager consolidation of that agent
    materialize([memory_extraction], instance=instance, resources=resources, partition_key="served-agent")
    after = evaluate_automation_conditions(defs=defs, instance=instance, cursor=first.cursor)
    assert _requested(after) == {name: {"served-agent"} for name in CONSOLIDATION}
    # requested once, not again on the next tick
    third = evaluate_automation_conditions(defs=defs, instance=instance, cursor=after.cursor)
    assert _requested(third) == {}


def test_erased_agent_leaves_the_partition_set(instance, resources, fresh_db_url, embeddings):
    _client(fresh_db_url, embeddings, ("write", "short-lived", "s1", "Ana", "I like green tea."),
            ("write", "stays", "s1", "Bo", "I like black coffee."))
    _, cursor = _tick(agent_partitions_sensor, instance, resources)
    assert set(instance.get_dynamic_partitions(AGENTS)) == {"short-lived", "stays"}
    _client(fresh_db_url, embeddings, ("delete_all", "short-lived"))
    _tick(agent_partitions_sensor, instance, resources, cursor)
    assert set(instance.get_dynamic_partitions(AGENTS)) == {"stays"}


@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_an_import_alone_does_not_consolidate_every_agent(instance, resources, defs):
    """memory_events is unpartitioned: each import updates it for every agent partition."""
    instance.add_dynamic_partitions(AGENTS, [AGENT, "other-agent"])
    first = evaluate_automation_conditions(defs=defs, instance=instance)
    import_sample(instance, resources)
    after = evaluate_automation_conditions(defs=defs, instance=instance, cursor=first.cursor)
    assert _requested(after) == {}


def test_every_agent_is_consolidated_on_the_cron_tick(instance, defs):
    """Agents written by serving code change with no Dagster run: the cron tick alone is enough."""
    instance.add_dynamic_partitions(AGENTS, ["a-agent", "b-agent"])
    t0 = datetime(2030, 1, 1, 1, 0, tzinfo=UTC)
    first = evaluate_automation_conditions(defs=defs, instance=instance, evaluation_time=t0)
    assert _requested(first) == {}
    before_tick = evaluate_automation_conditions(defs=defs, instance=instance, cursor=first.cursor,
                                                 evaluation_time=t0 + timedelta(hours=1))
    assert _requested(before_tick) == {}
    tick = evaluate_automation_conditions(defs=defs, instance=instance, cursor=before_tick.cursor,
                                          evaluation_time=t0 + timedelta(hours=5, minutes=1))
    assert _requested(tick) == {name: {"a-agent", "b-agent"} for name in CONSOLIDATION}


# ---- sensors before the schema exists ------------------------------------------------------------
@pytest.mark.parametrize("sensor", [pending_events_sensor, agent_partitions_sensor])
def test_sensors_skip_with_a_message_before_the_schema_exists(instance, empty_db_url, drop_dir, sensor):
    res = make_resources(empty_db_url, drop_dir)
    ctx = build_sensor_context(instance=instance, resources={"memory": res["memory"]})
    result = sensor(ctx)
    skip = result if isinstance(result, SkipReason) else result.skip_reason
    assert skip is not None and "schema does not exist yet" in skip.skip_message
    assert not (getattr(result, "run_requests", None) or [])
