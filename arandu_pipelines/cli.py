"""`arandu-pipelines` command line: import files, run the example, ask memory, run Dagster."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_conversation.jsonl"


def _progress() -> Any:
    last = [0.0]

    def show(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] > 0.5:
            last[0] = now
            end = "\n" if done == total else ""
            print(f"\r  {stage}: {done}/{total} messages", end=end, file=sys.stderr, flush=True)

    return show


async def _import(args: argparse.Namespace) -> int:
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.write.importer import locomo_rows, read_rows

    async with MemoryClient(args.database_url) as memory:
        if args.format == "locomo":
            rows = locomo_rows(args.file, agent_id=args.agent_id)
        else:
            rows = list(read_rows(args.file, args.format))
        report = await memory.import_messages(rows, extract=not args.no_extract,
                                              source=str(args.file), progress=_progress())
    _print_report(report)
    return 0 if not report.extraction_errors else 1


def _print_report(report: Any) -> None:
    print(f"rows read: {report.rows_read}, stored: {report.events_inserted}, "
          f"already present: {report.events_skipped_duplicate}, rejected: {len(report.rows_rejected)}")
    for r in report.rows_rejected[:50]:
        print(f"  row {r.row_number}: {r.reason}")
    if len(report.rows_rejected) > 50:
        print(f"  ... and {len(report.rows_rejected) - 50} more (see table memory_quarantine)")
    for w in report.warnings:
        print(f"warning: {w}")
    print(f"extracted: {report.events_extracted} messages -> facts added {report.facts_added}, "
          f"updated {report.facts_updated}, unchanged {report.facts_unchanged}, deleted "
          f"{report.facts_deleted}; entities created {report.entities_created}; "
          f"relationships {report.relationships_upserted}; {report.duration_ms / 1000:.1f}s")
    for e in report.extraction_errors:
        print(f"extraction error: {e}")


async def _example(args: argparse.Namespace) -> int:
    """The README's main job: import the bundled sample conversation and show memory."""
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.write.importer import read_rows

    async with MemoryClient(args.database_url) as memory:
        rows = list(read_rows(EXAMPLE))
        agent = rows[0].data["agent_id"]
        if args.fresh:
            await memory.delete_all(agent)
        report = await memory.import_messages(rows, source="examples/sample_conversation.jsonl",
                                              progress=_progress())
        _print_report(report)
        await print_memory(memory, agent)
    return 0


async def print_memory(memory: Any, agent: str) -> None:
    print(f"\n=== What memory holds for agent {agent!r} ===")
    print("\nEntities:")
    for e in await memory.entities(agent, limit=100):
        aliases = [a for a in e.aliases if a != e.display_name]
        extra = f" (aliases: {', '.join(aliases)})" if aliases else ""
        print(f"  [{e.entity_type}] {e.display_name}{extra} — {e.fact_count} facts")
    print("\nActive facts:")
    for f in sorted(await memory.get_all(agent, limit=500), key=lambda f: (f.valid_from, f.fact_text)):
        print(f"  {f.valid_from:%Y-%m-%d} [{f.entity_name}] {f.fact_text}  (conf {f.confidence:.2f})")
    from sqlalchemy import text

    async with memory.engine.connect() as conn:
        closed = (await conn.execute(text(
            "SELECT fact_text, valid_from, valid_to FROM memory_facts WHERE agent_id = :a "
            "AND valid_to IS NOT NULL ORDER BY valid_from"), {"a": agent})).all()
        rels = (await conn.execute(text(
            "SELECT source_entity_key, rel_type, target_entity_key, strength, valid_to FROM "
            "memory_entity_relationships WHERE agent_id = :a ORDER BY valid_to NULLS FIRST, 1, 2, 3"),
            {"a": agent})).all()
    print("\nSuperseded or retracted facts (history):")
    for r in closed:
        print(f"  {r.valid_from:%Y-%m-%d} .. {r.valid_to:%Y-%m-%d}  {r.fact_text}")
    print("\nRelationships:")
    for r in rels:
        state = "active" if r.valid_to is None else f"ended {r.valid_to:%Y-%m-%d}"
        print(f"  {r.source_entity_key} --{r.rel_type}--> {r.target_entity_key} "
              f"(strength {r.strength:.2f}, {state})")


