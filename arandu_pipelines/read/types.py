"""What `retrieve()` hands back. Plain dataclasses: they serialise with `dataclasses.asdict`
(the CLI's --json does exactly that) and compare field by field, which the determinism tests use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from arandu_pipelines.types import PipelineTrace


@dataclass
class ScoredFact:
    """One fact, its final score and why: `scores` keeps every signal that touched it."""

    fact_id: str
    entity_key: str
    entity_name: str
    attribute_key: str | None
    fact_text: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    speaker: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    event_date: datetime | None = None
    source_event_id: str | None = None
    source_message_id: str | None = None
    confidence: float = 0.0
    importance: float = 0.5
    session_id: str | None = None


@dataclass
class ScoredEvent:
    """One raw message judged relevant (or kept as context of one that is)."""

    event_id: str
    message_id: str | None
    metadata: dict[str, Any]
    session_id: str
    speaker: str | None
    text: str
    occurred_at: datetime
    score: float
    scores: dict[str, float] = field(default_factory=dict)


@dataclass
class SourceRef:
    """A citation: a stored message behind something returned, with what it supported."""

    event_id: str
    message_id: str | None
    metadata: dict[str, Any]
    session_id: str | None
    speaker: str | None
    occurred_at: datetime | None
    text: str
    score: float
    supports: list[str] = field(default_factory=list)  # "event" and/or "fact:<id>"


@dataclass
class RetrieveResult:
    facts: list[ScoredFact] = field(default_factory=list)
    events: list[ScoredEvent] = field(default_factory=list)
    sources: list[SourceRef] = field(default_factory=list)
    context: str = ""
    total_candidates: int = 0
    duration_ms: float = 0.0
    config_effective: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    strategy: str = "multi_signal"
    pipeline: PipelineTrace | None = None  # filled when verbose=True

    @property
    def trace(self) -> PipelineTrace | None:
        return self.pipeline
