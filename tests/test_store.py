"""The store: migrations are idempotent and concurrent-safe, every table leads with agent_id,
vector dimensions follow config, and the embedded server is shared between processes."""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.config import MemoryConfig, apply_overrides
from arandu_pipelines.errors import DatabaseError
from arandu_pipelines.keys import entity_key, fold, normalize_rel_type, slugify
from arandu_pipelines.providers.hashing_embeddings import HashingEmbeddings
from arandu_pipelines.store.embedded import default_home
from arandu_pipelines.store.engine import register_vectors
from tests.conftest import rows

SPEC_TABLES = {
    "memory_events", "memory_facts", "memory_fact_entity_links", "memory_entities",
    "memory_entity_aliases", "memory_entity_relationships", "memory_clusters",
    "memory_meta_observations", "memory_attribute_registry", "memory_intentions",
    "session_observations",
}


async def test_initialize_is_idempotent_and_concurrent_safe(empty_db_url):
    clients = [MemoryClient(empty_db_url, embeddings=HashingEmbeddings()) for _ in range(3)]
    await asyncio.gather(*(c.initialize() for c in clients))
    await clients[0].initialize()
    for c in clients:
        await c.close()
    tables = {t for (t,) in rows(empty_db_url, "SELECT tablename FROM pg_tables WHERE schemaname='public'")}
    assert SPEC_TABLES <= tables
    assert rows(empty_db_url, "SELECT version_num FROM alembic_version") == [("0012",)]


async def test_every_key_and_btree_index_leads_with_agent_id(fresh_db_url):
    idx = rows(fresh_db_url, """
        SELECT i.indexrelid::regclass::text, c.relname, am.amname,
               (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum = i.indkey[0])
        FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_am am ON am.oid = ic.relam
        WHERE c.relname LIKE 'memory_%' OR c.relname = 'session_observations'""")
    offenders = [
        (name, table) for name, table, am, first in idx
        if not name.endswith("_pkey") and am != "hnsw" and first != "agent_id"
        and name not in ("ix_facts_source_event", "ix_facts_supersedes", "ix_links_fact",
                         "ix_rels_evidence", "ix_rels_evidence_event",  # FK lookups for cascades
                         # lookups by id alone (0006: the primary key is (agent_id, id))
                         "ix_events_id", "ix_facts_id", "ix_entities_id", "ix_clusters_id")
    ]
    assert offenders == []


async def test_vector_dimension_follows_config_and_mismatch_is_refused(empty_db_url):
    small = MemoryClient(empty_db_url, embeddings=HashingEmbeddings(64))
    await small.initialize()
    await small.close()
    (typ,), = rows(empty_db_url, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                   "WHERE attrelid = 'memory_facts'::regclass AND attname = 'embedding_vec'")
    assert typ == "vector(64)"
    big = MemoryClient(empty_db_url, embeddings=HashingEmbeddings(1536))
    with pytest.raises(DatabaseError, match="64-dimensional"):
        await big.initialize()
    await big.close()


def test_text_columns_have_generated_tsvectors_with_gin(fresh_db_url):
    gen = rows(fresh_db_url, "SELECT table_name FROM information_schema.columns "
               "WHERE column_name = 'search_vector' AND is_generated = 'ALWAYS' ORDER BY 1")
    assert gen == [("memory_events",), ("memory_facts",)]
    gins = rows(fresh_db_url, "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%gin%search_vector%' ORDER BY 1")
    assert gins == [("ix_events_agent_fts",), ("ix_facts_agent_fts",)]


def _start(home: str, q, barrier) -> None:  # runs in a child process
    try:
        from arandu_pipelines.store.embedded import start_server

        barrier.wait(60)  # both children call start_server at the same moment
        server = start_server(Path(home), cleanup_mode=None)
        q.put((server.get_uri("postgres"), server.get_pid()))
    except BaseException as exc:  # noqa: BLE001 - child process: report anything, don't let the parent wait
        q.put(("error", repr(exc)))


