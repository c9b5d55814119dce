"""Cost of long and hostile messages: extraction, embedding, memory, and event-loop stalls.

    python bench/hostile_cost.py [--lengths 1000,10000,50000,100000] [--patterns prose,bang,...]
        [--no-write]

For each pattern (English prose and pathological inputs) and message length it prints:
- extract_s: `extract_offline` on the message (the rules extractor, in this thread);
- embed_s / embed_rss_mb: `LocalEmbeddings.encode_units` of the message's sentences as the write
  pipeline embeds them, and the peak RSS growth while it ran (sampled every 2 ms);
- write_s / stall_ms / loop_cpu_ms: a real `MemoryClient.write()` of the message (embedded
  Postgres or DATABASE_URL's server, database `arandu_bench_hostile`), while a task on the same
  event loop ticks every 10 ms: the longest time past its due tick, i.e. the longest the loop was
  blocked (what every concurrent `retrieve()` of the process would wait), and the most CPU the
  loop's thread spent between two ticks (its own work; the stall adds waiting for the GIL and,
  on a loaded machine, for a core). core_wait_ms: how much of that longest stall the loop's
  thread spent runnable but waiting for a core (Linux schedstat): on a shared machine most of
  a stall can be that, which no change to this process's Python removes; stall_ms - core_wait_ms
  is the loop's own work plus waiting for the GIL. An idle-loop row gives the noise floor.
Linear cost shows as time growing 10x from 10k to 100k characters, not 100x; the loop is never
blocked long when CPU-heavy stages run off it. Run it against another checkout with
PYTHONPATH=/path/to/checkout to compare (it prints which package it measured).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/retrieve.py
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # the library no longer sets either (issue 17)

import argparse
import asyncio
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from typing import Self

from locomo import fresh_database

# locomo puts this checkout first on sys.path: PYTHONPATH (another checkout to measure) goes
# back in front of it
for _p in reversed([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]):
    sys.path.insert(0, _p)

PROSE = ("I moved to Lisbon with my sister Maria last year, and we love the food there. "
         "Carlos works at Vertix since 2021 and plays chess every Sunday with his friend Ana. ")
PATTERNS = {
    "prose": lambda n: (PROSE * (n // len(PROSE) + 1))[:n],
    "bang": lambda n: "!" * n,  # the 40,000 "!"
    "dots": lambda n: "." * n,
    "a.": lambda n: ("a. " * n)[:n],
    "short-sent": lambda n: ("Ok. " * n)[:n],  # thousands of tiny sentences: one giant packed row
    "spaces": lambda n: "a" + " " * (n - 2) + "x",
    "commas": lambda n: ("Ana, " * n)[:n],
    "newlines": lambda n: "Ana" + "\n" * (n - 4) + "x",
    "mixed": lambda n: ("Olá мир 世界 مرحبا Ana! 😀 " * n)[:n],
}


class PeakRSS:
    """Peak resident memory growth while the block runs (sampled; /proc/self/statm)."""

    def __enter__(self) -> Self:
        self.base = self.peak = _rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, _rss())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def delta_mb(self) -> float:
        return (self.peak - self.base) / 2**20


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _runqueue_wait() -> float:
    """Seconds this thread has spent runnable but waiting for a core (Linux schedstat; 0 where
    the kernel does not report it)."""
    try:
        with open("/proc/thread-self/schedstat") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def _write_with_ticker(memory, agent: str, text: str) -> tuple[float, float, float, float]:
    """(seconds of the write, longest event-loop stall in ms seen by a 10 ms ticker, longest CPU
    time in ms the loop's thread spent between two ticks, and how much of the longest stall the
    loop's thread spent waiting for a core). The stall is wall time, so on a loaded machine it
    includes waiting for a core (the last figure: other processes', or this one's encode
    workers'); the rest is the loop's own work or waiting for the GIL."""
    stop = asyncio.Event()
    worst = worst_cpu = worst_wait = 0.0

    async def ticker() -> None:
        nonlocal worst, worst_cpu, worst_wait
        while not stop.is_set():
            due, cpu, wait = time.perf_counter() + 0.01, time.thread_time(), _runqueue_wait()
            await asyncio.sleep(0.01)
            late = time.perf_counter() - due
            if late > worst:
                worst, worst_wait = late, _runqueue_wait() - wait
            worst_cpu = max(worst_cpu, time.thread_time() - cpu)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.03)
    t0 = time.perf_counter()
    result = await memory.write(agent, text, speaker_name="Rafael")
    elapsed = time.perf_counter() - t0
    stop.set()
    await task
    if not result.success:
        print(f"    write failed: {result.error}", flush=True)
    return elapsed, worst * 1000, worst_cpu * 1000, worst_wait * 1000


async def _idle_stall(seconds: float) -> float:
    """The 10 ms ticker's longest lateness with nothing else running: the noise floor."""
    worst = 0.0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        due = time.perf_counter() + 0.01
        await asyncio.sleep(0.01)
        worst = max(worst, time.perf_counter() - due)
    return worst * 1000


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", default="1000,10000,50000,100000")
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    ap.add_argument("--no-write", action="store_true", help="skip the write()/stall column")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]

    import arandu_pipelines
    from arandu_pipelines.providers.local_embeddings import LocalEmbeddings
    from arandu_pipelines.write.extract_rules import extract_offline
    from arandu_pipelines.write.prefetch import message_sentences
    from arandu_pipelines.write.types import ExtractionContext

    print(f"package: {Path(arandu_pipelines.__file__).parent}")
    embeddings = LocalEmbeddings()
    embeddings.warm_up(queries=False)
    memory = None
    if not args.no_write:
        from arandu_pipelines.client import MemoryClient

        memory = MemoryClient(fresh_database("arandu_bench_hostile"), embeddings=embeddings)
        await memory.initialize()
        # names in it: spaCy loads now (~1 s once per process, a ~50 ms loop stall of its own)
        # instead of during the first measured message that has any
        await memory.write("warm", "Warm up the write path with Ana in Lisbon.", speaker_name="Rafael")
        idle = await _idle_stall(2.0)
        print(f"idle event loop, 2 s: longest stall {idle:.1f} ms (this machine's scheduling noise floor)")
    ctx = ExtractionContext(speaker_name="Rafael", occurred_at=datetime.now(UTC))
    print(f"{'pattern':<11}{'chars':>8}{'sents':>7}{'extract_s':>11}{'embed_s':>9}"
          f"{'embed_rss_mb':>14}{'write_s':>9}{'stall_ms':>10}{'loop_cpu_ms':>13}{'core_wait_ms':>14}",
          flush=True)
    try:
        for name in args.patterns.split(","):
            for n in lengths:
                text = PATTERNS[name](n)
                t0 = time.perf_counter()
                result = extract_offline(text, ctx)
                extract_s = time.perf_counter() - t0
                sentences = list(message_sentences(result.sentences, text))
                with PeakRSS() as rss:
                    t0 = time.perf_counter()
                    embeddings.encode_units([("Rafael", sentences)])
                    embed_s = time.perf_counter() - t0
                write_s = stall = loop_cpu = core_wait = float("nan")
                if memory is not None:
                    write_s, stall, loop_cpu, core_wait = await _write_with_ticker(memory, f"{name}-{n}", text)
                print(f"{name:<11}{len(text):>8}{len(sentences):>7}{extract_s:>11.3f}{embed_s:>9.2f}"
                      f"{rss.delta_mb:>14.0f}{write_s:>9.2f}{stall:>10.1f}{loop_cpu:>13.1f}{core_wait:>14.1f}",
                      flush=True)
    finally:
        if memory is not None:
            await memory.close()


if __name__ == "__main__":
    asyncio.run(main())
