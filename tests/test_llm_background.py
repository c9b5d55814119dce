"""The background jobs' LLM branches over real HTTP against the fake OpenAI server: the success
path writes English text and counts tokens; every failure keeps the old / deterministic result."""

from __future__ import annotations

from datetime import UTC

import pytest

from arandu_pipelines import background as bg
from arandu_pipelines.background import _llm
from tests.conftest import rows
from tests.fake_openai import INVALID_JSON, Delay, Status, provider
from tests.planted_memory import AGENT, OTHER
from tests.test_background_jobs import snapshot

SUMMARY, PROFILE, CONSOLIDATE = "TASK: entity_summary", "TASK: entity_profile", "TASK: consolidation"
FAILURES = [Status(500), Delay(3, {"summary": "too late"}), INVALID_JSON,
            {"summary": "Rafael é um engenheiro que mora no Rio e não gosta de São Paulo."}]
FAILURE_IDS = ["http-500", "timeout", "invalid-json", "not-english"]


def _texts(url: str, col: str) -> dict[str, str | None]:
    return dict(rows(url, f"SELECT canonical_key, {col} FROM memory_entities WHERE agent_id = %s", (AGENT,)))


def _summary(body) -> dict:
    entity = body["messages"][1]["content"].split("\n", 1)[0].removeprefix("Entity: ").split(" (")[0]
    return {"summary": f"{entity} is an entity in the user's life. The facts describe its work and home."}


async def test_llm_summaries_and_profiles_written_in_english(planted, engine, fake):
    url, _ = planted
    fake.on(SUMMARY, _summary)
    profile = ("Rafael is a person who works at Acme and recently moved to Rio de Janeiro. He is married "
               "to Ana and goes running with his friend Guili, often on Sunday mornings.")
    fake.on((PROFILE, "Entity: Rafael (person)"), {"profile": profile})
    fake.on(PROFILE, Status(500))  # every other profile fails: those keep their (absent) text
    llm = provider(fake, max_retries=0)
    s = await bg.refresh_entity_summaries(engine, AGENT, llm=llm)
    assert s.summaries_refreshed == 7 and s.summaries_skipped == 1 and not s.llm_errors
    assert s.tokens.input_tokens > 0 and s.tokens.output_tokens > 0
    summaries = _texts(url, "summary_text")
    assert summaries["person:ana"] == "Ana is an entity in the user's life. The facts describe its work and home."
    assert summaries["place:sao_paulo"] is None  # no active fact: no call, no text
    call = fake.calls(SUMMARY, "Entity: Ana (person)")[0]
    assert "- Ana works at Globex" in call.user and "English" in call.system
    p = await bg.consolidate_entity_profiles(engine, AGENT, llm=llm)
    assert p.profiles_consolidated == 1 and p.profiles_skipped == 7 and len(p.llm_errors) == 6
    profiles = _texts(url, "profile_text")
    assert profiles["person:rafael"] == profile and profiles["person:ana"] is None
    prompt = fake.calls(PROFILE, "Entity: Rafael (person)")[0].user
    assert "Rafael partner of Ana" in prompt
    # idempotent: the refreshed ones are no longer stale; the failed ones are retried
    before = len(fake.calls(PROFILE))
    again = await bg.consolidate_entity_profiles(engine, AGENT, llm=llm)
    assert again.profiles_consolidated == 0 and len(fake.calls(PROFILE)) - before == 6
    assert (await bg.refresh_entity_summaries(engine, AGENT, llm=llm)).summaries_refreshed == 0


@pytest.mark.parametrize("reply", FAILURES, ids=FAILURE_IDS)
async def test_llm_summary_failure_keeps_old_text(planted, engine, fake, monkeypatch, reply):
    url, _ = planted
    monkeypatch.setattr(_llm, "LLM_TIMEOUT_SEC", 0.5)
    await bg.refresh_entity_summaries(engine, AGENT)  # deterministic texts first
    old = _texts(url, "summary_text")
    with psycopg_conn(url) as conn:  # make everything stale again
        conn.execute("UPDATE memory_entities SET summary_refreshed_at = now() - interval '30 days' "
                     "WHERE agent_id = %s", (AGENT,))
    fake.on(SUMMARY, reply)
    s = await bg.refresh_entity_summaries(engine, AGENT, llm=provider(fake, max_retries=0))
    assert s.summaries_refreshed == 0 and len(s.llm_errors) == 7
    assert _texts(url, "summary_text") == old


