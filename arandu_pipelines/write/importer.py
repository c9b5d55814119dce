"""Batch import of historical conversations: files -> validated rows -> events -> extraction.

Each bad row is set aside with its row number and reason (and kept in `memory_quarantine`);
good rows go in. Events are inserted idempotently on (agent_id, message_id) — a row without a
message_id gets one from a hash of its content — so re-importing a file adds nothing. Extraction
runs per agent in `occurred_at` order, in chunks that share one embedding batch.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.types import ImportReport, RejectedRow
from arandu_pipelines.write.events import EventInput, insert_events, mark_failed
from arandu_pipelines.write.prefetch import UnitPrefetch

if TYPE_CHECKING:
    from arandu_pipelines.client import MemoryClient

REQUIRED = ("agent_id", "session_id", "speaker", "text", "occurred_at")
OPTIONAL = ("message_id", "metadata")
INSERT_BATCH = 1000
Progress = Callable[[str, int, int], None]


@dataclass
class SourceRow:
    number: int  # 1-based data row number in the source
    data: dict[str, Any]
    error: str | None = None  # set when the row could not even be read (bad JSON, bad UTF-8)


# ---- reading files ----------------------------------------------------------------------------
def read_rows(path: str | Path, fmt: str = "auto") -> Iterator[SourceRow]:
    """JSONL, CSV or Parquet (by extension unless `fmt` says), or a LoCoMo JSON file."""
    p = Path(path)
    if not p.exists():
        raise ValidationError(f"import file {p} does not exist")
    kind = fmt if fmt != "auto" else _guess_format(p)
    if kind == "jsonl":
        yield from _read_jsonl(p)
    elif kind == "csv":
        yield from _read_frame(p, "csv")
    elif kind == "parquet":
        yield from _read_frame(p, "parquet")
    elif kind == "locomo":
        for i, row in enumerate(locomo_rows(p), start=1):
            yield SourceRow(i, row)
    else:
        raise ValidationError(
            f"unknown import format {kind!r} for {p.name}: use .jsonl, .csv, .parquet or --format locomo"
        )


def _guess_format(p: Path) -> str:
    suffix = "".join(p.suffixes[-2:]).lower() if p.suffix in (".gz",) else p.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".jsonl.gz"):
        return "jsonl"
    if suffix in (".csv", ".tsv", ".csv.gz"):
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".json":
        return "locomo"
    return suffix.lstrip(".")


def _read_jsonl(p: Path) -> Iterator[SourceRow]:
    with p.open("rb") as fh:
        n = 0
        for raw in fh:
            if not raw.strip():
                continue
            n += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield SourceRow(n, {}, f"invalid UTF-8 at byte {exc.start}")
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                yield SourceRow(n, {}, f"invalid JSON: {exc.msg} at column {exc.colno}")
                continue
            if not isinstance(data, dict):
                yield SourceRow(n, {}, f"expected a JSON object, got {type(data).__name__}")
                continue
            yield SourceRow(n, data)


def _read_frame(p: Path, kind: str) -> Iterator[SourceRow]:
    import pandas as pd

    if kind == "csv":
        sep = "\t" if p.suffix.lower() == ".tsv" else ","
        frame = pd.read_csv(p, dtype=str, keep_default_na=False, sep=sep,
                            encoding="utf-8", encoding_errors="replace")
    else:
        frame = pd.read_parquet(p)
    for i, rec in enumerate(frame.to_dict(orient="records"), start=1):
        bad = next((k for k, v in rec.items() if isinstance(v, str) and "\ufffd" in v), None)
        yield SourceRow(i, rec, f"invalid UTF-8 in column {bad!r}" if bad else None)


# ---- validating rows --------------------------------------------------------------------------
def _clean(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    return value


def _id(field: str, value: Any) -> str:
    value = _clean(value)
    if isinstance(value, bool) or value is None:
        raise ValueError(f"missing {field}")
    if isinstance(value, (int, float)):
        value = str(int(value)) if float(value).is_integer() else str(value)
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")
    value = value.strip()
    if not value:
        raise ValueError(f"missing {field}")
    if len(value) > 256:
        raise ValueError(f"{field} longer than 256 characters")
    if "\x00" in value:
        raise ValueError(f"{field} contains a NUL byte")
    return value


def _time(value: Any, tz: str) -> datetime:
    from arandu_pipelines.client import to_aware

    value = _clean(value)
    if value is None or value == "":
        raise ValueError("missing occurred_at")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value), tz=timezone.utc)
    try:
        return to_aware(value, tz)
    except ValidationError as exc:
        raise ValueError(f"unparseable occurred_at {str(value)[:40]!r}") from exc


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
        raise ValueError(f"text must be a string, got {type(body).__name__}")
    if not body.strip():
        raise ValueError("empty text")
    if "\x00" in body:
        raise ValueError("text contains NUL bytes")
    if len(body) > config.max_message_chars:
        raise ValueError(f"text is {len(body)} characters (limit {config.max_message_chars})")
    occurred = _time(row["occurred_at"], config.timezone)
    if occurred > datetime.now(timezone.utc) + timedelta(days=1):
        raise ValueError(f"occurred_at {occurred.isoformat()} is in the future")
    meta = _clean(row.get("metadata"))
    if isinstance(meta, str):
        try:
            meta = json.loads(meta) if meta.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"metadata is not valid JSON: {exc.msg}") from exc
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise ValueError(f"metadata must be a JSON object, got {type(meta).__name__}")
    message_id = _clean(row.get("message_id"))
    event = EventInput(agent_id, body, speaker, occurred, session_id, None, meta, "import")
    event.message_id = _id("message_id", message_id) if message_id not in (None, "") else (
        "sha256:" + event.content_hash[:40])
    return event


# ---- importing ----------------------------------------------------------------------------------
async def import_rows(
    client: MemoryClient,
    rows: Iterable[dict[str, Any] | SourceRow],
    extract: bool,
    source: str,
    config: MemoryConfig,
    chunk_size: int = 64,
    progress: Progress | None = None,
) -> ImportReport:
    t0 = time.perf_counter()
    report = ImportReport()
    events: list[EventInput] = []
    unknown: set[str] = set()
    for i, row in enumerate(rows, start=1):
        src = row if isinstance(row, SourceRow) else SourceRow(i, row)
        report.rows_read += 1
        if src.error:
            report.rows_rejected.append(RejectedRow(src.number, src.error, _preview(src.data)))
            continue
        unknown.update(k for k in src.data if k not in REQUIRED and k not in OPTIONAL)
        try:
            events.append(to_event(src.data, config, source))
        except ValueError as exc:
            report.rows_rejected.append(RejectedRow(src.number, str(exc), _preview(src.data)))
    if unknown:
        report.warnings.append(f"ignored unknown column(s): {', '.join(sorted(unknown))}")
    order = {id(e): n for n, e in enumerate(events)}
    events.sort(key=lambda e: (e.agent_id, e.occurred_at, order[id(e)]))
    await _quarantine(client, source, report.rows_rejected)
    for start in range(0, len(events), INSERT_BATCH):
        batch = events[start: start + INSERT_BATCH]
        async with client.engine.begin() as conn:
            report.events_inserted += await insert_events(conn, batch)
        if progress:
            progress("stored", min(start + INSERT_BATCH, len(events)), len(events))
    report.events_skipped_duplicate = len(events) - report.events_inserted
    report.agents = sorted({e.agent_id for e in events})
    if extract:
        await _resume_unfinished(client, events)
        new = [e for e in events if e.event_id]
        by_agent: dict[str, list[EventInput]] = defaultdict(list)
        for e in new:
            by_agent[e.agent_id].append(e)
        done = 0
        groups = [(agent_id, by_agent[agent_id]) for agent_id in sorted(by_agent)]
        async for n in _extract_chunks(client, groups, config, report, chunk_size):
            done += n
            if progress:
                progress("extracted", done, len(new))
    report.duration_ms = (time.perf_counter() - t0) * 1000
    return report


async def _resume_unfinished(client: MemoryClient, events: list[EventInput],
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
    client: MemoryClient, groups: list[tuple[str, list[EventInput]]], config: MemoryConfig,
    report: ImportReport, chunk_size: int,
) -> AsyncIterator[int]:
    """Extract each agent's events chunk after chunk (yielding each chunk's size as it lands),
    encoding the next chunks' sentences while the current one is reconciled and written
    (write/prefetch.py). The look-ahead runs across agents, so the encoder does not sit idle
    while one agent's last chunk is written and the next agent's first one is extracted."""
    chunks = [(agent_id, events[i: i + chunk_size])
              for agent_id, events in groups for i in range(0, len(events), chunk_size)]
    prefetch = client._pipeline(config).prefetcher(config)
    ahead = 0
    if prefetch is not None:
        ahead = prefetch.depth
        for _, chunk in chunks[:ahead]:
            prefetch.start(chunk)
    try:
        for i, (agent_id, chunk) in enumerate(chunks):
            then = chunks[i + ahead][1] if ahead and i + ahead < len(chunks) else None
            await _extract_chunk(client, agent_id, chunk, config, report, prefetch, then)
            yield len(chunk)
    finally:
        if prefetch is not None:
            await prefetch.close()


async def _extract_chunk(
    client: MemoryClient, agent_id: str, chunk: list[EventInput], config: MemoryConfig,
    report: ImportReport, prefetch: UnitPrefetch | None, then: list[EventInput] | None,
) -> None:
    try:
        outcome = await client._pipeline(config).run(agent_id, chunk, config,
                                                     prefetch=prefetch, then=then)
    except Exception as exc:  # events stay stored; marked failed for a later retry
        async with client.engine.begin() as conn:
            await mark_failed(conn, [e.event_id for e in chunk if e.event_id],
                              f"{type(exc).__name__}: {exc}")
        report.extraction_errors.append(f"{agent_id}: {type(exc).__name__}: {str(exc)[:300]}")
        return
    report.events_extracted += outcome.extracted
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


async def extract_pending(
    client: MemoryClient, agent_id: str, config: MemoryConfig, limit: int, chunk_size: int,
    max_attempts: int,
) -> ImportReport:
    """Extract stored events not yet extracted (new, or failed fewer than max_attempts times)."""
    t0 = time.perf_counter()
    report = ImportReport(agents=[agent_id])
    async with client.engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    "SELECT id, agent_id, session_id, speaker, message_id, text, occurred_at, "
                    "metadata, source FROM memory_events WHERE agent_id = :a "
                    "AND extraction_status IN ('pending', 'failed') AND extraction_attempts < :m "
                    "ORDER BY occurred_at, id LIMIT :lim"
                ),
                {"a": agent_id, "m": max_attempts, "lim": limit},
            )
        ).all()
    events = [
        EventInput(r.agent_id, r.text, r.speaker or "unknown", r.occurred_at, r.session_id,
                   r.message_id, dict(r.metadata or {}), r.source, str(r.id))
        for r in rows
    ]
    report.rows_read = len(events)
    async for _ in _extract_chunks(client, [(agent_id, events)], config, report, chunk_size):
        pass
    report.duration_ms = (time.perf_counter() - t0) * 1000
    return report


async def _quarantine(client: MemoryClient, source: str, rejected: list[RejectedRow]) -> None:
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
                "s": [source[:512]] * len(rejected),
                "n": [r.row_number for r in rejected],
                "r": [r.reason for r in rejected],
                "p": [json.dumps(r.row, default=str, ensure_ascii=False) for r in rejected],
            },
        )


def _agent_of(row: dict[str, Any]) -> str | None:
    try:
        return _id("agent_id", row.get("agent_id"))
    except ValueError:
        return None


def _preview(data: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in list(data.items())[:12]:
        v = _clean(v)
        if isinstance(v, str):
            v = v.replace("\x00", "\\0")[:500]
        elif not isinstance(v, (int, float, bool, type(None))):
            v = str(v)[:500]
        out[str(k)[:64]] = v
    return out


# ---- LoCoMo ----------------------------------------------------------------------------------
def parse_locomo_time(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def locomo_rows(path: str | Path, agent_id: str | None = None) -> list[dict[str, Any]]:
    """Rows of a LoCoMo conversation file (the dev data's shape): one per turn, message_id =
    the turn's dia_id, turns spaced a minute apart from their session's start time."""
    p = Path(path)
    data = json.loads(p.read_text(encoding="utf-8"))
    conv = data.get("conversation", data)
    agent = agent_id or f"locomo-{p.stem}"
    out: list[dict[str, Any]] = []
    n = 1
    while f"session_{n}" in conv or f"session_{n}_date_time" in conv:
        turns = conv.get(f"session_{n}") or []
        stamp = conv.get(f"session_{n}_date_time")
        if turns and stamp:
            start = parse_locomo_time(stamp)
            for j, turn in enumerate(turns):
                body = turn.get("text", "")
                if turn.get("blip_caption"):
                    body = f"{body} [shared a photo: {turn['blip_caption']}]".strip()
                meta = {"dia_id": turn.get("dia_id")}
                if turn.get("img_url"):
                    meta["img_url"] = turn["img_url"]
                out.append({
                    "agent_id": agent,
                    "session_id": f"session_{n}",
                    "speaker": turn.get("speaker", "unknown"),
                    "text": body,
                    "occurred_at": (start + timedelta(minutes=j)).isoformat(),
                    "message_id": turn.get("dia_id"),
                    "metadata": meta,
                })
        n += 1
    return out
