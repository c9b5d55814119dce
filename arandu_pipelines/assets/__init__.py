"""Software-defined assets: one per memory table (plus the consolidation steps).

    ingestion      memory_events
    extraction     memory_facts, memory_entities, memory_entity_aliases,
                   memory_entity_relationships, memory_fact_entity_links   (one multi-asset)
    consolidation  entity_importance, entity_summaries, entity_profiles, entity_communities,
                   memory_clusters, community_themes, emotional_trends, fact_vitality,
                   memory_meta_observations

Each asset calls the memory library and reports what changed; no memory logic lives here.
"""

from arandu_pipelines.assets.checks import MEMORY_HEALTH_CHECKS
from arandu_pipelines.assets.consolidation import CONSOLIDATION_ASSETS
from arandu_pipelines.assets.extraction import EXTRACTION_TABLES, memory_extraction
from arandu_pipelines.assets.ingestion import memory_events

ALL_ASSETS = [memory_events, memory_extraction, *CONSOLIDATION_ASSETS]

__all__ = ["ALL_ASSETS", "CONSOLIDATION_ASSETS", "EXTRACTION_TABLES", "MEMORY_HEALTH_CHECKS",
           "memory_events", "memory_extraction"]
