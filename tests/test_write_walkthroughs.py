"""The spec's write walkthroughs, end to end through `write()` with the offline extractor on a
real server. Assertions are about what a user relies on (what is stored, linked, superseded),
not about exact wording."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.conftest import rows


def at(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, 12, tzinfo=UTC)


async def test_rafael_moves_from_sao_paulo_to_rio(memory, fresh_db_url):
    first = await memory.write("u1", "I live in São Paulo and I work at Acme Corp as a backend engineer.",
                               speaker_name="Rafael", occurred_at=at(2023, 3, 1))
    assert first.success and first.facts_added
    assert all(f.entity_key.startswith("person:rafael") or "Rafael" in f.fact_text
               for f in first.facts_added)
    sp = [f for f in first.facts_added if "São Paulo" in f.fact_text]
    assert sp and sp[0].entity_key == "person:rafael"

    second = await memory.write("u1", "I just moved from São Paulo to Rio de Janeiro.",
                                speaker_name="Rafael", occurred_at=at(2023, 6, 2))
    assert second.facts_updated, second
    upd = second.facts_updated[0]
    assert "Rio de Janeiro" in upd.fact_text and upd.supersedes_fact_id == sp[0].fact_id
    old = await memory.get("u1", sp[0].fact_id)
    assert old.valid_to == at(2023, 6, 2) and old.valid_from == at(2023, 3, 1)
    active = [f.fact_text for f in await memory.get_all("u1")]
    assert not any("São Paulo" in t and "Rio" not in t for t in active)
    assert any("Acme" in t for t in active)  # the job is untouched by the move
    edges = dict(rows(fresh_db_url, "SELECT target_entity_key, valid_to IS NULL FROM "
                      "memory_entity_relationships WHERE rel_type = 'lives_in'"))
    assert edges == {"place:sao_paulo": False, "place:rio_de_janeiro": True}
    # each entity's fact_count is its active linked facts: the superseded São Paulo fact is out
    counts = rows(fresh_db_url, "SELECT e.canonical_key, e.fact_count, (SELECT count(*) FROM "
                  "memory_fact_entity_links l JOIN memory_facts f ON f.id = l.fact_id WHERE "
                  "l.agent_id = e.agent_id AND l.entity_key = e.canonical_key AND f.valid_to IS NULL) "
                  "FROM memory_entities e WHERE e.agent_id = 'u1'")
    assert counts and all(stored == actual for _, stored, actual in counts), counts
    assert {k: n for k, n, _ in counts}["person:rafael"] == len(active)


async def test_clara_left_vertix_links_both_entities(memory, fresh_db_url):
    r = await memory.write("u1", "Clara Rezende left Vertix.", speaker_name="Rafael",
                           occurred_at=at(2024, 1, 10))
    fact = next(f for f in r.facts_added if "Vertix" in f.fact_text)
    assert fact.entity_key == "person:clara_rezende"
    links = dict(rows(fresh_db_url, "SELECT entity_key, is_primary FROM memory_fact_entity_links "
                      "WHERE fact_id = %s", (fact.fact_id,)))
    assert links == {"person:clara_rezende": True, "organization:vertix": False}
    about_vertix = await memory.get_all("u1", entity_keys=["organization:vertix"])
    assert [f.fact_id for f in about_vertix] == [fact.fact_id]
    rel = rows(fresh_db_url, "SELECT rel_type FROM memory_entity_relationships WHERE "
               "source_entity_key = 'person:clara_rezende' AND target_entity_key = 'organization:vertix'")
    assert ("former_employee_of",) in rel


async def test_guili_is_guilherme(memory, fresh_db_url):
    first = await memory.write("u1", "My best friend Guilherme Maturana (Guili) works at Vertix.",
                               speaker_name="Rafael", occurred_at=at(2023, 3, 1))
    keys = {e.canonical_key for e in first.entities_resolved}
    assert "person:guilherme_maturana" in keys and "person:guili" not in keys
    second = await memory.write("u1", "Guili went running in the park.", speaker_name="Rafael",
                                occurred_at=at(2023, 3, 5))
    guili = [e for e in second.entities_resolved if e.canonical_key == "person:guilherme_maturana"]
    assert guili and guili[0].method == "alias"  # exact match through the registered alias
    assert all(f.entity_key == "person:guilherme_maturana" for f in second.facts_added)
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entities WHERE canonical_key LIKE 'person:guil%'") == [(1,)]


async def test_carlos_lives_in_curitiba_is_subject_centric(memory, fresh_db_url):
    r = await memory.write("u1", "Carlos lives in Curitiba.", speaker_name="Ana", occurred_at=at(2023, 5, 1))
    assert [f.entity_key for f in r.facts_added] == ["person:carlos"]
    assert "Carlos" in r.facts_added[0].fact_text and "Curitiba" in r.facts_added[0].fact_text
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE entity_key = 'place:curitiba'") == [(0,)]
    links = {k for (k,) in rows(fresh_db_url, "SELECT entity_key FROM memory_fact_entity_links")}
    assert links == {"person:carlos", "place:curitiba"}
    assert rows(fresh_db_url, "SELECT source_entity_key, rel_type, target_entity_key FROM "
                "memory_entity_relationships") == [("person:carlos", "lives_in", "place:curitiba")]


async def test_i_and_eu_are_the_speaker(memory):
    en = await memory.write("u1", "I love cycling and craft coffee.", speaker_name="Rafael", occurred_at=at(2023, 5, 1))
    pt = await memory.write("u1", "Eu trabalho na Orion Tech.", speaker_name="Rafael", occurred_at=at(2023, 5, 2))
    for r in (en, pt):
        assert r.facts_added
        assert any(f.entity_key == "person:rafael" and "Rafael" in f.fact_text for f in r.facts_added)
        assert not any(f.entity_name in ("I", "Eu", "eu") for f in r.facts_added)


async def test_portuguese_message_keeps_its_language(memory, fresh_db_url):
    r = await memory.write("u1", "Eu moro em Curitiba e trabalho na Vertix.", speaker_name="Rafael",
                           occurred_at=at(2023, 5, 1))
    texts = [f.fact_text for f in r.facts_added]
    assert any("Rafael mora em Curitiba" in t for t in texts), texts
    assert any("trabalha" in t and "Vertix" in t for t in texts), texts
    rels = set(rows(fresh_db_url, "SELECT rel_type, target_entity_key FROM memory_entity_relationships"))
    assert ("lives_in", "place:curitiba") in rels and ("works_at", "organization:vertix") in rels


async def test_relative_dates_resolve_against_occurred_at(memory, fresh_db_url):
    r = await memory.write("u1", "Yesterday I went to a LGBTQ support group.", speaker_name="Caroline",
                           occurred_at=datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    # issue 19: the resolved date is the fact's event_date, not glued into its text
    assert [f.fact_text for f in r.facts_added] == ["Caroline went to a LGBTQ support group"]
    stored = rows(fresh_db_url, "SELECT event_date FROM memory_facts WHERE id = %s", (r.facts_added[0].fact_id,))
    assert stored[0][0].date() == datetime(2023, 5, 7).date()
    fact = await memory.get("u1", r.facts_added[0].fact_id)
    assert fact.valid_from == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # event time = message time


async def test_retraction_in_words_closes_the_fact(memory):
    await memory.write("u1", "I work at Acme Corp.", speaker_name="Rafael", occurred_at=at(2023, 1, 1))
    r = await memory.write("u1", "I no longer work at Acme Corp.", speaker_name="Rafael",
                           occurred_at=at(2023, 7, 1))
    assert [f.fact_text for f in r.facts_deleted] and "Acme" in r.facts_deleted[0].fact_text
    active = [f.fact_text for f in await memory.get_all("u1")]
    assert not any(t.startswith("Rafael works at Acme") for t in active)


async def test_a_new_job_keeps_the_old_one_as_history(memory, fresh_db_url):
    await memory.write("u1", "I work at Acme Corp.", speaker_name="Rafael", occurred_at=at(2023, 1, 1))
    await memory.write("u1", "I quit my job at Acme Corp.", speaker_name="Rafael", occurred_at=at(2023, 5, 1))
    await memory.write("u1", "I joined Orion Tech.", speaker_name="Rafael", occurred_at=at(2023, 6, 1))
    active = [f.fact_text for f in await memory.get_all("u1")]
    assert any("Orion Tech" in t for t in active) and any("quit" in t and "Acme" in t for t in active)
    edges = {(t, r): live for t, r, live in rows(
        fresh_db_url, "SELECT target_entity_key, rel_type, valid_to IS NULL FROM memory_entity_relationships")}
    assert edges[("organization:acme_corp", "former_employee_of")] is True
    assert edges[("organization:acme_corp", "works_at")] is False
    assert edges[("organization:orion_tech", "works_at")] is True


async def test_sample_conversation_becomes_memory(memory):
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "sample_conversation.jsonl"
    data = [json.loads(line) for line in path.read_text().splitlines()]
    report = await memory.import_messages(data)
    agent = data[0]["agent_id"]
    assert report.events_extracted == len(data) and not report.extraction_errors
    assert report.facts_updated >= 1 and report.facts_deleted >= 1  # the move/job change, the retraction
    entities = {e.canonical_key: e for e in await memory.entities(agent, limit=100)}
    assert "person:guilherme_maturana" in entities and "Guili" in entities["person:guilherme_maturana"].aliases
    active = " | ".join(f.fact_text for f in await memory.get_all(agent, limit=200))
    assert "Orion Tech" in active and "Rio de Janeiro" in active


# ---- spec 004 walkthroughs, offline (issue 19) ------------------------------------------------------
def _entities(url: str) -> dict[str, str]:
    return dict(rows(url, "SELECT canonical_key, entity_type FROM memory_entities"))


def _edges(url: str) -> set[tuple[str, str, str, bool]]:
    return set(rows(url, "SELECT source_entity_key, rel_type, target_entity_key, valid_to IS NULL "
                         "FROM memory_entity_relationships"))


async def test_getting_started_rafael(memory, fresh_db_url):
    """Getting Started: "My name is Rafael and I live in São Paulo. I work at Acme Corp as a
    backend engineer." -> lives in São Paulo, works at Acme Corp as a backend engineer."""
    r = await memory.write("user_123", "My name is Rafael and I live in São Paulo. I work at Acme Corp "
                           "as a backend engineer.", speaker_name="Rafael", occurred_at=at(2023, 3, 1))
    texts = [f.fact_text for f in r.facts_added]
    assert "Rafael lives in São Paulo" in texts, texts  # not "Rafael and Rafael live in São Paulo"
    assert "Rafael works at Acme Corp as a backend engineer" in texts, texts
    assert all(f.entity_key == "person:rafael" for f in r.facts_added)
    assert all(f.confidence == 0.95 for f in r.facts_added)
    ents = _entities(fresh_db_url)
    assert ents["place:sao_paulo"] == "place" and ents["organization:acme_corp"] == "organization"
    assert {("person:rafael", "lives_in", "place:sao_paulo", True),
            ("person:rafael", "works_at", "organization:acme_corp", True)} <= _edges(fresh_db_url)


