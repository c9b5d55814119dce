"""Feedback from the first message ranking: the wider turn window around its strongest messages.

Much chat evidence shares no word with the question but continues a turn that does: "What does
Jon plan to do at the grand opening?" ranks "The official opening night is tomorrow" first, and
the answer is two turns later ("Tomorrow's gonna be an awesome night ... savor all the good
vibes"), out of reach of events.py's ±1 neighbour terms and of every index (no word of the
question, a middling cosine). So after the first ranking the top FB_DOCS messages feed back, in
ONE more statement (no model call): the turns 2..WIDE away from each of them in the same session
come in (`near`: the feedback message and the signed offset), those not scored yet with their
own BM25 and cosine, and events._score lends them a decaying share of the feedback message's
base (NEAR * NEAR_DECAY ** (offset - 2)) when they are its speaker's own (the speaker going on
after the other's reaction), less for turns of few words (`events._near`).

Pseudo-relevance feedback proper (RM3-style expansion terms from the feedback messages' lexemes
and a Rocchio vector q + b * mean(feedback vectors), new candidates from both, mixed into the
hybrid) was built and measured on the dev data and did not win over the window alone
(docs/retrieval.md, "Feedback from the first ranking"): it is not kept.

Bounded (at most FB_DOCS * 2 * (WIDE - 1) messages added) and deterministic (ties on ids; no
clock).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.read.lexical import QueryTerms, bm25_expr, bm25_params, n_terms
from arandu_pipelines.read.rows import EventRow
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.semantic import qvec
from arandu_pipelines.read.sql import fetch

FB_DOCS = 4  # feedback messages: the top of the first ranking
WIDE = 3  # turns each side of a feedback message (±1 is already events.py's PREV / NEXT)


@dataclass
class Feedback:
    """`near`: per message id, the (feedback message id, signed turn offset) pairs, |offset| in
    2..WIDE; `new`: the window messages the first ranking had not scored, sorted by id."""

    near: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    new: list[EventRow] = field(default_factory=list)


def _sql(where_x: str, n_bm25: int, with_sim: bool) -> str:
    sim = ("GREATEST(1 - (e.embedding_vec <=> CAST(:qv AS vector)), (SELECT max(1 - (u.embedding_vec "
           "<=> CAST(:qv AS vector))) FROM memory_event_units u WHERE u.agent_id = :a AND "
           "u.event_id = e.id))") if with_sim else "NULL"
    # FB_DOCS scalar seeds, not one uuid[]: a generic plan assumes ten array elements and looked
    # twice as costly as the custom plan for four, so Postgres re-planned every call (0.6-0.8 ms,
    # more than running it); with scalars it reuses the prepared plan (docs/retrieval.md).
    seeds = ", ".join(f"CAST(:fb{i} AS uuid)" for i in range(FB_DOCS))
    return f"""
    WITH fb AS (
        SELECT e.id, e.session_id, e.occurred_at FROM memory_events e
        WHERE e.agent_id = :a AND e.id IN ({seeds})
    ), win AS (
        SELECT w.id, fb.id AS seed, w.d FROM fb JOIN LATERAL (
            (SELECT x.id, -row_number() OVER (ORDER BY x.occurred_at DESC, x.id DESC) AS d
             FROM memory_events x WHERE x.agent_id = :a AND x.session_id = fb.session_id
               AND (x.occurred_at, x.id) < (fb.occurred_at, fb.id) AND {where_x}
             ORDER BY x.occurred_at DESC, x.id DESC LIMIT :wide)
            UNION ALL
            (SELECT x.id, row_number() OVER (ORDER BY x.occurred_at, x.id) AS d
             FROM memory_events x WHERE x.agent_id = :a AND x.session_id = fb.session_id
               AND (x.occurred_at, x.id) > (fb.occurred_at, fb.id) AND {where_x}
             ORDER BY x.occurred_at, x.id LIMIT :wide)) w ON true
        WHERE abs(w.d) >= 2
    ), old AS (
        SELECT CAST(o AS uuid) AS id FROM unnest(CAST(:old AS text[])) o
    ), nb AS (
        SELECT b.id, p.id AS prev_id, n.id AS next_id
        FROM (SELECT id FROM win EXCEPT SELECT id FROM old) b
        JOIN LATERAL (SELECT x.id, x.session_id, x.occurred_at FROM memory_events x
                      WHERE x.agent_id = :a AND x.id = b.id OFFSET 0) be ON true
        LEFT JOIN LATERAL (SELECT x.id FROM memory_events x WHERE x.agent_id = :a
            AND x.session_id = be.session_id AND (x.occurred_at, x.id) < (be.occurred_at, be.id)
            AND {where_x} ORDER BY x.occurred_at DESC, x.id DESC LIMIT 1) p ON true
        LEFT JOIN LATERAL (SELECT x.id FROM memory_events x WHERE x.agent_id = :a
            AND x.session_id = be.session_id AND (x.occurred_at, x.id) > (be.occurred_at, be.id)
            AND {where_x} ORDER BY x.occurred_at, x.id LIMIT 1) n ON true
    )
    SELECT e.id::text AS id, nb.id IS NOT NULL AS is_new, e.session_id, e.speaker,
           CASE WHEN nb.id IS NULL THEN NULL ELSE e.text END AS text, e.occurred_at, e.message_id,
           CASE WHEN nb.id IS NULL THEN NULL ELSE e.metadata::text END AS metadata,
           CASE WHEN nb.id IS NULL THEN NULL ELSE {bm25_expr('e', n_bm25)} END AS kw,
           CASE WHEN nb.id IS NULL THEN NULL ELSE {sim} END AS sim,
           nb.prev_id::text AS prev_id, nb.next_id::text AS next_id,
           (SELECT json_agg(json_build_array(w.seed::text, w.d) ORDER BY w.seed, w.d) FROM win w
             WHERE w.id = e.id)::text AS near
    FROM (SELECT DISTINCT id FROM win) wi
    JOIN LATERAL (SELECT x.* FROM memory_events x WHERE x.agent_id = :a AND x.id = wi.id OFFSET 0) e ON true
    LEFT JOIN nb ON nb.id = e.id
    """


async def feedback(
    conn: AsyncConnection,
    scope: Scope,
    terms: QueryTerms,
    embedding: list[float] | None,
    seeds: list[str],
    scored: list[str],
) -> Feedback:
    """The window around `seeds` (the first ranking's ids, best first; the first FB_DOCS are
    used) and, for window messages not in `scored`, their rows with BM25 and cosine."""
    out = Feedback()
    if not seeds or WIDE < 2:
        return out
    sql = _sql(scope.events("x"), n_terms(terms, "e"), embedding is not None)
    params = {**scope.params(), **bm25_params(terms, "e"), **{f"fb{i}": (seeds[i] if i < len(seeds) else None) for i in range(FB_DOCS)}, "old": sorted(scored),
              "wide": WIDE}
    if embedding is not None:
        params["qv"] = qvec(embedding)
    for r in await fetch(conn, sql, params, stable_plan=True):
        if r.near:
            out.near[r.id] = [(s, int(d)) for s, d in json.loads(r.near)]
        if r.is_new:
            out.new.append(EventRow(r.id, r.session_id, r.speaker, r.text, r.occurred_at, r.message_id,
                                  r.metadata, float(r.kw or 0.0),
                                  max(float(r.sim), 0.0) if r.sim is not None else 0.0,
                                  r.prev_id, r.next_id))
    out.new.sort(key=lambda n: n.id)
    return out


def closest(fb: Feedback, seeds: list[str], budget: int) -> list[EventRow]:
    """The new messages within `budget` (what is left of event_max_scan): those nearest the best
    feedback messages first (seed rank, then distance, then id)."""
    rank = {s: i for i, s in enumerate(seeds)}

    def key(n: EventRow) -> tuple[int, int, str]:
        return min(((rank.get(s, len(rank)), abs(d)) for s, d in fb.near.get(n.id, [])),
                   default=(len(rank), 0)) + (n.id,)

    return sorted(fb.new, key=key)[:max(budget, 0)]
