"""Dynamic importance (spec 001, `compute_dynamic_importance`): a fact's importance as it is used.

    importance = base
                 x (1 + RETRIEVAL_WEIGHT * ln(1 + times_retrieved))      retrieval boost, saturating
                 x (1 + RECENT_USE_WEIGHT * 2^(-days since last use / 7))  recency of use, half-life 7 d
                 x 0.8^user_correction_count                               correction penalty
                 x 1.3 if the fact supports an active meta-observation     pattern boost
    clamped to [0.05, 3.0]

The spec names the components and the clamp, not how they combine; a product keeps each one a
relative change of the base (a never-used fact keeps its write-time importance). Days since the
last use are whole days.

Where it acts: the spec has it evolve the stored importance in a background job, and ranks on
"the raw importance value from the database". Applying it inside retrieve() was tried and
dropped: the counters it reads are written by the retrieves themselves (read/counters.py, <= 1 s
later), so the same question asked twice a second apart got a different order (the concurrent
retrieves test caught it), which breaks the determinism the read side promises. So retrieve()
reports it per fact (`scores["importance_dynamic"]`, when it differs from the stored value) and
ranks on the stored one; writing it back is a background job's work (not part of this module:
the facts table keeps no separate base importance to recompute from).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

RETRIEVAL_WEIGHT = 0.1
RECENT_USE_WEIGHT = 0.2
RECENT_USE_HALF_LIFE_DAYS = 7.0
CORRECTION_PENALTY = 0.8
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
    """Importance after use (module docstring), in [0.05, 3.0]."""
    now = now or datetime.now(timezone.utc)
    value = max(float(base_importance), 0.0)
    value *= 1.0 + RETRIEVAL_WEIGHT * math.log1p(max(int(times_retrieved or 0), 0))
    if last_retrieved_at is not None:
        days = max(math.floor((now - last_retrieved_at).total_seconds() / 86400.0), 0)
        value *= 1.0 + RECENT_USE_WEIGHT * 2 ** (-days / RECENT_USE_HALF_LIFE_DAYS)
    value *= CORRECTION_PENALTY ** max(int(user_correction_count or 0), 0)
    if is_in_active_pattern:
        value *= PATTERN_BOOST
    return min(max(value, MIN_IMPORTANCE), MAX_IMPORTANCE)


__all__ = ["compute_dynamic_importance"]
