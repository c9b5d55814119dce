"""A/B of two read/graph.py versions in one process: client CPU and wall per retrieve.

    git show e0ca4a8:arandu_pipelines/read/graph.py > /tmp/graph_base.py
    ARANDU_HOME=... python bench/graph_facts_ab.py /tmp/graph_base.py [--rounds 3] [--conv conv-26.json]

Imports the conversation once (database `arandu_bench_graph_ab`), then retrieves every question
with the given graph module (arm "base") and this checkout's (arm "mine"), alternating the arm
order per question, so both arms meet the same machine load. Prints whether the first round's
results (fact ids, message ids, context) are identical, and per arm the client CPU
(process_time, query embedding included) and wall p50 / p95 per call. See docs/retrieval.md,
"Statements per retrieve, and the linked facts plan".
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo

DEV = Path("/work/shared/data/locomo-dev/conv-26.json")


def load_base(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("arandu_pipelines.read.graph_base", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def use(mod: ModuleType) -> None:
    """Route the graph step and spreading activation through `mod`."""
    from arandu_pipelines.read import registry, spreading

    registry.retrieve_graph_facts = mod.retrieve_graph_facts  # type: ignore[attr-defined]
    spreading.linked_facts = mod.linked_facts  # type: ignore[attr-defined]
    spreading.bfs_hops = mod.bfs_hops  # type: ignore[attr-defined]


async def run(base_path: Path, conv: Path, rounds: int) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import graph as mine
    from arandu_pipelines.write.importer import locomo_rows

    arms = {"base": load_base(base_path), "mine": mine}
    url = locomo.fresh_database("arandu_bench_graph_ab")
    qs = [q["question"] for q in locomo.questions(conv)]
    cpu: dict[str, list[float]] = {a: [] for a in arms}
    wall: dict[str, list[float]] = {a: [] for a in arms}
    outs: dict[str, list[tuple[list[str], list[str], str]]] = {a: [] for a in arms}
    async with MemoryClient(url) as m:
        await m.import_messages(locomo_rows(conv, agent_id="ab"))
        for mod in arms.values():  # warm both arms' prepared statements
            use(mod)
            for q in qs[:20]:
                await m.retrieve("ab", q, config_overrides={"topk_events": 20})
        for rnd in range(rounds):
            for i, q in enumerate(qs):
                for a in (("base", "mine") if (i + rnd) % 2 == 0 else ("mine", "base")):
                    use(arms[a])
                    c0, w0 = time.process_time(), time.perf_counter()
                    r = await m.retrieve("ab", q, config_overrides={"topk_events": 20})
                    cpu[a].append(time.process_time() - c0)
                    wall[a].append(time.perf_counter() - w0)
                    if rnd == 0:
                        outs[a].append(([f.fact_id for f in r.facts], [e.event_id for e in r.events], r.context))
    print("identical results:", outs["base"] == outs["mine"])
    for a in arms:
        w = sorted(wall[a])
        print(f"{a}: {len(w)} calls, client CPU {1000 * sum(cpu[a]) / len(w):.2f} ms/call, "
              f"wall p50 {1000 * locomo.percentile(w, 50):.1f} ms, p95 {1000 * locomo.percentile(w, 95):.1f} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", type=Path, help="the read/graph.py to compare against")
    ap.add_argument("--conv", type=Path, default=DEV)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    asyncio.run(run(args.base, args.conv, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
