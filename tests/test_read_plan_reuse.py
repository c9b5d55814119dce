"""Prepared read statements whose plan Postgres must reuse (issue 18, latency).

A statement run with stable_plan=True is prepared once per pooled connection; under
plan_cache_mode=auto Postgres plans the first five calls for their parameters and then keeps a
generic plan, unless that generic plan looks costlier than the custom ones. With a `text[]` of
keys the generic plan assumes ten elements, so for the one or two hubs a query really has it
always looked costlier and every call was planned again (0.47 ms of planning per retrieve on
conv-26 for a 0.34 ms statement). One scalar parameter per key gives the generic plan the true
shape. (The feedback statement's test is in tests/test_read_feedback.py.)
"""

from __future__ import annotations

from arandu_pipelines.read.graph import hub_facts
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.sql import _driver

AGENT = "hub-plans"


async def _plans(conn, pattern: str) -> list[tuple[int, int]]:
    driver = await _driver(conn)
    cur = await driver.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                               "WHERE statement LIKE %s", (pattern,))
    return [tuple(r) for r in await cur.fetchall()]


async def test_the_hub_facts_statement_is_planned_once_per_connection(memory) -> None:
    async with memory.engine.connect() as conn:
        for _ in range(10):
            assert await hub_facts(conn, Scope(AGENT), ["person:kate"], 5) == []
        plans = await _plans(conn, "%CROSS JOIN LATERAL%importance DESC%")
    assert len(plans) == 1, plans
    generic, custom = plans[0]
    assert custom <= 5 and generic >= 5, plans


async def test_hub_facts_without_hubs_runs_nothing(memory) -> None:
    async with memory.engine.connect() as conn:
        assert await hub_facts(conn, Scope(AGENT), [], 5) == []
        assert await _plans(conn, "%CROSS JOIN LATERAL%importance DESC%") == []


async def _chat(memory) -> None:
    """A conversation whose facts are mostly the two speakers' (hubs), with many entities of a
    few facts each, as in a real chat (conv-26: two speakers hold 98% of 273 facts)."""
    people = ["Ana", "Bea", "Carla", "Dora", "Elena", "Fatima", "Gina", "Helena", "Iris", "Joana",
              "Karin", "Lucia", "Marta", "Nadia", "Olga", "Paula", "Rosa", "Sofia", "Tania", "Vera"]
    firms = ["Vertix", "Nimbus", "Orla", "Quanta", "Zephyr", "Lumen", "Brisa", "Carbo", "Delta", "Ferro"]
    hobbies = ["hiking", "pottery", "chess", "jazz", "surfing", "baking", "painting", "running", "yoga",
               "knitting", "cycling", "gardening", "swimming", "reading", "poetry", "climbing"]
    turns = [{"agent_id": AGENT, "session_id": f"s{i % 6}", "speaker": ("Kate", "Leo")[i % 2],
              "text": (f"My friend {people[i % 20]} works at {firms[i * 7 % 10]}." if i % 4 == 0
                       else f"I love {hobbies[i % 16]} and I really enjoy {hobbies[(i * 5 + 3) % 16]}."),
              "message_id": f"m{i}", "occurred_at": f"2024-0{1 + i % 9}-1{i % 10}T10:{i % 60:02d}:00+00:00"}
             for i in range(160)]  # as in a real chat: most facts are the two speakers', many
    # entities have a few facts each
    await memory.import_messages(turns)
    async with memory.engine.begin() as conn:
        # the two speakers' facts, many times over: as in a real chat, they hold most of the rows
        cols = ", ".join(r[0] for r in (await conn.exec_driver_sql(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'memory_facts' "
            "AND column_name <> 'id' AND is_generated = 'NEVER' ORDER BY ordinal_position")).all())
        await conn.exec_driver_sql(
            f"INSERT INTO memory_facts (id, {cols}) SELECT gen_random_uuid(), {cols} FROM memory_facts, "
            "generate_series(1, 30) WHERE entity_key IN ('person:kate', 'person:leo')")
        await conn.exec_driver_sql("ANALYZE memory_facts")
        await conn.exec_driver_sql("ANALYZE memory_fact_entity_links")


async def _linked_plans(memory, keys: list[str]) -> list[tuple[int, int]]:
    """Ten linked_facts calls on one connection over a conversation's facts: its plan counts."""
    from arandu_pipelines.read.graph import linked_facts

    await _chat(memory)
    async with memory.engine.connect() as conn:
        first = await linked_facts(conn, Scope(AGENT), keys, 10)
        assert first  # the statement has facts to rank
        for _ in range(9):
            assert await linked_facts(conn, Scope(AGENT), keys, 10) == first
        return await _plans(conn, "%FROM memory_fact_entity_links l%f.id = l.fact_id%")


async def test_the_linked_facts_statement_is_planned_once_per_connection(memory) -> None:
    """graph.linked_facts (graph signal and spreading activation) took its keys and caps as a
    text[] and an int[]: the generic plan assumed ten of each and always looked costlier than
    the custom plan for the few real keys, so every call was planned again (0 generic of 53 on
    conv-26, 0.32 ms of planning for 0.08 ms of work per retrieve). One scalar per key and cap."""
    plans = await _linked_plans(memory, ["person:ana", "organization:quanta"])
    assert len(plans) == 1, plans
    generic, custom = plans[0]
    assert custom <= 5 and generic >= 5, plans


async def test_linked_and_hub_facts_are_one_round_trip(memory) -> None:
    """The graph step read a query's entities' facts and its hubs' facts in two statements, one
    after the other (retrieve's 13 statements; issue 18 latency): now one, same rows."""
    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.read.graph import linked_facts

    await _chat(memory)
    scope, keys, hubs = Scope(AGENT), ["organization:quanta", "person:ana"], ["person:kate", "person:leo"]
    async with memory.engine.connect() as conn:
        apart = sorted(await linked_facts(conn, scope, keys, 10) + await hub_facts(conn, scope, hubs, 5))
        with sqlmod.capture() as statements:
            together = await linked_facts(conn, scope, keys, 10, hubs=hubs, hub_cap=5)
    assert len(statements) == 1
    assert together == apart
    assert {"person:ana", "person:kate", "person:leo"} <= {k for _, k, _, _ in together}
    assert sum(1 for _, k, _, _ in together if k == "person:kate") == 5  # a hub: its cap
