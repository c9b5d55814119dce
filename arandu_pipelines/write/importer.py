"""Batch import of historical conversations: files -> validated rows -> events -> extraction.

One bad row costs only itself: a row that cannot be read or validated is set aside with its row
number and reason (and kept in `memory_quarantine`); every good row goes in. Validation checks
everything PostgreSQL would refuse (NUL characters, lone surrogates, NaN/Infinity, nesting
deeper than 100 levels, timestamps outside years 1-9999), and should the database still refuse a
batch, the batch is split until the refused rows are found and quarantined. Events are inserted
idempotently on (agent_id, message_id) — a row without a message_id gets one from a hash of its
content — so re-importing a file adds nothing; a row whose message_id is already stored with a
different text is reported as a conflict and the stored event kept. Extraction runs per agent in
`occurred_at` order, in chunks that share one embedding batch. Files are read by
`write/import_files.py`.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import exc as sa_exc
from sqlalchemy import text

from arandu_pipelines import validate
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.store.targets import HasEngine
from arandu_pipelines.types import ConflictRow, ImportReport, RejectedRow
from arandu_pipelines.write.events import EventInput, insert_events, mark_failed
from arandu_pipelines.write.import_files import (  # noqa: F401 - re-exported: the reading API
    MAX_DEPTH,
    TOO_DEEP,
    SourceRow,
    guess_format,
    loads_bounded,
    locomo_rows,
    parse_locomo_time,
    read_rows,
    readable,
)
from arandu_pipelines.write.prefetch import UnitPrefetch

if TYPE_CHECKING:
    from arandu_pipelines.write.pipeline import WritePipeline

#: A fresh write pipeline for a config (MemoryClient passes its own; tests may wrap it).
PipelineFactory = Callable[[MemoryConfig], "WritePipeline"]

REQUIRED = ("agent_id", "session_id", "speaker", "text", "occurred_at")
OPTIONAL = ("message_id", "metadata")
INSERT_BATCH = 1000
# An import that stored at least this many messages refreshes the planner's statistics of the
# tables it wrote: until autovacuum gets to them, a freshly filled table has none, and the read
# path's first questions after the import can get plans 10-100x slower (seen: retrieve p95 316 ms
# in the first pass after importing a 419-message conversation, 26 ms once analysed).
ANALYZE_MIN_EVENTS = 200
ANALYZED_TABLES = "memory_events, memory_event_units, memory_facts, memory_entities, memory_vocabulary"
MAX_INT_BITS = 14_000  # ~4 200 digits: Python will not print a longer int as JSON
Progress = Callable[[str, int, int], None]


# ---- validating rows --------------------------------------------------------------------------
def _clean(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    return value


def check_text(field: str, value: str) -> None:
    """Raise ValueError when PostgreSQL could not store `value` (NUL, lone surrogates)."""
    if value == TOO_DEEP:
        raise ValueError(f"{field} is nested deeper than {MAX_DEPTH} levels")
    if "\x00" in value:
        raise ValueError(f"{field} contains a NUL character (\\u0000), which cannot be stored")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        ch = value[exc.start]
        what = "invalid UTF-8" if "\udc80" <= ch <= "\udcff" else "a lone surrogate"
        raise ValueError(f"{field} contains {what} (\\u{ord(ch):04x} at character {exc.start}); "
                         "it is not valid Unicode text") from None


def check_json(field: str, value: Any) -> None:
    """Raise ValueError naming the first thing in `value` that is not storable JSON: a NaN or
    Infinity, an integer too long to print, a NUL or lone surrogate in a key or string, a
    non-string key, nesting deeper than MAX_DEPTH. Iterative, so any depth is safe to walk."""
    stack: list[tuple[Any, str, int]] = [(value, field, 1)]
    while stack:
        v, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{field} is nested deeper than {MAX_DEPTH} levels")
        if isinstance(v, str):
            check_text(path, v)
        elif v is None or isinstance(v, bool):
            continue
        elif isinstance(v, int):
            if v.bit_length() > MAX_INT_BITS:
                raise ValueError(f"{path} is an integer of more than 4000 digits")
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise ValueError(f"{path} is {v!r}: NaN and Infinity are not JSON")
        elif isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ValueError(f"{path} has a {type(k).__name__} key; JSON keys are strings")  # noqa: TRY004 - row data: _reason reports ValueErrors
                check_text(f"{path} key", k)
                stack.append((x, f"{path}.{k[:40]}", depth + 1))
        elif isinstance(v, (list, tuple)):
            stack.extend((x, f"{path}[{i}]", depth + 1) for i, x in enumerate(v))
        else:  # stored as its text (json default=str)
            check_text(path, str(v))


def _id(field: str, value: Any) -> str:
    value = _clean(value)
    if isinstance(value, bool) or value is None:
        raise ValueError(f"missing {field}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{field} must be a string, got {value!r}")
    if isinstance(value, int):
        if value.bit_length() > 256:
            raise ValueError(f"{field} is a number too long for an id")
        value = str(value)
    elif isinstance(value, float):
        value = str(int(value)) if value.is_integer() else str(value)
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")  # noqa: TRY004 - row data: _reason reports ValueErrors
    if not value.strip():
        raise ValueError(f"missing {field}")
    if len(value) > 256:
        raise ValueError(f"{field} longer than 256 characters")
    if "\x00" in value:
        raise ValueError(f"{field} contains a NUL byte")
    check_text(field, value)
    return validate.identifier(field, value)  # the API's rules for ids apply to imported ones too


def _time(value: Any, tz: str) -> datetime:
    value = _clean(value)
    if value is None or value == "":
        raise ValueError("missing occurred_at")
    shown = (f"<integer of {value.bit_length()} bits>" if isinstance(value, int)
             and value.bit_length() > 128 else readable(str(value)[:40]))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"occurred_at {shown} (epoch seconds) is out of range "
                             "(years 1 to 9999)") from None
    if isinstance(value, str):
        check_text("occurred_at", value)
    try:
        return validate.timestamp("occurred_at", value, tz)
    except ValidationError as exc:
        if "out of range" in str(exc):  # parsed, but outside years 1-9999 once in UTC
            raise ValueError(f"occurred_at {shown!r} is out of range (years 1 to 9999)") from exc
        raise ValueError(f"unparseable occurred_at {shown!r}") from exc
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"occurred_at {shown!r} is out of range (years 1 to 9999)") from None


def to_event(row: dict[str, Any], config: MemoryConfig, source: str) -> EventInput:
    """Validate one row; raises ValueError with the reason."""
    missing = [f for f in REQUIRED if f not in row]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    agent_id = _id("agent_id", row["agent_id"])
    session_id = _id("session_id", row["session_id"])
    speaker = _id("speaker", row["speaker"])
    body = _clean(row["text"])
    if not isinstance(body, str):
        raise ValueError(f"text must be a string, got {type(body).__name__}")  # noqa: TRY004 - row data: _reason reports ValueErrors
    if not body.strip():
        raise ValueError("empty text")
    if "\x00" in body:
        raise ValueError("text contains NUL bytes")
    check_text("text", body)
    if len(body) > config.max_message_chars:
        raise ValueError(f"text is {len(body)} characters (limit {config.max_message_chars})")
    occurred = _time(row["occurred_at"], config.timezone)
    if occurred > datetime.now(UTC) + timedelta(days=1):
        raise ValueError(f"occurred_at {occurred.isoformat()} is in the future")
    meta = _clean(row.get("metadata"))
    if isinstance(meta, str):
        check_text("metadata", meta)
        try:
            meta = loads_bounded(meta) if meta.strip() else {}
        except ValueError as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).split(":")[0]
            raise ValueError(f"metadata is not valid JSON: {msg}") from exc
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise ValueError(f"metadata must be a JSON object, got {type(meta).__name__}")  # noqa: TRY004 - row data: _reason reports ValueErrors
    check_json("metadata", meta)
    message_id = _clean(row.get("message_id"))
    # the caller's source labels the events (memory_events.source holds 32 characters)
    event = EventInput(agent_id, body, speaker, occurred, session_id, None, meta, source[:32] or "import")
    event.message_id = _id("message_id", message_id) if message_id not in (None, "") else (
        "sha256:" + event.content_hash[:40])
    return event


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValueError) and not isinstance(exc, UnicodeError):
        return str(exc)
    if isinstance(exc, RecursionError):
        return f"a value is nested deeper than {MAX_DEPTH} levels"
    return f"unusable value ({type(exc).__name__}: {str(exc)[:200]})"


# ---- importing ----------------------------------------------------------------------------------
async def import_rows(
    client: HasEngine,
    rows: Iterable[dict[str, Any] | SourceRow],
    extract: bool,
    source: str,
    config: MemoryConfig,
    chunk_size: int = 64,
    progress: Progress | None = None,
    *,
    pipeline_for: PipelineFactory,
) -> ImportReport:
    t0 = time.perf_counter()
    report = ImportReport()
    events: list[EventInput] = []
    row_of: dict[int, int] = {}  # id(event) -> its row number
    first: dict[tuple[str, str], EventInput] = {}  # (agent_id, message_id) -> first row's event
    repeats: list[EventInput] = []  # later rows of the file with a message_id seen before
    unknown: set[str] = set()
    for i, row in enumerate(rows, start=1):
        src = row if isinstance(row, SourceRow) else SourceRow(i, row)
        report.rows_read += 1
        if src.error:
            report.rows_rejected.append(RejectedRow(src.number, src.error, _preview(src.data)))
            continue
        if not isinstance(src.data, dict):
            report.rows_rejected.append(RejectedRow(
                src.number, f"expected an object, got {type(src.data).__name__}", {}))
            continue
        unknown.update(readable(str(k))[:64] for k in src.data
                       if k not in REQUIRED and k not in OPTIONAL)
        try:
            event = to_event(src.data, config, source)
        except Exception as exc:  # noqa: BLE001 - whatever the value, it costs only its row
            report.rows_rejected.append(RejectedRow(src.number, _reason(exc), _preview(src.data)))
            continue
        row_of[id(event)] = src.number
        key = (event.agent_id, event.message_id or "")
        if key in first:  # the same message twice in one import: the first row is stored
            repeats.append(event)
        else:
            first[key] = event
            events.append(event)
    if unknown:
        report.warnings.append(f"ignored unknown column(s): {', '.join(sorted(unknown))}")
    order = {id(e): n for n, e in enumerate(events)}
    events.sort(key=lambda e: (e.agent_id, e.occurred_at, order[id(e)]))
    refused: set[int] = set()
    for start in range(0, len(events), INSERT_BATCH):
        batch = events[start: start + INSERT_BATCH]
        inserted, bad = await _insert(client, batch)
        report.events_inserted += inserted
        for event, reason in bad:
            refused.add(id(event))
            report.rows_rejected.append(RejectedRow(row_of[id(event)], reason, _event_row(event)))
        if progress:
            progress("stored", min(start + INSERT_BATCH, len(events)), len(events))
    stored = [e for e in events if id(e) not in refused]
    conflicts = await _find_conflicts(client, [e for e in stored if e.event_id is None] + repeats)
    report.conflicts = sorted((ConflictRow(row_of[id(e)], e.agent_id, e.message_id or "", kept,
                                           reason) for e, kept, reason in conflicts),
                              key=lambda c: c.row_number)
    report.rows_rejected.sort(key=lambda r: r.row_number)
    report.events_skipped_duplicate = (report.rows_read - report.events_inserted
                                       - len(report.rows_rejected) - len(report.conflicts))
    await _quarantine(client, source, report.rows_rejected + [
        RejectedRow(row_of[id(e)], reason, _event_row(e)) for e, _, reason in conflicts])
    report.agents = sorted({e.agent_id for e in stored})
    if extract:
        await _resume_unfinished(client, stored)
        new = [e for e in stored if e.event_id]
        by_agent: dict[str, list[EventInput]] = defaultdict(list)
        for e in new:
            by_agent[e.agent_id].append(e)
        done = 0
        groups = [(agent_id, by_agent[agent_id]) for agent_id in sorted(by_agent)]
        async for n in _extract_chunks(client, pipeline_for, groups, config, report, chunk_size):
            done += n
            if progress:
                progress("extracted", done, len(new))
    if report.events_inserted >= ANALYZE_MIN_EVENTS:
        await _refresh_statistics(client)
    report.duration_ms = (time.perf_counter() - t0) * 1000
    return report


async def _refresh_statistics(client: HasEngine) -> None:
    """ANALYZE the tables an import filled (see ANALYZE_MIN_EVENTS). It takes a lock that
    blocks neither reads nor writes, and samples a bounded number of rows per table."""
    async with client.engine.begin() as conn:
        await conn.execute(text("ANALYZE " + ANALYZED_TABLES))


async def _resume_unfinished(client: HasEngine, events: list[EventInput],
                             max_attempts: int = 5) -> None:
    """Rows already stored by an earlier, interrupted import (killed between storing and
    extracting) get their stored event id back when that event is still not extracted, so
    re-running the import finishes the job. Only an identical row (same content hash) resumes; the
    pipeline's `_still_pending` guard keeps this exactly-once against concurrent runners."""
    stored = [e for e in events if e.event_id is None and e.message_id is not None]
    for start in range(0, len(stored), INSERT_BATCH):
        batch = stored[start: start + INSERT_BATCH]
        async with client.engine.connect() as conn:
            found = (
                await conn.execute(
                    text(
                        "SELECT e.id, e.agent_id, e.message_id FROM memory_events e JOIN unnest("
                        "CAST(:a AS text[]), CAST(:m AS text[]), CAST(:h AS text[])) AS k(a, m, h) "
                        "ON e.agent_id = k.a AND e.message_id = k.m AND e.content_hash = k.h "
                        "WHERE e.extraction_status IN ('pending', 'failed') "
                        "AND e.extraction_attempts < :max"
                    ),
                    {"a": [e.agent_id for e in batch], "m": [e.message_id for e in batch],
                     "h": [e.content_hash for e in batch], "max": max_attempts},
                )
            ).all()
        ids = {(r.agent_id, r.message_id): str(r.id) for r in found}
        for e in batch:
            e.event_id = ids.get((e.agent_id, e.message_id))


