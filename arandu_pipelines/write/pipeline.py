"""The write pipeline over a chunk of stored events of one agent, in `occurred_at` order.

    extract (rules | LLM) -> exact resolution -> ONE embedding call (events, facts, names)
    -> [agent lock] fuzzy/LLM resolution -> reconcile -> relationships -> bulk upsert [commit]

`write()` is a chunk of one; imports and the Dagster extraction run use chunks of many, which is
what makes them fast: one embedding batch and a dozen set-based statements per chunk instead of
per message. Decisions are made in message order with the chunk's own earlier results visible,
so the outcome does not depend on the chunk size. A per-agent advisory lock serialises the
database part of concurrent writers of the same agent (extraction and embedding still overlap).
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import (
    SINGLE_VALUED_ATTRIBUTES,
    fold,
    normalize_attribute_key,
    normalize_rel_type,
)
from arandu_pipelines.protocols import EmbeddingProvider
from arandu_pipelines.types import EntityRef, FactRef, PipelineTrace, TokenUsage
from arandu_pipelines.vocab import NOT_ALIASES
from arandu_pipelines.write import (
    antecedents,
    elided_answers,
    org_antecedents,
    own_things,
    qa_pairs,
    restatements,
    session_names,
    text_collapse,
    thing_antecedents,
    we_named_group,
    we_partner,
)
from arandu_pipelines.write import upsert as db
from arandu_pipelines.write.addressee import AddresseeTracker, fill_from_history
from arandu_pipelines.write.aliases import AliasCache
from arandu_pipelines.write.contradicts import Edge, store_edges
from arandu_pipelines.write.corrections import (
    ATTRIBUTE_RELATION,
    BareCorrection,
    Target,
    bare_correction,
    corrected_text,
    is_correction,
    pick_target,
    speaker_targets,
)
from arandu_pipelines.write.events import EventInput, mark_failed
from arandu_pipelines.write.nlp import ner_labels, ner_texts
from arandu_pipelines.write.parses import NER, PARSE, ChunkParses
from arandu_pipelines.write.prefetch import UnitPrefetch, Units, message_sentences
from arandu_pipelines.write.reconcile import (
    LLMDecider,
    Proposal,
    Reconciler,
    fetch_candidates,
    fetch_restated,
    restatement_texts,
    same_value,
)
from arandu_pipelines.write.resolve import ChunkResolver, Mention, Resolved
from arandu_pipelines.write.types import (
    ExtractedFact,
    ExtractedRelation,
    ExtractionContext,
    ExtractionResult,
)

IMPORTANCE_CATEGORY_MAP = {
    "biographical_milestone": 0.90,
    "relationship_change": 0.85,
    "stable_preference": 0.65,
    "specific_event": 0.50,
    "routine_activity": 0.35,
    "conversational": 0.20,
}
MIRROR_CONFIDENCE = 0.60
MIRROR_CONTEXT = "inferred_from_relation"
RELATION_INITIAL_STRENGTH = 0.8
RELATION_REINFORCE_STEP = 0.1
_MIRROR_TEMPLATES = {
    "lives_in": ("{s} lives in {t}", "location"),
    "works_at": ("{s} works at {t}", "employer"),
    "studies_at": ("{s} studies at {t}", "school"),
    "partner_of": ("{s} is the partner of {t}", None),
    "family_of": ("{s} is family of {t}", None),
    "friend_of": ("{s} is a friend of {t}", None),
    "works_with": ("{s} works with {t}", None),
    "reports_to": ("{s} reports to {t}", None),
    "owns": ("{s} owns {t}", None),
    "member_of": ("{s} is a member of {t}", None),
    "former_employee_of": ("{s} used to work at {t}", None),
    "hired": ("{s} hired {t}", None),
    "manages": ("{s} manages {t}", None),
}

Extractor = Callable[[str, ExtractionContext], Awaitable[ExtractionResult]]
# Informed extraction's zero-LLM steps: alias lookup + pre-retrieval/profile load; fills
# ctx.knowledge / ctx.known_entities. Called only when the extractor wants it.
KnowledgeLoader = Callable[[AsyncConnection, ExtractionContext, str, MemoryConfig], Awaitable[None]]
# Emotion tagging of a message: {"emotion": str, "intensity": float, "energy": str} or None.
EmotionTagger = Callable[[str], Awaitable[dict[str, Any] | None]]


@dataclass
class MessageOutcome:
    event: EventInput
    extraction: ExtractionResult | None = None
    entities: list[Resolved] = field(default_factory=list)
    added: list[FactRef] = field(default_factory=list)
    updated: list[FactRef] = field(default_factory=list)
    unchanged: list[FactRef] = field(default_factory=list)
    deleted: list[FactRef] = field(default_factory=list)
    relationships: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ChunkOutcome:
    messages: list[MessageOutcome]
    trace: PipelineTrace
    tokens: TokenUsage
    entities_created: int = 0
    relationships_upserted: int = 0
    extracted: int = 0
    skipped_already_done: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class _Prepared:
    """One message after extraction and alias normalisation."""

    event: EventInput
    extraction: ExtractionResult
    mentions: list[Mention]
    canonical: dict[str, str]  # folded name -> canonical surface name in this message
    mirrors: list[tuple[ExtractedRelation, ExtractedFact]]


@dataclass
class _Chunk:
    """Everything one chunk's decisions need, gathered before the write transaction."""

    agent_id: str
    config: MemoryConfig
    resolver: ChunkResolver
    prepared: list[_Prepared]
    exact: dict[tuple[int, str], Resolved | None]
    pending: list[tuple[int, Mention]]
    vectors: dict[str, np.ndarray]
    outcome: ChunkOutcome


