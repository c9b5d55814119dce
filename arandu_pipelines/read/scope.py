"""What a retrieve call may see, as SQL predicates shared by every index step.

- agent isolation: every statement filters on agent_id (it leads every index);
- time travel (`as_of`): facts valid and already known at T (valid_from <= T < valid_to, and
  ingested_at <= T), messages that had happened and been stored by T, relationships valid then;
- `session_id`: only that conversation's messages and the facts extracted from it;
- `entity_keys`: facts linked (or primarily about) one of the entities; messages that are the
  source of such a fact, spoken by the entity, or that mention its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass
class Scope:
    agent_id: str
    session_id: str | None = None
    as_of: datetime | None = None
    entity_keys: list[str] | None = None  # resolved canonical keys; [] = nothing matches
    entity_names: list[str] = field(default_factory=list)
    min_confidence: float = 0.0

    def params(self) -> dict[str, Any]:
        return {"a": self.agent_id, "sid": self.session_id, "asof": self.as_of,
                "ekeys": list(self.entity_keys or []), "enames": list(self.entity_names),
                "minconf": self.min_confidence}

    def facts(self, t: str = "t", confidence: bool = True) -> str:
        parts = [self.valid(t)]
        if confidence:
            parts.append(f"{t}.confidence >= :minconf")
        if self.session_id is not None:
            parts.append(f"{t}.session_id = :sid")
        if self.entity_keys is not None:
            parts.append(
                f"({t}.entity_key = ANY(CAST(:ekeys AS text[])) OR {t}.id IN (SELECT l.fact_id FROM "
                "memory_fact_entity_links l WHERE l.agent_id = :a AND l.entity_key = ANY(CAST(:ekeys AS text[]))))"
            )
        return " AND ".join(parts)

    def valid(self, t: str = "t") -> str:
        if self.as_of is None:
            return f"{t}.valid_to IS NULL"
        return (f"{t}.valid_from <= :asof AND ({t}.valid_to IS NULL OR {t}.valid_to > :asof) "
                f"AND {t}.ingested_at <= :asof")

    def events(self, t: str = "t") -> str:
        parts = ["true"]
        if self.as_of is not None:
            parts.append(f"{t}.occurred_at <= :asof AND {t}.created_at <= :asof")
        if self.session_id is not None:
            parts.append(f"{t}.session_id = :sid")
        if self.entity_keys is not None:
            parts.append(
                f"({t}.speaker = ANY(CAST(:enames AS text[])) OR {t}.id IN (SELECT f.source_event_id FROM "
                "memory_facts f WHERE f.agent_id = :a AND (f.entity_key = ANY(CAST(:ekeys AS text[])) OR f.id IN "
                "(SELECT l.fact_id FROM memory_fact_entity_links l WHERE l.agent_id = :a AND "
                "l.entity_key = ANY(CAST(:ekeys AS text[]))))) OR "
                f"{t}.search_vector @@ (SELECT coalesce(string_agg(q::text, ' | '), '')::tsquery FROM "
                "unnest(CAST(:enames AS text[])) n, plainto_tsquery('english', n) q WHERE q::text <> ''))"
            )
        return " AND ".join(parts)

    def relationships(self, t: str = "r") -> str:
        if self.as_of is None:
            return f"{t}.valid_to IS NULL"
        return (f"{t}.valid_from <= :asof AND ({t}.valid_to IS NULL OR {t}.valid_to > :asof) "
                f"AND {t}.created_at <= :asof")
