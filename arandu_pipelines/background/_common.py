"""Shared plumbing of the background jobs: engines, the agent's clock, locks, observations."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from arandu_pipelines.store.engine import vecs


def engine_of(target: Any) -> AsyncEngine:
    """Accept an AsyncEngine or anything with an `.engine` (a MemoryClient)."""
    if isinstance(target, AsyncEngine):
        return target
    eng = getattr(target, "engine", None)
    if isinstance(eng, AsyncEngine):
        return eng
    raise TypeError(f"expected an AsyncEngine or a MemoryClient, got {type(target).__name__}")


@asynccontextmanager
async def agent_transaction(target: Any, agent_id: str) -> AsyncIterator[AsyncConnection]:
    """One transaction holding the agent's advisory lock (the write pipeline's lock too), so a
    job never interleaves with an extraction chunk of the same agent."""
    async with engine_of(target).begin() as conn:
        await conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended(:a, 0))"), {"a": agent_id}
        )
        yield conn


async def agent_clock(conn: AsyncConnection, agent_id: str, now: datetime | None = None) -> datetime:
    """The time background jobs measure ages against.

    An explicit `now` wins. Otherwise it is the agent's last activity: the latest of its newest
    event's `occurred_at` and its latest retrieval. Memory of an imported 2023 conversation then
    ages relative to 2023 (not to the wall clock, which would make every fact "old"), and a re-run
    without new activity gives exactly the same scores — the jobs stay idempotent. An agent with
    no events uses the database clock.
    """
    if now is not None:
        return now if now.tzinfo else now.replace(tzinfo=UTC)
    row = (
        await conn.execute(
            text(
                "SELECT GREATEST((SELECT max(occurred_at) FROM memory_events WHERE agent_id = :a), "
                "(SELECT max(last_retrieved_at) FROM memory_facts WHERE agent_id = :a)), now()"
            ),
            {"a": agent_id},
        )
    ).one()
    return row[0] or row[1]


class Timer:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    @property
    def ms(self) -> float:
        return (time.perf_counter() - self.t0) * 1000


def fingerprint(*parts: Any) -> str:
    """Stable short id of an observation from what identifies it (not from its wording)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()[:40]


@dataclass
class Observation:
    observation_type: str
    title: str
    text: str
    fingerprint: str
    entity_keys: list[str] = field(default_factory=list)
    supporting_fact_ids: list[str] = field(default_factory=list)
    supporting_event_ids: list[str] = field(default_factory=list)
    confidence: float = 0.7
    importance: float = 0.5
    times_reinforced: int = 0
    embedding: list[float] | None = None


@dataclass
class UpsertOutcome:
    created: int = 0
    updated: int = 0
    ids: dict[str, str] = field(default_factory=dict)  # fingerprint -> id


async def upsert_observations(
    conn: AsyncConnection, agent_id: str, observations: list[Observation]
) -> UpsertOutcome:
    """Insert new observations, update those whose content changed, leave identical ones alone.

    Identity is (agent, type, fingerprint); a re-run over the same data writes nothing, so
    `times_reinforced` reflects the evidence (set by the detector), not how often a job ran.
    """
    out = UpsertOutcome()
    if not observations:
        return out
    params = {
        "a": agent_id,
        "ty": [o.observation_type for o in observations],
        "ti": [o.title[:256] for o in observations],
        "tx": [o.text for o in observations],
        "fp": [o.fingerprint for o in observations],
        "ev": [json.dumps(o.supporting_event_ids) for o in observations],
        "fa": [json.dumps(o.supporting_fact_ids) for o in observations],
        "ek": [json.dumps(o.entity_keys) for o in observations],
        "co": [round(float(o.confidence), 4) for o in observations],
        "im": [round(float(o.importance), 4) for o in observations],
        "tr": [int(o.times_reinforced) for o in observations],
        "em": vecs(o.embedding for o in observations),
    }
    rows = (
        await conn.execute(
            text(
                """
                INSERT INTO memory_meta_observations AS m
                    (agent_id, observation_type, title, text, fingerprint, supporting_event_ids,
                     supporting_fact_ids, entity_keys, confidence, importance, times_reinforced,
                     embedding_vec)
                SELECT :a, * FROM unnest(
                    CAST(:ty AS text[]), CAST(:ti AS text[]), CAST(:tx AS text[]),
                    CAST(:fp AS text[]), CAST(:ev AS jsonb[]), CAST(:fa AS jsonb[]),
                    CAST(:ek AS jsonb[]), CAST(:co AS float8[]), CAST(:im AS float8[]),
                    CAST(:tr AS int[]), CAST(:em AS vector[]))
                ON CONFLICT (agent_id, observation_type, fingerprint) DO UPDATE SET
                    title = EXCLUDED.title, text = EXCLUDED.text,
                    supporting_event_ids = EXCLUDED.supporting_event_ids,
                    supporting_fact_ids = EXCLUDED.supporting_fact_ids,
                    entity_keys = EXCLUDED.entity_keys, confidence = EXCLUDED.confidence,
                    importance = EXCLUDED.importance,
                    times_reinforced = GREATEST(m.times_reinforced, EXCLUDED.times_reinforced),
                    embedding_vec = COALESCE(EXCLUDED.embedding_vec, m.embedding_vec),
                    is_active = true, last_reinforced_at = now()
                WHERE (m.title, m.text, m.supporting_event_ids, m.supporting_fact_ids,
                       m.entity_keys, m.confidence, m.importance, m.is_active)
                      IS DISTINCT FROM
                      (EXCLUDED.title, EXCLUDED.text, EXCLUDED.supporting_event_ids,
                       EXCLUDED.supporting_fact_ids, EXCLUDED.entity_keys, EXCLUDED.confidence,
                       EXCLUDED.importance, true)
                   OR m.times_reinforced < EXCLUDED.times_reinforced
                RETURNING m.id::text AS id, m.fingerprint, (xmax = 0) AS inserted
                """
            ),
            params,
        )
    ).all()
    for r in rows:
        out.ids[r.fingerprint] = r.id
        if r.inserted:
            out.created += 1
        else:
            out.updated += 1
    return out


async def deactivate_observations(
    conn: AsyncConnection, agent_id: str, types: Iterable[str], keep: Iterable[str]
) -> int:
    """Retire active observations of these types whose fingerprint was not detected again."""
    res = await conn.execute(
        text(
            "UPDATE memory_meta_observations SET is_active = false WHERE agent_id = :a "
            "AND observation_type = ANY(CAST(:t AS text[])) AND is_active "
            "AND NOT (fingerprint = ANY(CAST(:k AS text[])))"
        ),
        {"a": agent_id, "t": list(types), "k": list(keep)},
    )
    return res.rowcount or 0


class UnionFind:
    """Union-find with path compression and union by rank; deterministic component order."""

    def __init__(self, items: Iterable[str]) -> None:
        self.parent = {i: i for i in items}
        self.rank = dict.fromkeys(self.parent, 0)

    def find(self, x: str) -> str:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:  # path compression
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1

    def components(self, min_size: int = 1) -> list[list[str]]:
        groups: dict[str, list[str]] = {}
        for item in self.parent:
            groups.setdefault(self.find(item), []).append(item)
        comps = [sorted(g) for g in groups.values() if len(g) >= min_size]
        return sorted(comps, key=lambda g: (-len(g), g[0]))


def ensure_period(s: str) -> str:
    s = " ".join(s.split())
    return s if not s or s[-1] in ".!?…" else s + "."