async def _extract_chunks(
    client: HasEngine, pipeline_for: PipelineFactory, groups: list[tuple[str, list[EventInput]]],
    config: MemoryConfig,
    report: ImportReport, chunk_size: int,
) -> AsyncIterator[int]:
    """Extract each agent's events chunk after chunk (yielding each chunk's size as it lands),
    encoding the next chunks' sentences while the current one is reconciled and written
    (write/prefetch.py). The look-ahead runs across agents, so the encoder does not sit idle
    while one agent's last chunk is written and the next agent's first one is extracted."""
    chunks = [(agent_id, events[i: i + chunk_size])
              for agent_id, events in groups for i in range(0, len(events), chunk_size)]
    prefetch = pipeline_for(config).prefetcher(config)
    ahead = 0
    if prefetch is not None:
        ahead = prefetch.depth
        for _, chunk in chunks[:ahead]:
            prefetch.start(chunk)
    try:
        for i, (agent_id, chunk) in enumerate(chunks):
            then = chunks[i + ahead][1] if ahead and i + ahead < len(chunks) else None
            await _extract_chunk(client, pipeline_for, agent_id, chunk, config, report, prefetch, then)
            yield len(chunk)
    finally:
        if prefetch is not None:
            await prefetch.close()


async def _extract_chunk(
    client: HasEngine, pipeline_for: PipelineFactory, agent_id: str, chunk: list[EventInput],
    config: MemoryConfig, report: ImportReport, prefetch: UnitPrefetch | None, then: list[EventInput] | None,
) -> None:
    try:
        outcome = await pipeline_for(config).run(agent_id, chunk, config,
                                                 prefetch=prefetch, then=then)
    except Exception as exc:  # noqa: BLE001 - fail-safe: events stay stored, marked failed for a later retry
        async with client.engine.begin() as conn:
            await mark_failed(conn, [e.event_id for e in chunk if e.event_id],
                              f"{type(exc).__name__}: {exc}")
        report.extraction_errors.append(f"{agent_id}: {type(exc).__name__}: {str(exc)[:300]}")
        return
    report.events_extracted += outcome.extracted
    report.events_extracted_elsewhere += outcome.skipped_already_done
    # an item of the chunk's upsert that failed (its savepoint rolled back; its message is marked
    # failed and retried), or a message whose extraction failed: reported, never dropped silently
    # once per distinct failure: extract_pending may retry a failed message within one call, and
    # the same failure twice would count as two errors
    seen = set(report.extraction_errors)
    for e in outcome.errors:
        line = f"{agent_id}: {e}"[:500]
        if line not in seen:
            seen.add(line)
            report.extraction_errors.append(line)
    report.tokens_used.add(outcome.tokens.input_tokens, outcome.tokens.output_tokens)
    for step in outcome.trace.steps:
        report.stage_ms[step.name] = report.stage_ms.get(step.name, 0.0) + step.duration_ms
    for m in outcome.messages:
        report.facts_added += len(m.added)
        report.facts_updated += len(m.updated)
        report.facts_unchanged += len(m.unchanged)
        report.facts_deleted += len(m.deleted)
    report.entities_created += outcome.entities_created
    report.relationships_upserted += outcome.relationships_upserted


