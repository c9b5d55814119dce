"""Time migration 0006 (keys that lead with agent_id) on a database that holds data at 0005.

Usage (the figures in docs/architecture.md, "Distributing by agent_id"):

    git archive <a commit before 0006> | tar -x -C /tmp/at0005      # the library at 0005
    cd /tmp/at0005 && ARANDU_HOME=/tmp/h arandu-pipelines import conv-26.json --format locomo
    cd <this checkout> && ARANDU_HOME=/tmp/h python bench/migrate_agent_keys.py [--repeat 3]

Prints the row counts, then the seconds the upgrade 0005 -> 0006 takes (the same code path as
`MemoryClient.initialize()`: one transaction under the migration advisory lock). With
`--repeat N` it downgrades and upgrades again N-1 more times, printing each pass (the downgrade
is timed too), and leaves the database at 0006.
"""

from __future__ import annotations

import argparse
import asyncio
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


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    engine = create_engine(resolve_database_url(args.database_url))
    try:
        rev = await current_revision(engine)
        if rev != "0005":
            raise SystemExit(f"the database is at {rev!r}; this bench times 0005 -> 0006")
        async with engine.connect() as conn:
            dim = await conn.run_sync(existing_dimension) or 384
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
        print("now at", await current_revision(engine))
        import arandu_pipelines

        print("library:", Path(arandu_pipelines.__file__).parent)
    finally:
        await engine.dispose()


if __name__ == "__main__":
    asyncio.run(main())
