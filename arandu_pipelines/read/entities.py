"""Deterministic entity resolution of a query: which known entities and speakers it names.

Word n-grams of the query (1-4 words) are matched, folded (case and accents), against the
agent's aliases (which include every display name the write side saw), entity display names and
entity-key slugs ("marcos tavares" -> person:marcos_tavares), and against the speakers of the
stored messages. Longer matches win over the shorter ones they contain, so "Marcos Tavares" is not
also "Marcos" the neighbour.

A capitalised word that matched nothing exactly may still name a person with another spelling
("Muhammad" for the speaker "Muhhamed", "Kate" for "Katherine", "Jon" for "John"). Only then, the
same statement also returns a pool of candidate names (the agent's distinct speakers by a loose
scan of the (agent_id, speaker) index, and its person entities), which `read.name_match` compares
by nickname table, edit distance and phonetic key; the method is recorded as nickname | fuzzy |
phonetic. One round trip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.keys import fold, slugify
from arandu_pipelines.read import bridge
from arandu_pipelines.read.name_match import NICKNAMES, NOT_NAMES, Candidate, best_match
from arandu_pipelines.read.sql import fetch, fetch_one

_WORD = re.compile(r"[\w][\w'\-\.]*", re.UNICODE)
# Single words that are never names on their own, even when some alias happens to equal them.
_STOP = frozenset(
    ["a", "an", "the", "i", "me", "my", "we", "our", "you", "your", "he", "she", "it", "they", "them", "his", "her", "their", "this", "that", "these", "those", "what", "when", "where", "who", "whom", "which", "why", "how", "is", "are", "was", "were", "be", "been", "do", "does", "did", "have", "has", "had", "of", "in", "on", "at", "to", "for", "from", "with", "about", "and", "or", "not", "no", "yes", "all", "any", "some", "more", "most", "very", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "just", "also", "there", "here", "then", "than", "so", "if", "as", "by", "into", "out", "up", "down", "o", "os", "as", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "no", "na", "nos", "nas", "em", "por", "para", "com", "sem", "que", "qual", "quais", "quem", "onde", "quando", "como", "porque", "se", "e", "ou", "nao", "não", "sim", "eu", "ele", "ela", "eles", "elas", "meu", "minha", "seu", "sua", "nosso", "nossa", "isso", "isto", "aquilo", "esse", "essa", "este", "esta", "aquele", "aquela", "tem", "ter", "foi", "era", "sao", "são", "ser", "estar", "está", "mais", "muito", "pouco", "tudo", "nada", "algum", "alguma", "sobre"]
)


@dataclass
class EntityResolution:
    keys: list[str] = field(default_factory=list)  # canonical keys, in query order
    names: dict[str, str] = field(default_factory=dict)  # key -> display name
    methods: dict[str, str] = field(default_factory=dict)  # key -> alias | display_name | slug
    mentions: dict[str, str] = field(default_factory=dict)  # key -> the query words
    speakers: list[str] = field(default_factory=list)  # speakers named in the query
    speaker_methods: dict[str, str] = field(default_factory=dict)  # speaker -> nickname | fuzzy | phonetic

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "deterministic": [{"key": k, "name": self.names.get(k), "method": self.methods.get(k),
                               "mention": self.mentions.get(k)} for k in self.keys],
            "speakers": list(self.speakers)}
        if self.speaker_methods:
            out["speaker_methods"] = dict(self.speaker_methods)
        return out


MAX_WORDS = 48  # a query is a question, not a document: names are looked for in its first words


def query_grams(query: str, max_n: int = 4) -> list[tuple[int, int, str]]:
    """(start word, end word, surface text) of every 1..max_n word window."""
    words = [m.group(0).strip(".'-") for m in _WORD.finditer(query)]
    words = [w[:-2] if w.lower().endswith("'s") else w for w in words][:MAX_WORDS]
    out: list[tuple[int, int, str]] = []
    for n in range(max_n, 0, -1):
        for i in range(len(words) - n + 1):
            gram = " ".join(words[i:i + n]).strip()
            if not gram:
                continue
            if n == 1 and (len(gram) < 2 or fold(gram) in _STOP or gram.isdigit()):
                continue
            out.append((i, i + n, gram))
    return out


# A speaker lookup is min(speaker) over `speaker >= w AND speaker <= w` (= w, collations being
# deterministic): the aggregate becomes ORDER BY speaker LIMIT 1, which only the index
# ix_events_agent_speaker gives cheaply, so it is one index probe whatever the estimates. As
# EXISTS / LIMIT 1 on `speaker = w` they were a semi-join over the agent's messages, or a
# sequential scan betting on an early match (a speaker estimated at 1/n_distinct of the rows),
# which reads every message when the word is nobody's name (docs/retrieval.md, "Tails under
# import").
_SQL = (
    """
    SELECT 'alias' AS method, a.alias AS matched, a.canonical_entity_key AS key,
           coalesce(e.display_name, a.alias_text, a.alias) AS name
    FROM memory_entity_aliases a
    LEFT JOIN memory_entities e ON e.agent_id = a.agent_id AND e.canonical_key = a.canonical_entity_key
    WHERE a.agent_id = :a AND a.alias = ANY(CAST(:folded AS text[]))
    UNION ALL
    SELECT 'slug', split_part(e.canonical_key, ':', 2), e.canonical_key, coalesce(e.display_name, e.canonical_key)
    FROM memory_entities e
    WHERE e.agent_id = :a AND e.is_active AND split_part(e.canonical_key, ':', 2) = ANY(CAST(:slugs AS text[]))
    UNION ALL
    SELECT 'speaker', sp, NULL, sp
    FROM unnest(CAST(:surface AS text[])) sp
    WHERE (SELECT min(s.speaker) FROM memory_events s WHERE s.agent_id = :a AND s.speaker >= sp AND s.speaker <= sp) IS NOT NULL
    UNION ALL
    SELECT DISTINCT 'alias_speaker', a.alias, a.canonical_entity_key, s.speaker
    FROM memory_entity_aliases a
    JOIN memory_entities e ON e.agent_id = a.agent_id AND e.canonical_key = a.canonical_entity_key
    JOIN LATERAL (SELECT min(x.speaker) AS speaker FROM memory_events x WHERE x.agent_id = a.agent_id
                  AND x.speaker >= e.display_name
                  AND x.speaker <= e.display_name) s ON s.speaker IS NOT NULL
    WHERE a.agent_id = :a AND a.alias = ANY(CAST(:folded AS text[]))
    UNION ALL
    SELECT 'pool_speaker', sp.s, NULL, sp.s
    FROM (WITH RECURSIVE r(s, n) AS (
            SELECT min(x.speaker), 1 FROM memory_events x WHERE x.agent_id = :a AND """ + "{need}" + """
            UNION ALL
            SELECT (SELECT min(x.speaker) FROM memory_events x WHERE x.agent_id = :a AND x.speaker > r.s),
                   r.n + 1
            FROM r WHERE r.s IS NOT NULL AND r.n < 64)
          SELECT s FROM r WHERE s IS NOT NULL) sp
    UNION ALL
    (SELECT 'pool_person', e.display_name, e.canonical_key, e.display_name
     FROM memory_entities e
     WHERE e.agent_id = :a AND e.entity_type = 'person' AND e.is_active AND e.display_name IS NOT NULL
       AND """ + "{need}" + """
     ORDER BY e.importance_score DESC, e.canonical_key LIMIT 200)
    """
)
# The fuzzy pool is fetched only when some capitalised word of the query matched no alias and no
# speaker exactly (index probes): a query naming people as stored pays nothing more.
_NEED = (
    "EXISTS (SELECT 1 FROM unnest(CAST(:caps_f AS text[]), CAST(:caps_s AS text[])) c(f, s) "
    "WHERE NOT EXISTS (SELECT 1 FROM memory_entity_aliases a WHERE a.agent_id = :a AND a.alias = c.f) "
    "AND (SELECT min(x.speaker) FROM memory_events x WHERE x.agent_id = :a AND x.speaker >= c.s AND x.speaker <= c.s) IS NULL)"
)
_SQL = _SQL.replace("{need}", _NEED)


def fuzzy_words(query: str) -> list[tuple[int, str]]:
    """(word index, word) of the capitalised single words that could be a person's name."""
    return [(i, g) for i, j, g in query_grams(query, 1)
            if g[:1].isupper() and g.isalpha() and (len(g) >= 3 or fold(g) in NICKNAMES)
            and fold(g) not in NOT_NAMES]