class WritePipeline:
    def __init__(
        self,
        engine: AsyncEngine,
        embeddings: EmbeddingProvider,
        alias_cache: AliasCache,
        extractor: Extractor,
        llm_decide: LLMDecider | None = None,
        llm_pick_entity: Callable[[str, list[Resolved]], Awaitable[Resolved | None]] | None = None,
        load_knowledge: KnowledgeLoader | None = None,
        tag_emotion: EmotionTagger | None = None,
        usage: TokenUsage | None = None,
        sentences: Callable[[str], list[str]] | None = None,
        on_outcome: Callable[[ChunkOutcome], None] | None = None,
    ) -> None:
        """`usage` is shared with the LLM hooks so every call's tokens land in one place.
        `sentences` is the extractor's sentence splitter, when known (it lets an import encode
        the next chunk's sentences ahead, see `prefetcher`). `on_outcome` sees each `run`'s
        outcome (MemoryClient(on_chunk=...))."""
        self.engine = engine
        self.embeddings = embeddings
        self.alias_cache = alias_cache
        self.extractor = extractor
        self.llm_decide = llm_decide
        self.llm_pick_entity = llm_pick_entity
        self.load_knowledge = load_knowledge
        self.tag_emotion = tag_emotion
        self.usage = usage if usage is not None else TokenUsage()
        self.sentences = sentences
        self.on_outcome = on_outcome
        self.addressees = AddresseeTracker()  # who "you" is: the session's other speaker
        self.previous_turns = antecedents.PreviousTurnTracker()  # what "it" of a reply stands for
        self.partners = we_partner.PartnerTracker()  # the partner a speaker named: the other one of "we"
        self.group_names = we_named_group.GroupNameTracker()  # "I called the choir Harbor Voices"
        self.named = session_names.NamedTracker()  # people and pets the session named: he/she past the window
        self.owned = own_things.OwnThingsTracker()  # what a speaker called their own: whose "The store" is

    def prefetcher(self, config: MemoryConfig) -> UnitPrefetch | None:
        """A prefetch for chunked runs, when this pipeline's embeddings are packed units."""
        if not self._packs_units(config) or self.sentences is None:
            return None
        return UnitPrefetch(self.embeddings, self.sentences)

    def _packs_units(self, config: MemoryConfig) -> bool:
        """Packed mode needs a provider with embed_units(); an API (OpenAI) embeds texts only."""
        return config.embedding_mode == "packed" and hasattr(self.embeddings, "embed_units")

    # ------------------------------------------------------------------------------------------
    async def run(
        self,
        agent_id: str,
        events: list[EventInput],
        config: MemoryConfig,
        dry_run: bool = False,
        prefetch: UnitPrefetch | None = None,
        then: list[EventInput] | None = None,
    ) -> ChunkOutcome:
        """Extract and persist `events` (already stored unless dry_run), in the order given.

        In a chunked run, `prefetch` holds this chunk's sentence vectors if they were started
        ahead, and starts encoding `then` (a later chunk) once this chunk's embedding is done, so
        that encode overlaps this chunk's reconciliation and writes."""
        outcome = await self._run(agent_id, events, config, dry_run, prefetch, then)
        if self.on_outcome is not None:
            self.on_outcome(outcome)
        return outcome

    async def _run(
        self,
        agent_id: str,
        events: list[EventInput],
        config: MemoryConfig,
        dry_run: bool,
        prefetch: UnitPrefetch | None,
        then: list[EventInput] | None,
    ) -> ChunkOutcome:
        trace = PipelineTrace()
        tokens = self.usage
        async with self.engine.connect() as conn:
            aliases = await self.alias_cache.get(conn, agent_id)
            with trace.step("extraction") as step:
                known = (aliases.known_names(), aliases.known_types())  # once per chunk
                prepared = await self._prepare_all(conn, events, known, config, tokens)
                step.data.update(
                    messages=len(prepared),
                    facts=sum(len(p.extraction.facts) for p in prepared),
                    relations=sum(len(p.extraction.relations) for p in prepared),
                    entities=sum(len(p.extraction.entities) for p in prepared),
                    mirror_facts=sum(len(p.mirrors) for p in prepared),
                    modes=sorted({p.extraction.mode for p in prepared}),
                    errors=[p.extraction.error for p in prepared if p.extraction.error],
                    relation_retry_triggered=any(
                        p.extraction.trace.get("relation_retry_triggered") for p in prepared),
                )
                if len(prepared) == 1 and prepared[0].extraction.trace:
                    step.data["llm"] = prepared[0].extraction.trace
        resolver = ChunkResolver(agent_id, aliases, config)
        with trace.step("entity_resolution") as step:
            exact, pending = self._resolve_exact(resolver, prepared)
            step.data.update(exact=sum(1 for r in exact.values() if r is not None),
                             unresolved=len(pending))
        with trace.step("embedding") as step:
            ready = await prefetch.take(events) if prefetch is not None else {}
            vectors, unembedded = await self._embed_isolating(prepared, pending, step.data, config, ready)
        if prefetch is not None and then:
            prefetch.start(then)
        if unembedded:  # kept without facts, marked failed below: extract_pending retries them
            prepared = [_embedding_failed(p, unembedded[i]) if i in unembedded else p
                        for i, p in enumerate(prepared)]
            resolver = ChunkResolver(agent_id, aliases, config)
            exact, pending = self._resolve_exact(resolver, prepared)
        outcome = ChunkOutcome([MessageOutcome(p.event, p.extraction) for p in prepared], trace, tokens)
        chunk = _Chunk(agent_id, config, resolver, prepared, exact, pending, vectors, outcome)
        if dry_run:
            async with self.engine.connect() as conn:
                await self._decide(conn, chunk)
            return outcome
        async with self.engine.begin() as conn:
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtextextended(:a, 0))"), {"a": agent_id}
            )
            keep = await _still_pending(conn, [p.event.event_id for p in prepared])
            if len(keep) < len(prepared):  # another runner extracted some meanwhile: exactly once
                outcome.skipped_already_done = len(prepared) - len(keep)
                chunk.prepared = [p for p in prepared if p.event.event_id in keep]
                outcome.messages = [MessageOutcome(p.event, p.extraction) for p in chunk.prepared]
                chunk.resolver = ChunkResolver(agent_id, aliases, config)
                chunk.exact, chunk.pending = self._resolve_exact(chunk.resolver, chunk.prepared)
            outcome.extracted = len(chunk.prepared)
            if not chunk.prepared:
                return outcome
            await self._decide_and_write(conn, chunk)
        return outcome

    # ------------------------------------------------------------------------------------------
    async def _prepare_all(
        self, conn: AsyncConnection, events: list[EventInput],
        known: tuple[dict[str, str], dict[str, str]], config: MemoryConfig, tokens: TokenUsage,
    ) -> list[_Prepared]:
        """Offline extraction is CPU-bound and fast: one message after another. LLM stages are
        I/O-bound: knowledge loading stays on the chunk's connection (sequential, cheap), then
        the LLM calls of up to 4 messages run concurrently; results keep the chunk's order."""
        addressees = self.addressees.assign(events)
        turns = self.previous_turns.assign(events)
        partners = self.partners.assign(events)
        named = self.named.assign(events)
        owned = self.owned.assign(events)
        if events:
            await fill_from_history(conn, events[0].agent_id, events, addressees)
            await antecedents.fill_from_history(conn, events[0].agent_id, events, turns)
            await we_partner.fill_from_store(conn, events[0].agent_id, events, partners)
            await session_names.fill_from_history(conn, events[0].agent_id, events, named, self.named.seen)
            await own_things.fill_from_history(conn, events[0].agent_id, events, owned)
        couples = self.partners.couples
        group_names = self.group_names.assign(events)
        for e, t, partner, couple, g, n, own in zip(events, turns, partners, couples, group_names, named, owned,
                                                    strict=True):
            e.previous_turns = t
            e.partner = partner
            e.couple_partner = couple or partner
            e.group_names = g
            e.named_before = n
            e.own_things = own
        if self.load_knowledge is None and self.tag_emotion is None:
            seen = frozenset(known[0]) | {e.speaker.casefold() for e in events}
            sync = getattr(self.extractor, "sync", None)
            if sync is not None:  # CPU-bound: in a worker thread, never on the loop serving reads
                return await asyncio.to_thread(self._prepare_offline, sync, events, known, config, tokens,
                                               addressees, seen)
            names, types = dict(known[0]), dict(known[1])
            parses = ChunkParses(config.spacy_model)  # shared by the chunk's stages (write/parses.py)
            labels = await asyncio.to_thread(ner_labels, [e.text for e in events], config.spacy_model, seen, parses)
            out: list[_Prepared] = []
            for e, to, ner in zip(events, addressees, labels, strict=True):
                p = await self._prepare(conn, e, (names, types), config, tokens, to, ner, parses)
                _learn_names(p, names, types)
                out.append(p)
            return out
        contexts = [await self._context(conn, e, known, config, to)
                    for e, to in zip(events, addressees, strict=True)]
        gate = asyncio.Semaphore(4)

        async def one(e: EventInput, ctx: ExtractionContext) -> _Prepared:
            async with gate:
                return await self._extract(e, ctx, config, tokens)

        return list(await asyncio.gather(*(one(e, c) for e, c in zip(events, contexts, strict=True))))

    def _prepare_offline(
        self, extract: Callable[[str, ExtractionContext], ExtractionResult], events: list[EventInput],
        known: tuple[dict[str, str], dict[str, str]], config: MemoryConfig, tokens: TokenUsage,
        addressees: list[str | None], seen: frozenset[str],
    ) -> list[_Prepared]:
        """The chunk's extraction by a synchronous extractor (the rules), run in a worker thread
        by `_prepare_all`: a long message's extraction takes CPU-seconds, which on the event loop
        stalled every `retrieve()` of the process. Same steps and results as the async path
        (addressee and spaCy labels included; spaCy runs here too, off the loop)."""
        names, types = dict(known[0]), dict(known[1])
        # one spaCy pass per component set over what the stages will read (write/parses.py):
        # NER pieces and antecedent texts now, speech-act sentences on demand, all shared
        texts = [e.text for e in events]
        parses = ChunkParses(config.spacy_model)
        parses.want(ner_texts(texts, seen), NER, "ner")
        items = [(e.text, e.speaker, e.previous_turns) for e in events]
        parses.want(antecedents.parse_texts(items), PARSE, antecedents.STAGE)
        parses.want(qa_pairs.parse_texts(items), PARSE, qa_pairs.STAGE)  # question + fragment answer
        parses.want(elided_answers.parse_texts(items), PARSE, elided_answers.STAGE)  # "He did": the question
        parses.want(org_antecedents.parse_texts(items), PARSE, org_antecedents.STAGE)  # organisation "they"
        parses.want(thing_antecedents.parse_texts(items), PARSE, thing_antecedents.STAGE)  # "It" for a thing
        parses.run()
        persons = frozenset(n.casefold() for n, t in types.items() if t == "person")
        parses.want(antecedents.turn_texts(items, parses, persons), PARSE, antecedents.STAGE)
        parses.run()
        labels = ner_labels(texts, config.spacy_model, seen, parses)
        out: list[_Prepared] = []
        for e, to, ner in zip(events, addressees, labels, strict=True):
            ctx = self._new_context(e, (names, types), config, to)
            ctx.ner = ner
            ctx.parses = parses
            try:
                result = extract(e.text, ctx)
            except Exception as exc:  # noqa: BLE001 - fail-safe: the event is kept, extraction is empty (error recorded)
                result = ExtractionResult(mode="failed", error=f"{type(exc).__name__}: {exc}")
            e.emotion = None  # no tagger on this path
            p = self._finish(e, result, config, tokens)
            _learn_names(p, names, types)
            out.append(p)
        return out

    async def _prepare(
        self, conn: AsyncConnection, event: EventInput, known: tuple[dict[str, str], dict[str, str]],
        config: MemoryConfig, tokens: TokenUsage, addressee: str | None = None,
        ner: dict[str, str] | None = None, parses: ChunkParses | None = None,
    ) -> _Prepared:
        ctx = await self._context(conn, event, known, config, addressee)
        ctx.ner = ner
        ctx.parses = parses
        return await self._extract(event, ctx, config, tokens)

    async def _context(
        self, conn: AsyncConnection, event: EventInput, known: tuple[dict[str, str], dict[str, str]],
        config: MemoryConfig, addressee: str | None = None,
    ) -> ExtractionContext:
        ctx = self._new_context(event, known, config, addressee)
        if self.load_knowledge is not None:
            try:
                await self.load_knowledge(conn, ctx, event.text, config)
            except Exception:  # noqa: BLE001 - pre-retrieval is an optimisation; extraction goes on without it
                ctx.knowledge = ""
        return ctx

    def _new_context(
        self, event: EventInput, known: tuple[dict[str, str], dict[str, str]], config: MemoryConfig,
        addressee: str | None = None,
    ) -> ExtractionContext:
        return ExtractionContext(
            speaker_name=event.speaker,
            occurred_at=event.occurred_at,
            timezone=config.timezone,
            known_aliases=known[0],
            known_types=known[1],
            recent_messages=list(event.recent_messages),
            agent_id=event.agent_id,
            addressee=addressee,
            previous_turns=list(event.previous_turns),
            partner=event.partner,
            couple_partner=event.couple_partner,
            group_names=event.group_names,
            named_before=event.named_before,
            own_things=event.own_things,
            spacy_model=config.spacy_model,
        )

    async def _extract(
        self, event: EventInput, ctx: ExtractionContext, config: MemoryConfig, tokens: TokenUsage
    ) -> _Prepared:
        async def emotion() -> dict[str, Any] | None:
            if self.tag_emotion is None or not config.enable_emotion_tagging:
                return None
            try:
                return await self.tag_emotion(event.text)
            except Exception:  # noqa: BLE001 - optional LLM stage: the event is stored untagged
                return None

        async def extract() -> ExtractionResult:
            try:
                return await self.extractor(event.text, ctx)
            except Exception as exc:  # noqa: BLE001 - fail-safe: the event is kept, extraction is empty (error recorded)
                return ExtractionResult(mode="failed", error=f"{type(exc).__name__}: {exc}")

        event.emotion, result = await asyncio.gather(emotion(), extract())
        return self._finish(event, result, config, tokens)

    def _finish(
        self, event: EventInput, result: ExtractionResult, config: MemoryConfig, tokens: TokenUsage
    ) -> _Prepared:
        """An extraction's result as the chunk uses it: facts capped, aliases grouped, mentions."""
        tokens.add(result.tokens_in, result.tokens_out)
        result.facts = result.facts[: config.max_facts_per_event]
        canonical = _alias_groups(result)
        _normalize_subjects(result, canonical)
        mentions = _mentions(result, event.speaker, canonical)
        mirrors = _mirror_candidates(result, canonical)
        return _Prepared(event, result, mentions, canonical, mirrors)

    def _resolve_exact(
        self, resolver: ChunkResolver, prepared: list[_Prepared]
    ) -> tuple[dict[tuple[int, str], Resolved | None], list[tuple[int, Mention]]]:
        exact: dict[tuple[int, str], Resolved | None] = {}
        pending: list[tuple[int, Mention]] = []
        for i, p in enumerate(prepared):
            for m in p.mentions:
                r = resolver.exact(m, p.event.speaker)
                exact[(i, fold(m.name))] = r
                if r is None:
                    pending.append((i, m))
        return exact, pending

    async def _embed(
        self,
        prepared: list[_Prepared],
        pending: list[tuple[int, Mention]],
        data: dict[str, Any],
        config: MemoryConfig,
        ready: dict[Units, list[list[float]]] | None = None,
    ) -> dict[str, np.ndarray]:
        """One embedding call for the chunk; every distinct text is embedded once.

        When the extractor reports the message's sentences and each fact's source sentence (the
        rules extractor does), each sentence is embedded once, as "Speaker: sentence", and
        reused: a fact gets the vector of the sentence it restates, and the message gets the
        length-weighted mean of its sentences' vectors. Attributing the speaker doubles dense
        recall on LoCoMo (questions name people), and the sentence mean beats one vector for the
        whole turn (R@10 0.58-0.61 vs 0.46-0.47 on the dev conversations, MiniLM). The work then
        equals embedding the messages themselves, which is the floor of what ingest costs. Facts without a source sentence (LLM extraction, mirror
        facts) and unresolved names are embedded from their own text (in packed mode as plain
        units of the same call: a plain unit is its encode() vector, cosine > 0.9999, without the
        eager model's per-call overhead). Keys of the returned map: texts, plus
        `_event_key(event)` for each message's vector.
        """
        packs = self._packs_units(config)
        args = (prepared, pending, packs, ready, config.fact_text_dedup_threshold <= 1.0)
        if sum(len(p.extraction.sentences) for p in prepared) <= _INLINE_UNITS:
            texts, whole, per_message, units_of = _embedding_inputs(*args)
        else:  # a long message's thousands of units: listed off the event loop
            texts, whole, per_message, units_of = await asyncio.to_thread(_embedding_inputs, *args)
        data["texts"] = len(texts) + sum(len(u) for u, _ in per_message)
        data["mode"] = "packed" if packs else "sentences"
        if ready:
            data["encoded_ahead"] = sum(len(u) for u, v in per_message if v is not None)
        if not texts and not per_message:
            return {}
        if packs:  # one call: the messages' units, then each text as a plain unit
            got = await self.embeddings.embed_units(  # type: ignore[attr-defined]
                whole + [("", [t]) for t in texts]) if whole or texts else []
            encoded = iter(got[:len(whole)])
            out = [vs[0] for vs in got[len(whole):]]
        else:
            got = []
            as_array = getattr(self.embeddings, "embed_array", None)  # the local model: one array
            out = (await as_array(texts) if as_array is not None else list(await self.embeddings.embed(texts))
                   ) if texts else []
            encoded = iter([])
        if len(out) != len(texts):
            raise ValueError(f"the embedding provider returned {len(out)} vectors for {len(texts)} texts")
        encoded_all = list(encoded)
        n_units = len(out) + sum(len(u) for u, _ in per_message)
        if n_units <= _INLINE_UNITS:
            return _chunk_vectors(texts, out, per_message, encoded_all, prepared, units_of)
        # A long message's thousands of vectors: arrayed off the event loop, and a provider's
        # lists (millions of floats: ~70 ms to free for 25,000 units at once) freed there in
        # slices, so the worker holds their last reference.
        box = [out, encoded_all]
        del got, encoded, out, encoded_all
        return await asyncio.to_thread(_chunk_vectors_boxed, box, texts, per_message, prepared,
                                       units_of)

    async def _embed_isolating(
        self,
        prepared: list[_Prepared],
        pending: list[tuple[int, Mention]],
        data: dict[str, Any],
        config: MemoryConfig,
        ready: dict[Units, list[list[float]]] | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[int, str]]:
        """`_embed` for the chunk; if that fails, once per message, so a message the provider
        cannot embed (a provider error, out of memory) costs only itself. Returns the vectors
        and, per message that could not be embedded, the error: such a message must not be
        stored as extracted without vectors (it is marked failed and retried, see `run`)."""
        try:
            return await self._embed(prepared, pending, data, config, ready), {}
        except Exception as exc:  # noqa: BLE001 - fail-safe: retry per message so a failure costs only its message
            data["error"] = f"{type(exc).__name__}: {exc}"[:500]
            if len(prepared) == 1:
                return {}, {0: data["error"]}
        vectors: dict[str, np.ndarray] = {}
        failed: dict[int, str] = {}
        for i, p in enumerate(prepared):
            try:
                vectors.update(await self._embed([p], [(0, m) for j, m in pending if j == i], {},
                                                 config, ready))
            except Exception as exc:  # noqa: BLE001 - fail-safe: this message is marked failed and retried
                failed[i] = f"{type(exc).__name__}: {exc}"[:500]
        data["failed_messages"] = len(failed)
        return vectors, failed

    # ------------------------------------------------------------------------------------------
    async def _resolve_all(self, conn: AsyncConnection, c: _Chunk) -> list[dict[str, Resolved]]:
        fuzzy_in = [(m, _as_list(c.vectors.get(m.name))) for _, m in c.pending]
        fuzzy_out = await c.resolver.fuzzy(conn, fuzzy_in, self.llm_pick_entity) if fuzzy_in else []
        for (i, m), r in zip(c.pending, fuzzy_out, strict=True):
            c.exact[(i, fold(m.name))] = r
        per_msg: list[dict[str, Resolved]] = []
        for i, p in enumerate(c.prepared):
            names: dict[str, Resolved] = {}
            for m in p.mentions:
                hit = c.exact.get((i, fold(m.name)))
                if hit is not None:
                    names[fold(m.name)] = hit
                    for a in m.aliases:
                        names.setdefault(fold(a), hit)
            per_msg.append(names)
        return per_msg

    def _proposals(
        self,
        prepared: list[_Prepared],
        names: list[dict[str, Resolved]],
        vectors: dict[str, np.ndarray],
        config: MemoryConfig,
    ) -> list[Proposal]:
        proposals: list[Proposal] = []
        for i, p in enumerate(prepared):
            facts = [(f, False) for f in p.extraction.facts] + [(f, True) for _, f in p.mirrors]
            kept: list[Proposal] = []
            for f, mirror in facts:
                subject = names[i].get(fold(f.subject))
                if subject is None:
                    continue
                prop = _proposal(i, p, f, subject, names[i], vectors.get(_fact_unit(p, f)),
                                 mirror, config)
                prop.correction = not mirror and is_correction(
                    f.source_text if f.source_text is not None else p.event.text)
                if not mirror and _collapse(prop, kept, config.semantic_dedup_threshold):
                    continue
                if not mirror and text_collapse.absorb(prop, kept, vectors, config.fact_text_dedup_threshold):
                    continue
                kept.append(prop)
            kept = _bare_corrections(i, p, kept, names[i], config)
            # The spec's per-message safety limit counts every fact the message would store:
            # mirror facts go through the same pipeline as extracted ones, so they count too
            # (extracted facts first; an edge whose mirror fact is cut keeps no evidence fact).
            proposals.extend(kept[: config.max_facts_per_event])
        return proposals

    async def _decide(
        self, conn: AsyncConnection, c: _Chunk
    ) -> tuple[list[dict[str, Resolved]], list[Proposal], Reconciler]:
        t0 = time.perf_counter()
        names = await self._resolve_all(conn, c)
        c.outcome.trace.get("entity_resolution").duration_ms += (time.perf_counter() - t0) * 1000  # type: ignore[union-attr]
        with c.outcome.trace.step("reconciliation") as step:
            proposals = self._proposals(c.prepared, names, c.vectors, c.config)
            cands = await fetch_candidates(conn, c.agent_id, proposals)
            rec = Reconciler(c.config, self.llm_decide)
            if c.config.reconcile_restatement_above <= 1.0:  # write/restatements.py
                stored = await fetch_restated(conn, c.agent_id, proposals)
                for cand, lex in zip(cands, stored, strict=True):
                    cand.lexical = lex
                masked_texts = restatement_texts(proposals, stored)
                rec.restate_vectors = await restatements.vectors_for(
                    masked_texts, lambda t: self._embed_plain(t, c.config))
                step.data["restatement_texts"] = len(masked_texts)
            for prop, cand in zip(proposals, cands, strict=True):
                if prop.bare is not None:  # "actually it's Lisbon": find the fact it corrects
                    if not await self._bind_correction(conn, c, prop, rec, names[prop.msg]):
                        continue
                    cand = (await fetch_candidates(conn, c.agent_id, [prop]))[0]
                await rec.decide(prop, cand)
            proposals = [p for p in proposals if p.action]
            step.data.update(
                decisions={a: sum(1 for p in proposals if p.action == a) for a in
                           ("ADD", "UPDATE", "NOOP", "DELETE")},
                user_corrections=sum(rec.corrected.values()),
                retracted=sum(len(p.deleted) for p in proposals),
                llm_calls=rec.llm_calls,
                llm_failures=rec.llm_failures,
            )
            if len(c.prepared) == 1:  # a single write: show each decision and why
                step.data["proposals"] = [
                    {"text": p.text, "subject": p.subject_key, "action": p.action, "reason": p.reason,
                     "correction": p.correction}
                    for p in proposals
                ]
        for i, msg in enumerate(c.outcome.messages):
            msg.entities = _unique(names[i].values())
        _report(c.outcome, proposals)
        return names, proposals, rec

    async def _embed_plain(self, texts: list[str], config: MemoryConfig) -> Any:
        """Vectors of a few texts known only at reconciliation. In packed mode as plain units
        (the eager model's per-call overhead was ~130 ms CPU for 10 short texts, about as much
        as the texts themselves cost), else one array or the provider's list."""
        if self._packs_units(config):
            got = await self.embeddings.embed_units([("", [t]) for t in texts])  # type: ignore[attr-defined]
            return [vs[0] for vs in got]
        as_array = getattr(self.embeddings, "embed_array", None)
        return await as_array(texts) if as_array is not None else await self.embeddings.embed(texts)

    async def _bind_correction(
        self, conn: AsyncConnection, c: _Chunk, prop: Proposal, rec: Reconciler,
        names: dict[str, Resolved],
    ) -> bool:
        """Turn a bare correction into the corrected fact with the new value (see corrections.py).
        The speaker's facts created earlier in this chunk count too (most recent first)."""
        bare: BareCorrection = prop.bare  # type: ignore[assignment]
        local = rec.chunk_facts.get(prop.subject_key)
        targets = [Target(f.id, f.attribute_key or "", f.value_text or "", f.fact_text, f.valid_from)
                   for f in reversed(local.facts if local else [])
                   if f.attribute_key in SINGLE_VALUED_ATTRIBUTES and f.value_text and f.id not in rec.closed]
        targets += [t for t in await speaker_targets(conn, c.agent_id, prop.subject_key)
                    if t.id not in rec.closed]
        value = names.get(fold(bare.new))
        target = pick_target(bare, targets, prop.occurred_at, value.entity_type if value else None)
        if target is None:
            return False
        prop.text = corrected_text(target, bare.new, prop.subject_name)
        prop.__dict__.pop("norm", None)
        prop.attribute_key, prop.value, prop.correction, prop.bare = (
            target.attribute_key, bare.new, True, None)
        folded = fold(prop.text)
        prop.mention_keys = sorted({r.key for n, r in names.items()
                                    if r.key != prop.subject_key and len(n) >= 3 and n in folded})
        try:
            got = await self.embeddings.embed([prop.text])
            v = np.asarray(got[0], dtype=np.float32)
            prop.embedding = v / (np.linalg.norm(v) or 1.0)
        except Exception:  # noqa: BLE001 - fail-safe: stored without a vector, like any fact when embedding fails
            prop.embedding = None
        rel = ATTRIBUTE_RELATION.get(target.attribute_key)
        prepared = c.prepared[prop.msg]
        if rel and fold(bare.new) in {fold(m.name) for m in prepared.mentions}:
            prepared.extraction.relations.append(
                ExtractedRelation(prepared.event.speaker, rel, bare.new))
        return True

    async def _decide_and_write(self, conn: AsyncConnection, c: _Chunk) -> None:
        names, proposals, rec = await self._decide(conn, c)
        agent_id, prepared, outcome, vectors = c.agent_id, c.prepared, c.outcome, c.vectors
        resolver = c.resolver
        with outcome.trace.step("upsert") as step:
            plan = await _plan_writes(conn, agent_id, prepared, names, proposals, rec)
            try:
                async with conn.begin_nested():
                    await _flush(conn, agent_id, plan)
                step.data["mode"] = "bulk"
            except Exception as exc:  # noqa: BLE001 - replay one fact at a time, each in its own savepoint
                step.data["mode"] = "per_fact"
                step.data["bulk_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                errors, lost = await _flush_per_fact(conn, agent_id, plan)
                outcome.errors.extend(errors)
                _forget_lost(outcome, lost)
                step.data["facts_lost"] = len(lost)
                _fail_lost(prepared, plan, lost, errors)
            ok = [(p.event.event_id, p) for p in prepared
                  if p.event.event_id and p.extraction.mode != "failed"]
            failed = [(p.event.event_id, p) for p in prepared
                      if p.event.event_id and p.extraction.mode == "failed"]
            await db.mark_events_done(
                conn, [event_id for event_id, _ in ok],
                [_as_list(vectors.get(_event_key(p.event))) for _, p in ok],
                [p.event.emotion for _, p in ok],
            )
            step.data["event_units"] = await db.insert_event_units(
                conn, agent_id, [event_id for event_id, _ in ok],
                [vectors.get(_units_idx_key(p.event)) for _, p in ok],
                [vectors.get(_units_key(p.event)) for _, p in ok])
            outcome.extracted = len(ok)
            for event_id, p in failed:  # kept, retried later by extract_pending / the Dagster sensor
                await mark_failed(conn, [event_id], p.extraction.error or "extraction failed")
                outcome.errors.append(f"extraction failed for event {p.event.event_id}: {p.extraction.error}")
            await db.refresh_fact_counts(conn, agent_id, sorted(plan.touched_keys))
            attribute_keys = [(a.get("key"), a.get("action", "allow"), a.get("raw", ""))
                              for p in prepared for a in p.extraction.trace.get("attribute_keys", [])]
            if attribute_keys:
                from arandu_pipelines.write.attributes import record_attribute_keys

                await record_attribute_keys(conn, agent_id, attribute_keys)
            step.data.update(
                facts_inserted=len(plan.facts),
                facts_closed=len(plan.closes),
                links=len(plan.links),
                entities=len(plan.entities),
                relationships=len(plan.relationships),
                relationships_cascaded=plan.cascaded,
                errors=outcome.errors,
            )
            outcome.entities_created = sum(1 for e in resolver.new_entities.values() if e.is_new)
            outcome.relationships_upserted = len(plan.relationships)
        for msg, rels in zip(outcome.messages, plan.rels_by_msg, strict=True):
            msg.relationships = rels


async def _still_pending(conn: AsyncConnection, event_ids: list[str | None]) -> set[str]:
    ids = [e for e in event_ids if e]
    rows = (
        await conn.execute(
            text("SELECT id FROM memory_events WHERE id = ANY(CAST(:ids AS uuid[])) "
                 "AND extraction_status <> 'done' FOR UPDATE"),
            {"ids": ids},
        )
    ).all()
    return {str(r.id) for r in rows}


def _embedding_inputs(
    prepared: list[_Prepared], pending: list[tuple[int, Mention]], packs: bool,
    ready: dict[Units, list[list[float]]] | None, fact_texts: bool = False,
) -> tuple[list[str], list[tuple[str, list[str]]], list[tuple[list[str], list[list[float]] | None]],
           list[list[str]]]:
    """What `WritePipeline._embed` encodes: distinct texts (facts, names, and in sentence mode the
    units), the messages to encode as units (packed mode), per message its units and any vectors
    encoded ahead, and per message its units (for its mean vector). With `fact_texts`, also the
    own texts of the facts `text_collapse` may compare (`text_collapse.candidates`)."""
    texts: list[str] = []
    seen: set[str] = set()

    def want(t: str | None) -> None:
        if t and t not in seen:
            seen.add(t)
            texts.append(t)

    whole: list[tuple[str, list[str]]] = []  # messages to encode now: (speaker, sentences)
    # per message, in order: its units and their vectors (None: in `whole`, encoded below)
    per_message: list[tuple[list[str], list[list[float]] | None]] = []
    units_of: list[list[str]] = []
    for p in prepared:
        key = (p.event.speaker, message_sentences(p.extraction.sentences, p.event.text))
        units = [f"{key[0]}: {s}" for s in key[1]]  # each sentence attributed to its speaker
        units_of.append(units)
        if not packs:
            for unit in units:
                want(unit)
        else:
            per_message.append((units, (ready or {}).get(key)))
            if per_message[-1][1] is None:
                whole.append((key[0], list(key[1])))
            seen.update(units)
        for f in p.extraction.facts:
            want(_fact_unit(p, f))
        if fact_texts:
            for t in text_collapse.candidates(p.extraction.facts):
                want(t)
        for _, f in p.mirrors:
            want(f.fact_text)
    for _, m in pending:
        want(m.name)
    return texts, whole, per_message, units_of


# Up to this many vectors a chunk's arrays are built on the event loop (well under a millisecond);
# above, in a worker thread: a 50,000-character message's ~600 vectors took ~70 ms of the loop.
_INLINE_UNITS = 256
# A multi-sentence message's unit gets its own row in memory_event_units only from this many
# words ("Speaker:" included): "Ana: Yes, totally!" carries nothing its message's mean does not,
# and short units' vectors sit near every question naming the speaker. On the dev pair (issue
# 19): every unit R@5 0.706 / R@10 0.762, >= 4 words 0.697 / 0.763, >= 6 words 0.689 / 0.765.
MIN_UNIT_WORDS = 6
# At most this many unit rows per message: a message is at most max_message_chars long, but
# thousands of rows of one message would be inserted (and HNSW-indexed) from the event loop; the
# message's own vector still covers the rest of it.
MAX_UNITS_PER_EVENT = 256


def _chunk_vectors(
    texts: list[str], out: Any, per_message: list[tuple[list[str], Any]],
    encoded: list[Any], prepared: list[_Prepared], units_of: list[list[str]],
) -> dict[str, np.ndarray]:
    """The normalised vector of every text, of the units facts are looked up by, and of every
    message (the length-weighted mean of its units, plus its rows for memory_event_units), keyed
    as `WritePipeline._embed` returns them.

    Set-wise over each message's array: a 100,000-character message can hold 25,000 one-word
    sentences, and a Python step per unit (a dict entry, a stacked copy) on top of millions of
    floats held the GIL long enough to stall the event loop 60-140 ms. A packed message's mean
    and rows are its own units' vectors (before: the vector of the last unit of the chunk with
    the same text, which made a repeated sentence's vector depend on its neighbours)."""
    text_arr = _unit_rows(out)
    index = {t: i for i, t in enumerate(texts)}
    vectors = {t: text_arr[i] for t, i in index.items()}
    wanted = _looked_up(prepared)
    own: list[np.ndarray] = []  # packed mode: per message, its units' vectors in order
    fresh = iter(encoded)
    for units, vecs in per_message:
        arr = _unit_rows(vecs if vecs is not None else next(fresh))
        if len(arr) != len(units):
            raise ValueError(f"the embedding provider returned {len(arr)} vectors for {len(units)} units")
        own.append(arr)
        for k in (k for k, u in enumerate(units) if u in wanted):  # a fact restating a sentence
            vectors[units[k]] = arr[k]
    for m, (p, sentences) in enumerate(zip(prepared, units_of, strict=True)):
        stacked = own[m] if own else text_arr[[index[s] for s in sentences]]
        if len(sentences) == 1:
            vectors[_event_key(p.event)] = stacked[0]
            continue
        words = np.fromiter((len(s.split()) for s in sentences), dtype=np.int32, count=len(sentences))
        weights = np.maximum(words, 1).astype(np.float32)
        mean = (stacked * weights[:, None]).sum(axis=0)
        vectors[_event_key(p.event)] = mean / (np.linalg.norm(mean) or 1.0)
        # the sentence-level index (memory_event_units): the units long enough to say something
        kept = np.flatnonzero(words >= MIN_UNIT_WORDS)[:MAX_UNITS_PER_EVENT].astype(np.int32)
        if kept.size:
            vectors[_units_key(p.event)] = stacked[kept]
            vectors[_units_idx_key(p.event)] = kept
    return vectors


def _unit_rows(vecs: Any) -> np.ndarray:
    """Vectors (an array, or a provider's lists) as a normalised float32 matrix. Lists are
    converted in slices: one asarray over tens of thousands of them holds the GIL (and so the
    event loop) for hundreds of milliseconds."""
    if isinstance(vecs, np.ndarray):
        arr = vecs.astype(np.float32, copy=False)
        if arr.ndim != 2 or not len(arr):
            return arr.reshape(len(arr), -1) if arr.size else np.zeros((len(arr), 1), np.float32)
    elif len(vecs):
        arr = np.concatenate([np.asarray(vecs[i:i + _INLINE_UNITS], dtype=np.float32).reshape(-1, len(vecs[0]))
                              for i in range(0, len(vecs), _INLINE_UNITS)])
    else:
        return np.zeros((0, 1), np.float32)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    return arr / np.where(norms == 0, 1, norms)


def _looked_up(prepared: list[_Prepared]) -> set[str]:
    """The texts whose vectors are looked up by text: a fact's (see `_fact_unit`) and a name's."""
    return {_fact_unit(p, f) for p in prepared for f in p.extraction.facts} | {
        f.fact_text for p in prepared for _, f in p.mirrors} | {m.name for p in prepared for m in p.mentions}


def _chunk_vectors_boxed(box: list[Any], texts: list[str], per_message: list[Any],
                         prepared: list[_Prepared], units_of: list[list[str]]) -> dict[str, np.ndarray]:
    """`_chunk_vectors` over the vectors in `box`, which this thread then frees: a provider's
    nested lists (millions of floats) are freed a slice at a time, since freeing them at once is
    one long stretch under the GIL whichever thread does it."""
    out, encoded = box
    box.clear()
    try:
        return _chunk_vectors(texts, out, per_message, encoded, prepared, units_of)
    finally:
        for vecs in [out, *encoded]:
            while isinstance(vecs, list) and vecs:
                del vecs[-_INLINE_UNITS:]


def _embedding_failed(p: _Prepared, error: str) -> _Prepared:
    """`p` with nothing to write: its event is marked failed (extraction is retried as a whole,
    vectors included) instead of stored as extracted with no vectors."""
    result = ExtractionResult(mode="failed", error=f"embedding failed: {error}",
                              sentences=p.extraction.sentences)
    return _Prepared(p.event, result, _mentions(result, p.event.speaker, {}), {}, [])


def _learn_names(p: _Prepared, names: dict[str, str], types: dict[str, str]) -> None:
    """Make the entities `p` introduced known to the messages after it in the same chunk, as
    they would be had `p` been committed first (its names become aliases at commit): the
    extraction of a message must not depend on where the chunks of an import split."""
    for ent in p.extraction.entities:
        display = names.setdefault(fold(ent.name), ent.name)
        for alias in ent.aliases:
            names.setdefault(fold(alias), display)
        if ent.entity_type and ent.entity_type != "other":
            types.setdefault(display, ent.entity_type)


def _fact_unit(p: _Prepared, f: ExtractedFact) -> str:
    return f"{p.event.speaker}: {f.source_text.strip()}" if f.source_text else f.fact_text


def _event_key(event: EventInput) -> str:
    return f"\x00event:{id(event)}"


def _units_key(event: EventInput) -> str:
    """Key of a multi-sentence message's unit vectors (one row each) in `_embed`'s map."""
    return f"\x00units:{id(event)}"


def _units_idx_key(event: EventInput) -> str:
    """Key of the positions (unit_idx) of the vectors under `_units_key(event)`."""
    return f"\x00unit-idx:{id(event)}"


# ---- extraction post-processing -------------------------------------------------------------
def _alias_groups(result: ExtractionResult) -> dict[str, str]:
    """folded alias or name -> the entity's canonical name within this message."""
    canonical: dict[str, str] = {}
    for e in result.entities:
        canonical.setdefault(fold(e.name), e.name)
        for a in e.aliases:
            canonical.setdefault(fold(a), e.name)
    return canonical


def _normalize_subjects(result: ExtractionResult, canonical: dict[str, str]) -> None:
    """Rewrite facts and relations that use an alias to the canonical name; drop self-edges."""
    for f in result.facts:
        f.subject = canonical.get(fold(f.subject), f.subject)
        f.mentions = [canonical.get(fold(m), m) for m in f.mentions]
    rels = []
    for r in result.relations:
        r.source = canonical.get(fold(r.source), r.source)
        r.target = canonical.get(fold(r.target), r.target)
        if fold(r.source) != fold(r.target):
            rels.append(r)
    result.relations = rels


def _mentions(result: ExtractionResult, speaker: str, canonical: dict[str, str]) -> list[Mention]:
    out: dict[str, Mention] = {fold(speaker): Mention(speaker, "person", [], True)}
    for e in result.entities:
        out.setdefault(fold(e.name), Mention(e.name, e.entity_type, list(e.aliases), e.is_speaker))
    extra = [f.subject for f in result.facts]
    extra += [m for f in result.facts for m in f.mentions]
    extra += [n for r in result.relations for n in (r.source, r.target)]
    for name in extra:
        name = canonical.get(fold(name), name)
        if fold(name) and fold(name) not in out:
            out[fold(name)] = Mention(name, "other")
    return list(out.values())


def _mirror_candidates(
    result: ExtractionResult, canonical: dict[str, str]
) -> list[tuple[ExtractedRelation, ExtractedFact]]:
    """Relations with no fact naming both ends get a synthetic fact (the spec's mirror facts)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for alias, name in canonical.items():
        groups[fold(name)].append(alias)
    out = []
    for r in result.relations:
        if r.retracts:
            continue
        s_names = groups.get(fold(r.source), [fold(r.source)])
        t_names = groups.get(fold(r.target), [fold(r.target)])
        if any(_mentions_any(f.fact_text, s_names) and _mentions_any(f.fact_text, t_names)
               for f in result.facts):
            continue
        rel = normalize_rel_type(r.rel_type)
        template, attribute = _MIRROR_TEMPLATES.get(rel, ("{s} " + rel.replace("_", " ") + " {t}", None))
        out.append((r, ExtractedFact(
            subject=r.source,
            fact_text=template.format(s=r.source, t=r.target),
            attribute_key=attribute,
            value=r.target if attribute else None,
            importance_category="specific_event",
            confidence=MIRROR_CONFIDENCE,
            source_context=MIRROR_CONTEXT,
            mentions=[r.target],
            rule_kind="mirror",
        )))
    return out


def _mentions_any(fact_text: str, folded_names: list[str]) -> bool:
    t = fold(fact_text)
    return any(n and n in t for n in folded_names)


def _proposal(
    i: int,
    p: _Prepared,
    f: ExtractedFact,
    subject: Resolved,
    names: dict[str, Resolved],
    embedding: np.ndarray | None,
    mirror: bool,
    config: MemoryConfig,
) -> Proposal:
    folded_text = fold(f.fact_text)
    mention_keys: list[str] = []
    for name, r in sorted(names.items()):
        if r.key != subject.key and len(name) >= 3 and name in folded_text and r.key not in mention_keys:
            mention_keys.append(r.key)
    for m in f.mentions:
        named = names.get(fold(m))
        if named is not None and named.key != subject.key and named.key not in mention_keys:
            mention_keys.append(named.key)
    category = f.importance_category if f.importance_category in IMPORTANCE_CATEGORY_MAP else "specific_event"
    return Proposal(
        msg=i,
        fact=f,
        subject_key=subject.key,
        subject_name=subject.display_name,
        subject_type=subject.entity_type,
        text=f.fact_text.strip(),
        attribute_key=normalize_attribute_key(f.attribute_key),
        value=f.value,
        importance=IMPORTANCE_CATEGORY_MAP[category],
        confidence=float(f.confidence if f.confidence is not None else config.confidence_default),
        category=category,
        occurred_at=p.event.occurred_at,
        mention_keys=mention_keys,
        is_mirror=mirror,
        embedding=embedding,
    )


# Attribute keys that say only what kind of statement a fact is, not which slot it fills.
_GENERIC_ATTRIBUTES = frozenset({"event", "plan", "preference"})


def _structural(p: Proposal) -> bool:
    return p.fact.retracts or (p.attribute_key is not None and p.attribute_key not in _GENERIC_ATTRIBUTES)


def _collapse(p: Proposal, kept: list[Proposal], threshold: float) -> bool:
    """Near-duplicates within one message become one fact; True when `p` was absorbed.

    Same subject and: the same text (folded); or the same attribute with the same value ("lives
    in Lisbon" twice in other words); or, from different sentences, cosine above `threshold`
    with the same attribute; or, from the same sentence (whose shared vector says nothing), one
    text's words all inside the other's ("Clara left Vertix" / "Clara left Vertix and joined
    Orion Tech"). Containment keeps one fact with the longer text and the structured attribute
    (retraction or slot) of either; two different slots ("works at Acme as an engineer": employer
    and occupation) are not duplicates."""
    for idx, k in enumerate(kept):
        if k.subject_key != p.subject_key or k.is_mirror:
            continue
        if k.norm == p.norm:
            return True
        if (p.attribute_key and p.attribute_key == k.attribute_key and p.fact.retracts == k.fact.retracts
                and same_value(p.value, k.value)):
            return True
        if (p.embedding is not None and k.embedding is not None and not p.fact.retracts
                and not k.fact.retracts and p.origin != k.origin
                and float(np.dot(p.embedding, k.embedding)) > threshold
                and (p.attribute_key == k.attribute_key)):
            return True
        if p.origin != k.origin or (_structural(p) and _structural(k)):
            continue
        pw, kw = set(p.norm.split()), set(k.norm.split())
        if len(pw) >= 3 and pw <= kw:
            long = k
        elif len(kw) >= 3 and kw <= pw:
            long = p
        else:
            continue
        keep = p if _structural(p) else k  # the structured one carries on, with the longer text
        if keep is not long:
            keep.text = long.text
            keep.__dict__.pop("norm", None)
            keep.mention_keys = list(dict.fromkeys(keep.mention_keys + long.mention_keys))
            keep.importance = max(keep.importance, long.importance)
        kept[idx] = keep
        return True
    return False


def _bare_corrections(
    i: int, p: _Prepared, kept: list[Proposal], names: dict[str, Resolved], config: MemoryConfig
) -> list[Proposal]:
    """Sentences that only name a corrected value ("No, it's Globex") become placeholders bound
    to the corrected fact during reconciliation; the generic fact extraction made of the same
    sentence ("Rafael mentioned that it's Globex") is dropped. A sentence from which extraction
    already took a single-valued attribute is left to that fact (flagged as a correction)."""
    speaker = names.get(fold(p.event.speaker))
    if speaker is None:
        return kept
    for sentence in message_sentences(p.extraction.sentences, p.event.text):
        bare = bare_correction(sentence)
        if bare is None:
            continue
        same = [k for k in kept if k.fact.source_text is not None and k.fact.source_text.strip() == sentence]
        if any(k.attribute_key in SINGLE_VALUED_ATTRIBUTES for k in same) or any(
                k.attribute_key in SINGLE_VALUED_ATTRIBUTES and k.fact.source_text is None
                and not k.is_mirror for k in kept):
            continue  # extraction (e.g. the LLM, which gives no source sentence) already has it
        kept = [k for k in kept if k not in same or k.attribute_key]
        placeholder = _proposal(i, p, ExtractedFact(p.event.speaker, sentence, source_text=sentence,
                                                    importance_category="biographical_milestone",
                                                    rule_kind="correction"),
                                speaker, names, None, False, config)
        placeholder.bare = bare
        kept.append(placeholder)
    return kept


def _unique(items: Any) -> list[Resolved]:
    out: dict[str, Resolved] = {}
    for r in items:
        out.setdefault(r.key, r)
    return list(out.values())


def _as_list(v: np.ndarray | None) -> list[float] | None:
    return None if v is None else v.tolist()


def _ref(p: Proposal) -> FactRef:
    return FactRef(
        fact_id=p.fact_id or "",
        entity_key=p.subject_key,
        entity_name=p.subject_name,
        fact_text=p.text,
        attribute_key=p.attribute_key,
        confidence=p.confidence,
        importance=p.importance,
        supersedes_fact_id=p.target.id if p.action == "UPDATE" and p.target else None,
    )


def _report(outcome: ChunkOutcome, proposals: list[Proposal]) -> None:
    for p in proposals:
        msg = outcome.messages[p.msg]
        if p.action == "ADD":
            msg.added.append(_ref(p))
        elif p.action == "UPDATE":
            msg.updated.append(_ref(p))
        elif p.action == "NOOP":
            ref = _ref(p)
            if p.target is not None:
                ref.fact_text = p.target.fact_text
            msg.unchanged.append(ref)
        for d in p.deleted:
            msg.deleted.append(FactRef(d.id, d.entity_key, p.subject_name, d.fact_text, d.attribute_key,
                                       d.confidence))


def entity_refs(msg: MessageOutcome) -> list[EntityRef]:
    return [EntityRef(r.key, r.display_name, r.entity_type, r.method, r.mention) for r in msg.entities]


# ---- write planning --------------------------------------------------------------------------
@dataclass
class _Plan:
    facts: list[db.FactRow] = field(default_factory=list)
    closes: list[tuple[str, datetime]] = field(default_factory=list)
    reinforce: dict[str, tuple[int, datetime]] = field(default_factory=dict)
    confirmations: list[tuple[str, str, datetime]] = field(default_factory=list)  # (fact, event, when)
    corrections: dict[str, int] = field(default_factory=dict)  # corrected fact id -> count
    links: list[tuple[str, str, bool]] = field(default_factory=list)
    entities: list[db.EntityRow] = field(default_factory=list)
    aliases: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    relationships: list[db.RelRow] = field(default_factory=list)
    touched_keys: set[str] = field(default_factory=set)
    rels_by_msg: list[list[dict[str, Any]]] = field(default_factory=list)
    cascaded: int = 0
    agent_id: str = ""
    contradicts: list[Edge] = field(default_factory=list)  # write/contradicts.py


async def _plan_writes(
    conn: AsyncConnection,
    agent_id: str,
    prepared: list[_Prepared],
    names: list[dict[str, Resolved]],
    proposals: list[Proposal],
    rec: Reconciler,
) -> _Plan:
    plan = _Plan(agent_id=agent_id, rels_by_msg=[[] for _ in prepared])
    by_msg: dict[int, list[Proposal]] = defaultdict(list)
    for p in proposals:
        by_msg[p.msg].append(p)
        ev = prepared[p.msg].event
        if p.action in ("ADD", "UPDATE"):
            plan.facts.append(db.FactRow(
                id=p.fact_id or "", entity_type=p.subject_type, entity_key=p.subject_key,
                entity_name=p.subject_name, attribute_key=p.attribute_key, value_text=p.value,
                fact_text=p.text, category=p.category, confidence=p.confidence,
                importance=p.importance, valid_from=p.occurred_at, valid_to=p.historical_until,
                source_event_id=ev.event_id, supersedes_fact_id=p.target.id if p.target and p.action == "UPDATE" else None,
                embedding=_as_list(p.embedding), source_context=p.fact.source_context,
                speaker=ev.speaker, session_id=ev.session_id, event_date=p.fact.event_date,
                rule_kind=p.fact.rule_kind,
            ))
            plan.links.append((p.fact_id or "", p.subject_key, True))
            plan.links.extend((p.fact_id or "", k, False) for k in p.mention_keys)
            plan.touched_keys.add(p.subject_key)
            plan.touched_keys.update(p.mention_keys)
            plan.contradicts.extend(Edge(p.fact_id or "", f.id, p.subject_key, p.subject_name, p.text, f.fact_text)
                                    for f in p.contradicts)
        if p.action == "NOOP" and p.fact_id and ev.event_id:
            plan.confirmations.append((p.fact_id, ev.event_id, p.occurred_at))
        if p.action == "UPDATE" and p.target is not None:
            plan.closes.append((p.target.id, p.occurred_at))
            plan.touched_keys.add(p.target.entity_key)
        for d in p.deleted:
            plan.closes.append((d.id, p.occurred_at))
            plan.touched_keys.add(d.entity_key)
    plan.corrections = dict(rec.corrected)
    for fid, n in rec.reinforced.items():
        when = max(p.occurred_at for p in proposals if p.action == "NOOP" and p.fact_id == fid)
        plan.reinforce[fid] = (n, when)
    extra = rec.config.extra_self_references | rec.config.extra_relationship_hints
    _plan_entities(plan, prepared, names, NOT_ALIASES | {fold(w) for w in extra})
    await _plan_relationships(conn, plan, prepared, names, by_msg)
    return plan


def _plan_entities(
    plan: _Plan, prepared: list[_Prepared], names: list[dict[str, Resolved]], not_aliases: frozenset[str]
) -> None:
    """Entity rows and alias registrations; pronouns and bare relationship terms (built-in and
    the deployer's extras) are never registered as aliases: they mean someone else per speaker."""
    rows: dict[str, db.EntityRow] = {}
    aliases: dict[str, tuple[str, str, str, str, str]] = {}
    for i, p in enumerate(prepared):
        t = p.event.occurred_at
        profiles = {fold(n): text for n, text in p.extraction.profiles.items() if text}
        for r in _unique(names[i].values()):
            row = rows.get(r.key)
            profile = next((profiles[f] for f, rr in names[i].items() if rr.key == r.key and f in profiles), None)
            if row is None:
                rows[r.key] = db.EntityRow(r.key, r.display_name, r.entity_type,
                                           r.embedding if r.is_new else None, t, t, profile)
            else:
                row.first_seen, row.last_seen = min(row.first_seen, t), max(row.last_seen, t)
            plan.touched_keys.add(r.key)
            for alias, source in [(r.display_name, "display_name"), (r.mention, "mention"),
                                  *[(a, "extraction") for a in r.aliases]]:
                folded = fold(alias)
                if not folded or folded in not_aliases:
                    continue
                aliases.setdefault(folded, (folded, alias, r.key, r.entity_type, source))
        for m in p.mentions:  # extraction-provided aliases of entities resolved in this message
            named = names[i].get(fold(m.name))
            if named is None:
                continue
            for a in m.aliases:
                aliases.setdefault(fold(a), (fold(a), a, named.key, named.entity_type, "extraction"))
    plan.entities = list(rows.values())
    plan.aliases = list(aliases.values())



async def _plan_relationships(
    conn: AsyncConnection,
    plan: _Plan,
    prepared: list[_Prepared],
    names: list[dict[str, Resolved]],
    by_msg: dict[int, list[Proposal]],
) -> None:
    """Replay relation statements and cascades in message order over the edges' current state."""
    ops: list[tuple[int, str, str, str, ExtractedRelation]] = []
    for i, p in enumerate(prepared):
        for r in p.extraction.relations:
            src, tgt = names[i].get(fold(r.source)), names[i].get(fold(r.target))
            if src is None or tgt is None or src.key == tgt.key:
                continue  # unresolved end, or a self-reference after resolution
            ops.append((i, src.key, tgt.key, normalize_rel_type(r.rel_type), r))
    keys = sorted({(s, t, k) for _, s, t, k, _ in ops})
    state: dict[tuple[str, str, str], db.RelRow] = {
        (r.source, r.target, r.rel_type): r for r in await db.load_relationships(conn, plan.agent_id, keys)
    }
    closed_by_msg: dict[int, set[str]] = defaultdict(set)
    for prop in (prop for ps in by_msg.values() for prop in ps):
        if prop.action == "UPDATE" and prop.target is not None:
            closed_by_msg[prop.msg].add(prop.target.id)
        closed_by_msg[prop.msg].update(d.id for d in prop.deleted)
    dirty: set[tuple[str, str, str]] = set()
    for i, p in enumerate(prepared):
        when = p.event.occurred_at
        for open_key, open_row in state.items():  # cascade: evidence superseded or retracted
            if open_row.valid_to is None and open_row.evidence_fact_id in closed_by_msg[i]:
                open_row.valid_to, open_row.invalidated = when, True
                dirty.add(open_key)
        for (mi, s, t, k, rel) in (o for o in ops if o[0] == i):
            key = (s, t, k)
            row = state.get(key)
            if rel.retracts:
                if row is not None and row.valid_to is None:
                    row.valid_to, row.invalidated = when, True
                    dirty.add(key)
                    plan.rels_by_msg[i].append({"source": s, "rel_type": k, "target": t, "action": "invalidated"})
                continue
            evidence = _evidence(by_msg.get(i, []), rel, names[i])
            if row is None:
                row = db.RelRow(s, t, k, RELATION_INITIAL_STRENGTH, 0, evidence, p.event.event_id,
                                "rule" if p.extraction.mode == "rules" else "llm", when, None, False)
                state[key] = row
                action = "created"
            elif row.valid_to is not None:
                row.strength, row.valid_from, row.valid_to, row.invalidated = (
                    RELATION_INITIAL_STRENGTH, when, None, False)
                row.evidence_fact_id = evidence or row.evidence_fact_id
                action = "reactivated"
            else:
                row.strength = min(1.0, round(row.strength + RELATION_REINFORCE_STEP, 4))
                row.times_reinforced += 1
                row.evidence_fact_id = evidence or row.evidence_fact_id
                action = "reinforced"
            row.evidence_event_id = p.event.event_id or row.evidence_event_id
            dirty.add(key)
            plan.rels_by_msg[i].append({"source": s, "rel_type": k, "target": t, "action": action,
                                        "strength": row.strength, "evidence_fact_id": row.evidence_fact_id})
    plan.relationships = [state[k] for k in sorted(dirty)]


def _evidence(props: list[Proposal], rel: ExtractedRelation, names: dict[str, Resolved]) -> str | None:
    """The fact of this message that names both ends of the edge (highest confidence wins)."""
    s, t = names.get(fold(rel.source)), names.get(fold(rel.target))
    if s is None or t is None:
        return None
    s_names = [n for n, r in names.items() if r.key == s.key]
    t_names = [n for n, r in names.items() if r.key == t.key]
    best: Proposal | None = None
    for p in props:
        if p.action not in ("ADD", "UPDATE", "NOOP") or p.fact_id is None:
            continue
        if ((_mentions_any(p.text, s_names) or p.subject_key == s.key)
                and (_mentions_any(p.text, t_names) or p.subject_key == t.key)
                and (best is None or p.confidence > best.confidence)):
            best = p
    return best.fact_id if best else None


async def _flush(conn: AsyncConnection, agent_id: str, plan: _Plan) -> None:
    await db.upsert_entities(conn, agent_id, plan.entities)
    await db.insert_aliases(conn, agent_id, plan.aliases)
    await db.insert_facts(conn, agent_id, plan.facts)
    await db.close_facts(conn, agent_id, plan.closes)  # after insert: may close this chunk's facts
    await db.reinforce_facts(conn, agent_id, plan.reinforce)
    await db.record_confirmations(conn, agent_id, plan.confirmations)
    await db.record_corrections(conn, agent_id, plan.corrections)
    await db.insert_links(conn, agent_id, plan.links)
    keep = [(r.source, r.target, r.rel_type) for r in plan.relationships]
    plan.cascaded = await db.cascade_relationships(conn, agent_id, plan.closes, keep)
    await db.upsert_relationships(conn, agent_id, plan.relationships)
    await store_edges(conn, agent_id, plan.contradicts)


def _fail_lost(prepared: list[_Prepared], plan: _Plan, lost: set[str], errors: list[str]) -> None:
    """A message some of whose facts could not be stored is not done: it is marked failed (its
    stored facts stay) so extract_pending retries it, instead of being marked extracted with
    facts silently missing."""
    by_event: dict[str, int] = defaultdict(int)
    for f in plan.facts:
        if f.id in lost and f.source_event_id:
            by_event[f.source_event_id] += 1
    for p in prepared:
        n = by_event.get(p.event.event_id or "")
        if n and p.extraction.mode != "failed":
            p.extraction.mode = "failed"
            p.extraction.error = (f"{n} fact(s) could not be stored, retried later: "
                                  + "; ".join(e for e in errors if e.startswith("fact "))[:400])


def _forget_lost(outcome: ChunkOutcome, lost: set[str]) -> None:
    """A fact whose savepoint rolled back was not stored: the result must not list it."""
    if not lost:
        return
    for msg in outcome.messages:
        msg.added = [f for f in msg.added if f.fact_id not in lost]
        msg.updated = [f for f in msg.updated if f.fact_id not in lost]


async def _flush_per_fact(
    conn: AsyncConnection, agent_id: str, plan: _Plan
) -> tuple[list[str], set[str]]:
    """Slow path after a failed bulk flush: every item in its own savepoint.

    Returns the errors and the ids of the facts that could not be stored. The fact an UPDATE
    would have replaced stays open when its replacement was lost (closing it would lose both)."""
    errors: list[str] = []

    async def attempt(label: str, fn: Callable[[], Awaitable[Any]]) -> bool:
        try:
            async with conn.begin_nested():
                await fn()
            return True
        except Exception as exc:  # noqa: BLE001 - isolate the failing item; the error is reported
            errors.append(f"{label}: {type(exc).__name__}: {str(exc)[:200]}")
            return False

    for e in plan.entities:
        await attempt(f"entity {e.key}", partial(db.upsert_entities, conn, agent_id, [e]))
    for a in plan.aliases:
        await attempt(f"alias {a[0]}", partial(db.insert_aliases, conn, agent_id, [a]))
    ok_facts: set[str] = set()
    for f in plan.facts:
        async def one(f: db.FactRow = f) -> None:
            await db.insert_facts(conn, agent_id, [f])
            await db.insert_links(conn, agent_id, [x for x in plan.links if x[0] == f.id])
        if await attempt(f"fact {f.fact_text[:60]!r}", one):
            ok_facts.add(f.id)
    lost = {f.id for f in plan.facts if f.id not in ok_facts}
    keep_open = {f.supersedes_fact_id for f in plan.facts if f.id in lost and f.supersedes_fact_id}
    plan.closes = [c for c in plan.closes if c[0] not in keep_open]
    await attempt("close facts", lambda: db.close_facts(conn, agent_id, plan.closes))
    await attempt("reinforce", lambda: db.reinforce_facts(conn, agent_id, plan.reinforce))
    await attempt("confirmations", lambda: db.record_confirmations(conn, agent_id, plan.confirmations))
    plan.corrections = {k: n for k, n in plan.corrections.items() if k not in keep_open}
    await attempt("corrections", lambda: db.record_corrections(conn, agent_id, plan.corrections))
    keep = [(r.source, r.target, r.rel_type) for r in plan.relationships]
    await attempt("cascade", lambda: db.cascade_relationships(conn, agent_id, plan.closes, keep))
    for r in plan.relationships:
        if r.evidence_fact_id and r.evidence_fact_id not in ok_facts and any(
            f.id == r.evidence_fact_id for f in plan.facts
        ):
            r.evidence_fact_id = None
        await attempt(f"relationship {r.source}-{r.rel_type}-{r.target}",
                      partial(db.upsert_relationships, conn, agent_id, [r]))
    edges = [e for e in plan.contradicts if e.new_id in ok_facts]
    await attempt("contradicts edges", partial(store_edges, conn, agent_id, edges))
    return errors, lost


__all__ = ["IMPORTANCE_CATEGORY_MAP", "ChunkOutcome", "MessageOutcome", "WritePipeline", "entity_refs"]
