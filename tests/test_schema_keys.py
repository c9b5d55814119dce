"""Issue 17 item 9: every key leads with agent_id, so the tables can be distributed by agent.

Asserted from the catalog (pg_constraint, pg_index) for every table of the schema, not from a
list: a table added later without agent_id-leading keys fails here. Migration 0006 is also
checked on a database holding rows at 0005 (kept, still erasable and searchable) and on the way
back down.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import create_engine

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.providers.hashing_embeddings import HashingEmbeddings
from arandu_pipelines.store.engine import normalize_url
from arandu_pipelines.store.migrate import _alembic_config
from tests.conftest import rows

# The one table whose agent_id may be NULL (an import row without a valid agent_id): it keeps
# its bare id key and is left undistributed (docs/architecture.md, "Distributing by agent_id").
NULLABLE_AGENT = {"memory_quarantine"}
# Alembic's bookkeeping, the only table without agent_id.
NO_AGENT = {"alembic_version"}


def _tables(url: str) -> dict[str, bool | None]:
    """Every ordinary table of the schema -> is agent_id NOT NULL (None: no agent_id column)."""
    return {
        t: notnull
        for t, notnull in rows(url, """
            SELECT c.relname, a.attnotnull FROM pg_class c
            LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'agent_id'
                                    AND NOT a.attisdropped
            WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace""")
    }


def _key_shape_offenders(url: str) -> list[str]:
    """Every violation of the agent_id-leading key shape, as readable strings."""
    tables = _tables(url)
    distributed = sorted(t for t, notnull in tables.items() if notnull)
    bad: list[str] = []
    bad += [f"{t}: no agent_id column" for t, n in tables.items() if n is None and t not in NO_AGENT]
    bad += [f"{t}: agent_id nullable" for t, n in tables.items() if n is False and t not in NULLABLE_AGENT]
    for table in distributed:
        pk = rows(url, """
            SELECT (SELECT attname FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = c.conkey[1])
            FROM pg_constraint c WHERE c.conrelid = %s::regclass AND c.contype = 'p'""", (table,))
        if [r[0] for r in pk] != ["agent_id"]:
            bad.append(f"{table}: primary key {pk} does not lead with agent_id")
        # unique constraints and unique indexes (partial ones included: ON CONFLICT targets)
        for name, first in rows(url, """
            SELECT i.indexrelid::regclass::text,
                   (SELECT attname FROM pg_attribute WHERE attrelid = i.indrelid AND attnum = i.indkey[0])
            FROM pg_index i WHERE i.indrelid = %s::regclass AND i.indisunique""", (table,)):
            if first != "agent_id":
                bad.append(f"{table}: unique index {name} leads with {first}")
    # foreign keys: agent_id on both sides, at the same position; SET NULL never nulls agent_id
    for name, src, ref, pairs, setnull in rows(url, """
        SELECT c.conname, c.conrelid::regclass::text, c.confrelid::regclass::text,
               ARRAY(SELECT sa.attname || '=' || ra.attname
                     FROM unnest(c.conkey, c.confkey) AS k(s, r)
                     JOIN pg_attribute sa ON sa.attrelid = c.conrelid AND sa.attnum = k.s
                     JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = k.r),
               ARRAY(SELECT attname FROM pg_attribute
                     WHERE attrelid = c.conrelid AND attnum = ANY(c.confdelsetcols))
        FROM pg_constraint c
        WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace"""):
        if src not in distributed or ref not in distributed:
            bad.append(f"{name}: {src} -> {ref} involves a table not keyed by agent_id")
        if "agent_id=agent_id" not in pairs:
            bad.append(f"{name}: {src} -> {ref} joins {pairs}, without agent_id on both sides")
        if "agent_id" in setnull:
            bad.append(f"{name}: ON DELETE SET NULL would null agent_id")
    return bad


def _alembic(url: str, action: str, revision: str) -> None:
    engine = create_engine(normalize_url(url))
    try:
        with engine.begin() as conn:
            getattr(command, action)(_alembic_config(conn, 384), revision)
    finally:
        engine.dispose()


def test_every_key_of_every_table_leads_with_agent_id(fresh_db_url):
    assert rows(fresh_db_url, "SELECT version_num FROM alembic_version") == [("0012",)]
    assert _key_shape_offenders(fresh_db_url) == []
    # the foreign keys of the spec are all there (a dropped one would pass the loop above)
    fks = {n for (n,) in rows(fresh_db_url, "SELECT conname FROM pg_constraint WHERE contype = 'f'")}
    # 0001's eight + memory_event_units -> memory_events (0007) + confirmations -> fact, event (0011)
    assert len(fks) == 11, fks


def test_keys_at_0005_are_reported_as_not_distributable(empty_db_url):
    """The check above can fail: the bare-uuid schema of 0005 is flagged table by table."""
    _alembic(empty_db_url, "upgrade", "0005")
    offenders = _key_shape_offenders(empty_db_url)
    assert any(o.startswith("memory_facts: primary key") for o in offenders)
    assert any("memory_fact_entity_links_fact_id_fkey" in o for o in offenders)
    assert len([o for o in offenders if "primary key" in o]) == 11


A, B = "agent-a", "agent-b"
T = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _seed_at_0005(url: str) -> dict[str, str]:
    """Rows of two agents in every table, every foreign key used, written as at 0005."""
    import psycopg

    ids = {k: str(uuid.uuid4()) for k in (
        "ev", "ev2", "cl", "old", "new", "link", "rel", "int", "obs", "obs2", "evb", "fb")}
    with psycopg.connect(url) as conn:
        ev = ("INSERT INTO memory_events (id, agent_id, speaker, message_id, text, occurred_at, "
              "content_hash, extraction_status) VALUES (%s, %s, 'Ana', %s, %s, %s, %s, 'done')")
        conn.execute(ev, (ids["ev"], A, "m1", "Ana lives in Lisbon.", T, "h1"))
        conn.execute(ev, (ids["ev2"], A, "m2", "Ana moved to Porto.", T, "h2"))
        conn.execute(ev, (ids["evb"], B, "m1", "Bruno lives in Madrid.", T, "h3"))
        conn.execute("INSERT INTO memory_clusters (id, agent_id, label) VALUES (%s, %s, 'places')",
                     (ids["cl"], A))
        fact = ("INSERT INTO memory_facts (id, agent_id, entity_key, entity_name, attribute_key, "
                "value_text, fact_text, valid_from, valid_to, source_event_id, supersedes_fact_id, "
                "cluster_id) VALUES (%s, %s, %s, %s, 'lives_in', %s, %s, %s, %s, %s, %s, %s)")
        conn.execute(fact, (ids["old"], A, "person:ana", "Ana", "Lisbon", "Ana lives in Lisbon",
                            T, T, ids["ev"], None, ids["cl"]))
        conn.execute(fact, (ids["new"], A, "person:ana", "Ana", "Porto", "Ana lives in Porto",
                            T, None, ids["ev2"], ids["old"], ids["cl"]))
        conn.execute(fact, (ids["fb"], B, "person:bruno", "Bruno", "Madrid", "Bruno lives in Madrid",
                            T, None, ids["evb"], None, None))
        conn.execute("INSERT INTO memory_fact_entity_links (id, agent_id, fact_id, entity_key, "
                     "is_primary) VALUES (%s, %s, %s, 'person:ana', true)", (ids["link"], A, ids["new"]))
        conn.execute("INSERT INTO memory_entities (agent_id, canonical_key, display_name, entity_type) "
                     "VALUES (%s, 'person:ana', 'Ana', 'person'), (%s, 'location:porto', 'Porto', "
                     "'location')", (A, A))
        conn.execute("INSERT INTO memory_entity_relationships (id, agent_id, source_entity_key, "
                     "target_entity_key, rel_type, evidence_fact_id, evidence_event_id) "
                     "VALUES (%s, %s, 'person:ana', 'location:porto', 'lives_in', %s, %s)",
                     (ids["rel"], A, ids["new"], ids["ev2"]))
        conn.execute("INSERT INTO memory_intentions (id, agent_id, trigger_condition, intended_action, "
                     "source_event_id) VALUES (%s, %s, 'visit', 'ask about Porto', %s)",
                     (ids["int"], A, ids["ev2"]))
        obs = ("INSERT INTO session_observations (id, agent_id, content, merged_into_id) "
               "VALUES (%s, %s, %s, %s)")
        conn.execute(obs, (ids["obs2"], A, "Ana talks about moving", None))
        conn.execute(obs, (ids["obs"], A, "Ana moved", ids["obs2"]))
        conn.execute("INSERT INTO memory_entity_aliases (agent_id, alias, canonical_entity_key) "
                     "VALUES (%s, 'ana', 'person:ana')", (A,))
        conn.execute("INSERT INTO memory_meta_observations (agent_id, observation_type, title, text, "
                     "fingerprint) VALUES (%s, 'pattern', 't', 'x', 'f1')", (A,))
        conn.execute("INSERT INTO memory_attribute_registry (agent_id, key) VALUES (%s, 'lives_in')", (A,))
        conn.execute("INSERT INTO memory_quarantine (agent_id, source, reason) "
                     "VALUES (NULL, 'x.json', 'agent_id missing')")
    return ids


def _snapshot(url: str) -> dict[str, list[tuple]]:
    """Every row of every table, as text, in a stable order (without `memory_facts.rule_kind`,
    0012: a column that is NULL on rows older than it, so a snapshot taken at 0005 lacks it)."""
    out = {}
    for (t,) in rows(url, "SELECT relname FROM pg_class WHERE relkind = 'r' "
                          "AND relnamespace = current_schema()::regnamespace AND relname <> 'alembic_version'"):
        out[t] = sorted(str(r) for r in rows(url, f'SELECT to_jsonb(x) - \'rule_kind\' FROM "{t}" x'))
    return out


def _without_units(snapshot: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    """A snapshot without memory_event_units (0007, absent at 0005; its rows are derived vectors
    the write path stores, so a downgrade below 0007 drops them), memory_vocabulary (0008,
    derived from the messages by trigger, backfilled on upgrade) and memory_fact_confirmations
    (0011, reconciliation's restatement links, absent at 0005)."""
    return {t: v for t, v in snapshot.items()
            if t not in ("memory_event_units", "memory_vocabulary", "memory_fact_confirmations")}


async def test_upgrade_from_0005_keeps_rows_and_the_library_still_works(empty_db_url):
    _alembic(empty_db_url, "upgrade", "0005")
    ids = _seed_at_0005(empty_db_url)
    before = _snapshot(empty_db_url)

    async with MemoryClient(empty_db_url, embeddings=HashingEmbeddings()) as memory:
        await memory.initialize()  # migrates 0005 -> head
        assert rows(empty_db_url, "SELECT version_num FROM alembic_version") == [("0012",)]
        assert _without_units(_snapshot(empty_db_url)) == before
        assert _key_shape_offenders(empty_db_url) == []

        # ON DELETE SET NULL (col) clears the reference and keeps the row's agent
        rows(empty_db_url, "DELETE FROM memory_facts WHERE agent_id = %s AND id = %s RETURNING id",
             (A, ids["old"]))
        assert rows(empty_db_url, "SELECT agent_id, supersedes_fact_id FROM memory_facts WHERE id = %s",
                    (ids["new"],)) == [(A, None)]
        # a reference to another agent's row is refused by the composite key
        import psycopg

        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            rows(empty_db_url, "UPDATE memory_facts SET source_event_id = %s WHERE id = %s "
                               "RETURNING id", (ids["evb"], ids["new"]))

        # the library on the migrated rows: write, retrieve, erase one message, erase an agent
        res = await memory.write(A, "My sister Clara lives in Recife.", speaker_name="Ana",
                                 message_id="m3", occurred_at=T)
        assert res.success and res.event_id
        r = await memory.retrieve(A, "Where does Clara live?")
        assert any("Recife" in f.fact_text for f in r.facts), r.context
        await memory.delete_messages(A, message_ids=["m2"])
        assert rows(empty_db_url, "SELECT count(*) FROM memory_facts WHERE id = %s", (ids["new"],)) == [(0,)]
        assert rows(empty_db_url, "SELECT count(*) FROM memory_intentions WHERE id = %s",
                    (ids["int"],)) == [(0,)]
        await memory.delete_all(A)
        left = rows(empty_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = %s", (A,))
        assert left == [(0,)]
        # the other agent is untouched
        assert rows(empty_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s", (B,)) == [(1,)]


async def test_downgrade_restores_bare_keys_and_keeps_rows_written_by_the_library(empty_db_url):
    async with MemoryClient(empty_db_url, embeddings=HashingEmbeddings()) as memory:
        await memory.initialize()
        await memory.write(A, "My brother Tiago works at Google.", speaker_name="Ana", occurred_at=T)
        await memory.write(A, "Tiago moved to Berlin.", speaker_name="Ana", occurred_at=T)
    before = _without_units(_snapshot(empty_db_url))
    assert before["memory_facts"]

    _alembic(empty_db_url, "downgrade", "0005")
    assert _snapshot(empty_db_url) == before
    pks = rows(empty_db_url, "SELECT conrelid::regclass::text, array_length(conkey, 1) "
                             "FROM pg_constraint WHERE contype = 'p' AND connamespace = current_schema()::regnamespace "
                             "AND conrelid::regclass::text "
                             "NOT IN ('memory_term_stats', 'memory_doc_stats', 'alembic_version')")
    assert pks and all(n == 1 for _, n in pks), pks
    assert len(rows(empty_db_url, "SELECT 1 FROM pg_constraint WHERE contype = 'f'")) == 8

    _alembic(empty_db_url, "upgrade", "head")
    assert _without_units(_snapshot(empty_db_url)) == before
    assert _key_shape_offenders(empty_db_url) == []


def test_servers_older_than_15_are_refused_with_the_reason():
    import importlib

    from arandu_pipelines.errors import DatabaseError

    mod = importlib.import_module("arandu_pipelines.store.migrations.versions.0006_agent_keys")
    with pytest.raises(DatabaseError, match="PostgreSQL 15 or newer"):
        mod.require_pg15(140011)
    mod.require_pg15(150000)
    mod.require_pg15(180001)
