"""Reconciliation and write bookkeeping that a user can trust (issue 19): restatements confirm,
moves and job changes supersede with validity windows, corrections count, near-duplicates of one
message collapse, the per-event cap covers mirror facts, the result lists only what was stored,
and the open-catalog self references / relationship hints take effect."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.write.types import (
    ExtractedEntity as E,
)
from arandu_pipelines.write.types import (
    ExtractedFact as F,
)
from arandu_pipelines.write.types import (
    ExtractedRelation as R,
)
from arandu_pipelines.write.types import (
    ExtractionResult,
)
from tests.conftest import rows
from tests.test_write_pipeline import ScriptedClient


def day(d: int, m: int = 5, y: int = 2023) -> datetime:
    return datetime(y, m, d, 12, tzinfo=UTC)


CLARA = "Clara Rezende left Vertix and joined Orion Tech as head of engineering."

SCRIPT = {
    "I live in São Paulo.": ExtractionResult(
        entities=[E("São Paulo", "place")],
        facts=[F("Rafael", "Rafael lives in São Paulo", "location", "São Paulo")],
        relations=[R("Rafael", "lives_in", "São Paulo")],
    ),
    # the second fact cannot be stored: source_context is varchar(512) in the schema
    "Two facts, one unstorable.": ExtractionResult(
        entities=[E("Lisbon", "place")],
        facts=[F("Rafael", "Rafael likes jazz", "preference", "jazz"),
               F("Rafael", "Rafael lives in Lisbon", "location", "Lisbon", source_context="x" * 600)],
    ),
    "My mom, my dad and my sister.": ExtractionResult(
        entities=[E("Curitiba", "place"), E("Recife", "place"), E("Natal", "place")],
        facts=[],
        relations=[R("Mom", "lives_in", "Curitiba"), R("Dad", "lives_in", "Recife"),
                   R("Sister", "lives_in", "Natal")],
    ),
    "Clara left Vertix and joined Orion Tech.": ExtractionResult(
        entities=[E("Clara Rezende", "person"), E("Vertix", "organization"), E("Orion Tech", "organization")],
        facts=[F("Clara Rezende", "Clara Rezende left Vertix", "employer", None, "relationship_change",
                 retracts=True, retract_value="Vertix", source_text=CLARA),
               F("Clara Rezende", "Clara Rezende left Vertix and joined Orion Tech as head of engineering",
                 "event", source_text=CLARA)],
        relations=[R("Clara Rezende", "former_employee_of", "Vertix")],
    ),
    "Lisbon twice.": ExtractionResult(
        entities=[E("Lisbon", "place")],
        facts=[F("Rafael", "Rafael lives in Lisbon", "location", "Lisbon", source_text="I live in Lisbon."),
               F("Rafael", "Rafael's home these days is Lisbon", "location", "lisbon",
                 source_text="Home these days, after all the boxes and the paperwork: lisbon."),
               F("Rafael", "Rafael plays chess", "hobby", "chess", source_text="I play chess."),
               F("Rafael", "Rafael's favourite pastime on rainy Sundays is chess", "hobby", "Chess",
                 source_text="On rainy Sundays, my favourite pastime is chess.")],
    ),
    "I live in Porto and work at Acme.": ExtractionResult(
        entities=[E("Porto", "place"), E("Acme", "organization")],
        facts=[F("Rafael", "Rafael lives in Porto", "location", "Porto"),
               F("Rafael", "Rafael works at Acme", "employer", "Acme")],
    ),
    # what an LLM gives for a bare correction: the corrected fact, without a source sentence
    "No, it's Lisbon.": ExtractionResult(
        entities=[E("Lisbon", "other")],
        facts=[F("Rafael", "Rafael lives in Lisbon", "location", "Lisbon")],
    ),
    "Yo vivo en Madrid.": ExtractionResult(
        entities=[E("Madrid", "place")],
        facts=[F("Yo", "Yo vivo en Madrid", "location", "Madrid")],
        relations=[R("Yo", "lives_in", "Madrid")],
    ),
    "Carol is my stepmother.": ExtractionResult(
        entities=[E("Carol (Rafael's madrasta)", "other")],
        facts=[F("Carol (Rafael's madrasta)", "Carol is Rafael's madrasta")],
    ),
    "My madrasta lives in Recife.": ExtractionResult(
        entities=[E("Recife", "place")],
        facts=[F("madrasta", "Rafael's madrasta lives in Recife", "location", "Recife")],
    ),
}


@pytest.fixture
async def scripted(fresh_db_url, embeddings):
    client = ScriptedClient(fresh_db_url, embeddings=embeddings, script=SCRIPT)
    await client.initialize()
    yield client
    await client.close()


# ---- 6. the result lists only what was stored ------------------------------------------------
async def test_a_fact_whose_savepoint_rolled_back_is_not_reported_and_success_is_false(
    scripted, fresh_db_url
):
    first = await scripted.write("a", "I live in São Paulo.", "Rafael", occurred_at=day(1))
    r = await scripted.write("a", "Two facts, one unstorable.", "Rafael", occurred_at=day(5))
    stored = {t for (t,) in rows(fresh_db_url, "SELECT fact_text FROM memory_facts")}
    assert stored == {"Rafael lives in São Paulo", "Rafael likes jazz"}
    listed = [f.fact_text for f in r.facts_added + r.facts_updated]
    assert listed == ["Rafael likes jazz"]  # the Lisbon fact was rolled back: not listed
    assert r.success is False and r.error and "Lisbon" in r.error
    # the fact the lost UPDATE would have replaced stays open (else both would be gone)
    old = await scripted.get("a", first.facts_added[0].fact_id)
    assert old.valid_to is None
    assert {f.fact_text for f in await scripted.get_all("a")} == stored


# ---- 5. the per-event cap covers mirror facts -------------------------------------------------
async def test_max_facts_per_event_counts_mirror_facts(scripted, fresh_db_url):
    r = await scripted.write("a", "My mom, my dad and my sister.", "Rafael", occurred_at=day(1),
                             config_overrides={"max_facts_per_event": 1})
    assert len(r.facts_added) == 1
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts") == [(1,)]
    # the relationships are still kept (they are edges, not facts)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entity_relationships") == [(3,)]
    r2 = await scripted.write("b", "My mom, my dad and my sister.", "Rafael", occurred_at=day(1))
    assert len(r2.facts_added) == 3  # the default cap (100) leaves them all


# ---- 7. open catalog: extra self references and relationship hints ---------------------------
async def test_extra_self_references_resolve_to_the_speaker(fresh_db_url, embeddings):
    config = MemoryConfig(extra_self_references=frozenset({"yo"}))
    client = ScriptedClient(fresh_db_url, embeddings=embeddings, script=SCRIPT, config=config)
    await client.initialize()
    try:
        r = await client.write("a", "Yo vivo en Madrid.", "Rafael", occurred_at=day(1))
    finally:
        await client.close()
    assert [(f.entity_key, f.fact_text) for f in r.facts_added] == [("person:rafael", "Yo vivo en Madrid")]
    assert rows(fresh_db_url, "SELECT source_entity_key FROM memory_entity_relationships") == [
        ("person:rafael",)]
    # "yo" is not registered as an alias of Rafael (it means whoever speaks)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entity_aliases WHERE alias = 'yo'") == [(0,)]


async def test_without_the_extra_self_reference_yo_is_someone_else(scripted):
    r = await scripted.write("a", "Yo vivo en Madrid.", "Rafael", occurred_at=day(1))
    assert [f.entity_key for f in r.facts_added] != ["person:rafael"]


async def test_extra_relationship_hints_strip_the_hint_and_name_the_relative(fresh_db_url, embeddings):
    config = MemoryConfig(extra_relationship_hints=frozenset({"madrasta"}))
    client = ScriptedClient(fresh_db_url, embeddings=embeddings, script=SCRIPT, config=config)
    await client.initialize()
    try:
        a = await client.write("a", "Carol is my stepmother.", "Rafael", occurred_at=day(1))
        b = await client.write("a", "My madrasta lives in Recife.", "Rafael", occurred_at=day(2))
    finally:
        await client.close()
    assert [f.entity_key for f in a.facts_added] == ["person:carol"]  # hint stripped, a person
    assert [f.entity_key for f in b.facts_added] == ["person:rafael_s_madrasta"]  # the relative


async def test_without_extra_hints_the_unknown_hint_stays_in_the_name(scripted):
    a = await scripted.write("a", "Carol is my stepmother.", "Rafael", occurred_at=day(1))
    assert [f.entity_key for f in a.facts_added] != ["person:carol"]


# ---- 1. restatements reinforce (offline extraction, end to end) ------------------------------
async def test_still_working_at_acme_confirms_the_fact(memory, fresh_db_url):
    a = await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1))
    b = await memory.write("u", "Still working at Acme though.", "Rafael", occurred_at=day(5))
    assert b.facts_added == [] and b.facts_updated == []
    assert [f.fact_id for f in b.facts_unchanged] == [a.facts_added[0].fact_id]
    assert rows(fresh_db_url, "SELECT fact_text, reinforcement_count, last_confirmed_at FROM memory_facts") == [
        ("Rafael works at Acme", 1, day(5))]


async def test_getting_started_second_message_moves_and_confirms_the_employer(memory, fresh_db_url):
    """The spec's Getting Started pair: "Acme" restates "Acme Corp" (same organisation)."""
    a = await memory.write("u", "My name is Rafael and I live in São Paulo. I work at Acme Corp as a "
                           "backend engineer.", "Rafael", occurred_at=day(1))
    b = await memory.write("u", "I just moved to Rio de Janeiro. Still working at Acme though.",
                           "Rafael", occurred_at=day(9))
    employer = next(f for f in a.facts_added if f.attribute_key == "employer")
    assert b.facts_added == []
    assert [f.attribute_key for f in b.facts_updated] == ["location"]
    assert [f.fact_id for f in b.facts_unchanged] == [employer.fact_id]
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entities WHERE canonical_key LIKE 'organization:%'") \
        == [(1,)]  # "Acme" resolved to organization:acme_corp, not a second company
    (n, confirmed), = rows(fresh_db_url, "SELECT reinforcement_count, last_confirmed_at FROM memory_facts "
                           "WHERE id = %s", (employer.fact_id,))
    assert (n, confirmed) == (1, day(9))


