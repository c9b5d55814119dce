"""Asset checks on memory health. The SQL lives in `background/health.py`; these only run it.

In a partitioned run (one agent) a check looks at that agent; run on its own (from the asset's
Checks tab) it looks at the whole store.
"""

import os
from typing import Any

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    MetadataValue,
    asset_check,
)

from arandu_pipelines.background import health
from arandu_pipelines.resources import EmbeddingsResource, MemoryStoreResource, run_async

PARTITION_TAG = "dagster/partition"


def backlog_minutes() -> int:
    return int(os.environ.get("ARANDU_EXTRACTION_SLA_MINUTES", "30"))


def _scope(context: AssetCheckExecutionContext) -> Any:
    return context.run.tags.get(PARTITION_TAG)


def _result(check: health.HealthCheck, scope: Any,
            severity: AssetCheckSeverity = AssetCheckSeverity.ERROR) -> AssetCheckResult:
    metadata: dict[str, Any] = {
        "offending_rows": check.count,
        "scope": scope or "all agents",
        "checks": check.description,
    }
    if check.examples:
        metadata["examples"] = MetadataValue.json(check.examples)
    for k, v in check.details.items():
        metadata[k] = MetadataValue.json(v) if isinstance(v, (dict, list)) else (v if v is not None else "-")
    return AssetCheckResult(passed=check.passed, severity=severity, metadata=metadata,
                            description=check.description)


async def _run(memory: MemoryStoreResource, fn: Any) -> health.HealthCheck:
    async with memory.engine() as engine:
        return await fn(engine)


@asset_check(asset="memory_fact_entity_links", name="links_resolve", blocking=False,
             description="Every fact-entity link points at an existing fact and entity.")
def links_resolve(context: AssetCheckExecutionContext, memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    return _result(run_async(_run(memory, lambda e: health.check_links(e, agent))), agent)


@asset_check(asset="memory_entity_relationships", name="relationships_resolve", blocking=False,
             description="Every relationship's ends, evidence fact and event exist.")
def relationships_resolve(context: AssetCheckExecutionContext,
                          memory: MemoryStoreResource) -> AssetCheckResult:
    agent = _scope(context)
    return _result(run_async(_run(memory, lambda e: health.check_relationships(e, agent))), agent)


@asset_check(asset="memory_facts", name="embedding_dimensions", blocking=False,
             description="Vector columns and stored embeddings match the embedding model.")
def embedding_dimensions(context: AssetCheckExecutionContext, memory: MemoryStoreResource,
                         embeddings: EmbeddingsResource) -> AssetCheckResult:
    agent = _scope(context)
    expected = int(getattr(embeddings.get(), "dimensions", embeddings.dimensions))
    return _result(run_async(_run(
        memory, lambda e: health.check_embedding_dimensions(e, expected, agent))), agent)


@asset_check(asset="memory_facts", name="no_duplicate_active_facts", blocking=False,
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


@asset_check(asset="memory_entity_aliases", name="aliases_unique", blocking=False,
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
