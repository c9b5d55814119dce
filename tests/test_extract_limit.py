"""Issue 17 item 7: one "extract until the limit" loop (write/importer.extract_pending), used by
MemoryClient.extract_pending, re-extraction and the Dagster extraction asset, and `max_events=N`
never extracts more than N events, even when some events of a batch fail and stay pending."""

from __future__ import annotations

from datetime import timedelta

from arandu_pipelines.background.reextract import reextract
from arandu_pipelines.client import MemoryClient
from arandu_pipelines.write import importer
from tests.conftest import rows
from tests.fake_openai import (
    ENTITY_SCAN,
    INFORMED,
    T0,
    FakeOpenAI,
    Status,
    defaults,
    provider,
)

AGENT = "agent_limit"


def _rows(texts: list[str]) -> list[dict[str, object]]:
    return [{"agent_id": AGENT, "session_id": "s1", "speaker": "Rafael", "text": t,
             "message_id": f"m{i}",
             "occurred_at": (T0 + timedelta(minutes=i)).isoformat()} for i, t in enumerate(texts)]


def _done(url: str) -> int:
    return rows(url, "SELECT count(*) FROM memory_events WHERE agent_id = %s "
                     "AND extraction_status = 'done'", (AGENT,))[0][0]


async def test_limit_spanning_batches_extracts_exactly_the_limit(memory, fresh_db_url, monkeypatch):
    monkeypatch.setattr(importer, "PENDING_BATCH", 2)   # 5 = 2 + 2 + 1: three queries
    imported = await memory.import_messages(_rows([f"I live in City{i}." for i in range(9)]),
                                            extract=False)
    assert imported.events_inserted == 9, imported
    report = await memory.extract_pending(AGENT, limit=5)
    assert report.events_extracted == 5 and report.rows_read == 5
    assert _done(fresh_db_url) == 5
    rest = await memory.extract_pending(AGENT, limit=100)
    assert rest.events_extracted == 4 and _done(fresh_db_url) == 9


async def test_max_events_is_never_exceeded_when_some_events_fail(fresh_db_url, embeddings):
    """The first event's extraction fails (LLM down for it) and it stays `failed`, pending a
    retry: re-reading it must not let the loop extract past max_events (it did: 4 of 3)."""
    bad = "BAD Ana Souza works at Acme Corp."
    texts = [bad] + [f"Ana Souza visited Lisbon on trip {i}." for i in range(6)]
    with FakeOpenAI() as fake:
        fake.on((INFORMED, "BAD"), Status(500, "down"))
        fake.on((ENTITY_SCAN, "BAD"), Status(500, "down"))
        fake.on(INFORMED, {"entities": [{"name": "Ana Souza", "type": "person"}],
                           "facts": [], "relations": [], "updated_profiles": []})
        defaults(fake)
        client = MemoryClient(fresh_db_url, llm=provider(fake, max_retries=0),
                              embeddings=embeddings)
        try:
            assert (await client.import_messages(_rows(texts), extract=False)).events_inserted == 7
            result = await reextract(client, AGENT, max_events=3, chunk_size=2)
        finally:
            await client.close()
    assert result.events_extracted <= 3
    assert _done(fresh_db_url) <= 3
    assert _done(fresh_db_url) == result.events_extracted >= 1
