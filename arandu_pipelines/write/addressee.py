"""Who "you" is in a message: the other speaker of the conversation.

In a two-party chat "you" is the other person. Within a chunk of messages (in time order) the
addressee of a message is the nearest earlier message's speaker of the same session who is not
its own speaker, else the nearest later one. The write pipeline remembers the last speaker per
(agent, session) across chunks in a small bounded map, so a chunk that starts mid-conversation
still knows who was talking. With no other speaker in sight the addressee is unknown (None) and
the extractor drops facts that would need it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

MAX_SESSIONS = 4096  # remembered (agent, session) pairs, least recently used dropped first


class AddresseeTracker:
    """Per (agent, session): the last speaker and the last *other* speaker before them."""

    def __init__(self) -> None:
        self._state: OrderedDict[tuple[str, str], tuple[str, str | None]] = OrderedDict()

    def assign(self, events: list[Any]) -> list[str | None]:
        """Addressee per event (same order as `events`, which are in time order)."""
        out: list[str | None] = []
        for e in events:
            key = (e.agent_id, e.session_id)
            last, other = self._state.get(key, (None, None))
            out.append(last if last is not None and last != e.speaker else other)
            if last != e.speaker:
                other = last
            self._state[key] = (e.speaker, other)
            self._state.move_to_end(key)
        for i, e in enumerate(events):  # a session's first turns: the next other speaker
            if out[i] is None:
                out[i] = next((x.speaker for x in events[i + 1:]
                               if (x.agent_id, x.session_id) == (e.agent_id, e.session_id)
                               and x.speaker != e.speaker), None)
        while len(self._state) > MAX_SESSIONS:
            self._state.popitem(last=False)
        return out