async def _retrieve(args: argparse.Namespace) -> int:
    from arandu_pipelines.client import MemoryClient

    async with MemoryClient(args.database_url) as memory:
        result = await memory.retrieve(args.agent_id, args.query, session_id=args.session,
                                       verbose=args.verbose)
    if args.json:
        import dataclasses

        print(json.dumps(dataclasses.asdict(result), default=str, indent=2, ensure_ascii=False))
        return 0
    print(result.context or "(nothing relevant in memory)")
    print(f"\n{len(result.facts)} facts, {len(result.sources)} sources, {result.duration_ms:.1f} ms",
          file=sys.stderr)
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0


async def _stats(args: argparse.Namespace) -> int:
    from arandu_pipelines.client import MemoryClient

    async with MemoryClient(args.database_url) as memory:
        if args.show:
            await print_memory(memory, args.agent_id)
        else:
            for table, n in (await memory.stats(args.agent_id)).items():
                print(f"{table:32s} {n}")
    return 0


async def _forget(args: argparse.Namespace) -> int:
    """Erase selected messages of one agent and everything derived from them."""
    from arandu_pipelines.client import MemoryClient

    async with MemoryClient(args.database_url) as memory:
        report = await memory.delete_messages(args.agent_id, speaker=args.speaker,
                                              message_ids=args.message_id, session_id=args.session)
    for table, n in sorted(report.rows.items()):
        print(f"deleted  {table:32s} {n}")
    for what, n in report.updated.items():
        print(f"repaired {what:32s} {n}")
    return 0


def _dev(args: argparse.Namespace) -> int:
    from arandu_pipelines.devserver import run_dev

    return run_dev(host=args.host, port=args.port, demo=args.command == "demo")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arandu-pipelines", description=__doc__)
    p.add_argument("--database-url", default=None,
                   help="PostgreSQL URL (default: $DATABASE_URL, else the embedded server)")
    sub = p.add_subparsers(dest="command", required=True)

    imp = sub.add_parser("import", help="import a JSONL / CSV / Parquet / LoCoMo file")
    imp.add_argument("file", type=Path)
    imp.add_argument("--format", default="auto", choices=["auto", "jsonl", "csv", "parquet", "locomo"])
    imp.add_argument("--agent-id", default=None, help="agent id for LoCoMo files")
    imp.add_argument("--no-extract", action="store_true",
                     help="store events only; leave extraction to the Dagster sensor")
    imp.add_argument("--low-priority", action="store_true",
                     help="run as batch work: lower this process's CPU priority "
                     "(ARANDU_BATCH_NICE, default 10) so processes serving retrieve() come first")

    ex = sub.add_parser("example", help="import the bundled sample conversation and show memory")
    ex.add_argument("--fresh", action="store_true", help="erase the sample agent first")

    ret = sub.add_parser("retrieve", help="ask an agent's memory")
    ret.add_argument("agent_id")
    ret.add_argument("query")
    ret.add_argument("--session", default=None)
    ret.add_argument("--json", action="store_true")
    ret.add_argument("--verbose", action="store_true")

    st = sub.add_parser("stats", help="row counts of an agent (--show: facts, entities, edges)")
    st.add_argument("agent_id")
    st.add_argument("--show", action="store_true")

    fg = sub.add_parser("forget", help="erase one speaker's (or a session's, or given) messages "
                        "and every row derived from them")
    fg.add_argument("agent_id")
    fg.add_argument("--speaker", default=None, help="speaker name (case-insensitive)")
    fg.add_argument("--message-id", action="append", default=None,
                    help="a message id (repeatable)")
    fg.add_argument("--session", default=None, help="session id")

    for name in ("dev", "demo"):
        d = sub.add_parser(name, help="run Dagster (webserver + daemon) on the embedded database"
                           + (" and drop the sample conversation in the import directory" if name == "demo" else ""))
        d.add_argument("--host", default="127.0.0.1")
        d.add_argument("--port", type=int, default=3000)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from arandu_pipelines.errors import MemoryError

    try:
        if args.command in ("dev", "demo"):
            return _dev(args)
        if args.command == "import" and args.low_priority:
            # batch work: yield the CPU to processes serving retrieve() (ARANDU_BATCH_NICE, 0 = off);
            # before the event loop and torch start threads, so they all inherit it
            from arandu_pipelines.store.engine import start_batch_process

            try:
                start_batch_process(args.database_url)   # the embedded server first, at normal priority
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
        handler = {"import": _import, "example": _example, "retrieve": _retrieve, "stats": _stats,
                   "forget": _forget}
        return asyncio.run(handler[args.command](args))
    except MemoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
