"""Retrieve latency at scale: an agent with 100,000 facts in a database holding 1,000,000.

    python bench/retrieve.py [--total-facts 1000000] [--agent-facts 100000] [--queries 100]
        [--explain] [--reuse]

Builds (unless --reuse) a dedicated database `arandu_bench_scale` on DATABASE_URL's server, else
on the embedded one, with set-based SQL only (INSERT ... SELECT generate_series): synthetic facts
with Zipf-distributed words (so BM25 sees realistic document frequencies), seeded pseudo-random
but clustered 384-d vectors (each the sum of two of ~2,000 random base vectors), entities,
aliases, fact-entity links, relationships and messages (one per four facts). Vector indexes are
built after the load, as a bulk HNSW build. Ten agents share the database; the measured one
("big") holds `--agent-facts` of them, plus a LoCoMo-sized agent ("small": 600 messages, 1,200
facts) to check that a small agent stays fast inside a big database.

Then it asks `--queries` generated questions (words from the vocabulary plus an entity name) to
each measured agent and prints p50/p95 latency of `retrieve()`, query embedding included (real
MiniLM). `--explain` prints EXPLAIN ANALYZE of every statement of one retrieve for the big agent,
to check that each signal uses its index.
"""

from __future__ import annotations

import os

# GNU OpenMP's worker threads busy-wait between torch calls; on a 2-core machine they then steal
# the CPU from Postgres and the event loop (retrieve p95 x10 under load). The process's owner
# sets this before torch loads (the library never does: docs/deploy.md, section 5); the
# benchmarks do, so they measure the pipeline, not spin.
# Run with OMP_WAIT_POLICY=ACTIVE to see the difference.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # the library no longer sets either (issue 17)

import argparse
import asyncio
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import fresh_database, percentile, server_admin_url, with_database

DB_NAME = "arandu_bench_scale"
DIM = 384  # MiniLM; the synthetic vectors below are built at this size
VOCAB = 6000
BASES = 1000
ENTITIES_PER_AGENT = 2000
SENTENCES = 50_000