async def test_getting_started_still_working_at_acme_is_not_talk(memory, fresh_db_url):
    """"I just moved to Rio de Janeiro. Still working at Acme though." gives the move and the job
    (as "Rafael works at Acme", an employer fact), never "Rafael mentioned that still working ..."."""
    r = await memory.write("user_123", "I just moved to Rio de Janeiro. Still working at Acme though.",
                           speaker_name="Rafael", session_id="onboarding", occurred_at=at(2023, 6, 1))
    texts = [f.fact_text for f in r.facts_added + r.facts_updated + r.facts_unchanged]
    assert any("Rio de Janeiro" in t for t in texts), texts
    job = [t for t in texts if t in ("Rafael works at Acme", "Rafael is still working at Acme")]
    assert len(job) == 1, texts  # one employer fact (the two extractor paths collapse into one)
    assert not any("mentioned that" in t for t in texts), texts
    assert _entities(fresh_db_url).get("organization:acme") == "organization"


async def test_ricardo_moves_to_austin_texas_one_place(memory, fresh_db_url):
    """Reconciliation walkthrough: "Ricardo Gomes moved to Austin, Texas" -- Austin, Texas is one
    place; no person:texas."""
    await memory.write("u1", "Ricardo Gomes lives in São Paulo.", speaker_name="Rafael", occurred_at=at(2023, 1, 1))
    r = await memory.write("u1", "Ricardo Gomes moved to Austin, Texas.", speaker_name="Rafael",
                           occurred_at=at(2023, 6, 1))
    texts = [f.fact_text for f in r.facts_added + r.facts_updated]
    assert "Ricardo Gomes moved to Austin, Texas" in texts, texts
    ents = _entities(fresh_db_url)
    assert not any("texas" in k and not k.startswith("place:") for k in ents), ents
    assert any(k.startswith("place:austin") and v == "place" for k, v in ents.items()), ents
    edges = _edges(fresh_db_url)
    assert any(s == "person:ricardo_gomes" and t.startswith("place:austin") and live
               for s, rel, t, live in edges if rel == "lives_in"), edges


