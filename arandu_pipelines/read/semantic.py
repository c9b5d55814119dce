"""The semantic signal: pgvector cosine similarity between the query and stored embeddings.

Two access paths, chosen by the agent's row count (memory_doc_stats):

- small agents (<= EXACT_MAX rows, a LoCoMo conversation is ~1,300): exact search. The agent's rows come from the btree on
  agent_id and are sorted by true distance; `+ 0` on the ORDER BY keeps the planner off the HNSW
  index. Exact is both fast here (a few thousand distances) and trivially deterministic, ties
  broken on id.
- big agents: the HNSW index (over the vectors cast to halfvec) with pgvector 0.8's iterative
  scan (`hnsw.iterative_scan = strict_order`), so the agent filter does not starve the result:
  the scan keeps walking the graph until enough of this agent's rows passed the filter. For a
  fixed index the walk is deterministic; results are re-sorted on (full-precision distance, id).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.read.sql import fetch, run
from arandu_pipelines.store.engine import Vector, vec

EXACT_MAX = 3_000
EF_SEARCH = 80


def qvec(embedding: list[float]) -> Vector | str:
    """The query embedding as a vector parameter, built once per query (it is sent 3-4 times)."""
    return _qvec(tuple(embedding))


@lru_cache(maxsize=16)
def _qvec(values: tuple[float, ...]) -> Vector | str:
    return vec(values) or "[]"


async def search(
    conn: AsyncConnection,
    kind: str,
    where: str,
    params: dict[str, Any],
    embedding: list[float],
    limit: int,
    n_rows: int,
) -> list[tuple[str, float]]:
    """Top `limit` (id, cosine similarity) of memory_events ('e') or memory_facts ('f')."""
    table = "memory_events" if kind == "e" else "memory_facts"
    exact = n_rows <= EXACT_MAX
    # the index is over embedding_vec::halfvec(d) (migration 0005): ordering on that expression
    # reaches it; the reported similarity stays full precision, and the result is re-sorted on it
    d = len(embedding)
    order = "(t.embedding_vec <=> CAST(:qv AS vector)) + 0, t.id" if exact else \
        f"t.embedding_vec::halfvec({d}) <=> CAST(CAST(:qv AS vector) AS halfvec({d}))"
    if not exact:  # session-level: harmless for other users of a pooled connection
        await run(conn, "SELECT set_config('hnsw.iterative_scan', 'strict_order', false), "
                  "set_config('hnsw.ef_search', :ef, false)", {"ef": str(max(EF_SEARCH, limit))})
    sql = (
        f"SELECT t.id::text AS id, 1 - (t.embedding_vec <=> CAST(:qv AS vector)) AS sim FROM {table} t "
        f"WHERE t.agent_id = :a AND t.embedding_vec IS NOT NULL AND {where} ORDER BY {order} LIMIT :lim"
    )
    if kind == "e":
        sql = _with_units(sql, where, exact, d)
    rows = await fetch(conn, sql, {**params, "qv": qvec(embedding), "lim": limit})
    out = [(r.id, float(r.sim)) for r in rows]
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


def _unit_scope(where: str) -> str:
    """The units' filter through their event's row (`t`): none when the scope is the whole agent
    (a unit's event always exists: foreign key (agent_id, event_id)), else one primary-key probe
    per unit (LATERAL ... OFFSET 0, never flattened into a join). As a plain join, for an agent
    the statistics did not know yet (estimated at one row) Postgres looped over the agent's units
    and scanned the agent's messages for each: 1.67 million rows read for 1,207 messages
    (bench/plan_scans.py; docs/retrieval.md, "Tails under import")."""
    if where == "true":
        return ""
    return ("JOIN LATERAL (SELECT 1 FROM memory_events t WHERE t.agent_id = :a AND t.id = u.event_id "
            f"AND {where} OFFSET 0) t ON true ")


def _with_units(events_sql: str, where: str, exact: bool, d: int) -> str:
    """Messages scored by max(event vector, best sentence unit) (memory_event_units, 0007).

    An event's vector is the mean of its sentences, so in a long message the one sentence a
    question is about is outweighed by the others; its own unit vector is not. Both searches run
    in one statement: the events' top `limit` and the units' top `3 * limit` (a long message's
    several units may all rank), each reaching its HNSW index the same way, then the best
    similarity per event. Units are filtered through their event's row, so the scope (`where`,
    on `t`) is the events' own."""
    order = "(u.embedding_vec <=> CAST(:qv AS vector)) + 0, u.event_id, u.unit_idx" if exact else \
        f"u.embedding_vec::halfvec({d}) <=> CAST(CAST(:qv AS vector) AS halfvec({d}))"
    units = (
        "SELECT u.event_id::text AS id, 1 - (u.embedding_vec <=> CAST(:qv AS vector)) AS sim "
        f"FROM memory_event_units u {_unit_scope(where)}"
        f"WHERE u.agent_id = :a AND u.embedding_vec IS NOT NULL ORDER BY {order} LIMIT 3 * :lim"
    )
    return (f"SELECT s.id, max(s.sim) AS sim FROM (({events_sql}) UNION ALL ({units})) s "
            "GROUP BY s.id ORDER BY max(s.sim) DESC, s.id LIMIT :lim")
