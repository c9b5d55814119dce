"""Graph signals: BFS over entity relationships, and facts reached through entity links.

Facts are found through `memory_fact_entity_links`, not only their primary `entity_key`, so "Clara
Rezende left Vertix" (about Clara, linked to Vertix) answers "what happened to Vertix?". Direct
`entity_key` matches are unioned in, which is the spec's fallback for data without links.

Scoring, per fact, the best over the entities that reach it:

    edge_strength * recency_factor * edge_recency_factor * query_bonus * hop_decay   (capped at 1)

- hop 0 = the query's own entities (strength 1), hop 1 = their neighbours, hop 2 = neighbours of
  those, reached only over edges of strength >= graph_min_edge_strength (hop-2 pruning);
- hop_decay 1.0 / 1.0 / 0.5; query_bonus 1.5 when the entity's name is in the query;
- recency factors are gentle (0.5 + 0.5 * 2^(-age / 90 days)): a graph hit should not vanish
  because the fact is a year old; the ranking's own recency term already prefers fresh facts.

The same BFS drives spreading activation (spreading.py) from the top facts' entities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.keys import fold
from arandu_pipelines.read.scope import Scope
from arandu_pipelines.read.sql import fetch

HOP_DECAY = {0: 1.0, 1: 1.0, 2: 0.5, 3: 0.25}
# An entity with more facts than this is a hub (the user, a chat's speaker): every fact is about
# it, so listing "its facts" says little about the query. Hubs lend graph scores to the candidates
# the other signals found and add only their HUB_FACT_CAP most important facts (all, if broad).
HUB_FACTS = 50
HUB_FACT_CAP = 5
MAX_NEIGHBOURS = 5
QUERY_BONUS = 1.5
GRAPH_HALF_LIFE_DAYS = 90.0


def gentle_recency(when: datetime | None, reference: datetime) -> float:
    if when is None:
        return 0.75
    age = max((reference - when).total_seconds() / 86400.0, 0.0)
    return 0.5 + 0.5 * 2 ** (-age / GRAPH_HALF_LIFE_DAYS)


@dataclass
class Reach:
    """How an entity was reached: hop, path strength, edge time, and the edge itself."""

    key: str
    hop: int
    strength: float = 1.0
    edge_time: datetime | None = None
    via: str | None = None  # "source -rel-> target"
    fact_count: int = 0
    name: str | None = None
    _folded: str | None = None

    @property
    def folded_name(self) -> str:
        if self._folded is None:
            self._folded = fold(self.name or self.key.split(":", 1)[-1].replace("_", " "))
        return self._folded


@dataclass
class GraphResult:
    facts: dict[str, float] = field(default_factory=dict)  # fact id -> graph score
    neighbor_keys: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    edges_traversed: int = 0
    reach: dict[str, Reach] = field(default_factory=dict)


_BFS = """
WITH e1 AS (
    SELECT r.source_entity_key AS s, r.target_entity_key AS t, r.rel_type, r.strength,
           coalesce(r.updated_at, r.valid_from) AS at
    FROM memory_entity_relationships r
    WHERE r.agent_id = :a AND {valid} AND (r.source_entity_key = ANY(CAST(:seeds AS text[]))
          OR r.target_entity_key = ANY(CAST(:seeds AS text[])))
), n1 AS (
    SELECT CASE WHEN e1.s = ANY(CAST(:seeds AS text[])) THEN e1.t ELSE e1.s END AS key,
           e1.strength, e1.at, e1.s, e1.t, e1.rel_type FROM e1
), n1_best AS (
    SELECT DISTINCT ON (key) key, strength, at, s, t, rel_type FROM n1
    WHERE NOT key = ANY(CAST(:seeds AS text[]))
    ORDER BY key, strength DESC, at DESC, s, t, rel_type
), n1_top AS (
    SELECT * FROM n1_best ORDER BY strength DESC, at DESC, key LIMIT :max_n1
), e2 AS (
    SELECT n.key AS from_key, n.strength AS s1, r.source_entity_key AS s, r.target_entity_key AS t,
           r.rel_type, r.strength, coalesce(r.updated_at, r.valid_from) AS at
    FROM n1_top n JOIN memory_entity_relationships r ON r.agent_id = :a AND {valid}
         AND (r.source_entity_key = n.key OR r.target_entity_key = n.key)
    WHERE :hops >= 2 AND n.strength >= :min_strength AND r.strength >= :min_strength
)
SELECT x.*, e.fact_count, e.display_name FROM (
    SELECT 0 AS hop, k AS key, 1.0::float8 AS strength, NULL::timestamptz AS at, NULL AS src,
           NULL AS tgt, NULL AS rel_type FROM unnest(CAST(:seeds AS text[])) k
    UNION ALL
    SELECT 1, key, strength, at, s, t, rel_type FROM n1_top
    UNION ALL
    SELECT 2, CASE WHEN e2.s = e2.from_key THEN e2.t ELSE e2.s END, e2.s1 * e2.strength, e2.at,
           e2.s, e2.t, e2.rel_type FROM e2
) x LEFT JOIN memory_entities e ON e.agent_id = :a AND e.canonical_key = x.key
"""


async def bfs(
    conn: AsyncConnection,
    scope: Scope,
    seeds: list[str],
    hops: int,
    min_strength: float,
    max_neighbors: int = 50,
) -> tuple[dict[str, Reach], int]:
    """Entities within `hops` of `seeds` (hop 0 included), best path first. (reach, edges seen)."""
    reach: dict[str, Reach] = {k: Reach(k, 0) for k in seeds}
    if not seeds:
        return reach, 0
    rows = await fetch(conn, _BFS.format(valid=scope.relationships("r")),
                       {**scope.params(), "seeds": seeds, "hops": hops, "min_strength": min_strength,
                        "max_n1": max_neighbors}, stable_plan=True)
    rows = sorted(rows, key=lambda r: (r.hop, -r.strength, r.key, r.src or "", r.tgt or "", r.rel_type or ""))
    for r in rows:
        if r.hop == 0:
            reach[r.key].fact_count, reach[r.key].name = int(r.fact_count or 0), r.display_name
            continue
        cur = reach.get(r.key)
        if cur is not None and (cur.hop < r.hop or (cur.hop == r.hop and cur.strength >= r.strength)):
            continue
        reach[r.key] = Reach(r.key, int(r.hop), float(r.strength), r.at, f"{r.src} -{r.rel_type}-> {r.tgt}",
                             int(r.fact_count or 0), r.display_name)
    return reach, sum(1 for r in rows if r.hop > 0)


async def bfs_hops(
    conn: AsyncConnection,
    scope: Scope,
    seeds: list[str],
    hops: int,
    min_strength: float,
    max_neighbors: int = 50,
) -> tuple[dict[str, Reach], int]:
    """`bfs` to any depth: two hops in one statement, then one more hop per statement from the
    strongest `max_neighbors` entities of the last level (path strength multiplies, the first
    path found to an entity is kept)."""
    reach, seen = await bfs(conn, scope, seeds, min(hops, 2), min_strength, max_neighbors)
    for level in range(3, hops + 1):
        frontier = sorted((r for r in reach.values() if r.hop == level - 1),
                          key=lambda r: (-r.strength, r.key))[:max_neighbors]
        if not frontier:
            break
        nxt, n = await bfs(conn, scope, [r.key for r in frontier], 1, min_strength, max_neighbors)
        seen += n
        base = {r.key: r.strength for r in frontier}
        # the strongest frontier entity reaching each new entity (the 1-hop BFS keeps one edge)
        for key, r in sorted(nxt.items()):
            if r.hop != 1 or key in reach:
                continue
            src = r.via.split(" -", 1)[0] if r.via else None
            tgt = r.via.rsplit("-> ", 1)[-1] if r.via else None
            origin = src if src in base else tgt
            strength = base.get(origin or "", max(base.values())) * r.strength
            reach[key] = Reach(key, level, strength, r.edge_time, r.via, r.fact_count, r.name)
    return reach, seen


# A link's fact is read by its id (LATERAL ... OFFSET 0, matched on id and the link's agent so that
# no index led by agent_id alone looks as cheap): never a scan of the agent's facts, whatever the
# estimates (docs/retrieval.md, "Tails under import").
_FACTS = """
SELECT h.id, k.key, h.valid_from, NULL::text AS display_name
FROM (SELECT * FROM (VALUES {keys}) AS v(key, cap, hub) OFFSET 0) AS k
CROSS JOIN LATERAL (
    SELECT x.id, x.valid_from FROM (
        SELECT t.id, t.importance, t.valid_from
        FROM memory_fact_entity_links l
        JOIN LATERAL (SELECT * FROM memory_facts f WHERE f.id = l.fact_id AND f.agent_id = l.agent_id OFFSET 0) t
          ON true
        WHERE NOT k.hub AND l.agent_id = :a AND l.entity_key = k.key AND {facts}
        UNION
        SELECT t.id, t.importance, t.valid_from FROM memory_facts t
        WHERE t.agent_id = :a AND t.entity_key = k.key AND {facts}
    ) x ORDER BY x.importance DESC, x.valid_from DESC, x.id LIMIT k.cap
) h
"""


async def linked_facts(
    conn: AsyncConnection, scope: Scope, keys: list[str], per_entity: int,
    caps: dict[str, int] | None = None, hubs: list[str] | None = None, hub_cap: int = HUB_FACT_CAP,
) -> list[tuple[str, str, datetime, str | None]]:
    """(fact id, entity key, valid_from, entity display name) for up to `per_entity` (or
    `caps[key]`) most important facts of each entity, and the `hub_cap` most important facts
    whose primary subject is each of `hubs` (see `hub_facts`), in one statement."""
    rows_in = sorted([(k, int((caps or {}).get(k, per_entity)), False) for k in keys]
                     + [(k, int(hub_cap), True) for k in hubs or []])
    if not rows_in:
        return []
    # One scalar parameter per key, cap and hub flag, read per key (VALUES + LATERAL), not a
    # text[] and an int[]: the facts' entity_key statistics are two speakers holding 98% of the
    # rows, so a generic plan for "entity_key = ANY(array)" expected a sixth of the table per key
    # and always looked costlier than the custom plan for the few rare real keys; Postgres
    # planned the prepared statement again on every call (0.32 ms of planning for 0.08 ms of work
    # per retrieve on conv-26). Per key, custom and generic plans estimate alike and the generic
    # one is kept (one statement per key count; docs/retrieval.md "Latency after the feedback
    # pass and the bridge"). OFFSET 0 keeps a single key from being folded into the lateral
    # query, where a custom plan would see its value again. Same rows: the top `cap` by
    # (importance, valid_from, id) per key. A hub's row skips the links (NOT k.hub, a one-time
    # filter): its facts are read through the (agent, entity) index, not every fact linked to it.
    values = ", ".join(f"(CAST(:k{i} AS text), CAST(:c{i} AS int), CAST(:h{i} AS boolean))"
                       for i in range(len(rows_in)))
    params: dict[str, object] = {**scope.params()}
    for i, (k, cap, hub) in enumerate(rows_in):
        params.update({f"k{i}": k, f"c{i}": cap, f"h{i}": hub})
    rows = await fetch(conn, _FACTS.format(keys=values, facts=scope.facts("t")), params, stable_plan=True)
    return sorted((str(r.id), r.key, r.valid_from, r.display_name) for r in rows)


async def hub_facts(
    conn: AsyncConnection, scope: Scope, keys: list[str], cap: int
) -> list[tuple[str, str, datetime, str | None]]:
    """The `cap` most important facts whose primary subject is each hub: read through the
    (agent, entity) index, not by ranking every fact linked to the hub (hundreds for a speaker).
    `linked_facts` reads them in its own statement when a query has both (one round trip)."""
    return await linked_facts(conn, scope, [], 0, hubs=keys, hub_cap=cap)


def score_links(
    links: list[str], valid_from: datetime | None, reach: dict[str, Reach], folded_query: str,
    reference: datetime,
) -> float:
    """Graph score of a fact linked to `links`: the best path over the entities reached."""
    best = 0.0
    for key in links:
        r = reach.get(key)
        if r is None:
            continue
        name = r.folded_name
        bonus = QUERY_BONUS if name and name in folded_query else 1.0
        score = (r.strength * gentle_recency(valid_from, reference)
                 * (gentle_recency(r.edge_time, reference) if r.hop else 1.0) * bonus * HOP_DECAY[r.hop])
        best = max(best, min(score, 1.0))
    return best


async def retrieve_graph_facts(
    conn: AsyncConnection,
    scope: Scope,
    entity_keys: list[str],
    names: dict[str, str],
    query_text: str,
    reference: datetime,
    min_edge_strength: float,
    broad_query: bool = False,
    max_facts: int | None = None,
) -> GraphResult:
    """BFS 2-hop from the query's entities; facts scored as in the module docstring."""
    out = GraphResult()
    if not entity_keys:
        return out
    reach, seen = await bfs(conn, scope, entity_keys, 2, min_edge_strength)
    for k, name in names.items():
        if k in reach and not reach[k].name:
            reach[k].name = name
    out.reach, out.edges_traversed = reach, seen
    out.neighbor_keys = sorted(k for k, r in reach.items() if r.hop > 0)
    out.edges = sorted({r.via for r in reach.values() if r.via})
    limit = max_facts or (60 if broad_query else 30)
    # Graph-only facts come from the query's own entities, their strongest neighbours and the
    # strongest entities two hops away (scored with the spec's hop-2 decay); a hub (more than
    # HUB_FACTS facts: the user, a chat's speaker) adds only its HUB_FACT_CAP most important facts
    # (all of them would flood the pool; none at all lost the hub's own profile facts).
    hop1 = sorted((r for r in reach.values() if r.hop == 1), key=lambda r: (-r.strength, r.key))
    hop2 = sorted((r for r in reach.values() if r.hop == 2), key=lambda r: (-r.strength, r.key))
    near = ({k for k, r in reach.items() if r.hop == 0} | {r.key for r in hop1[:MAX_NEIGHBOURS]}
            | {r.key for r in hop2[:MAX_NEIGHBOURS]})
    per_entity = limit if broad_query else 10
    keys = sorted(k for k in near if broad_query or reach[k].fact_count <= HUB_FACTS)
    hubs = sorted(k for k in near if not broad_query and reach[k].fact_count > HUB_FACTS)
    pairs = await linked_facts(conn, scope, keys, per_entity, hubs=hubs, hub_cap=HUB_FACT_CAP)
    folded_query = f" {fold(query_text)} "
    for fid, key, valid_from, _ in pairs:
        score = score_links([key], valid_from, reach, folded_query, reference)
        if score > out.facts.get(fid, 0.0):
            out.facts[fid] = score
    top = sorted(out.facts.items(), key=lambda x: (-x[1], x[0]))[:limit]
    out.facts = dict(top)
    return out