def entity_params(query: str) -> dict[str, list[str]]:
    grams = query_grams(query)
    caps = fuzzy_words(query)
    return {
        "caps_f": [fold(g) for _, g in caps],
        "caps_s": [g for _, g in caps],
        "folded": sorted({fold(g) for _, _, g in grams}),
        "slugs": sorted({slugify(g) for _, _, g in grams}),
        "surface": sorted({v for _, _, g in grams for v in (g, g.title(), g.lower(), g.capitalize())}),
    }


ENTITY_ROWS_SQL = _SQL


@dataclass
class _Row:
    method: str
    matched: str
    key: str | None
    name: str


async def resolve_query_entities(conn: AsyncConnection, agent_id: str, query: str) -> EntityResolution:
    if not query_grams(query):
        return EntityResolution()
    rows = await fetch(conn, _SQL, {"a": agent_id, **entity_params(query)})
    return interpret(query, [_Row(r.method, r.matched, r.key, r.name) for r in rows])


def interpret(query: str, rows: list[_Row]) -> EntityResolution:
    """Longest-match-wins reading of the alias/slug/speaker rows for `query`."""
    grams = query_grams(query)
    by_fold: dict[str, list[tuple[str, str, str]]] = {}
    speakers_by_fold: dict[str, str] = {}
    alias_speakers: dict[str, list[str]] = {}
    pool: list[Candidate] = []
    for r in rows:
        if r.method == "pool_speaker":
            pool.append(Candidate(r.matched, None, True))
        elif r.method == "pool_person":
            pool.append(Candidate(r.name, r.key, False))
        elif r.method == "alias_speaker":
            alias_speakers.setdefault(r.matched, []).append(r.name)
        elif r.method == "speaker":
            speakers_by_fold.setdefault(fold(r.matched), r.matched)
        elif r.key is None:  # only speaker rows name no entity
            continue
        elif r.method == "slug":
            by_fold.setdefault(fold(r.matched.replace("_", " ")), []).append((r.key, r.name, "slug"))
        else:
            by_fold.setdefault(r.matched, []).append((r.key, r.name, "alias"))
    res = EntityResolution()
    used: list[tuple[int, int]] = []
    for start, end, gram in grams:  # longest first
        f = fold(gram)
        hits = sorted(set(by_fold.get(f, [])) | set(by_fold.get(fold(slugify(gram).replace("_", " ")), [])))
        spk = speakers_by_fold.get(f)
        if not hits and not spk:
            continue
        if any(not (end <= a or start >= b) for a, b in used):
            continue
        used.append((start, end))
        for key, name, method in hits:
            if key not in res.methods:
                res.keys.append(key)
                res.names[key] = name
                res.methods[key] = method
                res.mentions[key] = gram
        for sp in ([spk] if spk else []) + sorted(alias_speakers.get(f, [])):
            if sp not in res.speakers:  # a person named in the query who also speaks
                res.speakers.append(sp)
    if pool:
        _fuzzy_pass(query, pool, used, res)
    return res


