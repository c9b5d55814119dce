"""Resolving caller-supplied entity keys (canonical keys, aliased keys, or bare names)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.keys import fold, split_key


async def resolve_entity_keys(
    conn: AsyncConnection, agent_id: str, keys: list[str]
) -> tuple[list[str], list[str]]:
    """Return (canonical keys, warnings). Accepts `person:pedro_menezes`, `person:pedro` (an
    alias) or `pedro`; anything that does not resolve becomes a warning, never a silent zero."""
    keys = [k for k in dict.fromkeys(k.strip() for k in keys if isinstance(k, str)) if k]
    if not keys:
        return [], []
    canonical = {
        r[0]
        for r in (
            await conn.execute(
                text("SELECT canonical_key FROM memory_entities WHERE agent_id = :a "
                     "AND canonical_key = ANY(:k)"),
                {"a": agent_id, "k": keys},
            )
        ).all()
    }
    lookups: dict[str, tuple[str, str]] = {}
    for k in keys:
        if k in canonical:
            continue
        etype, slug = split_key(k)
        lookups[k] = (fold(slug.replace("_", " ")), etype)
    aliases: dict[str, list[tuple[str, str]]] = {}
    if lookups:
        rows = (
            await conn.execute(
                text("SELECT alias, canonical_entity_key, canonical_entity_type FROM "
                     "memory_entity_aliases WHERE agent_id = :a AND alias = ANY(:al)"),
                {"a": agent_id, "al": sorted({v[0] for v in lookups.values()})},
            )
        ).all()
        for r in rows:
            aliases.setdefault(r.alias, []).append((r.canonical_entity_key, r.canonical_entity_type))
    resolved: list[str] = []
    warnings: list[str] = []
    for k in keys:
        if k in canonical:
            resolved.append(k)
            continue
        alias, etype = lookups[k]
        hits = [key for key, t in aliases.get(alias, []) if not etype or t == etype]
        if hits:
            resolved.extend(h for h in hits if h not in resolved)
        else:
            warnings.append(f"entity_key '{k}' not found (not canonical, no matching alias)")
    return resolved, warnings
