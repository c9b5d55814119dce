"""Issue 6 — erasure is complete, and provider secrets never leak.

`delete_all` must remove every row of the agent from every table that has an `agent_id` column
(found through information_schema, so a table added later is covered too) and leave every other
agent untouched. An OpenAI API key must never appear in an error, a repr, a trace or a stored
error column — checked against a server that refuses connections.
"""

from __future__ import annotations

import traceback
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.providers.openai import OpenAIProvider
from tests.conftest import rows

T0 = datetime(2024, 4, 1, 9, 0, tzinfo=UTC)
SECRET = "sk-test-SECRET-0123456789abcdefXYZ"


def _agent_tables(url: str) -> list[str]:
    return [r[0] for r in rows(url, "SELECT c.table_name FROM information_schema.columns c JOIN "
                                    "information_schema.tables t USING (table_schema, table_name) "
                                    "WHERE c.column_name = 'agent_id' AND c.table_schema = "
                                    "current_schema() AND t.table_type = 'BASE TABLE' ORDER BY 1")]


def _counts(url: str, agent: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f'SELECT count(*) FROM "{t}" WHERE agent_id = %s', (agent,))
                .fetchone()[0] for t in _agent_tables(url)}


async def _fill(memory: MemoryClient, agent: str) -> None:
    for i, body in enumerate(["My sister Maria lives in Lisbon.", "Maria works at Google.",
                              "I adopted a dog named Bolt.", "Bruno is Maria's husband.",
                              "I moved to Porto in March."]):
        await memory.write(agent, body, speaker_name="Rafael", message_id=f"m{i}",
                           occurred_at=T0 + timedelta(minutes=i))
    await memory.import_messages([
        {"agent_id": agent, "session_id": "s", "speaker": "Rafael", "text": "",
         "occurred_at": T0.isoformat()},
        {"agent_id": agent, "session_id": "s", "speaker": "Rafael", "text": "I like jazz.",
         "occurred_at": T0.isoformat(), "message_id": "imp1"},
    ])


async def test_delete_all_erases_every_agent_table(memory, fresh_db_url):
    # a table added after this code was written: erasure must still find it
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("CREATE TABLE memory_future_notes (id serial, agent_id text, note text)")
        conn.execute("INSERT INTO memory_future_notes (agent_id, note) VALUES ('victim', 'x'), "
                     "('victim', 'y'), ('keeper', 'z')")
    await _fill(memory, "victim")
    await _fill(memory, "keeper")
    before_victim, before_keeper = _counts(fresh_db_url, "victim"), _counts(fresh_db_url, "keeper")
    for t in ("memory_events", "memory_facts", "memory_entities", "memory_entity_aliases",
              "memory_fact_entity_links", "memory_quarantine", "memory_future_notes"):
        assert before_victim[t] > 0, t  # the erase below is not vacuous

    report = await memory.delete_all("victim")
    after = _counts(fresh_db_url, "victim")
    assert {t: n for t, n in after.items() if n} == {}, "rows survived delete_all"
    assert set(report.rows) == set(_agent_tables(fresh_db_url))
    for t in ("memory_events", "memory_facts", "memory_future_notes"):
        assert report.rows[t] == before_victim[t]
    assert _counts(fresh_db_url, "keeper") == before_keeper
    # nothing of the erased conversation is left anywhere as text either
    for t in _agent_tables(fresh_db_url):
        hits = rows(fresh_db_url, f'SELECT count(*) FROM "{t}" x WHERE agent_id = %s AND '
                    "x::text ILIKE '%%bolt%%'", ("victim",))
        assert hits == [(0,)], t
    # and memory answers as if the agent never existed
    assert (await memory.retrieve("victim", "where does Maria live?")).facts == []
    assert list(await memory.get_all("victim")) == []
    assert await memory.entities("victim") == []
    # idempotent: a second erase finds nothing
    assert sum((await memory.delete_all("victim")).rows.values()) == 0


def _assert_no_secret(*texts: str) -> None:
    for t in texts:
        assert SECRET not in t
        assert SECRET[8:] not in t  # not even a partial key


async def test_openai_key_never_leaks_in_errors_reprs_or_traces(fresh_db_url, embeddings):
    provider = OpenAIProvider(api_key=SECRET, base_url="http://127.0.0.1:1/v1", timeout=2,
                              max_retries=1, backoff_base=0.01, backoff_max=0.02)
    _assert_no_secret(repr(provider), str(provider), str(vars(provider).get("base_url")))
    with pytest.raises(Exception) as excinfo:
        await provider.complete([{"role": "user", "content": "hi"}])
    _assert_no_secret(str(excinfo.value), repr(excinfo.value),
                      "".join(traceback.format_exception(excinfo.value)))

    memory = MemoryClient(fresh_db_url, llm=provider, embeddings=embeddings)
    await memory.initialize()
    try:
        res = await memory.write("a", "My sister Maria lives in Lisbon.", speaker_name="Rafael",
                                 occurred_at=T0, verbose=True)
        _assert_no_secret(repr(res), str(res.error), repr(res.pipeline))
        report = await memory.import_messages([{"agent_id": "a", "session_id": "s",
                                                "speaker": "Rafael", "text": "I like tea.",
                                                "occurred_at": T0.isoformat()}])
        _assert_no_secret(repr(report), *report.extraction_errors)
        result = await memory.retrieve("a", "where does Maria live?", verbose=True)
        _assert_no_secret(repr(result))
        _assert_no_secret(repr(memory), repr(memory.config))
    finally:
        await memory.close()
        await provider.close()
    # nor in anything stored (error columns, traces, metadata)
    for t in _agent_tables(fresh_db_url):
        hits = rows(fresh_db_url, f'SELECT count(*) FROM "{t}" x WHERE x::text LIKE %s',
                    (f"%{SECRET[8:]}%",))
        assert hits == [(0,)], t
