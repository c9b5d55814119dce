"""Per-conversation state a write pipeline carries across its chunks, bounded.

Resolving "you" (addressee.py) and "it" (antecedents.py) needs what was said just before in the
same (agent, session), which may have arrived in an earlier chunk. Both keep a small value per
session in this one least-recently-used map, so a long import over many sessions holds at most
`limit` of them. Trimming happens when a chunk is done (`trim`), not on each update: a chunk's
own sessions are never dropped while it is being read.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

MAX_SESSIONS = 4096  # remembered (agent, session) pairs, least recently used dropped first

S = TypeVar("S")


class SessionLRU(Generic[S]):
    """A value per (agent_id, session_id); `empty()` for a session not (or no longer) known."""

    def __init__(self, empty: Callable[[], S], limit: int = MAX_SESSIONS) -> None:
        self._empty = empty
        self._limit = limit
        self._state: OrderedDict[tuple[str, str], S] = OrderedDict()

    def get(self, key: tuple[str, str]) -> S:
        """The session's value (without marking it used: `set` does)."""
        return self._state[key] if key in self._state else self._empty()

    def set(self, key: tuple[str, str], value: S) -> None:
        """Store the session's value; it becomes the most recently used."""
        self._state[key] = value
        self._state.move_to_end(key)

    def trim(self) -> None:
        """Drop the least recently used sessions beyond `limit`."""
        while len(self._state) > self._limit:
            self._state.popitem(last=False)

    def __len__(self) -> int:
        return len(self._state)
