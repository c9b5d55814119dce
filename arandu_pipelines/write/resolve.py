"""Entity resolution: surface names -> canonical entities, in the spec's three phases.

1. Exact: speaker pronouns, the alias cache (aliases, display names), slugs, and person
   diminutives ("Carol" -> "Carolina", 3+ characters, only when unambiguous).
2. Fuzzy: cosine similarity of name embeddings against the agent's entities of a compatible type
   (>= fuzzy_threshold resolves; fuzzy_min..threshold is ambiguous); difflib string similarity
   when no embedding is available.
3. LLM: ambiguous candidates go to the LLM when one is configured and enabled; otherwise (and on
   any LLM failure) a new entity is created — a duplicate is better than a wrong merge.

Exact resolution is pure (in-memory cache); fuzzy needs embeddings, so the pipeline runs exact
first for a whole chunk, embeds what is left together with the facts, then runs fuzzy.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.keys import (
    entity_key,
    fold,
    normalize_type,
    org_core,
    slugify,
    split_key,
)
from arandu_pipelines.store.engine import vecs
from arandu_pipelines.vocab import RELATIONSHIP_TERMS, SELF_REFERENCES
from arandu_pipelines.write.aliases import AgentAliases

SPEAKER_PRONOUNS = SELF_REFERENCES  # the names this module exported before vocab.py

# The name ends at its last non-space before "(": greedy, linear (a lazy name tried `\s*\(` from
# every space of a long run).
_HINT = re.compile(r"^(?P<name>[^()]*[^()\s])\s*\((?P<hint>[^()]*)\)\s*$")
_HINT_PERSON = re.compile(
    r"\b(girlfriend|boyfriend|wife|husband|partner|brother|sister|mother|father|mom|dad|son|"
    r"daughter|friend|boss|colleague|coworker|namorad[ao]|espos[ao]|marido|irm[ãa]o?|m[ãa]e|pai|"
    r"filh[ao]|amig[ao]|chefe|colega)\b",
    re.IGNORECASE,
)
_TYPE_COMPAT = {"other", "concept", ""}


@dataclass
class Resolved:
    key: str
    display_name: str
    entity_type: str
    method: str  # speaker | alias | slug | diminutive | chunk | fuzzy | string | llm | new
    mention: str
    is_new: bool = False
    embedding: list[float] | None = None
    aliases: list[str] = field(default_factory=list)


@dataclass
class Mention:
    name: str
    entity_type: str = "other"
    aliases: list[str] = field(default_factory=list)
    is_speaker: bool = False


def strip_relational_hint(
    name: str, entity_type: str, extra_hints: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """'Carol (Rafael's girlfriend)' -> ('Carol', 'person'). `extra_hints` are the deployer's
    `extra_relationship_hints` (folded words, e.g. "madrasta"), recognised like the built-in ones."""
    m = _HINT.match(name.strip())
    if m and (_HINT_PERSON.search(m.group("hint")) or (
            extra_hints and any(w in extra_hints for w in re.findall(r"[^\W_]+", fold(m.group("hint")))))):
        return m.group("name").strip(), "person"
    return name.strip(), entity_type


def speaker_key(speaker: str, aliases: AgentAliases) -> Resolved:
    hit = aliases.lookup(speaker)
    if hit is not None and split_key(hit.key)[0] == "person":
        return Resolved(hit.key, aliases.display.get(hit.key, speaker), "person", "speaker", speaker)
    return Resolved(entity_key("person", speaker), speaker, "person", "speaker", speaker)


class ChunkResolver:
    """Resolves the names of one chunk of messages of one agent, remembering what it created."""

    def __init__(self, agent_id: str, aliases: AgentAliases, config: MemoryConfig) -> None:
        self.agent_id = agent_id
        self.aliases = aliases
        self.config = config
        self.new_entities: dict[str, Resolved] = {}  # key -> entity created in this chunk
        self._persons = aliases.persons()
        # The open catalog: extra words meaning the speaker ("yo") and extra relationship terms
        # ("madrasta"), folded like every name they are compared with.
        self.self_references = SPEAKER_PRONOUNS | {fold(w) for w in config.extra_self_references}
        self.relationship_terms = RELATIONSHIP_TERMS | {fold(w) for w in config.extra_relationship_hints}
        self._extra_hints = frozenset(fold(w) for w in config.extra_relationship_hints)

    def strip_hint(self, name: str, entity_type: str) -> tuple[str, str]:
        return strip_relational_hint(name, normalize_type(entity_type), self._extra_hints)

    # ---- phase 1 -------------------------------------------------------------------------
    def exact(self, mention: Mention, speaker: str) -> Resolved | None:
        name, etype = self.strip_hint(mention.name, mention.entity_type)
        folded = fold(name)
        if not folded:
            return None
        if mention.is_speaker or folded in self.self_references or folded == fold(speaker):
            r = speaker_key(speaker, self.aliases)
            r.mention = mention.name
            return r
        if folded in self.relationship_terms:
            return self._relative(folded, speaker, mention.name)
        for candidate in [name, *mention.aliases]:
            hit = self.aliases.lookup(candidate)
            if hit is not None:
                display = self.aliases.display.get(hit.key, hit.text)
                return Resolved(hit.key, display, hit.entity_type, "alias", mention.name)
        key = entity_key(etype, name)
        if key in self.new_entities:
            e = self.new_entities[key]
            return Resolved(e.key, e.display_name, e.entity_type, "chunk", mention.name)
        for e in self.new_entities.values():  # same name, other type guess, earlier in the chunk
            if fold(e.display_name) == folded or folded in (fold(a) for a in e.aliases):
                return Resolved(e.key, e.display_name, e.entity_type, "chunk", mention.name)
        if key in self.aliases.display:
            return Resolved(key, self.aliases.display[key], etype, "slug", mention.name)
        if etype in ("organization", "other"):
            org_key = self._org_by_core(name)
            if org_key is not None:
                return Resolved(org_key, self._display(org_key), "organization", "org_core",
                                mention.name)
        if etype in ("person", "other") and len(folded) >= 3 and " " not in folded:
            return self._diminutive(folded, mention.name)
        return None

    def _display(self, key: str) -> str:
        e = self.new_entities.get(key)
        return e.display_name if e is not None else self.aliases.display.get(key, key)

    def _org_by_core(self, name: str) -> str | None:
        """An organisation named with or without its legal form ("Acme" for "Acme Corp", "Acme
        Corp" for "Acme"): the one known organisation with the same core name, if unambiguous."""
        core = org_core(name)
        if len(core) < 3:
            return None
        found = {k for k, d in self.aliases.display.items()
                 if split_key(k)[0] == "organization" and org_core(d) == core}
        found |= {k for k, e in self.new_entities.items()
                  if e.entity_type == "organization" and org_core(e.display_name) == core}
        return next(iter(found)) if len(found) == 1 else None

    def _relative(self, term: str, speaker: str, mention: str) -> Resolved:
        """A bare relationship term ("Mom") is the speaker's relative, not the speaker: facts about
        mom must not land on the speaker. Keyed per speaker so every "mom" of Rafael is one entity."""
        sp = speaker_key(speaker, self.aliases)
        display = f"{sp.display_name}'s {term}"
        key = entity_key("person", display)
        known = self.aliases.lookup(display)
        if known is not None:
            key = known.key
        r = Resolved(key, display, "person", "relationship_term", mention,
                     is_new=key not in self.aliases.display and key not in self.new_entities)
        if r.is_new:
            self.new_entities[key] = r
        return r

    def _diminutive(self, folded: str, mention: str) -> Resolved | None:
        matches = {key for name, key in self._persons if name.split(" ")[0].startswith(folded)}
        matches |= {
            e.key
            for e in self.new_entities.values()
            if e.entity_type == "person" and fold(e.display_name).split(" ")[0].startswith(folded)
        }
        if len(matches) != 1:
            return None
        key = matches.pop()
        display = self.aliases.display.get(key) or self.new_entities[key].display_name
        return Resolved(key, display, "person", "diminutive", mention)

    # ---- phase 2 + 3 -----------------------------------------------------------------------
    async def fuzzy(
        self,
        conn: AsyncConnection,
        mentions: list[tuple[Mention, list[float] | None]],
        llm_pick: Callable[[str, list[Resolved]], Awaitable[Resolved | None]] | None = None,
    ) -> list[Resolved]:
        """Resolve mentions that had no exact match, in order; creates entities as needed."""
        db_candidates = await self._db_candidates(conn, [e for _, e in mentions])
        out: list[Resolved] = []
        for (mention, emb), cands in zip(mentions, db_candidates, strict=True):
            name, etype = self.strip_hint(mention.name, mention.entity_type)
            again = self.exact(Mention(name, etype, mention.aliases), speaker="\x00")
            if again is not None:  # created earlier in this loop
                out.append(again)
                continue
            if emb is None:
                cands = string_candidates(self.aliases, name)
            cands = cands + self._chunk_candidates(emb, name)
            cands = [c for c in cands if _types_compatible(etype, c.entity_type)]
            cands.sort(key=lambda c: (-c.score, c.key))
            best = cands[0] if cands else None
            if best is not None and best.score >= self._threshold(emb):
                out.append(Resolved(best.key, best.display_name, best.entity_type,
                                    "fuzzy" if emb is not None else "string", mention.name))
                continue
            if (best is not None and emb is not None and best.score >= self.config.fuzzy_min_threshold
                    and llm_pick is not None and self.config.enable_llm_resolution):
                picked = await llm_pick(name, [c.as_resolved(mention.name) for c in cands[:3]])
                if picked is not None:
                    picked.method = "llm"
                    out.append(picked)
                    continue
            out.append(self._create(name, etype, mention, emb))
        return out

    def _threshold(self, emb: list[float] | None) -> float:
        return self.config.fuzzy_threshold if emb is not None else self.config.string_similarity_threshold

    def _create(self, name: str, etype: str, mention: Mention, emb: list[float] | None) -> Resolved:
        key = entity_key(etype, name)
        r = Resolved(key, name, etype, "new", mention.name, is_new=True, embedding=emb,
                     aliases=list(mention.aliases))
        self.new_entities[key] = r
        if etype == "person":
            self._persons.append((fold(name), key))
        return r

    def create(self, mention: Mention, emb: list[float] | None = None) -> Resolved:
        name, etype = self.strip_hint(mention.name, mention.entity_type)
        return self._create(name, etype, mention, emb)

    def _chunk_candidates(self, emb: list[float] | None, name: str) -> list[_Candidate]:
        out = []
        for e in self.new_entities.values():
            if emb is not None and e.embedding is not None:
                score = float(np.dot(np.asarray(emb), np.asarray(e.embedding)))
            else:
                score = difflib.SequenceMatcher(None, fold(name), fold(e.display_name)).ratio()
            out.append(_Candidate(e.key, e.display_name, e.entity_type, score))
        return out

    async def _db_candidates(
        self, conn: AsyncConnection, embs: list[list[float] | None]
    ) -> list[list[_Candidate]]:
        result: list[list[_Candidate]] = [[] for _ in embs]
        idx = [i for i, e in enumerate(embs) if e is not None]
        if idx:
            rows = (
                await conn.execute(
                    text(
                        "SELECT q.i, e.canonical_key, e.display_name, e.entity_type, e.sim "
                        "FROM unnest(CAST(:vecs AS vector[])) WITH ORDINALITY AS q(v, i) "
                        "CROSS JOIN LATERAL (SELECT canonical_key, display_name, entity_type, "
                        "1 - (embedding_vec <=> q.v) AS sim FROM memory_entities "
                        "WHERE agent_id = :a AND embedding_vec IS NOT NULL "
                        "ORDER BY embedding_vec <=> q.v LIMIT 5) e"
                    ),
                    {"a": self.agent_id, "vecs": vecs(embs[i] for i in idx)},
                )
            ).all()
            for r in rows:
                result[idx[r.i - 1]].append(
                    _Candidate(r.canonical_key, r.display_name or r.canonical_key, r.entity_type,
                               float(r.sim))
                )
        return result


@dataclass
class _Candidate:
    key: str
    display_name: str
    entity_type: str
    score: float

    def as_resolved(self, mention: str) -> Resolved:
        return Resolved(self.key, self.display_name, self.entity_type, "llm", mention)


def _types_compatible(a: str, b: str) -> bool:
    return a == b or a in _TYPE_COMPAT or b in _TYPE_COMPAT


def string_candidates(aliases: AgentAliases, name: str) -> list[_Candidate]:
    """difflib fallback when the embedding provider failed: compare against cached names."""
    folded = fold(name)
    out = []
    for key, display in aliases.display.items():
        score = difflib.SequenceMatcher(None, folded, fold(display)).ratio()
        out.append(_Candidate(key, display, split_key(key)[0], score))
    return out


__all__ = [
    "RELATIONSHIP_TERMS",
    "SPEAKER_PRONOUNS",
    "ChunkResolver",
    "Mention",
    "Resolved",
    "slugify",
    "speaker_key",
    "string_candidates",
    "strip_relational_hint",
]
