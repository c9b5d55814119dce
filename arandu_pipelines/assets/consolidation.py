"""Consolidation: the background jobs as an asset graph, partitioned by agent.

    memory_entities ─┬─► entity_importance ─┬─► entity_summaries
                     │                      └─► entity_profiles
                     └─► entity_communities (relationship-graph components)
    memory_facts ──► memory_clusters ──► community_themes ──┐
    memory_events ─► emotional_trends (after memory_facts) ─┼─► memory_meta_observations
    memory_facts ──────────────────────────────────────────┘    (patterns, contradictions, trends)
    memory_facts ──► fact_vitality (memify)

Importance runs first (the spec's order): summaries and profiles are refreshed in importance
order. `memory_clusters` and `memory_meta_observations` are the tables of those names;
the other assets are derived columns of `memory_entities` / `memory_facts` / `memory_events`
(their metadata names the table and columns they write). Each asset calls one library function
and reports what it changed; every one of them is idempotent.
"""

from typing import Any

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from arandu_pipelines import background as bg
from arandu_pipelines.assets._metadata import result_metadata, table_schema
from arandu_pipelines.assets.common import (
    CONSOLIDATION,
    CONSOLIDATION_FRESHNESS,
    KINDS,
    LLM_POOL,
    RETRY,
    consolidation_condition,
    table_meta,
)
from arandu_pipelines.partitions import agents_partitions
from arandu_pipelines.resources import (
    EmbeddingsResource,
    LLMResource,
    MemoryStoreResource,
    run_async,
)
from arandu_pipelines.store import status

COMMON: dict[str, Any] = {
    "partitions_def": agents_partitions,
    "group_name": CONSOLIDATION,
    "kinds": KINDS,
    "retry_policy": RETRY,
    "tags": {"arandu/stage": CONSOLIDATION},
    "automation_condition": consolidation_condition(),
    "freshness_policy": CONSOLIDATION_FRESHNESS,
}


def _writes(table: str, columns: str) -> dict[str, str]:
    return {"dagster/table_name": table, "writes": f"{table}({columns})"}


async def _with_engine(memory: MemoryStoreResource, fn: Any) -> Any:
    async with memory.engine() as engine:
        return await fn(engine)


@asset(deps=["memory_entities", "memory_fact_entity_links", "memory_entity_relationships"],
       metadata=_writes("memory_entities", "importance_score"), **COMMON)
def entity_importance(context: AssetExecutionContext, memory: MemoryStoreResource) -> MaterializeResult:
    """Entity importance, 0-1 (pure SQL): fact density 0.30, recency 0.25, retrieval frequency
    0.25, relationship degree 0.20. Runs first: summaries and profiles follow its order. The
    same job evolves used facts' importance (memory_facts.importance, what retrieve ranks on)."""
    agent = context.partition_key
    r = run_async(_with_engine(memory, lambda e: bg.compute_entity_importance(e, agent)))
    return MaterializeResult(metadata=result_metadata(r, updated=r.entities_updated, extra={
        "entities_scored": r.entities_scored, "facts_updated": r.facts_updated}))


@asset(deps=["entity_importance", "memory_facts"], pool=LLM_POOL,
       metadata=_writes("memory_entities", "summary_text, summary_refreshed_at"), **COMMON)
def entity_summaries(context: AssetExecutionContext, memory: MemoryStoreResource,
                     llm: LLMResource) -> MaterializeResult:
    """2-3 sentence entity summaries for stale entities, most important first (offline: the
    entity's top facts; with an LLM: written by it, 10 per run)."""
    agent = context.partition_key
    provider = llm.get()
    r = run_async(_with_engine(memory, lambda e: bg.refresh_entity_summaries(e, agent, llm=provider)))
    return MaterializeResult(metadata=result_metadata(r, updated=r.summaries_refreshed, extra={
        "summaries_changed": r.summaries_changed, "summaries_skipped": r.summaries_skipped}))


