"""Every agent with events is a partition, whatever wrote its events.

Agents written outside Dagster (the CLI `import` / `example`, `MemoryClient.write()` in serving
code) are extracted inline and never reach the pending-events sensor, so nothing used to make
them partitions: consolidation and checks never covered them. `agent_partitions_sensor` asks the
store for every agent with stored events (library: `store.status.agent_ids`, a skip scan over
the agent index) and reconciles the `agents` partitions with it:

* an agent with events and no partition becomes one, and gets one `extraction_job` run
  (`run_key = discover:<agent>`: nothing to extract for an inline-extracted agent, but its
  extraction tables are then materialized for that partition, the checks run for it, and the
  consolidation assets' automation condition (eager after extraction) consolidates it);
* a partition whose agent has no events left (erased with `delete_all` / `forget --agent`) is
  deleted, so it is no longer scheduled.

The decision is the pure function `plan_agent_partitions` over a typed cursor (`AgentsCursor`);
the sensor only gathers its inputs and turns the plan into a `SensorResult`.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from arandu_pipelines.jobs import extraction_job
from arandu_pipelines.partitions import AGENTS, agents_partitions, valid_partition_key
from arandu_pipelines.resources import MemoryStoreResource, run_async


@dataclass(frozen=True)
class AgentsCursor:
    """What the sensor remembers between ticks: agent ids it already reported as unusable as
    partition keys (so the warning is logged once, not every tick) and totals for the UI."""

    invalid: tuple[str, ...] = ()
    added_total: int = 0
    removed_total: int = 0

    def to_json(self) -> str:
        return json.dumps({"invalid": list(self.invalid), "added_total": self.added_total,
                           "removed_total": self.removed_total}, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | None) -> "AgentsCursor":
        """The cursor of the previous tick; an absent or unreadable one starts afresh."""
        try:
            data = json.loads(raw) if raw else {}
            return cls(invalid=tuple(str(a) for a in data.get("invalid", [])),
                       added_total=int(data.get("added_total", 0)),
                       removed_total=int(data.get("removed_total", 0)))
        except (ValueError, TypeError, AttributeError):
            return cls()


@dataclass(frozen=True)
class AgentsPlan:
    add: list[str] = field(default_factory=list)       # new partitions (each gets an extraction run)
    remove: list[str] = field(default_factory=list)    # partitions of agents with no events left
    newly_invalid: list[str] = field(default_factory=list)   # ids Dagster refuses as keys, new this tick
    cursor: AgentsCursor = AgentsCursor()


def plan_agent_partitions(stored_agents: Iterable[str], partitions: Iterable[str],
                          cursor: AgentsCursor) -> AgentsPlan:
    """Reconcile the partitions with the agents that have events. Pure: no I/O."""
    stored = set(stored_agents)
    current = set(partitions)
    valid = {a for a in stored if valid_partition_key(a)}
    invalid = stored - valid
    add = sorted(valid - current)
    remove = sorted(current - stored)
    newly_invalid = sorted(invalid - set(cursor.invalid))
    return AgentsPlan(add=add, remove=remove, newly_invalid=newly_invalid, cursor=AgentsCursor(
        invalid=tuple(sorted(invalid)), added_total=cursor.added_total + len(add),
        removed_total=cursor.removed_total + len(remove)))


@sensor(job=extraction_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Every agent with stored events is an `agents` partition (new agents get one "
                    "extraction run, then consolidation); erased agents' partitions are removed.")
def agent_partitions_sensor(context: SensorEvaluationContext, memory: MemoryStoreResource):
    from arandu_pipelines.store.migrate import current_revision
    from arandu_pipelines.store.status import agent_ids

    async def fetch() -> list[str] | None:
        async with memory.engine() as engine:
            if await current_revision(engine) is None:
                return None
            return await agent_ids(engine)

    stored = run_async(fetch())
    cursor = AgentsCursor.from_json(context.cursor)
    if stored is None:
        return SensorResult(cursor=cursor.to_json(), skip_reason=SkipReason(
            "the memory schema does not exist yet (it is created by the first import or "
            "`arandu-pipelines dev`)"))
    plan = plan_agent_partitions(stored, context.instance.get_dynamic_partitions(AGENTS), cursor)
    for agent in plan.newly_invalid:
        context.log.warning(f"agent id {agent!r} cannot be a Dagster partition key (contains '...' "
                            "or a control character); not scheduled, the library API still serves it")
    if not plan.add and not plan.remove:
        return SensorResult(cursor=plan.cursor.to_json(), skip_reason=SkipReason(
            f"{len(stored)} agents, all of them partitions"))
    requests: list[Any] = []
    if plan.add:
        requests.append(agents_partitions.build_add_request(plan.add))
    if plan.remove:
        requests.append(agents_partitions.build_delete_request(plan.remove))
    return SensorResult(
        run_requests=[RunRequest(run_key=f"discover:{agent}", partition_key=agent,
                                 tags={"arandu/agent": agent[:200], "arandu/trigger": "new-agent"})
                      for agent in plan.add],
        dynamic_partitions_requests=requests,
        cursor=plan.cursor.to_json(),
    )


__all__ = ["AgentsCursor", "AgentsPlan", "agent_partitions_sensor", "plan_agent_partitions"]
