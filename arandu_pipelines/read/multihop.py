"""Multi-session evidence: a salient phrase of the top hits, searched again in other sessions.

"Where did Caroline move from 4 years ago?" ranks "I've known these friends for 4 years, since I
moved from my home country" first; the answer is in another session, in a turn that shares no
word with the question: "a gift from my grandma in my home country, Sweden". What links the two
turns is a phrase of the first one ("home country"). So after the message ranking ONE more
statement (no model call) bridges from its first TOP_HITS turns to other sessions:

- `phrases`: two adjacent words of 3+ letters, no stop word, no word of the question or of a name,
  taken only from a clause that holds a word of the question (its first STEM letters: "moved"
  for "move"), so the phrase qualifies what is asked about ("moved from my home country"), not
  the small talk around it;
- in SQL: phrases found (as phrases) in 2..MAX_DF messages (more is too common to bridge),
  after dropping, on the write-time term statistics alone, those whose rarest word is in fewer
  than 2 or more than MAX_UB messages (see _ACCEPT, _sql: one probe for all phrases); the
  turns of OTHER sessions holding them, said by the person the question names when it names one;
  most phrases first, then cosine to the question; at most PICKS;
- `merge`: a bridged turn scores SHARE x the ranking's top score x its cosine relative to the best
  bridged turn's (a turn already ranked keeps the better of its two scores).

What else was tried (docs/retrieval.md, "Multi-session evidence"): the person's best turn of
each session by cosine (own turns and the source turns of facts about the person), and the
person's facts by cosine: the missing evidence ranks 30-80th by either, so neither moved R@10.
Bounded (two statements, one index probe, PICKS turns) and deterministic (ties on ids; no clock).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.semantic import qvec
from arandu_pipelines.read.sql import fetch
from arandu_pipelines.read.types import ScoredEvent

ENABLED = True
ALL_QUESTIONS = True  # False: list questions only (read/listq.py); True measured better
TOP_HITS = 2  # the phrases come from the message ranking's first TOP_HITS turns
MAX_PHRASES = 12
MAX_DF = 8  # a phrase in more messages than this is too common to bridge
MAX_UB = 400  # a phrase whose rarest word is in more messages than this is not probed
PICKS = 3  # bridged turns merged into the ranking
SHARE = 0.85  # the best bridged turn scores SHARE x the ranking's top score
CLAUSE_CUE = True  # only phrases in a clause that holds a word of the question (its first STEM letters)
STEM = 4
SHARPNESS = 1.0  # a bridged turn's share falls with its cosine relative to the best one's


@dataclass
class Pick:
    """A turn of another session bridged to, with its cosine to the question."""

    id: str
    message_id: str | None
    metadata: str | None
    session_id: str
    speaker: str | None
    text: str
    occurred_at: datetime
    sim: float


_CLAUSE = re.compile(r"[.!?,;:()\"\n]+|\s[-–—]\s")
_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_STOP = frozenset(["a", "an", "the", "i", "me", "my", "we", "our", "you", "your", "he", "she", "it", "they", "them", "his", "her", "their", "this", "that", "these", "those", "what", "when", "where", "who", "whom", "which", "why", "how", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "have", "has", "had", "of", "in", "on", "at", "to", "for", "from", "with", "about", "and", "or", "not", "no", "yes", "all", "any", "some", "more", "most", "very", "can", "could", "would", "should", "will", "just", "also", "there", "here", "then", "than", "so", "if", "as", "by", "into", "out", "up", "down", "its", "it's", "i'm", "i've", "i'd", "i'll", "you're", "we're", "they're", "that's", "what's", "don't", "didn't", "can't", "won't", "really", "too", "much", "many", "lot", "lots", "got", "get", "gets", "getting", "thing", "things", "stuff", "one", "ones", "like", "love", "loved", "awesome", "great", "cool", "nice", "amazing", "thanks", "thank", "wow", "yeah", "gonna", "wanna", "kinda", "sure", "been", "last", "next", "week", "weeks", "weekend", "day", "days", "year", "years", "time", "times", "ago", "today", "yesterday", "tomorrow", "recently", "lately", "always", "never", "ever", "still", "even", "new", "good", "bad", "made", "make", "making"])


def phrases(texts: list[str], query: str, names: list[str]) -> list[str]:
    """Two-word phrases of the top hits (adjacent words, 3+ letters, no stop word, no word of the
    query or of a name): "my home country" -> "home country", "a pride parade" -> "pride parade".
    In text order, unique, at most MAX_PHRASES."""
    skip = {w.lower() for w in _TOKEN.findall(query)} | {w.lower() for n in names for w in _TOKEN.findall(n)}
    cues = {w[:STEM] for w in skip if len(w) >= 3 and w not in _STOP} - {
        w.lower()[:STEM] for n in names for w in _TOKEN.findall(n)}
    out: list[str] = []
    for clause in (c for text in texts for c in _CLAUSE.split(text)):
        words = [w.lower() for w in _TOKEN.findall(clause)]
        if CLAUSE_CUE and not any(w[:STEM] in cues for w in words if len(w) >= 3):
            continue  # the phrase must qualify a word of the question ("moved from my home country")
        for a, b in itertools.pairwise(words):
            if (len(a) < 3 or len(b) < 3 or a in _STOP or b in _STOP or a in skip or b in skip
                    or a == b):
                continue
            p = f"{a} {b}"
            if p not in out:
                out.append(p)
    return out[:MAX_PHRASES]


# A phrase's document frequency is at most its rarest word's, read from the term statistics kept
# at write time (memory_term_stats, migration 0002: per-agent lexeme df; one primary-key lookup per
# word). A phrase with a word in fewer than 2 messages bridges nothing; one whose rarest word is in
# more than MAX_UB would cost that many rows to check: both are dropped before any index probe.
_ACCEPT = """
    SELECT ph, q::text AS q
    FROM (SELECT * FROM unnest(CAST(:mh_ph AS text[])) WITH ORDINALITY AS x(ph, i) WHERE x.ph <> '') x,
    phraseto_tsquery('english', x.ph) q,
    LATERAL (SELECT min(coalesce((SELECT s.df FROM memory_term_stats s
                                  WHERE s.agent_id = :a AND s.kind = 'e' AND s.lexeme = l), 0)) AS ub
             FROM unnest(tsvector_to_array(to_tsvector('english', x.ph))) l) u
    WHERE numnode(q) > 1 AND u.ub BETWEEN 2 AND :mh_maxub
    ORDER BY x.i
