"""What holds the citation places above an evidence turn at source ranks 11-20? Offline.

    ARANDU_HOME=/tmp/x python bench/rank_misses.py --import PATHS...   # once (the same database)
    python bench/source_places.py PATHS...

For every evidence turn `retrieve()` cites at source rank 11-20 it prints a markdown row: its rank
and score in the message ranking (before read/multihop.py's picks; "-" = only facts cite it) and
what takes the places above it: *msg* (a message the ranking scored at least as high), *fact-only*
(a message only facts cite), *lift* (a message the ranking scored lower, passed by its support
bonus), *pick* (a turn read/multihop.py added or raised), *coverage* (a turn read/coverage.py
moved above it); then the totals per data set. docs/retrieval.md ("The support bonus weighs a
fact by its place among the returned facts", session 11) holds the table. The inputs are
captured by wrapping `multihop.merge` and `pipeline._sources` from this script; the library has
no debug path.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncio
from collections import Counter
from typing import Any

from bench.locomo import CATEGORIES, questions, server_admin_url, with_database

DB = "arandu_bench_rank_misses"
KINDS = ("msg", "fact-only", "lift", "pick", "coverage")


def _kind(eid: str, target: str, own: dict[str, float], pre: dict[str, float], pre_order: list[str],
          picks: set[str], score: float) -> str:
    """Why the cited message `eid` stands above the evidence turn `target`."""
    if eid not in own:
        return "fact-only"
    if eid in picks and own[eid] > pre.get(eid, 0.0) + 1e-9:
        return "pick"
    if own[eid] < own.get(target, 0.0) - 1e-9:
        return "lift" if score > own[eid] + 1e-9 else "coverage"
    if target in pre and eid in pre and pre_order.index(eid) > pre_order.index(target):
        return "coverage"
    return "msg"


async def run(paths: list[Path]) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import multihop
    from arandu_pipelines.read import pipeline as pl

    cur: dict[str, Any] = {}
    real_merge, real_sources = multihop.merge, pl._sources

    def merge(events: list[Any], picks: list[Any], limit: int) -> list[Any]:
        cur["pre"] = [(e.event_id, e.score) for e in events]  # merge raises scores in place
        cur["picks"] = {p.id for p in picks}
        return real_merge(events, picks, limit)

    def sources(facts: list[Any], events: list[Any], rows: dict[str, Any]) -> list[Any]:
        cur["own"] = {e.event_id: e.score for e in events}
        cur.setdefault("pre", [(e.event_id, e.score) for e in events])
        out = real_sources(facts, events, rows)
        cur["refs"] = out
        return out

    multihop.merge = merge  # type: ignore[assignment]
    pl._sources = sources  # type: ignore[assignment]
    totals: Counter[tuple[str, str]] = Counter()
    print("| set | question | turn | source rank | message rank (score) | " + " | ".join(KINDS) + " |")
    print("|---" * (5 + len(KINDS)) + "|")
    async with MemoryClient(with_database(server_admin_url(), DB)) as memory:
        for path in paths:
            label = "dev" if path.stem.startswith("conv-") else path.stem
            for q in questions(path):
                cur.clear()
                await memory.retrieve(f"locomo-{path.stem}", q["question"], config_overrides={"topk_events": 20})
                refs, own = cur.get("refs", []), cur.get("own", {})
                pre = dict(cur.get("pre", []))
                pre_order = [e for e, _ in cur.get("pre", [])]
                mids = [r.message_id for r in refs]
                for ev in q["evidence"]:
                    if ev not in mids or not 11 <= mids.index(ev) + 1 <= 20:
                        continue
                    rank = mids.index(ev) + 1
                    target = refs[rank - 1].event_id
                    kinds = Counter(_kind(r.event_id, target, own, pre, pre_order, cur.get("picks", set()), r.score)
                                    for r in refs[: rank - 1])
                    mr = f"{pre_order.index(target) + 1} ({pre[target]:.3f})" if target in pre else "-"
                    print(f"| {label} | {q['question']} ({CATEGORIES[q['category']]}) | {ev} | {rank} | {mr} | "
                          + " | ".join(str(kinds[k]) for k in KINDS) + " |")
                    totals[(label, "turns")] += 1
                    totals.update({(label, k): v for k, v in kinds.items()})
    for (label, k), v in sorted(totals.items()):
        print(f"{label:16s} {k:10s} {v}")


def main() -> int:
    asyncio.run(run([Path(p) for p in sys.argv[1:]]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
