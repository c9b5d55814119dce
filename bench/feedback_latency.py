"""Latency of the message ranking's second pass (read/feedback.py), interleaved A/B in one process.

    ARANDU_HOME=... python bench/feedback_latency.py /work/shared/data/locomo-dev/*.json [--rounds 3]

Imports the conversations once (as bench/locomo.py does, database `arandu_bench_feedback`), then
asks every question with the second pass off and on, alternating per question, so both arms meet
the same machine state (the shared machine's load moves by the minute). Prints wall-clock p50 /
p95 per arm (query embedding included) and CPU per call in this process, and the machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo


async def run(paths: list[Path], rounds: int) -> dict[str, dict[str, float]]:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import events
    from arandu_pipelines.write.importer import locomo_rows

    url = locomo.fresh_database("arandu_bench_feedback")
    wall: dict[bool, list[float]] = {False: [], True: []}
    cpu: dict[bool, float] = {False: 0.0, True: 0.0}
    async with MemoryClient(url) as memory:
        await memory.embeddings.embed_one("warm up")
        work: list[tuple[str, str]] = []
        for path in paths:
            agent = f"locomo-{path.stem}"
            await memory.import_messages(locomo_rows(path, agent_id=agent))
            for on in (False, True):  # plan caches of both arms warm
                events.FEEDBACK = on
                await memory.retrieve(agent, "warm up the plan cache")
            work += [(agent, q["question"]) for q in locomo.questions(path)]
        for r in range(rounds):
            for i, (agent, question) in enumerate(work):
                order = (False, True) if (i + r) % 2 == 0 else (True, False)
                for on in order:
                    events.FEEDBACK = on
                    t, c = time.perf_counter(), time.process_time()
                    await memory.retrieve(agent, question, config_overrides={"topk_events": 20})
                    wall[on].append((time.perf_counter() - t) * 1000)
                    cpu[on] += (time.process_time() - c) * 1000
        events.FEEDBACK = True
    return {("on" if on else "off"): {"p50": locomo.percentile(wall[on], 50), "p95": locomo.percentile(wall[on], 95),
                                      "cpu_ms": cpu[on] / max(len(wall[on]), 1), "calls": len(wall[on])}
            for on in (False, True)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--rounds", type=int, default=2, help="passes over the questions per arm")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    res = asyncio.run(run(args.paths, args.rounds))
    for arm, v in res.items():
        print(f"second pass {arm:3s}: p50 {v['p50']:.1f} ms  p95 {v['p95']:.1f} ms  "
              f"CPU {v['cpu_ms']:.1f} ms/call  ({v['calls']:.0f} calls)")
    print(f"machine load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
