"""A raw message as the message ranking scores it: one type for the first ranking
(read/events.py) and the feedback window's new messages (read/feedback.py), which fetch the
same columns and are scored together by `events._score`. Its own module so that feedback.py
(imported by events.py) can build rows without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class EventRow:
    id: str
    session_id: str
    speaker: str | None
    text: str
    occurred_at: datetime
    message_id: str | None
    metadata: str | None  # JSON text; decoded only for the messages returned
    kw: float
    sim: float
    prev_id: str | None = None
    next_id: str | None = None
    seed: bool = False
    base: float = 0.0
    score: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)
    near: list[tuple[str, int]] = field(default_factory=list)