@asset(deps=["entity_importance", "memory_facts", "memory_entity_relationships"], pool=LLM_POOL,
       metadata=_writes("memory_entities", "profile_text, profile_refreshed_at"), **COMMON)
def entity_profiles(context: AssetExecutionContext, memory: MemoryStoreResource,
                    llm: LLMResource) -> MaterializeResult:
    """Entity profiles (L3 consolidation) rebuilt from all active facts and relationships."""
    agent = context.partition_key
    provider = llm.get()
    r = run_async(_with_engine(memory, lambda e: bg.consolidate_entity_profiles(e, agent, llm=provider)))
    return MaterializeResult(metadata=result_metadata(r, updated=r.profiles_consolidated, extra={
        "profiles_changed": r.profiles_changed, "profiles_skipped": r.profiles_skipped}))


@asset(deps=["memory_entity_relationships", "memory_entities"],
       metadata=_writes("memory_entities", "community_key"), **COMMON)
def entity_communities(context: AssetExecutionContext, memory: MemoryStoreResource) -> MaterializeResult:
    """Connected components of the relationship graph (edges with strength >= 0.3), union-find."""
    agent = context.partition_key
    r = run_async(_with_engine(memory, lambda e: bg.detect_entity_communities(e, agent)))
    return MaterializeResult(metadata=result_metadata(r, updated=r.entities_updated, extra={
        "communities_found": r.communities_found,
        "entities_assigned": r.total_entities_assigned}))


@asset(key="memory_clusters", deps=["memory_facts"], pool=LLM_POOL,
       metadata={**table_meta("memory_clusters"), "writes": "memory_clusters, memory_facts(cluster_id)"},
       **COMMON)
def memory_clusters(context: AssetExecutionContext, memory: MemoryStoreResource,
                    llm: LLMResource, embeddings: EmbeddingsResource) -> MaterializeResult:
    """Facts grouped per subject entity (recent, active facts); each cluster has the mean
    embedding of its facts and a summary; facts point at their cluster (cluster_id)."""
    agent = context.partition_key
    provider, emb = llm.get(), embeddings.get()

    async def go(engine: Any) -> Any:
        r = await bg.cluster_facts(engine, agent, embeddings=emb, llm=provider)
        async with engine.connect() as conn:
            total = await status.active_clusters(conn, agent)
            schema = await table_schema(conn, "memory_clusters")
        return r, total, schema

    r, total, schema = run_async(_with_engine(memory, go))
    return MaterializeResult(metadata=result_metadata(
        r, added=r.clusters_created, updated=r.clusters_reinforced, invalidated=r.clusters_deactivated,
        extra={"facts_assigned": r.facts_assigned, "facts_unassigned": r.facts_unassigned,
               "summaries_generated": r.summaries_generated, "dagster/row_count": int(total),
               "dagster/column_schema": schema}))


@asset(deps=["memory_clusters"], pool=LLM_POOL,
       metadata=_writes("memory_meta_observations", "observation_type = 'community_theme'"), **COMMON)
def community_themes(context: AssetExecutionContext, memory: MemoryStoreResource,
                     llm: LLMResource) -> MaterializeResult:
    """Clusters whose centroids are close (cosine >= community_similarity_threshold) grouped into
    `community_theme` meta-observations."""
    agent = context.partition_key
    provider = llm.get()
    r = run_async(_with_engine(memory, lambda e: bg.detect_communities(e, agent, llm=provider)))
    return MaterializeResult(metadata=result_metadata(
        r, added=r.communities_created, updated=r.communities_reinforced,
        invalidated=r.communities_deactivated,
        extra={"clusters_in_communities": r.clusters_in_communities}))


# memory_facts as well as the event log: the agent's consolidation follows its extraction (the
# unpartitioned event log alone says nothing about which agent changed; see common.py)
@asset(deps=["memory_events", "memory_facts"], pool=LLM_POOL,
       metadata=_writes("memory_events, memory_meta_observations",
                        "emotion_primary, emotion_intensity, energy_level; 'emotional_trend'"),
       **COMMON)