# Events loaded per query by extract_pending: bounds memory for a limit of a million.
PENDING_BATCH = 10_000


async def extract_pending(
    client: HasEngine, agent_id: str, config: MemoryConfig, limit: int, chunk_size: int,
    max_attempts: int, *, pipeline_for: PipelineFactory,
) -> ImportReport:
    """Extract stored events not yet extracted (new, or failed fewer than max_attempts times),
    at most `limit` of them, loaded `PENDING_BATCH` at a time.

    The one "extract until the limit" loop: the Dagster extraction asset and re-extraction call
    it rather than keeping their own. `limit` bounds the events read (so `events_extracted`
    never exceeds it, however the batches fall); it stops early when nothing is pending or a
    batch extracted nothing (e.g. the LLM is down: the events stay pending for a later run)."""
    t0 = time.perf_counter()
    report = ImportReport(agents=[agent_id])
    while report.rows_read < limit:
        events = await _pending_events(client, agent_id, max_attempts,
                                       min(PENDING_BATCH, limit - report.rows_read))
        if not events:
            break
        report.rows_read += len(events)
        before = report.events_extracted
        async for _ in _extract_chunks(client, pipeline_for, [(agent_id, events)], config, report,
                                       chunk_size):
            pass
        if report.events_extracted == before:
            break
    report.duration_ms = (time.perf_counter() - t0) * 1000
    return report


