"""What read/multihop.py's statement costs the server, before and after bounding it.

    ARANDU_HOME=... python bench/multihop_cost.py /work/shared/data/locomo-dev/*.json \
        [--copies 8] [--questions 60]

Imports each conversation as an agent of its own (the dev agents), and all of them `--copies`
times over as ONE agent (`big`: every copy's sessions and message ids renamed, so each phrase is
`--copies` times more frequent, as in a long-lived agent), into database `arandu_bench_mh_cost`
(dropped and created again), without fact extraction. For up to `--questions` questions per
agent it records the multi-session statement `retrieve()` issues (read/sql.capture), then runs
it and the statement of main e0ca4a8 (`V1`, below: a count(*) probe per phrase, then a second
probe joining the accepted phrases) with the same parameters under EXPLAIN (ANALYZE, BUFFERS)
and prints, per agent and per statement, sums over the questions: shared buffers hit / read,
GIN probes (loops of bitmap index scans on memory_events' text index), heap rows fetched by
them, rows removed by index recheck, execution ms; and how many questions' picks differ.
Also the client CPU ms per retrieve with the mechanism on and off (same questions).
Work counts, not wall time: they do not depend on what else runs on the machine.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import asyncio
import functools
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import locomo

# The statement as of main e0ca4a8 (read/multihop.py, ENABLED = False there), for comparison.
V1 = """
    WITH p AS (
        SELECT ph, phraseto_tsquery('english', ph) AS q FROM unnest(CAST(:mh_ph AS text[])) ph
    ), df AS (
        SELECT p.ph, p.q FROM p WHERE numnode(p.q) > 1 AND (SELECT count(*) FROM memory_events e
            WHERE e.agent_id = :a AND e.search_vector @@ p.q AND true) BETWEEN 2 AND :mh_maxdf
    ), hit AS (
        SELECT e.id, count(*) AS k FROM memory_events e JOIN df ON e.search_vector @@ df.q
        WHERE e.agent_id = :a AND NOT (e.session_id = ANY(CAST(:mh_sessions AS text[]))) {who}
          AND true
        GROUP BY e.id
    )
    SELECT e.id::text AS id, e.message_id, e.metadata::text AS metadata, e.session_id, e.speaker,
           e.text, e.occurred_at, hit.k, 1 - (e.embedding_vec <=> CAST(:qv AS vector)) AS sim
    FROM hit JOIN memory_events e ON e.agent_id = :a AND e.id = hit.id
    ORDER BY hit.k DESC, sim DESC NULLS LAST, e.id
    LIMIT :mh_limit
    """
METRICS = ("hit", "read", "index_probes", "seq_scans", "rows_evaluated", "exec_ms")


def _walk(node: dict[str, Any], acc: Counter[str]) -> None:
    rel = node.get("Relation Name") == "memory_events"
    loops = node.get("Actual Loops", 0)
    if node.get("Node Type") in ("Bitmap Index Scan", "Index Scan", "Index Only Scan") and (
            rel or node.get("Index Name", "").startswith("ix_events")):
        acc["index_probes"] += loops
    if node.get("Node Type") == "Seq Scan" and rel:
        acc["seq_scans"] += loops
    if rel:  # rows of memory_events evaluated: returned + removed by filter or by index recheck
        acc["rows_evaluated"] += (node.get("Actual Rows", 0) * loops + node.get("Rows Removed by Filter", 0)
                                  + node.get("Rows Removed by Index Recheck", 0))
    for child in node.get("Plans", []):
        _walk(child, acc)


DF = """
    SELECT ph, u.ub, (SELECT count(*) FROM memory_events e WHERE e.agent_id = %(a)s AND e.search_vector @@ q) AS df
    FROM unnest(CAST(%(mh_ph)s AS text[])) ph, phraseto_tsquery('english', ph) q,
    LATERAL (SELECT min(coalesce((SELECT s.df FROM memory_term_stats s
                                  WHERE s.agent_id = %(a)s AND s.kind = 'e' AND s.lexeme = l), 0)) AS ub
             FROM unnest(tsvector_to_array(to_tsvector('english', ph))) l) u
    WHERE numnode(q) > 1
