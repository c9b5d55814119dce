"""Which read statements can scan an agent's rows when the planner's estimates are off.

    ARANDU_HOME=... python bench/plan_scans.py /work/shared/data/locomo-dev/conv-26.json \
        /work/shared/data/locomo-dev/conv-30.json [--questions 20] [--sets 3]

Database `arandu_bench_plan_scans` (dropped and created again). A first agent ("known") is
imported and ANALYZEd; autovacuum is then turned off on the memory tables and the audited agent
("audit": every file's turns, then the first file's again, sessions renamed, ~1,200 messages,
facts extracted) is imported in chunks under the importer's ANALYZE threshold, so the statistics
do not know it: it is estimated at a handful of rows, as a new user, or an agent that grew since
the last autoanalyze, is. The statements of `--questions` retrieves are recorded
(read/sql.capture) and each distinct statement text is run under EXPLAIN (ANALYZE, BUFFERS) with
up to `--sets` of its recorded parameter sets in three settings: stale statistics; ANALYZEd with
`enable_nestloop = off` (the planner's hand forced); ANALYZEd, defaults. Printed per statement
(grouped by its opening words): the largest number of rows one scan node read from a per-agent
table (rows returned + removed by filter / recheck, times loops), and that table. A statement
whose figure under stale statistics or nested loops off is far above the default's is one whose
plan can turn into a scan of the agent (docs/retrieval.md, "Tails under import (session 11)").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import locomo

TABLES = ("memory_events", "memory_facts", "memory_event_units", "memory_entities",
          "memory_fact_entity_links")
DUMP: Path | None = None  # --dump: each statement's worst plan per setting, as JSON
CHUNK = 150  # under write/importer.ANALYZE_MIN_EVENTS: the import does not ANALYZE


def _rows(paths: list[Path], agent: str) -> list[dict[str, Any]]:
    from arandu_pipelines.write.import_files import locomo_rows

    out = []
    for i, p in enumerate([*paths, paths[0]]):
        for r in locomo_rows(p, agent_id=agent):
            out.append({**r, "session_id": f"c{i}-{r['session_id']}", "message_id": f"c{i}-{r['message_id']}"})
    return out


async def record(paths: list[Path], n: int) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.write.import_files import locomo_rows

    url = locomo.fresh_database("arandu_bench_plan_scans")
    caps: list[tuple[str, dict[str, Any]]] = []
    async with MemoryClient(url) as memory:
        await memory.import_messages(locomo_rows(paths[-1], agent_id="known"))  # >= 200: ANALYZEd
        async with memory.engine.begin() as conn:
            for t in TABLES:
                await conn.exec_driver_sql(f"ALTER TABLE {t} SET (autovacuum_enabled = false)")
        rows = _rows(paths, "audit")
        for i in range(0, len(rows), CHUNK):
            await memory.import_messages(rows[i:i + CHUNK])
        print(f"audited agent: {len(rows)} messages")
        for q in [q["question"] for q in locomo.questions(paths[0])][:n]:
            with sqlmod.capture() as cap:
                await memory.retrieve("audit", q, config_overrides={"topk_events": 20})
            caps.extend(cap)
    return url, caps


def scanned(node: dict[str, Any], parent: str = "") -> tuple[int, str]:
    """The largest rows read by one scan node of a per-agent table, and that table (with the
    node's type and its parent's, e.g. "events Seq Scan < Hash")."""
    best = (0, "")
    if node.get("Relation Name") in TABLES:
        per = node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0) + node.get(
            "Rows Removed by Index Recheck", 0)
        where = f"{node['Relation Name'].removeprefix('memory_')} {node['Node Type']} < {parent}"
        best = (round(per * node.get("Actual Loops", 1)), where)
    for c in node.get("Plans", []):
        best = max(best, scanned(c, node["Node Type"]))
    return best


def label(text: str) -> str:
    flat = " ".join(text.split())
    return re.sub(r"\s+", " ", flat)[:70]


def explain(url: str, caps: list[tuple[str, dict[str, Any]]], sets: int, setting: str,
            ) -> dict[str, tuple[int, str]]:
    import psycopg

    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.store.engine import register_vectors

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for text, params in caps:
        groups[text].append(params)
    out: dict[str, tuple[int, str]] = {}
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        register_vectors(conn)
        if setting == "nestloop off":
            conn.execute("SET enable_nestloop = off")
        for text, ps in groups.items():
            for p in ps[:sets]:
                plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + text,
                                    sqlmod._bind(p)).fetchone()[0]
                plan = plan if isinstance(plan, list) else json.loads(plan)
                key = label(text)
                got = scanned(plan[0]["Plan"])
                if DUMP is not None and got > out.get(key, (0, "")):
                    name = re.sub(r"\W+", "_", key)[:40] + "-" + setting.replace(" ", "_")
                    (DUMP / f"{name}.txt").write_text(text + "\n\n" + json.dumps(plan, indent=1))
                out[key] = max(out.get(key, (0, "")), got)
    return out


def main(argv: list[str] | None = None) -> int:
    import psycopg

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--sets", type=int, default=3)
    ap.add_argument("--dump", type=Path, help="write each statement's worst plan per setting here")
    args = ap.parse_args(argv)
    global DUMP
    DUMP = args.dump
    if DUMP:
        DUMP.mkdir(parents=True, exist_ok=True)
    url, caps = asyncio.run(record(args.paths, args.questions))
    stale = explain(url, caps, args.sets, "stale")
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute("ANALYZE " + ", ".join(TABLES))
    off = explain(url, caps, args.sets, "nestloop off")
    on = explain(url, caps, args.sets, "default")
    print(f"{len(caps)} statements over {args.questions} retrieves, {len(on)} kinds; rows read by the "
          "largest scan node of a per-agent table")
    print(f"{'stale':>7s} {'nl-off':>6s} {'default':>7s}  statement")
    for key in sorted(on, key=lambda k: -max(stale.get(k, (0, ""))[0], off[k][0])):
        s, o, d = stale.get(key, (0, "")), off[key], on[key]
        print(f"{s[0]:7d} {o[0]:6d} {d[0]:7d}  {key}")
        print(f"{'':24s}stale: {s[1]}; nl-off: {o[1]}; default: {d[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
