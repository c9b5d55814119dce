"""Latency of the client's read-side facade methods: get, get_all, entities, stats.

    python bench/facade_queries.py [--calls 200]

Imports the bundled sample conversation (rules extraction, local embeddings) into database
`arandu_bench_facade` (embedded Postgres or DATABASE_URL's server), then times `--calls` calls of
each method and prints the median and p95 in milliseconds. Issue 17 moved their SQL from
`client.py` into `store/` query modules (and `stats()` from one statement per table to one
`UNION ALL`); run it against another checkout with PYTHONPATH=/path/to/checkout to compare (it
prints which package it measured).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import fresh_database, percentile

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_conversation.jsonl"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=200, help="calls per method (default 200)")
    args = ap.parse_args()

    import arandu_pipelines
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.write.importer import read_rows

    print(f"package: {Path(arandu_pipelines.__file__).resolve().parent}")
    url = fresh_database("arandu_bench_facade")
    async with MemoryClient(url) as memory:
        rows = list(read_rows(SAMPLE))
        agent = rows[0].data["agent_id"]
        report = await memory.import_messages(rows, source="bench")
        facts = await memory.get_all(agent, limit=500)
        print(f"agent {agent}: {report.events_inserted} events, {len(facts)} active facts, "
              f"{len(await memory.entities(agent, limit=500))} entities")
        calls = {
            "get": lambda: memory.get(agent, facts[0].fact_id),
            "get_all": lambda: memory.get_all(agent, limit=50),
            "get_all(entity_keys)": lambda: memory.get_all(agent, entity_keys=[facts[0].entity_key]),
            "entities": lambda: memory.entities(agent),
            "stats": lambda: memory.stats(agent),
        }
        print(f"{'method':22s} {'median_ms':>10s} {'p95_ms':>8s}  ({args.calls} calls each)")
        for name, call in calls.items():
            for _ in range(10):  # warm the pool and the prepared statements
                await call()
            times = []
            for _ in range(args.calls):
                t0 = time.perf_counter()
                await call()
                times.append((time.perf_counter() - t0) * 1000)
            print(f"{name:22s} {statistics.median(times):10.2f} {percentile(times, 95):8.2f}")


if __name__ == "__main__":
    asyncio.run(main())
