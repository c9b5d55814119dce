"""Background jobs on a real server over a planted memory (no extractor involved), so the
assertions are about the jobs' arithmetic, idempotency and scoping."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from arandu_pipelines import background as bg
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.store.engine import create_engine
from tests.conftest import rows
from tests.planted_memory import AGENT, OTHER, day


def snapshot(url: str, agent: str) -> list:
    """Everything the jobs write, for 'the other agent is untouched' assertions."""
    return rows(url, """
        SELECT 'e', canonical_key, importance_score::text, summary_text, profile_text, community_key
          FROM memory_entities WHERE agent_id = %s
        UNION ALL SELECT 'f', id::text, vitality_score::text, is_stale::text, cluster_id::text, ''
          FROM memory_facts WHERE agent_id = %s
        UNION ALL SELECT 'm', observation_type, fingerprint, text, is_active::text, ''
          FROM memory_meta_observations WHERE agent_id = %s
        UNION ALL SELECT 'c', label, fact_count::text, is_active::text, '', ''
          FROM memory_clusters WHERE agent_id = %s
        UNION ALL SELECT 'v', id::text, emotion_primary, emotion_intensity::text, energy_level, ''
          FROM memory_events WHERE agent_id = %s
        ORDER BY 1, 2, 3""", (agent,) * 5)


# ---- importance ---------------------------------------------------------------------------------
async def test_entity_importance_scores_and_is_idempotent(planted, engine):
    url, _ = planted
    other_before = snapshot(url, OTHER)
    r = await bg.compute_entity_importance(engine, AGENT)
    assert r.entities_scored == 8 and r.entities_updated == 8
    assert r.top_entities[0][0] == "person:rafael"
    assert r.reference_time == day(10)  # the agent's clock: its newest event
    scores = dict(rows(url, "SELECT canonical_key, importance_score FROM memory_entities WHERE agent_id = %s", (AGENT,)))
    assert all(0.0 <= s <= 1.0 for s in scores.values())
    assert scores["person:rafael"] > scores["person:ana"] > scores["place:sao_paulo"]
    # Rafael: most facts (normalised 1.0), degree max (1.0), seen at the clock (recency 1.0),
    # no retrievals: 0.30 + 0.25 + 0 + 0.20
    assert scores["person:rafael"] == pytest.approx(0.75, abs=1e-4)
    again = await bg.compute_entity_importance(engine, AGENT)
    assert again.entities_updated == 0 and again.entities_scored == 8
    assert snapshot(url, OTHER) == other_before


async def test_importance_uses_retrievals(planted, engine):
    url, ids = planted
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE memory_facts SET times_retrieved = 50 WHERE id = %s", (ids["f9"],))
    await bg.compute_entity_importance(engine, AGENT)
    scores = dict(rows(url, "SELECT canonical_key, importance_score FROM memory_entities WHERE agent_id = %s", (AGENT,)))
    assert scores["organization:vertix"] > scores["organization:globex"]


# ---- summaries and profiles -------------------------------------------------------------------
async def test_summaries_and_profiles_from_top_facts(planted, engine):
    url, _ = planted
    await bg.compute_entity_importance(engine, AGENT)
    s = await bg.refresh_entity_summaries(engine, AGENT)
    # every active entity with an active fact (São Paulo's only fact was superseded)
    assert s.summaries_refreshed == 7 and s.summaries_skipped == 1
    summaries = dict(rows(url, "SELECT canonical_key, summary_text FROM memory_entities WHERE agent_id = %s", (AGENT,)))
    assert summaries["place:sao_paulo"] is None
    assert summaries["person:ana"] == "Ana works at Globex. Ana works at Vertix. Rafael is married to Ana."
    assert len([x for x in summaries["person:rafael"].split(".") if x.strip()]) == 3
    p = await bg.consolidate_entity_profiles(engine, AGENT)
    assert p.profiles_consolidated == 7
    profile = rows(url, "SELECT profile_text FROM memory_entities WHERE agent_id = %s "
                        "AND canonical_key = 'person:rafael'", (AGENT,))[0][0]
    assert profile.startswith("Rafael (person).") and "Rafael moved to Rio de Janeiro." in profile
    assert "Relationships:" in profile and "Rafael partner of Ana" in profile
    assert "São Paulo" not in profile  # closed fact and closed edge are history, not profile
    # idempotent: nothing stale any more
    assert (await bg.refresh_entity_summaries(engine, AGENT)).summaries_refreshed == 0
    assert (await bg.consolidate_entity_profiles(engine, AGENT)).profiles_consolidated == 0
    # a new fact about Ana makes (only) her stale again; limit caps a run
    with psycopg.connect(url) as conn:
        conn.execute("INSERT INTO memory_facts (agent_id, entity_key, entity_name, fact_text, "
                     "valid_from, importance) VALUES (%s, 'person:ana', 'Ana', 'Ana speaks German', "
                     "%s, 0.9) RETURNING id", (AGENT, day(9)))
        conn.execute("INSERT INTO memory_fact_entity_links (agent_id, fact_id, entity_key, is_primary) "
                     "SELECT %s, id, 'person:ana', true FROM memory_facts WHERE fact_text = 'Ana speaks German' "
                     "AND agent_id = %s", (AGENT, AGENT))
    again = await bg.refresh_entity_summaries(engine, AGENT)
    assert again.summaries_refreshed == 1 and again.summaries_changed == 1
    assert rows(url, "SELECT summary_text FROM memory_entities WHERE agent_id = %s AND "
                     "canonical_key = 'person:ana'", (AGENT,))[0][0].startswith("Ana speaks German.")


# ---- entity communities -----------------------------------------------------------------------
async def test_entity_communities_union_find(planted, engine):
    url, _ = planted
    r = await bg.detect_entity_communities(engine, AGENT)
    # Vertix hangs on a 0.2 edge and São Paulo on a closed one: both stay out
    assert r.communities_found == 1 and r.total_entities_assigned == 5
    assert r.communities == [["organization:acme", "person:ana", "person:guili", "person:rafael",
                              "place:rio_de_janeiro"]]
    got = dict(rows(url, "SELECT canonical_key, community_key FROM memory_entities WHERE agent_id = %s", (AGENT,)))
    assert got["person:ana"] == "community:organization:acme"
    assert got["organization:vertix"] is None and got["place:sao_paulo"] is None
    assert (await bg.detect_entity_communities(engine, AGENT)).entities_updated == 0
    with psycopg.connect(url) as conn:  # the friendship ends: Guili leaves the community
        conn.execute("UPDATE memory_entity_relationships SET valid_to = now() WHERE agent_id = %s "
                     "AND target_entity_key = 'person:guili'", (AGENT,))
    r2 = await bg.detect_entity_communities(engine, AGENT)
    assert r2.entities_updated == 1 and r2.total_entities_assigned == 4


def test_union_find_is_deterministic():
    from arandu_pipelines.background._common import UnionFind

    uf = UnionFind(["d", "c", "b", "a", "e"])
    uf.union("a", "b")
    uf.union("d", "c")
    uf.union("b", "c")
    assert uf.components(2) == [["a", "b", "c", "d"]]
    assert uf.components(1) == [["a", "b", "c", "d"], ["e"]]


# ---- clustering and community themes ---------------------------------------------------------
async def test_cluster_facts_per_entity_idempotent(planted, engine):
    url, ids = planted
    r = await bg.cluster_facts(engine, AGENT)
    # Rafael: f2..f7 (f1 closed, f11 older than 90 days) = 6; Ana: f9, f10 = 2
    assert (r.clusters_created, r.clusters_reinforced, r.facts_assigned) == (2, 0, 8)
    clusters = {label: (n, s) for label, n, s in rows(
        url, "SELECT label, fact_count, summary_text FROM memory_clusters WHERE agent_id = %s", (AGENT,))}
    assert clusters["person:rafael"][0] == 6 and clusters["person:ana"][0] == 2
    assert clusters["person:ana"][1] == "Ana works at Globex. Ana works at Vertix."
    assert rows(url, "SELECT count(*) FROM memory_facts WHERE agent_id = %s AND cluster_id IS NOT NULL", (AGENT,))[0][0] == 8
    assert rows(url, "SELECT cluster_id FROM memory_facts WHERE id = %s", (ids["f11"],))[0][0] is None
    again = await bg.cluster_facts(engine, AGENT)
    assert (again.clusters_created, again.clusters_reinforced, again.facts_assigned,
            again.facts_unassigned, again.clusters_deactivated) == (0, 0, 0, 0, 0)
    with psycopg.connect(url) as conn:  # Ana's second job ends: her cluster falls below 2 facts
        conn.execute("UPDATE memory_facts SET valid_to = %s WHERE id = %s", (day(9), ids["f10"]))
    third = await bg.cluster_facts(engine, AGENT)
    assert third.clusters_deactivated == 1 and third.facts_unassigned == 2
    assert rows(url, "SELECT is_active, fact_count FROM memory_clusters WHERE agent_id = %s "
                     "AND label = 'person:ana'", (AGENT,))[0] == (False, 0)


async def test_community_themes_over_clusters(planted, engine):
    url, _ = planted
    await bg.cluster_facts(engine, AGENT)
    strict = await bg.detect_communities(engine, AGENT, MemoryConfig(community_similarity_threshold=0.999))
    assert strict.communities_created == 0 and not strict.skipped
    loose = MemoryConfig(community_similarity_threshold=-1.0)
    r = await bg.detect_communities(engine, AGENT, loose)
    assert (r.communities_created, r.clusters_in_communities) == (1, 2)
    theme = rows(url, "SELECT title, entity_keys, supporting_fact_ids, embedding_vec IS NOT NULL "
                      "FROM memory_meta_observations WHERE agent_id = %s AND observation_type = "
                      "'community_theme' AND is_active", (AGENT,))
    assert len(theme) == 1 and theme[0][0].startswith("Theme: Rafael, Ana")
    assert theme[0][1] == ["person:ana", "person:rafael"] and len(theme[0][2]) == 8 and theme[0][3]
    again = await bg.detect_communities(engine, AGENT, loose)
    assert (again.communities_created, again.communities_reinforced, again.communities_deactivated) == (0, 0, 0)
    gone = await bg.detect_communities(engine, AGENT, MemoryConfig(community_similarity_threshold=0.999))
    assert gone.communities_deactivated == 1


async def test_community_themes_skip_without_clusters(fresh_db_url):
    eng = create_engine(fresh_db_url)
    try:
        r = await bg.detect_communities(eng, "nobody")
    finally:
        await eng.dispose()
    assert r.skipped and "0 active cluster" in r.skip_reason


# ---- consolidation ------------------------------------------------------------------------------
async def test_consolidation_patterns_contradictions_trends(planted, engine):
    url, ids = planted
    r = await bg.run_consolidation(engine, AGENT)
    # window: the 7 days up to the agent's newest event (day 10) -> e3..e9
    assert r.events_processed == 7 and not r.skipped
    assert r.by_type == {"pattern": 2, "contradiction": 1, "trend": 1}
    assert r.observations_created == 4
    obs = {t: (title, body) for t, title, body in rows(
        url, "SELECT observation_type || ':' || title, title, text FROM memory_meta_observations "
             "WHERE agent_id = %s AND is_active", (AGENT,))}
    assert any("often talks about activity" in k for k in obs)
    assert any(k.startswith("pattern:Recurring: Rafael works at Acme") for k in obs)
    contradiction = next(v for k, v in obs.items() if k.startswith("contradiction:"))
    assert "Ana works at Vertix" in contradiction[1] and "Ana works at Globex" in contradiction[1]
    trend = next(v for k, v in obs.items() if k.startswith("trend:"))
    assert "Rafael lives in São Paulo → Rafael moved to Rio de Janeiro" in trend[1]
    again = await bg.run_consolidation(engine, AGENT)
    assert (again.observations_created, again.observations_reinforced, again.observations_deactivated) == (0, 0, 0)
    with psycopg.connect(url) as conn:  # the contradiction is resolved
        conn.execute("UPDATE memory_facts SET valid_to = %s WHERE id = %s", (day(8), ids["f9"]))
    third = await bg.run_consolidation(engine, AGENT)
    assert third.observations_deactivated == 1 and third.by_type.get("contradiction", 0) == 0


async def test_consolidation_skips_quiet_agents(planted, engine):
    r = await bg.run_consolidation(engine, AGENT, MemoryConfig(consolidation_min_events=50))
    assert r.skipped and "at least 50" in r.skip_reason and r.observations_created == 0


# ---- memify ---------------------------------------------------------------------------------------
async def test_memify_vitality_and_stale(planted, engine):
    url, ids = planted
    r = await bg.run_memify(engine, AGENT)
    assert r.facts_scored == 10 and r.facts_marked_stale == 1  # the 2022 low-confidence Paris fact
    got = {fid: (v, stale) for fid, v, stale in rows(
        url, "SELECT id::text, vitality_score, is_stale FROM memory_facts WHERE agent_id = %s", (AGENT,))}
    assert got[ids["f11"]][1] is True and got[ids["f1"]] == (0.0, False)  # superseded: 0, not "stale"
    fact = rows(url, "SELECT valid_to, times_retrieved, last_retrieved_at, last_confirmed_at, "
                     "valid_from, confidence, reinforcement_count, user_correction_count "
                     "FROM memory_facts WHERE id = %s", (ids["f2"],))[0]
    names = ["valid_to", "times_retrieved", "last_retrieved_at", "last_confirmed_at", "valid_from",
             "confidence", "reinforcement_count", "user_correction_count"]
    assert bg.compute_vitality(dict(zip(names, fact)), now=day(10)) == pytest.approx(got[ids["f2"]][0], abs=1e-4)
    again = await bg.run_memify(engine, AGENT)
    assert (again.facts_updated, again.facts_marked_stale) == (0, 0)
    with psycopg.connect(url) as conn:  # retrieved often and just now: alive again
        conn.execute("UPDATE memory_facts SET times_retrieved = 30, last_retrieved_at = %s, "
                     "confidence = 0.9 WHERE id = %s", (day(10), ids["f11"]))
    assert (await bg.run_memify(engine, AGENT)).facts_unmarked_stale == 1


def test_compute_vitality_formula():
    now = datetime(2024, 1, 31, tzinfo=UTC)
    fresh = {"valid_to": None, "times_retrieved": 0, "last_retrieved_at": None,
             "last_confirmed_at": None, "valid_from": now, "confidence": 1.0,
             "reinforcement_count": 5, "user_correction_count": 0}
    assert bg.compute_vitality(fresh, now) == pytest.approx(0.25 + 0.20 + 0.15)
    month_old = dict(fresh, valid_from=now - timedelta(days=30))
    assert bg.compute_vitality(month_old, now) == pytest.approx(0.125 + 0.20 + 0.15)
    corrected = dict(fresh, user_correction_count=2)
    assert bg.compute_vitality(corrected, now) == pytest.approx(0.60 * 0.64, abs=1e-4)
    assert bg.compute_vitality(dict(fresh, valid_to=now), now) == 0.0


# ---- emotions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, emotion, intensity, energy", [
    ("I'm so happy!", "joy", 0.8, "high"),
    ("I am not happy about this", "neutral", 0.0, "medium"),
    ("Estou muito cansado hoje", "tiredness", 0.65, "low"),
    ("Fiquei com muita raiva do meu chefe!!", "anger", 0.95, "high"),
    ("I can't wait for the trip", "excitement", 0.75, "high"),
    ("We talked about the weather.", "neutral", 0.0, "medium"),
    ("Estou triste e sozinha", "sadness", 0.6, "low"),
    ("I was worried but now I'm relieved and grateful", "gratitude", 0.65, "medium"),
])
def test_tag_emotion_lexicon(body, emotion, intensity, energy):
    tag = bg.tag_emotion(body)
    assert (tag.emotion, tag.intensity, tag.energy) == (emotion, pytest.approx(intensity), energy)


async def test_emotional_trends_materialize(planted, engine):
    url, _ = planted
    r = await bg.materialize_emotional_trends(engine, AGENT)
    assert r.events_tagged == 9
    # happy, love, exhausted, amazing, great, fun, angry -> 7 emotional events (e2, e8 neutral)
    assert r.events_analyzed == 7 and r.observation_created and r.observation_id
    assert r.dominant_emotion == "joy" and r.emotion_counts["joy"] == 4
    assert r.trend_direction in ("increasing", "decreasing", "stable")
    obs = rows(url, "SELECT title, text, jsonb_array_length(supporting_event_ids) FROM "
                    "memory_meta_observations WHERE agent_id = %s AND observation_type = 'emotional_trend'", (AGENT,))
    assert len(obs) == 1 and obs[0][0].startswith("Emotional trend: joy") and obs[0][2] == 4
    tags = dict(rows(url, "SELECT message_id, emotion_primary FROM memory_events WHERE agent_id = %s", (AGENT,)))
    assert tags["e4"] == "tiredness" and tags["e2"] == "neutral" and tags["e9"] == "anger"
    again = await bg.materialize_emotional_trends(engine, AGENT)
    assert again.events_tagged == 0 and not again.observation_created
    assert again.observation_id == r.observation_id
    quiet = await bg.materialize_emotional_trends(engine, AGENT, MemoryConfig(emotional_trend_min_events=99))
    assert quiet.skipped and quiet.events_analyzed == 7


async def test_emotion_tags_are_never_overwritten(planted, engine):
    url, _ = planted
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE memory_events SET emotion_primary = 'pride', emotion_intensity = 0.9 "
                     "WHERE agent_id = %s AND message_id = 'e2'", (AGENT,))
    r = await bg.materialize_emotional_trends(engine, AGENT)
    assert r.events_tagged == 8
    assert rows(url, "SELECT emotion_primary FROM memory_events WHERE agent_id = %s AND message_id = 'e2'", (AGENT,))[0][0] == "pride"


# ---- isolation ----------------------------------------------------------------------------------
async def test_jobs_never_touch_another_agent(planted, engine):
    url, _ = planted
    before = snapshot(url, OTHER)
    loose = MemoryConfig(community_similarity_threshold=-1.0)
    await bg.compute_entity_importance(engine, AGENT)
    await bg.refresh_entity_summaries(engine, AGENT)
    await bg.consolidate_entity_profiles(engine, AGENT)
    await bg.detect_entity_communities(engine, AGENT)
    await bg.cluster_facts(engine, AGENT)
    await bg.detect_communities(engine, AGENT, loose)
    await bg.run_consolidation(engine, AGENT)
    await bg.run_memify(engine, AGENT)
    await bg.materialize_emotional_trends(engine, AGENT)
    assert snapshot(url, OTHER) == before
    assert snapshot(url, AGENT) != before  # (sanity: the jobs did write for AGENT)


def test_results_are_plain_dataclasses():
    for cls in (bg.ClusteringResult, bg.CommunityDetectionResult, bg.ConsolidationResult,
                bg.MemifyResult, bg.EntityImportanceResult, bg.SummaryRefreshResult,
                bg.EmotionalTrendsResult, bg.ProfileConsolidationResult, bg.EntityCommunitiesResult,
                bg.ReextractionResult):
        d = dataclasses.asdict(cls())
        json.dumps(d, default=str)
        assert "duration_ms" in d and "preview" in d


def test_background_library_never_imports_dagster():
    import subprocess
    import sys

    code = ("import sys; import arandu_pipelines.background, arandu_pipelines.store.status, "
            "arandu_pipelines.background.health, arandu_pipelines.client; "
            "print(any(m == 'dagster' or m.startswith('dagster.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
