"""arandu-pipelines: long-term memory for AI agents (PostgreSQL + pgvector), with a Dagster shell.

The library (store, write, read, background, providers) never imports Dagster; the Dagster code
location lives in `arandu_pipelines.definitions` and the `assets/`, `jobs/`, `sensors/`,
`resources/` modules.
"""

from arandu_pipelines.background import (
    ClusteringResult,
    CommunityDetectionResult,
    ConsolidationResult,
    EmotionalTrendsResult,
    EntityCommunitiesResult,
    EntityImportanceResult,
    MemifyResult,
    ProfileConsolidationResult,
    ProfileRunResult,
    SummaryRefreshResult,
    cluster_facts,
    cluster_user_facts,
    compute_entity_importance,
    compute_vitality,
    consolidate_entity_profiles,
    detect_communities,
    detect_entity_communities,
    materialize_emotional_trends,
    refresh_entity_summaries,
    run_consolidation,
    run_memify,
    run_profile_consolidation,
)
from arandu_pipelines.client import MemoryClient, SyncMemoryClient
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import (
    AranduError,
    DatabaseError,
    ExtractionError,
    LLMCallError,
    MemoryError,
    ReconciliationError,
    ProviderError,
    ResolutionError,
    RetrievalError,
    UpsertError,
    ValidationError,
)
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider, LLMResult, LLMUsage
from arandu_pipelines.types import (
    DeleteReport,
    EntityDetail,
    FactDetail,
    ImportReport,
    PipelineTrace,
    TokenUsage,
    WriteResult,
)

__all__ = [
    "MemoryClient", "SyncMemoryClient", "MemoryConfig", "MemoryError", "ValidationError",
    "ExtractionError", "ResolutionError", "ReconciliationError", "RetrievalError", "UpsertError",
    "AranduError", "DatabaseError", "ProviderError", "LLMCallError",
    "LLMProvider", "EmbeddingProvider", "LLMResult", "LLMUsage", "WriteResult", "FactDetail",
    "EntityDetail", "DeleteReport", "ImportReport", "PipelineTrace", "TokenUsage",
    # background jobs (the specification's top-level names; see arandu_pipelines.background)
    "ClusteringResult", "CommunityDetectionResult", "ConsolidationResult", "EmotionalTrendsResult",
    "EntityCommunitiesResult", "EntityImportanceResult", "MemifyResult",
    "ProfileConsolidationResult", "ProfileRunResult", "SummaryRefreshResult", "cluster_facts",
    "cluster_user_facts", "compute_entity_importance", "compute_vitality",
    "consolidate_entity_profiles", "detect_communities", "detect_entity_communities",
    "materialize_emotional_trends", "refresh_entity_summaries", "run_consolidation", "run_memify",
    "run_profile_consolidation",
]
__version__ = "0.1.0"
