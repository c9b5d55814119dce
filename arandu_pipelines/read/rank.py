"""Merge and rank facts: every candidate, whatever step found it, is scored on every signal.

The candidates of all steps are loaded in one statement that also computes each one's cosine
similarity and BM25 (so a fact found only through the graph still gets its semantic score).
Then, per fact (spec formula, with the lexical and graph signals folded into relevance):

    relevance  = the plan's fusion of the candidate's score on each fact index of the plan
                 (executor.fuse_scores; by default the weighted union
                 1 - (1 - (1-lam) semantic)(1 - lam keyword)(1 - g graph)(1 - 0.5 aggregation),
                 lam = score_weights["keyword"] (0.35), g = score_weights["graph"] (0.5)),
                 max with spreading activation, x1.2 inside a query time window (capped at 1)
    importance = the stored importance, evolved by use in the background (read/importance.py)
    formula    = min(1, w_sem * relevance + w_rec * recency + w_imp * importance  (0.70/0.20/0.10)
                        + pattern)                     (reinforcement boost, up to +0.10)
                 x status penalty (stale 0.5; contradicted 0.3, OpenMem)       (so formula in [0, 1])

Confidence is not in the formula (spec: "present in the scores dict for debugging, but NOT part of
the weighted formula"): `scores["confidence"]` is the decayed value, the stored one is the
min_confidence filter.

Supersession (OpenMem status "superseded", x0.5): facts whose validity closed before the reference
time (only reachable through a caller's scope), and, when the query asks about the present ("now",
"currently", "atualmente"...), every fact of an entity's topic older than that topic's newest
fact. A topic is a family of single-valued attributes (work = employer/occupation/school, home =
location, partner = partner/relationship_status), inferred from the text for facts stored
without an attribute ("still working at Acme" is about work).

Conflict resolution (OpenMem `contradicts`): two active candidates joined by a stored edge
(write/contradicts.py: reconciliation or consolidation found them), giving different values of
one single-valued attribute of one entity, or two statements about one entity that differ only
by a negation ("Ana likes sushi" / "Ana doesn't like sushi"), contradict each other; the weaker
(confidence x recency x reinforcement) is multiplied by 0.3. Ties are broken on ids, never on set order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import SINGLE_VALUED_ATTRIBUTES, normalize_fact_text
from arandu_pipelines.read.executor import fuse_scores
from arandu_pipelines.read.lexical import QueryTerms, bm25_expr, bm25_params, n_terms
from arandu_pipelines.read.plan import PlanStep, RetrievalPlan
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.semantic import qvec
from arandu_pipelines.read.sql import fetch
from arandu_pipelines.read.temporal import TimeWindow
from arandu_pipelines.write.contradicts import is_negated, polarity_key

DEFAULT_KEYWORD_SHARE = 0.35
DEFAULT_GRAPH_WEIGHT = 0.5
STALE_PENALTY = 0.5
CONTRADICTED_PENALTY = 0.3
SUPERSEDED_PENALTY = 0.5
WINDOW_BOOST = 0.2
TOPIC_OF_ATTRIBUTE = {"employer": "work", "occupation": "work", "school": "work", "job": "work",
                      "location": "home", "partner": "partner", "relationship_status": "partner"}
_TOPIC_CUES = [  # (topic, words in a fact stored without an attribute), EN + PT
    ("work", re.compile(r"\b(?:work(?:s|ed|ing)?|job|employ\w*|hired|company|engineer|developer|"
                        r"trabalh\w*|emprego|empresa|contratad[oa])\b", re.IGNORECASE)),
    ("home", re.compile(r"\b(?:lives?|lived|living|moved (?:to|into)|relocated|mora\w*|mudou|"
                        r"reside\w*)\b", re.IGNORECASE)),
    ("partner", re.compile(r"\b(?:girlfriend|boyfriend|wife|husband|married|partner|namorad[oa]|"
                           r"casad[oa]|esposa|marido)\b", re.IGNORECASE)),
]
MAX_PATTERN_BOOST = 0.10


@dataclass
class FactCandidate:
    id: str
    entity_key: str
    entity_name: str
    entity_type: str
    attribute_key: str | None
    fact_text: str
    confidence: float
    importance: float
    valid_from: datetime
    valid_to: datetime | None
    event_date: datetime | None
    source_event_id: str | None
    source_message_id: str | None
    speaker: str | None
    session_id: str | None
    reinforcement_count: int
    is_stale: bool
    last_confirmed_at: datetime | None
    times_retrieved: int = 0
    last_retrieved_at: datetime | None = None
    user_correction_count: int = 0
    cluster_id: str | None = None
    semantic: float = 0.0
    kw: float = 0.0
    links: list[str] = field(default_factory=list)
    source: tuple[Any, ...] | None = None  # (metadata json, session, speaker, occurred_at, text)
    signals: dict[str, float] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    formula: float = 0.0
    score: float = 0.0


async def load_candidates(
    conn: AsyncConnection,
    scope: Scope,
    ids: list[str],
    terms: QueryTerms,
    embedding: list[float] | None,
) -> list[FactCandidate]:
    if not ids:
        return []
    sim = "1 - (t.embedding_vec <=> CAST(:qv AS vector))" if embedding is not None else "NULL"
    # the source message is read by id (LATERAL ... OFFSET 0): one primary-key
    # probe per row whatever the estimates, never a scan of the agent's rows (docs/retrieval.md,
    # "Tails under import")
    sql = (
        f"""
        SELECT t.id::text AS id, t.entity_key, coalesce(t.entity_name, t.entity_key) AS entity_name,
               t.entity_type, t.attribute_key, t.fact_text, t.confidence, t.importance, t.valid_from,
               t.valid_to, t.event_date, t.source_event_id::text AS source_event_id,
               ev.message_id AS source_message_id, ev.metadata::text AS src_meta,
               ev.session_id AS src_session, ev.speaker AS src_speaker, ev.occurred_at AS src_at,
               ev.text AS src_text, t.speaker, t.session_id, t.reinforcement_count,
               t.is_stale, t.last_confirmed_at, t.times_retrieved, t.last_retrieved_at,
               t.user_correction_count, t.cluster_id::text AS cluster_id, {sim} AS sim, {bm25_expr('t', n_terms(terms, 'f'))} AS kw,
               ARRAY(SELECT l.entity_key FROM memory_fact_entity_links l WHERE l.fact_id = t.id
                     ORDER BY l.entity_key) AS links
        FROM memory_facts t LEFT JOIN LATERAL (SELECT x.* FROM memory_events x WHERE x.agent_id = :a
                                              AND x.id = t.source_event_id OFFSET 0) ev ON true
        WHERE t.agent_id = :a AND t.id = ANY(CAST(:ids AS uuid[])) AND {scope.facts('t')}
        """
    )
    params: dict[str, Any] = {**scope.params(), **bm25_params(terms, "f"), "ids": ids}
    if embedding is not None:
        params["qv"] = qvec(embedding)
    out = [
        FactCandidate(
            r.id, r.entity_key, r.entity_name, r.entity_type, r.attribute_key, r.fact_text,
            float(r.confidence), float(r.importance), r.valid_from, r.valid_to, r.event_date,
            r.source_event_id, r.source_message_id, r.speaker, r.session_id,
            int(r.reinforcement_count or 0), bool(r.is_stale), r.last_confirmed_at,
            int(r.times_retrieved or 0), r.last_retrieved_at, int(r.user_correction_count or 0), r.cluster_id,
            max(float(r.sim), 0.0) if r.sim is not None else 0.0, float(r.kw or 0.0),
            sorted(set(r.links or []) | {r.entity_key}),
            (r.src_meta, r.src_session, r.src_speaker, r.src_at, r.src_text) if r.source_event_id else None,
        )
        for r in await fetch(conn, sql, params, stable_plan=True)
    ]
    out.sort(key=lambda c: c.id)
    return out


def _days(a: datetime, b: datetime | None) -> float:
    if b is None:
        return 0.0
    return max((a - b).total_seconds() / 86400.0, 0.0)


FACT_INDEXES = frozenset({"semantic_facts", "lexical_facts", "graph", "pattern_query"})
AGGREGATION_WEIGHT = 0.5


def default_weights(config: MemoryConfig) -> dict[str, float]:
    """Step weights when a plan does not set them: semantic 1 - lam, lexical lam (lam =
    score_weights["keyword"]), graph score_weights["graph"], aggregation hits 0.5."""
    w = config.score_weights
    lam = float(w.get("keyword", DEFAULT_KEYWORD_SHARE))
    return {"semantic_facts": 1 - lam, "lexical_facts": lam,
            "graph": float(w.get("graph", DEFAULT_GRAPH_WEIGHT)), "pattern_query": AGGREGATION_WEIGHT}


def default_plan(config: MemoryConfig) -> RetrievalPlan:
    """The fact steps of the deterministic plan (for callers that rank without executing one)."""
    weights = default_weights(config)
    steps = [PlanStep(i, idx, {"weight": weights[idx]}, "default") for i, idx in
             enumerate(("lexical_facts", "semantic_facts", "graph", "pattern_query"), start=1)]
    return RetrievalPlan(analysis="default", steps=steps)


def score_facts(
    cands: list[FactCandidate],
    terms: QueryTerms,
    config: MemoryConfig,
    reference: datetime,
    windows: list[TimeWindow],
    plan: RetrievalPlan | None = None,
    fact_indexes: frozenset[str] | set[str] = frozenset(),
    present: bool = False,
    edges: Sequence[tuple[str, str]] = (),
) -> None:
    """Fill scores/formula/score of every candidate (in place) per the module docstring.
    Relevance is the plan's fusion (executor.fuse_scores) of every candidate's score on every
    fact index of the plan; `fact_indexes` names extra (registered) indexes returning facts."""
    w = config.score_weights
    w_sem, w_rec, w_imp = float(w.get("semantic", 0.7)), float(w.get("recency", 0.2)), float(w.get("importance", 0.1))
    _, _, ideal = terms.weights("f")
    half_life = max(float(config.recency_half_life_days), 1e-6)
    if plan is None:
        plan = default_plan(config)
    per_index: dict[str, dict[str, float]] = {"semantic_facts": {}, "lexical_facts": {}, "graph": {},
                                              "pattern_query": {}}
    for c in cands:
        for idx, v in c.signals.items():
            if idx != "spreading":
                per_index.setdefault(idx, {})[c.id] = v
        per_index["semantic_facts"][c.id] = c.semantic  # every candidate's cosine and BM25, not
        per_index["lexical_facts"][c.id] = min(c.kw / ideal, 1.0) if ideal else 0.0  # only hits'
    fused = fuse_scores(plan, per_index, fact_indexes | FACT_INDEXES, default_weights(config))
    for c in cands:
        keyword = per_index["lexical_facts"][c.id]
        graph = c.signals.get("graph", 0.0)
        aggregation = c.signals.get("pattern_query", 0.0)
        relevance = fused.get(c.id, 0.0)
        spreading = c.signals.get("spreading", 0.0)
        relevance = max(relevance, spreading)
        in_window = any(win.contains(c.valid_from) or win.contains(c.event_date) for win in windows)
        if in_window:
            relevance = min(1.0, relevance * (1 + WINDOW_BOOST))
        recency = 2 ** (-_days(reference, c.valid_from) / half_life)
        # the stored importance (spec: "raw importance value from the database"), which the
        # background importance job evolves by use (read/importance.py); clamped to the score's
        # [0, 1] (compute_dynamic_importance goes up to 3)
        importance = min(max(c.importance, 0.0), 1.0)
        weeks = _days(reference, c.last_confirmed_at or c.valid_from) / 7.0
        eff_conf = c.confidence * max(0.5, 0.99 ** weeks)
        pattern = min(MAX_PATTERN_BOOST, 0.02 * c.reinforcement_count)
        formula = min(1.0, w_sem * relevance + w_rec * recency + w_imp * importance + pattern)
        status = STALE_PENALTY if c.is_stale else 1.0
        if c.valid_to is not None and c.valid_to <= reference:
            status = min(status, SUPERSEDED_PENALTY)
        c.scores = {"semantic": c.semantic, "keyword": keyword, "relevance": relevance,
                    "recency": recency, "importance": importance, "confidence": eff_conf}
        if graph:
            c.scores["graph"] = graph
        if aggregation:
            c.scores["aggregation"] = aggregation
        if spreading:
            c.scores["spreading"] = spreading
        if pattern:
            c.scores["pattern"] = pattern
        if in_window:
            c.scores["time_window"] = 1.0
        if status != 1.0:
            c.scores["status_penalty"] = status
        c.formula = formula * status
        c.scores["formula"] = c.formula
        c.score = c.formula
    if present:
        _supersede_older(cands)
    _resolve_conflicts(cands, reference, edges)


def topic(c: FactCandidate) -> str | None:
    """The single-valued topic a fact speaks about (see the module docstring), or None."""
    if c.attribute_key:
        return TOPIC_OF_ATTRIBUTE.get(c.attribute_key)
    for name, rx in _TOPIC_CUES:
        if rx.search(c.fact_text):
            return name
    return None


def _supersede_older(cands: list[FactCandidate]) -> None:
    """For a query about the present: within each (entity, topic), facts older than the newest
    one are superseded (x SUPERSEDED_PENALTY), the newest keeps its score."""
    groups: dict[tuple[str, str], list[FactCandidate]] = {}
    for c in cands:
        t = topic(c)
        if t is not None and c.valid_to is None:
            groups.setdefault((c.entity_key, t), []).append(c)
    for members in groups.values():
        newest = max(m.valid_from for m in members)
        for m in members:
            if m.valid_from < newest and "superseded" not in m.scores:
                m.score *= SUPERSEDED_PENALTY
                m.formula = m.score
                m.scores["superseded"] = 1.0
                m.scores["status_penalty"] = m.scores.get("status_penalty", 1.0) * SUPERSEDED_PENALTY
                m.scores["formula"] = m.formula


_is_negated = is_negated  # the polarity test lives with the edges it also serves


def _conflict_groups(cands: list[FactCandidate],
                     edges: Sequence[tuple[str, str]] = ()) -> list[list[FactCandidate]]:
    """Candidates that contradict each other (OpenMem `contradicts` edges): the stored edges
    (write/contradicts.py: found by reconciliation or consolidation) between active candidates,
    and, found at read time, active values of one single-valued attribute of one entity and
    active statements about one entity that differ only by a negation ("likes sushi" /
    "doesn't like sushi")."""
    by_attr: dict[tuple[str, str], list[FactCandidate]] = {}
    by_polarity: dict[tuple[str, str], list[FactCandidate]] = {}
    # only entities with a negated statement can hold a polarity conflict (cheap test first)
    negated = {c.entity_key for c in cands if c.valid_to is None and _is_negated(c.fact_text)}
    for c in cands:
        if c.valid_to is not None:
            continue
        if c.attribute_key in SINGLE_VALUED_ATTRIBUTES:
            by_attr.setdefault((c.entity_key, c.attribute_key), []).append(c)
        if c.entity_key in negated:
            key, _ = polarity_key(c.fact_text)
            if key:
                by_polarity.setdefault((c.entity_key, key), []).append(c)
    out = [m for m in by_attr.values() if len({normalize_fact_text(x.fact_text) for x in m}) > 1]
    out += [m for m in by_polarity.values() if len({polarity_key(x.fact_text)[1] for x in m}) > 1]
    if edges:
        active = {c.id: c for c in cands if c.valid_to is None}
        out += [[active[a], active[b]] for a, b in edges if a in active and b in active]
    return out


def _resolve_conflicts(cands: list[FactCandidate], reference: datetime,
                       edges: Sequence[tuple[str, str]] = ()) -> None:
    """The weaker side of each conflict (effective strength = confidence x recency x
    reinforcement, OpenMem) is multiplied by CONTRADICTED_PENALTY (once, however many conflicts)."""

    def strength(m: FactCandidate) -> tuple[float, float, str]:
        rec = math.exp(-_days(reference, m.valid_from) / 180.0)
        return (m.confidence * rec * (1 + 0.1 * m.reinforcement_count), m.valid_from.timestamp(), m.id)

    losers: dict[str, FactCandidate] = {}
    for members in _conflict_groups(cands, edges):
        winner = max(members, key=strength)
        wkey = (normalize_fact_text(winner.fact_text), polarity_key(winner.fact_text)[1])
        for m in members:
            if m is not winner and (normalize_fact_text(m.fact_text), polarity_key(m.fact_text)[1]) != wkey:
                losers[m.id] = m
    for m in losers.values():
        m.score *= CONTRADICTED_PENALTY
        m.formula = m.score
        m.scores["status_penalty"] = m.scores.get("status_penalty", 1.0) * CONTRADICTED_PENALTY
        m.scores["contradicted"] = 1.0
        m.scores["formula"] = m.formula


def order(cands: list[FactCandidate]) -> list[FactCandidate]:
    return sorted(cands, key=lambda c: (-round(c.score, 9), c.id))
