"""Extraction: one agent's pending events -> facts, entities, aliases, relationships, links.

One multi-asset, partitioned by agent, because one pass of the library's write pipeline writes
all five tables together (in one transaction per chunk). Lineage inside it is declared too: facts
and entities come from the events, links from facts + entities, aliases from entities,
relationships from entities + their evidence facts; column lineage ties `memory_facts.fact_text`
and `source_event_id` back to `memory_events.text` / `id`, so every fact leads to its message.

Default run: extract the agent's pending events (and retry failed ones below the attempt limit).
With `rebuild: true` (the `reextraction_job`), what earlier extractions derived is invalidated
and rebuilt from the immutable events (the whole agent, or from `since` on) — see
`background/reextract.py`.
"""

import time
from datetime import datetime
from typing import Any

from dagster import (
    AssetDep,
    AssetExecutionContext,
    AssetSpec,
    Config,
    Failure,
    MaterializeResult,
    MetadataValue,
    multi_asset,
)
from pydantic import Field

from arandu_pipelines.assets._metadata import (
    column_lineage,
    counts,
    md_table,
    table_schema,
)
from arandu_pipelines.assets.common import (
    EXTRACTION,
    EXTRACTION_RETRY,
    KINDS,
    LLM_POOL,
    table_meta,
)
from arandu_pipelines.partitions import agents_partitions
from arandu_pipelines.resources import (
    EmbeddingsResource,
    LLMResource,
    MemoryStoreResource,
    run_async,
)

EXTRACTION_TABLES = (
    "memory_facts",
    "memory_entities",
    "memory_entity_aliases",
    "memory_entity_relationships",
    "memory_fact_entity_links",
)

_DEPS = {
    "memory_facts": ["memory_events"],
    "memory_entities": ["memory_events"],
    "memory_entity_aliases": ["memory_entities"],
    "memory_entity_relationships": ["memory_entities", "memory_facts"],
    "memory_fact_entity_links": ["memory_facts", "memory_entities"],
}
_DESCRIPTIONS = {
    "memory_facts": "Self-contained statements about entities, bi-temporal (valid_from/valid_to), "
                    "each pointing at the message it came from (source_event_id).",
    "memory_entities": "Canonical people, places, organisations, ... of an agent's memory.",
    "memory_entity_aliases": "Every surface name an entity was called by -> its canonical key.",
    "memory_entity_relationships": "Directed, typed, weighted edges between entities, with their "
                                   "evidence fact and event.",
    "memory_fact_entity_links": "Which entities each fact is about (subject) or mentions.",
}
_LINEAGE = {
    "memory_facts": {
        "fact_text": [("memory_events", "text")],
        "source_event_id": [("memory_events", "id")],
        "valid_from": [("memory_events", "occurred_at")],
        "speaker": [("memory_events", "speaker")],
        "session_id": [("memory_events", "session_id")],
    },
    "memory_fact_entity_links": {
        "fact_id": [("memory_facts", "id")],
        "entity_key": [("memory_entities", "canonical_key")],
    },
    "memory_entity_aliases": {"canonical_entity_key": [("memory_entities", "canonical_key")]},
    "memory_entity_relationships": {
        "source_entity_key": [("memory_entities", "canonical_key")],
        "target_entity_key": [("memory_entities", "canonical_key")],
        "evidence_fact_id": [("memory_facts", "id")],
        "evidence_event_id": [("memory_events", "id")],
    },
    "memory_entities": {"first_seen_at": [("memory_events", "occurred_at")],
                        "last_seen_at": [("memory_events", "occurred_at")]},
}



class ExtractionConfig(Config):
    rebuild: bool = Field(
        default=False,
        description="Re-extraction: invalidate what earlier extractions derived and rebuild it "
                    "from the events (after a change of extraction model or rules).")
    since: str | None = Field(
        default=None,
        description="With rebuild: only events from this ISO timestamp on (and everything after "
                    "them). Unset: the whole agent.")
    limit: int = Field(default=100_000, description="Most events to extract in one run.")
    chunk_size: int = Field(default=64, description="Events per write-pipeline chunk.")


@multi_asset(
    name="memory_extraction",
    specs=[
        AssetSpec(
            key,
            deps=[AssetDep(d) for d in _DEPS[key]],
            group_name=EXTRACTION,
            kinds=KINDS,
            description=_DESCRIPTIONS[key],
            metadata=table_meta(key),
            tags={"arandu/stage": EXTRACTION},
        )
        for key in EXTRACTION_TABLES
    ],
    partitions_def=agents_partitions,
    pool=LLM_POOL,
    retry_policy=EXTRACTION_RETRY,
    can_subset=False,
)
def memory_extraction(
    context: AssetExecutionContext,
    config: ExtractionConfig,
    memory: MemoryStoreResource,
    llm: LLMResource,
    embeddings: EmbeddingsResource,
):
    """Run the write pipeline over one agent's pending events (or rebuild them all)."""
    agent = context.partition_key
    outcome = run_async(_extract(context, agent, config, memory, llm, embeddings))
    for key in EXTRACTION_TABLES:
        yield MaterializeResult(asset_key=key, metadata=outcome[key])


