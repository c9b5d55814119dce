"""write/parses.py: one spaCy pipeline per model, and per chunk each text parsed at most once,
shared by the NER, antecedent and speech-act stages (counted through `parses.HOOKS`, no mock)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest

from arandu_pipelines.write import parses
from arandu_pipelines.write.parses import NER, PARSE, ChunkParses, load, model_name


@pytest.fixture
def parsed():
    """(stage, need, text) of every doc parsed while the test runs, from cold process caches (an
    earlier test may have parsed the same text: merge fix, session 15)."""
    parses.clear_caches()
    seen: list[tuple[str, str, str]] = []
    hook = lambda stage, need, text: seen.append((stage, need, text))
    parses.HOOKS.append(hook)
    yield seen
    parses.HOOKS.remove(hook)


def _need_model() -> None:
    if load(model_name()) is None:
        pytest.skip("no spaCy pipeline installed")


async def test_a_chunk_parses_each_text_once_and_the_stages_share_it(memory, parsed):
    """The question is an NER text (an unknown name in it) AND the antecedent stage's text for the
    reply ("it" -> the pottery class): one doc, each component run once on it; every other text
    too is parsed once per component set."""
    _need_model()
    at = datetime(2023, 5, 8, 12, tzinfo=UTC)
    question = "How did the pottery class with Carlos go?"
    rows = [
        {"agent_id": "u1", "session_id": "s1", "speaker": "Caroline", "text": question,
         "occurred_at": at.isoformat(), "message_id": "m1"},
        {"agent_id": "u1", "session_id": "s1", "speaker": "Melanie",
         "text": "Honestly I loved it, the teacher was so patient.",
         "occurred_at": at.replace(minute=1).isoformat(), "message_id": "m2"},
        {"agent_id": "u1", "session_id": "s1", "speaker": "Caroline",
         "text": "Keep going after your dreams of opening a studio!",
         "occurred_at": at.replace(minute=2).isoformat(), "message_id": "m3"},
    ]
    imp = await memory.import_messages(rows)
    assert imp.events_inserted == 3
    counts = Counter((need, text) for _, need, text in parsed)
    assert counts and max(counts.values()) == 1, [k for k, n in counts.items() if n > 1]
    assert counts[(NER, question)] == 1 and counts[(PARSE, question)] == 1  # wanted by two stages
    stages = {stage for stage, _, _ in parsed}
    assert {"ner", "antecedents", "speech_acts"} <= stages, stages
    facts = [f.fact_text for f in (await memory.get_all("u1")).facts]
    assert any("pottery class" in f for f in facts), facts  # the shared doc served the antecedent stage


def test_a_text_parsed_first_gets_the_same_entities_as_a_fresh_doc(parsed):
    """spaCy's NER does not cross a sentence start: on a doc the parser had already split, its
    entities could differ. NER asked for after PARSE runs on a fresh doc, copied over."""
    _need_model()
    text = "I met Ana Lima in Lisbon. She works at Acme Corp in São Paulo now."
    fresh = ChunkParses().doc(text, NER, "t")
    cp = ChunkParses()
    parsed_first = cp.doc(text, PARSE, "t")
    assert not parsed_first.ents and parsed_first.has_annotation("DEP")
    doc = cp.doc(text, NER, "t")
    assert doc is parsed_first  # one doc, both annotations
    assert [(e.text, e.label_) for e in doc.ents] == [(e.text, e.label_) for e in fresh.ents]
    assert doc.ents and doc.has_annotation("DEP")
    # asked again by any stage: from the cache
    before = len(parsed)
    cp.docs([text, text], PARSE, "other")
    cp.doc(text, NER, "other")
    assert len(parsed) == before


def test_want_then_run_is_one_batch_per_component_set(parsed):
    _need_model()
    cp = ChunkParses()
    cp.want(["Ana went to Lisbon.", "It was fun."], NER, "ner")
    cp.want(["It was fun.", "Keep going!"], PARSE, "antecedents")
    cp.want(["Keep going!"], PARSE, "speech_acts")  # already wanted: not twice
    cp.run()
    assert Counter((n, t) for _, n, t in parsed) == Counter(
        {(NER, "Ana went to Lisbon."): 1, (NER, "It was fun."): 1, (PARSE, "It was fun."): 1,
         (PARSE, "Keep going!"): 1})
    assert cp.doc("It was fun.", PARSE, "x").has_annotation("DEP") and len(parsed) == 4


def test_one_pipeline_per_model_and_none_means_no_parse():
    _need_model()
    assert load(model_name()) is load(model_name(None))
    assert {"ner", "parser", "tagger"} <= set(load(model_name()).pipe_names)
    assert ChunkParses("none").doc("It was fun.", PARSE, "x") is None


def test_antecedent_preparse_parses_the_previous_turn_only_where_replacements_reads_it(parsed):
    """`preparse` asks for a previous turn's part only when the reply's pronoun looks past the
    reply (`_needs_antecedent`): what `replacements` then reads is all parsed already, and the
    turn behind an expletive "it" is not parsed at all."""
    _need_model()
    from arandu_pipelines.write import antecedents
    from arandu_pipelines.write.types import ExtractionContext

    at = datetime(2023, 5, 8, 12, tzinfo=UTC)
    wanted = ("Honestly I loved it, the teacher was so patient.", [("Caroline", "How did the pottery class go?")])
    expletive = ("It was great to see everyone there.", [("Caroline", "Did you go to the garden party?")])
    cp = ChunkParses()
    antecedents.preparse([(t, "Melanie", turns) for t, turns in (wanted, expletive)], cp)
    texts = {t for _, _, t in parsed}
    assert "How did the pottery class go?" in texts
    assert "Did you go to the garden party?" not in texts
    before = len(parsed)
    for text, turns in (wanted, expletive):
        c = ExtractionContext(speaker_name="Melanie", occurred_at=at, addressee="Caroline",
                              previous_turns=turns, parses=cp)
        reps = antecedents.replacements(text, c)
        assert bool(reps) == (text == wanted[0]), reps
    assert len(parsed) == before  # everything read was parsed up front


@pytest.fixture
def fresh_entity_cache():
    """The process-wide entity cache emptied around the test (other tests filled it)."""
    with parses._entity_lock:
        parses._entity_cache.clear()
    yield
    with parses._entity_lock:
        parses._entity_cache.clear()


def test_entities_are_cached_across_chunks_and_equal_a_fresh_ner_doc(parsed, fresh_entity_cache):
    """speed15: a text typed by NER in one chunk is not parsed again in a later chunk, and the
    cached spans are those of a fresh `ner`-only doc of that text."""
    _need_model()
    text = "Nora arrived on the 9th with Carlos from Austin."
    first = ChunkParses().entities(text, "subject_forms")
    hits = parses.HITS["subject_forms"]
    second = ChunkParses().entities(text, "subject_forms")  # another chunk
    nlp = load(model_name())
    fresh = nlp(text, disable=[n for n in nlp.pipe_names if n != "ner"])
    assert first == second == tuple((e.start_char, e.end_char, e.label_) for e in fresh.ents)
    assert any(label == "PERSON" for _, _, label in first), first
    assert [t for _, need, t in parsed if need == NER] == [text]  # parsed once
    assert parses.HITS["subject_forms"] == hits + 1


def test_the_entity_cache_never_answers_for_another_text_or_model(parsed, fresh_entity_cache):
    """The key is (model name, component set, text): another text, or the same text under
    another configured model name, is parsed, never served another entry's spans."""
    _need_model()
    if model_name("speed15-alias-model") != "speed15-alias-model":
        pytest.skip("ARANDU_SPACY_MODEL forces one model name")
    name = model_name()
    ChunkParses().entities("Keep it up!", "subject_forms")
    other_text = ChunkParses().entities("Keep it up, Nora!", "subject_forms")
    assert other_text is not None and any(label == "PERSON" for _, _, label in other_text), other_text
    with parses._lock:
        parses._loaded["speed15-alias-model"] = parses._loaded[name]  # same weights, another config name
    try:
        ChunkParses("speed15-alias-model").entities("Keep it up!", "subject_forms")
    finally:
        with parses._lock:
            del parses._loaded["speed15-alias-model"]
    assert [t for _, need, t in parsed if need == NER] == ["Keep it up!", "Keep it up, Nora!", "Keep it up!"]
    assert ChunkParses("none").entities("Keep it up!", "subject_forms") is None  # no pipeline: nothing


