"""Sensors: new files -> import runs; new events -> extraction runs; extraction -> consolidation.

* `import_sensor` watches the drop directory (ARANDU_IMPORT_DIR). One run per new or changed
  file, `run_key = import:<sha256 of the content>`: the same bytes never import twice, under any
  name. The cursor remembers (mtime, size, hash) per file so unchanged files are not re-hashed;
  a file is picked up once it has not been modified for ARANDU_IMPORT_SETTLE_SECONDS (2).
* `pending_events_sensor` asks the store which agents have events waiting (library:
  `store.status.pending_agents`), adds new agents as dynamic partitions and requests one
  extraction run per agent, `run_key = extract:<agent>:<its newest pending event>`. The cursor
  keeps, per agent with a backlog, the insertion time of the newest pending event already
  requested, so a long extraction is not requested again while it works through the backlog.
  Failed events are retried after an exponential backoff (1, 2, 4 ... minutes; the run key
  carries the attempt count) until `max_attempts`; pending events older than
  ARANDU_STALE_PENDING_MINUTES (10) whose run never came (crashed, cancelled) are requested again
  once per such period, unless a run of that agent is queued or in progress.
* `agent_partitions_sensor` (sensors/agents.py) makes every agent with events a partition,
  whatever wrote them (CLI, `MemoryClient.write()`), and removes erased agents' partitions.
* `memory_automation_sensor` evaluates the consolidation assets' AutomationCondition: eager
  after an agent's extraction materializes, and on the consolidation cron for every agent.
"""

import json
import time
from datetime import datetime
from typing import Any

