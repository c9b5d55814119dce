"""The immutable event log: every message is stored verbatim before anything else happens.

Inserts are set-based (one `INSERT ... SELECT FROM unnest(...)` per batch) and idempotent on
(agent_id, message_id): re-importing a file inserts nothing. The extraction bookkeeping columns
(status, attempts, error) are the only ones ever updated; the text never is.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection


@dataclass
class EventInput:
    agent_id: str
    text: str
    speaker: str
    occurred_at: datetime
    session_id: str = "default"
    message_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = "api"
    event_id: str | None = None  # set once stored
    emotion: dict[str, Any] | None = None  # {"emotion", "intensity", "energy"} when tagged
    # Conversation context for pronouns and anaphora (validated by the caller, at most 10). It
    # is not the caller's metadata: it is stored apart, in `trace_json`, so a retried
    # extraction sees the same context and `metadata` comes back exactly as it was given.
    recent_messages: list[str] = field(default_factory=list, kw_only=True)
    # The session's previous turns (speaker, text), filled by the write pipeline for extraction
    # (write/antecedents.py); never stored.
    previous_turns: list[tuple[str | None, str]] = field(default_factory=list, kw_only=True)
    # The partner the speaker named in an earlier message (write/we_partner.PartnerTracker); never stored.
    partner: str | None = field(default=None, kw_only=True)
    # ... also when the speaker has named children (we_partner.PartnerTracker.couples); never stored.
    couple_partner: str | None = field(default=None, kw_only=True)
    # The names the speaker gave their own groups (we_named_group.GroupNameTracker); never stored.
    group_names: tuple[str, ...] = field(default=(), kw_only=True)
    # The people and pets the session named in its last turns (write/session_names.NamedTracker); never stored.
    named_before: list[Any] | None = field(default=None, kw_only=True)
    # The phrases the speaker said as their own before (write/own_things.OwnThingsTracker); never stored.
    own_things: list[Any] | None = field(default=None, kw_only=True)

    @property
    def content_hash(self) -> str:
        return content_hash(self.agent_id, self.session_id, self.speaker, self.occurred_at, self.text)


def content_hash(agent_id: str, session_id: str, speaker: str, occurred_at: datetime, body: str) -> str:
    h = hashlib.sha256()
    for part in (agent_id, session_id, speaker, occurred_at.isoformat(), body):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


_INSERT = text(
    """
    INSERT INTO memory_events
        (agent_id, session_id, speaker, message_id, text, source, occurred_at, metadata,
         content_hash, trace_json)
    SELECT * FROM unnest(
        CAST(:agent_id AS text[]), CAST(:session_id AS text[]), CAST(:speaker AS text[]),
        CAST(:message_id AS text[]), CAST(:body AS text[]), CAST(:source AS text[]),
        CAST(:occurred_at AS timestamptz[]), CAST(:metadata AS jsonb[]), CAST(:hash AS text[]),
        CAST(:trace AS jsonb[]))
    ON CONFLICT (agent_id, message_id) WHERE message_id IS NOT NULL DO NOTHING
    RETURNING id, agent_id, message_id, content_hash
    """
)


async def insert_events(conn: AsyncConnection, events: list[EventInput]) -> int:
    """Insert events; set `event_id` on the ones stored. Returns how many were new.

    Events whose (agent_id, message_id) already exists are left with event_id=None.
    """
    if not events:
        return 0
    params = {
        "agent_id": [e.agent_id for e in events],
        "session_id": [e.session_id for e in events],
        "speaker": [e.speaker for e in events],
        "message_id": [e.message_id for e in events],
        "body": [e.text for e in events],
        "source": [e.source for e in events],
        "occurred_at": [e.occurred_at for e in events],
        "metadata": [json.dumps(e.metadata, ensure_ascii=False, default=str) for e in events],
        "hash": [e.content_hash for e in events],
        "trace": [json.dumps({"recent_messages": e.recent_messages}, ensure_ascii=False)
                  if e.recent_messages else None for e in events],
    }
    rows = (await conn.execute(_INSERT, params)).all()
    by_msg = {(r.agent_id, r.message_id): str(r.id) for r in rows if r.message_id is not None}
    by_hash = {(r.agent_id, r.content_hash): str(r.id) for r in rows if r.message_id is None}
    for e in events:
        if e.message_id is not None:
            e.event_id = by_msg.get((e.agent_id, e.message_id))
        else:
            e.event_id = by_hash.pop((e.agent_id, e.content_hash), None)
    return len(rows)


async def mark_failed(conn: AsyncConnection, event_ids: list[str], error: str) -> None:
    if not event_ids:
        return
    await conn.execute(
        text(
            "UPDATE memory_events SET extraction_status = 'failed', "
            "extraction_attempts = extraction_attempts + 1, extraction_error = :err "
            "WHERE id = ANY(CAST(:ids AS uuid[]))"
        ),
        {"ids": event_ids, "err": error[:2000]},
    )
