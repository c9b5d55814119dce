"""Which read statements Postgres plans again on every call, and what planning costs.

    ARANDU_HOME=... python bench/plan_reuse.py /work/shared/data/locomo-dev/conv-26.json [--questions 30]

Imports the conversation (database `arandu_bench_plan_reuse`, dropped and created again),
records the statements of `--questions` retrieves (read/sql.capture), then, per statement text
seen at least six times, runs it prepared on one connection with each recorded parameter set
(as a pooled connection does with stable_plan=True) and prints pg_prepared_statements' generic
and custom plan counts, and the planning / execution time EXPLAIN ANALYZE reports per retrieve.
A statement with 0 generic plans is planned anew every call: under plan_cache_mode=auto the
generic plan looked costlier than the custom ones (typically: an array parameter, which a
generic plan assumes has ten elements). See docs/retrieval.md, "Latency after the feedback pass
and the bridge".
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo


async def record(path: Path, n: int) -> tuple[str, list[list[tuple[str, dict[str, Any]]]]]:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.write.importer import locomo_rows

    url = locomo.fresh_database("arandu_bench_plan_reuse")
    caps = []
    async with MemoryClient(url) as memory:
        await memory.import_messages(locomo_rows(path, agent_id="plans"))
        for q in [q["question"] for q in locomo.questions(path)][:n]:
            with sqlmod.capture() as cap:
                await memory.retrieve("plans", q, config_overrides={"topk_events": 20})
            caps.append(list(cap))
    return url, caps


def report(url: str, caps: list[list[tuple[str, dict[str, Any]]]]) -> None:
    import psycopg

    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.store.engine import register_vectors

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for cap in caps:
        for text, params in cap:
            groups[text].append(params)
    counts = sorted(len(cap) for cap in caps)
    print(f"statements per retrieve: mean {sum(counts) / len(counts):.2f}, min {counts[0]}, "
          f"median {counts[len(counts) // 2]}, max {counts[-1]} over {len(caps)} retrieves")
    print(f"{'generic':>7s} {'custom':>6s} {'plan ms':>7s} {'exec ms':>7s}  (per retrieve) statement")
    for text, sets in sorted(groups.items(), key=lambda g: -len(g[1])):
        if len(sets) < 6:
            continue
        with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn:  # one statement each
            register_vectors(conn)
            planning = execution = 0.0
            for p in sets:
                conn.execute(text, sqlmod._bind(p), prepare=True).fetchall()
                plan = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + text, sqlmod._bind(p)).fetchone()[0][0]
                planning += plan["Planning Time"]
                execution += plan["Execution Time"]
            generic, custom = conn.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                                           ).fetchone()
            print(f"{generic:7d} {custom:6d} {planning / len(caps):7.2f} {execution / len(caps):7.2f}  "
                  f"{' '.join(text.split())[:90]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--questions", type=int, default=30)
    args = ap.parse_args(argv)
    url, caps = asyncio.run(record(args.path, args.questions))
    report(url, caps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