# ---- 3. corrections supersede and count (offline extraction, end to end) ---------------------
async def _correction_count(url: str, fact_id: str) -> int:
    return rows(url, "SELECT user_correction_count FROM memory_facts WHERE id = %s", (fact_id,))[0][0]


@pytest.mark.parametrize(
    ("first", "correction", "expected"),
    [
        ("I live in Porto.", "Actually it's Lisbon, not Porto.", "Rafael lives in Lisbon"),
        ("I work at Acme.", "No, it's Globex.", "Rafael works at Globex"),
        ("Eu moro em Porto Alegre.", "Não, é Curitiba.", "Rafael mora em Curitiba"),
        ("Eu moro em Porto Alegre.", "Na verdade eu moro em Curitiba.", "Rafael mora em Curitiba"),
        ("I work at Acme.", "Actually I work at Globex.", "Rafael works at Globex"),
    ],
)
async def test_a_correction_supersedes_and_counts_on_the_corrected_fact(
    memory, fresh_db_url, first, correction, expected
):
    a = await memory.write("u", first, "Rafael", occurred_at=day(1))
    old_id = a.facts_added[0].fact_id
    later = day(1) + timedelta(minutes=3)  # a correction answers what was just said
    b = await memory.write("u", correction, "Rafael", occurred_at=later)
    assert [f.fact_text for f in b.facts_updated] == [expected]
    assert b.facts_updated[0].supersedes_fact_id == old_id
    assert b.facts_added == []  # no "Rafael mentioned that it's ..." beside it
    old = await memory.get("u", old_id)
    assert old.valid_to == later
    assert await _correction_count(fresh_db_url, old_id) == 1
    assert old.user_correction_count == 1  # and the user sees it on the fact
    assert [f.fact_text for f in await memory.get_all("u")] == [expected]


