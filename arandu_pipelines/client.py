"""`MemoryClient`: the public, async entry point (plus a small sync facade for scripts).

Everything is validated here, at the edge, with messages that name the field and the fix; past
this point the pipelines assume well-formed input and degrade (rather than raise) when optional
stages fail.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Self, TypeVar

import psycopg
from sqlalchemy.ext.asyncio import AsyncEngine

from arandu_pipelines import validate
from arandu_pipelines.config import MemoryConfig, apply_overrides
from arandu_pipelines.errors import RetrievalError, ValidationError
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.read.counters import RetrievalCounters
from arandu_pipelines.read.types import RetrieveResult
from arandu_pipelines.settings import settings
from arandu_pipelines.store import agent_rows, entity_queries, facts_queries, migrate
from arandu_pipelines.store.engine import create_engine, redact, resolve_database_url
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
from arandu_pipelines.write.hooks import build_hooks
from arandu_pipelines.write.pipeline import (
    ChunkOutcome,
    Extractor,
    WritePipeline,
    entity_refs,
)

if TYPE_CHECKING:
    from arandu_pipelines.store.erase import EraseReport
    from arandu_pipelines.write.import_files import SourceRow
    from arandu_pipelines.write.importer import Progress

MAX_ID_LEN = validate.MAX_ID_LEN
# write(recent_messages=...) keeps the last 10 as extraction context.
MAX_RECENT_MESSAGES = 10
# The metadata key that once smuggled recent_messages into the pipeline; refused so a caller who
# relied on it learns the fix instead of silently losing the context.
RESERVED_CONTEXT_KEY = "_recent_messages"


def validate_id(name: str, value: Any) -> str:
    """An identifier taken exactly as given, or refused (see `validate.identifier`)."""
    return validate.identifier(name, value)


def to_aware(value: Any, tz: str, field: str = "occurred_at") -> datetime:
    """Timestamps are stored in UTC; a naive one is read in the configured timezone. Out-of-range
    values and unknown zones raise ValidationError (see `validate.timestamp`)."""
    return validate.timestamp(field, value, tz)


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
        extractor: Extractor | None = None,
        *,
        on_chunk: Callable[[ChunkOutcome], None] | None = None,
    ) -> None:
        """`extractor` replaces the extraction step (rules or LLM) by the caller's own
        `async (text, ExtractionContext) -> ExtractionResult`; resolution, reconciliation and
        storage stay ours. The seam for custom extraction and for tests that script it.
        `on_chunk` is called with each write pipeline run's `ChunkOutcome` (what every message's
        extraction gave, the trace, tokens) once the run returns: instrumentation for tests and
        debugging, without reaching into the client's internals."""
        self._database_url = database_url
        self.llm = llm
        self._extractor = extractor
        self._on_chunk = on_chunk
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
        if self.config.embedding_dimensions:
            return int(self.config.embedding_dimensions)
        return int(getattr(self.embeddings, "dimensions", 1536))

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            url = resolve_database_url(self._database_url)
            engine = create_engine(url)
            if not (self._database_url or settings.database_url):
                from arandu_pipelines.store.embedded import supervise

                supervise(engine)  # a dead embedded server is restarted on the next call
            self._engine = engine
        return self._engine

    @property
    def _llm(self) -> LLMProvider | None:
        """The spec's recipes read `memory._llm` ("reuse the SDK's provider"); it is `llm`."""
        return self.llm

    async def initialize(self) -> None:
        """Create or upgrade the schema to the latest migration. Idempotent.

        Raises: DatabaseError if the database cannot be reached or migrated (password redacted)."""
        async with self._init_lock:
            await migrate.upgrade(self.engine, self.embedding_dimensions)
            self._initialized = True

    async def _ready(self) -> None:
        if not self._initialized:
            await self.initialize()

    def _record_retrieval(self, agent_id: str, fact_ids: list[str]) -> None:
        """Bump times_retrieved / last_retrieved_at without delaying the answer (coalesced, see
        read/counters.py); close() flushes and awaits them."""
        self._counters.record(self.engine, agent_id, fact_ids, self._background)

    def forget_cached(self, agent_id: str) -> None:
        """Drop what this client caches about `agent_id` (its alias map). Call it after the
        agent's rows were changed by something other than this client (re-extraction does).
        Raises: nothing."""
        self._aliases.forget(agent_id)

    async def close(self) -> None:
        """Flush counters, await background tasks, dispose the engine. Raises: nothing of ours
        (background task failures are gathered and dropped)."""
        self._counters.flush_soon()
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None
        self._initialized = False

    async def _forget_lost_connections(self, exc: BaseException) -> None:
        """After the server dropped our connections (restart, admin kill, crash), the pool still
        holds dead ones and the next call would fail on them too: drop the pool so the next call
        opens fresh connections (and, for the embedded server, finds it running again)."""
        from sqlalchemy.exc import DBAPIError

        lost = isinstance(exc, DBAPIError) and (
            exc.connection_invalidated or isinstance(exc.orig, psycopg.OperationalError))
        if (lost or isinstance(exc, psycopg.OperationalError)) and self._engine is not None:
            try:
                await self._engine.dispose()
            except Exception:  # noqa: BLE001, S110 - best-effort cleanup; the next call reconnects anyway
                pass

    async def __aenter__(self) -> Self:
        await self.initialize()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _config(self, overrides: dict[str, Any] | None,
                unknown: str = "raise") -> tuple[MemoryConfig, list[str]]:
        """The effective config of one call. Unknown keys raise on the write side (a write has no
        result where a warning would be seen); retrieve() passes unknown="warn" and reports them
        in result.warnings."""
        try:
            config, warnings = apply_overrides(self.config, overrides, unknown=unknown)
        except ValidationError:
            raise
        except ValueError as exc:
            raise ValidationError(str(exc)) from exc
        if unknown == "raise" and config.extraction_mode == "llm" and self.llm is None:
            raise ValidationError("extraction_mode='llm' needs an LLM provider: pass "
                                  "MemoryClient(llm=...) or use extraction_mode 'auto' or 'rules'")
        return config, warnings

    def _pipeline(self, config: MemoryConfig) -> WritePipeline:
        usage = TokenUsage()
        hooks = build_hooks(self.llm, config, usage, self.embeddings)
        if self._extractor is not None:  # the caller's extractor: its sentence split is unknown
            hooks.extractor, hooks.sentences = self._extractor, None
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
            on_outcome=self._on_chunk,
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
        metadata: dict[str, object] | None = None,
        message_id: str | None = None,
        dry_run: bool = False,
        config_overrides: dict[str, object] | None = None,
        verbose: bool = False,
    ) -> WriteResult:
        """Log the message, extract what it says, reconcile it with what is known, store it.

        Raises: ValidationError for a bad argument or override (nothing is stored);
        MessageConflictError for a known message_id with another text; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call.
        Extraction failures do not raise: `result.success` is False and the event is kept."""
        t0 = time.perf_counter()
        # Everything is checked before anything is stored: a refused call leaves no trace.
        agent_id = validate.identifier("agent_id", agent_id)
        if speaker_name is None:
            raise ValidationError(
                "speaker_name is required: it tells who 'I' is (e.g. speaker_name='Rafael')"
            )
        speaker = validate.name("speaker_name", speaker_name)
        session_id = validate.identifier("session_id", session_id)
        if message_id is not None:
            message_id = validate.identifier("message_id", message_id)
        if not isinstance(message, str):
            raise ValidationError(f"message must be a string, got {type(message).__name__}")
        if metadata is not None:
            validate.json_object("metadata", metadata)
            if RESERVED_CONTEXT_KEY in metadata:
                raise ValidationError(
                    f"metadata[{RESERVED_CONTEXT_KEY!r}] is not read as context: pass the earlier "
                    "messages as write(..., recent_messages=[...]) (metadata is stored as given)")
        validate.flag("dry_run", dry_run)
        config, warnings = self._config(config_overrides)
        if "\x00" in message:
            raise ValidationError("message contains NUL bytes; remove them before writing")
        validate.text("message", message)
        if len(message) > config.max_message_chars:
            raise ValidationError(
                f"message is {len(message)} characters; the limit is {config.max_message_chars} "
                "(raise MemoryConfig.max_message_chars or split the text)"
            )
        recent = (validate.messages("recent_messages", recent_messages, config.max_message_chars)
                  if recent_messages is not None else [])
        when = to_aware(occurred_at if occurred_at is not None else datetime.now(UTC),
                        config.timezone)
        if not message.strip():
            return WriteResult(skipped_reason="empty message", dry_run=dry_run,
                               duration_ms=(time.perf_counter() - t0) * 1000)
        await self._ready()
        event = EventInput(agent_id, message, speaker, when, session_id, message_id,
                           dict(metadata or {}), recent_messages=recent[-MAX_RECENT_MESSAGES:])
        result = WriteResult(dry_run=dry_run)
        if not dry_run:
            async with self.engine.begin() as conn:
                await insert_events(conn, [event])
            if event.event_id is None:  # same id + same text: idempotent; other text: refused
                from arandu_pipelines.errors import MessageConflictError
                from arandu_pipelines.write.importer import stored_message

                async with self.engine.connect() as conn:
                    stored = await stored_message(conn, agent_id, message_id or "")
                if stored is None or stored[1] != message:
                    raise MessageConflictError(
                        f"message_id {message_id!r} already exists for agent {agent_id!r} with a "
                        "different text; stored messages are immutable: use a new message_id")
                return WriteResult(event_id=stored[0], skipped_reason="duplicate: message_id "
                                   "already stored with the same text", duration_ms=(
                                       time.perf_counter() - t0) * 1000)
            result.event_id = event.event_id
        try:
            chunk = await self._pipeline(config).run(agent_id, [event], config, dry_run=dry_run)
        except Exception as exc:  # noqa: BLE001 - fail-safe: the event is kept, marked failed, retried later
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
        if chunk.errors:  # some item of the upsert failed (its savepoint rolled back)
            result.error = "; ".join(chunk.errors)
            result.success = False
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
        rows: Iterable[dict[str, object] | SourceRow],
        extract: bool = True,
        source: str = "import",
        chunk_size: int = 64,
        progress: Progress | None = None,
        config_overrides: dict[str, object] | None = None,
    ) -> ImportReport:
        """Batch-import historical messages; see `write/importer.py`.

        Raises: ValidationError for bad arguments (bad rows are quarantined in the report, not
        raised); DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        from arandu_pipelines.write.importer import import_rows

        if rows is None or isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
            raise ValidationError(
                "rows must be an iterable of dicts (e.g. a list, or read_rows('file.jsonl')), "
                f"got {type(rows).__name__}")
        validate.flag("extract", extract)
        validate.text("source", source, max_len=1024)
        validate.count("chunk_size", chunk_size, minimum=1)
        config, _ = self._config(config_overrides)
        await self._ready()
        return await import_rows(self, rows, extract=extract, source=source, config=config,
                                 chunk_size=chunk_size, progress=progress,
                                 pipeline_for=self._pipeline)

    async def extract_pending(
        self, agent_id: str, limit: int = 10_000, chunk_size: int = 64, max_attempts: int = 5,
        config_overrides: dict[str, object] | None = None,
    ) -> ImportReport:
        """Run extraction for this agent's stored events that are pending (or failed earlier),
        at most `limit` events.

        Raises: ValidationError for bad arguments; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        from arandu_pipelines.write.importer import extract_pending

        agent_id = validate.identifier("agent_id", agent_id)
        validate.count("limit", limit)
        validate.count("chunk_size", chunk_size, minimum=1)
        validate.count("max_attempts", max_attempts, minimum=1)
        config, _ = self._config(config_overrides)
        await self._ready()
        return await extract_pending(self, agent_id, config, limit, chunk_size, max_attempts,
                                     pipeline_for=self._pipeline)

    # ---- read ------------------------------------------------------------------------------------
    async def retrieve(
        self,
        agent_id: str,
        query: str,
        session_id: str | None = None,
        entity_keys: list[str] | None = None,
        as_of: datetime | None = None,
        config_overrides: dict[str, object] | None = None,
        verbose: bool = False,
        strict: bool = False,
    ) -> RetrieveResult:
        """Ranked facts, their source messages and a prompt-ready context (see read/).

        Bad arguments raise ValidationError up front. Past that, retrieval is fail-safe (spec,
        "Exceptions"): a database or internal failure returns an empty result whose `warnings`
        (and, with verbose=True, trace step "error") say what failed, so memory never crashes the
        agent's turn. `strict=True` raises RetrievalError instead, the original as its cause.

        Raises: ValidationError for bad arguments; RetrievalError only with strict=True."""
        from arandu_pipelines.read.pipeline import retrieve

        agent_id = validate.identifier("agent_id", agent_id)
        if not isinstance(query, str):
            raise ValidationError(f"query must be a string, got {type(query).__name__}")
        validate.text("query", query)
        if session_id is not None:
            session_id = validate.identifier("session_id", session_id)
        if entity_keys is not None:
            entity_keys = validate.string_list("entity_keys", entity_keys,
                                               example="['person:ana']")
        validate.flag("verbose", verbose)
        validate.flag("strict", strict)
        config, warnings = self._config(config_overrides, unknown="warn")
        if len(query) > config.max_message_chars:
            raise ValidationError(
                f"query is {len(query)} characters; the limit is {config.max_message_chars} "
                "(MemoryConfig.max_message_chars): shorten it")
        when = to_aware(as_of, config.timezone, "as_of") if as_of is not None else None
        t0 = time.perf_counter()
        try:
            # retrieve() calls self._ready() itself, after the greeting check (no database for "hi")
            return await retrieve(self, agent_id, query, session_id=session_id,
                                  entity_keys=entity_keys, as_of=when, config=config,
                                  warnings=warnings, verbose=verbose, ready=self._ready,
                                  on_retrieved=self._record_retrieval)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            await self._forget_lost_connections(exc)
            if strict:
                raise RetrievalError(
                    f"retrieve() failed for agent_id {agent_id!r}: {type(exc).__name__}: "
                    f"{redact(str(exc))[:500]}") from exc
            return _failed_retrieval(exc, config, warnings, verbose, t0)

    # ---- read-side CRUD --------------------------------------------------------------------------
    async def get(self, agent_id: str, fact_id: str) -> FactDetail | None:
        """One fact by id, or None (also for an id that is not a uuid).

        Raises: ValidationError for a bad agent_id; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        agent_id = validate.identifier("agent_id", agent_id)
        await self._ready()
        fid = _uuid_or_none(fact_id)
        if fid is None:
            return None
        async with self.engine.connect() as conn:
            row = await facts_queries.fact_by_id(conn, agent_id, fid)
        return _fact_detail(row) if row else None

    async def get_all(
        self,
        agent_id: str,
        limit: int = 50,
        offset: int = 0,
        entity_keys: list[str] | None = None,
    ) -> FactPage:
        """Active facts, newest first; `entity_keys` (aliases accepted) filters with OR logic.

        Raises: ValidationError for bad arguments; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        agent_id = validate.identifier("agent_id", agent_id)
        validate.count("limit", limit)
        validate.count("offset", offset)
        if entity_keys is not None:
            entity_keys = validate.string_list("entity_keys", entity_keys, example="['person:ana']")
        await self._ready()
        warnings: list[str] = []
        keys: list[str] | None = None
        async with self.engine.connect() as conn:
            if entity_keys is not None:
                keys, warnings = await resolve_entity_keys(conn, agent_id, list(entity_keys))
            rows = await facts_queries.active_facts(conn, agent_id, limit, offset, keys)
        return FactPage([_fact_detail(r) for r in rows], warnings)

    async def delete(self, agent_id: str, fact_id: str) -> bool:
        """Hard delete of one fact (its entity links go with it). False if there was none.

        Raises: ValidationError for a bad agent_id; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        agent_id = validate.identifier("agent_id", agent_id)
        fid = _uuid_or_none(fact_id)
        if fid is None:
            return False
        await self._ready()
        async with self.engine.begin() as conn:
            deleted = await facts_queries.delete_fact(conn, agent_id, fid)
        return bool(deleted)

    async def delete_all(self, agent_id: str) -> DeleteReport:
        """Erase everything of this agent: raw events and every derived row. Irreversible.

        Returns a DeleteReport (rows per table) that also stands for the spec's count of deleted
        facts: `report == 3`, `int(report)`, `f"{report}"` (see DeleteReport).

        Raises: ValidationError for a bad agent_id; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        agent_id = validate.identifier("agent_id", agent_id)
        await self._ready()
        report = DeleteReport(agent_id)
        async with self.engine.begin() as conn:
            report.rows.update(await agent_rows.erase_agent(conn, agent_id))
        self._aliases.forget(agent_id)
        return report

    async def delete_messages(
        self,
        agent_id: str,
        speaker: str | None = None,
        message_ids: list[str] | None = None,
        session_id: str | None = None,
    ) -> EraseReport:
        """Erase the selected messages of one agent and every row derived from them (facts,
        links, orphaned entities/aliases, relationships, clusters, observations); selectors
        combine with AND, `speaker` matches case-insensitively. Irreversible. Returns an
        `EraseReport` (rows deleted per table, rows repaired); see `store/erase.py` for the rules
        (superseded facts are re-activated, shared entities are kept).

        Raises: ValidationError for no selector or a bad one; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        from arandu_pipelines.store.erase import erase_messages

        agent_id = validate.identifier("agent_id", agent_id)
        if speaker is None and message_ids is None and session_id is None:
            raise ValidationError(
                "delete_messages needs at least one selector: speaker, message_ids or session_id "
                "(use delete_all(agent_id) to erase the whole agent)")
        if speaker is not None:
            speaker = validate.name("speaker", speaker)
        if session_id is not None:
            session_id = validate.identifier("session_id", session_id)
        if message_ids is not None:
            message_ids = sorted(set(validate.string_list(
                "message_ids", message_ids, example="['m1', 'm2']", item=validate.identifier,
                allow_empty=False)))
        await self._ready()
        async with self.engine.begin() as conn:
            report = await erase_messages(conn, agent_id, speaker=speaker,
                                          message_ids=message_ids, session_id=session_id)
        self._aliases.forget(agent_id)
        return report

    async def entities(self, agent_id: str, limit: int = 50, offset: int = 0) -> list[EntityDetail]:
        """Active entities with their aliases, most recently seen first.

        Raises: ValidationError for bad arguments; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        agent_id = validate.identifier("agent_id", agent_id)
        validate.count("limit", limit)
        validate.count("offset", offset)
        await self._ready()
        async with self.engine.connect() as conn:
            rows = await entity_queries.active_entities(conn, agent_id, limit, offset)
        return [
            EntityDetail(str(r.id), r.canonical_key, r.display_name or r.canonical_key, r.entity_type,
                         r.summary_text, r.fact_count, r.importance_score, r.first_seen_at,
                         r.last_seen_at, r.profile_text, list(r.aliases))
            for r in rows
        ]

    async def stats(self, agent_id: str) -> dict[str, int]:
        """Row counts per table for one agent (what memory now holds).

        Raises: ValidationError for a bad agent_id; DatabaseError if the database cannot be reached or migrated on first use; a driver error
        (sqlalchemy.exc.DBAPIError) if it fails mid-call."""
        agent_id = validate.identifier("agent_id", agent_id)
        await self._ready()
        async with self.engine.connect() as conn:
            return await agent_rows.row_counts(conn, agent_id)


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
        user_correction_count=r.user_correction_count,
        confirmed_event_ids=list(getattr(r, "confirmed_event_ids", None) or []),
    )