async def _pending_events(client: HasEngine, agent_id: str, max_attempts: int,
                          limit: int) -> list[EventInput]:
    """The agent's oldest events waiting for extraction, at most `limit`, each with the
    conversation context it was written with (`trace_json`; events stored before that column
    was used kept it in metadata `_recent_messages`)."""
    async with client.engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT id, agent_id, session_id, speaker, message_id, text, occurred_at, "
                    "metadata, source, COALESCE(trace_json->'recent_messages', "
                    "metadata->'_recent_messages') AS recent FROM memory_events WHERE agent_id = :a "
                    "AND extraction_status IN ('pending', 'failed') AND extraction_attempts < :m "
                    "ORDER BY occurred_at, id LIMIT :lim"
                ),
                {"a": agent_id, "m": max_attempts, "lim": limit},
            )
        ).all()
    return [
        EventInput(r.agent_id, r.text, r.speaker or "unknown", r.occurred_at, r.session_id,
                   r.message_id, dict(r.metadata or {}), r.source, str(r.id),
                   recent_messages=_strings(r.recent))
        for r in rows
    ]


def _strings(value: Any) -> list[str]:
    """A stored context list as strings (anything else, e.g. a hand-edited row, is no context)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


# Errors that mean the database refused the data of some row of the statement (not that it is
# unreachable): the batch is split to find that row. An OperationalError is not one of them.
_ROW_ERRORS = (sa_exc.DataError, sa_exc.IntegrityError, sa_exc.ProgrammingError,
               sa_exc.StatementError, UnicodeError, ValueError, TypeError)


async def _insert(client: HasEngine, batch: list[EventInput]
                  ) -> tuple[int, list[tuple[EventInput, str]]]:
    """Insert a batch in one statement; should the database refuse it (a value validation did
    not foresee), insert its halves, down to the single rows it refuses: those are returned
    with the reason, every other row is stored. A connection failure is raised as is."""
    try:
        async with client.engine.begin() as conn:
            return await insert_events(conn, batch), []
    except sa_exc.OperationalError:
        raise
    except _ROW_ERRORS as exc:
        if len(batch) == 1:
            batch[0].event_id = None
            return 0, [(batch[0], f"refused by the database: {_db_message(exc)}")]
    mid = len(batch) // 2
    n1, bad1 = await _insert(client, batch[:mid])
    n2, bad2 = await _insert(client, batch[mid:])
    return n1 + n2, bad1 + bad2


def _db_message(exc: BaseException) -> str:
    """The driver's own first line (SQLAlchemy's text would carry the whole statement)."""
    orig = getattr(exc, "orig", None) or exc
    lines = str(orig).strip().splitlines()
    return readable(lines[0] if lines else type(orig).__name__)[:300]


async def _find_conflicts(client: HasEngine, events: list[EventInput]
                          ) -> list[tuple[EventInput, str | None, str]]:
    """Of rows not inserted because their (agent_id, message_id) is stored already, those
    whose text differs from the stored one: (row's event, stored event id, reason). The stored
    event is left as it is."""
    out: list[tuple[EventInput, str | None, str]] = []
    for start in range(0, len(events), INSERT_BATCH):
        batch = [e for e in events[start: start + INSERT_BATCH] if e.message_id]
        if not batch:
            continue
        async with client.engine.connect() as conn:
            found = (await conn.execute(
                text("SELECT e.id, e.agent_id, e.message_id, e.text FROM memory_events e JOIN "
                     "(SELECT DISTINCT a, m FROM unnest(CAST(:a AS text[]), CAST(:m AS text[])) "
                     "AS k(a, m)) k ON e.agent_id = k.a AND e.message_id = k.m"),
                {"a": [e.agent_id for e in batch], "m": [e.message_id for e in batch]},
            )).all()
        stored = {(r.agent_id, r.message_id): (str(r.id), r.text) for r in found}
        for e in batch:
            kept = stored.get((e.agent_id, e.message_id or ""))
            if kept is not None and kept[1] != e.text:
                out.append((e, kept[0],
                            (f"conflict: message_id {e.message_id!r} is already stored for agent "
                            f"{e.agent_id!r} with a different text; the stored message is kept "
                            "(events are immutable)")))
    return out


async def stored_message(conn: Any, agent_id: str, message_id: str) -> tuple[str, str] | None:
    """(event id, text) of the agent's stored message with this message_id, if any."""
    row = (await conn.execute(
        text("SELECT id, text FROM memory_events WHERE agent_id = :a AND message_id = :m"),
        {"a": agent_id, "m": message_id})).first()
    return (str(row.id), row.text) if row is not None else None


async def _quarantine(client: HasEngine, source: str, rejected: list[RejectedRow]) -> None:
    if not rejected:
        return
    async with client.engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO memory_quarantine (agent_id, source, row_number, reason, payload) "
                "SELECT * FROM unnest(CAST(:a AS text[]), CAST(:s AS text[]), CAST(:n AS int[]), "
                "CAST(:r AS text[]), CAST(:p AS jsonb[])) AS k(a, s, n, r, p) "
                # re-importing the same source quarantines its bad rows once, not once per run
                "WHERE NOT EXISTS (SELECT 1 FROM memory_quarantine q WHERE q.source = k.s "
                "AND q.row_number IS NOT DISTINCT FROM k.n AND q.reason = k.r AND q.payload = k.p "
                "AND q.agent_id IS NOT DISTINCT FROM k.a)"
            ),
            {
                "a": [_agent_of(r.row) for r in rejected],
                "s": [_storable(source)[:512]] * len(rejected),
                "n": [r.row_number for r in rejected],
                "r": [_storable(r.reason) for r in rejected],
                "p": [json.dumps(_preview(r.row), ensure_ascii=False, allow_nan=False)
                      for r in rejected],
            },
        )