"""


def explain(conn: Any, text: str, params: dict[str, Any]) -> tuple[Counter[str], list[str]]:
    from arandu_pipelines.read import sql as sqlmod

    bound = sqlmod._bind(params)
    ids = [r[0] for r in conn.execute(text, bound).fetchall()]
    plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + text, bound).fetchone()[0][0]
    acc: Counter[str] = Counter()
    acc["hit"] = plan["Plan"].get("Shared Hit Blocks", 0)
    acc["read"] = plan["Plan"].get("Shared Read Blocks", 0)
    acc["exec_ms"] = plan["Execution Time"]  # type: ignore[assignment]
    _walk(plan["Plan"], acc)
    return acc, ids


def _rows(paths: list[Path], copies: int) -> dict[str, list[dict[str, Any]]]:
    from arandu_pipelines.write.importer import locomo_rows

    agents: dict[str, list[dict[str, Any]]] = {}
    big: list[dict[str, Any]] = []
    for path in paths:
        rows = list(locomo_rows(path, agent_id=f"dev-{path.stem}"))
        agents[f"dev-{path.stem}"] = rows
        for c in range(copies):
            for r in rows:
                big.append({**r, "agent_id": "big", "session_id": f"{path.stem}-c{c}-{r['session_id']}",
                            "message_id": f"{path.stem}-c{c}-{r['message_id']}"})
    if copies:
        agents["big"] = big
    return agents


async def record(paths: list[Path], copies: int, n: int) -> tuple[str, dict[str, Any]]:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import multihop as mh

    url = locomo.fresh_database("arandu_bench_mh_cost")
    qs = [q["question"] for p in paths for q in locomo.questions(p)]
    out: dict[str, Any] = {}
    async with MemoryClient(url) as memory:
        await memory.embeddings.embed_one("warm up")
        for agent, rows in _rows(paths, copies).items():
            await memory.import_messages(rows, extract=False)
            mine = qs[:n] if agent == "big" else [q["question"] for p in paths if f"dev-{p.stem}" == agent
                                                  for q in locomo.questions(p)][:n]
            caps: list[tuple[Any, ...]] = []  # bridge()'s inputs, first pass with it on
            cpu: dict[bool, float] = {}
            orig = mh.bridge

            async def spy(conn: Any, scope: Any, emb: Any, query: str, speakers: list[str], top: list[Any],
                          rec: bool, caps: list[tuple[Any, ...]], orig: Any) -> Any:
                if rec:
                    caps.append((scope, emb, query, list(speakers), list(top[:mh.TOP_HITS])))
                return await orig(conn, scope, emb, query, speakers, top)

            for i, on in enumerate((True, False, True, False)):  # the last pass of each is kept (warm caches)
                mh.ENABLED = on
                mh.bridge = functools.partial(spy, rec=i == 0, caps=caps, orig=orig)  # type: ignore[assignment]
                await memory.retrieve(agent, "warm up the plan cache")
                c = time.process_time()
                for q in mine:
                    await memory.retrieve(agent, q, config_overrides={"topk_events": 20})
                cpu[on] = (time.process_time() - c) * 1000 / max(len(mine), 1)
            mh.ENABLED, mh.bridge = True, orig  # type: ignore[method-assign]
            out[agent] = {"messages": len(rows), "questions": len(mine), "caps": caps, "cpu": cpu}
    return url, out


def report(url: str, out: dict[str, Any]) -> None:
    import psycopg

    from arandu_pipelines.read import multihop as mh
    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.read.semantic import qvec
    from arandu_pipelines.store.engine import register_vectors

    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as conn:
        register_vectors(conn)
        conn.execute("ANALYZE memory_events")
        for agent, o in out.items():
            sums: dict[str, Counter[str]] = {"v1": Counter(), "now": Counter()}
            differ = probes = 0
            bridging: list[int] = []  # ub of the phrases found in 2..MAX_DF messages
            ubs: list[int] = []
            statements = 0
            for scope, emb, query, speakers, head in o["caps"]:
                ph = mh.phrases([e.text for e in head], query, speakers)
                if not ph or emb is None:
                    continue  # no phrase: no statement, before or after
                statements += 1
                params = {**scope.params(), "qv": qvec(emb), "mh_speakers": sorted(speakers), "mh_ph": ph,
                          "mh_sessions": sorted({e.session_id for e in head}), "mh_maxdf": mh.MAX_DF,
                          "mh_limit": mh.PICKS, "mh_maxub": mh.MAX_UB}
                for _ph, ub, df in conn.execute(DF, sqlmod._bind(params)).fetchall():
                    ubs.append(ub or 0)
                    if 2 <= df <= mh.MAX_DF:
                        bridging.append(ub)
                who = "AND e.speaker = ANY(CAST(:mh_speakers AS text[]))" if speakers else ""
                a, ids_old = explain(conn, locomo_sql(V1.format(who=who)), params)
                sums["v1"].update(a)
                accept = locomo_sql(mh._ACCEPT)
                b, _ = explain(conn, accept, params)
                sums["now"].update(b)
                kept = conn.execute(accept, sqlmod._bind(params)).fetchall()
                ids_now: list[str] = []
                if kept:
                    probe = {**params, "mh_ph": [k[0] for k in kept], "mh_q": " | ".join(f"({k[1]})" for k in kept)}
                    b, ids_now = explain(conn, locomo_sql(mh._sql(scope.events("e"), bool(speakers))), probe)
                    sums["now"].update(b)
                    probes += 1
                differ += ids_old != ids_now
            print(f"{agent}: {o['messages']} messages, {o['questions']} questions, "
                  f"{statements} with phrases ({probes} probed); client CPU ms/retrieve on "
                  f"{o['cpu'][True]:.1f} off {o['cpu'][False]:.1f}; picks differ in {differ}")
            print(f"   phrases {len(ubs)}, bound (rarest word's df) max {max(ubs, default=0)}, "
                  f"> MAX_UB {sum(u > mh.MAX_UB for u in ubs)}; found in 2..MAX_DF messages "
                  f"{len(bridging)}, their bound max {max(bridging, default=0)}")
            print("   statement " + " ".join(f"{m:>15s}" for m in METRICS))
            for name, acc in sums.items():
                print(f"   {name:9s} " + " ".join(f"{acc[m]:15.1f}" if m == "exec_ms" else f"{int(acc[m]):15d}"
                                             for m in METRICS))


def locomo_sql(text: str) -> str:
    from arandu_pipelines.read import sql as sqlmod

    return sqlmod.to_pyformat(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--copies", type=int, default=8, help="copies of all conversations in agent 'big' (0: none)")
    ap.add_argument("--questions", type=int, default=60, help="questions per agent")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    url, out = asyncio.run(record(args.paths, args.copies, args.questions))
    report(url, out)
    if args.json:
        args.json.write_text(json.dumps({a: {k: v for k, v in o.items() if k != "caps"} for a, o in out.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
