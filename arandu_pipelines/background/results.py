"""Result types of the background jobs (the spec's, plus what a scheduler wants to report).

Every result carries `duration_ms`, the LLM tokens spent (`tokens`, zero on the offline path) and
a small `preview` (a few rows as dicts) so an orchestrator can show what changed without querying
again. The counting fields follow the specification's result types; the extra ones
(`*_updated`, `*_deactivated`, ...) are documented where they are defined.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from arandu_pipelines.types import TokenUsage


@dataclass
class _Base:
    duration_ms: float = 0.0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    preview: list[dict[str, Any]] = field(default_factory=list)
    reference_time: datetime | None = None  # the "now" the job measured ages against
    llm_errors: list[str] = field(default_factory=list)  # failed LLM calls (old/offline result kept)


@dataclass
class EntityImportanceResult(_Base):
    entities_scored: int = 0
    entities_updated: int = 0  # scores that changed (0 on an idempotent re-run)
    facts_updated: int = 0  # fact importances evolved by use (read/importance.py), 0 on a re-run
    top_entities: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class SummaryRefreshResult(_Base):
    summaries_refreshed: int = 0
    summaries_skipped: int = 0  # stale entities without any active fact to summarise
    summaries_changed: int = 0  # of the refreshed, how many got a different text


@dataclass
class ProfileConsolidationResult(_Base):
    profiles_consolidated: int = 0
    profiles_skipped: int = 0
    profiles_changed: int = 0


@dataclass
class EntityCommunitiesResult(_Base):
    communities_found: int = 0
    total_entities_assigned: int = 0
    entities_updated: int = 0  # community_key values that changed (set or cleared)
    communities: list[list[str]] = field(default_factory=list)

    # The spec returns {"communities_found": int, "total_entities_assigned": int}: the result
    # also reads as that dict (result["communities_found"], dict(result), result == {...}).
    _SPEC_KEYS = ("communities_found", "total_entities_assigned")

    def keys(self) -> tuple[str, ...]:
        return self._SPEC_KEYS

    def __getitem__(self, key: str) -> int:
        if key not in self._SPEC_KEYS:
            raise KeyError(key)
        return int(getattr(self, key))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dict):
            return dict(self) == other
        if isinstance(other, EntityCommunitiesResult):
            return vars(self) == vars(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass
class ClusteringResult(_Base):
    clusters_created: int = 0
    clusters_reinforced: int = 0  # existing clusters whose members / centroid / summary changed
    summaries_generated: int = 0  # by an LLM (0 offline: the summary is built from top facts)
    facts_assigned: int = 0  # facts whose cluster_id changed to a cluster
    facts_unassigned: int = 0  # facts taken out of a cluster (closed, too old, cluster retired)
    clusters_deactivated: int = 0


@dataclass
class CommunityDetectionResult(_Base):
    communities_created: int = 0
    communities_reinforced: int = 0
    communities_deactivated: int = 0  # themes whose cluster set no longer holds together
    clusters_in_communities: int = 0
    skipped: bool = False
    skip_reason: str | None = None


@dataclass
class ConsolidationResult(_Base):
    events_processed: int = 0
    observations_created: int = 0
    observations_reinforced: int = 0
    observations_deactivated: int = 0  # contradictions that were resolved since
    by_type: dict[str, int] = field(default_factory=dict)  # detected now, per observation_type
    skipped: bool = False
    skip_reason: str | None = None


@dataclass
class MemifyResult(_Base):
    facts_scored: int = 0
    facts_marked_stale: int = 0  # newly stale
    facts_unmarked_stale: int = 0  # stale before, alive again (retrieved / reinforced)
    facts_updated: int = 0  # rows whose vitality or stale flag changed
    edges_reinforced: int = 0
    merges_executed: int = 0
    knowledge_distilled: int = 0  # `distilled` meta-observations written by the LLM
    directives_learned: int = 0  # `directive` meta-observations written (contradiction-checked)
    directives_superseded: int = 0  # older directives a newer, contradicting one replaced


@dataclass
class EmotionalTrendsResult(_Base):
    emotion_counts: dict[str, int] = field(default_factory=dict)
    trend_direction: str = "stable"
    dominant_emotion: str | None = None
    trigger_keywords: list[str] = field(default_factory=list)
    avg_intensity: float = 0.0
    dominant_intensity: float = 0.0
    dominant_energy: str = "medium"
    events_analyzed: int = 0
    observation_created: bool = False
    observation_id: str | None = None
    events_tagged: int = 0  # events that got an emotion from the lexicon in this run
    skipped: bool = False
    skip_reason: str | None = None


@dataclass
class ReextractionResult(_Base):
    agent_id: str = ""
    since: datetime | None = None
    before: dict[str, int] = field(default_factory=dict)  # active rows per table
    after: dict[str, int] = field(default_factory=dict)
    events_reset: int = 0
    facts_discarded: int = 0
    facts_reopened: int = 0
    relationships_discarded: int = 0
    relationships_reopened: int = 0
    entities_discarded: int = 0
    aliases_discarded: int = 0
    events_extracted: int = 0
    facts_added: int = 0
    extraction_errors: list[str] = field(default_factory=list)
