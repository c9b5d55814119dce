"""Informed extraction's zero-LLM steps: alias lookup and pre-retrieval / profile load.

1. **Alias lookup** — the message is scanned for the agent's known names (aliases, display
   names) on word boundaries: every run of up to N words of the folded message is looked up in
   the in-memory alias map (`ctx.known_aliases`, from the per-process alias cache), so the cost
   is linear in the message, not in the number of aliases. When the message speaks in the first
   person ("I", "my", "eu", "minha"), the speaker's own entity is recognised too (last, so named
   entities come first): what memory knows about the speaker is what "I moved" updates.
2. **Pre-retrieval / profile load** — one query maps the matched aliases to entities (with their
   `profile_text`); for the entities without a profile, one LATERAL query fetches the top-K
   (`informed_extraction_topk`) active facts linked to each, ordered by pgvector distance to the
   message (when an embedding provider is available; otherwise by importance and recency).
3. The context is formatted within `informed_extraction_context_budget_tokens` (chars / 4),
   filled round-robin so one entity with many facts cannot crowd out the others.

Everything is scoped by agent_id and set-based (two queries per message, whatever the number of
entities). Results land in `ctx.knowledge` and `ctx.known_entities`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import text as sql

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import fold
from arandu_pipelines.store.engine import vec
from arandu_pipelines.vocab import NOT_ALIASES
from arandu_pipelines.write.types import ExtractionContext

FIRST_PERSON = frozenset(
    {"i", "me", "my", "mine", "myself", "i'm", "im", "i've", "i'd", "i'll", "eu", "meu", "minha",
     "meus", "minhas", "mim", "comigo", "estou", "sou", "tenho"}
)
MAX_ENTITIES = 12
MIN_ALIAS_CHARS = 2
_WORD = re.compile(r"\w+(?:'\w+)?", re.UNICODE)
# pronouns and roles are never aliases; nor are articles
_IGNORED_ALIASES = NOT_ALIASES | {"the", "a", "an", "o", "os", "as", "de", "da", "do", "e"}


@dataclass
class KnownEntity:
    key: str
    name: str
    entity_type: str
    profile: str | None
    facts: list[tuple[str, float]] = field(default_factory=list)


def scan_aliases(message: str, known_aliases: dict[str, str]) -> list[str]:
    """Folded aliases found in `message` on word boundaries, in order of first appearance."""
    if not known_aliases or not message:
        return []
    folded = fold(message)
    spans = [(m.start(), m.end()) for m in _WORD.finditer(folded)]
    max_words = 1
    for alias in known_aliases:
        max_words = max(max_words, min(8, len(alias.split())))
    found: list[str] = []
    seen: set[str] = set()
    for i in range(len(spans)):
        for j in range(i, min(len(spans), i + max_words)):
            cand = folded[spans[i][0]:spans[j][1]]
            if cand in known_aliases and cand not in seen and len(cand) >= MIN_ALIAS_CHARS \
                    and cand not in _IGNORED_ALIASES:
                seen.add(cand)
                found.append(cand)
    return found


def speaks_in_first_person(message: str) -> bool:
    return any(t in FIRST_PERSON for t in (m.group(0) for m in _WORD.finditer(fold(message))))


def format_knowledge(entities: list[KnownEntity], budget_tokens: int) -> str:
    """Profiles and facts per entity within budget_tokens * 4 characters, filled round-robin."""
    budget = max(0, int(budget_tokens) * 4)
    if budget == 0 or not entities:
        return ""
    blocks: list[tuple[str, list[str]]] = []
    for e in entities:
        label = f"{e.name} ({e.entity_type})"
        if e.profile:
            blocks.append((f"[{label} profile]", [e.profile.strip()]))
        elif e.facts:
            blocks.append((f"[{label} facts]", [f"- {t} ({c:.2f})" for t, c in e.facts]))
    chosen: list[list[str]] = [[] for _ in blocks]
    used = 0
    depth = 0
    while True:
        progressed = False
        for b, (header, items) in enumerate(blocks):
            if depth >= len(items):
                continue
            item = items[depth]
            cost = len(item) + 1 + (len(header) + 1 if not chosen[b] else 0)
            if used + cost > budget:
                if not chosen[b] and budget - used > len(header) + 40:  # too long: truncate it
                    room = budget - used - len(header) - 2
                    chosen[b].append(item[: room - 1].rstrip() + "…")
                    used = budget
                continue
            chosen[b].append(item)
            used += cost
            progressed = True
        depth += 1
        if not progressed and depth > max((len(i) for _, i in blocks), default=0):
            break
    lines: list[str] = []
    for (header, items), picked in zip(blocks, chosen, strict=True):
        if not picked:
            continue
        if items and items[0].startswith("- "):
            lines.append(header)
            lines.extend(picked)
        else:
            lines.append(f"{header} {picked[0]}")
    return "\n".join(lines)


class KnowledgeLoader:
    """The pipeline's `load_knowledge(conn, ctx, text, config)` hook."""

    def __init__(self, embeddings: Any = None, on_registry: Any = None) -> None:
        self.embeddings = embeddings
        self.on_registry = on_registry  # callback(agent_id, conn) for per-agent side loads

    async def __call__(self, conn: Any, ctx: ExtractionContext, message: str, config: MemoryConfig) -> None:
        if self.on_registry is not None:
            await self.on_registry(ctx.agent_id, conn)
        if not config.enable_informed_extraction or not ctx.agent_id:
            return
        entities = await self.load(conn, ctx, message, config)
        ctx.known_entities = [e.key for e in entities]
        ctx.knowledge = format_knowledge(entities, config.informed_extraction_context_budget_tokens)

    async def load(self, conn: Any, ctx: ExtractionContext, message: str, config: MemoryConfig) -> list[KnownEntity]:
        aliases = scan_aliases(message, ctx.known_aliases)
        me = fold(ctx.speaker_name)
        if me and me not in aliases and speaks_in_first_person(message):
            aliases.append(me)
        if not aliases:
            return []
        rows = (
            await conn.execute(
                sql(
                    "SELECT e.canonical_key, e.display_name, e.entity_type, e.profile_text, "
                    "min(q.pos) AS pos "
                    "FROM unnest(CAST(:aliases AS text[])) WITH ORDINALITY AS q(alias, pos) "
                    "JOIN memory_entity_aliases a ON a.agent_id = :a AND a.alias = q.alias "
                    "JOIN memory_entities e ON e.agent_id = a.agent_id "
                    "AND e.canonical_key = a.canonical_entity_key "
                    "WHERE e.is_active "
                    "GROUP BY e.canonical_key, e.display_name, e.entity_type, e.profile_text "
                    "ORDER BY pos, e.canonical_key LIMIT :n"
                ),
                {"a": ctx.agent_id, "aliases": aliases, "n": MAX_ENTITIES},
            )
        ).all()
        entities = [
            KnownEntity(r.canonical_key, r.display_name or r.canonical_key, r.entity_type,
                        (r.profile_text or "").strip() or None)
            for r in rows
        ]
        need = [e for e in entities if not e.profile]
        k = max(0, int(config.informed_extraction_topk))
        if need and k:
            qv = None
            if self.embeddings is not None:
                try:
                    qv = await self.embeddings.embed_one(message[:2000])
                except Exception:  # noqa: BLE001 - optional embedding, fail-safe: rank by importance/recency instead
                    qv = None
            order = ("f.embedding_vec <=> CAST(:qv AS vector), f.importance DESC, f.id" if qv is not None
                     else "f.importance DESC, f.valid_from DESC, f.id")
            params: dict[str, Any] = {"a": ctx.agent_id, "keys": [e.key for e in need], "k": k}
            if qv is not None:
                params["qv"] = vec(qv)
            facts = (
                await conn.execute(
                    sql(
                        "SELECT q.k, t.fact_text, t.confidence FROM unnest(CAST(:keys AS text[])) "
                        "WITH ORDINALITY AS q(k, pos) CROSS JOIN LATERAL ("
                        " SELECT f.fact_text, f.confidence FROM memory_fact_entity_links l "
                        " JOIN memory_facts f ON f.id = l.fact_id AND f.agent_id = l.agent_id "
                        " WHERE l.agent_id = :a AND l.entity_key = q.k AND f.valid_to IS NULL "
                        f" ORDER BY {order} LIMIT :k) t ORDER BY q.pos"
                    ),
                    params,
                )
            ).all()
            by_key = {e.key: e for e in need}
            for r in facts:
                by_key[r.k].facts.append((r.fact_text, float(r.confidence)))
        return [e for e in entities if e.profile or e.facts]


__all__ = ["KnowledgeLoader", "KnownEntity", "format_knowledge", "scan_aliases", "speaks_in_first_person"]
