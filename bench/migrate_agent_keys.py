"""Time migration 0006 (keys that lead with agent_id) on a database that holds data at 0005.

Usage (the figures in docs/architecture.md, "Distributing by agent_id"):

    git archive <a commit before 0006> | tar -x -C /tmp/at0005      # the library at 0005
    cd /tmp/at0005 && ARANDU_HOME=/tmp/h arandu-pipelines import conv-26.json --format locomo
    cd <this checkout> && ARANDU_HOME=/tmp/h python bench/migrate_agent_keys.py [--repeat 3]

Prints the row counts, then the seconds the upgrade 0005 -> 0006 takes (the same code path as
`MemoryClient.initialize()`: one transaction under the migration advisory lock). With
`--repeat N` it downgrades and upgrades again N-1 more times, printing each pass (the downgrade
is timed too), and leaves the database at 0006. A database already at 0006 is first downgraded.

With `--write-cost AGENT` it also times, at 0005 and again at 0006, copying that agent's events,
facts and fact-entity links under a new agent id in one transaction that is rolled back
(median of 5): the index and foreign-key upkeep the new keys add to a write.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package


from arandu_pipelines.store.engine import create_engine, resolve_database_url
from arandu_pipelines.store.migrate import (
    _alembic_config,
    current_revision,
    existing_dimension,
    upgrade,
)


def _downgrade_sync(connection, dim: int) -> None:  # type: ignore[no-untyped-def]
    from alembic import command

    command.downgrade(_alembic_config(connection, dim), "0005")


_COPY = [
    ("CREATE TEMP TABLE em ON COMMIT DROP AS SELECT id AS o, gen_random_uuid() AS n "
    "FROM memory_events WHERE agent_id = :a"),
    ("CREATE TEMP TABLE fm ON COMMIT DROP AS SELECT id AS o, gen_random_uuid() AS n "
    "FROM memory_facts WHERE agent_id = :a"),
    ("INSERT INTO memory_events (id, agent_id, session_id, speaker, message_id, text, source, "
    "occurred_at, importance, embedding_vec, metadata, content_hash, extraction_status) "
    "SELECT em.n, :b, e.session_id, e.speaker, e.message_id, e.text, e.source, e.occurred_at, "
    "e.importance, e.embedding_vec, e.metadata, e.content_hash, e.extraction_status "
    "FROM memory_events e JOIN em ON em.o = e.id WHERE e.agent_id = :a"),
    ("INSERT INTO memory_facts (id, agent_id, entity_type, entity_key, entity_name, attribute_key, "
    "value_text, fact_text, valid_from, valid_to, source_event_id, supersedes_fact_id, embedding_vec) "
    "SELECT fm.n, :b, f.entity_type, f.entity_key, f.entity_name, f.attribute_key, f.value_text, "
    "f.fact_text, f.valid_from, f.valid_to, em.n, sup.n, f.embedding_vec "
    "FROM memory_facts f JOIN fm ON fm.o = f.id LEFT JOIN em ON em.o = f.source_event_id "
    "LEFT JOIN fm sup ON sup.o = f.supersedes_fact_id WHERE f.agent_id = :a"),
    ("INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key, is_primary) "
    "SELECT :b, fm.n, l.entity_key, l.is_primary FROM memory_fact_entity_links l "
    "JOIN fm ON fm.o = l.fact_id WHERE l.agent_id = :a"),
]


async def _write_cost(engine, agent: str, label: str) -> None:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(5):
        async with engine.connect() as conn:
            trans = await conn.begin()
            await conn.execute(text(_COPY[0]), {"a": agent})
            await conn.execute(text(_COPY[1]), {"a": agent})
            t0 = time.perf_counter()
            for sql in _COPY[2:]:
                await conn.execute(text(sql), {"a": agent, "b": agent + "-copy"})
            times.append(time.perf_counter() - t0)
            await trans.rollback()
    print(f"{label}: copy {agent}'s events+facts+links: median {statistics.median(times):.3f} s "
          f"(runs {', '.join(f'{t:.3f}' for t in times)})")


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--write-cost", metavar="AGENT", default=None)
    args = ap.parse_args()
    engine = create_engine(resolve_database_url(args.database_url))
    try:
        rev = await current_revision(engine)
        if rev not in ("0005", "0006"):
            raise SystemExit(f"the database is at {rev!r}; this bench times 0005 -> 0006")
        async with engine.connect() as conn:
            dim = await conn.run_sync(existing_dimension) or 384
        if rev == "0006":
            t0 = time.perf_counter()
            async with engine.begin() as conn:
                await conn.run_sync(_downgrade_sync, dim)
            print(f"first: downgrade 0006 -> 0005 {time.perf_counter() - t0:.3f} s")
        if args.write_cost:
            await _write_cost(engine, args.write_cost, "at 0005")
        async with engine.connect() as conn:
            for table in ("memory_events", "memory_facts", "memory_fact_entity_links",
                          "memory_entities", "memory_entity_relationships"):
                n = (await conn.execute(text(f"SELECT count(*) FROM {table}"))).scalar()
                print(f"{table:32s} {n:>8} rows")
        for i in range(args.repeat):
            if i:
                t0 = time.perf_counter()
                async with engine.begin() as conn:
                    await conn.run_sync(_downgrade_sync, dim)
                print(f"pass {i + 1}: downgrade 0006 -> 0005 {time.perf_counter() - t0:.3f} s")
            t0 = time.perf_counter()
            await upgrade(engine, dim)
            print(f"pass {i + 1}: upgrade 0005 -> 0006 {time.perf_counter() - t0:.3f} s")
        if args.write_cost:
            await _write_cost(engine, args.write_cost, "at 0006")
        print("now at", await current_revision(engine))
        import arandu_pipelines

        print("library:", Path(arandu_pipelines.__file__).parent)
    finally:
        await engine.dispose()


if __name__ == "__main__":
    asyncio.run(main())
