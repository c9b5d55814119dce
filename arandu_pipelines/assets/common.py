"""Names and policies shared by the asset modules."""

from datetime import timedelta

from dagster import (
    AssetSelection,
    AutomationCondition,
    Backoff,
    FreshnessPolicy,
    Jitter,
    RetryPolicy,
)

from arandu_pipelines.settings import settings

INGESTION, EXTRACTION, CONSOLIDATION = "ingestion", "extraction", "consolidation"
LLM_POOL = "llm"  # every asset that calls (or will call) the LLM
KINDS = {"postgres"}

# Transient failures (database restarts, LLM timeouts): 3 retries after ~10 s, 20 s, 40 s.
RETRY = RetryPolicy(max_retries=3, delay=10, backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)
# Extraction is heavier and its events are retried by the sensor anyway: 2 retries, longer waits.
EXTRACTION_RETRY = RetryPolicy(max_retries=2, delay=30, backoff=Backoff.EXPONENTIAL,
                               jitter=Jitter.PLUS_MINUS)


def table_meta(table: str) -> dict[str, str]:
    """Definition metadata linking an asset to its table."""
    return {"dagster/table_name": table}


# ---- when the consolidation graph runs (declarative automation) ---------------------------------
# ARANDU_CONSOLIDATION_CRON (UTC, default every 6 h; "0 */4 * * *" for the spec's 4 hours) is
# read when the code location loads.
CONSOLIDATION_CRON = settings.consolidation_cron


def consolidation_condition(cron: str = CONSOLIDATION_CRON) -> AutomationCondition:
    """Eager after extraction, and once per cron tick for every agent.

    * `eager()`: an agent's partition is consolidated once its extraction (or an upstream
      consolidation step) materializes. The unpartitioned `memory_events` is ignored: every
      import updates it, and it would otherwise mark every agent's consolidation stale at once
      (and, never materialized for agents written outside Dagster, block them as "missing").
    * on each cron tick, whether or not anything upstream changed in Dagster: agents written by
      serving code (`MemoryClient.write()`, extracted inline) change without any Dagster run,
      so `on_cron`'s "all deps updated since the tick" would never hold for them.
    Neither requests a partition that is already in progress (its run is queued or running)."""
    eager = AutomationCondition.eager().ignore(AssetSelection.assets("memory_events"))
    # Dagster's stubs type since_last_handled() on AutomationCondition[AssetKey | AssetCheckKey]
    on_tick = (AutomationCondition.cron_tick_passed(cron, "UTC").since_last_handled()  # type: ignore[misc]
               & ~AutomationCondition.in_progress()
               & ~AutomationCondition.any_deps_in_progress().ignore(AssetSelection.assets("memory_events")))
    return (eager | on_tick.with_label(f"on cron tick {cron}")).with_label(
        "eager after extraction, or on the consolidation cron")


# Consolidation is expected at least once per cron period: warn after 1.5 periods (default 9 h),
# fail after 2 (12 h). ARANDU_CONSOLIDATION_FRESHNESS_HOURS sets the failure window.
_FAIL_HOURS = settings.consolidation_freshness_hours
CONSOLIDATION_FRESHNESS = FreshnessPolicy.time_window(
    fail_window=timedelta(hours=_FAIL_HOURS), warn_window=timedelta(hours=_FAIL_HOURS * 0.75))
