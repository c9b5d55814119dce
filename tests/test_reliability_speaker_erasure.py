"""Issue 6 — erasing one speaker's messages removes everything derived from them, and only that.

Two speakers talk to the same agent about overlapping people, places and companies. After
extraction and every background job (importance, summaries, profiles, entity communities,
clusters, community themes, consolidation, memify, emotional trends) have built derived rows
from both, `delete_messages(agent, speaker=...)` must leave:

* no trace of the erased speaker in ANY table of the schema (discovered through
  information_schema): none of their words, event ids, fact ids or message ids, even in
  jsonb arrays, term statistics or re-run jobs;
* no dangling reference: every fact's source event exists, every link / relationship / alias
  points to an existing entity, every meta-observation cites existing facts and events
  (plus the library's own health checks);
* the other speaker's memory intact: same events and facts, shared entities kept, the fact the
  erased speaker had superseded active again, and `retrieve()` answering from it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from arandu_pipelines import background as bg
from arandu_pipelines.background.health import run_all
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import ValidationError
from tests.conftest import rows

AGENT = "household"
OTHER_AGENT = "neighbour"
ERASED, KEPT = "Zelda Quist", "Bruno"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)

# (speaker, text). Shared: Maria, Lisbon, Google, Porto. Only the erased speaker says the
# words in ERASED_WORDS; the kept speaker never names her.
CONVERSATION = [
    (KEPT, "My sister Maria lives in Lisbon."),
    (KEPT, "Maria works at Google as an engineer."),
    (ERASED, "Maria moved to Porto last month."),                 # supersedes Bruno's fact
    (ERASED, "Maria works at Google."),                            # reinforces a shared edge
    (ERASED, "I adopted a dog named Bolt."),
    (ERASED, "My friend Xandrello works at Vertix in Zanzibar."),
    (KEPT, "I went hiking with Maria in Sintra, it was amazing!"),
    (ERASED, "I'm so happy, I love playing the saxophone!"),
    (KEPT, "I work at Acme Corp."),
    (ERASED, "I'm furious about the deadline at Vertix!"),
    (KEPT, "I'm so happy about the trip to Sintra!"),
    (ERASED, "Xandrello is married to Quokkaberry."),
    (KEPT, "I'm exhausted after work at Acme Corp."),
    (KEPT, "My friend Carlos lives in Madrid."),
    (ERASED, "Carlos moved to Berlin."),                           # supersedes Bruno's fact ...
    (KEPT, "Carlos moved to Rome."),                               # ... and is superseded by his
]
ERASED_WORDS = ["bolt", "xandrello", "vertix", "zanzibar", "saxophone", "quokkaberry", "zelda",
                "quist", "furious", "berlin"]
LOOSE = MemoryConfig(community_similarity_threshold=-1.0, consolidation_min_events=1,
                     emotional_trend_min_events=1, cluster_min_facts=1)


def _tables(url: str) -> list[str]:
    return [r[0] for r in rows(url, "SELECT table_name FROM information_schema.tables WHERE "
                                    "table_schema = current_schema() AND table_type = 'BASE TABLE' "
                                    "ORDER BY 1")]


def _hits(url: str, needles: list[str]) -> dict[str, int]:
    """Rows of AGENT (or of tables without agent_id: all rows) in every table whose text form
    contains any needle, case-insensitive. (OTHER_AGENT holds the same words legitimately.)"""
    pats = [f"%{n.lower()}%" for n in needles]
    scoped = {r[0] for r in rows(url, "SELECT table_name FROM information_schema.columns WHERE "
                                      "table_schema = current_schema() AND column_name = 'agent_id'")}
    out: dict[str, int] = {}
    with psycopg.connect(url) as conn:
        for t in _tables(url):
            where = "x.agent_id = %s AND " if t in scoped else ""
            args = (AGENT, pats) if t in scoped else (pats,)
            n = conn.execute(f'SELECT count(*) FROM "{t}" x WHERE {where}lower(x::text) LIKE ANY(%s)',
                             args).fetchone()[0]
            if n:
                out[t] = n
    return out


async def _converse(memory, agent: str = AGENT) -> None:
    await memory.import_messages([
        {"agent_id": agent, "session_id": f"s{i // 5}", "speaker": spk, "text": body,
         "occurred_at": (T0 + timedelta(days=i)).isoformat(), "message_id": f"msg-{i:02d}"}
        for i, (spk, body) in enumerate(CONVERSATION)
    ] + [  # a quarantined row of each speaker (bad timestamp): raw text kept in memory_quarantine
        {"agent_id": agent, "session_id": "s9", "speaker": ERASED, "text": "Bolt ate my homework.",
         "occurred_at": "not a date", "message_id": "bad-1"},
        {"agent_id": agent, "session_id": "s9", "speaker": KEPT, "text": "Sintra was foggy.",
         "occurred_at": "not a date", "message_id": "bad-2"},
    ])


async def _jobs(memory, agent: str = AGENT) -> None:
    eng = memory.engine
    await bg.compute_entity_importance(eng, agent)
    await bg.refresh_entity_summaries(eng, agent)
    await bg.consolidate_entity_profiles(eng, agent)
    await bg.detect_entity_communities(eng, agent)
    await bg.cluster_facts(eng, agent, memory.embeddings, LOOSE)
    await bg.detect_communities(eng, agent, LOOSE)
    await bg.run_consolidation(eng, agent, LOOSE)
    await bg.run_memify(eng, agent, LOOSE)
    await bg.materialize_emotional_trends(eng, agent, LOOSE)


def _plant_rows_without_a_producer(url: str) -> None:
    """session_observations and memory_intentions have no offline producer yet: plant one row
    of each per speaker, referencing their messages the way the schema does."""
    with psycopg.connect(url) as conn:
        ev = {r[0]: (str(r[1]), r[2]) for r in conn.execute(
            "SELECT message_id, id, speaker FROM memory_events WHERE agent_id = %s", (AGENT,))}
        for mid, obs in (("msg-04", "Talked about the dog Bolt."), ("msg-06", "Hiking in Sintra.")):
            conn.execute("INSERT INTO session_observations (agent_id, session_id, content, "
                         "source_message_ids) VALUES (%s, 's0', %s, %s)",
                         (AGENT, obs, json.dumps([ev[mid][0], mid])))
        for mid, action in (("msg-05", "ask Xandrello about Vertix"), ("msg-08", "ask about Acme")):
            conn.execute("INSERT INTO memory_intentions (agent_id, trigger_condition, "
                         "intended_action, source_event_id) VALUES (%s, 'next week', %s, %s)",
                         (AGENT, action, ev[mid][0]))


def _ids(url: str, speaker: str) -> dict[str, set[str]]:
    ev = rows(url, "SELECT id::text, message_id FROM memory_events WHERE agent_id = %s AND "
                   "speaker = %s", (AGENT, speaker))
    facts = rows(url, "SELECT f.id::text FROM memory_facts f JOIN memory_events e ON "
                      "e.id = f.source_event_id WHERE f.agent_id = %s AND e.speaker = %s",
                 (AGENT, speaker))
    return {"events": {r[0] for r in ev}, "message_ids": {r[1] for r in ev},
            "facts": {r[0] for r in facts}}


DANGLING = {
    "fact without its source event": "SELECT count(*) FROM memory_facts f WHERE f.source_event_id "
        "IS NOT NULL AND NOT EXISTS (SELECT 1 FROM memory_events e WHERE e.id = f.source_event_id)",
    "fact on a missing entity": "SELECT count(*) FROM memory_facts f WHERE NOT EXISTS (SELECT 1 "
        "FROM memory_entities e WHERE e.agent_id = f.agent_id AND e.canonical_key = f.entity_key)",
    "link to a missing entity": "SELECT count(*) FROM memory_fact_entity_links l WHERE NOT EXISTS "
        "(SELECT 1 FROM memory_entities e WHERE e.agent_id = l.agent_id AND "
        "e.canonical_key = l.entity_key)",
    "edge to a missing entity": "SELECT count(*) FROM memory_entity_relationships r WHERE NOT "
        "EXISTS (SELECT 1 FROM memory_entities e WHERE e.agent_id = r.agent_id AND "
        "e.canonical_key = r.source_entity_key) OR NOT EXISTS (SELECT 1 FROM memory_entities e "
        "WHERE e.agent_id = r.agent_id AND e.canonical_key = r.target_entity_key)",
    "edge without evidence": "SELECT count(*) FROM memory_entity_relationships WHERE "
        "evidence_fact_id IS NULL AND evidence_event_id IS NULL",
    "alias of a missing entity": "SELECT count(*) FROM memory_entity_aliases a WHERE NOT EXISTS "
        "(SELECT 1 FROM memory_entities e WHERE e.agent_id = a.agent_id AND "
        "e.canonical_key = a.canonical_entity_key)",
    "observation citing a missing fact": "SELECT count(*) FROM memory_meta_observations m, "
        "jsonb_array_elements_text(m.supporting_fact_ids) x(id) WHERE NOT EXISTS (SELECT 1 FROM "
        "memory_facts f WHERE f.id::text = x.id)",
    "observation citing a missing event": "SELECT count(*) FROM memory_meta_observations m, "
        "jsonb_array_elements_text(m.supporting_event_ids) x(id) WHERE NOT EXISTS (SELECT 1 FROM "
        "memory_events e WHERE e.id::text = x.id)",
    "session observation citing a missing message": "SELECT count(*) FROM session_observations o, "
        "jsonb_array_elements_text(o.source_message_ids) x(id) WHERE NOT EXISTS (SELECT 1 FROM "
        "memory_events e WHERE e.id::text = x.id OR e.message_id = x.id)",
    "entity count off": "SELECT count(*) FROM memory_entities e WHERE e.fact_count <> (SELECT "
        "count(*) FROM memory_fact_entity_links l JOIN memory_facts f ON f.id = l.fact_id AND "
        "f.valid_to IS NULL WHERE l.agent_id = e.agent_id AND l.entity_key = e.canonical_key)",
    "term stats of missing text": "SELECT count(*) FROM memory_term_stats WHERE df <= 0",
}


def _assert_nothing_left(url: str, gone: dict[str, set[str]]) -> None:
    needles = ERASED_WORDS + sorted(gone["events"]) + sorted(gone["facts"])
    left = _hits(url, needles)
    assert left == {}, ("erased speaker still present", {t: rows(
        url, f'SELECT x::text FROM "{t}" x WHERE x.agent_id = %s AND lower(x::text) LIKE ANY(%s) '
        "LIMIT 3", (AGENT, [f"%{n.lower()}%" for n in needles])) for t in left})
    for mid in gone["message_ids"]:  # message ids, as whole json/text values
        assert rows(url, "SELECT count(*) FROM memory_events WHERE agent_id = %s AND "
                         "message_id = %s", (AGENT, mid)) == [(0,)]
        assert rows(url, "SELECT count(*) FROM session_observations WHERE agent_id = %s AND "
                         "source_message_ids ? %s", (AGENT, mid)) == [(0,)]
    for what, sql in DANGLING.items():
        assert rows(url, sql) == [(0,)], what


async def test_erasing_one_speaker_removes_every_derived_row(memory, fresh_db_url):
    url = fresh_db_url
    await _converse(memory)
    await _converse(memory, OTHER_AGENT)  # same conversation, another agent: must not change
    _plant_rows_without_a_producer(url)
    # a message of the kept speaker that carried an erased one as conversation context
    await memory.write(AGENT, "Maria called me about the trip.", speaker_name=KEPT,
                       recent_messages=[CONVERSATION[4][1], CONVERSATION[6][1]],
                       occurred_at=T0 + timedelta(days=30), message_id="msg-ctx")
    await _jobs(memory)
    other_before = rows(url, "SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) FROM ("
                             "SELECT t::text AS x FROM memory_facts t WHERE agent_id = %s UNION ALL "
                             "SELECT t::text FROM memory_entities t WHERE agent_id = %s UNION ALL "
                             "SELECT t::text FROM memory_events t WHERE agent_id = %s) q",
                        (OTHER_AGENT, OTHER_AGENT, OTHER_AGENT))
    gone, kept = _ids(url, ERASED), _ids(url, KEPT)

    # the scenario is not vacuous: the erased speaker's words reached the derived tables
    before = _hits(url, ERASED_WORDS)
    for t in ("memory_events", "memory_facts", "memory_entities", "memory_entity_aliases",
              "memory_entity_relationships", "memory_clusters", "memory_meta_observations",
              "memory_term_stats", "memory_vocabulary", "memory_quarantine", "session_observations",
              "memory_intentions"):
        assert before.get(t), f"no erased-speaker rows in {t} before the erase: {before}"
    superseded = rows(url, "SELECT o.id::text, o.fact_text FROM memory_facts n JOIN memory_facts o "
                           "ON o.id = n.supersedes_fact_id WHERE n.id = ANY(%s::uuid[]) AND "
                           "o.id = ANY(%s::uuid[]) AND n.valid_to IS NULL",
                      (sorted(gone["facts"]), sorted(kept["facts"])))
    assert superseded, "the erased speaker should have superseded one of Bruno's facts"
    maria_before = rows(url, "SELECT count(*) FROM memory_entities WHERE agent_id = %s AND "
                             "canonical_key LIKE '%%maria%%'", (AGENT,))

    report = await memory.delete_messages(AGENT, speaker=ERASED.upper())  # case-insensitive
    print(f"\n[speaker erasure] deleted {dict(sorted(report.rows.items()))}; "
          f"repaired {report.updated}")

    assert report.rows["memory_events"] == len(gone["events"])
    assert report.rows["memory_facts"] == len(gone["facts"])
    assert report.rows["memory_quarantine"] == 1
    assert report.rows["session_observations"] == 1 and report.rows["memory_intentions"] == 1
    assert report.rows["memory_entities"] > 0 and report.rows["memory_clusters"] > 0
    assert report.updated["facts_reactivated"] >= 1
    assert report.updated["facts_resuperseded"] >= 1  # Rome now supersedes Madrid directly
    assert report.updated["events_context_scrubbed"] == 1
    _assert_nothing_left(url, gone)

    # the kept speaker: every event and fact still there; the superseded fact is current again
    assert _ids(url, KEPT) == kept
    for fid, _ in superseded:
        assert rows(url, "SELECT valid_to, invalidated_at FROM memory_facts WHERE id = %s",
                    (fid,)) == [(None, None)]
    assert rows(url, "SELECT count(*) FROM memory_entities WHERE agent_id = %s AND canonical_key "
                     "LIKE '%%maria%%'", (AGENT,)) == maria_before  # shared entity kept
    chain = rows(url, "SELECT n.fact_text, o.fact_text, n.valid_to IS NULL, o.valid_to IS NULL "
                      "FROM memory_facts n JOIN memory_facts o ON o.id = n.supersedes_fact_id "
                      "WHERE n.agent_id = %s AND n.fact_text LIKE '%%Rome%%'", (AGENT,))
    assert len(chain) == 1 and "Madrid" in chain[0][1] and chain[0][2:] == (True, False), chain
    assert rows(url, "SELECT trace_json->'recent_messages' FROM memory_events WHERE agent_id = %s "
                     "AND message_id = 'msg-ctx'", (AGENT,)) == [([CONVERSATION[6][1]],)]
    assert rows(url, "SELECT count(*) FROM memory_quarantine WHERE agent_id = %s AND "
                     "payload->>'speaker' = %s", (AGENT, KEPT)) == [(1,)]
    assert rows(url, "SELECT count(*) FROM memory_entity_relationships WHERE agent_id = %s",
                (AGENT,))[0][0] > 0
    for check in await run_all(memory.engine, memory.embedding_dimensions, AGENT):
        assert check.passed, (check.name, check.examples)
    res = await memory.retrieve(AGENT, "Where does Maria live?")
    assert any("Lisbon" in f.fact_text for f in res.facts), [f.fact_text for f in res.facts]
    assert res.sources and {s.message_id for s in res.sources} <= kept["message_ids"]
    assert not any(w in res.context.lower() for w in ERASED_WORDS)

    # the jobs rebuild from what is left without resurrecting anything
    await _jobs(memory)
    _assert_nothing_left(url, gone)
    assert rows(url, "SELECT count(*) FROM memory_entities WHERE agent_id = %s AND "
                     "summary_text IS NOT NULL", (AGENT,))[0][0] > 0
    # the other agent, which holds the very same conversation, is untouched
    assert rows(url, "SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) FROM ("
                     "SELECT t::text AS x FROM memory_facts t WHERE agent_id = %s UNION ALL "
                     "SELECT t::text FROM memory_entities t WHERE agent_id = %s UNION ALL "
                     "SELECT t::text FROM memory_events t WHERE agent_id = %s) q",
                (OTHER_AGENT, OTHER_AGENT, OTHER_AGENT)) == other_before
    # idempotent
    again = await memory.delete_messages(AGENT, speaker=ERASED)
    assert again.total == 0


async def test_erasing_by_message_id_and_session(memory, fresh_db_url):
    await _converse(memory)
    n_events = rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = %s",
                    (AGENT,))[0][0]
    one = await memory.delete_messages(AGENT, message_ids=["msg-04"])  # the dog
    assert one.rows["memory_events"] == 1
    assert _hits(fresh_db_url, ["bolt"]) == {"memory_quarantine": 1}  # the other speaker-row
    both = await memory.delete_messages(AGENT, speaker=KEPT, session_id="s0")  # AND of selectors
    assert both.rows["memory_events"] == 2  # msg-00, msg-01
    assert rows(fresh_db_url, "SELECT count(*) FROM memory_events WHERE agent_id = %s",
                (AGENT,)) == [(n_events - 3,)]
    for what, sql in DANGLING.items():
        assert rows(fresh_db_url, sql) == [(0,)], what


async def test_bad_selectors(memory, fresh_db_url):
    await _converse(memory)
    counts = await memory.stats(AGENT)
    nobody = await memory.delete_messages(AGENT, speaker="Nobody At All")
    assert nobody.total == 0 and await memory.stats(AGENT) == counts
    assert (await memory.delete_messages(AGENT, message_ids=["no-such-id"])).total == 0
    assert (await memory.delete_messages("no-such-agent", speaker=KEPT)).total == 0
    with pytest.raises(ValidationError, match="speaker, message_ids or session_id"):
        await memory.delete_messages(AGENT)
    with pytest.raises(ValidationError, match="message_ids"):
        await memory.delete_messages(AGENT, message_ids="msg-01")
    with pytest.raises(ValidationError, match="message_ids"):
        await memory.delete_messages(AGENT, message_ids=[])
    with pytest.raises(ValidationError, match="speaker"):
        await memory.delete_messages(AGENT, speaker="  ")
    with pytest.raises(ValidationError, match="agent_id"):
        await memory.delete_messages("", speaker=KEPT)
    assert await memory.stats(AGENT) == counts


def test_forget_command(fresh_db_url, capsys):
    from arandu_pipelines.cli import main

    assert main(["--database-url", fresh_db_url, "forget", AGENT]) == 2  # no selector
    assert "--speaker, --session or --message-id" in capsys.readouterr().err
    # an agent with no events is a usage error (exit 2), not a silent "deleted 0"
    assert main(["--database-url", fresh_db_url, "forget", AGENT, "--speaker", "Nobody"]) == 2
    assert AGENT in capsys.readouterr().err
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("INSERT INTO memory_events (agent_id, session_id, speaker, text, occurred_at, "
                     "message_id, content_hash) VALUES (%s, 's', 'Ana', 'hello', now(), 'm0', md5('hello'))",
                     (AGENT,))
    assert main(["--database-url", fresh_db_url, "forget", AGENT, "--speaker", "Nobody",
                 "--message-id", "m1", "--message-id", "m2"]) == 0
    assert "deleted  memory_events                    0" in capsys.readouterr().out


def test_sync_facade(fresh_db_url, embeddings):
    from arandu_pipelines.client import SyncMemoryClient

    with SyncMemoryClient(fresh_db_url, embeddings=embeddings) as memory:
        memory.write(AGENT, "I adopted a dog named Bolt.", speaker_name=ERASED, occurred_at=T0)
        report = memory.delete_messages(AGENT, speaker=ERASED)
    assert report.rows["memory_events"] == 1 and report.rows["memory_facts"] >= 1
    assert _hits(fresh_db_url, ERASED_WORDS) == {}
