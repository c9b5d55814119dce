"""The specification's LLM walkthroughs, replayed over real HTTP against the fake server with the
spec's example outputs: informed extraction (Clara joins Orion Tech), the blind fallback, the
reconciliation slow path (Ricardo moves to Austin) and LLM entity resolution (Guili/Guilherme)."""

from __future__ import annotations

from tests.conftest import rows
from tests.fake_openai import (
    ENTITY_SCAN,
    FACTS,
    INFORMED,
    INVALID_JSON,
    PICK,
    RECONCILE,
    RELATIONS,
    T0,
    T1,
    T2,
    RecordingClient,
    defaults,
    pick,
    provider,
    step,
    target,
)

AGENT = "agent_llm"

# ---- Clara Rezende -------------------------------------------------------------------------------
CLARA_SETUP_MSG = "A Clara Rezende é engenheira de software. A Vertix é uma startup SaaS em Curitiba."
CLARA_SETUP = {
    "entities": [
        {"name": "Clara Rezende", "type": "person", "aliases": []},
        {"name": "Vertix", "type": "organization", "aliases": []},
        {"name": "Curitiba", "type": "place", "aliases": []},
    ],
    "facts": [
        {"subject": "Clara Rezende", "text": "Clara Rezende is a software engineer", "action": "NEW",
         "importance_category": "biographical_milestone", "confidence": 0.95,
         "attribute_key": "occupation", "value": "software engineer"},
        {"subject": "Vertix", "text": "Vertix is a SaaS startup in Curitiba", "action": "NEW",
         "importance_category": "stable_preference", "confidence": 0.95},
    ],
    "relations": [],
    "updated_profiles": [
        {"name": "Clara Rezende", "profile": "Software engineer, previously at Vertix since 2023."}
    ],
}
CLARA_MSG = ("Clara Rezende saiu da Vertix e foi pra Orion Tech como head de engenharia. "
             "O Thiago Nogueira a contratou pessoalmente.")
CLARA_ENTITIES = [
    {"name": "Clara Rezende", "type": "person", "aliases": []},
    {"name": "Vertix", "type": "organization", "aliases": []},
    {"name": "Orion Tech", "type": "organization", "aliases": []},
    {"name": "Thiago Nogueira", "type": "person", "aliases": []},
]
CLARA_FACTS = [
    {"subject": "Clara Rezende", "text": "Clara Rezende left Vertix", "confidence": 0.95,
     "action": "NEW", "importance_category": "relationship_change"},
    {"subject": "Clara Rezende", "text": "Clara Rezende joined Orion Tech as head of engineering",
     "confidence": 0.95, "action": "NEW", "importance_category": "biographical_milestone"},
    {"subject": "Thiago Nogueira", "text": "Thiago Nogueira personally hired Clara Rezende",
     "confidence": 0.95, "action": "NEW", "importance_category": "specific_event"},
]
CLARA_RELATIONS = [
    {"source": "Clara Rezende", "type": "former_employee_of", "target": "Vertix"},
    {"source": "Clara Rezende", "type": "works_at", "target": "Orion Tech"},
    {"source": "Thiago Nogueira", "type": "hired", "target": "Clara Rezende"},
]
CLARA_INFORMED = {
    "entities": CLARA_ENTITIES,
    "facts": CLARA_FACTS,
    "relations": CLARA_RELATIONS,
    "updated_profiles": [{"name": "Clara Rezende",
                          "profile": "Software engineer. Left Vertix, joined Orion Tech as head of engineering."}],
}


async def _clara_setup(client: RecordingClient, fake) -> None:  # type: ignore[no-untyped-def]
    fake.on((INFORMED, "A Clara Rezende é engenheira"), CLARA_SETUP)
    r = await client.write(AGENT, CLARA_SETUP_MSG, speaker_name="Rafael", occurred_at=T0)
    assert r.success and len(r.facts_added) == 2, r


