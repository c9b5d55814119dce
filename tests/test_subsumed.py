"""A fact that another fact of the same message states in full is not stored twice
(write/subsumed.py): "My brother Dev gave me his old road bike" is one fact, and the brother
relationship is still an edge of the entity graph. Invented sentences only (Anita speaks, Bob
listens). The guards are statements the collapse must leave alone: the only statement of a
relationship, a slot (partner, pet, location), two facts that share words but say different
things."""

from __future__ import annotations

from datetime import UTC, datetime

from arandu_pipelines.write import subsumed
from arandu_pipelines.write.extract_rules import extract_offline
from arandu_pipelines.write.types import ExtractedFact, ExtractionContext
from tests.conftest import rows


def ctx() -> ExtractionContext:
    return ExtractionContext(speaker_name="Anita", occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC),
                             addressee="Bob")


def facts(text: str) -> list[str]:
    return [f.fact_text for f in extract_offline(text, ctx()).facts]


# ---- the relationship is inside the sentence's own fact ------------------------------------------

def test_a_relationship_said_inside_an_event_is_one_fact_and_one_edge():
    res = extract_offline("My brother Dev gave me his old road bike.", ctx())
    out = [f.fact_text for f in res.facts]
    assert out == ["Anita's brother Dev gave Anita his old road bike"], out
    assert [(r.source, r.rel_type, r.target) for r in res.relations] == [("Anita", "family_of", "Dev")]
    assert res.trace["refine_dropped"]["subsumed"] == 1


def test_a_coworker_acting_on_the_speaker():
    out = facts("My coworker Dev dragged me to a climbing gym last week.")
    assert "Dev is Anita's coworker" not in out, out
    assert any(f.startswith("Anita's coworker Dev dragged Anita to a climbing gym") for f in out), out


def test_the_relation_word_with_its_adjective():
    out = facts("My older brother Dev gave me his old road bike.")
    assert "Dev is Anita's older brother" not in out, out
    assert any(f.startswith("Anita's older brother Dev gave") for f in out), out


def test_a_sister_who_lives_somewhere_and_a_different_fact_about_her():
    out = facts("My sister Leah lives in Austin. Leah is a nurse.")
    assert "Leah is Anita's sister" not in out, out
    # guard: "Leah is a nurse" shares the name with the kept fact but says something else
    assert set(out) == {"Anita's sister Leah lives in Austin", "Leah is a nurse"}, out


def test_each_of_coordinated_names_with_a_plural_relation_word():
    res = extract_offline("My kids Maya and Leo started swim lessons last week.", ctx())
    assert [f.fact_text for f in res.facts] == ["Anita's kids Maya and Leo started swim lessons"], res.facts
    assert {r.target for r in res.relations if r.rel_type == "family_of"} == {"Maya", "Leo"}
    out = facts("Meus filhos Maya e Leo começaram aulas de natação.")
    assert not any(f.endswith("é filho de Anita") for f in out), out


def test_portuguese_relationship_inside_the_event():
    out = facts("Meu irmão Dev me deu a bicicleta dele.")
    assert "Dev é irmão de Anita" not in out, out
    assert any(f.startswith("O irmão de Anita, Dev deu") for f in out), out


# ---- free text: one fact's words all inside another's of the same subject ------------------------

def test_a_short_restatement_inside_a_longer_one_of_the_same_subject():
    out = facts("I adopted a puppy. I adopted a puppy from the shelter near my house.")
    assert out == ["Anita adopted a puppy from the shelter near her house"], out


def test_a_fact_of_the_named_person_inside_the_speakers_sentence():
    out = facts("My coworker Dev started a band last month. Dev started a band.")
    assert out == ["Anita's coworker Dev started a band in February 2024"], out  # a month stays (session 18)


def test_contains_when_the_bigger_fact_names_the_subject():
    small = ExtractedFact("Dev", "Dev started a band")
    assert subsumed.contains(ExtractedFact("Anita", "Anita's coworker Dev started a band"), small)
    # the words in another order say another thing; a possessive name is another subject
    assert not subsumed.contains(ExtractedFact("Anita", "Anita loves Leah"), ExtractedFact("Leah", "Leah loves Anita"))
    assert not subsumed.contains(ExtractedFact("Anita", "Anita met Leah's mom, a nurse"),
                                 ExtractedFact("Leah", "Leah is a nurse"))
    assert not subsumed.contains(ExtractedFact("Anita", "Anita thinks Dev never started a band"), small)


def test_contains_on_free_text_facts():
    big = ExtractedFact("Anita", "Anita painted a sunrise over the lake with their kids")
    assert subsumed.contains(big, ExtractedFact("Anita", "Anita painted a sunrise"))
    # guards: another subject, a negation, a modal, a number, a possessive
    assert not subsumed.contains(big, ExtractedFact("Bob", "Bob painted a sunrise"))
    assert not subsumed.contains(ExtractedFact("Anita", "Anita didn't paint the lake at sunrise"),
                                 ExtractedFact("Anita", "Anita painted the lake"))
    assert not subsumed.contains(ExtractedFact("Anita", "Anita visited Paris with her sister"),
                                 ExtractedFact("Anita", "Anita will visit Paris"))
    assert not subsumed.contains(ExtractedFact("Anita", "Anita ran 10 miles this morning"),
                                 ExtractedFact("Anita", "Anita ran 5 miles"))
    assert not subsumed.contains(ExtractedFact("Leah", "Leah's mom is a nurse"),
                                 ExtractedFact("Leah", "Leah is a nurse"))


