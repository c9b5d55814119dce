"""The retrieval counters' flush never waits for a writer (read/counters.py, session 11).

Under an import, `bench/soak_tails.py` caught the flush queued 0.3-1.2 s behind import
transactions that held a retrieved fact's row (reconciliation, mention updates), with the rows
it had already locked held all that time. The flush now skips locked rows and keeps their bumps
for a later flush: nothing waits, no count is lost.
"""

from __future__ import annotations

import asyncio

import psycopg

from arandu_pipelines.read.counters import MAX_DEFERRALS, RetrievalCounters
from tests.conftest import rows
from tests.planted_memory import AGENT


def _counts(url: str) -> dict[str, int]:
    return dict(rows(url, "SELECT id::text, times_retrieved FROM memory_facts WHERE agent_id = %s", (AGENT,)))


async def test_flush_skips_a_row_a_writer_holds_and_writes_it_later(planted, engine) -> None:
    url, _ = planted
    ids = sorted(_counts(url))
    assert len(ids) >= 3
    held = ids[1]
    counters = RetrievalCounters()
    counters._pending.update({(AGENT, fid): 2 for fid in ids})
    with psycopg.connect(url) as writer:  # an import's open transaction on one of the facts
        writer.execute("UPDATE memory_facts SET times_retrieved = times_retrieved WHERE id = %s", (held,))
        # before: FOR UPDATE queued the whole flush behind the writer (this timed out)
        touched = await asyncio.wait_for(counters.flush(engine), timeout=5)
        assert touched == len(ids) - 1
        got = _counts(url)
        assert got[held] == 0 and all(got[i] == 2 for i in ids if i != held)
        assert dict(counters._pending) == {(AGENT, held): 2}   # kept, not dropped
        writer.rollback()
    assert await counters.flush(engine) == 1
    assert all(n == 2 for n in _counts(url).values())
    assert not counters._pending and not counters._deferred


async def test_a_row_held_for_ever_is_given_up_after_a_bounded_number_of_flushes(planted, engine) -> None:
    url, _ = planted
    held = min(_counts(url))
    counters = RetrievalCounters()
    counters._pending[(AGENT, held)] += 1
    with psycopg.connect(url) as writer:
        writer.execute("SELECT 1 FROM memory_facts WHERE id = %s FOR UPDATE", (held,))
        for _ in range(MAX_DEFERRALS + 1):
            assert await asyncio.wait_for(counters.flush(engine), timeout=5) == 0
        assert not counters._pending and not counters._deferred
        writer.rollback()
    assert _counts(url)[held] == 0


async def test_bumps_left_pending_are_flushed_without_another_retrieve(planted, engine) -> None:
    """The background flush goes on while bumps are deferred: they land once the writer commits,
    with no later record() to schedule a flush."""
    url, _ = planted
    held = min(_counts(url))
    counters = RetrievalCounters(delay=0.05)
    tasks: set[asyncio.Task[None]] = set()
    with psycopg.connect(url) as writer:
        writer.execute("SELECT 1 FROM memory_facts WHERE id = %s FOR UPDATE", (held,))
        counters.record(engine, AGENT, [held], tasks)
        await asyncio.sleep(0.2)
        assert _counts(url)[held] == 0
        writer.rollback()
    await asyncio.wait_for(asyncio.gather(*list(tasks)), timeout=5)
    assert _counts(url)[held] == 1