async def _extract(context: AssetExecutionContext, agent: str, config: ExtractionConfig,
                   memory: MemoryStoreResource, llm: LLMResource,
                   embeddings: EmbeddingsResource) -> dict[str, dict[str, Any]]:
    from arandu_pipelines.background.reextract import reextract
    from arandu_pipelines.store import run_previews, status

    started = time.perf_counter()
    provider = llm.get()
    async with memory.client(llm=provider, embeddings=embeddings.get()) as client:
        engine = client.engine
        t0 = await status.db_now(engine)
        before = await status.table_counts(engine, agent, EXTRACTION_TABLES)
        run: dict[str, Any] = {"mode": "offline rules" if provider is None else "llm"}
        errors: list[str] = []
        tokens = 0
        if config.rebuild:
            try:
                since = (datetime.fromisoformat(config.since)
                         if config.since else None)
            except ValueError:
                raise Failure(f"since={config.since!r} is not an ISO timestamp "
                              "(e.g. 2023-06-01T00:00:00Z)", allow_retries=False) from None
            res = await reextract(client, agent, since=since, max_events=config.limit,
                                  chunk_size=config.chunk_size, max_attempts=memory.max_attempts)
            errors = res.extraction_errors
            read = extracted = res.events_extracted
            run.update(rebuild="whole agent" if since is None else f"from {since.isoformat()}",
                       events_reset=res.events_reset, facts_discarded=res.facts_discarded,
                       facts_reopened=res.facts_reopened,
                       relationships_discarded=res.relationships_discarded,
                       entities_discarded=res.entities_discarded)
            comparison = md_table([{"table": t, "active_before": res.before.get(t, 0),
                                    "active_after": res.after.get(t, 0)}
                                   for t in res.before], limit=20)
        else:
            # the library's "extract until the limit" loop (batches, early stop, the bound)
            report = await client.extract_pending(agent, limit=config.limit,
                                                  chunk_size=config.chunk_size,
                                                  max_attempts=memory.max_attempts)
            read, extracted = report.rows_read, report.events_extracted
            errors.extend(report.extraction_errors)
            tokens = report.tokens_used.total_tokens
            comparison = None
        # The write pipeline marks a message it cannot extract (e.g. the LLM is unreachable)
        # `failed` without raising, so the report's errors miss it: count what this run failed.
        failed, failures = await status.failed_since(engine, agent, t0)
        if failed and len(failures) >= len(errors):
            errors = failures
        if read and not extracted and errors:
            # nothing went through: most likely transient (LLM or database down) -> retry policy
            raise Failure(f"extraction failed for every event of agent {agent!r}: {errors[0]}",
                          metadata={"errors": MetadataValue.json(errors[:20])})
        changes = await status.extraction_changes(engine, agent, t0)
        async with engine.connect() as conn:
            previews = await run_previews.table_id_previews(conn, agent, list(EXTRACTION_TABLES))
            schemas = {key: await table_schema(conn, key) for key in EXTRACTION_TABLES}
    for e in errors:
        context.log.warning(f"extraction error (events kept, retried later): {e}")
    context.log.info(f"agent {agent}: {extracted} events extracted; "
                     + ", ".join(f"{k} +{v.added}" for k, v in changes.items()))
    out: dict[str, dict[str, Any]] = {}
    for key in EXTRACTION_TABLES:
        ch = changes[key]
        md: dict[str, Any] = {
            **counts(ch.added, ch.updated, ch.invalidated),
            "rows_total": ch.total,
            "rows_active": ch.active,
            "rows_before": before[key].total,
            "events_extracted": extracted,
            "extraction_errors": max(len(errors), failed),
            "llm_tokens": tokens,
            "duration_ms": 0.0,
            "preview": md_table(previews[key]),
            "dagster/row_count": ch.total,
            "dagster/column_schema": schemas[key],
            "dagster/column_lineage": column_lineage(_LINEAGE[key]),
        }
        md.update(run)
        if comparison is not None:
            md["before_after"] = comparison
        if errors:
            md["errors"] = MetadataValue.json(errors[:20])
        out[key] = md
    elapsed = (time.perf_counter() - started) * 1000
    for md in out.values():
        md["duration_ms"] = round(elapsed, 1)
    return out