def _failed_retrieval(exc: BaseException, config: MemoryConfig, warnings: list[str], verbose: bool,
                      t0: float) -> RetrieveResult:
    """The empty result a failed retrieve() returns: the failure in warnings and the trace."""
    import logging
    import traceback

    from arandu_pipelines.types import PipelineTrace

    reason = f"{type(exc).__name__}: {redact(str(exc))[:500]}"
    logging.getLogger(__name__).warning("retrieve() failed, returning an empty result: %s", reason)
    result = RetrieveResult(config_effective=config.to_dict(),
                            warnings=[*warnings, f"retrieval failed, empty result returned: {reason}"],
                            strategy="failed")
    if verbose:
        trace = PipelineTrace()
        trace.add("error", 0.0, error=reason, traceback=redact("".join(
            traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]))
        result.pipeline = trace
    result.duration_ms = (time.perf_counter() - t0) * 1000
    return result


def bound_client(
    engine: AsyncEngine, llm: LLMProvider | None, embeddings: EmbeddingProvider | None,
    config: MemoryConfig | None,
) -> MemoryClient:
    """A MemoryClient over the caller's engine (not owned: never closed or disposed here), for
    the spec's pipeline functions that take a session. The schema is the caller's business
    (`arandu_pipelines.db.init_db`), as in the specification."""
    client = MemoryClient(llm=llm, embeddings=embeddings, config=config)
    client._engine = engine
    client._initialized = True
    return client