"""


async def accepted(conn: AsyncConnection, agent_id: str, ph: list[str]) -> list[Any]:
    """The phrases worth probing (rows `ph`, `q`: the phrase's tsquery as text), in `ph`'s order.
    Prepared: its plan is primary-key lookups for any agent. The array is padded with '' to
    MAX_PHRASES elements: a generic plan assumes 10, so for fewer phrases the custom plans looked
    cheaper and Postgres planned every call again (10 custom plans of 10 calls, measured)."""
    padded = list(ph) + [""] * (MAX_PHRASES - len(ph))
    return await fetch(conn, _ACCEPT, {"a": agent_id, "mh_ph": padded, "mh_maxub": MAX_UB}, stable_plan=True)


def _sql(where_e: str, with_speakers: bool) -> str:
    """The phrases kept by _ACCEPT, searched with ONE probe of the text index (agent_id leads it)
    for all of them at once: their OR'ed tsquery is a bound constant, so the planner estimates
    it from the column's statistics (a rare phrase: the GIN index) and the probe is one pass over
    the GIN pending list however many phrases, rechecking at most MAX_UB rows per phrase whatever
    the table's size. Per phrase, its messages are counted among those rows (no count probe per
    phrase, no second probe); the phrases found in 2..MAX_DF messages bridge to their turns of
    other sessions."""
    who = "AND m.speaker = ANY(CAST(:mh_speakers AS text[]))" if with_speakers else ""
    return f"""
    WITH p AS MATERIALIZED (
        SELECT ph, phraseto_tsquery('english', ph) AS q FROM unnest(CAST(:mh_ph AS text[])) ph
    ), c AS MATERIALIZED (
        SELECT e.id, e.session_id, e.speaker, e.search_vector FROM memory_events e
        WHERE e.agent_id = :a AND e.search_vector @@ CAST(:mh_q AS tsquery) AND {where_e}
    ), m AS (
        SELECT c.id, c.session_id, c.speaker, count(*) OVER (PARTITION BY p.ph) AS df
        FROM p JOIN c ON c.search_vector @@ p.q
    ), hit AS (
        SELECT m.id, count(*) AS k FROM m
        WHERE m.df BETWEEN 2 AND :mh_maxdf AND NOT (m.session_id = ANY(CAST(:mh_sessions AS text[]))) {who}
        GROUP BY m.id
    )
    SELECT e.id::text AS id, e.message_id, e.metadata::text AS metadata, e.session_id, e.speaker,
           e.text, e.occurred_at, hit.k, 1 - (e.embedding_vec <=> CAST(:qv AS vector)) AS sim
    FROM hit JOIN memory_events e ON e.agent_id = :a AND e.id = hit.id
    ORDER BY hit.k DESC, sim DESC NULLS LAST, e.id
    LIMIT :mh_limit
    """


async def bridge(conn: AsyncConnection, scope: Scope, embedding: list[float] | None, query: str,
                 speakers: list[str], top: list[ScoredEvent]) -> list[Pick]:
    """Turns of OTHER sessions than the top hits' that repeat a salient phrase of the top hits
    (a phrase found in more than MAX_DF messages is too common to bridge), said by the person the
    question names when it names one; most phrases, then cosine, first. Two statements: the
    phrases worth probing (term statistics only, prepared), then one probe for all of them
    (planned with its tsquery known, so never prepared: a generic plan cannot see how rare it is)."""
    if not ENABLED or embedding is None or not top:
        return []
    head = top[:TOP_HITS]
    ph = phrases([e.text for e in head], query, speakers)
    if not ph:
        return []
    kept = await accepted(conn, scope.agent_id, ph)
    if not kept:
        return []
    sql = _sql(scope.events("e"), bool(speakers))
    params = {**scope.params(), "qv": qvec(embedding), "mh_speakers": sorted(speakers),
              "mh_ph": [r.ph for r in kept], "mh_q": " | ".join(f"({r.q})" for r in kept),
              "mh_sessions": sorted({e.session_id for e in head}), "mh_maxdf": MAX_DF, "mh_limit": PICKS}
    rows = await fetch(conn, sql, params)
    return [Pick(r.id, r.message_id, r.metadata, r.session_id, r.speaker, r.text, r.occurred_at,
                 max(float(r.sim), 0.0) if r.sim is not None else 0.0) for r in rows]


def merge(events: list[ScoredEvent], picks: list[Pick], limit: int) -> list[ScoredEvent]:
    """`events` (the message ranking, best first) with the picks' shares merged in, cut to `limit`."""
    if not picks or not events:
        return events
    top = events[0].score
    best = max(p.sim for p in picks) or 1.0
    by_id = {e.event_id: e for e in events}
    out = list(events)
    for p in picks:
        share = round(SHARE * top * max(p.sim / best, 0.0) ** SHARPNESS, 6)
        e = by_id.get(p.id)
        if e is not None:
            if share > e.score:
                e.score = share
                e.scores["session_pick"] = share
            continue
        e = ScoredEvent(p.id, p.message_id, json.loads(p.metadata) if p.metadata else {}, p.session_id,
                        p.speaker, p.text, p.occurred_at, share, {"session_pick": share})
        by_id[p.id] = e
        out.append(e)
    order = {e.event_id: i for i, e in enumerate(events)}
    out.sort(key=lambda e: (-e.score, order.get(e.event_id, len(order)), e.event_id))
    return out[:limit]
