"""Per-process cache of an agent's aliases, so exact entity resolution and the extractor's alias
scan cost no query per message.

The cache is refreshed incrementally at the start of every write chunk (one cheap query); a drop
in the alias count (delete_all, entity deletion) triggers a full reload. Aliases are first-write-
wins in the database, so a cache that is a moment stale can only miss an alias, never contradict
one that exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.keys import fold, split_key


@dataclass
class AliasEntry:
    key: str
    entity_type: str
    text: str  # the alias as written


@dataclass
class AgentAliases:
    agent_id: str
    by_alias: dict[str, AliasEntry] = field(default_factory=dict)  # folded alias -> entry
    display: dict[str, str] = field(default_factory=dict)  # canonical key -> display name
    count: int = 0
    last_created: datetime | None = None

    def lookup(self, name: str) -> AliasEntry | None:
        return self.by_alias.get(fold(name))

    def add(self, alias: str, key: str, entity_type: str, display_name: str | None = None) -> None:
        folded = fold(alias)
        if folded and folded not in self.by_alias:
            self.by_alias[folded] = AliasEntry(key=key, entity_type=entity_type, text=alias)
        if display_name and key not in self.display:
            self.display[key] = display_name

    def persons(self) -> list[tuple[str, str]]:
        """(folded display name, key) of person entities, for diminutive matching."""
        out = []
        for key, name in self.display.items():
            if split_key(key)[0] == "person":
                out.append((fold(name), key))
        out.sort()
        return out

    def known_names(self) -> dict[str, str]:
        """folded alias -> display name of its entity (what the extractor scans for)."""
        return {a: self.display.get(e.key, e.text) for a, e in self.by_alias.items()}

    def known_types(self) -> dict[str, str]:
        return {self.display.get(e.key, e.text): e.entity_type for e in self.by_alias.values()}


class AliasCache:
    def __init__(self) -> None:
        self._agents: dict[str, AgentAliases] = {}

    def forget(self, agent_id: str) -> None:
        self._agents.pop(agent_id, None)

    async def get(self, conn: AsyncConnection, agent_id: str) -> AgentAliases:
        state = self._agents.get(agent_id)
        stats = (
            await conn.execute(
                text(
                    "SELECT count(*) AS n, max(created_at) AS last FROM memory_entity_aliases "
                    "WHERE agent_id = :a"
                ),
                {"a": agent_id},
            )
        ).one()
        if state is not None and stats.n == state.count and stats.last == state.last_created:
            return state
        if state is None or stats.n < state.count:
            state = AgentAliases(agent_id=agent_id)
            since = None
        else:
            since = state.last_created
        rows = (
            await conn.execute(
                text(
                    "SELECT a.alias, a.alias_text, a.canonical_entity_key, a.canonical_entity_type, "
                    "a.created_at, e.display_name FROM memory_entity_aliases a "
                    "LEFT JOIN memory_entities e ON e.agent_id = a.agent_id "
                    "AND e.canonical_key = a.canonical_entity_key "
                    "WHERE a.agent_id = :a AND (CAST(:since AS timestamptz) IS NULL "
                    "OR a.created_at >= :since) ORDER BY a.created_at, a.alias"
                ),
                {"a": agent_id, "since": since},
            )
        ).all()
        for r in rows:
            state.add(r.alias_text or r.alias, r.canonical_entity_key, r.canonical_entity_type,
                      r.display_name)
        state.count = stats.n
        state.last_created = stats.last
        self._agents[agent_id] = state
        return state
