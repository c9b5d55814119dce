"""Reconciliation: ADD / UPDATE / NOOP / DELETE for each proposed fact.

Offline decision rules, applied in this order (the first that fires wins):

1. Retraction ("no longer", "moved from", "quit", "left"): every active fact of the same subject
   and attribute whose value matches the retracted value is closed (DELETE); the retraction
   statement itself is then stored as a past value, attribute `<attr>.former` (so a new employer
   does not supersede "no longer works at Acme"), and reconciled like any other fact.
   Conversely a new value of a single-valued attribute closes a `<attr>.former` statement about
   that same value ("works at Acme" again ends "no longer works at Acme").
2. Exact duplicate (same subject, same text ignoring case/accents/punctuation): NOOP, reinforce.
3. Same single-valued attribute (location, employer, occupation, ...) of the same subject:
   same value -> NOOP; new value -> UPDATE (the old fact is closed and superseded).
4. The negation of an active fact of the subject ("likes sushi" / "doesn't like sushi"): ADD,
   both stay active, joined by a `contradicts` edge (write/contradicts.py; the read side demotes
   the weaker). Before rule 5: a negation is close in embedding space but never a restatement.
5. Near-identical by embedding (cosine >= reconcile_noop_above, default 0.92): NOOP, reinforce.
5b. Restatement from another message (write/restatements.py: shared content words, the texts'
   cosine with the subject's name masked >= reconcile_restatement_above, default 0.85): NOOP,
   reinforce. Rules 2, 5 and 5b never join two different events (other resolved date, or each
   naming something the other does not: `restatements.distinct_events`).
6. Ambiguous (cosine >= reconcile_add_below, default 0.50) with an LLM configured: the LLM
   decides (slow path); on any LLM failure -> ADD.
7. Otherwise ADD (fast path).

"Same value" (`same_value`) is folded equality, or one organisation with and without its legal
form ("Acme" / "Acme Corp"). A proposal flagged as a user correction (`corrections.py`) that
UPDATEs a different value counts one correction on the corrected fact (`corrected`).

NOOP updates `last_confirmed_at` and `reinforcement_count`. Everything the rules need from the
database is fetched for a whole chunk in two set-based queries before the rules run; facts created
earlier in the same chunk are compared in memory, so chunked imports decide exactly as one-by-one
writes would.
"""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import (
    SINGLE_VALUED_ATTRIBUTES,
    fold,
    normalize_fact_text,
    org_core,
)
from arandu_pipelines.store.engine import vecs
from arandu_pipelines.write import restatements
from arandu_pipelines.write.contradicts import negates
from arandu_pipelines.write.fact_words import GENERIC_ATTRIBUTES, masked, stems
from arandu_pipelines.write.types import ExtractedFact


@dataclass
class ActiveFact:
    id: str
    entity_key: str
    attribute_key: str | None
    value_text: str | None
    fact_text: str
    valid_from: datetime
    confidence: float = 0.8
    embedding: np.ndarray | None = None  # only for facts created in this chunk
    in_chunk: bool = False
    origin: str = ""  # message + source sentence, for facts created in this chunk
    name: str = ""  # the subject's name as stored (masked by write/restatements.py)
    event_date: datetime | None = None  # the date an event fact refers to, when one was resolved
    msg: int = -1  # index of the message in this chunk, for facts created in this chunk

    @cached_property
    def norm(self) -> str:
        return normalize_fact_text(self.fact_text)


@dataclass
class Proposal:
    """A fact proposed by extraction (or a mirror fact), bound to its resolved subject."""

    msg: int
    fact: ExtractedFact
    subject_key: str
    subject_name: str
    subject_type: str
    text: str
    attribute_key: str | None
    value: str | None
    importance: float
    confidence: float
    category: str
    occurred_at: datetime
    mention_keys: list[str] = field(default_factory=list)
    is_mirror: bool = False
    embedding: np.ndarray | None = None
    # a user correction ("actually it's ..."): superseding a value counts on the corrected fact
    correction: bool = False
    bare: object | None = None  # corrections.BareCorrection until bound to the fact it corrects
    # decision
    action: str = ""
    fact_id: str | None = None
    target: ActiveFact | None = None
    deleted: list[ActiveFact] = field(default_factory=list)
    historical_until: datetime | None = None
    reason: str = ""
    # active facts of the subject this ADDed fact negates (write/contradicts.py: `contradicts` edges)
    contradicts: list[ActiveFact] = field(default_factory=list)

    @property
    def origin(self) -> str:
        """Facts restating the same sentence share its vector; their similarity means nothing."""
        return f"{self.msg}\x1f{self.fact.source_text or self.text}"

    @cached_property
    def norm(self) -> str:
        return normalize_fact_text(self.text)


