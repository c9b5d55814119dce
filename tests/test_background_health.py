"""Health checks and sensor status queries (library level, no Dagster)."""

from __future__ import annotations

import psycopg
import pytest

from arandu_pipelines.background import health
from arandu_pipelines.store import status
from arandu_pipelines.store.engine import create_engine
from tests.planted_memory import AGENT, OTHER, seed


@pytest.fixture
async def planted_engine(fresh_db_url, embeddings):
    seed(fresh_db_url, embeddings)
    seed(fresh_db_url, embeddings, OTHER)
    eng = create_engine(fresh_db_url)
    yield fresh_db_url, eng
    await eng.dispose()


async def test_health_checks_pass_on_good_data(planted_engine):
    _, eng = planted_engine
    results = await health.run_all(eng, expected_dimension=384)
    assert [r.name for r in results] == ["links_resolve", "relationships_resolve", "embedding_dimensions",
                                         "no_duplicate_active_facts", "events_extracted", "aliases_unique"]
    assert all(r.passed for r in results), [r for r in results if not r.passed]


async def test_health_checks_fail_on_planted_problems(planted_engine):
    url, eng = planted_engine
    with psycopg.connect(url) as conn:
        fact = conn.execute("SELECT id FROM memory_facts WHERE agent_id = %s LIMIT 1", (AGENT,)).fetchone()[0]
        conn.execute("INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key) "
                     "VALUES (%s, %s, 'person:nobody')", (AGENT, fact))
        conn.execute("INSERT INTO memory_entity_relationships (agent_id, source_entity_key, "
                     "target_entity_key, rel_type) VALUES (%s, 'person:rafael', 'place:atlantis', 'lives_in')",
                     (AGENT,))
        conn.execute("INSERT INTO memory_facts (agent_id, entity_key, fact_text, valid_from) "
                     "SELECT agent_id, entity_key, fact_text || ' ', valid_from FROM memory_facts "
                     "WHERE agent_id = %s AND fact_text = 'Rafael works at Acme'", (AGENT,))
        conn.execute("INSERT INTO memory_entity_aliases (agent_id, alias, canonical_entity_key) "
                     "VALUES (%s, 'ghost', 'person:ghost')", (AGENT,))
        conn.execute("INSERT INTO memory_events (agent_id, text, occurred_at, content_hash, created_at) "
                     "VALUES (%s, 'old and pending', now(), 'x', now() - interval '2 hours')", (AGENT,))
    links = await health.check_links(eng, AGENT)
    assert not links.passed and links.count == 1 and links.examples[0]["entity_key"] == "person:nobody"
    assert (await health.check_links(eng, OTHER)).passed  # scoped per agent
    assert not (await health.check_links(eng)).passed  # and store-wide
    rels = await health.check_relationships(eng, AGENT)
    assert not rels.passed and rels.examples[0]["missing_target"] is True
    dup = await health.check_duplicate_facts(eng, AGENT)
    assert not dup.passed and dup.examples[0]["n"] == 2
    assert not (await health.check_aliases(eng, AGENT)).passed
    backlog = await health.check_extraction_backlog(eng, 30, AGENT)
    assert not backlog.passed and backlog.details["pending"] == 1
    assert (await health.check_extraction_backlog(eng, 300, AGENT)).passed
    dims = await health.check_embedding_dimensions(eng, 1536)
    assert not dims.passed and dims.details["wrong_rows"] > 0


async def test_status_queries(planted_engine):
    url, eng = planted_engine
    assert await status.pending_agents(eng) == []
    assert sorted(await status.agent_ids(eng)) == sorted([AGENT, OTHER])
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE memory_events SET extraction_status = 'pending' WHERE agent_id = %s "
                     "AND message_id IN ('e8', 'e9')", (AGENT,))
        conn.execute("UPDATE memory_events SET extraction_status = 'failed', extraction_attempts = 2 "
                     "WHERE agent_id = %s AND message_id = 'e1'", (OTHER,))
    (a,) = await status.pending_agents(eng, agent_id=AGENT)
    assert (a.pending, a.retryable, a.needs_run) == (2, 0, True)
    other = (await status.pending_agents(eng, agent_id=OTHER, retry_base_seconds=3600))[0]
    assert (other.pending, other.retryable, other.retry_due, other.needs_run) == (0, 1, 0, False)
    assert other.last_failure_at is not None  # stamped by the 0003 trigger
    due = (await status.pending_agents(eng, agent_id=OTHER, retry_base_seconds=0))[0]
    assert due.retry_due == 1 and due.attempts == 2
    assert await status.pending_agents(eng, agent_id=OTHER, max_attempts=2) == []
    counts = await status.table_counts(eng, AGENT)
    assert counts["memory_facts"].total == 10 and counts["memory_facts"].active == 9
    assert counts["memory_events"].active == 7  # 'done'
