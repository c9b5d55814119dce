"""`MemoryClient`: the public, async entry point (plus a small sync facade for scripts).

Everything is validated here, at the edge, with messages that name the field and the fix; past
this point the pipelines assume well-formed input and degrade (rather than raise) when optional
stages fail.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arandu_pipelines.config import MemoryConfig, apply_overrides
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.read.counters import RetrievalCounters
from arandu_pipelines.store import migrate
from arandu_pipelines.store.engine import create_engine, resolve_database_url
from arandu_pipelines.store.lookup import resolve_entity_keys
from arandu_pipelines.types import (
    DeleteReport,
    EntityDetail,
    FactDetail,
    FactPage,
    ImportReport,
    TokenUsage,
    WriteResult,
)
from arandu_pipelines.write.aliases import AliasCache
from arandu_pipelines.write.events import EventInput, insert_events, mark_failed
from arandu_pipelines.write.extract import build_hooks
from arandu_pipelines.write.pipeline import WritePipeline, entity_refs

MAX_ID_LEN = 256
# Tables holding an agent's rows, children first so foreign keys never block the erase.
AGENT_TABLES = (
    "memory_fact_entity_links",
    "memory_entity_relationships",
    "memory_facts",
    "memory_entity_aliases",
    "memory_entities",
    "memory_clusters",
    "memory_meta_observations",
    "memory_attribute_registry",
    "memory_intentions",
    "session_observations",
    "memory_quarantine",
    "memory_events",
)


def validate_id(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{name} must be a non-empty string, got {value!r}")
    if len(value) > MAX_ID_LEN:
        raise ValidationError(f"{name} is {len(value)} characters; the limit is {MAX_ID_LEN}")
    if "\x00" in value:
        raise ValidationError(f"{name} contains a NUL byte; remove it")
    return value.strip()


def to_aware(value: Any, tz: str, field: str = "occurred_at") -> datetime:
    """Timestamps are stored in UTC; a naive one is read in the configured timezone."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValidationError(
                f"{field} {value!r} is not an ISO-8601 timestamp (e.g. 2023-05-08T13:56:00Z)"
            ) from exc
    if not isinstance(value, datetime):
        raise ValidationError(f"{field} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(tz))
    return value.astimezone(timezone.utc)


class MemoryClient:
    """Long-term memory for agents, on PostgreSQL + pgvector.

    database_url=None -> DATABASE_URL, else the embedded server; llm=None -> the offline
    pipeline; embeddings=None -> local all-MiniLM-L6-v2 (384-d).
    """

    def __init__(
        self,
        database_url: str | None = None,
        llm: LLMProvider | None = None,
        embeddings: EmbeddingProvider | None = None,
        config: MemoryConfig | None = None,
    ) -> None:
        self._database_url = database_url
        self.llm = llm
        if embeddings is None:
            from arandu_pipelines.providers.local_embeddings import LocalEmbeddings

            embeddings = LocalEmbeddings()
        self.embeddings = embeddings
        self.config = config or MemoryConfig()
        self._engine: AsyncEngine | None = None
        self._aliases = AliasCache()
        self._init_lock = asyncio.Lock()
        self._initialized = False
        self._background: set[asyncio.Task[Any]] = set()
        self._counters = RetrievalCounters()

    # ---- lifecycle -----------------------------------------------------------------------------
    @property
    def embedding_dimensions(self) -> int:
        return int(self.config.embedding_dimensions or getattr(self.embeddings, "dimensions", 1536))

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            url = resolve_database_url(self._database_url)
            self._engine = create_engine(url)
        return self._engine

    async def initialize(self) -> None:
        """Create or upgrade the schema to the latest migration. Idempotent."""
        async with self._init_lock:
            await migrate.upgrade(self.engine, self.embedding_dimensions)
            self._initialized = True

    async def _ready(self) -> None:
        if not self._initialized:
            await self.initialize()

    async def close(self) -> None:
        self._counters.flush_soon()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None
        self._initialized = False

    async def __aenter__(self) -> MemoryClient:
        await self.initialize()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    def _config(self, overrides: dict[str, Any] | None) -> tuple[MemoryConfig, list[str]]:
        try:
            return apply_overrides(self.config, overrides)
        except ValueError as exc:
            raise ValidationError(str(exc)) from exc

    def _pipeline(self, config: MemoryConfig) -> WritePipeline:
        usage = TokenUsage()
        hooks = build_hooks(self.llm, config, usage, self.embeddings)
        return WritePipeline(
            self.engine,
            self.embeddings,
            self._aliases,
            hooks.extractor,
            llm_decide=hooks.llm_decide,
            llm_pick_entity=hooks.llm_pick_entity,
            load_knowledge=hooks.load_knowledge,
            tag_emotion=hooks.tag_emotion,
            usage=usage,
            sentences=hooks.sentences,
        )

    # ---- write ---------------------------------------------------------------------------------
    async def write(
        self,
        agent_id: str,
        message: str,
        speaker_name: str | None = None,
        session_id: str = "default",
        occurred_at: datetime | None = None,
        recent_messages: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        message_id: str | None = None,
        dry_run: bool = False,
        config_overrides: dict[str, Any] | None = None,
        verbose: bool = False,
    ) -> WriteResult:
        """Log the message, extract what it says, reconcile it with what is known, store it."""
        t0 = time.perf_counter()
        agent_id = validate_id("agent_id", agent_id)
        if speaker_name is None:
            raise ValidationError(
                "speaker_name is required: it tells who 'I' is (e.g. speaker_name='Rafael')"
            )
        speaker = validate_id("speaker_name", speaker_name)
        session_id = validate_id("session_id", session_id)
        if message_id is not None:
            message_id = validate_id("message_id", message_id)
        if not isinstance(message, str):
            raise ValidationError(f"message must be a string, got {type(message).__name__}")
        if metadata is not None and not isinstance(metadata, dict):
            raise ValidationError(f"metadata must be a dict, got {type(metadata).__name__}")
        config, warnings = self._config(config_overrides)
        if "\x00" in message:
            raise ValidationError("message contains NUL bytes; remove them before writing")
        if len(message) > config.max_message_chars:
            raise ValidationError(
                f"message is {len(message)} characters; the limit is {config.max_message_chars} "
                "(raise MemoryConfig.max_message_chars or split the text)"
            )
        when = to_aware(occurred_at or datetime.now(timezone.utc), config.timezone)
        if not message.strip():
            return WriteResult(skipped_reason="empty message", dry_run=dry_run,
                               duration_ms=(time.perf_counter() - t0) * 1000)
        await self._ready()
        meta = dict(metadata or {})
        event = EventInput(agent_id, message, speaker, when, session_id, message_id, meta)
        if recent_messages:
            event.metadata["_recent_messages"] = [str(m) for m in recent_messages][-10:]
        result = WriteResult(dry_run=dry_run)
        if not dry_run:
            async with self.engine.begin() as conn:
                await insert_events(conn, [event])
            if event.event_id is None:
                raise ValidationError(
                    f"message_id {message_id!r} already exists for agent {agent_id!r}; "
                    "message ids are unique per agent"
                )
            result.event_id = event.event_id
        try:
            chunk = await self._pipeline(config).run(agent_id, [event], config, dry_run=dry_run)
        except Exception as exc:  # the event is kept; extraction is retried later
            result.success = False
            result.error = f"{type(exc).__name__}: {exc}"
            if event.event_id:
                async with self.engine.begin() as conn:
                    await mark_failed(conn, [event.event_id], result.error)
            result.duration_ms = (time.perf_counter() - t0) * 1000
            return result
        msg = chunk.messages[0]
        result.facts_added, result.facts_updated = msg.added, msg.updated
        result.facts_unchanged, result.facts_deleted = msg.unchanged, msg.deleted
        result.entities_resolved = entity_refs(msg)
        result.relationships = msg.relationships
        result.tokens_used = chunk.tokens
        if chunk.errors:
            result.error = "; ".join(chunk.errors)
        if msg.extraction is not None and msg.extraction.mode == "failed":
            result.success = False
        if warnings:
            chunk.trace.add("warnings", warnings=warnings)
        result.pipeline = chunk.trace if verbose else None
        result.duration_ms = (time.perf_counter() - t0) * 1000
        return result

    # ---- import ----------------------------------------------------------------------------------
    async def import_messages(
        self,
        rows: Iterable[dict[str, Any]],
        extract: bool = True,
        source: str = "import",
        chunk_size: int = 64,
        progress: Any = None,
        config_overrides: dict[str, Any] | None = None,
    ) -> ImportReport:
        """Batch-import historical messages; see `write/importer.py`."""
        from arandu_pipelines.write.importer import import_rows

        await self._ready()
        config, _ = self._config(config_overrides)
        return await import_rows(self, rows, extract=extract, source=source, config=config,
                                 chunk_size=chunk_size, progress=progress)

    async def extract_pending(
        self, agent_id: str, limit: int = 10_000, chunk_size: int = 64, max_attempts: int = 5,
        config_overrides: dict[str, Any] | None = None,
    ) -> ImportReport:
        """Run extraction for this agent's stored events that are pending (or failed earlier)."""
        from arandu_pipelines.write.importer import extract_pending

        await self._ready()
        config, _ = self._config(config_overrides)
        return await extract_pending(self, validate_id("agent_id", agent_id), config, limit,
                                     chunk_size, max_attempts)

    # ---- read ------------------------------------------------------------------------------------
    async def retrieve(
        self,
        agent_id: str,
        query: str,
        session_id: str | None = None,
        entity_keys: list[str] | None = None,
        as_of: datetime | None = None,
        config_overrides: dict[str, Any] | None = None,
        verbose: bool = False,
    ) -> Any:
        """Ranked facts, their source messages and a prompt-ready context (see read/)."""
        from arandu_pipelines.read.pipeline import retrieve

        agent_id = validate_id("agent_id", agent_id)
        if not isinstance(query, str):
            raise ValidationError(f"query must be a string, got {type(query).__name__}")
        if session_id is not None:
            session_id = validate_id("session_id", session_id)
        if entity_keys is not None and (isinstance(entity_keys, str) or not all(
                isinstance(k, str) for k in entity_keys)):
            raise ValidationError("entity_keys must be a list of strings, e.g. ['person:ana']")
        config, warnings = self._config(config_overrides)
        when = to_aware(as_of, config.timezone, "as_of") if as_of is not None else None
        # retrieve() calls self._ready() itself, after the greeting check (no database for "hi")
        return await retrieve(self, agent_id, query, session_id=session_id,
                              entity_keys=entity_keys, as_of=when, config=config,
                              warnings=warnings, verbose=verbose)

    # ---- read-side CRUD --------------------------------------------------------------------------
    async def get(self, agent_id: str, fact_id: str) -> FactDetail | None:
        agent_id = validate_id("agent_id", agent_id)
        await self._ready()
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(f"SELECT {_FACT_COLS} FROM memory_facts WHERE agent_id = :a "
                         "AND id = CAST(:id AS uuid)"),
                    {"a": agent_id, "id": _uuid_or_none(fact_id)},
                )
            ).first() if _uuid_or_none(fact_id) else None
        return _fact_detail(row) if row else None

    async def get_all(
        self,
        agent_id: str,
        limit: int = 50,
        offset: int = 0,
        entity_keys: list[str] | None = None,
    ) -> FactPage:
        """Active facts, newest first; `entity_keys` (aliases accepted) filters with OR logic."""
        agent_id = validate_id("agent_id", agent_id)
        if not isinstance(limit, int) or limit < 0 or not isinstance(offset, int) or offset < 0:
            raise ValidationError("limit and offset must be non-negative integers")
        await self._ready()
        warnings: list[str] = []
        async with self.engine.connect() as conn:
            params: dict[str, Any] = {"a": agent_id, "lim": limit, "off": offset}
            where = "agent_id = :a AND valid_to IS NULL"
            if entity_keys is not None:
                if isinstance(entity_keys, str):
                    raise ValidationError("entity_keys must be a list of keys, e.g. ['person:ana']")
                keys, warnings = await resolve_entity_keys(conn, agent_id, list(entity_keys))
                params["keys"] = keys
                where += (" AND id IN (SELECT fact_id FROM memory_fact_entity_links "
                          "WHERE agent_id = :a AND entity_key = ANY(:keys))")
            rows = (
                await conn.execute(
                    text(f"SELECT {_FACT_COLS} FROM memory_facts WHERE {where} "
                         "ORDER BY created_at DESC, id LIMIT :lim OFFSET :off"),
                    params,
                )
            ).all()
        return FactPage([_fact_detail(r) for r in rows], warnings)

    async def delete(self, agent_id: str, fact_id: str) -> bool:
        """Hard delete of one fact (its entity links go with it)."""
        agent_id = validate_id("agent_id", agent_id)
        fid = _uuid_or_none(fact_id)
        if fid is None:
            return False
        await self._ready()
        async with self.engine.begin() as conn:
            res = await conn.execute(
                text("DELETE FROM memory_facts WHERE agent_id = :a AND id = CAST(:id AS uuid)"),
                {"a": agent_id, "id": fid},
            )
        return bool(res.rowcount)

    async def delete_all(self, agent_id: str) -> DeleteReport:
        """Erase everything of this agent: raw events and every derived row. Irreversible."""
        agent_id = validate_id("agent_id", agent_id)
        await self._ready()
        report = DeleteReport(agent_id)
        async with self.engine.begin() as conn:
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtextextended(:a, 0))"), {"a": agent_id}
            )
            for table in await _agent_tables(conn):
                res = await conn.execute(text(f'DELETE FROM "{table}" WHERE agent_id = :a'), {"a": agent_id})
                report.rows[table] = res.rowcount or 0
        self._aliases.forget(agent_id)
        return report

    async def delete_messages(
        self,
        agent_id: str,
        speaker: str | None = None,
        message_ids: list[str] | None = None,
        session_id: str | None = None,
    ) -> Any:
        """Erase the selected messages of one agent and every row derived from them (facts,
        links, orphaned entities/aliases, relationships, clusters, observations); selectors
        combine with AND, `speaker` matches case-insensitively. Irreversible. Returns an
        `EraseReport` (rows deleted per table, rows repaired); see `store/erase.py` for the rules
        (superseded facts are re-activated, shared entities are kept)."""
        from arandu_pipelines.store.erase import erase_messages

        agent_id = validate_id("agent_id", agent_id)
        if speaker is None and message_ids is None and session_id is None:
            raise ValidationError(
                "delete_messages needs at least one selector: speaker, message_ids or session_id "
                "(use delete_all(agent_id) to erase the whole agent)")
        if speaker is not None:
            speaker = validate_id("speaker", speaker)
        if session_id is not None:
            session_id = validate_id("session_id", session_id)
        if message_ids is not None:
            if isinstance(message_ids, (str, bytes)) or not isinstance(message_ids, (list, tuple, set)):
                raise ValidationError("message_ids must be a list of strings, e.g. ['m1', 'm2']")
            if not message_ids:
                raise ValidationError("message_ids is empty; pass at least one id or leave it out")
            message_ids = sorted({validate_id("message_ids[]", m) for m in message_ids})
        await self._ready()
        async with self.engine.begin() as conn:
            report = await erase_messages(conn, agent_id, speaker=speaker,
                                          message_ids=message_ids, session_id=session_id)
        self._aliases.forget(agent_id)
        return report

    async def entities(self, agent_id: str, limit: int = 50, offset: int = 0) -> list[EntityDetail]:
        agent_id = validate_id("agent_id", agent_id)
        await self._ready()
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(
                    text(
                        "SELECT e.id, e.canonical_key, e.display_name, e.entity_type, e.summary_text, "
                        "e.fact_count, e.importance_score, e.first_seen_at, e.last_seen_at, e.profile_text, "
                        "COALESCE((SELECT array_agg(a.alias_text ORDER BY a.alias_text) FROM "
                        "memory_entity_aliases a WHERE a.agent_id = e.agent_id AND "
                        "a.canonical_entity_key = e.canonical_key), '{}') AS aliases "
                        "FROM memory_entities e WHERE e.agent_id = :a AND e.is_active "
                        "ORDER BY e.last_seen_at DESC, e.canonical_key LIMIT :lim OFFSET :off"
                    ),
                    {"a": agent_id, "lim": limit, "off": offset},
                )
            ).all()
        return [
            EntityDetail(str(r.id), r.canonical_key, r.display_name or r.canonical_key, r.entity_type,
                         r.summary_text, r.fact_count, r.importance_score, r.first_seen_at,
                         r.last_seen_at, r.profile_text, list(r.aliases))
            for r in rows
        ]

    async def stats(self, agent_id: str) -> dict[str, int]:
        """Row counts per table for one agent (what memory now holds)."""
        agent_id = validate_id("agent_id", agent_id)
        await self._ready()
        async with self.engine.connect() as conn:
            out = {}
            for table in await _agent_tables(conn):
                out[table] = (
                    await conn.execute(text(f"SELECT count(*) FROM {table} WHERE agent_id = :a"),
                                       {"a": agent_id})
                ).scalar_one()
        return out