def _sql_build(total_facts: int, agent_facts: int, n_agents: int) -> list[tuple[str, str]]:
    """(label, statement) list building the synthetic data set."""
    other = max(total_facts - agent_facts - 1200, 0)
    per_other = other // max(n_agents - 2, 1)
    return [
        ("seed", "SELECT setseed(0.42)"),
        ("vocabulary", f"""
            CREATE TEMP TABLE vocab AS
            SELECT n AS i, (ARRAY['ana','bruno','carla','porto','lisbon','coffee','project','meeting',
                'trip','dog','cat','music','guitar','painting','running','school','doctor','bank',
                'startup','series','contract','family','garden','beach','mountain','camping','book',
                'movie','dinner','birthday'])[1 + n % 30] || n AS w
            FROM generate_series(0, {VOCAB - 1}) n"""),
        ("vocabulary index", "ALTER TABLE vocab ADD PRIMARY KEY (i)"),
        ("sentences", f"""
            CREATE TEMP TABLE sentences AS
            SELECT s, (SELECT string_agg(v.w, ' ' ORDER BY x.k) FROM (
                           SELECT k, floor({VOCAB} * power(random(), 3))::int AS r
                           FROM generate_series(1, 8) k WHERE s >= 0) x
                       JOIN vocab v ON v.i = x.r) AS t
            FROM generate_series(0, {SENTENCES - 1}) s"""),
        ("sentences index", "ALTER TABLE sentences ADD PRIMARY KEY (s)"),
        ("base vectors", f"""
            CREATE TEMP TABLE base AS
            SELECT b, (SELECT array_agg(random() * 2 - 1)::vector(384) FROM generate_series(1, 384) d
                       WHERE b >= 0) AS v
            FROM generate_series(0, {2 * BASES - 1}) b"""),
        ("base index", "ALTER TABLE base ADD PRIMARY KEY (b)"),
        ("agents", f"""
            CREATE TEMP TABLE agents AS
            SELECT 'big' AS agent_id, {agent_facts} AS n_facts
            UNION ALL SELECT 'small', 1200
            UNION ALL SELECT 'other' || g, {per_other} FROM generate_series(1, {max(n_agents - 2, 0)}) g"""),
        ("messages", """
            INSERT INTO memory_events (agent_id, session_id, speaker, message_id, text, occurred_at,
                                       embedding_vec, content_hash, extraction_status, metadata)
            SELECT a.agent_id, 'session_' || (n / 20), CASE WHEN n % 2 = 0 THEN 'Ana' ELSE 'Bruno' END,
                   'm' || n,
                   (SELECT s1.t || ' ' || s2.t FROM sentences s1, sentences s2
                     WHERE s1.s = (n::bigint * 7919) % {SENTENCES} AND s2.s = (n::bigint * 104729 + 17) % {SENTENCES}),
                   timestamptz '2023-01-01' + n * interval '7 minutes',
                   (SELECT b1.v + b2.v FROM base b1, base b2 WHERE b1.b = n % {BASES}
                      AND b2.b = {BASES} + (n * 7 + length(a.agent_id)) % {BASES}),
                   md5(a.agent_id || n), 'done', jsonb_build_object('n', n)
            FROM agents a, generate_series(0, a.n_facts / 4 - 1) n""".replace("{SENTENCES}", str(SENTENCES))
         .replace("{BASES}", str(BASES))),
        ("entities", f"""
            INSERT INTO memory_entities (agent_id, canonical_key, display_name, entity_type, fact_count)
            SELECT a.agent_id, 'person:' || v.w, initcap(v.w), 'person', 0
            FROM agents a JOIN vocab v ON v.i < {ENTITIES_PER_AGENT}"""),
        ("aliases", f"""
            INSERT INTO memory_entity_aliases (agent_id, alias, alias_text, canonical_entity_key,
                                               canonical_entity_type, source)
            SELECT a.agent_id, v.w, initcap(v.w), 'person:' || v.w, 'person', 'display_name'
            FROM agents a JOIN vocab v ON v.i < {ENTITIES_PER_AGENT}"""),
        ("facts", f"""
            INSERT INTO memory_facts (agent_id, entity_type, entity_key, entity_name, attribute_key,
                                      fact_text, confidence, importance, valid_from, source_event_id,
                                      embedding_vec, speaker, session_id)
            SELECT a.agent_id, 'person', 'person:' || ev.w, initcap(ev.w), 'note',
                   initcap(ev.w) || ' ' || (SELECT t FROM sentences WHERE s = (n * 31 + length(a.agent_id)) % {SENTENCES}),
                   0.6 + 0.4 * random(), 0.2 + 0.7 * random(),
                   timestamptz '2023-01-01' + n * interval '3 minutes', e.id,
                   (SELECT b1.v + b2.v FROM base b1, base b2 WHERE b1.b = (n * 3) % {BASES}
                      AND b2.b = {BASES} + (n * 11 + length(a.agent_id)) % {BASES}),
                   'Ana', e.session_id
            FROM agents a CROSS JOIN LATERAL generate_series(0, a.n_facts - 1) n
            JOIN LATERAL (SELECT w FROM vocab WHERE i = n % {ENTITIES_PER_AGENT}) ev ON true
            LEFT JOIN memory_events e ON e.agent_id = a.agent_id AND e.message_id = 'm' || (n / 4)"""),
        ("fact-entity links", """
            INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key, is_primary)
            SELECT agent_id, id, entity_key, true FROM memory_facts"""),
        ("relationships", f"""
            INSERT INTO memory_entity_relationships (agent_id, source_entity_key, target_entity_key,
                                                     rel_type, strength, valid_from)
            SELECT a.agent_id, 'person:' || v1.w, 'person:' || v2.w,
                   (ARRAY['friend_of','works_with','family_of','knows'])[1 + g % 4], 0.5 + 0.5 * random(),
                   timestamptz '2023-01-01'
            FROM agents a CROSS JOIN generate_series(0, {ENTITIES_PER_AGENT * 2 - 1}) g
            JOIN vocab v1 ON v1.i = g % {ENTITIES_PER_AGENT}
            JOIN vocab v2 ON v2.i = (g * 7 + 13) % {ENTITIES_PER_AGENT}
            WHERE v1.i <> v2.i
            ON CONFLICT DO NOTHING"""),
        ("entity fact counts", """
            UPDATE memory_entities e SET fact_count = c.n FROM (
                SELECT agent_id, entity_key, count(*) AS n FROM memory_facts GROUP BY 1, 2) c
            WHERE e.agent_id = c.agent_id AND e.canonical_key = c.entity_key"""),
        # the same definition as migration 0005 (over the vectors cast to halfvec), which is what
        # read/semantic.py orders by: an index on the plain vector column would never be used
        ("HNSW index on messages", ("CREATE INDEX ix_events_embedding ON memory_events "
                                   f"USING hnsw ((embedding_vec::halfvec({DIM})) halfvec_cosine_ops)")),
        ("HNSW index on facts", ("CREATE INDEX ix_facts_embedding ON memory_facts "
                                f"USING hnsw ((embedding_vec::halfvec({DIM})) halfvec_cosine_ops)")),
        ("analyze", "ANALYZE"),
    ]