def psycopg_conn(url: str):
    import psycopg

    return psycopg.connect(url)


INSIGHT = {"observations": [
    {"type": "insight", "title": "Running is a social habit",
     "text": "Rafael runs regularly and usually with his friend Guili.", "facts": ["F_RUN1", "F_RUN2"],
     "confidence": 0.8},
    {"type": "pattern", "title": "Bogus", "text": "This cites no fact of the window at all.", "facts": ["F99"]},
    {"type": "gossip", "title": "Unknown type", "text": "Not a type the job knows.", "facts": ["F1"]},
]}


def _insight(body) -> dict:
    """Cite the two 'running with Guili' facts by their labels in this prompt."""
    labels = [line.split(":", 1)[0] for line in body["messages"][1]["content"].splitlines()
              if "running" in line and "Guili" in line]
    obs = [dict(o) for o in INSIGHT["observations"]]
    obs[0]["facts"] = labels
    return {"observations": obs}


async def test_llm_consolidation_adds_insights_idempotently(planted, engine, fake):
    url, _ = planted
    other = snapshot(url, OTHER)
    fake.on(CONSOLIDATE, _insight)
    llm = provider(fake)
    r = await bg.run_consolidation(engine, AGENT, llm=llm)
    assert not r.llm_errors and r.tokens.total_tokens > 0
    assert r.by_type == {"pattern": 2, "contradiction": 1, "trend": 1, "insight": 1}
    assert r.observations_created == 5
    ins = rows(url, "SELECT title, text, jsonb_array_length(supporting_fact_ids), entity_keys FROM "
                    "memory_meta_observations WHERE agent_id = %s AND observation_type = 'insight'", (AGENT,))
    assert ins == [("Running is a social habit", "Rafael runs regularly and usually with his friend Guili.", 2,
                    ["person:rafael"])]
    again = await bg.run_consolidation(engine, AGENT, llm=llm)
    assert (again.observations_created, again.observations_reinforced, again.observations_deactivated) == (0, 0, 0)
    assert snapshot(url, OTHER) == other


@pytest.mark.parametrize("reply", [Status(500), INVALID_JSON, {"observations": "none"}],
                         ids=["http-500", "invalid-json", "bad-shape"])
async def test_llm_consolidation_failure_keeps_deterministic_result(planted, engine, fake, reply):
    fake.on(CONSOLIDATE, reply)
    r = await bg.run_consolidation(engine, AGENT, llm=provider(fake, max_retries=0))
    assert r.by_type == {"pattern": 2, "contradiction": 1, "trend": 1} and r.observations_created == 4
    assert len(r.llm_errors) == 1 and r.llm_errors[0].startswith("consolidation:")


CLUSTER, DISTILL = "TASK: cluster_summary", "TASK: memify_distillation"


def _cluster(body) -> dict:
    label = body["messages"][1]["content"].split("\n", 1)[0].removeprefix("Cluster: ")
    return {"summary": f"These facts are about {label} and describe the work and the habits of the subject."}


async def test_llm_cluster_summaries_survive_reruns(planted, engine, fake):
    url, _ = planted
    fake.on(CLUSTER, _cluster)
    llm = provider(fake, max_retries=0)
    r = await bg.cluster_facts(engine, AGENT, llm=llm)
    assert (r.clusters_created, r.summaries_generated) == (2, 2) and r.tokens.total_tokens > 0
    summaries = dict(rows(url, "SELECT label, summary_text FROM memory_clusters WHERE agent_id = %s", (AGENT,)))
    assert summaries["person:ana"].startswith("These facts are about person:ana")
    assert "- Ana works at Globex" in fake.calls(CLUSTER, "Cluster: person:ana")[0].user
    calls = len(fake.calls(CLUSTER))
    again = await bg.cluster_facts(engine, AGENT, llm=llm)  # nothing changed: no write, no call
    assert (again.clusters_created, again.clusters_reinforced, again.summaries_generated) == (0, 0, 0)
    assert len(fake.calls(CLUSTER)) == calls
    assert dict(rows(url, "SELECT label, summary_text FROM memory_clusters WHERE agent_id = %s", (AGENT,))) == summaries