async def test_record_both_sides_stone_is_an_organization(memory, fresh_db_url):
    """Cookbook "Record Both Sides": Pedro's girlfriend Ana works at Stone; the Assistant says
    "Stone is a Brazilian fintech, founded in 2012" -- a fact about Stone, not the Assistant."""
    r = await memory.write("my-assistant", "My girlfriend Ana is a designer, she works at Stone",
                           speaker_name="Pedro", occurred_at=at(2024, 2, 1))
    texts = {f.fact_text for f in r.facts_added}
    assert "Ana works at Stone" in texts and "Ana is Pedro's girlfriend" in texts, texts
    assert any("designer" in t for t in texts), texts
    assert {f.entity_key for f in r.facts_added} == {"person:ana"}
    r = await memory.write("my-assistant", "Stone is a Brazilian fintech, founded in 2012",
                           speaker_name="Assistant", occurred_at=at(2024, 2, 1))
    assert [(f.entity_key, f.fact_text) for f in r.facts_added] == [
        ("organization:stone", "Stone is a Brazilian fintech, founded in 2012")]
    fact = await memory.get("my-assistant", r.facts_added[0].fact_id)
    assert fact.speaker == "Assistant"
    ents = _entities(fresh_db_url)
    assert ents["organization:stone"] == "organization"
    assert not any("brazilian" in k for k in ents), ents  # a demonym is not an entity
    stone = await memory.get_all("my-assistant", entity_keys=["organization:stone"])
    assert {f.fact_text for f in stone} >= {"Ana works at Stone", "Stone is a Brazilian fintech, founded in 2012"}