def test_the_entity_cache_is_bounded(parsed, fresh_entity_cache, monkeypatch):
    """Oldest entries go first once ENTITY_CACHE_MAX texts are held."""
    _need_model()
    monkeypatch.setattr(parses, "ENTITY_CACHE_MAX", 2)
    for t in ("Ana came.", "Bea came.", "Carl came."):
        ChunkParses().entities(t, "subject_forms")
    assert [k[2] for k in parses._entity_cache] == ["Bea came.", "Carl came."]
    ChunkParses().entities("Ana came.", "subject_forms")  # evicted: parsed again
    assert [t for _, need, t in parsed if need == NER].count("Ana came.") == 2


@pytest.fixture
def fresh_parse_cache():
    with parses._entity_lock:
        parses._parse_cache.clear()
    yield
    with parses._entity_lock:
        parses._parse_cache.clear()


def _parse_of(doc) -> list[tuple]:
    return [(t.text, t.tag_, t.dep_, t.head.i, t.is_sent_start, t.ent_type_) for t in doc]


def test_a_parse_is_served_across_chunks_as_an_untouched_copy(parsed, fresh_parse_cache, fresh_entity_cache):
    """speed15: PARSE of a text parsed in an earlier chunk is a copy of the kept doc, equal to a
    fresh PARSE-only doc; entities a chunk adds to its doc (late NER) never reach the cache."""
    _need_model()
    text = "Keep going, Nora told me that yesterday."
    one = ChunkParses()
    first = one.doc(text, PARSE, "antecedents")
    one.doc(text, NER, "ner")  # late NER on chunk one's doc: entities set on it
    assert first.ents
    two = ChunkParses()
    second = two.doc(text, PARSE, "antecedents")
    nlp = load(model_name())
    fresh = nlp(text, disable=["ner"])
    assert second is not first and not second.ents
    assert _parse_of(second) == _parse_of(fresh)
    assert [(n, t) for _, n, t in parsed] == [(PARSE, text), (NER, text)]  # chunk two parsed nothing
    assert two.doc(text, NER, "ner").ents  # NER on the served copy still works (late-NER path)