async def test_a_move_after_actually_is_not_a_correction(memory, fresh_db_url):
    a = await memory.write("u", "I live in São Paulo.", "Rafael", occurred_at=day(1))
    b = await memory.write("u", "Actually, I just moved to Rio de Janeiro.", "Rafael", occurred_at=day(6))
    assert [f.supersedes_fact_id for f in b.facts_updated] == [a.facts_added[0].fact_id]
    assert await _correction_count(fresh_db_url, a.facts_added[0].fact_id) == 0


async def test_a_bare_correction_with_nothing_to_correct_stores_nothing(memory):
    r = await memory.write("u", "No, it's Globex.", "Rafael", occurred_at=day(1))
    assert r.facts_added == [] and r.facts_updated == []


async def test_restating_the_same_value_after_a_marker_is_a_confirmation(memory, fresh_db_url):
    a = await memory.write("u", "I work at Acme.", "Rafael", occurred_at=day(1))
    b = await memory.write("u", "Actually I work at Acme.", "Rafael", occurred_at=day(3))
    assert [f.fact_id for f in b.facts_unchanged] == [a.facts_added[0].fact_id]
    assert await _correction_count(fresh_db_url, a.facts_added[0].fact_id) == 0


# ---- 4. near-duplicates within one message collapse -----------------------------------------
async def test_two_facts_of_one_sentence_where_one_contains_the_other_become_one(scripted, fresh_db_url):
    r = await scripted.write("a", "Clara left Vertix and joined Orion Tech.", "Rafael", occurred_at=day(1))
    assert [(f.fact_text, f.attribute_key) for f in r.facts_added] == [
        ("Clara Rezende left Vertix and joined Orion Tech as head of engineering", "employer.former")]
    links = {k for (k,) in rows(fresh_db_url, "SELECT entity_key FROM memory_fact_entity_links")}
    assert links == {"person:clara_rezende", "organization:vertix", "organization:orion_tech"}