async def test_marcos_tavares_is_married_to_carolina(memory, fresh_db_url):
    """Read walkthrough's knowledge: "Marcos Tavares is married to Carolina" keeps both ends and
    the relationship (partner_of is the project's spouse/partner edge)."""
    r = await memory.write("u1", "Marcos Tavares is married to Carolina.", speaker_name="Rafael",
                           occurred_at=at(2023, 1, 1))
    assert [f.fact_text for f in r.facts_added] == ["Marcos Tavares is married to Carolina"]
    assert r.facts_added[0].entity_key == "person:marcos_tavares"
    assert _entities(fresh_db_url)["person:carolina"] == "person"
    assert ("person:marcos_tavares", "partner_of", "person:carolina", True) in _edges(fresh_db_url)
    links = {k for (k,) in rows(fresh_db_url, "SELECT entity_key FROM memory_fact_entity_links WHERE fact_id = %s",
                                (r.facts_added[0].fact_id,))}
    assert links == {"person:marcos_tavares", "person:carolina"}


async def test_clara_rezende_portuguese_informed_walkthrough(memory, fresh_db_url):
    """Informed-extraction walkthrough, offline: "Clara Rezende saiu da Vertix e foi pra Orion Tech
    como head de engenharia. O Thiago Nogueira a contratou pessoalmente." -> left Vertix, joined
    Orion Tech as head of engineering, Thiago hired Clara (in the message's language), and the
    spec's three relationships; no near-identical second fact of the first sentence."""
    r = await memory.write("u1", "Clara Rezende saiu da Vertix e foi pra Orion Tech como head de engenharia. "
                           "O Thiago Nogueira a contratou pessoalmente.", speaker_name="Rafael",
                           occurred_at=at(2024, 1, 10))
    by_key = {(f.entity_key, f.fact_text) for f in r.facts_added}
    assert by_key == {
        ("person:clara_rezende", "Clara Rezende saiu da Vertix"),
        ("person:clara_rezende", "Clara Rezende entrou na Orion Tech como head de engenharia"),
        ("person:thiago_nogueira", "Thiago Nogueira contratou Clara Rezende pessoalmente"),
    }, by_key
    ents = _entities(fresh_db_url)
    assert ents["organization:vertix"] == ents["organization:orion_tech"] == "organization"
    assert ents["person:thiago_nogueira"] == "person"
    live = {(s, rel, t) for s, rel, t, ok in _edges(fresh_db_url) if ok}
    assert {("person:clara_rezende", "former_employee_of", "organization:vertix"),
            ("person:clara_rezende", "works_at", "organization:orion_tech"),
            ("person:thiago_nogueira", "hired", "person:clara_rezende")} <= live, live
    assert ("person:clara_rezende", "works_at", "organization:vertix") not in live


