"""Issue 18 items 5-7: knowledge features that act on what retrieve() returns.

Each test here failed before its change: fact importance never moved after the write (item 5),
a contradiction reconciliation saw was not kept (item 6), conversation snippets ignored the
reranker and recency (item 7).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.test_read_pipeline import VERTIX_WORLD, write_all

AS_OF = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(hours=1)


def _db(memory):
    import psycopg

    return psycopg.connect(memory._database_url, autocommit=True)


# ---- item 5: dynamic importance acts (the background importance job evolves what ranks) -----------
async def test_importance_job_evolves_the_importance_retrieve_ranks_on(memory) -> None:
    from arandu_pipelines.background.importance import compute_entity_importance
    from arandu_pipelines.read.importance import compute_dynamic_importance
    from arandu_pipelines.write.pipeline import IMPORTANCE_CATEGORY_MAP

    await write_all(memory, "ana", VERTIX_WORLD)
    q = "Where does Marcos Tavares live?"
    before = await memory.retrieve("ana", q, as_of=AS_OF)
    assert len(before.facts) >= 4
    top = before.facts[0]
    other = before.facts[1]
    clock = AS_OF
    with _db(memory) as conn:
        conn.execute("UPDATE memory_facts SET times_retrieved = 12, last_retrieved_at = %s WHERE id = %s",
                     (clock - timedelta(days=3), top.fact_id))
        conn.execute("UPDATE memory_facts SET user_correction_count = 2 WHERE id = %s", (other.fact_id,))
        conn.execute("INSERT INTO memory_meta_observations (agent_id, observation_type, title, text, fingerprint, "
                     "supporting_fact_ids) VALUES ('ana', 'pattern', 't', 't', 'fp', %s)",
                     (json.dumps([other.fact_id]),))
        cats = dict(conn.execute("SELECT id::text, category FROM memory_facts WHERE id = ANY(%s::uuid[])",
                                 ([top.fact_id, other.fact_id],)).fetchall())
    # retrieve() alone never moves importance: the counters it writes do not reorder a repeat
    same = await memory.retrieve("ana", q, as_of=AS_OF)
    assert [f.scores for f in same.facts] == [f.scores for f in before.facts]

    with _db(memory) as conn:  # a contradiction is not a pattern: no boost for its facts
        conn.execute("INSERT INTO memory_meta_observations (agent_id, observation_type, title, text, fingerprint, "
                     "supporting_fact_ids) VALUES ('ana', 'contradiction', 't', 't', 'fp', %s)",
                     (json.dumps([f.fact_id for f in before.facts[2:4]]),))
    job = await compute_entity_importance(memory.engine, "ana", now=clock)
    assert job.facts_updated == 2

    def base(fid: str) -> float:
        return IMPORTANCE_CATEGORY_MAP.get(cats[fid], 0.5)

    want_top = compute_dynamic_importance(base(top.fact_id), 12, clock - timedelta(days=3), 0, False, clock)
    want_other = compute_dynamic_importance(base(other.fact_id), 0, None, 2, True, clock)
    after = {f.fact_id: f for f in (await memory.retrieve("ana", q, as_of=AS_OF)).facts}
    assert want_top > top.importance and want_other != other.importance
    assert after[top.fact_id].importance == pytest.approx(want_top, abs=1e-4)  # SQL == the spec function
    assert after[other.fact_id].importance == pytest.approx(want_other, abs=1e-4)
    # and it weighs in the ranking: 0.10 x importance (clamped to 1)
    gained = 0.10 * (min(want_top, 1.0) - top.importance)
    assert after[top.fact_id].score == pytest.approx(top.score + gained, abs=1e-4)
    # idempotent: the same counters and clock change nothing, never compounding
    again = await compute_entity_importance(memory.engine, "ana", now=clock)
    assert again.facts_updated == 0


# ---- item 6: OpenMem `contradicts` edges -----------------------------------------------------------
async def test_reconciliation_stores_contradicts_edges_and_recall_demotes_the_weaker(memory) -> None:
    await write_all(memory, "ana", [("Bruno Almeida likes spicy food.", "Ana"), ("Bruno Almeida runs marathons.", "Ana"),
                                    ("Bruno Almeida doesn't like spicy food.", "Ana")])
    with _db(memory) as conn:
        facts = dict(conn.execute("SELECT fact_text, id::text FROM memory_facts WHERE agent_id = 'ana' "
                                  "AND valid_to IS NULL").fetchall())
        edges = conn.execute("SELECT supporting_fact_ids, title FROM memory_meta_observations WHERE agent_id = 'ana' "
                             "AND observation_type = 'contradiction' AND is_active").fetchall()
    likes, dislikes = facts["Bruno Almeida likes spicy food"], facts["Bruno Almeida doesn't like spicy food"]
    assert [sorted(e[0]) for e in edges] == [sorted([likes, dislikes])]  # both kept, one edge
    r = await memory.retrieve("ana", "Does Bruno like spicy food?")
    got = {f.fact_id: f for f in r.facts}
    assert sum("contradicted" in got[i].scores for i in (likes, dislikes) if i in got) == 1
    assert "Conflicting statements about Bruno Almeida" in r.context  # surfaced as an observation
    # stating one side again is a restatement (NOOP): no second edge
    await write_all(memory, "ana", [("Bruno Almeida doesn't like spicy food.", "Ana")], session="s2")
    with _db(memory) as conn:
        n, = conn.execute("SELECT count(*) FROM memory_meta_observations "
                                     "WHERE agent_id = 'ana' AND observation_type = 'contradiction'").fetchone()
    assert n == 1


async def test_a_stored_contradicts_edge_demotes_a_conflict_no_rule_sees(memory) -> None:
    """A contradiction consolidation (an LLM) found between two facts no textual rule relates."""
    await write_all(memory, "ana", [("Ana works from home every day.", "Ana"),
                                    ("Ana commutes to the office downtown every day.", "Ana"),
                                    ("Ana adopted a cat named Mingau.", "Ana")])
    with _db(memory) as conn:
        ids = dict(conn.execute("SELECT fact_text, id::text FROM memory_facts WHERE agent_id = 'ana'").fetchall())
    home = next(i for t, i in ids.items() if "from home" in t)
    office = next(i for t, i in ids.items() if "commutes" in t)
    plain = await memory.retrieve("ana", "How does Ana get to work every day?", as_of=AS_OF)
    assert not any("contradicted" in f.scores for f in plain.facts)
    with _db(memory) as conn:
        conn.execute("INSERT INTO memory_meta_observations (agent_id, observation_type, title, text, fingerprint, "
                     "supporting_fact_ids, entity_keys) VALUES ('ana', 'contradiction', 'Where Ana works', "
                     "'home vs office', 'llm-1', %s, '[\"person:ana\"]')", (json.dumps([office, home]),))
    r = await memory.retrieve("ana", "How does Ana get to work every day?", as_of=AS_OF)
    got = {f.fact_id: f for f in r.facts}
    assert home in got or office in got
    demoted = [i for i in (home, office) if i in got and "contradicted" in got[i].scores]
    assert len(demoted) == 1
    assert got[demoted[0]].score == pytest.approx(
        next(f for f in plain.facts if f.fact_id == demoted[0]).score * 0.3, abs=1e-5)


# ---- item 7: conversation snippets follow the reranker, then recency ---------------------------------
def _event(i: int, score: float, day: int):
    from arandu_pipelines.read.types import ScoredEvent

    return ScoredEvent(f"e{i}", f"m{i}", {}, "s1", "Ana", f"message {i}", datetime(2024, 1, day, tzinfo=UTC),
                       score)


def test_snippets_follow_the_citations_then_the_newest() -> None:
    from arandu_pipelines.config import MemoryConfig
    from arandu_pipelines.read.format import compress_context, conversation_snippets
    from arandu_pipelines.read.types import SourceRef

    events = [_event(1, 0.9, 1), _event(2, 0.5, 2), _event(3, 0.4, 3), _event(4, 0.4, 9)]
    # e2 is the source of a fact a reranker scored 1.0: its citation outranks e1's
    sources = [SourceRef("e2", "m2", {}, "s1", "Ana", events[1].occurred_at, "message 2", 0.95, ["event", "fact:f"]),
               SourceRef("e1", "m1", {}, "s1", "Ana", events[0].occurred_at, "message 1", 0.9, ["event"]),
               SourceRef("e3", "m3", {}, "s1", "Ana", events[2].occurred_at, "message 3", 0.4, ["event"]),
               SourceRef("e4", "m4", {}, "s1", "Ana", events[3].occurred_at, "message 4", 0.4, ["event"])]
    assert [e.event_id for e in conversation_snippets(events, sources)] == ["e2", "e1", "e4", "e3"]
    ctx, _ = compress_context([], conversation_snippets(events, sources), [], MemoryConfig(), dated=False)
    assert [ln.split(": ", 1)[1] for ln in ctx.splitlines()[1:]] == ["message 2", "message 1", "message 4", "message 3"]


async def test_context_snippets_follow_the_reranker(memory) -> None:
    from tests.test_read_pipeline import FakeLLM

    await write_all(memory, "ana", VERTIX_WORLD)
    q = "Who works at Vertix?"
    plain = await memory.retrieve("ana", q)
    memory.llm = FakeLLM(lambda fact: 1.0 if "Ricardo" in fact else 0.6)
    reranked = await memory.retrieve("ana", q)
    convs = reranked.context.split("Relevant conversations:\n", 1)[1].splitlines()
    assert "Ricardo Gomes is co-founder of Vertix." in convs[0], reranked.context
    assert plain.context.split("Relevant conversations:\n", 1)[1].splitlines()[0] != convs[0], plain.context


async def test_a_negation_is_never_taken_for_a_near_identical_restatement(memory) -> None:
    """MiniLM puts "likes spicy food" and "doesn't like spicy food" at cosine ~0.92, the NOOP
    threshold: before, the negation could be swallowed as a reinforcement of what it denies."""
    cfg = {"reconcile_noop_above": 0.80}
    for i, msg in enumerate(["Bruno Almeida likes spicy food.", "Bruno Almeida doesn't like spicy food."]):
        r = await memory.write("ana", msg, speaker_name="Ana", session_id="s1", message_id=f"n{i}",
                               occurred_at=datetime(2025, 3, 3, 12, i, tzinfo=UTC), config_overrides=cfg)
        assert r.success, r.error
    with _db(memory) as conn:
        texts = sorted(t for t, in conn.execute("SELECT fact_text FROM memory_facts WHERE agent_id = 'ana' "
                                                "AND valid_to IS NULL AND fact_text ILIKE '%spicy%'"))
        reinforced = conn.execute("SELECT max(reinforcement_count) FROM memory_facts WHERE agent_id = 'ana'").fetchone()[0]
    assert texts == ["Bruno Almeida doesn't like spicy food", "Bruno Almeida likes spicy food"]
    assert reinforced == 0
