"""Asset checks on memory health. The SQL lives in `background/health.py`; these only run it.

The checks of the per-agent tables are partitioned like their assets (`agents`): each agent has
its own result, so one agent's failure is never hidden by another's pass, and the UI shows
per partition which agents are healthy. They run with the runs that materialize their asset's
partition, or from the asset's Checks tab for chosen agents. `events_extracted` watches the
unpartitioned event log: store-wide, with the agents that have a backlog in its metadata.

Metadata holds counts and ids, never text from messages (fact text, entity names): Dagster's
event log is not reached by erasure (`forget`, `delete_all`).
"""

import warnings
from typing import Any

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    MetadataValue,
    PreviewWarning,
    asset_check,
)

from arandu_pipelines.background import health
from arandu_pipelines.partitions import agents_partitions
from arandu_pipelines.resources import (
    EmbeddingsResource,
    MemoryStoreResource,
    run_async,
)
from arandu_pipelines.settings import settings

PARTITION_TAG = "dagster/partition"


def backlog_minutes() -> int:
    return settings.extraction_sla_minutes


def _agent_check(**kwargs: Any) -> Any:
    """`@asset_check` partitioned by agent. Partitioned checks are a preview feature of Dagster
    1.13; its PreviewWarning is silenced here only, not process-wide."""
    def decorate(fn: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PreviewWarning)
            return asset_check(blocking=False, partitions_def=agents_partitions, **kwargs)(fn)
    return decorate


def _scope(context: AssetCheckExecutionContext) -> Any:
    """The agent of a partitioned check (or of the run); None = the whole store."""
    if context.has_partition_key:
        return context.partition_key
    return context.run.tags.get(PARTITION_TAG)


def _ids_only(example: dict[str, Any]) -> dict[str, Any]:
    """The identifying part of an offending row (ids, numbers): never text that may come from a
    message, which erasure could not remove from Dagster's event log."""
    return {k: v for k, v in example.items()
            if k == "id" or k.endswith("_id") or isinstance(v, (int, float, bool)) or v is None}


def _result(check: health.HealthCheck, scope: Any,
            severity: AssetCheckSeverity = AssetCheckSeverity.ERROR) -> AssetCheckResult:
    metadata: dict[str, Any] = {
        "offending_rows": check.count,
        "scope": scope or "all agents",
        "checks": check.description,
    }
    if check.examples:
        metadata["examples"] = MetadataValue.json([_ids_only(e) for e in check.examples])
    for k, v in check.details.items():
        metadata[k] = MetadataValue.json(v) if isinstance(v, (dict, list)) else (v if v is not None else "-")
    return AssetCheckResult(passed=check.passed, severity=severity, metadata=metadata,
                            description=check.description)


async def _run(memory: MemoryStoreResource, fn: Any) -> health.HealthCheck:
    async with memory.engine() as engine:
        return await fn(engine)


@_agent_check(asset="memory_fact_entity_links", name="links_resolve",
             description="Every fact-entity link points at an existing fact and entity.")
def links_resolve(context: AssetCheckExecutionContext, memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    return _result(run_async(_run(memory, lambda e: health.check_links(e, agent))), agent)


@_agent_check(asset="memory_entity_relationships", name="relationships_resolve",
             description="Every relationship's ends, evidence fact and event exist.")
def relationships_resolve(context: AssetCheckExecutionContext,
                          memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    return _result(run_async(_run(memory, lambda e: health.check_relationships(e, agent))), agent)


@_agent_check(asset="memory_facts", name="embedding_dimensions",
             description="Vector columns and stored embeddings match the embedding model.")
def embedding_dimensions(context: AssetCheckExecutionContext, memory: MemoryStoreResource,
                         embeddings: EmbeddingsResource) -> AssetCheckResult:
    agent = _scope(context)
    expected = int(getattr(embeddings.get(), "dimensions", embeddings.dimensions))
    return _result(run_async(_run(
        memory, lambda e: health.check_embedding_dimensions(e, expected, agent))), agent)


@_agent_check(asset="memory_facts", name="no_duplicate_active_facts",
             description="No two active facts of an entity have the same text.")
def no_duplicate_active_facts(context: AssetCheckExecutionContext,
                              memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    return _result(run_async(_run(memory, lambda e: health.check_duplicate_facts(e, agent))), agent)


@asset_check(asset="memory_events", name="events_extracted", blocking=False,
             description="Every event stored more than N minutes ago (ARANDU_EXTRACTION_SLA_MINUTES, "
                         "default 30) has been extracted.")
def events_extracted(context: AssetCheckExecutionContext, memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    minutes = backlog_minutes()
    return _result(run_async(_run(memory, lambda e: health.check_extraction_backlog(
        e, minutes, agent, memory.max_attempts))), agent, AssetCheckSeverity.WARN)


@_agent_check(asset="memory_entity_aliases", name="aliases_unique",
             description="Each alias of an agent names exactly one existing entity.")
def aliases_unique(context: AssetCheckExecutionContext, memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    return _result(run_async(_run(memory, lambda e: health.check_aliases(e, agent))), agent)


MEMORY_HEALTH_CHECKS = [
    links_resolve,
    relationships_resolve,
    embedding_dimensions,
    no_duplicate_active_facts,
    events_extracted,
    aliases_unique,
]