async def test_llm_cluster_summary_failure_keeps_offline_summary(planted, engine, fake):
    url, _ = planted
    fake.on(CLUSTER, Status(500))
    r = await bg.cluster_facts(engine, AGENT, llm=provider(fake, max_retries=0))
    assert r.summaries_generated == 0 and len(r.llm_errors) == 2
    assert rows(url, "SELECT summary_text FROM memory_clusters WHERE agent_id = %s AND label = 'person:ana'",
                (AGENT,))[0][0] == "Ana works at Globex. Ana works at Vertix."


async def test_llm_memify_distills_once(planted, engine, fake):
    url, _ = planted
    fake.on((DISTILL, "Entity: Rafael"), {"statements": ["Rafael runs regularly, often with Guili",
                                                         "Rafael works at Acme"]})
    llm = provider(fake, max_retries=0)
    r = await bg.run_memify(engine, AGENT, llm=llm)
    assert r.facts_scored == 10 and r.facts_marked_stale == 1  # the offline part is unchanged
    assert r.knowledge_distilled == 1 and not r.llm_errors and r.tokens.total_tokens > 0
    got = rows(url, "SELECT text, entity_keys FROM memory_meta_observations WHERE agent_id = %s "
                    "AND observation_type = 'distilled'", (AGENT,))
    assert got == [("Rafael runs regularly, often with Guili. Rafael works at Acme.", ["person:rafael"])]
    again = await bg.run_memify(engine, AGENT, llm=llm)
    assert again.knowledge_distilled == 0 and len(fake.calls(DISTILL)) == 1  # same facts: no call


async def test_llm_memify_failure_changes_nothing(planted, engine, fake):
    url, _ = planted
    fake.on(DISTILL, {"statements": ["Rafael mora no Rio e não gosta de São Paulo, que é uma cidade grande"]})
    r = await bg.run_memify(engine, AGENT, llm=provider(fake, max_retries=0))
    assert r.knowledge_distilled == 0 and len(r.llm_errors) == 1 and r.facts_marked_stale == 1
    assert rows(url, "SELECT count(*) FROM memory_meta_observations WHERE agent_id = %s", (AGENT,))[0][0] == 0


# ---- procedural directives ---------------------------------------------------------------------
DIRECTIVES, JUDGE = "TASK: directives", "TASK: directive_contradiction"


async def _plant_directives(url, embeddings, items):
    from arandu_pipelines.background._common import (
        Observation,
        fingerprint,
        upsert_observations,
    )
    from arandu_pipelines.store.engine import create_engine

    eng = create_engine(url)
    vectors = embeddings.encode([body for _, body, _ in items])
    async with eng.begin() as conn:
        await upsert_observations(conn, AGENT, [
            Observation("directive", title, body, fingerprint("directive", title), confidence=conf,
                        times_reinforced=1, embedding=list(map(float, v)))
            for (title, body, conf), v in zip(items, vectors)])
    return eng


DIRECTIVE_ITEMS = [("brevity", "Answer in short sentences, never more than three paragraphs.", 0.9),
                   ("language", "Always reply in Portuguese when the user writes in Portuguese.", 0.6)]


async def test_directive_block_generated_cached_and_fail_safe(fresh_db_url, embeddings, fake):
    from arandu_pipelines.background import directives as d

    eng = await _plant_directives(fresh_db_url, embeddings, DIRECTIVE_ITEMS)
    d.invalidate_directive_cache(AGENT)
    try:
        fake.on(DIRECTIVES, {"directives": "You are a concise assistant. Keep answers short and reply in "
                                           "the language the user writes in."})
        llm = provider(fake, max_retries=0)
        b = await d.generate_optimized_directives(eng, AGENT, llm, persona_text="A friendly helper.")
        assert b.directive_count == 2 and not b.cache_hit and b.text.startswith("You are a concise")
        prompt = fake.calls(DIRECTIVES)[0].user
        assert prompt.index("brevity") < prompt.index("language")  # strongest first
        again = await d.generate_optimized_directives(eng, AGENT, llm, persona_text="A friendly helper.")
        assert again.cache_hit and again.text == b.text and len(fake.calls(DIRECTIVES)) == 1
        d.invalidate_directive_cache(AGENT)
        fake.reset()
        fake.on(DIRECTIVES, Status(500))
        failed = await d.generate_optimized_directives(eng, AGENT, llm, persona_text="A friendly helper.")
        assert failed == d.DirectiveBlock()
    finally:
        d.invalidate_directive_cache(AGENT)
        await eng.dispose()