async def test_same_subject_attribute_and_value_in_one_message_is_one_fact(scripted, fresh_db_url):
    r = await scripted.write("a", "Lisbon twice.", "Rafael", occurred_at=day(1))
    assert [f.fact_text for f in r.facts_added] == ["Rafael lives in Lisbon", "Rafael plays chess"]
    assert r.facts_unchanged == []  # not a confirmation of itself either
    assert rows(fresh_db_url, "SELECT max(reinforcement_count) FROM memory_facts") == [(0,)]


async def test_the_clara_sentence_offline_gives_no_fact_contained_in_another(memory):
    await memory.write("u", "Clara Rezende left Vertix and joined Orion Tech as head of engineering. "
                       "Thiago Nogueira personally hired her.", "Rafael", occurred_at=day(1))
    from arandu_pipelines.keys import normalize_fact_text

    facts = [f for f in await memory.get_all("u") if f.entity_key == "person:clara_rezende"]
    words = [set(normalize_fact_text(f.fact_text).split()) for f in facts]
    assert facts and not any(a <= b for i, a in enumerate(words) for j, b in enumerate(words) if i != j)


# ---- 2. moves and job changes supersede with validity windows (offline, end to end) ----------
@pytest.mark.parametrize(
    ("first", "change", "old_target", "new_target"),
    [
        ("I live in São Paulo.", "I just moved to Lisbon.", "place:sao_paulo", "place:lisbon"),
        ("I live in São Paulo.", "Moved to Lisbon last month.", "place:sao_paulo", "place:lisbon"),
        ("Eu moro em São Paulo.", "Me mudei pra Lisboa.", "place:sao_paulo", "place:lisboa"),
        ("I work at Acme.", "I started at Globex.", "organization:acme", "organization:globex"),
        ("I work at Acme.", "I joined Globex.", "organization:acme", "organization:globex"),
        ("I work at Acme.", "I now work at Globex.", "organization:acme", "organization:globex"),
        ("Eu trabalho na Acme.", "Entrei na Globex.", "organization:acme", "organization:globex"),
    ],
)
async def test_a_move_or_a_new_job_closes_the_old_value_at_the_new_message_time(
    memory, fresh_db_url, first, change, old_target, new_target
):
    a = await memory.write("u", first, "Rafael", occurred_at=day(1))
    b = await memory.write("u", change, "Rafael", occurred_at=day(9))
    assert len(b.facts_updated) == 1 and b.facts_added == []
    assert b.facts_updated[0].supersedes_fact_id == a.facts_added[0].fact_id
    old = await memory.get("u", a.facts_added[0].fact_id)
    assert (old.valid_from, old.valid_to) == (day(1), day(9))
    new = await memory.get("u", b.facts_updated[0].fact_id)
    assert new.valid_to is None and new.valid_from == day(9)
    edges = dict(rows(fresh_db_url, "SELECT target_entity_key, valid_to FROM memory_entity_relationships"))
    assert edges == {old_target: day(9), new_target: None}
    assert await _correction_count(fresh_db_url, old.fact_id) == 0  # a change, not a correction


