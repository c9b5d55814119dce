"""`contradicts` edges between facts (OpenMem, seed 002, stage 5: conflict resolution).

OpenMem keeps both sides of a contradiction and, at recall, demotes the weaker one (x0.3).
Reconciliation finds a contradiction when a new statement about a subject is the negation of
one of the subject's active facts ("Ana likes sushi" / "Ana doesn't like sushi", "gosta" / "não
gosta"): neither is closed (which one is true is not for the write to decide), the new fact is
added and an edge joins the two.

Storage: the schema has no fact-to-fact edge table; the spec stores contradictions as
meta-observations of type `contradiction` (004: consolidation "detects patterns, contradictions,
trends" into `memory_meta_observations`). An edge is such a row whose `supporting_fact_ids` are
the two facts (fingerprint `contradicts:<id>:<id>`, ids sorted, so re-finding it reinforces the
row instead of adding one). Contradictions that consolidation finds are read the same way: every
pair of an active `contradiction` observation's supporting facts contradicts.

The read side (`load_edges`, read/rank.py) demotes the weaker fact of each edge among the
candidates, and the observation's title reaches the context's "Observed patterns" like any
meta-observation about the returned facts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.keys import normalize_fact_text

_NEGATION = re.compile(
    r"\b(?:not|never|no longer|doesn't|don't|didn't|isn't|wasn't|aren't|won't|can't|cannot|hates?|"
    r"dislikes?|n[aã]o|nunca|jamais|odeia)\b|n't\b", re.IGNORECASE)
_POLAR_STOP = re.compile(r"\b(?:does|do|did|is|was|are|will|can|likes?|loves?|enjoys?|gosta|ama|adora|"
                         r"de|of|the|a|an|any|anymore|mais|more)\b", re.IGNORECASE)


@lru_cache(maxsize=1 << 16)
def is_negated(text_: str) -> bool:
    return bool(_NEGATION.search(text_))


@lru_cache(maxsize=1 << 14)
def polarity_key(text_: str) -> tuple[str, bool]:
    """(the statement with negation and polarity verbs removed, whether it was negated): "Ana
    doesn't like sushi" and "Ana likes sushi" share the key and differ in polarity."""
    negated = bool(_NEGATION.search(text_))
    core = _POLAR_STOP.sub(" ", _NEGATION.sub(" ", text_.lower()))
    return " ".join(normalize_fact_text(core).split()), negated


def negates(a: str, b: str) -> bool:
    """True when one statement is the other negated (same key, opposite polarity)."""
    if is_negated(a) == is_negated(b):
        return False
    ka, kb = polarity_key(a), polarity_key(b)
    return bool(ka[0]) and ka[0] == kb[0]


@dataclass(frozen=True)
class Edge:
    """A contradiction reconciliation found: the new fact and the active fact it negates."""

    new_id: str
    old_id: str
    entity_key: str
    entity_name: str
    new_text: str
    old_text: str

    @property
    def fingerprint(self) -> str:
        a, b = sorted((self.new_id, self.old_id))
        return f"contradicts:{a}:{b}"


async def store_edges(conn: AsyncConnection, agent_id: str, edges: list[Edge]) -> None:
    """One `contradiction` meta-observation per edge; an edge found again is reinforced."""
    if not edges:
        return
    rows = [{
        "fp": e.fingerprint,
        "title": f"Conflicting statements about {e.entity_name}: “{e.old_text}” vs “{e.new_text}”"[:256],
        "text": f"“{e.old_text}” vs “{e.new_text}”", "ids": json.dumps(sorted((e.new_id, e.old_id))),
        "keys": json.dumps([e.entity_key]),
    } for e in sorted(edges, key=lambda e: e.fingerprint)]
    await conn.execute(
        text(
            "INSERT INTO memory_meta_observations (agent_id, observation_type, title, text, fingerprint, "
            "supporting_fact_ids, entity_keys, confidence, importance) "
            "SELECT :a, 'contradiction', r.title, r.text, r.fp, CAST(r.ids AS jsonb), CAST(r.keys AS jsonb), "
            "0.9, 0.8 FROM jsonb_to_recordset(CAST(:rows AS jsonb)) "
            "AS r(fp text, title text, text text, ids text, keys text) "
            "ON CONFLICT (agent_id, observation_type, fingerprint) DO UPDATE SET "
            "times_reinforced = memory_meta_observations.times_reinforced + 1, "
            "last_reinforced_at = now(), is_active = true"
        ),
        {"a": agent_id, "rows": json.dumps(rows)},
    )


async def load_edges(conn: AsyncConnection, agent_id: str, fact_ids: list[str]) -> list[tuple[str, str]]:
    """Pairs of the given facts joined by an active `contradiction` observation (sorted)."""
    if len(fact_ids) < 2:
        return []
    rows = (await conn.execute(
        text("SELECT supporting_fact_ids::text AS ids FROM memory_meta_observations "
             "WHERE agent_id = :a AND is_active AND observation_type = 'contradiction' "
             "AND jsonb_typeof(supporting_fact_ids) = 'array' "
             "AND supporting_fact_ids ?| CAST(:ids AS text[])"),
        {"a": agent_id, "ids": fact_ids})).all()
    wanted = set(fact_ids)
    out: set[tuple[str, str]] = set()
    for r in rows:
        ids = sorted({str(x) for x in json.loads(r.ids) if str(x) in wanted})
        out.update(combinations(ids, 2))
    return sorted(out)


__all__ = ["Edge", "is_negated", "load_edges", "negates", "polarity_key", "store_edges"]
