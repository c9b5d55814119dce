"""arandu-pipelines: long-term memory for AI agents on PostgreSQL + pgvector.

Import conversations, ask an agent's memory, erase what must be forgotten, and run the Dagster
pipelines (UI on http://127.0.0.1:3000).

exit status: 0 everything succeeded; 1 partly done (some rows rejected and quarantined, or some
messages failed extraction and will be retried); 2 usage or input error (bad arguments, unknown
agent, unreadable or invalid file, invalid setting).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_conversation.jsonl"

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in what the user asked for (exit status 2), e.g. an agent with no memory."""


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("arandu-pipelines")
    except PackageNotFoundError:   # running from a source tree that is not installed
        return "0+unknown"


def _quiet(verbose: bool) -> None:
    """Quiet by default: no library warnings, model-loading progress bars or INFO logs on the
    terminal; `-v` shows them. The CLI owns its process, so it may set this process-wide."""
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
        return
    from arandu_pipelines.settings import apply_process_env

    warnings.simplefilter("ignore")
    apply_process_env({"TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
                       "TRANSFORMERS_VERBOSITY": "error", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"})
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")


async def _known_agent(memory: Any, agent_id: str) -> None:
    """Commands about one agent refuse an agent that has no memory at all (likely a typo)."""
    if not any((await memory.stats(agent_id)).values()):
        raise UsageError(f"unknown agent {agent_id!r}: nothing is stored for it (check the id; "
                         "agents appear with their first message)")


def _progress(verbose: bool) -> Any:
    if not verbose:
        return None
    last = [0.0]

    def show(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] > 0.5:
            last[0] = now
            end = "\n" if done == total else ""
            print(f"\r  {stage}: {done}/{total} messages", end=end, file=sys.stderr, flush=True)

    return show


async def _import(args: argparse.Namespace) -> int:
    from arandu_pipelines.client import MemoryClient, validate_id
    from arandu_pipelines.write.importer import guess_format, read_rows

    if args.agent_id is not None:
        # checked here, not per row: a bad --agent-id is one usage error, not N rejected rows.
        # It used to be ignored unless --format locomo was given (a .json file detected as
        # LoCoMo went to locomo-<stem>, reported "already present" when that agent had it)
        validate_id("--agent-id", args.agent_id)
        kind = args.format if args.format != "auto" else guess_format(args.file)
        if kind != "locomo":
            raise UsageError(f"--agent-id names the agent of a LoCoMo file (which has none); "
                             f"{args.file.name} is read as {kind or 'an unknown format'}, whose rows "
                             "carry their own agent_id column")
    async with MemoryClient(args.database_url) as memory:
        rows = list(read_rows(args.file, args.format, agent_id=args.agent_id))
        report = await memory.import_messages(rows, extract=not args.no_extract,
                                              source=f"cli:{args.file.name}"[:32],
                                              progress=_progress(args.verbose))
    _print_report(report, args.verbose)
    return report_status(report)


def report_status(report: Any) -> int:
    """0 when every row went in (and was extracted), 1 when some rows were rejected (kept in
    memory_quarantine) or some messages failed extraction (retried later)."""
    rejected = len(getattr(report, "rows_rejected", []) or [])
    quarantined = int(getattr(report, "rows_quarantined", 0) or 0)
    if rejected or quarantined or getattr(report, "extraction_errors", None):
        return EXIT_PARTIAL
    return EXIT_OK


def _print_report(report: Any, verbose: bool = False) -> None:
    print(f"rows read: {report.rows_read}, stored: {report.events_inserted}, "
          f"already present: {report.events_skipped_duplicate}, rejected: {len(report.rows_rejected)}")
    shown = report.rows_rejected if verbose else report.rows_rejected[:50]
    for r in shown:
        print(f"  row {r.row_number}: {r.reason}")
    if len(report.rows_rejected) > len(shown):
        print(f"  ... and {len(report.rows_rejected) - len(shown)} more (-v lists all; "
              "table memory_quarantine keeps them)")
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)
    elsewhere = getattr(report, "events_extracted_elsewhere", 0)
    errors = report.extraction_errors
    if not report.events_extracted and not report.facts_added and not elsewhere and not errors \
            and not verbose:
        return
    # messages a concurrent runner (e.g. `arandu dev`'s extraction sensor) extracted first are
    # done too: said so, instead of a bare "extracted: 0" that reads as if nothing was
    also = f" (+ {elsewhere} already extracted by another runner, e.g. `arandu dev`)" if elsewhere else ""
    print(f"extracted: {report.events_extracted} messages{also} -> facts added {report.facts_added}, "
          f"updated {report.facts_updated}, unchanged {report.facts_unchanged}, deleted "
          f"{report.facts_deleted}; entities created {report.entities_created}; "
          f"relationships {report.relationships_upserted}; {report.duration_ms / 1000:.1f}s")
    for e in errors:
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
                                              progress=_progress(args.verbose))
        _print_report(report, args.verbose)
        await print_memory(memory, agent)
    return report_status(report)


