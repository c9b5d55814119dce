"""Issue 6 — reliability under concurrency.

Eight writers (separate `MemoryClient`s, i.e. separate connection pools, on one database) ingest
overlapping conversations about the same people for the same agent, while a reader keeps
retrieving. Afterwards no entity, alias, relationship, link or active fact may exist twice, and
every message must be stored and extracted exactly once.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

from arandu_pipelines.client import MemoryClient
from tests.conftest import rows

AGENT = "agent-concurrent"
WRITERS = 8
T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)

# Every writer talks about the same people, so every writer races to create the same entities,
# aliases and relationships.
SCRIPT = [
    "My sister Maria lives in Lisbon.",
    "Maria works at Google as an engineer.",
    "My friend Bruno Costa moved to Porto last year.",
    "Bruno and Maria went hiking together in Sintra.",
    "I adopted a dog named Bolt.",
    "Maria is married to Bruno.",
]

DUPLICATE_CHECKS = {
    "entities": "SELECT agent_id, canonical_key FROM memory_entities GROUP BY 1, 2 HAVING count(*) > 1",
    "entity names": "SELECT agent_id, entity_type, lower(display_name) FROM memory_entities "
                    "WHERE is_active GROUP BY 1, 2, 3 HAVING count(*) > 1",
    "aliases": "SELECT agent_id, alias, canonical_entity_key FROM memory_entity_aliases "
               "GROUP BY 1, 2, 3 HAVING count(*) > 1",
    "relationships": "SELECT agent_id, source_entity_key, rel_type, target_entity_key FROM "
                     "memory_entity_relationships GROUP BY 1, 2, 3, 4 HAVING count(*) > 1",
    "fact links": "SELECT agent_id, fact_id, entity_key FROM memory_fact_entity_links "
                  "GROUP BY 1, 2, 3 HAVING count(*) > 1",
    "active facts": "SELECT agent_id, entity_key, fact_text FROM memory_facts WHERE valid_to IS NULL "
                    "GROUP BY 1, 2, 3 HAVING count(*) > 1",
    "events": "SELECT agent_id, message_id FROM memory_events GROUP BY 1, 2 HAVING count(*) > 1",
}


async def test_eight_concurrent_writers_same_agent_no_duplicates(fresh_db_url, embeddings):
    clients = [MemoryClient(fresh_db_url, embeddings=embeddings) for _ in range(WRITERS + 1)]
    for c in clients:
        await c.initialize()
    writers, reader = clients[:WRITERS], clients[WRITERS]
    done = asyncio.Event()
    reads: list[float] = []
    errors: list[BaseException] = []

    async def write(w: int, c: MemoryClient) -> None:
        for i, body in enumerate(SCRIPT):
            # each writer starts at another line so different messages collide too
            line = SCRIPT[(i + w) % len(SCRIPT)]
            res = await c.write(AGENT, line, speaker_name="Rafael", session_id=f"s{w}",
                                message_id=f"w{w}-m{i}",
                                occurred_at=T0 + timedelta(minutes=i, seconds=w))
            assert res.success, res.error

    async def read() -> None:
        queries = ["where does Maria live?", "who is Bruno?", "dog", "Maria & Bruno | (Sintra)"]
        n = 0
        while not done.is_set():
            t = time.perf_counter()
            try:
                await reader.retrieve(AGENT, queries[n % len(queries)])
            except BaseException as exc:  # noqa: BLE001 - recorded and asserted below
                errors.append(exc)
            reads.append(time.perf_counter() - t)
            n += 1
            await asyncio.sleep(0)

    t0 = time.perf_counter()
    reader_task = asyncio.create_task(read())
    try:
        await asyncio.gather(*(write(w, c) for w, c in enumerate(writers)))
    finally:
        done.set()
        await reader_task
        for c in clients:
            await c.close()
    elapsed = time.perf_counter() - t0
    assert not errors, errors[:3]
    assert len(reads) >= 3  # retrieve kept answering during ingestion

    for name, sql in DUPLICATE_CHECKS.items():
        assert rows(fresh_db_url, sql) == [], f"duplicate {name}"
    n_msgs = WRITERS * len(SCRIPT)
    assert rows(fresh_db_url, "SELECT count(*), count(*) FILTER (WHERE extraction_status = 'done') "
                "FROM memory_events WHERE agent_id = %s", (AGENT,)) == [(n_msgs, n_msgs)]
    keys = {k for (k,) in rows(fresh_db_url, "SELECT canonical_key FROM memory_entities")}
    assert any("maria" in k for k in keys) and any("bruno" in k for k in keys)
    print(f"\n[concurrency] {WRITERS} writers x {len(SCRIPT)} messages in {elapsed:.1f}s; "
          f"{len(reads)} retrieves during ingestion, max {max(reads) * 1000:.0f} ms; "
          f"{len(keys)} entities")


async def test_concurrent_import_and_write_of_the_same_messages(fresh_db_url, embeddings):
    """Four clients import the same rows at once (plus extract_pending racing them): each
    message is stored once and extracted once (`_still_pending` guard)."""
    data = [{"agent_id": AGENT, "session_id": "s", "speaker": "Rafael", "text": line,
             "occurred_at": (T0 + timedelta(minutes=i)).isoformat(), "message_id": f"m{i}"}
            for i, line in enumerate(SCRIPT * 2)]
    clients = [MemoryClient(fresh_db_url, embeddings=embeddings) for _ in range(5)]
    for c in clients:
        await c.initialize()
    try:
        reports = await asyncio.gather(
            *(c.import_messages(data) for c in clients[:4]),
            clients[4].extract_pending(AGENT),
        )
    finally:
        for c in clients:
            await c.close()
    assert sum(r.events_inserted for r in reports[:4]) == len({d["message_id"] for d in data})
    for name, sql in DUPLICATE_CHECKS.items():
        assert rows(fresh_db_url, sql) == [], f"duplicate {name}"
    assert rows(fresh_db_url, "SELECT source_event_id, fact_text FROM memory_facts "
                "GROUP BY 1, 2 HAVING count(*) > 1") == []
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE extraction_status <> "
                "'done'") == [(0,)]
