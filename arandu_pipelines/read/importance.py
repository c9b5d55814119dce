"""Dynamic importance of one fact (the specification's `compute_dynamic_importance`).

A fact's stored `importance` is what extraction judged; how much it matters *now* also depends
on use. Four factors multiply the base:

    retrieval   1 + 0.25 * ln(1 + times_retrieved)          (saturates gradually)
    recency     1 + 0.5 * 2 ** (-days since last retrieval / 7)   (1 when never retrieved)
    correction  0.8 ** user_correction_count                 (each correction costs 20%)
    pattern     1.3 when the fact supports an active meta-observation

and the product is clamped to [0.05, 3.0]. Pure and deterministic given `now`.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from arandu_pipelines.errors import ValidationError

RETRIEVAL_WEIGHT = 0.25
RECENCY_WEIGHT = 0.5
RECENCY_HALF_LIFE_DAYS = 7.0
CORRECTION_FACTOR = 0.8
PATTERN_BOOST = 1.3
MIN_IMPORTANCE, MAX_IMPORTANCE = 0.05, 3.0


def compute_dynamic_importance(
    base_importance: float,
    times_retrieved: int,
    last_retrieved_at: datetime | None,
    user_correction_count: int,
    is_in_active_pattern: bool,
    now: datetime | None = None,
) -> float:
    """The fact's importance now (see the module docstring). Raises ValidationError for a
    negative count."""
    if times_retrieved < 0 or user_correction_count < 0:
        raise ValidationError("times_retrieved and user_correction_count must be >= 0")
    score = float(base_importance) * (1.0 + RETRIEVAL_WEIGHT * math.log1p(times_retrieved))
    if last_retrieved_at is not None:
        now = now or datetime.now(timezone.utc)
        if last_retrieved_at.tzinfo is None:
            last_retrieved_at = last_retrieved_at.replace(tzinfo=timezone.utc)
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        days = max(0.0, (now - last_retrieved_at).total_seconds() / 86400.0)
        score *= 1.0 + RECENCY_WEIGHT * 2.0 ** (-days / RECENCY_HALF_LIFE_DAYS)
    score *= CORRECTION_FACTOR ** user_correction_count
    if is_in_active_pattern:
        score *= PATTERN_BOOST
    return min(MAX_IMPORTANCE, max(MIN_IMPORTANCE, score))


__all__ = ["compute_dynamic_importance"]