async def print_memory(memory: Any, agent: str) -> None:
    print(f"\n=== What memory holds for agent {agent!r} ===")
    print("\nEntities:")
    for e in await memory.entities(agent, limit=100):
        aliases = [a for a in e.aliases if a != e.display_name]
        extra = f" (aliases: {', '.join(aliases)})" if aliases else ""
        print(f"  [{e.entity_type}] {e.display_name}{extra} — {e.fact_count} facts")
    print("\nActive facts:")
    for f in sorted(await memory.get_all(agent, limit=500), key=lambda f: (f.valid_from, f.fact_text)):
        said_again = f", confirmed by {len(f.confirmed_event_ids)} later message(s)" if f.confirmed_event_ids else ""
        print(f"  {f.valid_from:%Y-%m-%d} [{f.entity_name}] {f.fact_text}  (conf {f.confidence:.2f}{said_again})")
    from arandu_pipelines.store.entity_queries import relationships
    from arandu_pipelines.store.facts_queries import closed_facts

    async with memory.engine.connect() as conn:
        closed = await closed_facts(conn, agent)
        rels = await relationships(conn, agent)
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
        await _known_agent(memory, args.agent_id)
        result = await memory.retrieve(args.agent_id, args.query, session_id=args.session,
                                       verbose=args.verbose)
    if args.json:
        import dataclasses

        print(json.dumps(dataclasses.asdict(result), default=str, indent=2, ensure_ascii=False))
        return 0
    print(result.context or "(nothing relevant in memory)")
    print(f"\n{len(result.facts)} facts, {len(result.sources)} sources, {result.duration_ms:.1f} ms",
          file=sys.stderr)
    if args.verbose:
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
    return 0


async def _stats(args: argparse.Namespace) -> int:
    from arandu_pipelines.client import MemoryClient

    async with MemoryClient(args.database_url) as memory:
        await _known_agent(memory, args.agent_id)
        if args.show:
            await print_memory(memory, args.agent_id)
        else:
            for table, n in (await memory.stats(args.agent_id)).items():
                print(f"{table:32s} {n}")
    return 0


async def _forget(args: argparse.Namespace) -> int:
    """Erase selected messages of one agent and everything derived from them, or (with
    --agent and no selector) the whole agent."""
    from arandu_pipelines.client import MemoryClient

    selectors = (args.speaker, args.message_id, args.session)
    if args.agent_id and args.agent:
        raise UsageError("give the agent once: `forget AGENT --speaker ...` erases part of an "
                         "agent, `forget --agent AGENT` erases all of it")
    if args.agent and any(s is not None for s in selectors):
        raise UsageError("--agent erases the whole agent; to erase part of it use "
                         "`forget AGENT --speaker NAME` (or --session / --message-id)")
    if args.agent_id and not any(s is not None for s in selectors):
        raise UsageError("say what to forget: --speaker, --session or --message-id "
                         f"(or `forget --agent {args.agent_id}` to erase the whole agent)")
    agent = args.agent or args.agent_id
    if not agent:
        raise UsageError("name the agent: `forget AGENT --speaker NAME` or `forget --agent AGENT`")
    async with MemoryClient(args.database_url) as memory:
        await _known_agent(memory, agent)
        if args.agent:
            report = await memory.delete_all(agent)
        else:
            report = await memory.delete_messages(agent, speaker=args.speaker,
                                                  message_ids=args.message_id, session_id=args.session)
    print(f"agent {agent}: {'erased' if args.agent else 'forgot the selected messages'}")
    for table, n in sorted(report.rows.items()):
        print(f"deleted  {table:32s} {n}")
    for what, n in getattr(report, "updated", {}).items():
        print(f"repaired {what:32s} {n}")
    return EXIT_OK


def _dev(args: argparse.Namespace) -> int:
    from arandu_pipelines.devserver import run_dev

    return run_dev(host=args.host, port=args.port, demo=args.command == "demo")