def test_the_parse_cache_never_answers_for_another_text_or_model_or_a_ner_doc(parsed, fresh_parse_cache):
    """Key (model name, component set, text); a doc that had NER before its parse is not kept."""
    _need_model()
    if model_name("speed15-alias-model") != "speed15-alias-model":
        pytest.skip("ARANDU_SPACY_MODEL forces one model name")
    name = model_name()
    ChunkParses().doc("Sounds great", PARSE, "speech_acts")
    ChunkParses().doc("Sounds great!", PARSE, "speech_acts")  # another text
    with parses._lock:
        parses._loaded["speed15-alias-model"] = parses._loaded[name]
    try:
        ChunkParses("speed15-alias-model").doc("Sounds great", PARSE, "speech_acts")
    finally:
        with parses._lock:
            del parses._loaded["speed15-alias-model"]
    both = ChunkParses()
    both.want(["Nora came."], NER, "ner")
    both.want(["Nora came."], PARSE, "antecedents")
    both.run()  # NER first, then PARSE on the same doc: it carries entities, so it is not kept
    assert (name, parses.RUNS[PARSE], "Nora came.") not in parses._parse_cache
    ChunkParses().doc("Nora came.", PARSE, "antecedents")
    assert [t for _, n, t in parsed if n == PARSE] == ["Sounds great", "Sounds great!", "Sounds great",
                                                       "Nora came.", "Nora came."]
