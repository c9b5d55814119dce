"""retrieve()'s statements read rows by id whatever the planner estimates (session 11).

For an agent the statistics do not know yet (a new user, or one that grew since the last
autoanalyze) Postgres estimates the agent at a handful of rows; a join from a set of ids to a
per-agent table can then become a scan of the agent's rows, per call, or per outer row (the
feedback statement's case, tests/test_read_feedback.py; docs/retrieval.md, "Tails under import").
Here an agent of 1,002 messages with facts is imported after the statistics were taken (in chunks
under the importer's ANALYZE threshold, autovacuum off) and every statement of 31 retrieves runs
under EXPLAIN ANALYZE twice: with those stale statistics, and ANALYZEd with nested loops disabled
(the planner's hand forced). One test per statement that read the agent's rows before the fix
(bench/plan_scans.py prints the same figures for any data).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

CHAT = Path(__file__).resolve().parents[1] / "bench" / "data" / "realistic-chat.json"
TABLES = ("memory_events", "memory_facts", "memory_event_units", "memory_entities",
          "memory_fact_entity_links")
AGENT = "audit"


def _scanned(node: dict[str, Any], out: dict[str, tuple[int, str]], parent: str = "") -> None:
    """Per per-agent table: the most rows one scan node read from it (returned + filtered, x
    loops), and that node (type, index, parent node)."""
    table = node.get("Relation Name")
    if table in TABLES:
        rows = round((node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)
                      + node.get("Rows Removed by Index Recheck", 0)) * node.get("Actual Loops", 1))
        out[table] = max(out.get(table, (0, "")), (rows, f"{node['Node Type']} {node.get('Index Name', '')} < {parent}"))
    for c in node.get("Plans", []):
        _scanned(c, out, node["Node Type"])


def _explain(url: str, caps: dict[str, list[dict[str, Any]]], nestloop: bool,
             ) -> dict[str, dict[str, tuple[int, str]]]:
    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.store.engine import register_vectors

    out: dict[str, dict[str, tuple[int, str]]] = defaultdict(dict)
    with psycopg.connect(url, autocommit=True) as conn:
        register_vectors(conn)
        if not nestloop:
            conn.execute("SET enable_nestloop = off")
        for text, sets in caps.items():
            for p in sets[:2]:
                plan = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + text, sqlmod._bind(p)).fetchone()[0]
                plan = plan if isinstance(plan, list) else json.loads(plan)
                _scanned(plan[0]["Plan"], out[text])
    return out


@pytest.fixture(scope="module")
async def scans(pg_server_url, template_db, embeddings) -> dict[str, Any]:
    """Per statement text: rows read by its largest scan node, stale statistics / nested loops
    off; the agent's message count; the rows of memory_events or memory_event_units, the larger."""
    from arandu_pipelines.client import MemoryClient
    from arandu_pipelines.read import sql as sqlmod
    from arandu_pipelines.write.import_files import locomo_rows

    name = f"t_{os.getpid()}_plan_scans"
    url = urlunsplit(urlsplit(pg_server_url)._replace(path="/" + name))
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_db}"')
    caps: dict[str, list[dict[str, Any]]] = defaultdict(list)
    try:
        async with MemoryClient(url, embeddings=embeddings) as memory:
            await memory.import_messages(locomo_rows(CHAT, agent_id="known"))  # >= 200: ANALYZEd
            async with memory.engine.begin() as conn:
                for t in TABLES:
                    await conn.exec_driver_sql(f"ALTER TABLE {t} SET (autovacuum_enabled = false)")
            rows = [{**r, "session_id": f"c{i}-{r['session_id']}", "message_id": f"c{i}-{r['message_id']}"}
                    for i in range(3) for r in locomo_rows(CHAT, agent_id=AGENT)]
            for i in range(0, len(rows), 150):
                await memory.import_messages(rows[i:i + 150])
            for q in json.loads(CHAT.read_text())["qa"]:
                with sqlmod.capture() as cap:
                    await memory.retrieve(AGENT, q["question"], config_overrides={"topk_events": 20})
                for text, params in cap:
                    caps[text].append(params)
        with psycopg.connect(url) as conn:
            n_events, n_table = conn.execute(
                "SELECT (SELECT count(*) FROM memory_events WHERE agent_id = %s), "
                "(SELECT greatest(count(*), (SELECT count(*) FROM memory_event_units)) FROM memory_events)",
                (AGENT,)).fetchone()
        stale = _explain(url, caps, nestloop=True)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ANALYZE " + ", ".join(TABLES))
        forced = _explain(url, caps, nestloop=False)
        yield {"stale": stale, "forced": forced, "events": n_events, "table": n_table}
    finally:
        with psycopg.connect(pg_server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _worst(scans: dict[str, Any], tables: tuple[str, ...], *markers: str) -> tuple[int, list[Any]]:
    """The most rows one scan node of `tables` read, stale statistics or nested loops off, in the
    statements whose text holds every marker; and those nodes (for the failure message)."""
    texts = [t for t in scans["forced"] if all(m in t for m in markers)]
    assert texts, f"no statement with {markers} among the retrieves' statements"
    nodes = [(k, tb, scans[k][t][tb]) for k in ("stale", "forced") for t in texts for tb in tables
             if tb in scans[k][t]]
    return max([n[2][0] for n in nodes] + [0]), nodes


@pytest.mark.slow
def test_the_agent_is_big_enough_to_tell(scans) -> None:
    assert scans["events"] == 1002 and scans["table"] == 1336


@pytest.mark.slow
def test_semantic_units_do_not_scan_the_agents_messages_per_unit(scans) -> None:
    """read/semantic.py's units branch joined each unit to its message; with the agent estimated
    at one row that was a nested loop scanning the agent's messages once per unit (1.67 million
    rows read for 1,207 messages in bench/plan_scans.py). Unscoped, units are no longer joined;
    scoped, one primary-key probe per unit. The exact search (small agents) still reads each
    message and unit once: no node reads more than one of the two tables holds."""
    worst, nodes = _worst(scans, ("memory_events", "memory_event_units"), "FROM memory_event_units u",
                          "max(s.sim)")
    assert worst <= scans["table"], (nodes, scans["table"])


@pytest.mark.slow
def test_first_ranking_reads_its_messages_by_id(scans) -> None:
    """read/events.py's final read joined `memory_events` on id alone (no agent_id): with nested
    loops off, a hash join over the whole table (every agent's messages)."""
    worst, nodes = _worst(scans, ("memory_events",), "WITH b AS (", "LEFT JOIN nb ON nb.id = e.id")
    assert worst < scans["events"] // 4, nodes


@pytest.mark.slow
def test_fact_rows_read_their_source_message_by_id(scans) -> None:
    """read/rank.py's fact rows joined their source message on id alone: with nested loops off a
    hash join over every agent's messages."""
    worst, nodes = _worst(scans, ("memory_events",), "AS src_meta")
    assert worst < scans["events"] // 4, nodes


@pytest.mark.slow
def test_linked_facts_read_facts_by_id(scans) -> None:
    """read/graph.py's linked facts joined each entity's links to `memory_facts` on id alone:
    with nested loops off a hash join over every agent's facts."""
    worst, nodes = _worst(scans, ("memory_facts",), "k.hub", "memory_fact_entity_links l")
    assert worst < scans["events"] // 4, nodes


@pytest.mark.slow
def test_the_bootstrap_probes_speakers_instead_of_scanning_them(scans) -> None:
    """read/entities.py's speaker lookups (a word of the query is a speaker; an alias's entity
    speaks; a capitalised word matched nothing) were EXISTS / LIMIT 1 subqueries: pulled up into a
    semi-join, a hash over every message's speaker with nested loops off, a materialised scan of
    the agent's with stale statistics, and even by default a sequential scan that stopped at the
    first match only when there was one. As min(speaker) they are one index probe each
    (ix_events_agent_speaker)."""
    worst, nodes = _worst(scans, ("memory_events",), "AS has_rels")
    assert worst < scans["events"] // 4, nodes