@pytest.mark.slow
def test_two_processes_starting_at_once_share_one_server():
    home = tempfile.mkdtemp(prefix="arandu-home-", dir="/tmp")
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_start, args=(home, q, barrier)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    try:
        assert not any(r[0] == "error" for r in results), results
        assert results[0] == results[1]
        assert (Path(home) / "pgdata" / "PG_VERSION").exists()
    finally:
        from arandu_pipelines.store.embedded import start_server

        start_server(Path(home), cleanup_mode="delete").cleanup()


def test_root_never_defaults_under_root_home(monkeypatch):
    monkeypatch.delenv("ARANDU_HOME", raising=False)
    home = default_home()
    if os.geteuid() == 0:
        assert home == Path("/var/lib/arandu-pipelines")
    assert not str(home).startswith("/root")
    monkeypatch.setenv("ARANDU_HOME", "/tmp/somewhere")
    assert default_home() == Path("/tmp/somewhere")


def test_keys_are_stable_in_any_script():
    assert entity_key("Person", "São Paulo") == "person:sao_paulo"
    assert entity_key("city", "Rio de Janeiro") == "place:rio_de_janeiro"
    assert slugify("Мария") == "мария" and slugify("王伟") == "王伟"
    assert slugify("Мария") != slugify("Мирослав")
    assert slugify("🎉🎉") == slugify("🎉🎉") and slugify("🎉🎉").startswith("x")
    assert fold("  JOÃO  Silva ") == "joao silva"
    assert normalize_rel_type("Mentored By") == "mentored_by"
    assert normalize_rel_type("spouse") == "partner_of" and normalize_rel_type("boss") == "reports_to"


def test_config_overrides_are_validated_by_name_and_type():
    cfg, warnings = apply_overrides(MemoryConfig(), {"topk_facts": 5, "min_score": 1, "nope": 2})
    assert cfg.topk_facts == 5 and cfg.min_score == 1.0 and warnings == [
        "unknown config override 'nope' ignored (not a MemoryConfig field)"]
    cfg, _ = apply_overrides(MemoryConfig(), {"score_weights": {"semantic": 0.5}})
    assert cfg.score_weights == {"semantic": 0.5, "recency": 0.20, "importance": 0.10}
    for bad in ({"topk_facts": "5"}, {"enable_reranker": 1}, {"score_weights": {"semantic": "x"}}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            apply_overrides(MemoryConfig(), bad)
    assert MemoryConfig().min_confidence == 0.55 and MemoryConfig().fuzzy_threshold == 0.85


async def test_term_statistics_follow_text_changes_and_ignore_other_updates(memory, fresh_db_url):
    """BM25's document frequencies are kept by statement triggers. An UPDATE that changes no text
    (counters, validity, vitality) must leave them alone — cheaply (migration 0004) — and one
    that rewrites a fact's text must move them."""
    await memory.write("ts-agent", "My dog Bolt loves the beach in Lisbon.", "Rafael")
    await memory.write("ts-agent", "I work at Globex as an engineer.", "Rafael")
    stats = ("SELECT lexeme, df FROM memory_term_stats WHERE agent_id = 'ts-agent' AND kind = 'f' "
             "ORDER BY lexeme")
    docs = "SELECT n_docs, total_len FROM memory_doc_stats WHERE agent_id = 'ts-agent' AND kind = 'f'"
    before, before_docs = rows(fresh_db_url, stats), rows(fresh_db_url, docs)
    assert before and before_docs[0][0] >= 2
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_facts SET times_retrieved = times_retrieved + 1, "
                     "last_retrieved_at = now() WHERE agent_id = 'ts-agent'")
    assert rows(fresh_db_url, stats) == before and rows(fresh_db_url, docs) == before_docs
    with psycopg.connect(fresh_db_url) as conn:
        conn.execute("UPDATE memory_facts SET fact_text = fact_text || ' zanzibar', times_retrieved = 0 "
                     "WHERE agent_id = 'ts-agent' AND fact_text ILIKE '%%Globex%%'")
    after = dict(rows(fresh_db_url, stats))
    changed = rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = 'ts-agent' "
                                 "AND fact_text LIKE '%%zanzibar'")[0][0]
    assert changed >= 1 and after.get("zanzibar") == changed
    assert {k: v for k, v in after.items() if k != "zanzibar"} == dict(before)
    assert rows(fresh_db_url, docs)[0][1] == before_docs[0][1] + changed


