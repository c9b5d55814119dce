"""Issue 6 — tenant isolation, as a property.

For random pairs of agent ids (including ids differing only by case, LIKE metacharacters and
quotes), random shared entity names and random queries: nothing that `retrieve`, `get`,
`get_all`, `entities`, `stats`, `delete` or `delete_all` does for agent A returns or changes a row
of any other agent.
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arandu_pipelines.client import MemoryClient
from tests.conftest import rows

T0 = datetime(2024, 1, 10, 10, 0, tzinfo=UTC)
_n = itertools.count()

agent_ids = st.text(alphabet=st.sampled_from("aAbB%_'\"\\ -:é🙂"), min_size=1, max_size=8).filter(
    lambda s: s.strip() != "")
names = st.sampled_from(["Maria", "Bruno", "Ana Lima", "O'Brien", "100%", "Zoë"])
cities = st.sampled_from(["Lisbon", "Porto", "Madrid", "Tokyo"])
queries = st.one_of(st.sampled_from(["where does Maria live?", "%", "_", "' OR 1=1 --", "a & b",
                                     "who is Bruno", ""]),
                    st.text(max_size=30))


def _snapshot_others(url: str, agent: str) -> dict[str, str]:
    """A fingerprint of every row, in every agent table, that does not belong to `agent`."""
    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'agent_id' "
            "AND table_schema = current_schema() ORDER BY 1").fetchall()]
        return {
            t: conn.execute(f'SELECT count(*)::text || md5(coalesce(string_agg(x::text, \'|\' '
                            f'ORDER BY x::text), \'\')) FROM "{t}" x WHERE agent_id IS DISTINCT '
                            f'FROM %s', (agent,)).fetchone()[0]
            for t in tables
        }


def _fact_ids(url: str, agent: str) -> set[str]:
    return {str(r[0]) for r in rows(url, "SELECT id FROM memory_facts WHERE agent_id = %s", (agent,))}


@pytest.mark.slow  # > 10 s on the shared 2-core machine
def test_no_operation_on_one_agent_touches_another(fresh_db_url, embeddings):
    @settings(max_examples=15, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(a=agent_ids, b=agent_ids, name=names, city_a=cities, city_b=cities, query=queries)
    def prop(a: str, b: str, name: str, city_a: str, city_b: str, query: str) -> None:
        a, b = a.strip(), b.strip()
        if a == b:
            b = b + "-other"
        asyncio.run(_check(fresh_db_url, embeddings, a, b, name, city_a, city_b, query))

    prop()


async def _check(url, embeddings, a, b, name, city_a, city_b, query) -> None:
    k = next(_n)
    async with MemoryClient(url, embeddings=embeddings) as memory:
        for agent, city in ((a, city_a), (b, city_b)):
            for i, body in enumerate([f"My friend {name} lives in {city}.",
                                      f"{name} works at the {city} hospital."]):
                res = await memory.write(agent, body, speaker_name="Rafael", message_id=f"{k}-{i}",
                                         occurred_at=T0 + timedelta(minutes=k * 10 + i))
                assert res.success, res.error
        mine, theirs = _fact_ids(url, a), _fact_ids(url, b)
        assert mine and theirs and not (mine & theirs)
        before = _snapshot_others(url, a)

        my_events = {str(r[0]) for r in rows(url, "SELECT id FROM memory_events WHERE agent_id = %s",
                                             (a,))}
        for q, keys in ((query, None), (f"where does {name} live?", None),
                        (f"where does {name} live?", [name, "%"])):
            result = await memory.retrieve(a, q, entity_keys=keys)
            assert {f.fact_id for f in result.facts} <= mine, "retrieve leaked another agent's facts"
            assert {e.event_id for e in result.events} <= my_events
            assert {s.event_id for s in result.sources} <= my_events
            assert city_b == city_a or city_b not in result.context
            if keys is None and q.startswith("where"):
                assert result.facts  # not vacuous: A's own memory is found
        assert {f.fact_id for f in await memory.get_all(a, limit=500)} <= mine
        assert {f.fact_id for f in await memory.get_all(a, entity_keys=[name, "%", "_"])} <= mine
        for fid in theirs:
            assert await memory.get(a, fid) is None
            assert await memory.delete(a, fid) is False
        own_entities = {r[0] for r in rows(url, "SELECT id::text FROM memory_entities WHERE "
                                                "agent_id = %s", (a,))}
        assert {e.entity_id
                for e in await memory.entities(a, limit=500)} <= own_entities
        stats = await memory.stats(a)
        assert stats["memory_facts"] == len(mine)
        assert _snapshot_others(url, a) == before

        one = next(iter(mine))
        assert await memory.delete(a, one) is True
        report = await memory.delete_all(a)
        assert sum(report.rows.values()) > 0
        assert _snapshot_others(url, a) == before  # b (and every earlier agent) untouched
        assert _fact_ids(url, b) == theirs
        assert all(n == 0 for n in (await memory.stats(a)).values())
