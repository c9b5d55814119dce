"""What the query's vocabulary bridge (read/bridge.py) costs: bridge on and off, interleaved.

    python bench/query_bridge.py CONV.json [CONV2.json ...] [--rounds 3]

Imports each LoCoMo-format file into database `arandu_bench_bridge` (dropped and created again;
DATABASE_URL's server or the embedded one), then asks every
question of categories 1-4 `--rounds` times, each time once with the bridge and once without
(ARANDU_QUERY_BRIDGE, read per call), alternating which goes first, so both modes meet the same
machine load. Prints, per mode, the median and p95 of `bootstrap()` alone (the round trip the
bridge rides on) and of the whole `retrieve()` (query embedding included), and how many
questions the bridge expanded.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import argparse
import asyncio
import json
import statistics
import time

from locomo import fresh_database, percentile

DB = "arandu_bench_bridge"


def _questions(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    conv = data[0] if isinstance(data, list) else data
    return [q["question"] for q in conv.get("qa", []) if q.get("category") in (1, 2, 3, 4)]


async def run(paths: list[Path], rounds: int) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read.entities import bootstrap
    from arandu_pipelines.write.importer import locomo_rows

    url = fresh_database(DB)
    boot: dict[str, list[float]] = {"on": [], "off": []}
    full: dict[str, list[float]] = {"on": [], "off": []}
    expanded = asked = 0
    async with MemoryClient(url) as memory:
        for path in paths:
            agent = f"bridge-{path.stem}"
            await memory.import_messages(locomo_rows(path, agent_id=agent))
            await memory.retrieve(agent, "warm up the plan cache")
            qs = _questions(path)
            async with memory.engine.connect() as conn:
                for q in qs:
                    terms, _ = await bootstrap(conn, agent, q)
                    asked += 1
                    expanded += bool(terms.expansions)
                for r in range(rounds):
                    for i, q in enumerate(qs):
                        order = ("on", "off") if (i + r) % 2 == 0 else ("off", "on")
                        for mode in order:
                            os.environ["ARANDU_QUERY_BRIDGE"] = "1" if mode == "on" else "0"
                            t = time.perf_counter()
                            await bootstrap(conn, agent, q)
                            boot[mode].append((time.perf_counter() - t) * 1000)
                            t = time.perf_counter()
                            await memory.retrieve(agent, q, config_overrides={"topk_events": 20})
                            full[mode].append((time.perf_counter() - t) * 1000)
    os.environ.pop("ARANDU_QUERY_BRIDGE", None)
    print(f"{expanded} of {asked} questions expanded by the bridge")
    for mode in ("off", "on"):
        b, f = boot[mode], full[mode]
        print(f"bridge {mode:3s}: bootstrap median {statistics.median(b):.2f} / p95 {percentile(b, 95):.2f} ms; "
              f"retrieve p50 {statistics.median(f):.1f} / p95 {percentile(f, 95):.1f} ms over {len(f)} calls")
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    asyncio.run(run(args.paths, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