def _fuzzy_pass(query: str, pool: list[Candidate], used: list[tuple[int, int]],
                res: EntityResolution) -> None:
    """Capitalised words no exact match covered, matched to one person of the pool."""
    speakers = {c.name for c in pool if c.speaker}
    for i, word in fuzzy_words(query):
        if any(a <= i < b for a, b in used):
            continue
        found = best_match(word, pool)
        if found is None:
            continue
        hits, method = found
        used.append((i, i + 1))
        for c in hits:
            if c.key is not None and c.key not in res.methods:
                res.keys.append(c.key)
                res.names[c.key] = c.name
                res.methods[c.key] = method
                res.mentions[c.key] = word
            sp = c.name if (c.speaker or c.name in speakers) else None
            if sp is not None and sp not in res.speakers:
                res.speakers.append(sp)
                res.speaker_methods[sp] = method


_BOOT = (
    """
    WITH q AS (SELECT coalesce(tsvector_to_array(to_tsvector('english', :q)), '{}')::text[] AS lex),
    ent AS (""" + ENTITY_ROWS_SQL + """),""" + bridge.SQL_CTES + """
    SELECT (SELECT lex FROM q) AS lex,
           (SELECT coalesce(json_agg(json_build_array(kind, n_docs, total_len)), '[]')
              FROM memory_doc_stats WHERE agent_id = :a) AS docs,
           (SELECT coalesce(json_agg(json_build_array(kind, lexeme, df)), '[]')
              FROM memory_term_stats WHERE agent_id = :a AND lexeme = ANY((SELECT lex FROM q)::text[])) AS terms,
           (SELECT coalesce(json_agg(json_build_array(method, matched, key, name)), '[]') FROM ent) AS ents,
           EXISTS (SELECT 1 FROM memory_entity_relationships WHERE agent_id = :a) AS has_rels,
           EXISTS (SELECT 1 FROM memory_meta_observations WHERE agent_id = :a AND is_active) AS has_patterns,""" + bridge.SQL_COLUMNS + """
    """
)


async def bootstrap(conn: AsyncConnection, agent_id: str, query: str) -> tuple[Any, EntityResolution]:
    """One round trip: the query's lexemes with the agent's term statistics, and the entity and
    speaker matches of its words. Returns (QueryTerms, EntityResolution)."""
    from arandu_pipelines.read.lexical import parse_terms

    row = await fetch_one(conn, _BOOT, {"a": agent_id, "q": query, **entity_params(query),
                                        **bridge.params(query)}, stable_plan=True)
    res = interpret(query, [_Row(*r) for r in row.ents]) if query_grams(query) else EntityResolution()
    terms = parse_terms(row)
    terms.has_relationships = bool(row.has_rels)
    terms.has_patterns = bool(row.has_patterns)
    bridge.apply(terms, row)
    return terms, res
