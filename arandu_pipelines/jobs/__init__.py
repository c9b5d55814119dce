"""Jobs: what the sensors and automation conditions launch (and what a person launches from the UI).

    import_job          memory_events for one dropped file (import sensor)
    extraction_job      the extraction multi-asset for one agent (pending-events sensor)
    reextraction_job    the same assets with rebuild=true: invalidate and rebuild an agent's
                        extraction from its events (launch it per agent, or as a backfill over
                        several agents, after a change of extraction model or rules)
    consolidation_job   the consolidation graph for one agent (after extraction, or on its cron tick)

Partitioning (one partition per agent) is inferred from the selected assets. Runs of one agent
never overlap: every partitioned run carries the `dagster/partition` tag and the instance limits
it to one in-progress run per value (see docs/dagster.md).
"""

from dagster import AssetSelection, define_asset_job

from arandu_pipelines.assets.common import CONSOLIDATION, EXTRACTION, INGESTION

import_job = define_asset_job(
    "import_job",
    selection=AssetSelection.groups(INGESTION),
    tags={"arandu/stage": INGESTION},
    description="Import one conversation file (or the whole drop directory) into memory_events.",
)

extraction_job = define_asset_job(
    "extraction_job",
    selection=AssetSelection.groups(EXTRACTION),
    tags={"arandu/stage": EXTRACTION},
    description="Extract one agent's pending events into facts, entities, aliases, edges, links.",
)

reextraction_job = define_asset_job(
    "reextraction_job",
    selection=AssetSelection.groups(EXTRACTION),
    config={"ops": {"memory_extraction": {"config": {"rebuild": True, "since": None}}}},
    tags={"arandu/stage": "reextraction"},
    description="Invalidate what extraction derived for an agent (optionally from `since` on) "
                "and rebuild it from the immutable events; metadata shows before/after counts.",
)

consolidation_job = define_asset_job(
    "consolidation_job",
    selection=AssetSelection.groups(CONSOLIDATION),
    tags={"arandu/stage": CONSOLIDATION},
    description="Background consolidation of one agent: importance first, then summaries, "
                "profiles, clusters, themes, emotional trend, patterns, vitality, communities.",
)

ALL_JOBS = [import_job, extraction_job, reextraction_job, consolidation_job]

__all__ = ["ALL_JOBS", "consolidation_job", "extraction_job", "import_job", "reextraction_job"]