from dagster import (
    AssetSelection,
    AutomationConditionSensorDefinition,
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from arandu_pipelines.assets.common import CONSOLIDATION
from arandu_pipelines.assets.ingestion import file_sha256, import_files
from arandu_pipelines.jobs import extraction_job, import_job
from arandu_pipelines.partitions import AGENTS, agents_partitions, valid_partition_key
from arandu_pipelines.resources import MemoryStoreResource, run_async
from arandu_pipelines.sensors.agents import agent_partitions_sensor
from arandu_pipelines.settings import settings

SENSOR_INTERVAL = settings.sensor_interval_seconds


def import_settle_seconds() -> float:
    """ARANDU_IMPORT_SETTLE_SECONDS (default 2): how long a file must stay unchanged."""
    return settings.import_settle_seconds


def _load(cursor: str | None) -> dict[str, Any]:
    try:
        value = json.loads(cursor) if cursor else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


# ---- import ------------------------------------------------------------------------------------
@sensor(job=import_job, minimum_interval_seconds=SENSOR_INTERVAL,
        default_status=DefaultSensorStatus.RUNNING,
        description="New or changed conversation files in the drop directory -> one import run each.")
def import_sensor(context: SensorEvaluationContext, memory: MemoryStoreResource):
    directory = memory.imports_path()
    settle = import_settle_seconds()
    seen: dict[str, list[Any]] = _load(context.cursor).get("files", {})
    now = time.time()
    requests: list[RunRequest] = []
    current: dict[str, list[Any]] = {}
    for path in import_files(directory):
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        if now - st.st_mtime < settle:
            continue  # still being written; next tick
        key = str(path)
        known = seen.get(key)
        if known and known[0] == st.st_mtime_ns and known[1] == st.st_size:
            current[key] = known
            continue
        sha = file_sha256(path)
        current[key] = [st.st_mtime_ns, st.st_size, sha]
        if known and known[2] == sha:
            continue  # touched, same content
        requests.append(RunRequest(
            run_key=f"import:{sha}",
            run_config={"ops": {"memory_events": {"config": {"path": key, "sha256": sha}}}},
            tags={"arandu/import_file": path.name[:200], "arandu/sha256": sha[:16]},
        ))
    cursor = json.dumps({"files": current}, sort_keys=True)
    if not requests:
        return SensorResult(skip_reason=SkipReason(f"no new files in {directory}"), cursor=cursor)
    return SensorResult(run_requests=requests, cursor=cursor)


# ---- pending events ----------------------------------------------------------------------------
@sensor(job=extraction_job, minimum_interval_seconds=SENSOR_INTERVAL,
        default_status=DefaultSensorStatus.RUNNING,
        description="Agents with events not yet extracted -> one extraction run per agent.")
def pending_events_sensor(context: SensorEvaluationContext, memory: MemoryStoreResource):
    from arandu_pipelines.store.migrate import current_revision
    from arandu_pipelines.store.status import pending_agents

    async def fetch() -> Any:
        async with memory.engine() as engine:
            if await current_revision(engine) is None:
                return None   # no memory schema yet: nothing can be pending
            return await pending_agents(
                engine, max_attempts=memory.max_attempts,
                retry_base_seconds=settings.retry_base_seconds)

    found = run_async(fetch())
    if found is None:
        return SensorResult(cursor=context.cursor, skip_reason=SkipReason(
            "the memory schema does not exist yet (it is created by the first import or "
            "`arandu-pipelines dev`)"))
    agents = []
    for a in found:
        if valid_partition_key(a.agent_id):
            agents.append(a)
        else:  # Dagster refuses such partition keys; the library API still serves the agent
            context.log.warning(f"agent id {a.agent_id!r} cannot be a Dagster partition key "
                                "(contains '...' or a control character); not scheduled")
    state = _load(context.cursor)
    known: dict[str, dict[str, Any]] = state.get("agents", {})
    stale_after = settings.stale_pending_minutes * 60
    now = time.time()
    requests: list[RunRequest] = []
    next_agents: dict[str, dict[str, Any]] = {}
    for a in agents:
        entry = dict(known.get(a.agent_id, {}))
        newest = a.newest_created_at.isoformat()
        reason = None
        if a.pending and (not entry.get("t") or datetime.fromisoformat(entry["t"]) < a.newest_created_at):
            reason, key = "new-events", f"extract:{a.agent_id}:{a.newest_event_id}"
        elif a.retry_due and entry.get("att") != a.attempts:
            reason, key = "retry", f"extract:{a.agent_id}:{a.newest_event_id}:retry{a.attempts}"
        elif a.pending and now - a.oldest_created_at.timestamp() > stale_after \
                and now - float(entry.get("req", 0)) > stale_after \
                and not _run_in_flight(context, a.agent_id):
            bucket = int(now // stale_after)
            reason, key = "stale", f"extract:{a.agent_id}:{a.newest_event_id}:stale{bucket}"
        if reason:
            requests.append(RunRequest(
                run_key=key, partition_key=a.agent_id,
                tags={"arandu/agent": a.agent_id[:200], "arandu/trigger": reason}))
            if not entry.get("t") or datetime.fromisoformat(entry["t"]) < a.newest_created_at:
                entry["t"] = newest
            entry.update(id=a.newest_event_id, req=now)
            if reason == "retry":
                entry["att"] = a.attempts
        if entry:
            next_agents[a.agent_id] = entry  # agents without a backlog drop out of the cursor
    stamps = [a.newest_created_at for a in agents]
    if state.get("watermark"):
        stamps.append(datetime.fromisoformat(state["watermark"]))
    watermark = max(stamps).isoformat() if stamps else None  # newest unextracted event ever seen
    cursor = json.dumps({"agents": next_agents, "watermark": watermark}, sort_keys=True)
    new_partitions = sorted({r.partition_key for r in requests if r.partition_key is not None
                             and not context.instance.has_dynamic_partition(AGENTS, r.partition_key)})
    if not requests:
        backlog = sum(a.pending + a.retryable for a in agents)
        return SensorResult(cursor=cursor, skip_reason=SkipReason(
            f"no new events ({backlog} waiting in runs already requested or backing off)"
            if backlog else "no events waiting for extraction"))
    return SensorResult(
        run_requests=requests, cursor=cursor,
        dynamic_partitions_requests=[agents_partitions.build_add_request(new_partitions)]
        if new_partitions else [],
    )


_IN_FLIGHT = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
              DagsterRunStatus.STARTED]


def _run_in_flight(context: SensorEvaluationContext, agent: str) -> bool:
    """A run of this agent is queued or running (so a stale backlog is being worked on)."""
    records = context.instance.get_run_records(
        RunsFilter(tags={"dagster/partition": agent}, statuses=_IN_FLIGHT), limit=1)
    return bool(records)


# ---- declarative automation of the consolidation graph ----------------------------------------
# The consolidation assets carry an AutomationCondition (assets/common.py: eager after
# extraction, and on every tick of ARANDU_CONSOLIDATION_CRON); this sensor evaluates it. It is
# declared here (rather than left to Dagster's `default_automation_condition_sensor`, which starts
# stopped) so it runs from the first start.
memory_automation_sensor = AutomationConditionSensorDefinition(
    "memory_automation_sensor",
    target=AssetSelection.groups(CONSOLIDATION),
    default_status=DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=max(SENSOR_INTERVAL, 30),
    description="Consolidates an agent after its extraction materializes, and every agent on "
                "the consolidation cron (ARANDU_CONSOLIDATION_CRON).",
)

ALL_SENSORS = [import_sensor, pending_events_sensor, agent_partitions_sensor, memory_automation_sensor]

__all__ = ["ALL_SENSORS", "agent_partitions_sensor", "import_sensor", "memory_automation_sensor",
           "pending_events_sensor"]
