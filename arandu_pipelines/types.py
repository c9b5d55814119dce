"""Results handed back to callers. Plain dataclasses so they serialise and compare easily."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any


@dataclass
class TokenUsage:
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, input_tokens: int, output_tokens: int) -> None:
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens


@dataclass
class TraceStep:
    name: str
    duration_ms: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class PipelineTrace:
    """What each stage did; filled always (cheap), returned when verbose=True."""

    steps: list[TraceStep] = field(default_factory=list)

    def step(self, name: str) -> _StepTimer:
        return _StepTimer(self, name)

    def add(self, name: str, duration_ms: float = 0.0, **data: object) -> TraceStep:
        step = TraceStep(name=name, duration_ms=duration_ms, data=data)
        self.steps.append(step)
        return step

    def get(self, name: str) -> TraceStep | None:
        return next((s for s in self.steps if s.name == name), None)

    def to_dict(self) -> dict[str, object]:
        return {"steps": [dataclasses.asdict(s) for s in self.steps]}


class _StepTimer:
    def __init__(self, trace: PipelineTrace, name: str) -> None:
        self.trace = trace
        self.step = TraceStep(name=name)

    def __enter__(self) -> TraceStep:
        self._t0 = time.perf_counter()
        return self.step

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.step.duration_ms = (time.perf_counter() - self._t0) * 1000
        if exc is not None:
            self.step.data["error"] = f"{type(exc).__name__}: {exc}"
        self.trace.steps.append(self.step)


@dataclass
class FactRef:
    """A fact as reported in a WriteResult."""

    fact_id: str
    entity_key: str
    entity_name: str
    fact_text: str
    attribute_key: str | None = None
    confidence: float = 0.0
    importance: float = 0.5
    supersedes_fact_id: str | None = None


@dataclass
class EntityRef:
    canonical_key: str
    display_name: str
    entity_type: str
    method: str  # speaker | exact | alias | diminutive | fuzzy | string | llm | new
    mention: str = ""


@dataclass
class WriteResult:
    event_id: str | None = None
    facts_added: list[FactRef] = field(default_factory=list)
    facts_updated: list[FactRef] = field(default_factory=list)
    facts_unchanged: list[FactRef] = field(default_factory=list)
    facts_deleted: list[FactRef] = field(default_factory=list)
    entities_resolved: list[EntityRef] = field(default_factory=list)
    relationships: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: float = 0.0
    tokens_used: TokenUsage = field(default_factory=TokenUsage)
    pipeline: PipelineTrace | None = None
    success: bool = True
    error: str | None = None
    skipped_reason: str | None = None
    dry_run: bool = False


@dataclass
class FactDetail:
    fact_id: str
    entity_name: str
    entity_key: str
    entity_type: str
    attribute_key: str | None
    fact_text: str
    category: str | None
    confidence: float
    importance: float
    valid_from: datetime | None
    valid_to: datetime | None
    created_at: datetime | None
    source_context: str | None
    speaker: str | None
    source_event_id: str | None = None
    supersedes_fact_id: str | None = None
    invalidated_at: datetime | None = None
    reinforcement_count: int = 0
    # Times a user corrected this fact ("actually it's ..."); each costs it 0.8x in importance.
    user_correction_count: int = 0
    # Events (messages) that stated this fact again after `source_event_id` ("stated in X,
    # confirmed in Y"): reconciliation's NOOP keeps the link, oldest first (migration 0011).
    confirmed_event_ids: list[str] = field(default_factory=list)


@dataclass
class FactPage:
    """get_all() result: a list of facts plus warnings about keys that did not resolve."""

    facts: list[FactDetail]
    warnings: list[str] = field(default_factory=list)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def __getitem__(self, i: int) -> FactDetail:
        return self.facts[i]


@dataclass
class EntityDetail:
    entity_id: str
    canonical_key: str
    display_name: str
    entity_type: str
    summary_text: str | None
    fact_count: int
    importance_score: float | None
    first_seen_at: datetime | None
    last_seen_at: datetime | None
    profile_text: str | None
    aliases: list[str] = field(default_factory=list)


@dataclass(eq=False)
class DeleteReport:
    """What delete_all() removed, per table.

    The specification's `delete_all()` returns the number of facts deleted
    (`count = await memory.delete_all(...)`; `print(f"Deleted {count} facts")`). The report keeps
    the per-table detail and also *is* that count where a number is expected: it compares equal
    to an int, formats as one (f-strings, `format`), converts with `int()`, works as an index and
    is falsy when no fact was deleted. `str()`/`repr()` still show the whole report."""

    agent_id: str
    rows: dict[str, int] = field(default_factory=dict)

    @property
    def facts(self) -> int:
        return self.rows.get("memory_facts", 0)

    @property
    def total(self) -> int:
        return sum(self.rows.values())

    # ---- the spec's count ------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, DeleteReport):
            return (self.agent_id, self.rows) == (other.agent_id, other.rows)
        if isinstance(other, int) and not isinstance(other, bool):
            return self.facts == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like any dataclass with eq

    def __int__(self) -> int:
        return self.facts

    def __index__(self) -> int:
        return self.facts

    def __bool__(self) -> bool:
        return self.facts > 0

    def __format__(self, spec: str) -> str:
        return format(self.facts, spec)


@dataclass
class RejectedRow:
    """A row set aside (and kept in `memory_quarantine`): its 1-based data row number in the
    source (a CSV header and blank lines are not counted) and why."""

    row_number: int
    reason: str
    row: dict[str, Any] = field(default_factory=dict)


@dataclass
class ConflictRow:
    """A row whose message_id the agent already has with a different text. The stored event
    is kept unchanged (events are immutable); the row is not stored (it is quarantined)."""

    row_number: int
    agent_id: str
    message_id: str
    event_id: str | None  # the stored event that was kept
    reason: str = ""


@dataclass
class ImportReport:
    """What an import did. Every row read is exactly one of: inserted (`events_inserted`),
    already present with the same text (`events_skipped_duplicate`), a conflict (`conflicts`)
    or rejected (`rows_rejected`, with row numbers and reasons)."""

    rows_read: int = 0
    rows_rejected: list[RejectedRow] = field(default_factory=list)
    events_inserted: int = 0
    events_skipped_duplicate: int = 0
    conflicts: list[ConflictRow] = field(default_factory=list)
    events_extracted: int = 0
    # events of this import that another runner (e.g. `arandu dev`'s extraction sensor) extracted
    # between their insert and this import's own extraction: done, just not counted above
    events_extracted_elsewhere: int = 0
    facts_added: int = 0
    facts_updated: int = 0
    facts_unchanged: int = 0
    facts_deleted: int = 0
    entities_created: int = 0
    relationships_upserted: int = 0
    agents: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extraction_errors: list[str] = field(default_factory=list)
    stage_ms: dict[str, float] = field(default_factory=dict)  # summed over chunks, from traces
    tokens_used: TokenUsage = field(default_factory=TokenUsage)
    duration_ms: float = 0.0

    @property
    def rejected_count(self) -> int:
        return len(self.rows_rejected)

    @property
    def conflict_count(self) -> int:
        return len(self.conflicts)

    @property
    def all_rows_taken(self) -> bool:
        """No row rejected and none in conflict (the CLI's exit code 0 vs 1)."""
        return not self.rows_rejected and not self.conflicts

    def to_dict(self) -> dict[str, object]:
        d = dataclasses.asdict(self)
        d["rows_rejected"] = len(self.rows_rejected)
        d["rejected_rows"] = [{"row": r.row_number, "reason": r.reason} for r in self.rows_rejected]
        d["conflicts"] = len(self.conflicts)
        d["conflict_rows"] = [{"row": c.row_number, "agent_id": c.agent_id,
                               "message_id": c.message_id, "event_id": c.event_id}
                              for c in self.conflicts]
        return d