async def build(url: str, total_facts: int, agent_facts: int, n_agents: int) -> None:
    import psycopg

    from arandu_pipelines.client import MemoryClient

    client = MemoryClient(url)
    await client.initialize()
    await client.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '6GB'")
        conn.execute("SET max_parallel_maintenance_workers = 2")
        conn.execute("DROP INDEX IF EXISTS ix_events_embedding")
        conn.execute("DROP INDEX IF EXISTS ix_facts_embedding")
        for label, sql in _sql_build(total_facts, agent_facts, n_agents):
            t = time.perf_counter()
            conn.execute(sql)
            print(f"  {label}: {time.perf_counter() - t:.1f} s", flush=True)
        counts = conn.execute(
            "SELECT (SELECT count(*) FROM memory_facts), (SELECT count(*) FROM memory_facts WHERE "
            "agent_id = 'big'), (SELECT count(*) FROM memory_events), (SELECT count(*) FROM "
            "memory_entity_relationships)").fetchone()
        print(f"  database: {counts[0]:,} facts ({counts[1]:,} of agent 'big'), {counts[2]:,} messages, "
              f"{counts[3]:,} relationships")


def make_queries(url: str, agent: str, n: int) -> list[str]:
    """Questions from the agent's own vocabulary: an entity name plus common and rare words."""
    import psycopg

    rng = random.Random(7)
    with psycopg.connect(url) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT display_name FROM memory_entities WHERE agent_id = %s ORDER BY canonical_key LIMIT 300",
            (agent,)).fetchall()]
        words = [r[0] for r in conn.execute(
            "SELECT lexeme FROM memory_term_stats WHERE agent_id = %s AND kind = 'f' ORDER BY df DESC, lexeme "
            "LIMIT 2000", (agent,)).fetchall()]
    forms = ["What does {n} think about {a} and {b}?", "When did {n} mention {a}?",
             "Tell me about {a} {b} {c}", "Did {n} talk about the {a}?", "{a} {b}"]
    out = []
    for i in range(n):
        a, b, c = rng.choice(words[:50]), rng.choice(words), rng.choice(words[500:] or words)
        out.append(forms[i % len(forms)].format(n=rng.choice(names), a=a, b=b, c=c))
    return out


