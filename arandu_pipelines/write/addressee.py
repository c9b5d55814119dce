"""Who "you" is in a message: the other speaker of the conversation.

In a two-party chat "you" is the other person. Within a chunk of messages (in time order) the
addressee of a message is the nearest earlier message's speaker of the same session who is not
its own speaker, else the nearest later one. A pipeline remembers the last speakers per
(agent, session) across its chunks in a small bounded map; what is still unknown (a single
`write()`, a new process) is looked up in the session's stored messages (`fill_from_history`).
With no other speaker in sight the addressee is unknown (None) and the extractor drops facts
that would need it.
"""

from __future__ import annotations

from typing import Any

from arandu_pipelines.write.session_state import SessionLRU


class AddresseeTracker:
    """Per (agent, session): the last speaker and the last *other* speaker before them."""

    def __init__(self) -> None:
        self._state: SessionLRU[tuple[str | None, str | None]] = SessionLRU(lambda: (None, None))

    def assign(self, events: list[Any]) -> list[str | None]:
        """Addressee per event (same order as `events`, which are in time order)."""
        out: list[str | None] = []
        for e in events:
            key = (e.agent_id, e.session_id)
            last, other = self._state.get(key)
            out.append(last if last is not None and last != e.speaker else other)
            if last != e.speaker:
                other = last
            self._state.set(key, (e.speaker, other))
        for i, e in enumerate(events):  # a session's first turns: the next other speaker
            if out[i] is None:
                out[i] = next((x.speaker for x in events[i + 1:]
                               if (x.agent_id, x.session_id) == (e.agent_id, e.session_id)
                               and x.speaker != e.speaker), None)
        self._state.trim()
        return out


_LOOKUP = (
    "SELECT q.i, (SELECT e.speaker FROM memory_events e WHERE e.agent_id = :a AND e.session_id = q.s "
    "AND e.speaker <> q.sp AND e.occurred_at <= q.t ORDER BY e.occurred_at DESC LIMIT 1) "
    "FROM unnest(CAST(:i AS int[]), CAST(:s AS text[]), CAST(:sp AS text[]), CAST(:t AS timestamptz[])) "
    "AS q(i, s, sp, t)"
)


async def fill_from_history(conn: Any, agent_id: str, events: list[Any], found: list[str | None]) -> None:
    """For events still without an addressee (a single write(), a new process), the session's
    latest earlier message by someone else, from the database: one query for the chunk, on
    the (agent_id, session_id, occurred_at) index."""
    idx = [i for i, a in enumerate(found) if a is None]
    if not idx:
        return
    from sqlalchemy import text

    res = await conn.execute(text(_LOOKUP), {
        "a": agent_id, "i": idx, "s": [events[i].session_id for i in idx],
        "sp": [events[i].speaker for i in idx], "t": [events[i].occurred_at for i in idx]})
    for i, speaker in res.all():
        if speaker:
            found[i] = speaker
