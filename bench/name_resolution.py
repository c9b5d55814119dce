"""What the fuzzy name pass costs: `bootstrap()` (the read side's first round trip) timed for
questions that name people as the labels spell them and for the same questions with a nickname or
a misspelling (which also fetch the candidate pool and run the fuzzy matcher).

    python bench/name_resolution.py [--rounds 200]

Imports bench/data/realistic-chat.json into database `arandu_bench_names` (dropped and created
again; DATABASE_URL's server or the embedded one), then prints the median and p95 of bootstrap
per group, and how each question resolved.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import argparse
import asyncio
import statistics
import time

from locomo import fresh_database, percentile

EXACT = ["What are Katherine's hobbies?", "Where is Muhhamed moving?", "What does Priya teach?",
         "How did Katherine hurt her finger?"]
FUZZY = ["What are Kate's hobbies?", "Where is Muhammad moving?", "What does Pirya teach?",
         "How did Kat hurt her finger?"]
NO_NAME = ["What pets do the friends have?", "Where did the quiz team come?"]


async def run(rounds: int) -> None:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read.entities import bootstrap
    from arandu_pipelines.write.importer import locomo_rows

    url = fresh_database("arandu_bench_names")
    path = Path(__file__).parent / "data" / "realistic-chat.json"
    async with MemoryClient(url) as memory:
        await memory.import_messages(locomo_rows(path, agent_id="names"))
        engine = memory.engine
        async with engine.connect() as conn:
            for q in EXACT + FUZZY + NO_NAME:
                _, res = await bootstrap(conn, "names", q)
                print(f"  {q:42s} speakers={res.speakers} methods={getattr(res, 'speaker_methods', None)}")
            for name, group in (("exact names", EXACT), ("nickname / misspelt", FUZZY), ("no name", NO_NAME)):
                times = []
                for _ in range(rounds):
                    for q in group:
                        t = time.perf_counter()
                        await bootstrap(conn, "names", q)
                        times.append((time.perf_counter() - t) * 1000)
                print(f"{name:22s} bootstrap median {statistics.median(times):.2f} ms, "
                      f"p95 {percentile(times, 95):.2f} ms over {len(times)} calls")
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=200)
    asyncio.run(run(ap.parse_args().rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