async def test_no_weekdays_or_demonyms_as_entities(memory, fresh_db_url):
    await memory.write("u1", "I play football on Saturdays with my Brazilian friends.", speaker_name="Rafael",
                       occurred_at=at(2023, 1, 1))
    ents = _entities(fresh_db_url)
    assert not any(("saturday" in k or "brazilian" in k) for k in ents), ents


async def test_chat_talk_is_not_stored_as_facts(memory):
    """Issue 19's examples: greetings, thanks, apologies, wishes, advice and photo captions are
    talk; "you" is the other speaker of the session."""
    await memory.write("u1", "Hey Maria! How was your week?", speaker_name="John", session_id="s1",
                       occurred_at=at(2023, 5, 8))
    r = await memory.write("u1", "Hey John! Sorry I didn't get back to you sooner. I hope your ideas and "
                           "concerns get heard. Hold onto those moments of peace. [shared a photo: a photo "
                           "of a car that has been damaged]", speaker_name="Maria", session_id="s1",
                           occurred_at=at(2023, 5, 8))
    assert r.facts_added == [], [f.fact_text for f in r.facts_added]
    r = await memory.write("u1", "I joined a nearby church last week.", speaker_name="Maria", session_id="s1",
                           occurred_at=at(2023, 5, 8))
    assert [f.fact_text for f in r.facts_added] == ["Maria joined a nearby church"]


async def test_record_both_sides_assistant_actions(memory):
    """Cookbook: the Assistant's "Created the note 'Ana.md' in the vault and scheduled a birthday
    reminder for May 15" -> two facts about the Assistant (person:assistant), speaker Assistant."""
    r = await memory.write("my-assistant", "Created the note 'Ana.md' in the vault and scheduled a birthday "
                           "reminder for May 15", speaker_name="Assistant", occurred_at=at(2024, 2, 1))
    assert sorted(f.fact_text for f in r.facts_added) == [
        "Assistant created the note 'Ana.md' in the vault", "Assistant scheduled a birthday reminder for May 15"]
    assert {f.entity_key for f in r.facts_added} == {"person:assistant"}


async def test_complete_example_conversation(memory, fresh_db_url):
    """Cookbook's complete example, four messages from Rafael, offline: job, partner, pet,
    hobby, move; typed entities and no talk."""
    said = []
    for i, msg in enumerate([
        "Hi, I'm Rafael. I'm a backend engineer at Acme Corp in São Paulo.",
        "My girlfriend Ana is a UX designer. We have a cat named Pixel.",
        "I've been learning Rust lately, mostly on weekends.",
        "Actually, I just moved to Rio de Janeiro. Still remote at Acme.",
    ]):
        r = await memory.write("rafael", msg, speaker_name="Rafael", occurred_at=at(2024, 1, 1 + i))
        assert r.success
        said += [f.fact_text for f in r.facts_added + r.facts_updated + r.facts_unchanged]
    assert "Rafael is a backend engineer at Acme Corp" in said, said
    assert "Ana is Rafael's girlfriend" in said and any("UX designer" in t for t in said), said
    assert "Pixel is Rafael's cat" in said, said
    assert any(t.startswith("Rafael has been learning Rust") for t in said), said
    assert any("Rio de Janeiro" in t for t in said) and "Rafael works at Acme" in said, said
    assert not any("mentioned that" in t or t.startswith(("Hi", "Actually")) for t in said), said
    ents = _entities(fresh_db_url)
    assert ents["organization:acme_corp"] == "organization" and ents["person:ana"] == "person"
    assert ents["place:rio_de_janeiro"] == "place"
    assert not any("weekend" in k for k in ents), ents
    edges = {(s, rel, t) for s, rel, t, live in _edges(fresh_db_url) if live}
    assert {("person:rafael", "works_at", "organization:acme_corp"), ("person:rafael", "partner_of", "person:ana"),
            ("person:rafael", "lives_in", "place:rio_de_janeiro")} <= edges, edges
