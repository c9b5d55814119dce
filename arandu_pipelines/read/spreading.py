"""Spreading activation: from the best facts, along entity relationships, to related facts.

Activation starts at each seed fact's entity with the seed's score, crosses an edge as
`activation * edge_strength * decay` (hop 1) and again (hop 2, decay squared overall), keeping the
strongest path (max wins, as in OpenMem), and so on for `spreading_activation_hops` hops (decay^hop). Each reached entity contributes at most
`spreading_facts_per_entity` facts (its most important), at most
`spreading_max_related_entities` entities are explored per hop level. `spreading_activation_hops
= 0` turns it off. Facts already among the candidates are not duplicated; their spreading score
is recorded and the ranking keeps the better of their direct relevance and their activation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read.graph import HUB_FACTS, bfs_hops, linked_facts
from arandu_pipelines.read.scope import Scope

SEED_FACTS = 5


@dataclass
class SpreadResult:
    activation: dict[str, float] = field(default_factory=dict)  # fact id -> activation
    entities_explored: list[str] = field(default_factory=list)
    hop1_count: int = 0
    hop2_count: int = 0
    hop3_count: int = 0  # and deeper, when spreading_activation_hops > 2
    kg_relationships_explored: int = 0


async def spread_activation(
    conn: AsyncConnection,
    scope: Scope,
    seeds: list[tuple[str, str, float]],  # (fact id, entity key, score), best first
    config: MemoryConfig,
) -> SpreadResult:
    out = SpreadResult()
    hops = config.spreading_activation_hops
    if hops <= 0 or not seeds:
        return out
    seeds = seeds[:SEED_FACTS]
    start: dict[str, float] = {}
    for _, key, score in seeds:
        start[key] = max(start.get(key, 0.0), score)
    reach, seen = await bfs_hops(conn, scope, sorted(start), hops, 0.0,
                                 max_neighbors=config.spreading_max_related_entities)
    out.kg_relationships_explored = seen
    decay = config.spreading_decay_factor
    best_seed = max(start.values())
    act: dict[str, float] = {}
    for key, r in reach.items():
        if r.hop == 0:
            continue
        # BFS keeps the strongest path; the seed activation is the best seed's score (paths from
        # weaker seeds would only lose the max).
        origin = max((start.get(k, 0.0) for k in start), default=best_seed)
        act[key] = origin * r.strength * decay ** r.hop
    keep: list[str] = []
    for level in range(1, hops + 1):  # the strongest non-hub entities of every level
        at = sorted((k for k, r in reach.items() if r.hop == level and r.fact_count <= HUB_FACTS),
                    key=lambda k: (-act[k], k))
        keep += at[: config.spreading_max_related_entities]
    out.entities_explored = sorted(keep)
    if not keep:
        return out
    seed_ids = {fid for fid, _, _ in seeds}
    for fid, key, _, _ in await linked_facts(conn, scope, keep, config.spreading_facts_per_entity):
        if fid in seed_ids:
            continue
        a = act[key]
        if a > out.activation.get(fid, 0.0):
            out.activation[fid] = a
        if reach[key].hop == 1:
            out.hop1_count += 1
        elif reach[key].hop == 2:
            out.hop2_count += 1
        else:
            out.hop3_count += 1
    return out