async def settle(client: MemoryClient) -> None:
    """Let a bound client's deferred work (retrieval counters) finish, leaving the engine open."""
    client._counters.flush_soon()
    if client._background:
        await asyncio.gather(*client._background, return_exceptions=True)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _blocking(
    method: Callable[Concatenate[MemoryClient, _P], Awaitable[_R]],
) -> Callable[Concatenate[SyncMemoryClient, _P], _R]:
    """`MemoryClient.<method>` as a blocking method of SyncMemoryClient: the same parameters and
    result type (so type checkers see e.g. `retrieve() -> RetrieveResult`, not Any)."""

    @functools.wraps(method)
    def call(self: SyncMemoryClient, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return self._loop.run_until_complete(method(self._client, *args, **kwargs))

    return call


class SyncMemoryClient:
    """Blocking facade for scripts: the same methods, run on a private event loop."""

    initialize = _blocking(MemoryClient.initialize)
    write = _blocking(MemoryClient.write)
    import_messages = _blocking(MemoryClient.import_messages)
    extract_pending = _blocking(MemoryClient.extract_pending)
    retrieve = _blocking(MemoryClient.retrieve)
    get = _blocking(MemoryClient.get)
    get_all = _blocking(MemoryClient.get_all)
    delete = _blocking(MemoryClient.delete)
    delete_all = _blocking(MemoryClient.delete_all)
    delete_messages = _blocking(MemoryClient.delete_messages)
    entities = _blocking(MemoryClient.entities)
    stats = _blocking(MemoryClient.stats)

    def __init__(
        self,
        database_url: str | None = None,
        llm: LLMProvider | None = None,
        embeddings: EmbeddingProvider | None = None,
        config: MemoryConfig | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self._loop = asyncio.new_event_loop()
        self._client = MemoryClient(database_url, llm=llm, embeddings=embeddings, config=config,
                                    extractor=extractor)

    def __getattr__(self, name: str) -> Any:
        """Anything else (attributes, methods added later) is passed through untyped."""
        attr = getattr(self._client, name)
        if not asyncio.iscoroutinefunction(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._loop.run_until_complete(attr(*args, **kwargs))

        return call

    def close(self) -> None:
        self._loop.run_until_complete(self._client.close())
        self._loop.close()

    def __enter__(self) -> Self:
        self._loop.run_until_complete(self._client.initialize())
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
