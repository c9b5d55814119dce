"""Issue 18 items 5-7: knowledge features that act on what retrieve() returns.

Each test here failed before its change: fact importance never moved after the write (item 5),
a contradiction reconciliation saw was not kept (item 6), conversation snippets ignored the
reranker and recency (item 7).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from tests.test_read_pipeline import VERTIX_WORLD, write_all

AS_OF = datetime.now(timezone.utc).replace(second=0, microsecond=0) + timedelta(hours=1)


def _db(memory):  # noqa: ANN001, ANN202
    import psycopg

    return psycopg.connect(memory._database_url, autocommit=True)


# ---- item 5: dynamic importance acts (the background importance job evolves what ranks) -----------
async def test_importance_job_evolves_the_importance_retrieve_ranks_on(memory) -> None:  # noqa: ANN001
    from arandu_pipelines.background.importance import compute_entity_importance
    from arandu_pipelines.read.importance import compute_dynamic_importance
    from arandu_pipelines.write.pipeline import IMPORTANCE_CATEGORY_MAP

    await write_all(memory, "ana", VERTIX_WORLD)
    q = "Where does Marcos Tavares live?"
    before = await memory.retrieve("ana", q, as_of=AS_OF)
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