def _port(value: str) -> int:
    """A TCP port, checked here: an out-of-range port used to start the embedded server and
    Dagster before Dagster itself failed."""
    try:
        port = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be a whole number 1-65535, not {value!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 1-65535, not {port}")
    return port


def _host(value: str) -> str:
    """An interface name or address: not empty, no whitespace or control characters."""
    if not value or any(c.isspace() or not c.isprintable() or "\ud800" <= c <= "\udfff" for c in value):
        raise argparse.ArgumentTypeError(f"host must be an interface name or address such as "
                                         f"127.0.0.1, not {value!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arandu-pipelines", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                   help="print the version and exit")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--database-url", default=argparse.SUPPRESS, metavar="URL",
                        help="PostgreSQL URL (default: $DATABASE_URL, else the embedded server "
                        "in $ARANDU_HOME)")
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="show details: progress, warnings, logs, every rejected row")
    p.add_argument("--database-url", default=None, metavar="URL",
                   help="PostgreSQL URL (default: $DATABASE_URL, else the embedded server in $ARANDU_HOME)")
    p.add_argument("-v", "--verbose", action="store_true", default=False,
                   help="show details: progress, warnings, logs, every rejected row")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    imp = sub.add_parser("import", parents=[common], help="import a JSONL / CSV / Parquet / LoCoMo file",
                         description="Store every good row of a conversation file as events (bad "
                         "rows are reported and kept in memory_quarantine) and extract them.")
    imp.add_argument("file", type=Path, help="the file to import")
    imp.add_argument("--format", default="auto", choices=["auto", "jsonl", "csv", "parquet", "locomo"],
                     help="file format (default: from the file name)")
    imp.add_argument("--agent-id", default=None, help="agent id for LoCoMo files (they have none; other formats carry an "
                     "agent_id column, so it is refused for them)")
    imp.add_argument("--no-extract", action="store_true",
                     help="store events only; leave extraction to the Dagster sensor")
    imp.add_argument("--low-priority", action="store_true",
                     help="run as batch work: lower this process's CPU priority "
                     "(ARANDU_BATCH_NICE, default 10) so processes serving retrieve() come first")

    ex = sub.add_parser("example", parents=[common],
                        help="import the bundled sample conversation and show memory",
                        description="Import examples/sample_conversation.jsonl (agent "
                        "sample-rafael) and print the entities, facts and relationships it gave.")
    ex.add_argument("--fresh", action="store_true", help="erase the sample agent first")

    ret = sub.add_parser("retrieve", parents=[common], help="ask an agent's memory",
                         description="Print the memory context an agent would get for a query.")
    ret.add_argument("agent_id", metavar="AGENT", help="the agent whose memory to ask")
    ret.add_argument("query", help="the question or message, in quotes")
    ret.add_argument("--session", default=None, help="the current session id (session context)")
    ret.add_argument("--json", action="store_true", help="print the whole result as JSON")

    st = sub.add_parser("stats", parents=[common], help="row counts of an agent (--show: its memory)",
                        description="Row counts per memory table for one agent.")
    st.add_argument("agent_id", metavar="AGENT", help="the agent")
    st.add_argument("--show", action="store_true", help="print entities, facts and relationships")

    fg = sub.add_parser("forget", parents=[common],
                        help="erase an agent, or some of its messages, and all derived from them",
                        description="`forget --agent AGENT` erases the whole agent; `forget AGENT "
                        "--speaker NAME` (or --session / --message-id) erases those messages and "
                        "every fact, entity, edge and summary derived only from them. Prints what "
                        "was deleted and repaired.")
    fg.add_argument("agent_id", nargs="?", default=None, metavar="AGENT",
                    help="the agent to erase messages of (with a selector below)")
    fg.add_argument("--agent", default=None, metavar="AGENT",
                    help="erase this whole agent (every table)")
    fg.add_argument("--speaker", default=None, help="speaker name (case-insensitive)")
    fg.add_argument("--message-id", action="append", default=None,
                    help="a message id (repeatable)")
    fg.add_argument("--session", default=None, help="session id")

    for name in ("dev", "demo"):
        d = sub.add_parser(name, parents=[common],
                           help="run Dagster (webserver + daemon) on the embedded database"
                           + (" and drop the sample conversation in the import directory" if name == "demo" else ""),
                           description="Start the embedded PostgreSQL and Dagster with the "
                           "repository's dagster.yaml; Ctrl-C or SIGTERM stops everything.")
        d.add_argument("--host", type=_host, default="127.0.0.1", help="interface of the UI (default: loopback only)")
        d.add_argument("--port", type=_port, default=3000, help="port of the UI (default 3000)")
    return p


def main(argv: list[str] | None = None) -> int:
    """The console script. Returns the exit status (see the module docstring)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:   # --help / --version (0) or a usage error (2), as an int
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    from arandu_pipelines.settings import apply_process_env

    apply_process_env()   # the CLI owns its process: OMP_WAIT_POLICY etc. before torch loads
    _quiet(args.verbose)
    from arandu_pipelines.errors import MemoryError, ValidationError

    try:
        if getattr(args, "database_url", None) is not None and not args.database_url.strip():
            # an empty URL used to fall back silently to $DATABASE_URL or the embedded server
            raise UsageError("--database-url is empty: give a PostgreSQL URL "
                             "(postgresql://user:pass@host/db) or leave the option out")
        if args.command in ("dev", "demo"):
            return _dev(args)
        if args.command == "import" and args.low_priority:
            # batch work: yield the CPU to processes serving retrieve() (ARANDU_BATCH_NICE, 0 = off);
            # before the event loop and torch start threads, so they all inherit it
            from arandu_pipelines.store.engine import start_batch_process

            start_batch_process(args.database_url)   # the embedded server first, at normal priority
        handler = {"import": _import, "example": _example, "retrieve": _retrieve, "stats": _stats,
                   "forget": _forget}
        return asyncio.run(handler[args.command](args))
    except (UsageError, ValidationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"error: cannot read {exc.filename or 'the file'}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as exc:   # e.g. an invalid ARANDU_BATCH_NICE, an unknown file format
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