@dataclass
class Candidates:
    similar: list[tuple[ActiveFact, float]]  # from the database, best first
    same_attribute: list[ActiveFact]
    former: list[ActiveFact] = field(default_factory=list)  # active `<attr>.former` statements
    # active facts of the subject sharing the proposal's words (write/restatements.py `fetch`)
    lexical: list[ActiveFact] = field(default_factory=list)


def former_key(attribute_key: str) -> str:
    return f"{attribute_key}.former"[:64]


LLMDecider = Callable[[Proposal, list[tuple[ActiveFact, float]]], Awaitable[tuple[str, ActiveFact | None] | None]]


async def fetch_candidates(
    conn: AsyncConnection, agent_id: str, proposals: list[Proposal]
) -> list[Candidates]:
    """Two set-based queries: top-3 similar active facts of each subject; same-attribute facts."""
    sims: list[list[tuple[ActiveFact, float]]] = [[] for _ in proposals]
    idx = [i for i, p in enumerate(proposals) if p.embedding is not None]
    if idx:
        rows = (
            await conn.execute(
                text(
                    "SELECT q.i, f.id, f.entity_key, f.attribute_key, f.value_text, f.fact_text, "
                    "f.valid_from, f.confidence, f.entity_name, f.event_date, f.sim "
                    "FROM unnest(CAST(:keys AS text[]), CAST(:vecs AS vector[])) "
                    "WITH ORDINALITY AS q(k, v, i) CROSS JOIN LATERAL ("
                    " SELECT id, entity_key, attribute_key, value_text, fact_text, valid_from, "
                    " confidence, entity_name, event_date, 1 - (embedding_vec <=> q.v) AS sim "
                    " FROM memory_facts "
                    " WHERE agent_id = :a AND entity_key = q.k AND valid_to IS NULL "
                    " AND embedding_vec IS NOT NULL ORDER BY embedding_vec <=> q.v LIMIT 3) f"
                ),
                {
                    "a": agent_id,
                    "keys": [proposals[i].subject_key for i in idx],
                    "vecs": vecs(proposals[i].embedding for i in idx),
                },
            )
        ).all()
        for r in rows:
            sims[idx[r.i - 1]].append((_active(r), float(r.sim)))
    pairs = sorted({(p.subject_key, p.attribute_key) for p in proposals if p.attribute_key}
                   | {(p.subject_key, former_key(p.attribute_key)) for p in proposals
                      if p.attribute_key in SINGLE_VALUED_ATTRIBUTES})
    by_attr: dict[tuple[str, str], list[ActiveFact]] = defaultdict(list)
    if pairs:
        rows = (
            await conn.execute(
                text(
                    "SELECT f.id, f.entity_key, f.attribute_key, f.value_text, f.fact_text, "
                    "f.valid_from, f.confidence, f.entity_name, f.event_date FROM memory_facts f "
                    "JOIN unnest(CAST(:keys AS text[]), CAST(:attrs AS text[])) AS q(k, at) "
                    "ON f.entity_key = q.k AND f.attribute_key = q.at "
                    "WHERE f.agent_id = :a AND f.valid_to IS NULL ORDER BY f.valid_from, f.id"
                ),
                {"a": agent_id, "keys": [k for k, _ in pairs], "attrs": [a for _, a in pairs]},
            )
        ).all()
        for r in rows:
            by_attr[(r.entity_key, r.attribute_key)].append(_active(r))
    return [
        Candidates(
            sims[i],
            by_attr.get((p.subject_key, p.attribute_key or ""), []),
            by_attr.get((p.subject_key, former_key(p.attribute_key)), []) if p.attribute_key else [],
        )
        for i, p in enumerate(proposals)
    ]


def _active(r: Any) -> ActiveFact:
    return ActiveFact(str(r.id), r.entity_key, r.attribute_key, r.value_text, r.fact_text,
                      r.valid_from, float(r.confidence), name=r.entity_name or "",
                      event_date=r.event_date)

# ---- restatements across messages (the rule: write/restatements.py) ----------------------------
RESTATED_PER_PROPOSAL = 5  # stored facts fetched per proposal by the full-text query
_QUERY_WORD = re.compile(r"[a-z]{3,}")


def _restatable(p: Proposal) -> bool:
    return not (p.is_mirror or p.fact.retracts or p.bare is not None)


def _slot(attribute_key: str | None) -> str | None:
    return attribute_key if attribute_key and attribute_key not in GENERIC_ATTRIBUTES else None