async def test_clara_informed_extraction_one_call(fresh_db_url, embeddings, fake):
    fake.on((INFORMED, "Clara Rezende saiu da Vertix"), CLARA_INFORMED)
    defaults(fake)
    client = RecordingClient(fresh_db_url, llm=provider(fake), embeddings=embeddings)
    try:
        await _clara_setup(client, fake)
        before = len(fake.requests)
        result = await client.write(AGENT, CLARA_MSG, speaker_name="Rafael", occurred_at=T1, verbose=True)
    finally:
        await client.close()
    assert result.success, result.error
    # Step 3: ONE extraction call, whose prompt carried speaker, time and existing knowledge.
    calls = fake.calls(INFORMED, "Clara Rezende saiu da Vertix")
    assert len(calls) == 1
    assert not [r for r in fake.requests[before:] if r.has(ENTITY_SCAN) or r.has(FACTS) or r.has(RELATIONS)]
    prompt = calls[0].user
    assert "Speaker: Rafael" in prompt and "2025-06-15" in prompt
    assert "[Clara Rezende (person) profile] Software engineer, previously at Vertix since 2023." in prompt
    assert "[Vertix (organization) facts]" in prompt and "- Vertix is a SaaS startup in Curitiba (0.95)" in prompt
    assert "Orion Tech (organization)" not in prompt.split("MESSAGE:")[0]  # new entities: no context
    assert calls[0].body.get("response_format") == {"type": "json_object"}
    # Result: 4 entities, 3 facts, 3 relations, 1 updated profile, mode informed.
    extraction = client.last_extraction
    assert extraction.mode == "informed" and extraction.error is None
    assert len(extraction.entities) == 4 and len(extraction.facts) == 3 and len(extraction.relations) == 3
    assert list(extraction.profiles) == ["Clara Rezende"]
    assert extraction.trace["calls"] == {"informed_extraction": 1}
    assert extraction.trace["knowledge_entities"] == ["person:clara_rezende", "organization:vertix"]
    assert step(result, "extraction")["modes"] == ["informed"]
    assert sorted(f.fact_text for f in result.facts_added) == sorted(f["text"] for f in CLARA_FACTS)
    keys = {e.canonical_key for e in result.entities_resolved}
    assert {"person:clara_rezende", "organization:vertix", "organization:orion_tech",
            "person:thiago_nogueira"} <= keys
    rels = rows(fresh_db_url, "SELECT source_entity_key, rel_type, target_entity_key FROM "
                "memory_entity_relationships WHERE agent_id = %s AND valid_to IS NULL ORDER BY 2", (AGENT,))
    assert rels == [("person:clara_rezende", "former_employee_of", "organization:vertix"),
                    ("person:thiago_nogueira", "hired", "person:clara_rezende"),
                    ("person:clara_rezende", "works_at", "organization:orion_tech")]
    # Profiles are seeded, never overwritten by the write path.
    profile = rows(fresh_db_url, "SELECT profile_text FROM memory_entities WHERE agent_id = %s "
                   "AND canonical_key = 'person:clara_rezende'", (AGENT,))
    assert profile == [("Software engineer, previously at Vertix since 2023.",)]
    # Importance comes from the category; the fact is in Portuguese-or-English as the model gave it.
    imp = dict(rows(fresh_db_url, "SELECT fact_text, importance FROM memory_facts WHERE agent_id = %s", (AGENT,)))
    assert imp["Clara Rezende joined Orion Tech as head of engineering"] > imp["Thiago Nogueira personally hired Clara Rezende"]
    # Every call's tokens are reported.
    spent = sum(len(r.prompt) // 4 + len(r.reply) // 4 for r in fake.requests[before:] if r.status == 200)
    assert result.tokens_used.total_tokens == spent > 0


async def test_clara_blind_fallback_three_calls(fresh_db_url, embeddings, fake):
    fake.on((INFORMED, "Clara Rezende saiu da Vertix"), INVALID_JSON)
    fake.on((ENTITY_SCAN, "Clara Rezende saiu da Vertix"), {"entities": CLARA_ENTITIES})
    fake.on((FACTS, "Clara Rezende saiu da Vertix"),
            {"facts": [{k: v for k, v in f.items() if k != "action"} for f in CLARA_FACTS]})
    fake.on((RELATIONS, "Clara Rezende saiu da Vertix"), {"relations": CLARA_RELATIONS})
    defaults(fake)
    client = RecordingClient(fresh_db_url, llm=provider(fake), embeddings=embeddings)
    try:
        await _clara_setup(client, fake)
        result = await client.write(AGENT, CLARA_MSG, speaker_name="Rafael", occurred_at=T1, verbose=True)
    finally:
        await client.close()
    assert result.success, result.error
    assert len(fake.calls(INFORMED, "Clara Rezende saiu")) == 1
    blind = [len(fake.calls(t, "Clara Rezende saiu")) for t in (ENTITY_SCAN, FACTS, RELATIONS)]
    assert blind == [1, 1, 1]  # 3 calls: entity scan, then facts and relations concurrently
    # Facts and relations got the entity list from the scan.
    assert "- Orion Tech (organization)" in fake.calls(FACTS, "Clara Rezende saiu")[0].user
    extraction = client.last_extraction
    assert extraction.mode == "blind"
    assert extraction.trace["fallback"] is True and extraction.trace["informed_error_kind"] == "invalid"
    assert extraction.trace["relation_retry_triggered"] is False
    assert len(extraction.entities) == 4 and len(extraction.facts) == 3 and len(extraction.relations) == 3
    data = step(result, "extraction")
    assert data["modes"] == ["blind"] and "blind fallback used" in data["errors"][0]
    assert len(result.facts_added) == 3
    status = rows(fresh_db_url, "SELECT extraction_status FROM memory_events WHERE id = %s", (result.event_id,))
    assert status == [("done",)]


# ---- Ricardo moves to Austin: reconciliation slow path --------------------------------------------
RICARDO_1 = {
    "entities": [{"name": "Ricardo Gomes", "type": "person"}, {"name": "São Paulo", "type": "place"}],
    "facts": [{"subject": "Ricardo Gomes", "text": "Ricardo Gomes lives in São Paulo", "confidence": 0.95,
               "importance_category": "stable_preference"}],
    "relations": [{"source": "Ricardo Gomes", "type": "lives_in", "target": "São Paulo"}],
}
RICARDO_2 = {
    "entities": [{"name": "Ricardo Gomes", "type": "person"}, {"name": "Austin", "type": "place",
                                                               "aliases": ["Austin, Texas"]}],
    "facts": [{"subject": "Ricardo Gomes", "text": "Ricardo Gomes moved to Austin, Texas", "confidence": 0.95,
               "action": "UPDATE", "importance_category": "relationship_change"}],
    "relations": [{"source": "Ricardo Gomes", "type": "lives_in", "target": "Austin"}],
}


async def test_ricardo_reconciliation_slow_path_update_and_cascade(fresh_db_url, embeddings, fake):
    fake.on((INFORMED, "O Ricardo Gomes mora em São Paulo"), RICARDO_1)
    fake.on((INFORMED, "Ricardo Gomes moved to Austin"), RICARDO_2)
    fake.on(RECONCILE, target("Ricardo Gomes lives in São Paulo", "UPDATE"))
    defaults(fake)
    client = RecordingClient(fresh_db_url, llm=provider(fake), embeddings=embeddings)
    try:
        first = await client.write(AGENT, "O Ricardo Gomes mora em São Paulo.", speaker_name="Rafael", occurred_at=T0)
        assert first.success and len(first.facts_added) == 1
        old_id = first.facts_added[0].fact_id
        result = await client.write(AGENT, "Ricardo Gomes moved to Austin, Texas.", speaker_name="Rafael",
                                    occurred_at=T1, verbose=True)
    finally:
        await client.close()
    assert result.success, result.error
    # Step 2/3: similarity >= 0.50 -> one LLM call, which saw both facts and chose UPDATE.
    rec = fake.calls(RECONCILE)
    assert len(rec) == 1
    assert "F1: Ricardo Gomes lives in São Paulo (since 2025-06-10; similarity 0." in rec[0].user
    assert "Ricardo Gomes moved to Austin, Texas" in rec[0].user
    data = step(result, "reconciliation")
    assert data["decisions"]["UPDATE"] == 1 and data["llm_calls"] == 1 and data["llm_failures"] == 0
    assert [f.fact_text for f in result.facts_updated] == ["Ricardo Gomes moved to Austin, Texas"]
    assert result.facts_updated[0].supersedes_fact_id == old_id
    old = rows(fresh_db_url, "SELECT valid_to IS NOT NULL, invalidated_at IS NOT NULL FROM memory_facts "
               "WHERE id = %s", (old_id,))
    assert old == [(True, True)]
    # Cascade: lives_in -> São Paulo invalidated; lives_in -> Austin active.
    rels = rows(fresh_db_url, "SELECT target_entity_key, valid_to IS NULL FROM memory_entity_relationships "
                "WHERE agent_id = %s AND rel_type = 'lives_in' ORDER BY 1", (AGENT,))
    assert rels == [("place:austin", True), ("place:sao_paulo", False)]
    # The extraction prompt showed what was known about Ricardo (pre-retrieval by alias).
    assert "- Ricardo Gomes lives in São Paulo (0.95)" in fake.calls(INFORMED, "moved to Austin")[0].user


async def test_ricardo_with_attribute_key_needs_no_llm_decision(fresh_db_url, embeddings, fake):
    """The same move with a single-valued attribute key is decided by rule (no slow path)."""
    one = {**RICARDO_1, "facts": [{**RICARDO_1["facts"][0], "attribute_key": "City", "value": "São Paulo"}]}
    two = {**RICARDO_2, "facts": [{**RICARDO_2["facts"][0], "attribute_key": "residence", "value": "Austin"}]}
    fake.on((INFORMED, "O Ricardo Gomes mora em São Paulo"), one)
    fake.on((INFORMED, "Ricardo Gomes moved to Austin"), two)
    defaults(fake)
    client = RecordingClient(fresh_db_url, llm=provider(fake), embeddings=embeddings)
    try:
        await client.write(AGENT, "O Ricardo Gomes mora em São Paulo.", speaker_name="Rafael", occurred_at=T0)
        result = await client.write(AGENT, "Ricardo Gomes moved to Austin, Texas.", speaker_name="Rafael",
                                    occurred_at=T1, verbose=True)
    finally:
        await client.close()
    assert not fake.calls(RECONCILE)
    assert [f.attribute_key for f in result.facts_updated] == ["location"]  # city/residence -> location
    assert client.last_extraction.trace["attribute_keys"] == [
        {"raw": "residence", "key": "location", "action": "map"}]


# ---- Guili / Guilherme: fuzzy + LLM entity resolution -------------------------------------------
GUI_SETUP = {
    "entities": [{"name": "Guilherme Maturana", "type": "person"}],
    "facts": [{"subject": "Guilherme Maturana", "text": "Guilherme Maturana is Rafael's friend and a designer",
               "confidence": 0.95, "importance_category": "stable_preference"}],
    "relations": [{"source": "Rafael", "type": "friend_of", "target": "Guilherme Maturana"}],
}
GUI_MSG = "Talked to Guili about the project. Guilherme said it's on track."
GUI_EXTRACT = {
    "entities": [{"name": "Guili", "type": "person"}, {"name": "Guilherme", "type": "person"}],
    "facts": [{"subject": "Guilherme", "text": "Guilherme said the project is on track", "confidence": 0.95},
              {"subject": "Rafael", "text": "Rafael talked to Guili about the project", "confidence": 0.95}],
    "relations": [],
}


async def test_guili_guilherme_llm_resolution(fresh_db_url, embeddings, fake):
    fake.on((INFORMED, "Guilherme Maturana é designer"), GUI_SETUP)
    fake.on((INFORMED, GUI_MSG), GUI_EXTRACT)
    fake.on((INFORMED, "Guili sent me the mockups"), {
        "entities": [{"name": "Guili", "type": "person"}],
        "facts": [{"subject": "Guili", "text": "Guili sent Rafael the mockups", "confidence": 0.95}],
        "relations": []})
    fake.on((PICK, "<<<NAME\nGuili\nNAME>>>"), pick("Guilherme Maturana"))
    defaults(fake)
    client = RecordingClient(fresh_db_url, llm=provider(fake), embeddings=embeddings)
    try:
        await client.write(AGENT, "Meu amigo Guilherme Maturana é designer.", speaker_name="Rafael", occurred_at=T0)
        result = await client.write(AGENT, GUI_MSG, speaker_name="Rafael", occurred_at=T1, verbose=True)
        third = await client.write(AGENT, "Guili sent me the mockups.", speaker_name="Rafael", occurred_at=T2)
    finally:
        await client.close()
    assert result.success, result.error
    # Phase 1: "Guilherme" is the known person (first-name match); "Guili" (cosine ~0.54 with
    # MiniLM, in the ambiguous 0.50-0.85 band) goes to the LLM, which picks Guilherme Maturana.
    # Both names land on one entity.
    persons = [e for e in result.entities_resolved if e.entity_type == "person"]
    assert sorted(e.canonical_key for e in persons) == ["person:guilherme_maturana", "person:rafael"]
    facts = {f.fact_text: f.entity_key for f in result.facts_added}
    assert facts["Guilherme said the project is on track"] == "person:guilherme_maturana"
    links = rows(fresh_db_url, "SELECT l.entity_key FROM memory_fact_entity_links l JOIN memory_facts f "
                 "ON f.id = l.fact_id WHERE f.fact_text = 'Rafael talked to Guili about the project' "
                 "AND NOT l.is_primary", ())
    assert links == [("person:guilherme_maturana",)]
    picks = fake.calls(PICK)
    assert len(picks) == 1 and "Guilherme Maturana (person)" in picks[0].user
    # Alias registered: the next "Guili" resolves in phase 1, no LLM call.
    aliases = rows(fresh_db_url, "SELECT canonical_entity_key FROM memory_entity_aliases WHERE agent_id = %s "
                   "AND alias = 'guili'", (AGENT,))
    assert aliases == [("person:guilherme_maturana",)]
    assert [e.method for e in third.entities_resolved if e.mention == "Guili"] == ["alias"]
    assert len(fake.calls(PICK)) == 1
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_entities WHERE agent_id = %s AND "
                "entity_type = 'person'", (AGENT,)) == [(2,)]  # Rafael + Guilherme, no duplicate


async def test_guili_llm_says_no_match_creates_entity(fresh_db_url, embeddings, fake):
    fake.on((INFORMED, "Guilherme Maturana é designer"), GUI_SETUP)
    fake.on((INFORMED, GUI_MSG), GUI_EXTRACT)
    defaults(fake)  # the picker answers {"match": null}
    client = RecordingClient(fresh_db_url, llm=provider(fake), embeddings=embeddings)
    try:
        await client.write(AGENT, "Meu amigo Guilherme Maturana é designer.", speaker_name="Rafael", occurred_at=T0)
        result = await client.write(AGENT, GUI_MSG, speaker_name="Rafael", occurred_at=T1)
    finally:
        await client.close()
    guili = next(e for e in result.entities_resolved if e.mention == "Guili")
    assert guili.canonical_key == "person:guili" and guili.method == "new"
    assert len(fake.calls(PICK)) == 1
