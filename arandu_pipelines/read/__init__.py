"""The read pipeline: `retrieve()` and its stages (see docs/retrieval.md).

planner -> registry/executor (index steps: lexical, semantic, graph, pattern, temporal, recent)
-> rank (facts) / events (messages) -> spreading -> rerank -> format, with citations (sources).

The names below are the specification's `arandu.read` (stage functions for callers who compose
the pipeline themselves; see docs/api.md).
"""

from arandu_pipelines.background.api import materialize_emotional_trends
from arandu_pipelines.background.results import EmotionalTrendsResult
from arandu_pipelines.read.api import (
    ContradictionResult,
    DirectiveBlock,
    ExpandedQuery,
    GraphRetrievalResult,
    PatternQuery,
    RetrievalPlan,
    SpreadingActivationResult,
    check_directive_contradiction,
    effective_confidence,
    expand_query,
    generate_optimized_directives,
    get_emotional_summary_for_context,
    invalidate_directive_cache,
    plan_retrieval,
    retrieve_graph_facts,
    retrieve_relevant_events,
    run_read_pipeline,
    spread_activation,
)
from arandu_pipelines.read.candidate import RetrievalCandidate, compute_pattern_signal
from arandu_pipelines.read.compress import (
    CompressedContext,
    compress_broad_context,
    compress_context,
)
from arandu_pipelines.read.importance import compute_dynamic_importance
from arandu_pipelines.read.types import (
    RetrieveResult,
    ScoredEvent,
    ScoredFact,
    SourceRef,
)

#: The specification's name for what `run_read_pipeline` returns.
ReadResult = RetrieveResult

__all__ = [
    "CompressedContext", "ContradictionResult", "DirectiveBlock", "EmotionalTrendsResult",
    "ExpandedQuery", "GraphRetrievalResult", "PatternQuery", "ReadResult", "RetrievalCandidate",
    "RetrievalPlan", "RetrieveResult", "ScoredEvent", "ScoredFact", "SourceRef",
    "SpreadingActivationResult",
    "check_directive_contradiction", "compress_broad_context", "compress_context",
    "compute_dynamic_importance", "compute_pattern_signal", "effective_confidence", "expand_query",
    "generate_optimized_directives", "get_emotional_summary_for_context",
    "invalidate_directive_cache", "materialize_emotional_trends", "plan_retrieval",
    "retrieve_graph_facts", "retrieve_relevant_events", "run_read_pipeline", "spread_activation",
]
