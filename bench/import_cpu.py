"""CPU cost of the offline write path: import LoCoMo conversations and count CPU seconds and parses.

    python bench/import_cpu.py ../shared/data/locomo-dev/*.json [--dump facts.txt] [--profile]

Each conversation is imported offline (no LLM) into a fresh database `arandu_bench_import_cpu`
(DATABASE_URL's server when set, else the embedded one, as bench/locomo.py). Printed per
conversation: CPU seconds of this process around `import_messages` (`time.process_time`: all its
threads; the PostgreSQL server is another process and is not counted), messages per CPU-second,
and the spaCy docs parsed during the import, per set of components run (counted by wrapping
`spacy.Language.__call__` / `.pipe`, so the figure means the same on any commit) and, where the
write path exposes it (`write/parses.py`), per stage. Then the resident set size after the
imports (VmRSS) and its peak. The first conversation includes loading the models (embedding and
spaCy): `--warm` imports a two-message conversation first so that loads are counted apart.

`--dump PATH` writes every conversation's active facts (`get_all()`: entity key, fact text,
valid_from, valid_to), sorted, one per line: diff the dumps of two commits to show that a change
left the facts identical.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

DB_NAME = "arandu_bench_import_cpu"
DOCS: Counter[str] = Counter()  # components run -> docs


def _count_spacy_docs() -> None:
    """Wrap spaCy's Language so that every doc it makes is counted by the components it ran."""
    from spacy.language import Language

    def key(nlp: Any, disable: Any) -> str:
        off = set(disable or ())
        return "+".join(n for n in nlp.pipe_names if n not in off)

    call, pipe = Language.__call__, Language.pipe

    def counted_call(self: Any, text: Any, *a: Any, disable: Any = (), **kw: Any) -> Any:
        DOCS[key(self, disable)] += 1
        return call(self, text, *a, disable=disable, **kw)

    def counted_pipe(self: Any, texts: Any, *a: Any, disable: Any = (), **kw: Any) -> Any:
        k = key(self, disable)
        for doc in pipe(self, texts, *a, disable=disable, **kw):
            DOCS[k] += 1
            yield doc

    Language.__call__ = counted_call  # type: ignore[method-assign]
    Language.pipe = counted_pipe  # type: ignore[method-assign,assignment]


EMB: Counter[str] = Counter()  # embedding work: calls, texts, units and CPU seconds of this thread


def _count_embeddings() -> None:
    """Wrap the local embedding model's encoders to count what the write path embeds."""
    from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

    units, array = LocalEmbeddings.encode_units, LocalEmbeddings.encode_array

    def counted_units(self: Any, items: Any) -> Any:
        EMB["unit calls"] += 1
        EMB["unit messages"] += len(items)
        EMB["units"] += sum(len(s) for _, s in items)
        t0 = time.thread_time()
        try:
            return units(self, items)
        finally:
            EMB["unit CPU s (calling thread)"] += time.thread_time() - t0

    def counted_array(self: Any, texts: Any) -> Any:
        EMB["text calls"] += 1
        EMB["texts"] += len(texts)
        return array(self, texts)

    LocalEmbeddings.encode_units = counted_units  # type: ignore[method-assign]
    LocalEmbeddings.encode_array = counted_array  # type: ignore[method-assign]


def _rss_mb() -> tuple[float, float]:
    now = peak = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            now = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    return now, peak


def _stage_counts() -> dict[str, int] | None:
    try:
        from arandu_pipelines.write import parses
    except ImportError:
        return None
    return dict(parses.STATS)


def _cache_hits() -> dict[str, int]:
    """Lookups served without a parse by write/parses.py's process-wide caches (speed15)."""
    try:
        from arandu_pipelines.write import parses
    except ImportError:
        return {}
    return dict(getattr(parses, "HITS", {}))


async def run(args: argparse.Namespace) -> None:
    from locomo import fresh_database

    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.write.import_files import locomo_rows

    _count_spacy_docs()
    _count_embeddings()
    url = fresh_database(DB_NAME)
    lines: list[str] = []
    async with MemoryClient(url) as memory:
        if args.warm:
            t0 = time.process_time()
            await memory.import_messages([
                {"agent_id": "warm", "session_id": "s1", "speaker": "Ana", "message_id": "w1", "occurred_at": "2023-01-20T16:04:00+00:00",
                 "text": "Hi Bea! How did the pottery class go? I met Carlos Lima at Acme Corp."},
                {"agent_id": "warm", "session_id": "s1", "speaker": "Bea", "message_id": "w2", "occurred_at": "2023-01-20T16:05:00+00:00",
                 "text": "It was great, I made a bowl. Keep going after your dreams!"}])
            print(f"warm-up (model loads): {time.process_time() - t0:.2f} CPU s")
        DOCS.clear()
        EMB.clear()
        total_cpu = total_msgs = 0.0
        for path in args.paths:
            agent = f"cpu-{Path(path).stem}"
            rows = locomo_rows(path, agent_id=agent)
            before_docs, before_stages = Counter(DOCS), Counter(_stage_counts() or {})
            before_hits = Counter(_cache_hits())
            t0 = time.process_time()
            imp = await memory.import_messages(rows)
            cpu = time.process_time() - t0
            total_cpu += cpu
            total_msgs += imp.events_inserted
            docs = DOCS - before_docs
            stages = Counter(_stage_counts() or {}) - before_stages
            print(f"{Path(path).stem}: {imp.events_inserted} msgs  {cpu:.2f} CPU s  "
                  f"{imp.events_inserted / cpu:.0f} msgs/CPU-s  facts_added {imp.facts_added}")
            print(f"  spaCy docs by components: {dict(docs)}  total {sum(docs.values())}")
            if stages:
                print(f"  docs per stage (write/parses): {dict(stages)}")
            if hits := Counter(_cache_hits()) - before_hits:
                print(f"  cache hits per stage (write/parses process-wide caches, no parse): {dict(hits)}")
            page = await memory.get_all(agent, limit=100_000)
            for f in page.facts:
                lines.append(f"{Path(path).stem}\t{f.entity_key}\t{f.fact_text}\t{f.valid_from}\t{f.valid_to}")
        print(f"embeddings: { {k: round(v, 2) for k, v in EMB.items()} }")
        print(f"total: {total_msgs:.0f} msgs  {total_cpu:.2f} CPU s  {total_msgs / total_cpu:.0f} msgs/CPU-s")
        now, peak = _rss_mb()
        print(f"RSS after import: {now:.0f} MB (peak {peak:.0f} MB)")
    if args.dump:
        Path(args.dump).write_text("\n".join(sorted(lines)) + "\n")
        print(f"{len(lines)} facts dumped to {args.dump}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--dump", help="write the active facts, sorted, to this file")
    ap.add_argument("--warm", action="store_true", help="import a two-message conversation first (model loads)")
    asyncio.run(run(ap.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
