"""The read pipeline: `retrieve()` and its stages (see docs/retrieval.md).

planner -> registry/executor (index steps: lexical, semantic, graph, pattern, temporal, recent)
-> rank (facts) / events (messages) -> spreading -> rerank -> format, with citations (sources).
"""

from arandu_pipelines.read.types import RetrieveResult, ScoredEvent, ScoredFact, SourceRef

__all__ = ["RetrieveResult", "ScoredEvent", "ScoredFact", "SourceRef"]
