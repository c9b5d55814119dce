"""Background jobs ("sleep-time compute"): library functions, no orchestration inside.

Every job takes an `AsyncEngine`, a `MemoryClient` or (the specification's form) an
`AsyncSession`, and one agent, runs set-based SQL under
the agent's advisory lock, is idempotent (a re-run over unchanged data writes nothing) and
returns a small result dataclass with counts, a preview and its duration. The text-producing
jobs (summaries, profiles, clusters, memify) use their `llm` argument when one is given and fall
back to the deterministic offline output when it is None or fails.

Recommended order (the spec's; the Dagster consolidation graph encodes it as dependencies):

    compute_entity_importance            -> refresh_entity_summaries, consolidate_entity_profiles
    cluster_facts -> detect_communities  (community themes)
    materialize_emotional_trends         (tags event emotions first)
    run_consolidation                    (patterns, contradictions, trends)
    run_memify                           (vitality, stale marking)
    detect_entity_communities            (relationship-graph components)
"""

from arandu_pipelines.background.api import (
    ProfileRunResult,
    cluster_facts,
    cluster_user_facts,
    compute_entity_importance,
    consolidate_entity_profiles,
    detect_communities,
    detect_entity_communities,
    materialize_emotional_trends,
    refresh_entity_summaries,
    run_consolidation,
    run_memify,
    run_profile_consolidation,
    tag_event_emotion,
)
from arandu_pipelines.background.emotions import tag_emotion, tag_event_emotions
from arandu_pipelines.background.memify import compute_vitality
from arandu_pipelines.background.reextract import reextract
from arandu_pipelines.background.results import (
    ClusteringResult,
    CommunityDetectionResult,
    ConsolidationResult,
    EmotionalTrendsResult,
    EntityCommunitiesResult,
    EntityImportanceResult,
    MemifyResult,
    ProfileConsolidationResult,
    ReextractionResult,
    SummaryRefreshResult,
)

__all__ = [
    "ClusteringResult",
    "CommunityDetectionResult",
    "ConsolidationResult",
    "EmotionalTrendsResult",
    "EntityCommunitiesResult",
    "EntityImportanceResult",
    "MemifyResult",
    "ProfileConsolidationResult",
    "ProfileRunResult",
    "ReextractionResult",
    "SummaryRefreshResult",
    "cluster_facts",
    "cluster_user_facts",
    "compute_entity_importance",
    "compute_vitality",
    "consolidate_entity_profiles",
    "detect_communities",
    "detect_entity_communities",
    "materialize_emotional_trends",
    "reextract",
    "refresh_entity_summaries",
    "run_consolidation",
    "run_memify",
    "run_profile_consolidation",
    "tag_emotion",
    "tag_event_emotion",
    "tag_event_emotions",
]
