"""The lexical signal: BM25 over Postgres full-text search vectors.

`ts_rank` has no inverse document frequency, so a speaker's name (in half of the messages) would
weigh as much as "adoption" (in three). Here every query lexeme gets BM25's idf from the per-agent
document frequencies kept by migration 0002, and a row scores

    sum(idf of the query lexemes it contains) * (k1 + 1) / (1 + k1 * (1 - b + b * len / avglen))

(term frequency taken as 1: chat messages and facts are short, repeats are rare). Candidates come
from the GIN index `(agent_id, search_vector)` with an OR query; when a term is very common (more
than a fifth of the agent's rows) it still scores but does not generate candidates, which bounds
the work for big agents. `keyword` in a fact's scores is this BM25 divided by the best score a row
could get for this query: the idf-weighted share of the query that matched, in [0, 1] (query
words absent from memory count in the denominator at the idf of an unseen term).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.read.sql import fetch, fetch_one

K1 = 1.2
B = 0.3  # short documents: weak length normalisation worked best on the dev data
COMMON_SHARE = 0.2
CANDIDATE_BUDGET = 1000  # rows the rarest terms may bring in before commoner ones are skipped


@dataclass
class CorpusStats:
    n_docs: int = 0
    avg_len: float = 1.0
    df: dict[str, int] = field(default_factory=dict)

    def idf(self, lexeme: str) -> float:
        n = max(self.n_docs, 1)
        d = min(self.df.get(lexeme, 0), n)
        return math.log(1.0 + (n - d + 0.5) / (d + 0.5))


@dataclass
class QueryTerms:
    """The query's lexemes (english stemming, as in the stored vectors) and the agent's stats."""

    lexemes: list[str]
    events: CorpusStats
    facts: CorpusStats
    has_relationships: bool = True
    has_patterns: bool = True
    # read/bridge.py: stems memory spells the query's words with (typos, hyphen forms) -> weight
    # factor of their idf; they score and generate candidates but are not in the ideal score.
    expansions: dict[str, float] = field(default_factory=dict)
    bridged: dict[str, list[str]] = field(default_factory=dict)  # query word -> vocabulary words

    def weights(self, kind: str) -> tuple[list[str], list[float], float]:
        """(present lexemes, their idf, the ideal score) for kind 'e' or 'f'.

        The ideal is the score of a row holding every query lexeme, those memory lacks included
        (at the idf of an unseen term): a fact matching the two names of "Which football team
        does Bruno Almeida support?" has matched a third of the question, not all of it.
        Expansions follow the query's lexemes, at `factor x idf`, outside the ideal."""
        stats = self.events if kind == "e" else self.facts
        lex = [lx for lx in self.lexemes if stats.df.get(lx, 0) > 0]
        idf = [stats.idf(lx) for lx in lex]
        if not idf and not self.expansions:
            return lex, idf, 0.0
        absent = sum(stats.idf(lx) for lx in self.lexemes if stats.df.get(lx, 0) <= 0)
        ideal = (sum(idf) + absent) * (K1 + 1) / (1 + K1)
        for lx, factor in self.expansions.items():
            if stats.df.get(lx, 0) > 0 and lx not in self.lexemes:
                lex.append(lx)
                idf.append(factor * stats.idf(lx))
        return lex, idf, ideal

    def generators(self, kind: str) -> list[str]:
        """Lexemes rare enough to generate candidates (at least the rarest one)."""
        stats = self.events if kind == "e" else self.facts
        lex = sorted((lx for lx in [*self.lexemes, *self.expansions] if stats.df.get(lx, 0) > 0),
                     key=lambda lx: (stats.df[lx], lx))
        if not lex:
            return []
        cap = max(50, int(stats.n_docs * COMMON_SHARE))
        out: list[str] = []
        total = 0
        for lx in lex:  # rarest first, within the candidate budget (a MaxScore-like cut)
            if stats.df[lx] > cap or (out and total + stats.df[lx] > CANDIDATE_BUDGET):
                break
            out.append(lx)
            total += stats.df[lx]
        return out or lex[:1]