async def fetch_restated(conn: AsyncConnection, agent_id: str, proposals: list[Proposal]) -> list[list[ActiveFact]]:
    """Active facts of each proposal's subject sharing its words (full-text, one query): what a
    restatement may repeat, whatever the vectors of the sentences they came from."""
    out: list[list[ActiveFact]] = [[] for _ in proposals]
    idx, queries = [], []
    for i, p in enumerate(proposals):
        words = sorted(set(_QUERY_WORD.findall(masked(p.text, p.subject_name).lower())))
        if _restatable(p) and len(words) >= restatements.MIN_SHARED:
            idx.append(i)
            queries.append(" | ".join(words))
    if not idx:
        return out
    rows = (await conn.execute(text(
        "SELECT q.i, f.id, f.entity_key, f.attribute_key, f.value_text, f.fact_text, f.valid_from, "
        "f.confidence, f.entity_name, f.event_date "
        "FROM unnest(CAST(:keys AS text[]), CAST(:qs AS text[])) WITH ORDINALITY AS q(k, qs, i) "
        "CROSS JOIN LATERAL (SELECT id, entity_key, attribute_key, value_text, fact_text, valid_from, "
        " confidence, entity_name, event_date FROM memory_facts "
        " WHERE agent_id = :a AND entity_key = q.k AND valid_to IS NULL "
        " AND search_vector @@ to_tsquery('english', q.qs) "
        " ORDER BY ts_rank(search_vector, to_tsquery('english', q.qs)) DESC, id "
        f" LIMIT {RESTATED_PER_PROPOSAL}) f"),
        {"a": agent_id, "keys": [proposals[i].subject_key for i in idx], "qs": queries})).all()
    for r in rows:
        out[idx[r.i - 1]].append(_active(r))
    return out


def restatement_texts(proposals: list[Proposal], stored: list[list[ActiveFact]]) -> list[str]:
    """Masked texts of the pairs `Reconciler._restated` may compare: a proposal and a stored
    candidate, or two proposals of one subject from different messages, that pass the word gate."""
    out: dict[str, None] = {}
    seen: dict[str, list[tuple[int, str, frozenset[str]]]] = defaultdict(list)
    for p, cands in zip(proposals, stored, strict=True):
        if not _restatable(p):
            continue
        pt = masked(p.text, p.subject_name)
        ps = stems(pt)
        for f in cands:
            ft = masked(f.fact_text, f.name or p.subject_name)
            if restatements.word_gate(ps, stems(ft)):
                out[pt] = out[ft] = None
        for msg, t, s in seen[p.subject_key]:
            if msg != p.msg and restatements.word_gate(ps, s):
                out[pt] = out[t] = None
        seen[p.subject_key].append((p.msg, pt, ps))
    return list(out)



def _value_matches(value: str | None, fact: ActiveFact) -> bool:
    """Retraction targeting: the retracted value is the fact's value or is named in its text."""
    if not value:
        return True
    v = fold(value)
    return v == fold(fact.value_text or "") or v in fold(fact.fact_text)


def same_value(a: str | None, b: str | None) -> bool:
    """Two values of an attribute name the same thing: equal once folded, or the same
    organisation with and without its legal form ("Acme" / "Acme Corp")."""
    if not a or not b:
        return False
    return fold(a) == fold(b) or org_core(a) == org_core(b)


def _same_value(value: str | None, fact: ActiveFact) -> bool:
    """Restatement: only a stored value that equals the new one counts (a retraction statement
    naming the old value, or a fact without a value, is not the same value)."""
    return same_value(value, fact.value_text)


class _SubjectFacts:
    """Facts of one subject created in this chunk, with a growable embedding matrix so each
    proposal is compared with all of them in one vectorised product."""

    def __init__(self, dim: int) -> None:
        self.facts: list[ActiveFact] = []
        self.by_norm: dict[str, ActiveFact] = {}
        self.matrix = np.zeros((8, dim), dtype=np.float32)
        self.rows: list[int] = []  # fact index per matrix row

    def add(self, f: ActiveFact) -> None:
        self.facts.append(f)
        self.by_norm.setdefault(f.norm, f)
        if f.embedding is None:
            return
        if not self.rows and self.matrix.shape[1] != f.embedding.shape[0]:
            self.matrix = np.zeros((8, f.embedding.shape[0]), dtype=np.float32)
        n = len(self.rows)
        if n == self.matrix.shape[0]:
            self.matrix = np.vstack([self.matrix, np.zeros_like(self.matrix)])
        self.matrix[n] = f.embedding
        self.rows.append(len(self.facts) - 1)

    def similar(self, emb: np.ndarray, k: int) -> list[tuple[ActiveFact, float]]:
        n = len(self.rows)
        if n == 0:
            return []
        sims = self.matrix[:n] @ emb
        top = np.argsort(-sims, kind="stable")[: k]
        return [(self.facts[self.rows[i]], float(sims[i])) for i in top]


