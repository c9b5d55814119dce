"""The consolidation schedule: every agent's consolidation graph, every 6 hours by default.

ARANDU_CONSOLIDATION_CRON changes the cadence (read when the code location loads), e.g.
"0 */4 * * *" for the spec's 4 hours. One run per agent partition; the run key carries the
scheduled time, so a tick never launches the same agent twice.
"""

import os

from dagster import (
    DefaultScheduleStatus,
    RunRequest,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from arandu_pipelines.jobs import consolidation_job
from arandu_pipelines.partitions import AGENTS

CONSOLIDATION_CRON = os.environ.get("ARANDU_CONSOLIDATION_CRON", "0 */6 * * *")


@schedule(cron_schedule=CONSOLIDATION_CRON, job=consolidation_job, execution_timezone="UTC",
          default_status=DefaultScheduleStatus.RUNNING,
          description="Consolidate every agent's memory (importance first), every 6 h by default.")
def consolidation_schedule(context: ScheduleEvaluationContext):
    agents = sorted(context.instance.get_dynamic_partitions(AGENTS))
    if not agents:
        return SkipReason("no agents yet")
    stamp = context.scheduled_execution_time.strftime("%Y%m%dT%H%M")
    return [
        RunRequest(run_key=f"consolidate:{agent}:{stamp}", partition_key=agent,
                   tags={"arandu/agent": agent[:200], "arandu/trigger": "schedule"})
        for agent in agents
    ]


ALL_SCHEDULES = [consolidation_schedule]
