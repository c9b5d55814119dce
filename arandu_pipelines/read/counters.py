"""Retrieval counters (`times_retrieved`, `last_retrieved_at`), coalesced off the hot path.

One UPDATE per retrieve() cost ~2 ms of client CPU plus a commit (a WAL flush) on the server for
every call, on the same two cores that answer the next query. Bumps are instead accumulated per
(agent, fact) and written by one set-based UPDATE at most every `delay` seconds (and on close):
counts add up exactly, only their landing is deferred. The counters are advisory (importance and
vitality read them in background jobs), so a failed flush is dropped, never surfaced.

The delay is one second: a flush of a busy client updates a few hundred rows (~12 ms of server
CPU for 240, plus 15 ms in the term-statistics trigger before migration 0004), and at 250 ms that
was ~10% of a core taken from the queries it counts.

The flush never waits for a writer (session 11): a fact an import is updating (reconciliation,
supersession, mentions) is row-locked until the import's transaction commits, and `FOR UPDATE`
queued the whole flush behind it — 0.3-1.2 s seen in `bench/soak_tails.py`, holding the rows it
had already locked, so the next import statement on those rows queued behind the flush in turn.
Now the rows are taken `SKIP LOCKED`: the free ones are written at once, the locked ones stay
pending for the next flush (at most MAX_DEFERRALS times, then dropped: a fact that keeps being
skipped or no longer exists is not retried forever; the counters are advisory).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sqlalchemy import text

FLUSH_DELAY_SECONDS = 1.0
MAX_DEFERRALS = 10  # flushes a bump may wait for its row's lock before it is dropped

_UPDATE = text("""
    UPDATE memory_facts f
       SET times_retrieved = f.times_retrieved + s.n, last_retrieved_at = now()
      FROM (SELECT u.a, u.id, u.n, m.id AS mid
              FROM unnest(CAST(:agents AS text[]), CAST(:ids AS uuid[]), CAST(:ns AS int[])) AS u(a, id, n)
              JOIN memory_facts m ON m.agent_id = u.a AND m.id = u.id
             ORDER BY u.a, u.id FOR UPDATE OF m SKIP LOCKED) s
     WHERE f.id = s.mid
    RETURNING f.agent_id, f.id::text
""")


class RetrievalCounters:
    """Pending bumps of one client; `record()` never awaits."""

    def __init__(self, delay: float = FLUSH_DELAY_SECONDS) -> None:
        self.delay = delay
        self._pending: Counter[tuple[str, str]] = Counter()
        self._deferred: Counter[tuple[str, str]] = Counter()  # flushes a bump has waited for its row
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    def record(self, engine: Any, agent_id: str, fact_ids: Iterable[str], tasks: set[asyncio.Task[Any]]) -> None:
        for fid in fact_ids:
            self._pending[(agent_id, fid)] += 1
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._flush_later(engine))
            tasks.add(self._task)
            self._task.add_done_callback(tasks.discard)

    def flush_soon(self) -> None:
        """Stop waiting (client.close()): the pending bumps are written now."""
        self._wake.set()

    async def _flush_later(self, engine: Any) -> None:
        """Flush after `delay`, again while bumps are left pending (recorded during the flush, or
        deferred behind a writer's lock)."""
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), self.delay)
            except TimeoutError:
                pass
            await self.flush(engine)
            if not self._pending:
                return

    async def flush(self, engine: Any) -> int:
        """Write every pending bump in one statement, without waiting for rows a writer holds
        (those stay pending); returns the number of facts touched."""
        batch, self._pending = self._pending, Counter()
        if not batch:
            return 0
        keys = sorted(batch)
        try:
            async with engine.begin() as conn:
                done = {(a, i) for a, i in (await conn.execute(
                    _UPDATE, {"agents": [a for a, _ in keys], "ids": [i for _, i in keys],
                              "ns": [batch[k] for k in keys]})).all()}
        except Exception:  # noqa: BLE001 - advisory counters must never fail a retrieve()
            return 0  # advisory; never surface
        for k in keys:
            if k in done:
                self._deferred.pop(k, None)
            elif self._deferred[k] < MAX_DEFERRALS:  # locked by a writer (or gone): next flush
                self._deferred[k] += 1
                self._pending[k] += batch[k]
            else:
                del self._deferred[k]
        return len(done)
