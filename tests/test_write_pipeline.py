"""Write pipeline behaviour on a real server, with a scripted extractor so the assertions are
about resolution, reconciliation, versioning and upsert — not about the rules' wording."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from arandu_pipelines.client import MemoryClient
from arandu_pipelines.errors import ValidationError
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


def day(d: int, m: int = 5, y: int = 2023) -> datetime:
    return datetime(y, m, d, 12, tzinfo=UTC)


def ScriptedClient(*args, script: dict[str, ExtractionResult], **kwargs) -> MemoryClient:
    """A MemoryClient whose extractor (the public `extractor=` seam) returns a scripted result
    per message text; "boom" raises."""

    async def extract(text, ctx):
        if text == "boom":
            raise RuntimeError("extractor exploded")
        import copy

        return copy.deepcopy(script.get(text, ExtractionResult()))

    return MemoryClient(*args, extractor=extract, **kwargs)


SCRIPT = {
    "I live in São Paulo.": ExtractionResult(
        entities=[E("São Paulo", "place")],
        facts=[F("Rafael", "Rafael lives in São Paulo", "location", "São Paulo")],
        relations=[R("Rafael", "lives_in", "São Paulo")],
    ),
    "I moved to Rio de Janeiro.": ExtractionResult(
        entities=[E("Rio de Janeiro", "place")],
        facts=[F("Rafael", "Rafael moved to Rio de Janeiro", "location", "Rio de Janeiro",
                 "relationship_change")],
        relations=[R("Rafael", "lives_in", "Rio de Janeiro")],
    ),
    "I work at Acme.": ExtractionResult(
        entities=[E("Acme", "organization")],
        facts=[F("Rafael", "Rafael works at Acme", "employer", "Acme")],
        relations=[R("Rafael", "works_at", "Acme")],
    ),
    "I no longer work at Acme.": ExtractionResult(
        entities=[E("Acme", "organization")],
        facts=[F("Rafael", "Rafael no longer works at Acme", "employer", None,
                 "relationship_change", retracts=True, retract_value="Acme")],
        relations=[R("Rafael", "works_at", "Acme", retracts=True)],
    ),
    "Clara left Vertix.": ExtractionResult(
        entities=[E("Clara Rezende", "person"), E("Vertix", "organization")],
        facts=[F("Clara Rezende", "Clara Rezende left Vertix", "event", None, "relationship_change",
                 mentions=["Vertix"])],
        relations=[R("Clara Rezende", "former_employee_of", "Vertix")],
    ),
    "My mom lives in Curitiba.": ExtractionResult(
        entities=[E("Curitiba", "place")],
        facts=[],
        relations=[R("Mom", "lives_in", "Curitiba")],
    ),
    "Guili (Guilherme Maturana) is my friend.": ExtractionResult(
        entities=[E("Guilherme Maturana", "person", ["Guili"])],
        facts=[F("Guili", "Guili is Rafael's friend", "relationship", None, mentions=["Rafael"])],
        relations=[R("Rafael", "friend_of", "Guili"), R("Guili", "same_as", "Guilherme Maturana")],
    ),
    "Guili runs marathons.": ExtractionResult(
        entities=[E("Guili", "person")],
        facts=[F("Guili", "Guili runs marathons", "hobby")],
    ),
    "Carolina is an architect.": ExtractionResult(
        entities=[E("Carolina", "person")],
        facts=[F("Carolina", "Carolina is an architect", "occupation", "architect")],
    ),
    "Carol got promoted.": ExtractionResult(
        entities=[E("Carol", "person")],
        facts=[F("Carol", "Carol got promoted", "event", None, "biographical_milestone")],
    ),
    "Names in other scripts.": ExtractionResult(
        entities=[E("Мария", "person"), E("王伟", "person"), E("Мирослав", "person")],
        facts=[F("Мария", "Мария is a teacher"), F("王伟", "王伟 is a chef"),
               F("Мирослав", "Мирослав is a pilot")],
    ),
    "I am my own friend.": ExtractionResult(
        facts=[F("Rafael", "Rafael likes himself")],
        relations=[R("Rafael", "friend_of", "I")],
    ),
    "Ana lives in Lisbon.": ExtractionResult(
        entities=[E("Ana", "person"), E("Lisbon", "place")],
        facts=[F("Ana", "Ana lives in Lisbon", "location", "Lisbon")],
        relations=[R("Ana", "lives_in", "Lisbon")],
    ),
}


@pytest.fixture
async def mem(fresh_db_url, embeddings):
    client = ScriptedClient(fresh_db_url, embeddings=embeddings, script=SCRIPT)
    await client.initialize()
    yield client
    await client.close()


async def test_move_is_an_update_chain_with_event_time_windows_and_cascade(mem, fresh_db_url):
    first = await mem.write("a", "I live in São Paulo.", "Rafael", occurred_at=day(1))
    second = await mem.write("a", "I moved to Rio de Janeiro.", "Rafael", occurred_at=day(20))
    assert [f.fact_text for f in first.facts_added] == ["Rafael lives in São Paulo"]
    assert [f.fact_text for f in second.facts_updated] == ["Rafael moved to Rio de Janeiro"]
    assert second.facts_updated[0].supersedes_fact_id == first.facts_added[0].fact_id
    old = await mem.get("a", first.facts_added[0].fact_id)
    assert old.valid_from == day(1) and old.valid_to == day(20)  # event time, from occurred_at
    assert old.invalidated_at is not None and old.invalidated_at.year >= 2026  # system time
    active = [f.fact_text for f in await mem.get_all("a")]
    assert active == ["Rafael moved to Rio de Janeiro"]
    edges = {
        t: active for t, active in rows(
            fresh_db_url, "SELECT target_entity_key, valid_to IS NULL FROM memory_entity_relationships")
    }
    assert edges == {"place:sao_paulo": False, "place:rio_de_janeiro": True}


async def test_restating_a_fact_is_noop_and_reinforces(mem, fresh_db_url):
    a = await mem.write("a", "I work at Acme.", "Rafael", occurred_at=day(1))
    b = await mem.write("a", "I work at Acme.", "Rafael", occurred_at=day(2))
    c = await mem.write("a", "I work at Acme.", "Rafael", occurred_at=day(3))
    assert b.facts_added == [] and [f.fact_id for f in b.facts_unchanged] == [a.facts_added[0].fact_id]
    assert c.facts_unchanged and not c.facts_added
    (count, confirmed), = rows(fresh_db_url, "SELECT reinforcement_count, last_confirmed_at FROM memory_facts")
    assert count == 2 and confirmed == day(3)
    (strength, n), = rows(fresh_db_url, "SELECT strength, times_reinforced FROM memory_entity_relationships")
    assert strength == pytest.approx(1.0) and n == 2  # 0.8 -> 0.9 -> 1.0
    await mem.write("a", "I work at Acme.", "Rafael", occurred_at=day(4))
    (strength,), = rows(fresh_db_url, "SELECT strength FROM memory_entity_relationships")
    assert strength == pytest.approx(1.0)  # capped


async def test_retraction_deletes_and_invalidates_then_reactivates(mem, fresh_db_url):
    await mem.write("a", "I work at Acme.", "Rafael", occurred_at=day(1))
    r = await mem.write("a", "I no longer work at Acme.", "Rafael", occurred_at=day(5))
    assert [f.fact_text for f in r.facts_deleted] == ["Rafael works at Acme"]
    assert [f.fact_text for f in r.facts_added] == ["Rafael no longer works at Acme"]
    assert rows(fresh_db_url, "SELECT valid_to FROM memory_entity_relationships") == [(day(5),)]
    (attr, value), = rows(fresh_db_url, "SELECT attribute_key, value_text FROM memory_facts "
                          "WHERE fact_text = 'Rafael no longer works at Acme'")
    assert (attr, value) == ("employer.former", "Acme")  # kept as a past value
    r2 = await mem.write("a", "I work at Acme.", "Rafael", occurred_at=day(9))
    assert [f.fact_text for f in r2.facts_added] == ["Rafael works at Acme"]
    assert [f.fact_text for f in r2.facts_deleted] == ["Rafael no longer works at Acme"]  # contradicted
    (valid_to, strength, inv), = rows(
        fresh_db_url, "SELECT valid_to, strength, invalidated_at FROM memory_entity_relationships")
    assert valid_to is None and inv is None and strength == pytest.approx(0.8)  # re-activated


async def test_fact_links_to_every_entity_it_mentions(mem, fresh_db_url):
    r = await mem.write("a", "Clara left Vertix.", "Narrator", occurred_at=day(1))
    fid = r.facts_added[0].fact_id
    links = rows(fresh_db_url, "SELECT entity_key, is_primary FROM memory_fact_entity_links "
                 "WHERE fact_id = %s ORDER BY 1", (fid,))
    assert links == [("organization:vertix", False), ("person:clara_rezende", True)]
    vertix = await mem.get_all("a", entity_keys=["organization:vertix"])
    assert [f.fact_text for f in vertix] == ["Clara Rezende left Vertix"]


async def test_mirror_fact_for_a_relation_without_a_fact(mem, fresh_db_url):
    r = await mem.write("a", "My mom lives in Curitiba.", "Rafael", occurred_at=day(1))
    mirror = [f for f in r.facts_added]
    assert [f.fact_text for f in mirror] == ["Mom lives in Curitiba"]
    assert mirror[0].entity_key == "person:rafael_s_mom"  # the speaker's mom, not the speaker
    (conf, ctx), = rows(fresh_db_url, "SELECT confidence, source_context FROM memory_facts")
    assert conf == pytest.approx(0.6) and ctx == "inferred_from_relation"
    (ev,), = rows(fresh_db_url, "SELECT evidence_fact_id FROM memory_entity_relationships")
    assert str(ev) == mirror[0].fact_id
    again = await mem.write("a", "My mom lives in Curitiba.", "Rafael", occurred_at=day(2))
    assert not again.facts_added and len(again.facts_unchanged) == 1  # same reconciliation path


async def test_alias_grouping_registration_and_later_exact_match(mem, fresh_db_url):
    r = await mem.write("a", "Guili (Guilherme Maturana) is my friend.", "Rafael", occurred_at=day(1))
    keys = {e.canonical_key for e in r.entities_resolved}
    assert "person:guilherme_maturana" in keys and not any("guili" in k for k in keys)
    assert r.facts_added[0].entity_key == "person:guilherme_maturana"
    rels = rows(fresh_db_url, "SELECT source_entity_key, rel_type, target_entity_key FROM memory_entity_relationships")
    assert rels == [("person:rafael", "friend_of", "person:guilherme_maturana")]  # same_as dropped
    r2 = await mem.write("a", "Guili runs marathons.", "Rafael", occurred_at=day(2))
    guili = next(e for e in r2.entities_resolved if e.mention == "Guili")
    assert (guili.canonical_key, guili.method) == ("person:guilherme_maturana", "alias")
    assert rows(fresh_db_url, "SELECT canonical_entity_key FROM memory_entity_aliases WHERE alias = 'guili'") == [
        ("person:guilherme_maturana",)]


async def test_person_diminutive_resolves_but_short_names_do_not(mem):
    await mem.write("a", "Carolina is an architect.", "Rafael", occurred_at=day(1))
    r = await mem.write("a", "Carol got promoted.", "Rafael", occurred_at=day(2))
    carol = next(e for e in r.entities_resolved if e.mention == "Carol")
    assert (carol.canonical_key, carol.method) == ("person:carolina", "diminutive")


async def test_names_in_other_scripts_get_distinct_stable_keys(mem):
    r = await mem.write("a", "Names in other scripts.", "Rafael", occurred_at=day(1))
    keys = sorted(e.canonical_key for e in r.entities_resolved if e.mention != "Rafael")
    assert keys == ["person:мария", "person:мирослав", "person:王伟"]
    r2 = await mem.write("a", "Names in other scripts.", "Rafael", occurred_at=day(2))
    assert sorted(e.canonical_key for e in r2.entities_resolved if e.mention != "Rafael") == keys


async def test_self_referencing_relation_is_dropped(mem, fresh_db_url):
    await mem.write("a", "I am my own friend.", "Rafael", occurred_at=day(1))
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entity_relationships") == [(0,)]


async def test_every_resolved_entity_has_a_row(mem, fresh_db_url):
    await mem.write("a", "Clara left Vertix.", "Rafael", occurred_at=day(1))
    got = {k for (k,) in rows(fresh_db_url, "SELECT canonical_key FROM memory_entities")}
    assert got == {"person:rafael", "person:clara_rezende", "organization:vertix"}


async def test_agents_are_isolated(mem, fresh_db_url):
    await mem.write("alice", "Ana lives in Lisbon.", "Alice", occurred_at=day(1))
    await mem.write("bob", "I work at Acme.", "Bob", occurred_at=day(1))
    assert [f.fact_text for f in await mem.get_all("alice")] == ["Ana lives in Lisbon"]
    assert [f.fact_text for f in await mem.get_all("bob")] == ["Rafael works at Acme"]  # scripted text
    bob_fact = (await mem.get_all("bob"))[0]
    assert await mem.get("alice", bob_fact.fact_id) is None
    assert await mem.delete("alice", bob_fact.fact_id) is False
    assert {e.canonical_key for e in await mem.entities("alice")} == {
        "person:alice", "person:ana", "place:lisbon"}


async def test_delete_all_erases_every_row_of_the_agent_only(mem, fresh_db_url):
    for text in ("I live in São Paulo.", "I moved to Rio de Janeiro.", "Clara left Vertix.",
                 "Guili (Guilherme Maturana) is my friend."):
        await mem.write("gone", text, "Rafael", occurred_at=day(3))
    await mem.write("kept", "I work at Acme.", "Bob", occurred_at=day(3))
    report = await mem.delete_all("gone")
    assert report.rows["memory_events"] == 4 and report.facts >= 3 and report.total > 10
    tables = [t for (t,) in rows(fresh_db_url,
              "SELECT table_name FROM information_schema.columns WHERE column_name = 'agent_id' "
              "AND table_schema = 'public'")]
    assert len(tables) >= 12
    for table in tables:
        assert rows(fresh_db_url, f"SELECT count(*) FROM {table} WHERE agent_id = 'gone'") == [(0,)], table
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_facts WHERE agent_id = 'kept'") == [(1,)]


async def test_event_is_kept_when_extraction_fails_and_marked_for_retry(mem, fresh_db_url):
    r = await mem.write("a", "boom", "Rafael", occurred_at=day(1))
    assert r.success is False and "exploded" in r.error and r.event_id
    (status, attempts, err), = rows(
        fresh_db_url, "SELECT extraction_status, extraction_attempts, extraction_error FROM memory_events")
    assert status == "failed" and attempts == 1 and "exploded" in err


async def test_dry_run_persists_nothing(mem, fresh_db_url):
    r = await mem.write("a", "I live in São Paulo.", "Rafael", dry_run=True)
    assert r.dry_run and [f.fact_text for f in r.facts_added] == ["Rafael lives in São Paulo"]
    assert r.event_id is None
    for table in ("memory_events", "memory_facts", "memory_entities", "memory_entity_aliases"):
        assert rows(fresh_db_url, f"SELECT count(*) FROM {table}") == [(0,)]


async def test_empty_message_is_a_guarded_no_op(mem, fresh_db_url):
    r = await mem.write("a", "   \n ", "Rafael")
    assert r.success and r.skipped_reason == "empty message" and r.event_id is None
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events") == [(0,)]


async def test_bad_input_is_refused_at_the_edge_and_nothing_is_written(mem, fresh_db_url):
    with pytest.raises(ValidationError, match="speaker_name"):
        await mem.write("a", "I live in São Paulo.")
    with pytest.raises(ValidationError, match="agent_id"):
        await mem.write("", "hello", "Rafael")
    with pytest.raises(ValidationError, match="topk_facts"):
        await mem.write("a", "hello", "Rafael", config_overrides={"topk_facts": "many"})
    with pytest.raises(ValidationError, match="NUL"):
        await mem.write("a", "bad\x00byte", "Rafael")
    with pytest.raises(ValidationError, match="occurred_at"):
        await mem.write("a", "hello", "Rafael", occurred_at="yesterday-ish")
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events") == [(0,)]
    with pytest.raises(ValidationError, match="no_such_knob"):  # issue 14: refused, not ignored
        await mem.write("a", "I work at Acme.", "Rafael", config_overrides={"no_such_knob": 1})
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events") == [(0,)]


async def test_duplicate_message_id_is_refused_and_the_first_kept(mem, fresh_db_url):
    await mem.write("a", "I work at Acme.", "Rafael", message_id="m1")
    with pytest.raises(ValidationError, match="already exists"):
        await mem.write("a", "I live in São Paulo.", "Rafael", message_id="m1")
    assert rows(fresh_db_url, "SELECT text FROM memory_events") == [("I work at Acme.",)]


async def test_verbose_trace_names_every_stage(mem):
    r = await mem.write("a", "I live in São Paulo.", "Rafael", verbose=True)
    names = [s.name for s in r.pipeline.steps]
    assert names[:5] == ["extraction", "entity_resolution", "embedding", "reconciliation", "upsert"]
    assert r.pipeline.get("reconciliation").data["decisions"]["ADD"] == 1
    assert r.pipeline.to_dict()["steps"][0]["name"] == "extraction"


async def test_older_news_arriving_late_becomes_history(mem, fresh_db_url):
    await mem.write("a", "I moved to Rio de Janeiro.", "Rafael", occurred_at=day(20))
    r = await mem.write("a", "I live in São Paulo.", "Rafael", occurred_at=day(1))
    assert [f.fact_text for f in r.facts_added] == ["Rafael lives in São Paulo"]
    assert [f.fact_text for f in await mem.get_all("a")] == ["Rafael moved to Rio de Janeiro"]
    (vf, vt), = rows(fresh_db_url, "SELECT valid_from, valid_to FROM memory_facts "
                     "WHERE fact_text = 'Rafael lives in São Paulo'")
    assert (vf, vt) == (day(1), day(20))
