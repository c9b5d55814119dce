"""Ranking raw messages: hybrid relevance, the speaker, dates, and the conversation around them.

A chat turn is a poor retrieval unit on its own: the answer to "what did Caroline take away from
the book?" is "It taught me self-acceptance", which names neither Caroline nor the book; the
words are in the turn before ("What did you take away from it?"). So, over the candidates of the
lexical, semantic, temporal and recent-session steps plus their neighbouring turns:

    base(t)  = l * bm25(t) / max bm25 + (1 - l) * cos(t) / max cos        (hybrid, per query;
               l = the plan's lexical_events weight / (lexical + semantic_events weights), 0.5)
             * (1 + SPEAKER_BOOST)  if t was said by someone the query names (x the speaker's
               share, read/subject.py: a speaker named after the question's subject gets none)
             * (1 + WINDOW_BOOST)   if t happened inside a time window of the query
    score(t) = base(t) + (PREV + QUESTION * [previous turn asks something]) * base(previous turn)
                       + NEXT * base(next turn)                           (turns of one session)
                       + SESSION * max base in t's session                 (topic of the session)
                       + NEAR * NEAR_DECAY ** (d - 2) * base(f) * min(1, words(t) / NEAR_WORDS)
                         (second pass, read/feedback.py: f one of the first ranking's top FB_DOCS
                         messages, said by t's speaker, d = 2..WIDE turns from t in its session)
    the neighbour terms (PREV, NEXT, NEAR) x answering.OTHER if the query names speakers and t's
                         speaker is not one of them (they lend t the named speaker's boosted base)
    score(t) *= answering.ASK  if t only asks (read/answering.py: the reply holds the answer)

The constants were tuned once on the LoCoMo dev conversations (bench/locomo.py) and are general
mechanisms, not per-question rules. Scores are rescaled to [0, 1] so the best message carries the
absolute quality of the best match (its mean of idf-share and cosine).
"""

from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.read import answering as ans
from arandu_pipelines.read import feedback as fbk
from arandu_pipelines.read.lexical import QueryTerms, bm25_expr, bm25_params, n_terms
from arandu_pipelines.read.rows import EventRow
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.semantic import qvec
from arandu_pipelines.read.spread import greedy_spread
from arandu_pipelines.read.sql import fetch
from arandu_pipelines.read.temporal import TimeWindow
from arandu_pipelines.read.types import ScoredEvent

LEXICAL_SHARE = 0.5
SPEAKER_BOOST = 0.5
WINDOW_BOOST = 0.2
PREV = 0.3
QUESTION = 0.3
NEXT = 0.1
SESSION = 0.1
RECENT = 0.1
MAX_SEEDS = 40
LIST_CONTEXT = 0.3  # a list question's items stand in their own turns: neighbours weigh less
LIST_SEEDS = 60  # a list question's evidence is spread out: score more candidates
RELATIVE_FLOOR = 0.25  # messages scoring under a quarter of the best one are noise
SESSION_FREE = 2  # list questions: messages of one session ranked before SESSION_DECAY applies
SESSION_DECAY = 0.85  # each further message of that session counts x0.85 more (spread_sessions)
FEEDBACK = True  # a second pass with feedback from the first ranking (read/feedback.py)
NEAR = 0.2  # a feedback message lends NEAR * NEAR_DECAY ** (d - 2) of its base to a turn d >= 2 away
NEAR_DECAY = 0.6
NEAR_WORDS = 4  # a far turn with fewer words (3+ letters) gets a share: "lmao", "wait what" carry no answer
_WORD = re.compile(r"[^\W\d_]{3,}")


def _seed_ids(signals: dict[str, dict[str, float]], limit: int) -> list[str]:
    """Union of the steps' event hits, cut to `limit` by a max-normalised sum of signals."""
    total: dict[str, float] = {}
    for hits in signals.values():
        top = max(hits.values(), default=0.0) or 1.0
        for eid, s in hits.items():
            total[eid] = total.get(eid, 0.0) + s / top
    ranked = sorted(total.items(), key=lambda x: (-x[1], x[0]))
    return [eid for eid, _ in ranked[:limit]]


