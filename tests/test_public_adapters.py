"""The spec-shaped public functions (issue 15) against the embedded server: each adapter reaches
the internal it wraps, with the spec's argument spellings (session, llm_provider=, ...) and ours.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
import pytest

import arandu_pipelines as ap
from arandu_pipelines import background as bg
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.db import create_engine, create_session_factory, init_db
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.read import (
    PatternQuery,
    RetrievalCandidate,
    compress_broad_context,
    compress_context,
    compute_dynamic_importance,
    compute_pattern_signal,
    expand_query,
    get_emotional_summary_for_context,
    plan_retrieval,
    retrieve_graph_facts,
    retrieve_relevant_events,
    run_read_pipeline,
    spread_activation,
)
from arandu_pipelines.store.engine import register_vectors, vec
from arandu_pipelines.types import PipelineTrace
from arandu_pipelines.write import (
    clear_pending,
    create_or_update_entity,
    detect_and_record_corrections,
    get_entities_for_user,
    get_entity_by_key,
    get_pending,
    is_user_correction,
    run_write_pipeline,
    save_pending_execution,
    save_pending_selection,
)
from arandu_pipelines.write import pending as pending_mod
from tests.conftest import rows
from tests.fake_openai import Status, provider
from tests.planted_memory import AGENT


@pytest.fixture
async def sessions(planted):
    eng = create_engine(planted[0])
    yield create_session_factory(eng)
    await eng.dispose()


# ---- db ----------------------------------------------------------------------------------------
async def test_db_init_is_idempotent_and_keeps_the_dimension(empty_db_url):
    eng = create_engine(empty_db_url.replace("postgresql+psycopg://", "postgresql://"))
    try:
        await init_db(eng)
        await init_db(eng)  # again: nothing to do
        assert rows(empty_db_url, "SELECT count(*) FROM memory_facts") == [(0,)]
        assert rows(empty_db_url, "SELECT atttypmod FROM pg_attribute WHERE attrelid = "
                                  "'memory_facts'::regclass AND attname = 'embedding_vec'") == [(384,)]
        async with create_session_factory(eng)() as s:
            assert s.bind is eng
    finally:
        await eng.dispose()
    with pytest.raises(ValidationError, match="database_url"):
        create_engine("")


# ---- background: the spec's spellings reach the same jobs --------------------------------------
async def test_background_jobs_take_a_session_and_spec_keywords(planted, sessions, fake):
    url, _ = planted
    fake.on("TASK: entity_summary", {"summary": "An entity in the user's life. The facts describe it."})
    fake.on("TASK: entity_profile", {"profile": "A person in the user's life who is described by the facts "
                                                "below in detail, covering work, home, and relationships."})
    llm = provider(fake, max_retries=0)
    async with sessions() as session:
        imp = await ap.compute_entity_importance(session, AGENT, config=MemoryConfig())
        assert imp.entities_scored == 8
        s = await ap.refresh_entity_summaries(session=session, agent_id=AGENT, llm_provider=llm, config=MemoryConfig())
        assert s.summaries_refreshed == 7 and s.tokens.input_tokens > 0  # the LLM was used
        p = await ap.run_profile_consolidation(session=session, agent_id=AGENT, llm_provider=llm)
        assert p.profiles.profiles_consolidated > 0
        c = await ap.cluster_user_facts(session, AGENT, None, None, MemoryConfig())  # spec order
        c2 = await ap.cluster_user_facts(session, AGENT, None, MemoryConfig(), None)  # ours
        assert c.clusters_created > 0 and c2.clusters_created == 0  # second run: idempotent
        assert (await ap.detect_entity_communities(session=session, agent_id=AGENT)).communities_found >= 1
        assert not (await ap.run_consolidation(session=session, agent_id=AGENT, config=MemoryConfig())).skipped
        assert (await ap.run_memify(session=session, agent_id=AGENT, config=MemoryConfig())).facts_scored > 0
    assert rows(url, "SELECT count(*) FROM memory_entities WHERE agent_id = %s AND summary_text LIKE "
                     "'An entity in the user''s life%%'", (AGENT,)) == [(7,)]


async def test_background_rejects_two_providers_and_a_bad_handle(engine, fake):
    a, b = provider(fake), provider(fake)
    with pytest.raises(ValidationError, match="llm_provider= or llm="):
        await bg.run_consolidation(engine, AGENT, llm=a, llm_provider=b)
    with pytest.raises(ValidationError, match="AsyncSession, AsyncEngine or MemoryClient"):
        await bg.run_memify("postgresql://nope", AGENT)
    with pytest.raises(ValidationError, match="agent_id must be a non-empty string"):
        await bg.run_memify(engine=engine)  # the agent is required even though session is optional
    with pytest.raises(ValidationError, match="config must be a MemoryConfig"):
        await bg.run_consolidation(engine, AGENT, a, "not a config")


async def test_tag_event_emotion_offline_and_by_llm(fake):
    offline = await bg.tag_event_emotion("I'm so happy today!")
    assert offline is not None and offline["emotion"] == "joy"
    fake.on("TASK: emotion", {"emotion": "sadness", "intensity": 0.7, "energy": "low"})
    assert await bg.tag_event_emotion("meh", provider(fake)) == {"emotion": "sadness", "intensity": 0.7, "energy": "low"}
    assert await bg.tag_event_emotion("   ") is None


# ---- write ---------------------------------------------------------------------------------------
async def test_entity_helpers_join_the_callers_transaction(planted, sessions):
    url, _ = planted
    async with sessions() as session:
        e = await create_or_update_entity(session, AGENT, "person:bia", "Bia", "person")
        assert e.canonical_key == "person:bia" and e.display_name == "Bia"
        assert await get_entity_by_key(session, AGENT, "person:bia") is not None
        assert rows(url, "SELECT count(*) FROM memory_entities WHERE canonical_key = 'person:bia'") == [(0,)]
        await session.commit()  # the caller commits, as the spec says
    assert rows(url, "SELECT display_name FROM memory_entities WHERE canonical_key = 'person:bia'") == [("Bia",)]
    async with sessions() as session:
        again = await create_or_update_entity(session, AGENT, "person:bia", None, "person")
        assert again.display_name == "Bia"  # a missing name keeps the known one
        listed = await get_entities_for_user(session, AGENT)
        assert listed[0].canonical_key == "person:bia" and len(listed) == 9
        assert await get_entity_by_key(session, "other-agent", "person:bia") is None
        with pytest.raises(ValidationError, match="type:slug"):
            await create_or_update_entity(session, AGENT, "bia")


async def test_corrections_count_on_the_superseded_fact(planted, engine):
    url, ids = planted  # f4 (Rio) supersedes f1 (São Paulo), same attribute `location`
    assert is_user_correction({"attribute_key": "location", "value_text": "São Paulo"},
                              {"attribute_key": "location", "value_text": "Rio de Janeiro"})
    assert not is_user_correction({"attribute_key": "location", "value_text": "Rio"},
                                  {"attribute_key": "location", "value_text": " rio "})
    r = await detect_and_record_corrections(engine, AGENT, [ids["f4"], {"id": ids["f2"]}])
    assert (r.corrections_detected, r.corrected_keys, r.facts_corrected_ids) == (1, ["location"], [ids["f1"]])
    assert rows(url, "SELECT user_correction_count FROM memory_facts WHERE id = %s", (ids["f1"],)) == [(1,)]
    assert rows(url, "SELECT user_correction_count FROM memory_facts WHERE agent_id = 'other-agent' "
                     "AND attribute_key = 'location' ORDER BY 1") == [(0,), (0,)]


def test_pending_operations_expire(monkeypatch):
    save_pending_selection("ag", "delete", [{"id": 1}], "Delete note 1?", {"x": 1})
    got = get_pending("ag")
    assert got["type"] == "selection" and got["intent"] == "delete" and got["edit_params"] == {"x": 1}
    save_pending_execution("ag", [{"tool": "rm"}], "found 1", "Really?")
    assert get_pending("ag")["type"] == "execution"  # one pending operation per agent
    clear_pending("ag")
    assert get_pending("ag") is None
    save_pending_execution("ag", [], "", "?")
    monkeypatch.setattr(pending_mod, "PENDING_TTL_SECONDS", -1.0)
    save_pending_execution("ag", [], "", "?")
    assert get_pending("ag") is None  # expired
    with pytest.raises(ValidationError):
        save_pending_execution("", [], "", "?")


async def test_run_write_pipeline_on_a_session(fresh_db_url, embeddings):
    eng = create_engine(fresh_db_url)
    try:
        trace = PipelineTrace()
        async with create_session_factory(eng)() as session:
            out = await run_write_pipeline(session, "w", "I live in Lisbon and work at Acme.", None, embeddings,
                                           MemoryConfig(), "Rafael", source="chat", trace=trace)
        assert out["event_id"] and out["success"] and len(out["facts_added"]) >= 2
        assert trace.steps  # the stages reported into the caller's trace
        assert rows(fresh_db_url, "SELECT metadata->>'source' FROM memory_events WHERE agent_id = 'w'") == [("chat",)]
        result = await run_read_pipeline(eng, "w", "where does Rafael live?", None, embeddings, MemoryConfig())
        assert any("Lisbon" in f.fact_text for f in result.facts) and "Lisbon" in result.context
    finally:
        await eng.dispose()


# ---- read ----------------------------------------------------------------------------------------
def test_plan_retrieval_and_dynamic_importance():
    plan = plan_retrieval("how many people do I know?", ["person", "place"])
    assert plan.strategy == "multi_signal" and PatternQuery("person:%") in plan.pattern_queries
    assert plan_retrieval("hi!", []).strategy == "skip"
    now = datetime(2024, 1, 8, tzinfo=UTC)
    base = compute_dynamic_importance(0.5, 0, None, 0, False, now)
    assert base == 0.5
    used = compute_dynamic_importance(0.5, 10, now - timedelta(days=7), 0, False, now)
    assert used == pytest.approx(0.5 * (1 + 0.1 * 2.3979) * (1 + 0.2 * 0.5), rel=1e-3)  # read/importance.py
    assert compute_dynamic_importance(0.5, 0, None, 2, True, now) == pytest.approx(0.5 * 0.64 * 1.3)
    assert compute_dynamic_importance(0.01, 0, None, 5, False, now) == 0.05  # floor
    assert compute_dynamic_importance(2.0, 10**6, now, 0, True, now) == 3.0  # ceiling


def test_pattern_signal_boosts_recent_confirmations_once():
    now = datetime(2024, 1, 8, tzinfo=UTC)
    cands = [RetrievalCandidate("a", score=0.49), RetrievalCandidate("b", score=0.45, last_confirmed_at=now),
             RetrievalCandidate("c", score=0.45, last_confirmed_at=now - timedelta(days=7))]
    out = compute_pattern_signal(cands, now)
    assert [c.fact_id for c in out] == ["b", "c", "a"]
    assert out[0].final_score == pytest.approx(0.55) and out[1].final_score == pytest.approx(0.50)
    assert compute_pattern_signal(out, now)[0].final_score == pytest.approx(0.55)  # not twice


async def test_graph_spreading_expansion_and_events(planted, sessions, embeddings):
    _, ids = planted
    async with sessions() as session:
        g = await retrieve_graph_facts(session, AGENT, ["person:rafael"])
        assert {f["source"] for f in g.facts} == {"graph"} and "person:ana" in g.neighbor_keys
        assert {"source": "person:rafael", "relationship": "partner_of", "target": "person:ana",
                "source_name": "Rafael", "target_name": "Ana"} in g.edges
        spread = await spread_activation(session, AGENT, [ids["f3"]], MemoryConfig())
        assert spread and all(c.source == "spreading" for c in spread)
        assert ids["f3"] not in {c.fact_id for c in spread}  # the seed itself is not returned
        assert [c.score for c in spread] == sorted((c.score for c in spread), reverse=True)
        only_ana = await spread_activation(session, AGENT, [ids["f3"]], MemoryConfig(), allowed_keys={"person:ana"})
        assert only_ana and {c.entity_key for c in only_ana} == {"person:ana"}
        plan = plan_retrieval("what about Ana?", None)
        x = await expand_query(session, AGENT, "what about Ana?", plan, None)
        assert x.primed_entities[0] == "person:ana" and "person:rafael" in x.primed_entities
        assert "Rafael" in x.expanded_terms
        texts = [t for (t,) in rows(planted[0], "SELECT text FROM memory_events WHERE agent_id = %s", (AGENT,))]
        with register_vectors(psycopg.connect(planted[0])) as conn:  # the planted events have no vectors yet
            for t, v in zip(texts, embeddings.encode(texts), strict=True):
                conn.execute("UPDATE memory_events SET embedding_vec = %s WHERE agent_id = %s AND text = %s",
                             (vec(v), AGENT, t))
        q = await embeddings.embed_one("running with Guili")
        ev = await retrieve_relevant_events(session, AGENT, q, MemoryConfig(), limit=3)
        assert len(ev) == 3 and "Guili" in ev[0]["text"] and set(ev[0]) >= {"date", "text", "score", "event_id"}


async def test_emotional_summary_after_trends(planted, sessions):
    async with sessions() as session:
        assert await get_emotional_summary_for_context(session, AGENT) is None
        r = await ap.materialize_emotional_trends(session=session, agent_id=AGENT,
                                                  config=MemoryConfig(emotional_trend_min_events=2))
        assert r.observation_created
        summary = await get_emotional_summary_for_context(session, AGENT)
        assert summary and r.dominant_emotion in summary
        later = datetime.now(UTC) + timedelta(days=8)
        assert await get_emotional_summary_for_context(session, AGENT, now=later) is None  # not recent


async def test_compress_context_from_dicts():
    facts = [{"fact_id": str(i), "fact_text": f"Fact number {i} about work", "score": 1 - i / 100}
             for i in range(40)]
    events = [{"event_id": "e", "text": "we talked about work", "date": "2024-01-01T10:00:00+00:00", "speaker": "Ana"}]
    out = await compress_context(facts, events, MemoryConfig(context_max_tokens=100),
                                 meta_observations=[{"title": "Works a lot", "text": "..."}])
    assert "Known facts:" in out.context_text and "- Works a lot" in out.context_text
    assert "(2024-01-01) Ana: we talked about work" in out.context_text
    assert out.hot_count + out.warm_count < 40 and out.cold_count == 1 and out.total_tokens > 0
    stale = await compress_context(facts[:2] + [{"fact_id": "s", "fact_text": "Old stuff", "entity_key": "x:y",
                                                 "valid_from": datetime(2000, 1, 1, tzinfo=UTC)}],
                                   [], MemoryConfig(), stale_keys={"x:y"})
    assert "Old stuff" not in stale.context_text and "Fact number 1" in stale.context_text
    broad = await compress_broad_context({"c1": facts[:3]}, [{"id": "c1", "label": "Work", "summary_text": "All about work."}],
                                         MemoryConfig())
    assert broad.context_text.startswith("Known topics:\nWork: All about work.\n- Fact number 0")
    assert broad.hot_count == 3


# ---- delete_all: the spec's count and our report ----------------------------------------------
async def test_delete_all_report_is_the_spec_count(memory):
    await memory.write("gone", "I live in Lisbon. I work at Acme. My sister is Ana.", speaker_name="Rafael")
    facts = (await memory.stats("gone"))["memory_facts"]
    assert facts >= 2
    count = await memory.delete_all(agent_id="gone")
    assert count == facts and int(count) == facts and f"Deleted {count} facts" == f"Deleted {facts} facts"
    assert f"{count:>4}" == f"{facts:>4}" and [0] * facts == [0] * count  # __index__
    assert count.rows["memory_events"] == 1 and count.total > facts  # the report is still there
    assert count != facts + 1 and count
    assert not await memory.delete_all(agent_id="gone") and (await memory.delete_all("gone")) == 0


async def test_background_spec_positional_order(planted, sessions, fake, embeddings):
    """The spec's cookbook calls `run_consolidation(session, agent_id, provider, config)` and
    `run_memify(session, agent_id, provider, provider, config)`: providers before config."""
    fake.on("TASK:", Status(500))  # any LLM call fails: the jobs keep their offline results
    llm, cfg = provider(fake, max_retries=0), MemoryConfig(community_similarity_threshold=0.1)
    async with sessions() as session:
        await bg.cluster_facts(session, AGENT, embeddings, llm, cfg)
        com = await bg.detect_communities(session, AGENT, embeddings, llm, cfg)
        assert com.communities_created >= 1  # the loose threshold (config last) was used
        con = await bg.run_consolidation(session, AGENT, llm, MemoryConfig(consolidation_min_events=50))
        assert con.skipped  # the config (last) was used
        before = len(fake.requests)
        mem = await bg.run_memify(session, AGENT, llm, embeddings, cfg)
        assert mem.facts_scored > 0 and len(fake.requests) > before  # the LLM (first) was called


def test_entity_communities_result_reads_as_the_spec_dict():
    """The spec's detect_entity_communities returns {"communities_found", "total_entities_assigned"}."""
    from arandu_pipelines.background.results import EntityCommunitiesResult

    r = EntityCommunitiesResult(communities_found=2, total_entities_assigned=5, communities=[["a", "b"]])
    assert r["communities_found"] == 2 and r["total_entities_assigned"] == 5
    assert dict(r) == {"communities_found": 2, "total_entities_assigned": 5}
    assert r == {"communities_found": 2, "total_entities_assigned": 5} and r != {"communities_found": 1}
    assert r.communities == [["a", "b"]]  # ours keeps the members too
    with pytest.raises(KeyError):
        r["communities"]