async def _agent_tables(conn: Any) -> list[str]:
    """Every table of the schema that holds agent rows: the known ones in foreign-key order, then
    any other table with an agent_id column (so a table added later is never missed by erasure)."""
    found = [
        r[0]
        for r in (
            await conn.execute(
                text("SELECT c.table_name FROM information_schema.columns c JOIN "
                     "information_schema.tables t ON t.table_schema = c.table_schema AND "
                     "t.table_name = c.table_name WHERE c.column_name = 'agent_id' AND "
                     "c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY 1")
            )
        ).all()
    ]
    return [t for t in AGENT_TABLES if t in found] + [t for t in found if t not in AGENT_TABLES]


_FACT_COLS = (
    "id, entity_name, entity_key, entity_type, attribute_key, fact_text, category, confidence, "
    "importance, valid_from, valid_to, created_at, source_context, speaker, source_event_id, "
    "supersedes_fact_id, invalidated_at, reinforcement_count"
)


def _uuid_or_none(value: Any) -> str | None:
    import uuid

    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, TypeError, AttributeError):
        return None


def _fact_detail(r: Any) -> FactDetail:
    return FactDetail(
        fact_id=str(r.id), entity_name=r.entity_name or r.entity_key, entity_key=r.entity_key,
        entity_type=r.entity_type, attribute_key=r.attribute_key, fact_text=r.fact_text,
        category=r.category, confidence=r.confidence, importance=r.importance,
        valid_from=r.valid_from, valid_to=r.valid_to, created_at=r.created_at,
        source_context=r.source_context, speaker=r.speaker,
        source_event_id=str(r.source_event_id) if r.source_event_id else None,
        supersedes_fact_id=str(r.supersedes_fact_id) if r.supersedes_fact_id else None,
        invalidated_at=r.invalidated_at, reinforcement_count=r.reinforcement_count,
    )


class SyncMemoryClient:
    """Blocking facade for scripts: the same methods, run on a private event loop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._client = MemoryClient(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not asyncio.iscoroutinefunction(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._loop.run_until_complete(attr(*args, **kwargs))

        return call

    def close(self) -> None:
        self._loop.run_until_complete(self._client.close())
        self._loop.close()

    def __enter__(self) -> SyncMemoryClient:
        self._loop.run_until_complete(self._client.initialize())
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
