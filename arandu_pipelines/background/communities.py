"""Sleep-time job 3: entity communities — connected components of the relationship graph.

Active entities and active edges with ``strength >= 0.3`` are loaded; union-find (path
compression, union by rank) finds the connected components; every component of two or more
entities is a community, named ``community:<smallest canonical key>`` so the name is stable
while the component keeps that member. The name is written to ``memory_entities.community_key``
(cleared for entities no longer in a community) with one UPDATE, only where it changes.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import Timer, UnionFind, agent_transaction
from arandu_pipelines.background.results import EntityCommunitiesResult
from arandu_pipelines.config import MemoryConfig

MIN_EDGE_STRENGTH = 0.3
MIN_MEMBERS = 2


async def detect_entity_communities(
    engine: Any,
    agent_id: str,
    config: MemoryConfig | None = None,
    min_strength: float = MIN_EDGE_STRENGTH,
) -> EntityCommunitiesResult:
    timer = Timer()
    async with agent_transaction(engine, agent_id) as conn:
        entities = [
            r.canonical_key
            for r in await conn.execute(
                text("SELECT canonical_key FROM memory_entities WHERE agent_id = :a AND is_active"),
                {"a": agent_id},
            )
        ]
        edges = (
            await conn.execute(
                text(
                    "SELECT source_entity_key, target_entity_key FROM memory_entity_relationships "
                    "WHERE agent_id = :a AND valid_to IS NULL AND strength >= :s"
                ),
                {"a": agent_id, "s": min_strength},
            )
        ).all()
        uf = UnionFind(entities)
        known = set(entities)
        for s, t in edges:
            if s in known and t in known:
                uf.union(s, t)
        comps = uf.components(MIN_MEMBERS)
        assigned = {k: f"community:{c[0]}"[:160] for c in comps for k in c}
        keys = sorted(known)
        res = await conn.execute(
            text(
                "UPDATE memory_entities e SET community_key = q.c "
                "FROM unnest(CAST(:k AS text[]), CAST(:c AS text[])) AS q(k, c) "
                "WHERE e.agent_id = :a AND e.canonical_key = q.k "
                "AND e.community_key IS DISTINCT FROM q.c"
            ),
            {"a": agent_id, "k": keys, "c": [assigned.get(k) for k in keys]},
        )
        updated = res.rowcount or 0
        names = {
            r.canonical_key: r.display_name or r.canonical_key
            for r in await conn.execute(
                text("SELECT canonical_key, display_name FROM memory_entities WHERE agent_id = :a "
                     "AND canonical_key = ANY(CAST(:k AS text[]))"),
                {"a": agent_id, "k": list(assigned)},
            )
        }
    return EntityCommunitiesResult(
        communities_found=len(comps),
        total_entities_assigned=len(assigned),
        entities_updated=updated,
        communities=comps,
        preview=[
            {"community": f"community:{c[0]}", "size": len(c),
             "members": ", ".join(names.get(k, k) for k in c[:8]) + (" …" if len(c) > 8 else "")}
            for c in comps[:10]
        ],
        duration_ms=timer.ms,
    )