_STATS_SQL = (
    """
    WITH q AS (SELECT coalesce(tsvector_to_array(to_tsvector('english', :q)), '{}') AS lex)
    SELECT (SELECT lex FROM q) AS lex,
           (SELECT coalesce(json_agg(json_build_array(kind, n_docs, total_len)), '[]')
              FROM memory_doc_stats WHERE agent_id = :a) AS docs,
           (SELECT coalesce(json_agg(json_build_array(kind, lexeme, df)), '[]')
              FROM memory_term_stats WHERE agent_id = :a AND lexeme = ANY((SELECT lex FROM q)::text[])) AS terms
    """
)


async def load_terms(conn: AsyncConnection, agent_id: str, query: str) -> QueryTerms:
    row = await fetch_one(conn, _STATS_SQL, {"a": agent_id, "q": query})
    return parse_terms(row)


def parse_terms(row: Any) -> QueryTerms:
    ev, fa = CorpusStats(), CorpusStats()
    for kind, n, total in row.docs:
        s = ev if kind == "e" else fa
        s.n_docs = int(n)
        s.avg_len = max(float(total) / max(int(n), 1), 1.0)
    for kind, lexeme, df in row.terms:
        (ev if kind == "e" else fa).df[lexeme] = int(df)
    return QueryTerms(sorted(set(row.lex or [])), ev, fa)


def tsquery(lexemes: list[str]) -> str:
    """OR-query of already-stemmed lexemes, quoted so they are not parsed or stemmed again."""
    return " | ".join("'" + lx.replace("\\", "\\\\").replace("'", "''") + "'" for lx in lexemes)


MAX_TERMS = 16


def bm25_expr(alias: str, n_terms: int) -> str:
    """SQL for the BM25 score of row `alias`: one tsvector lookup per query term (bound as
    :bm_l0.. single-lexeme tsqueries with weights :bm_w0..), times the length normalisation.
    `n_terms` = len(terms.weights(kind)[0]) capped at MAX_TERMS (see n_terms())."""
    if n_terms <= 0:
        return "CAST(0 AS float8)"
    parts = " + ".join(
        f"CASE WHEN {alias}.search_vector @@ CAST(:bm_l{i} AS tsquery) THEN CAST(:bm_w{i} AS float8) ELSE 0 END"
        for i in range(n_terms)
    )
    return (f"(({parts}) * {K1 + 1} / (1 + {K1} * (1 - {B} + {B} * length({alias}.search_vector) "
            f"/ CAST(:avglen AS float8))))")


def n_terms(terms: QueryTerms, kind: str) -> int:
    return min(len(terms.weights(kind)[0]), MAX_TERMS)


def bm25_params(terms: QueryTerms, kind: str) -> dict[str, Any]:
    lex, idf, _ = terms.weights(kind)
    stats = terms.events if kind == "e" else terms.facts
    pairs = sorted(zip(idf, lex), reverse=True)[:MAX_TERMS]  # the most informative terms
    p: dict[str, Any] = {"avglen": stats.avg_len}
    for i, (w, lx) in enumerate(pairs):
        p[f"bm_l{i}"], p[f"bm_w{i}"] = tsquery([lx]), w
    return p


async def search(
    conn: AsyncConnection,
    kind: str,
    where: str,
    params: dict[str, Any],
    terms: QueryTerms,
    limit: int,
) -> list[tuple[str, float]]:
    """Top `limit` (id, bm25) rows of memory_events ('e') or memory_facts ('f') matching `where`."""
    gens = terms.generators(kind)
    if not gens:
        return []
    table = "memory_events" if kind == "e" else "memory_facts"
    sql = (
        f"SELECT t.id::text AS id, {bm25_expr('t', n_terms(terms, kind))} AS score FROM {table} t "
        f"WHERE t.agent_id = :a AND t.search_vector @@ CAST(:tsq AS tsquery) AND {where} "
        "ORDER BY score DESC, t.id LIMIT :lim"
    )
    p = {**params, **bm25_params(terms, kind), "tsq": tsquery(gens), "lim": limit}
    rows = await fetch(conn, sql, p)
    return [(r.id, float(r.score)) for r in rows if r.score > 0]
