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