async def test_a_bare_correction_never_makes_a_person_a_location(memory, fresh_db_url):
    a = await memory.write("u", "I live in Porto. Melanie is my sister.", "Rafael", occurred_at=day(1))
    assert rows(fresh_db_url, "SELECT entity_type FROM memory_entities WHERE display_name = 'Melanie'") \
        == [("person",)]
    b = await memory.write("u", "No, it's Melanie.", "Rafael", occurred_at=day(1) + timedelta(minutes=1))
    assert b.facts_updated == []
    location = next(f for f in a.facts_added if f.attribute_key == "location")
    assert (await memory.get("u", location.fact_id)).valid_to is None


async def test_an_unnamed_old_value_is_corrected_only_right_after_it_was_said(memory):
    a = await memory.write("u", "I live in Porto.", "Rafael", occurred_at=day(1))
    late = await memory.write("u", "No, it's Lisbon.", "Rafael", occurred_at=day(20))
    assert late.facts_updated == []  # weeks later, "No, it's Lisbon" answers something else
    named = await memory.write("u", "Actually it's Lisbon, not Porto.", "Rafael", occurred_at=day(21))
    assert [f.supersedes_fact_id for f in named.facts_updated] == [a.facts_added[0].fact_id]


async def test_a_correction_the_extractor_already_resolved_is_not_applied_twice(scripted, fresh_db_url):
    await scripted.write("a", "I live in Porto and work at Acme.", "Rafael", occurred_at=day(1))
    r = await scripted.write("a", "No, it's Lisbon.", "Rafael", occurred_at=day(1) + timedelta(minutes=2))
    assert [f.fact_text for f in r.facts_updated] == ["Rafael lives in Lisbon"]
    assert sorted(f.fact_text for f in await scripted.get_all("a")) == [
        "Rafael lives in Lisbon", "Rafael works at Acme"]  # the employer is not "Lisbon"
    assert rows(fresh_db_url, "SELECT fact_text, user_correction_count FROM memory_facts "
                "WHERE user_correction_count > 0") == [("Rafael lives in Porto", 1)]