async def rank_events(
    conn: AsyncConnection,
    scope: Scope,
    terms: QueryTerms,
    embedding: list[float] | None,
    signals: dict[str, dict[str, float]],
    speakers: list[str],
    windows: list[TimeWindow],
    limit: int,
    max_scan: int = 200,
    lexical_share: float = LEXICAL_SHARE,
    spread: bool = False,
    roles: dict[str, float] | None = None,
) -> tuple[list[ScoredEvent], int]:
    """(top `limit` events, number of messages scored). At most `max_scan` messages are scored
    (`event_max_scan`): a seed brings its two neighbouring turns, so max_scan // 3 seeds.
    `spread` (a list question, read/listq.py): up to LIST_SEEDS seeds, and the top ranks spread
    over sessions (`spread_sessions`). `roles`: per named speaker the share of SPEAKER_BOOST
    (read/subject.py; 1.0 when absent)."""
    seeds = _seed_ids(signals, min(LIST_SEEDS if spread else MAX_SEEDS, max(1, max_scan // 3)))
    if not seeds:
        return [], 0
    where_x = scope.events("x")
    # max(event vector, best sentence unit): the same score the semantic step ranked it by
    sim = ("GREATEST(1 - (e.embedding_vec <=> CAST(:qv AS vector)), (SELECT max(1 - (u.embedding_vec "
           "<=> CAST(:qv AS vector))) FROM memory_event_units u WHERE u.agent_id = :a AND "
           "u.event_id = e.id))") if embedding is not None else "NULL"
    # the messages are read by id (LATERAL ... OFFSET 0): one primary-key
    # probe per row whatever the estimates, never a scan of the agent's rows (docs/retrieval.md,
    # "Tails under import")
    sql = (
        f"""
        WITH b AS (
            SELECT e.id, e.session_id, e.occurred_at FROM memory_events e
            WHERE e.agent_id = :a AND e.id = ANY(CAST(:ids AS uuid[]))
        ), nb AS (
            SELECT b.id, p.id AS prev_id, n.id AS next_id FROM b
            LEFT JOIN LATERAL (SELECT x.id FROM memory_events x WHERE x.agent_id = :a
                AND x.session_id = b.session_id AND (x.occurred_at, x.id) < (b.occurred_at, b.id)
                AND {where_x} ORDER BY x.occurred_at DESC, x.id DESC LIMIT 1) p ON true
            LEFT JOIN LATERAL (SELECT x.id FROM memory_events x WHERE x.agent_id = :a
                AND x.session_id = b.session_id AND (x.occurred_at, x.id) > (b.occurred_at, b.id)
                AND {where_x} ORDER BY x.occurred_at, x.id LIMIT 1) n ON true
        ), ids AS (
            SELECT id FROM nb UNION SELECT prev_id FROM nb WHERE prev_id IS NOT NULL
            UNION SELECT next_id FROM nb WHERE next_id IS NOT NULL
        )
        SELECT e.id::text AS id, e.session_id, e.speaker, e.text, e.occurred_at, e.message_id,
               e.metadata::text AS metadata, {bm25_expr('e', n_terms(terms, 'e'))} AS kw, {sim} AS sim,
               nb.prev_id::text AS prev_id, nb.next_id::text AS next_id, (nb.id IS NOT NULL) AS seed
        FROM ids JOIN LATERAL (SELECT x.* FROM memory_events x WHERE x.agent_id = :a AND x.id = ids.id
                               OFFSET 0) e ON true
        LEFT JOIN nb ON nb.id = e.id
        WHERE e.agent_id = :a
        """
    )
    params = {**scope.params(), **bm25_params(terms, "e"), "ids": seeds}
    if embedding is not None:
        params["qv"] = qvec(embedding)
    rows = [
        EventRow(r.id, r.session_id, r.speaker, r.text, r.occurred_at, r.message_id, r.metadata,
                 float(r.kw or 0.0), max(float(r.sim), 0.0) if r.sim is not None else 0.0,
                 r.prev_id, r.next_id, bool(r.seed))
        for r in await fetch(conn, sql, params, stable_plan=True)
    ]
    if not rows:
        return [], 0
    context = LIST_CONTEXT if spread else 1.0
    recent = signals.get("recent_session", {})
    _score(rows, terms, recent, speakers, windows, lexical_share, context, roles=roles)
    rows.sort(key=lambda r: (-r.score, r.occurred_at, r.id))
    if FEEDBACK and len(rows) < max_scan:  # the window's new messages count in event_max_scan
        seeds = [r.id for r in rows[:fbk.FB_DOCS]]
        fb = await fbk.feedback(conn, scope, terms, embedding, seeds, [r.id for r in rows])
        rows += fbk.closest(fb, seeds, max_scan - len(rows))
        for r in rows:
            r.near = fb.near.get(r.id, [])
        _score(rows, terms, recent, speakers, windows, lexical_share, context, feedback=True, roles=roles)
        rows.sort(key=lambda r: (-r.score, r.occurred_at, r.id))
    scored = len(rows)
    top = rows[0].score if rows else 0.0
    rows = [r for r in rows if r.score >= RELATIVE_FLOOR * top]
    rows = spread_sessions(rows, limit, SESSION_DECAY) if spread else rows
    out = [
        ScoredEvent(r.id, r.message_id, json.loads(r.metadata) if r.metadata else {}, r.session_id,
                    r.speaker, r.text, r.occurred_at,
                    round(r.score, 6), {k: round(v, 6) for k, v in sorted(r.parts.items())})
        for r in rows[:limit]
    ]
    return out, scored


def spread_sessions(rows: list[EventRow], limit: int, decay: float) -> list[EventRow]:
    """The top `limit` rows re-ranked so that one session cannot fill the list.

    Greedy: each pick is the row with the best score x decay ** (rows of its session already
    picked, the first SESSION_FREE free), and that discounted score becomes its score (so the
    order stays the order of the scores). Evidence of a list question ("what hobbies does Kate
    have?") lies in many sessions, while one session's turns about the same topic look alike and
    crowd the top ranks. `rows` arrive sorted by score; ties keep that order."""
    if decay >= 1.0 or len(rows) <= 1:
        return rows[:limit]
    out: list[EventRow] = []
    for r, score, before in greedy_spread(rows, lambda r: r.session_id, lambda r: r.score, limit,
                                          SESSION_FREE, decay):
        if before:
            r.parts["session_repeat"] = float(before)
        r.score = score
        out.append(r)
    return out


def lexical_share_of(plan: Any) -> float:
    """The lexical share of the message hybrid from the plan's step weights (lexical_events vs
    semantic_events; LEXICAL_SHARE when the plan has neither weight or only one of the steps)."""
    w: dict[str, float] = {}
    for step in getattr(plan, "steps", []):
        if step.index in ("lexical_events", "semantic_events") and step.combine != "filter_by":
            try:
                w[step.index] = max(w.get(step.index, 0.0), float(step.params.get("weight", 1.0)))
            except (TypeError, ValueError):
                continue
    if len(w) < 2:
        return 1.0 if "lexical_events" in w else 0.0 if "semantic_events" in w else LEXICAL_SHARE
    total = w["lexical_events"] + w["semantic_events"]
    return w["lexical_events"] / total if total > 0 else LEXICAL_SHARE


def _score(rows: list[EventRow], terms: QueryTerms, recent: dict[str, float], speakers: list[str],
           windows: list[TimeWindow], lexical_share: float = LEXICAL_SHARE, context: float = 1.0,
           feedback: bool = False, roles: dict[str, float] | None = None) -> None:
    """Scores in place (module docstring); `context` scales the neighbour-turn terms;
    `feedback`: the second pass, with the rows' `near` (read/feedback.py)."""
    by_id = {r.id: r for r in rows}
    max_kw = max((r.kw for r in rows), default=0.0) or 1.0
    max_sim = max((r.sim for r in rows), default=0.0) or 1.0
    _, _, ideal = terms.weights("e")
    speaker_set = set(speakers)
    for r in rows:
        base = lexical_share * r.kw / max_kw + (1 - lexical_share) * r.sim / max_sim
        r.parts = {"keyword": min(r.kw / ideal, 1.0) if ideal else 0.0, "semantic": r.sim}
        if r.speaker in speaker_set:
            share = roles.get(r.speaker, 1.0) if roles else 1.0  # read/subject.py
            base *= 1 + SPEAKER_BOOST * share
            if share > 0:
                r.parts["speaker"] = share
        if any(w.contains(r.occurred_at) for w in windows):
            base *= 1 + WINDOW_BOOST
            r.parts["time_window"] = 1.0
        if r.id in recent:
            base += RECENT * recent[r.id]
            r.parts["recent"] = recent[r.id]
        r.base = base
    prev: dict[str, str] = {}
    nxt: dict[str, str] = {}
    for r in rows:
        if r.prev_id:
            prev[r.id], nxt[r.prev_id] = r.prev_id, r.id
        if r.next_id:
            nxt[r.id], prev[r.next_id] = r.next_id, r.id
    session_best: dict[str, float] = {}
    for r in rows:
        session_best[r.session_id] = max(session_best.get(r.session_id, 0.0), r.base)
    for r in rows:
        lent_sum = 0.0  # what the neighbouring turns lend r
        p = by_id.get(prev.get(r.id, ""))
        if p is not None:
            w = context * (PREV + (QUESTION if "?" in p.text else 0.0))
            lent_sum += w * p.base
            r.parts["context_prev"] = p.base
        n = by_id.get(nxt.get(r.id, ""))
        if n is not None:
            lent_sum += context * NEXT * n.base
            r.parts["context_next"] = n.base
        lent = _near(r, by_id) if feedback and r.near else 0.0
        if lent > 0:
            lent_sum += context * NEAR * lent
            r.parts["context_near"] = lent
        if speaker_set and r.speaker not in speaker_set:  # read/answering.py: borrowed speaker boost
            lent_sum *= ans.OTHER
        score = r.base + lent_sum + SESSION * session_best[r.session_id]
        ask = ans.ask_factor(r.text)
        if ask < 1.0:  # read/answering.py; on the score: the question still lends its base to the reply
            score *= ask
            r.parts["asks"] = 1.0
        r.score = score
    top = max((r.score for r in rows), default=0.0) or 1.0
    quality = max((0.5 * r.parts["keyword"] + 0.5 * r.sim for r in rows), default=0.0)
    quality = min(max(quality, 0.0), 1.0)
    for r in rows:
        r.parts["relevance"] = r.score / top
        r.score = r.score / top * quality


def _near(r: EventRow, by_id: dict[str, EventRow]) -> float:
    """What the second pass lends `r` from the feedback messages 2..WIDE turns away: the best
    base x NEAR_DECAY ** (distance - 2) among those said by r's own speaker (a speaker going on
    after the other's reaction: "The official opening night is tomorrow" - "congrats!" - "Tomorrow's
    gonna be an awesome night"), scaled down for turns with under NEAR_WORDS words. Without those
    two conditions the window lifted the one-word reactions around a top hit over real evidence
    on the realistic chat (bench/data/realistic-chat.json)."""
    near = [(by_id[s].base, d) for s, d in r.near
            if abs(d) >= 2 and s in by_id and by_id[s].speaker == r.speaker]
    if not near:
        return 0.0
    lent = max(b * NEAR_DECAY ** (abs(d) - 2) for b, d in near)
    return lent * min(1.0, len(_WORD.findall(r.text)) / NEAR_WORDS)
