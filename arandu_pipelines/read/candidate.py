"""A retrieval candidate as the specification's stage functions exchange it, and the pattern
signal (`compute_pattern_signal`): a small boost for facts the person recently re-confirmed.

`retrieve()` ranks its own candidates (rank.py, where reinforcement lends the same kind of
boost); these are for callers composing the stages themselves (spread_activation returns them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

#: The largest additive boost (a fact confirmed just now).
MAX_PATTERN_BOOST = 0.10
PATTERN_HALF_LIFE_DAYS = 7.0


@dataclass
class RetrievalCandidate:
    fact_id: str
    entity_key: str = ""
    fact_text: str = ""
    score: float = 0.0  # before the pattern signal
    final_score: float = 0.0  # after it (compute_pattern_signal); equal to score until then
    source: str = ""  # which signal found it: semantic | keyword | graph | spreading ...
    attribute_key: str | None = None
    last_confirmed_at: datetime | None = None
    signals: dict[str, float] = field(default_factory=dict)


def compute_pattern_signal(
    candidates: list[RetrievalCandidate], now: datetime | None = None,
) -> list[RetrievalCandidate]:
    """Add `0.10 * 2 ** (-days since last_confirmed_at / 7)` to each confirmed candidate's score
    (as `final_score`, so applying it twice does not add twice) and sort by final_score, best
    first (ties by fact id)."""
    now = now or datetime.now(UTC)
    for c in candidates:
        boost = 0.0
        if c.last_confirmed_at is not None:
            when = c.last_confirmed_at if c.last_confirmed_at.tzinfo else c.last_confirmed_at.replace(tzinfo=UTC)
            days = max(0.0, (now - when).total_seconds() / 86400.0)
            boost = MAX_PATTERN_BOOST * 2.0 ** (-days / PATTERN_HALF_LIFE_DAYS)
        if boost:
            c.signals["pattern"] = boost
        c.final_score = c.score + boost
    return sorted(candidates, key=lambda c: (-c.final_score, c.fact_id))


__all__ = ["MAX_PATTERN_BOOST", "RetrievalCandidate", "compute_pattern_signal"]
