"""Ingest benchmark: end-to-end offline import vs the raw embedding throughput of the same messages.

Embedding every message is the physical floor of the work, so the figure that matters is the
ratio: end-to-end messages/second divided by raw embedding messages/second, both measured in
this run on this machine. Target: >= 0.8.

    python bench/ingest.py [../shared/data/locomo-dev/conv-26.json ...] [--chunk-size 64]

Uses DATABASE_URL if set, else the embedded server, in a database of its own that is recreated
for every round and dropped after it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

# What the library used to set in the environment itself (issue 17): the bench owns its process.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo-dev"
BENCH_DB = "arandu_bench_ingest"


def _admin_url() -> str:
    base = os.environ.get("DATABASE_URL")
    if not base:
        from arandu_pipelines.store.embedded import start_server

        base = start_server().get_uri("postgres")
    return base.replace("postgresql+psycopg://", "postgresql://")


def bench_database_url() -> str:
    import psycopg

    admin = _admin_url()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    return urlunsplit(urlsplit(admin)._replace(path="/" + BENCH_DB))


def drop_bench_database() -> None:
    """After a round: nothing of it (autovacuum of its fresh tables) runs during the next raw
    measurement."""
    import psycopg

    with psycopg.connect(_admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


def raw_embedding_rate(embeddings, texts: list[str]) -> float:
    """The issue's baseline: sentence-transformers' standard encode() of the message texts
    (batch 32, sorted by length, eager torch)."""
    t0 = time.perf_counter()
    embeddings.encode(texts)
    return len(texts) / (time.perf_counter() - t0)


def own_encoder_rate(embeddings, texts: list[str]) -> float:
    """The same texts through the import's own encoder (encode_units: rows packed to 128 tokens,
    the fused TorchScript graph, one-thread workers), each message one plain unit with no speaker
    head: the fastest way this code embeds them, so the import's overhead over its own floor."""
    t0 = time.perf_counter()
    embeddings.encode_units([("", [t]) for t in texts])
    return len(texts) / (time.perf_counter() - t0)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--chunk-size", type=int, default=64)
    parser.add_argument("--embedding-mode", default="packed", choices=["packed", "sentences"],
                        help="MemoryConfig.embedding_mode for the import")
    parser.add_argument("--rounds", type=int, default=5,
                        help="raw and end-to-end runs alternate this many times; medians reported")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads for every encode, raw and end-to-end alike "
                             "(0: torch's default, one per core)")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    files = args.files or sorted(DEFAULT_DATA.glob("*.json"))
    if not files:
        sys.exit(f"no LoCoMo files given and none found in {DEFAULT_DATA}")

    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.providers.local_embeddings import LocalEmbeddings
    from arandu_pipelines.write.importer import locomo_rows

    rows = [r for f in files for r in locomo_rows(f)]
    texts = [r["text"] for r in rows]
    embeddings = LocalEmbeddings()
    embeddings.warm_up(queries=False)  # model load is not part of either figure; no query path

    raws: list[float] = []
    owns: list[float] = []
    e2es: list[float] = []
    for _ in range(args.rounds):
        raws.append(raw_embedding_rate(embeddings, texts))
        owns.append(own_encoder_rate(embeddings, texts))
        url = bench_database_url()  # a fresh database per round
        memory = MemoryClient(url, embeddings=embeddings)
        await memory.initialize()
        t0 = time.perf_counter()
        report = await memory.import_messages(
            rows, extract=True, chunk_size=args.chunk_size,
            config_overrides={"embedding_mode": args.embedding_mode})
        elapsed = time.perf_counter() - t0
        e2es.append(len(rows) / elapsed)
        stats = {}
        for agent in report.agents:
            for table, n in (await memory.stats(agent)).items():
                stats[table] = stats.get(table, 0) + n
        await memory.close()
        drop_bench_database()
    raws.append(raw_embedding_rate(embeddings, texts))
    owns.append(own_encoder_rate(embeddings, texts))

    raw = statistics.median(raws)
    own = statistics.median(owns)
    e2e = statistics.median(e2es)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"files: {', '.join(f.name for f in files)}")
    print(f"messages: {len(rows)} (stored {report.events_inserted}, extracted {report.events_extracted}, "
          f"rejected {len(report.rows_rejected)})")
    print(f"facts: added {report.facts_added}, updated {report.facts_updated}, "
          f"unchanged {report.facts_unchanged}, deleted {report.facts_deleted}; "
          f"entities {stats.get('memory_entities', 0)}, relationships "
          f"{stats.get('memory_entity_relationships', 0)}, links {stats.get('memory_fact_entity_links', 0)}")
    print(f"end-to-end import:        {e2e:8.1f} messages/s (median of {', '.join(f'{x:.1f}' for x in e2es)}; "
          f"chunk {args.chunk_size}, embedding_mode {args.embedding_mode})")
    print(f"raw embedding throughput: {raw:8.1f} messages/s (median of {', '.join(f'{x:.1f}' for x in raws)})")
    print(f"ratio end-to-end / raw:   {e2e / raw:8.2f}  (target >= 0.80)")
    print(f"same texts, import's own encoder: {own:8.1f} messages/s (median of "
          f"{', '.join(f'{x:.1f}' for x in owns)}); end-to-end / it: {e2e / own:.2f}")
    print(f"peak memory (RSS):        {peak_mb:8.0f} MB")
    total = sum(report.stage_ms.values()) or 1.0
    print("time per stage (last round): " + ", ".join(
        f"{k} {v / 1000:.2f}s ({100 * v / total:.0f}%)" for k, v in report.stage_ms.items()))
    if report.extraction_errors:
        print("extraction errors:", *report.extraction_errors[:5], sep="\n  ")


if __name__ == "__main__":
    asyncio.run(main())