def emotional_trends(context: AssetExecutionContext, memory: MemoryStoreResource,
                     llm: LLMResource) -> MaterializeResult:
    """Events tagged with emotion / intensity / energy (EN + PT lexicon offline), aggregated into
    the agent's `emotional_trend` meta-observation."""
    agent = context.partition_key
    provider = llm.get()
    r = run_async(_with_engine(memory, lambda e: bg.materialize_emotional_trends(e, agent, llm=provider)))
    return MaterializeResult(metadata=result_metadata(
        r, added=int(r.observation_created), updated=r.events_tagged,
        extra={"events_analyzed": r.events_analyzed, "dominant_emotion": r.dominant_emotion or "-",
               "trend_direction": r.trend_direction, "avg_intensity": r.avg_intensity,
               "emotion_counts": MetadataValue.json(r.emotion_counts),
               "trigger_keywords": len(r.trigger_keywords)}))   # words from messages: count only


@asset(deps=["memory_facts"], metadata=_writes("memory_facts", "vitality_score, is_stale"), **COMMON)
def fact_vitality(context: AssetExecutionContext, memory: MemoryStoreResource,
                  llm: LLMResource, embeddings: EmbeddingsResource) -> MaterializeResult:
    """Memify: every fact's vitality (retrieval 0.30, recency 0.25, confidence 0.20,
    reinforcement 0.15, x0.8 per correction); active facts below the threshold marked stale.
    With an LLM: distilled knowledge and learned directives (contradiction-checked)."""
    agent = context.partition_key
    provider = llm.get()
    emb = embeddings.get() if provider is not None else None
    r = run_async(_with_engine(memory, lambda e: bg.run_memify(e, agent, llm=provider, embeddings=emb)))
    return MaterializeResult(metadata=result_metadata(
        r, updated=r.facts_updated, invalidated=r.facts_marked_stale,
        extra={"facts_scored": r.facts_scored, "facts_marked_stale": r.facts_marked_stale,
               "facts_revived": r.facts_unmarked_stale,
               "knowledge_distilled": r.knowledge_distilled,
               "directives_learned": r.directives_learned}))


@asset(key="memory_meta_observations",
       deps=["memory_facts", "memory_events", "community_themes", "emotional_trends"],
       pool=LLM_POOL, metadata=table_meta("memory_meta_observations"), **COMMON)
def memory_meta_observations(context: AssetExecutionContext, memory: MemoryStoreResource,
                             llm: LLMResource) -> MaterializeResult:
    """Meta-observations: L2 consolidation (patterns, contradictions, trends) on top of the
    community themes and the emotional trend written upstream."""
    agent = context.partition_key
    provider = llm.get()

    async def go(engine: Any) -> Any:
        r = await bg.run_consolidation(engine, agent, llm=provider)
        async with engine.connect() as conn:
            by_type, _titles = await status.observation_summary(conn, agent)   # titles quote facts
            schema = await table_schema(conn, "memory_meta_observations")
        return r, by_type, schema

    r, by_type, schema = run_async(_with_engine(memory, go))
    md = result_metadata(r, added=r.observations_created, updated=r.observations_reinforced,
                         invalidated=r.observations_deactivated, extra={
                             "events_processed": r.events_processed,
                             "detected_now": MetadataValue.json(r.by_type),
                             "active_by_type": MetadataValue.json(by_type),
                             "dagster/row_count": int(sum(by_type.values())),
                             "dagster/column_schema": schema})
    return MaterializeResult(metadata=md)


CONSOLIDATION_ASSETS = [
    entity_importance,
    entity_summaries,
    entity_profiles,
    entity_communities,
    memory_clusters,
    community_themes,
    emotional_trends,
    fact_vitality,
    memory_meta_observations,
]