class Reconciler:
    """Decides proposals in order, tracking what this chunk closed and created."""

    def __init__(self, config: MemoryConfig, llm_decide: LLMDecider | None = None) -> None:
        self.config = config
        self.llm_decide = llm_decide
        self.closed: set[str] = set()
        self.chunk_facts: dict[str, _SubjectFacts] = {}
        self.reinforced: dict[str, int] = defaultdict(int)
        self.corrected: dict[str, int] = defaultdict(int)  # fact id -> user corrections
        self.llm_calls = 0
        self.llm_failures = 0
        # masked fact texts -> vectors, for the restatement rule (write/restatements.py)
        self.restate_vectors: dict[str, np.ndarray] = {}

    def _open(self, facts: list[ActiveFact]) -> list[ActiveFact]:
        return [f for f in facts if f.id not in self.closed]

    def _subject(self, p: Proposal) -> _SubjectFacts | None:
        return self.chunk_facts.get(p.subject_key)

    def _similar(self, p: Proposal, cands: Candidates) -> list[tuple[ActiveFact, float]]:
        out = [(f, s) for f, s in cands.similar if f.id not in self.closed]
        mem = self._subject(p)
        if p.embedding is not None and mem is not None:
            out.extend(fs for fs in mem.similar(p.embedding, 8)
                       if fs[0].id not in self.closed and fs[0].origin != p.origin)
        out.sort(key=lambda fs: (-fs[1], fs[0].id))
        return out

    def _same_attribute(self, p: Proposal, cands: Candidates) -> list[ActiveFact]:
        mem = self._subject(p)
        local = [f for f in mem.facts if f.attribute_key == p.attribute_key] if mem and p.attribute_key else []
        return self._open(cands.same_attribute + local)

    def _exact(self, p: Proposal, similar: list[tuple[ActiveFact, float]]) -> ActiveFact | None:
        mem = self._subject(p)
        hit = mem.by_norm.get(p.norm) if mem else None
        if hit is not None and hit.id not in self.closed and not self._two_events(p, hit):
            return hit
        return next((f for f, _ in similar if f.norm == p.norm and not self._two_events(p, f)), None)

    def _two_events(self, p: Proposal, f: ActiveFact) -> bool:
        return restatements.distinct_events(
            p.text, p.attribute_key, p.fact.event_date, p.occurred_at,
            f.fact_text, f.attribute_key, f.event_date, f.valid_from, p.subject_name)

    def _restated(self, p: Proposal, cands: Candidates) -> tuple[ActiveFact, float] | None:
        """The active fact of another message that `p` restates, best masked cosine first
        (write/restatements.py): NOOP + confirmation instead of a second near-duplicate."""
        threshold = self.config.reconcile_restatement_above
        pt = masked(p.text, p.subject_name)
        pv = self.restate_vectors.get(pt)
        if not _restatable(p) or threshold > 1.0 or pv is None:
            return None
        mem = self._subject(p)
        ps = stems(pt)
        best: tuple[ActiveFact, float] | None = None
        for f in cands.lexical + (mem.facts if mem else []):
            if f.id in self.closed or f.entity_key != p.subject_key or (f.in_chunk and f.msg == p.msg):
                continue
            if _slot(p.attribute_key) and _slot(f.attribute_key) and p.attribute_key != f.attribute_key:
                continue  # two slots ("works at" / "works as") are two facts, however close
            ft = masked(f.fact_text, f.name or p.subject_name)
            fv = self.restate_vectors.get(ft)
            if fv is None or not restatements.word_gate(ps, stems(ft)):
                continue
            cos = float(np.dot(pv, fv))
            if cos >= threshold and (best is None or cos > best[1]) and not self._two_events(p, f):
                best = (f, cos)
        return best

    async def decide(self, p: Proposal, cands: Candidates) -> Proposal:
        similar = self._similar(p, cands)
        if p.fact.retracts and p.attribute_key:
            value = p.fact.retract_value or p.value
            p.deleted = [f for f in self._same_attribute(p, cands) if _value_matches(value, f)]
            for f in p.deleted:
                self.closed.add(f.id)
            if p.attribute_key in SINGLE_VALUED_ATTRIBUTES:  # kept as a past value from now on
                p.attribute_key, p.value = former_key(p.attribute_key), value
        elif p.attribute_key in SINGLE_VALUED_ATTRIBUTES and p.value:
            mem = self._subject(p)
            local = [f for f in mem.facts if f.attribute_key == former_key(p.attribute_key)] if mem else []
            contradicted = [f for f in self._open(cands.former + local) if _same_value(p.value, f)]
            for f in contradicted:  # "works at Acme" again ends "no longer works at Acme"
                p.deleted.append(f)
                self.closed.add(f.id)
        dup = self._exact(p, similar)
        if dup is not None:
            return self._noop(p, dup, "exact duplicate")
        if p.attribute_key in SINGLE_VALUED_ATTRIBUTES and not p.fact.retracts:
            current = self._same_attribute(p, cands)
            if current:
                same = [f for f in current if _same_value(p.value, f)]
                if same:
                    return self._noop(p, same[0], f"same {p.attribute_key}")
                return self._update(p, current[-1], f"new {p.attribute_key}")
        opposed = self._negated(p, similar)
        if opposed:  # a negation is close in embedding space but never a restatement
            p.contradicts = opposed
            return self._add(p, "contradicts an active fact")
        near = next(((f, s) for f, s in similar if s >= self.config.reconcile_noop_above
                     and not self._two_events(p, f)), None)
        if near is not None:
            return self._noop(p, near[0], f"near-identical ({near[1]:.2f})")
        again = self._restated(p, cands)
        if again is not None:
            return self._noop(p, again[0], f"restatement ({again[1]:.2f})")
        if similar and similar[0][1] >= self.config.reconcile_add_below and self.llm_decide:
            self.llm_calls += 1
            try:
                verdict = await self.llm_decide(p, similar[:3])
            except Exception:  # noqa: BLE001 - optional LLM stage, fail-safe: ADD (counted in llm_failures)
                verdict = None
            if verdict is None:
                self.llm_failures += 1
            else:
                action, target = verdict
                if action == "NOOP" and target is not None:
                    return self._noop(p, target, "llm")
                if action == "UPDATE" and target is not None:
                    return self._update(p, target, "llm")
                if action == "DELETE" and target is not None:
                    p.deleted.append(target)
                    self.closed.add(target.id)
                    p.action, p.reason = "DELETE", "llm"
                    return p
        return self._add(p, "new information")

    def _negated(self, p: Proposal, similar: list[tuple[ActiveFact, float]]) -> list[ActiveFact]:
        """Active facts of the subject (similar ones from the database, this chunk's own) that
        the proposal negates ("likes sushi" / "doesn't like sushi"), by id."""
        mem = self._subject(p)
        pool = {f.id: f for f, _ in similar}
        if mem is not None:
            pool.update((f.id, f) for f in mem.facts if f.id not in self.closed)
        return [pool[i] for i in sorted(pool)
                if pool[i].entity_key == p.subject_key and negates(p.text, pool[i].fact_text)]

    def _noop(self, p: Proposal, f: ActiveFact, reason: str) -> Proposal:
        p.action, p.fact_id, p.target, p.reason = "NOOP", f.id, f, reason
        self.reinforced[f.id] += 1
        return p

    def _add(self, p: Proposal, reason: str) -> Proposal:
        p.action, p.fact_id, p.reason = "ADD", str(uuid.uuid4()), reason
        self._remember(p)
        return p

    def _update(self, p: Proposal, old: ActiveFact, reason: str) -> Proposal:
        p.fact_id, p.target, p.reason = str(uuid.uuid4()), old, reason
        if p.occurred_at < old.valid_from:
            # Older news arriving late: keep it as history that ended when the current fact began.
            p.action, p.historical_until = "ADD", old.valid_from
            p.reason = f"{reason} (historical: older than the current value)"
            return p
        p.action = "UPDATE"
        self.closed.add(old.id)
        if p.correction and not _same_value(p.value, old):
            self.corrected[old.id] += 1
        self._remember(p)
        return p

    def _remember(self, p: Proposal) -> None:
        mem = self.chunk_facts.get(p.subject_key)
        if mem is None:
            dim = p.embedding.shape[0] if p.embedding is not None else 1
            mem = self.chunk_facts[p.subject_key] = _SubjectFacts(dim)
        mem.add(ActiveFact(p.fact_id or "", p.subject_key, p.attribute_key, p.value, p.text,
                           p.occurred_at, p.confidence, p.embedding, in_chunk=True, origin=p.origin,
                           name=p.subject_name, event_date=p.fact.event_date, msg=p.msg))
