"""Facts' frequent updates stay on their page (migration 0009's fillfactor).

Every retrieve() bumps the counters of the facts it returns, and the bumps land as one UPDATE a
second (read/counters.py). When the page has no room the new row version goes to another page
and into every index of memory_facts — the HNSW vector index included, a graph search per row —
on the server cores that answer the next query. With room left on each page (fillfactor 80) the
update is heap-only: same page, no index entry; once the page prunes the dead versions, every
later flush stays in place (measured here: 4, 7, 10, 10 of 10 facts per round at fillfactor 80;
2, 0, 0, 2 at the default 100).
"""

from __future__ import annotations

from arandu_pipelines.read.counters import RetrievalCounters
from tests.conftest import rows
from tests.planted_memory import AGENT


def _pages(url: str) -> dict[str, int]:
    return {i: int(str(ctid).strip("()").split(",")[0]) for i, ctid in rows(
        url, "SELECT id::text, ctid::text FROM memory_facts WHERE agent_id = %s", (AGENT,))}


async def test_repeated_counter_flushes_keep_facts_on_their_page(planted, engine) -> None:
    url, _ = planted
    reloptions = rows(url, "SELECT reloptions FROM pg_class WHERE relname = 'memory_facts'")[0][0]
    assert reloptions == ["fillfactor=80"]
    counters = RetrievalCounters()
    before = _pages(url)
    assert len(before) >= 10
    stayed: list[int] = []
    for _ in range(4):
        counters._pending.update({(AGENT, fid): 1 for fid in before})
        assert await counters.flush(engine) == len(before)
        after = _pages(url)
        stayed.append(sum(after[i] == before[i] for i in before))
        before = after
    # steady state: the last rounds update in place (heap-only), nothing is lost
    assert min(stayed[2:]) >= 0.8 * len(before), stayed
    assert rows(url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s AND times_retrieved = 4",
                (AGENT,)) == [(len(before),)]


async def test_new_messages_and_facts_leave_no_pending_list_for_searches_to_scan(memory) -> None:
    """Migration 0010: the keyword indexes take new rows at once. With Postgres's default
    (fastupdate) an import leaves its rows in a pending list that every keyword search scans until
    a vacuum merges it; `gin_clean_pending_list` returns how many pending pages it had to merge."""
    url = memory._database_url
    await memory.import_messages(
        [{"agent_id": "ana", "session_id": "s1", "speaker": "Ana", "message_id": f"m{i}",
          "occurred_at": f"2024-03-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
          "text": f"I went hiking with Bruno near Lisbon on day {i} and we talked about his job at Acme."}
         for i in range(60)], extract=True)
    assert rows(url, "SELECT count(*) FROM memory_events WHERE agent_id = 'ana'") == [(60,)]
    for index in ("ix_events_agent_fts", "ix_facts_agent_fts", "ix_entities_agent_name_trgm"):
        assert rows(url, f"SELECT gin_clean_pending_list('{index}'::regclass)") == [(0,)], index
