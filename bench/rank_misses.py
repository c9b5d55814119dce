"""Why does retrieve() miss an evidence turn? Per-signal scores of the misses, offline.

    ARANDU_HOME=/tmp/x python bench/rank_misses.py --import /work/shared/data/locomo-dev/*.json \
        bench/data/realistic-chat.json           # once: import into arandu_bench_rank_misses
    python bench/rank_misses.py PATHS...          # then: ask every question again (seconds)
    python bench/rank_misses.py PATHS... --misses single-hop multi-hop   # and explain the misses
    python bench/rank_misses.py PATHS... --set events.SESSION=0.2       # try a constant

For every question it prints R@1/5/10/20 per category (the mean over conversations, as
bench/locomo.py does). With --misses, for each evidence turn ranked past 10 among the sources:
its source rank, whether the message ranking scored it at all (in the pool: a seed of the index
steps, a neighbour of one, or a feedback-window turn), its rank in that pool before the relative
floor, and its per-signal parts (keyword, semantic, speaker, time_window, context_prev/next/near,
relevance) next to those of the pool's top three. The parts are captured by wrapping
events._score from this script; the library has no debug path.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import asyncio
import importlib
import json
import statistics
from collections import Counter, defaultdict
from typing import Any

from bench.locomo import (
    CATEGORIES,
    KS,
    fresh_database,
    questions,
    recall_at,
    server_admin_url,
    with_database,
)

DB = "arandu_bench_rank_misses"
SHOWN = ("keyword", "semantic", "speaker", "context_prev", "context_next", "context_near", "relevance")


def _fmt(parts: dict[str, float]) -> str:
    return " ".join(f"{k[:8]}={parts[k]:.2f}" for k in SHOWN if k in parts)


async def run(paths: list[Path], do_import: bool, misses: set[str], dump: Path | None,
              overrides: list[str]) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import events as ev
    from arandu_pipelines.write.importer import locomo_rows

    for s in overrides:  # module constants read at call time (not bound as default arguments)
        name, value = s.split("=", 1)
        mod, const = name.rsplit(".", 1)
        m = importlib.import_module(f"arandu_pipelines.read.{mod}")
        setattr(m, const, type(getattr(m, const))(json.loads(value)))
    captured: list[Any] = []
    real_score = ev._score

    def spy(rows: list[Any], *a: Any, **k: Any) -> None:
        real_score(rows, *a, **k)
        captured[:] = [rows]

    ev._score = spy  # type: ignore[assignment]
    url = fresh_database(DB) if do_import else with_database(server_admin_url(), DB)
    by_conv: dict[str, dict[str, dict[int, list[float]]]] = {}
    causes: Counter[str] = Counter()
    out: list[dict[str, Any]] = []
    async with MemoryClient(url) as memory:
        for path in paths:
            agent = f"locomo-{path.stem}"
            if do_import:
                await memory.import_messages(locomo_rows(path, agent_id=agent), extract=True)
            cats: dict[str, dict[int, list[float]]] = defaultdict(lambda: {k: [] for k in KS})
            for q in questions(path):
                captured.clear()
                res = await memory.retrieve(agent, q["question"], config_overrides={"topk_events": 20})
                mids = [s.message_id for s in res.sources]
                cat = CATEGORIES[q["category"]]
                for k in KS:
                    cats[cat][k].append(recall_at(mids, q["evidence"], k))
                for k in KS:
                    cats["all"][k].append(cats[cat][k][-1])
                pool = sorted(captured[0], key=lambda r: (-r.score, r.occurred_at, r.id)) if captured else []
                pos = {r.message_id: i for i, r in enumerate(pool)}
                rec = {"conversation": path.stem, "category": cat, "question": q["question"],
                       "answer": q.get("answer", ""), "evidence": {}, "top": mids[:20]}
                for e in q["evidence"]:
                    srank = mids.index(e) + 1 if e in mids else None
                    row = pool[pos[e]] if e in pos else None
                    cause = ("hit" if srank is not None and srank <= 10 else
                             "rank11-20" if srank is not None else
                             "pool-below20" if row is not None else "not-in-pool")
                    rec["evidence"][e] = {"source_rank": srank, "pool_rank": pos[e] + 1 if e in pos else None,
                                          "pool": len(pool), "cause": cause,
                                          "seed": bool(row.seed) if row else None,
                                          "parts": dict(row.parts) if row else None,
                                          "text": (row.speaker + ": " + row.text) if row else None}
                    if cat in misses or "all" in misses:
                        causes[f"{cat}:{cause}"] += 1
                rec["pool_top"] = [{"id": r.message_id, "text": f"{r.speaker}: {r.text}"[:90],
                                    "parts": dict(r.parts), "session": r.session_id} for r in pool[:3]]
                out.append(rec)
                if (cat in misses or "all" in misses) and any(
                        v["cause"] != "hit" for v in rec["evidence"].values()):
                    print(f"\n## {path.stem} {cat}: {q['question']} -> {q.get('answer', '')}")
                    for e, v in rec["evidence"].items():
                        print(f"   {e} src={v['source_rank']} pool={v['pool_rank']}/{v['pool']} "
                              f"seed={v['seed']} {v['cause']}  {_fmt(v['parts'] or {})}")
                        if v["text"]:
                            print(f"      {v['text'][:110]}")
                    for t in rec["pool_top"]:
                        print(f"   top {t['id']}: {_fmt(t['parts'])} | {t['text']}")
            by_conv[path.stem] = cats
    dev = [c for c in by_conv if c.startswith("conv-")]
    for label, convs in (("dev mean", dev), *((c, [c]) for c in by_conv if c not in dev)):
        if not convs:
            continue
        print(f"\n{label}:")
        for cat in ("all", *CATEGORIES.values()):
            rows = [by_conv[c][cat] for c in convs if cat in by_conv[c] and by_conv[c][cat][1]]
            if rows:
                print(f"  {cat:12s} " + "  ".join(
                    f"R@{k} {statistics.mean(statistics.mean(r[k]) for r in rows):.3f}" for k in KS))
    if causes:
        print("\nmissed evidence turns by cause:")
        for k, v in sorted(causes.items()):
            print(f"  {k:32s} {v}")
    if dump:
        dump.write_text("".join(json.dumps(r, default=str) + "\n" for r in out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--import", dest="do_import", action="store_true", help="(re)create the database first")
    ap.add_argument("--misses", nargs="*", default=[], help="categories whose misses to explain ('all')")
    ap.add_argument("--set", action="append", default=[], help="module.CONSTANT=value (read/ modules)")
    ap.add_argument("--dump", type=Path, help="one JSON line per question")
    args = ap.parse_args()
    asyncio.run(run(args.paths, args.do_import, set(args.misses), args.dump, args.set))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