def test_contains_keeps_what_a_fact_carries_besides_its_words():
    big = ExtractedFact("Leah", "Anita's sister Leah lives in Austin now", "location", "Austin")
    assert subsumed.contains(big, ExtractedFact("Leah", "Leah lives in Austin", "location", "Austin"))
    # a slot the bigger fact does not hold, a retraction, a date of its own
    assert not subsumed.contains(ExtractedFact("Leah", "Leah lives in Austin and loves it"),
                                 ExtractedFact("Leah", "Leah lives in Austin", "location", "Austin"))
    assert not subsumed.contains(big, ExtractedFact("Leah", "Leah lives in Austin", retracts=True))
    assert not subsumed.contains(big, ExtractedFact("Leah", "Leah lives in Austin",
                                                    event_date=datetime(2024, 1, 1, tzinfo=UTC)))


def test_the_relation_must_be_said_of_that_person():
    rel = ExtractedFact("Dev", "Dev is Anita's brother", mentions=["Anita"], rule_kind="relterm")
    assert subsumed.contains(ExtractedFact("Anita", "Dev, Anita's brother, fixed the roof"), rel)
    # "brother" is said of Sam, not of Dev; the owner is missing; the relation word is missing
    assert not subsumed.contains(ExtractedFact("Anita", "Anita's friend Dev met Anita's brother Sam"), rel)
    assert not subsumed.contains(ExtractedFact("Dev", "Dev's brother fixed the roof"), rel)
    assert not subsumed.contains(ExtractedFact("Anita", "Anita and Dev went to a concert"), rel)


# ---- guards: statements that must stay -------------------------------------------------------------

def test_the_only_statement_of_a_relationship_stays():
    out = facts("My brother Dev and I went to a concert. Dev loves jazz.")
    assert "Dev is Anita's brother" in out, out
    assert facts("My boss Priya promoted me last week.") == ["Priya is Anita's boss"]
    assert facts("Marcos Tavares is married to Carolina.") == ["Marcos Tavares is married to Carolina"]


def test_a_partner_or_pet_slot_stays():
    assert "Carolina is Anita's wife" in facts("My wife Carolina loves hiking.")
    assert "Max is Anita's dog" in facts("My dog Max loves the beach.")


def test_facts_that_share_words_but_differ_stay():
    assert len(facts("Leah is a nurse. Leah's mom is a nurse too.")) == 2
    assert len(facts("I visited my sister. I will visit my sister in Paris.")) == 2
    assert len(facts("I love Leah. Leah loves me.")) == 2


# ---- the real write path: the edge is stored, the redundant fact is not ---------------------------

async def test_write_stores_the_edge_but_not_the_redundant_fact(memory, fresh_db_url):
    r = await memory.write("u1", "My brother Dev gave me his old road bike.", speaker_name="Anita",
                           occurred_at=datetime(2024, 3, 4, 12, tzinfo=UTC))
    assert r.success
    texts = [f.fact_text for f in await memory.get_all("u1")]
    assert texts == ["Anita's brother Dev gave Anita his old road bike"], texts
    stored = [t for (t,) in rows(fresh_db_url, "SELECT fact_text FROM memory_facts WHERE agent_id = 'u1'")]
    assert stored == texts, stored  # no mirror fact either: the kept fact names both ends
    edges = rows(fresh_db_url, "SELECT source_entity_key, rel_type, target_entity_key, valid_to IS NULL, "
                 "evidence_fact_id FROM memory_entity_relationships WHERE agent_id = 'u1'")
    assert [e[:4] for e in edges] == [("person:anita", "family_of", "person:dev", True)], edges
    assert str(edges[0][4]) == r.facts_added[0].fact_id  # the kept fact is the edge's evidence
    links = {k for (k,) in rows(fresh_db_url, "SELECT entity_key FROM memory_fact_entity_links WHERE fact_id = %s",
                                (r.facts_added[0].fact_id,))}
    assert links == {"person:anita", "person:dev"}


def test_getting_or_having_is_not_inside_a_later_use() -> None:
    """ "I got new running shoes. I wore them for the marathon": once "them" is named
    (write/object_it.py), the second fact shares every content word of the first, but getting
    the shoes is news of its own ("got"/"has a" are stopwords elsewhere)."""
    from datetime import UTC, datetime

    from arandu_pipelines.write.extract_rules import extract_offline
    from arandu_pipelines.write.types import ExtractionContext

    ctx = ExtractionContext(speaker_name="Nadia", occurred_at=datetime(2024, 3, 4, tzinfo=UTC), addressee="Tom")
    got = [f.fact_text for f in extract_offline("I got new running shoes. I wore them for the marathon.", ctx).facts]
    assert "Nadia got new running shoes" in got, got
    got = [f.fact_text for f in extract_offline("I have a new bike. I ride it to work now.", ctx).facts]
    assert "Nadia has a new bike" in got, got