def _agent_of(row: dict[str, Any]) -> str | None:
    try:
        return _id("agent_id", row.get("agent_id"))
    except Exception:  # noqa: BLE001 - a row that names no usable agent is kept without one
        return None


def _storable(value: str) -> str:
    """Text PostgreSQL accepts: no NUL, no surrogates (shown as \\0 and U+FFFD)."""
    return readable(value.replace("\x00", "\\0"))


def _preview(data: Any) -> dict[str, Any]:
    """The first fields of a rejected row, cut short and made storable whatever they held, so
    quarantining a row never fails on the very value that got it rejected."""
    if not isinstance(data, dict):
        return {"value": _storable(str(data))[:500]}
    out: dict[str, Any] = {}
    for k, v in list(data.items())[:12]:
        v = _clean(v)
        if isinstance(v, float) and not math.isfinite(v):
            v = repr(v)
        elif isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
            v = f"<integer of {v.bit_length()} bits>"  # str() refuses past 4 300 digits
        elif isinstance(v, str):
            v = _storable(v[:500])
        elif not isinstance(v, (int, float, bool, type(None))):
            v = _storable(_short_repr(v))
        out[_storable(str(k))[:64]] = v
    return out


def _short_repr(value: Any) -> str:
    """`str(value)`, at most 500 characters, without recursing through deep nesting."""
    if isinstance(value, (dict, list, tuple)):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)[:500]
        except (RecursionError, ValueError, TypeError):
            return f"<{type(value).__name__} too deep or not JSON>"
    try:
        return str(value)[:500]
    except Exception:  # noqa: BLE001
        return f"<{type(value).__name__}>"


def _event_row(event: EventInput) -> dict[str, Any]:
    return _preview({"agent_id": event.agent_id, "session_id": event.session_id,
                     "speaker": event.speaker, "text": event.text,
                     "occurred_at": event.occurred_at.isoformat(), "message_id": event.message_id,
                     "metadata": event.metadata})