async def test_vectors_travel_binary_on_client_connections_and_as_text_elsewhere(empty_db_url):
    """The first connection of a fresh database opens before `CREATE EXTENSION vector`; it and
    every later one must send vectors in pgvector's binary format, NULLs included, with the same
    values a plain psycopg connection (text literals) stores."""
    import numpy as np
    from psycopg.adapt import PyFormat
    from psycopg.pq import Format
    from sqlalchemy import text

    from arandu_pipelines.store.engine import Vector, VectorArray, vec, vecs

    values = np.random.default_rng(7).normal(size=(3, 5)).astype(np.float32)
    sql = ("SELECT array_agg(v::text ORDER BY i) FROM unnest(CAST(:vs AS vector[])) "
           "WITH ORDINALITY AS q(v, i)")
    async with MemoryClient(empty_db_url, embeddings=HashingEmbeddings()) as memory, \
            memory.engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        for kind in (Vector, VectorArray):
            assert driver.adapters.get_dumper(kind, PyFormat.AUTO).format == Format.BINARY
        got = (await conn.execute(text(sql), {"vs": vecs([values[0], None, values[2]])})).scalar()
        one = (await conn.execute(text("SELECT CAST(:v AS vector)::text"), {"v": vec(values[1])})).scalar()
        empty = (await conn.execute(text("SELECT cardinality(CAST(:vs AS vector[]))"), {"vs": vecs([])})).scalar()
    with register_vectors(psycopg.connect(empty_db_url)) as plain:   # a connection of our own
        as_text = plain.execute(sql.replace(":vs", "%(vs)s"), {"vs": vecs([values[0], None, values[2]])}).fetchone()[0]
    assert got[1] is None and as_text[1] is None and empty == 0
    parse = lambda s: np.asarray([float(x) for x in s.strip("[]").split(",")], dtype=np.float32)
    for i in (0, 2):
        assert np.array_equal(parse(got[i]), values[i])  # binary: exactly the float32 sent
        assert np.allclose(parse(as_text[i]), values[i], rtol=1e-6)
    assert np.array_equal(parse(one), values[1])


async def test_big_agents_search_through_the_halfvec_hnsw_index_with_exact_similarities(memory, fresh_db_url):
    """Agents above EXACT_MAX rows are searched through the HNSW index (migration 0005 builds it
    over embedding_vec::halfvec(d)); the planner must reach it, and on a small set the answer
    must be the exact search's, with full-precision similarities."""
    from arandu_pipelines.read import semantic, sql

    texts = ["I live in Lisbon.", "I work at Vertix as a designer.", "My sister Ana plays chess.",
             "We adopted a cat named Miso.", "I run every morning by the river.",
             "Carlos lives in Curitiba.", "I am learning to play the cello.", "Guili is my brother."]
    for i, t in enumerate(texts):
        await memory.write("big", t, speaker_name="Rafael", occurred_at=datetime(2023, 5, 1 + i, tzinfo=UTC))
        await memory.write("other", t, speaker_name="Bia", occurred_at=datetime(2023, 5, 1 + i, tzinfo=UTC))
    query = (await memory.embeddings.embed(["where does Rafael live?"]))[0]
    async with memory.engine.connect() as conn:
        exact = await semantic.search(conn, "f", "t.valid_to IS NULL", {"a": "big"}, query, 5, 10)
        with sql.capture() as captured:
            indexed = await semantic.search(conn, "f", "t.valid_to IS NULL", {"a": "big"}, query, 5,
                                            semantic.EXACT_MAX + 1)
    assert [i for i, _ in indexed] == [i for i, _ in exact] and len(exact) == 5
    assert all(abs(a[1] - b[1]) < 1e-6 for a, b in zip(indexed, exact))
    statement, params = captured[-1]
    with register_vectors(psycopg.connect(fresh_db_url)) as conn:
        conn.execute("SET enable_sort = off")  # a handful of rows: a sort would win on cost
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + statement, params))
    assert "ix_facts_embedding" in plan, plan
    (definition,), = rows(fresh_db_url, "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_events_embedding'")
    assert "halfvec(384)" in definition and "halfvec_cosine_ops" in definition