async def test_directive_contradiction_prefilter_then_judge(fresh_db_url, embeddings, fake):
    from arandu_pipelines.background import directives as d

    eng = await _plant_directives(fresh_db_url, embeddings, DIRECTIVE_ITEMS)
    try:
        fake.on(JUDGE, {"contradiction": True, "conflicting": "D1",
                        "resolution": "The newer directive replaces the older one."})
        llm = provider(fake, max_retries=0)
        r = await d.check_directive_contradiction(
            eng, AGENT, "Answer in long, detailed paragraphs, never in short sentences.", embeddings, llm,
            similarity_threshold=0.5)
        assert r.has_contradiction and r.conflicting_directive == "brevity" and "newer" in r.resolution
        assert "Answer in short sentences" in fake.calls(JUDGE)[0].user
        # nothing similar enough: no LLM call at all
        r2 = await d.check_directive_contradiction(eng, AGENT, "Use metric units for distances.", embeddings, llm)
        assert r2 == d.ContradictionResult() and len(fake.calls(JUDGE)) == 1
        fake.reset()
        fake.on(JUDGE, INVALID_JSON)
        r3 = await d.check_directive_contradiction(
            eng, AGENT, "Answer in long, detailed paragraphs, never in short sentences.", embeddings, llm,
            similarity_threshold=0.5)
        assert r3 == d.ContradictionResult()  # fail-safe
    finally:
        await eng.dispose()


def test_effective_confidence_decays_weekly_with_floor():
    from datetime import datetime, timedelta

    from arandu_pipelines.background.directives import effective_confidence

    now = datetime(2025, 1, 29, tzinfo=UTC)
    assert effective_confidence(0.8, now, now) == pytest.approx(0.8)
    assert effective_confidence(0.8, now - timedelta(weeks=2), now) == pytest.approx(0.8 * 0.95 ** 2)
    assert effective_confidence(0.8, now - timedelta(weeks=200), now) == 0.10


async def test_memify_learns_directives_and_a_newer_one_replaces_a_contradicted_one(
        fresh_db_url, embeddings, fake):
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.config import MemoryConfig

    writer = MemoryClient(fresh_db_url, embeddings=embeddings)
    await writer.initialize()
    await writer.write(AGENT, "I prefer short answers, no long essays.", speaker_name="Rafael")
    await writer.close()
    eng = await _plant_directives(fresh_db_url, embeddings, [
        ("long answers", "Answer in long, detailed paragraphs, never in short sentences.", 0.8)])
    try:
        fake.on("TASK: directive_learning", {"directives": [
            {"title": "short answers", "text": "Keep answers short: at most three sentences."}]})
        fake.on(JUDGE, {"contradiction": True, "conflicting": "D1", "resolution": "newer wins"})
        fake.on(DISTILL, Status(500))
        cfg = MemoryConfig(contradiction_similarity_threshold=0.3)
        r = await bg.run_memify(eng, AGENT, cfg, llm=provider(fake, max_retries=0), embeddings=embeddings)
        assert (r.directives_learned, r.directives_superseded) == (1, 1)
        assert "short answers" in fake.calls("TASK: directive_learning")[0].user  # the preference fact
        active = rows(fresh_db_url, "SELECT title, is_active FROM memory_meta_observations "
                      "WHERE agent_id = %s AND observation_type = 'directive' ORDER BY title", (AGENT,))
        assert active == [("long answers", False), ("short answers", True)]
        again = await bg.run_memify(eng, AGENT, cfg, llm=provider(fake, max_retries=0), embeddings=embeddings)
        assert again.directives_learned == 0  # identical directive: nothing rewritten
    finally:
        await eng.dispose()
