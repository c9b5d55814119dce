"""Which candidate source would have to hold a missed evidence turn? Per-source ranks, offline.

    ARANDU_HOME=/tmp/x python bench/rank_misses.py --import PATHS...   # once (the same database)
    python bench/miss_sources.py single-hop,open-domain PATHS...

For every evidence turn retrieve() ranks past 10 in the given categories it prints one JSON line:
its source rank, its rank in each event step's hits (`lexical_events`, `semantic_events`, ...),
its full BM25 and cosine ranks (the same searches 2,000 deep), its rank in the fused seed list
(`events._seed_ids`; seeds past `n_seeds` are not scored) and the seed ranks of its ±1 and ±2..3
turns (neighbour terms, feedback window). docs/retrieval.md ("Where the single-hop and
open-domain misses come from", session 11) classifies the misses with it. The ranks are captured
by wrapping `pipeline.rank_events` from this script; the library has no debug path.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncio
import json
from typing import Any

from sqlalchemy import text

from bench.locomo import CATEGORIES, questions, server_admin_url, with_database

DB = "arandu_bench_rank_misses"
DEEP = 2000


def _turn(order: list[str], sess: dict[str, str], i: int, d: int) -> str | None:
    """The id of the turn `d` places from order[i] in the same session, if any."""
    j = i + d
    return order[j] if 0 <= j < len(order) and sess[order[j]] == sess[order[i]] else None


async def run(cats: set[str], paths: list[Path]) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import events as ev
    from arandu_pipelines.read import lexical, semantic
    from arandu_pipelines.read import pipeline as pl

    cap: dict[str, Any] = {}
    real = ev.rank_events

    async def spy(conn: Any, scope: Any, terms: Any, emb: Any, signals: dict[str, dict[str, float]],
                  speakers: list[str], *a: Any, **k: Any) -> Any:
        cap.update(signals={s: dict(v) for s, v in signals.items()}, speakers=list(speakers),
                   spread=k.get("spread", False), max_scan=a[2] if len(a) > 2 else 200)
        out = await real(conn, scope, terms, emb, signals, speakers, *a, **k)
        lx = await lexical.search(conn, "e", scope.events("t"), scope.params(), terms, DEEP)
        cap["lex_full"] = {i: n + 1 for n, (i, _) in enumerate(lx)}
        if emb is not None:
            sm = await semantic.search(conn, "e", scope.events("t"), scope.params(), emb, DEEP,
                                       terms.events.n_docs)
            cap["sem_full"] = {i: n + 1 for n, (i, _) in enumerate(sm)}
        return out

    pl.rank_events = spy  # type: ignore[assignment]
    async with MemoryClient(with_database(server_admin_url(), DB)) as memory:
        for path in paths:
            agent = f"locomo-{path.stem}"
            async with memory.engine.connect() as c:
                rows = (await c.execute(text(
                    "SELECT id::text, message_id, session_id, speaker FROM memory_events "
                    "WHERE agent_id = :a ORDER BY session_id, occurred_at, id"), {"a": agent})).all()
            mid2id = {r[1]: r[0] for r in rows}
            order = [r[0] for r in rows]
            sess = {r[0]: r[2] for r in rows}
            spk = {r[0]: r[3] for r in rows}
            pos = {e: i for i, e in enumerate(order)}
            for q in questions(path):
                cat = CATEGORIES[q["category"]]
                if cat not in cats:
                    continue
                cap.clear()
                res = await memory.retrieve(agent, q["question"], config_overrides={"topk_events": 20})
                mids = [s.message_id for s in res.sources]
                sig: dict[str, dict[str, float]] = cap.get("signals", {})
                seeds = ev._seed_ids(sig, 10**6)
                seed_rank = {e: i + 1 for i, e in enumerate(seeds)}
                n_seeds = min(ev.LIST_SEEDS if cap.get("spread") else ev.MAX_SEEDS,
                              max(1, int(cap.get("max_scan", 200)) // 3))
                for e in q["evidence"]:
                    src = mids.index(e) + 1 if e in mids else None
                    eid = mid2id.get(e)
                    if (src is not None and src <= 10) or eid is None:
                        continue
                    i = pos[eid]

                    near = [r for d in (-3, -2, 2, 3)
                            if (t := _turn(order, sess, i, d)) and (r := seed_rank.get(t))]
                    step = {s: (sorted(v, key=lambda x, v=v: (-v[x], x)).index(eid) + 1 if eid in v else None)
                            for s, v in sig.items()}
                    print(json.dumps({
                        "conversation": path.stem, "category": cat, "question": q["question"], "evidence": e,
                        "source_rank": src, "speaker": spk[eid], "speaker_named": spk[eid] in cap.get("speakers", []),
                        "step_rank": step, "bm25_rank": cap.get("lex_full", {}).get(eid),
                        "cosine_rank": cap.get("sem_full", {}).get(eid), "seed_rank": seed_rank.get(eid),
                        "n_seeds": n_seeds, "prev_seed_rank": seed_rank.get(_turn(order, sess, i, -1) or ""),
                        "next_seed_rank": seed_rank.get(_turn(order, sess, i, 1) or ""), "near_seed_rank": min(near, default=None)}))


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    asyncio.run(run(set(sys.argv[1].split(",")), [Path(p) for p in sys.argv[2:]]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