async def measure(url: str, agent: str, queries: list[str], explain: bool) -> dict[str, float]:
    from arandu_pipelines.client import MemoryClient

    async with MemoryClient(url) as memory:
        await memory.embeddings.embed_one("warm up")
        for q in queries[:5]:
            await memory.retrieve(agent, q + " warm")
        lat = []
        sizes = []
        c = time.process_time()
        for q in queries:
            t = time.perf_counter()
            r = await memory.retrieve(agent, q)
            lat.append((time.perf_counter() - t) * 1000)
            sizes.append(len(r.facts) + len(r.events))
        cpu = (time.process_time() - c) * 1000 / len(queries)
        if explain:
            await explain_one(memory, agent, queries[0])
    return {"p50": percentile(lat, 50), "p95": percentile(lat, 95), "mean_items": sum(sizes) / len(sizes),
            "cpu": cpu, "load": os.getloadavg()[0]}


async def explain_one(memory: Any, agent: str, query: str) -> None:
    """EXPLAIN ANALYZE every statement of one retrieve: which index each signal uses."""
    from arandu_pipelines.read import sql

    with sql.capture() as captured:
        await memory.retrieve(agent, query + " (explain)")
    async with memory.engine.connect() as c:
        raw = (await c.get_raw_connection()).driver_connection
        cur = raw.cursor()
        await cur.execute("SET hnsw.iterative_scan = strict_order")
        for statement, params in captured:
            if "set_config" in statement:
                continue
            await cur.execute("EXPLAIN (ANALYZE, COSTS OFF) " + statement, params)
            plan = [r[0] for r in await cur.fetchall()]
            first = " ".join(statement.split())[:90]
            nodes = sorted({m.group(0) for line in plan for m in re.finditer(
                r"(Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan) (?:Backward )?(?:using|on) \w+", line)})
            total = "; ".join(ln for ln in plan if ln.startswith(("Planning Time", "Execution Time")))
            print(f"\n  {first}...\n    {total}; " + "; ".join(nodes))


def prewarm(url: str) -> float:
    """Read every memory table and index once (pg_prewarm 'read': into the OS page cache, not
    shared_buffers). A serving database has its working set in memory; without this the first
    queries after a build or a restart measure the disk, not retrieve() (p95 ~240 ms vs ~80 ms
    on the 1M-fact database: every new query walks new HNSW pages)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        rels = [r[0] for r in conn.execute(
            "SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')").fetchall()]
        blocks = 0
        for rel in sorted(set(rels)):
            blocks += conn.execute("SELECT pg_prewarm(CAST(%s AS regclass), 'read')", (rel,)).fetchone()[0]
    return blocks * 8192 / 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--total-facts", type=int, default=1_000_000)
    ap.add_argument("--agent-facts", type=int, default=100_000)
    ap.add_argument("--agents", type=int, default=10)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--explain", action="store_true")
    ap.add_argument("--reuse", action="store_true", help="measure an existing arandu_bench_scale")
    ap.add_argument("--cold", action="store_true",
                    help="skip the pg_prewarm of the memory tables and indexes into the OS cache")
    args = ap.parse_args(argv)
    if args.reuse:
        url = with_database(server_admin_url(), DB_NAME)
    else:
        url = fresh_database(DB_NAME)
        t = time.perf_counter()
        print(f"building {args.total_facts:,} facts ({args.agent_facts:,} for agent 'big') ...", flush=True)
        asyncio.run(build(url, args.total_facts, args.agent_facts, args.agents))
        print(f"built in {time.perf_counter() - t:.0f} s")
    if not args.cold:
        t = time.perf_counter()
        mb = prewarm(url)
        print(f"prewarmed {mb:,.0f} MB of memory tables and indexes into the OS cache in "
              f"{time.perf_counter() - t:.0f} s (steady state of a serving database; --cold skips)")
    for agent in ("big", "small"):
        qs = make_queries(url, agent, args.queries)
        res = asyncio.run(measure(url, agent, qs, args.explain and agent == "big"))
        print(f"\nagent {agent!r}: retrieve p50 {res['p50']:.1f} ms, p95 {res['p95']:.1f} ms "
              f"({args.queries} queries, {res['mean_items']:.1f} facts+messages returned on average; "
              f"{res['cpu']:.1f} ms CPU per call in this process; load average {res['load']:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
