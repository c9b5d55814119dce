"""Procedural memory: learned behavioural directives compressed into one instruction block.

Directives are the agent's active `memory_meta_observations` of type ``directive`` (title = a
short name, text = the instruction, confidence, times_reinforced, created_at, embedding).

* `effective_confidence` — ``base * 0.95 ** weeks`` since creation, floored at 0.10.
* `generate_optimized_directives` — persona + directives (strongest first, by effective
  confidence) -> one LLM call -> a cohesive English block of at most `directive_max_tokens`. The
  block is cached per agent by a hash of the directive ids + reinforcement counts (+ persona),
  for `directive_cache_ttl_minutes`; `invalidate_directive_cache(agent_id)` drops it. Fail-safe:
  any failure returns an empty `DirectiveBlock` (and caches nothing).
* `check_directive_contradiction` — embedding similarity pre-filter (directives with cosine
  similarity >= `similarity_threshold` to the new one), then the LLM judges only those. No
  similar directive -> no LLM call. Fail-safe: any failure returns "no contradiction".
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from arandu_pipelines.background._common import engine_of
from arandu_pipelines.background._llm import ask, english_text
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.providers.json_parse import as_bool, as_str
from arandu_pipelines.store.engine import vec

DIRECTIVE_TYPE = "directive"
DECAY_PER_WEEK = 0.95
CONFIDENCE_FLOOR = 0.10
MAX_DIRECTIVES = 30
MAX_CANDIDATES = 5
DIRECTIVES_TASK = "directives"
CONTRADICTION_TASK = "directive_contradiction"


@dataclass
class DirectiveBlock:
    text: str = ""
    directive_count: int = 0
    cache_hit: bool = False


@dataclass
class ContradictionResult:
    has_contradiction: bool = False
    conflicting_directive: str | None = None
    resolution: str | None = None


def effective_confidence(base_confidence: float, created_at: datetime, now: datetime | None = None) -> float:
    now = now or datetime.now(UTC)
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    weeks = max(0.0, (now - created_at).total_seconds() / (7 * 86400))
    return max(CONFIDENCE_FLOOR, float(base_confidence) * DECAY_PER_WEEK ** weeks)


# agent_id -> (key, expires at (monotonic), block)
_CACHE: dict[str, tuple[str, float, DirectiveBlock]] = {}


def invalidate_directive_cache(agent_id: str) -> None:
    _CACHE.pop(agent_id, None)


_SYSTEM = (
    "Merge the persona and the learned behavioural directives below into ONE cohesive block of "
    "instructions for the assistant, in the second person ('You ...'). Stronger directives "
    "(higher confidence) win over weaker ones; drop duplicates; keep every distinct directive. "
    'Format: {"directives": "<the block>"}'
)
_JUDGE = (
    "Decide whether the NEW directive contradicts any of the EXISTING directives (they cannot both "
    "be followed). Similar or compatible directives are not contradictions. "
    'Format: {"contradiction": true|false, "conflicting": "D<n>" | null, "resolution": "<how to '
    'resolve it, e.g. the newer directive replaces the older>" | null}'
)


async def _directives(engine: Any, agent_id: str) -> list[Any]:
    async with engine_of(engine).connect() as conn:
        return list((await conn.execute(text(
            "SELECT id::text AS id, title, text AS body, confidence, times_reinforced, created_at "
            "FROM memory_meta_observations WHERE agent_id = :a AND observation_type = :t AND is_active "
            "ORDER BY id"), {"a": agent_id, "t": DIRECTIVE_TYPE})).all())


async def generate_optimized_directives(
    engine: Any, agent_id: str, llm: Any, config: MemoryConfig | None = None, *,
    persona_text: str = "", now: datetime | None = None, usage: Any = None,
) -> DirectiveBlock:
    config = config or MemoryConfig()
    try:
        rows = await _directives(engine, agent_id)
        if not rows and not persona_text.strip():
            return DirectiveBlock()
        key = hashlib.sha256("|".join(
            [persona_text] + [f"{r.id}:{r.times_reinforced}" for r in rows]).encode()).hexdigest()
        hit = _CACHE.get(agent_id)
        if hit is not None and hit[0] == key and hit[1] > time.monotonic():
            b = hit[2]
            return DirectiveBlock(b.text, b.directive_count, True)
        if llm is None:
            return DirectiveBlock()
        ranked = sorted(rows, key=lambda r: (-effective_confidence(r.confidence, r.created_at, now), r.id))
        ranked = ranked[:MAX_DIRECTIVES]
        listing = "\n".join(f"- [{effective_confidence(r.confidence, r.created_at, now):.2f}] {r.title}: {r.body}"
                            for r in ranked) or "- none"
        user = f"Persona:\n{persona_text.strip() or '-'}\n\nDirectives (confidence, strongest first):\n{listing}"
        limit = int(config.directive_max_tokens)
        block_text = await ask(
            llm, DIRECTIVES_TASK, _SYSTEM + f" At most {limit} tokens.", user, usage=usage,
            validate=lambda v: english_text(v.get("directives") if isinstance(v, dict) else None,
                                            min_words=3, max_tokens=limit),
            max_tokens=limit + 50)
        block = DirectiveBlock(block_text, len(ranked), False)
        _CACHE[agent_id] = (key, time.monotonic() + 60 * float(config.directive_cache_ttl_minutes), block)
        return block
    except Exception:  # noqa: BLE001 - optional LLM stage, fail-safe: the prompt gets no learned directives
        return DirectiveBlock()


async def check_directive_contradiction(
    engine: Any, agent_id: str, new_directive: str, embeddings: Any, llm: Any, *,
    similarity_threshold: float = 0.80, usage: Any = None,
) -> ContradictionResult:
    try:
        emb = await embeddings.embed_one(new_directive)
        if emb is None:
            return ContradictionResult()
        async with engine_of(engine).connect() as conn:
            cands = (await conn.execute(text(
                "SELECT title, text AS body, 1 - (embedding_vec <=> CAST(:v AS vector)) AS sim "
                "FROM memory_meta_observations WHERE agent_id = :a AND observation_type = :t AND is_active "
                "AND embedding_vec IS NOT NULL AND 1 - (embedding_vec <=> CAST(:v AS vector)) >= :thr "
                "ORDER BY sim DESC, id LIMIT :n"),
                {"a": agent_id, "t": DIRECTIVE_TYPE, "v": vec(emb), "thr": float(similarity_threshold),
                 "n": MAX_CANDIDATES})).all()
        if not cands or llm is None:
            return ContradictionResult()
        labels = {f"D{i}": c for i, c in enumerate(cands, start=1)}

        def validate(v: Any) -> ContradictionResult:
            if not isinstance(v, dict) or "contradiction" not in v:
                raise ValueError("no 'contradiction' verdict")
            if not as_bool(v["contradiction"]):
                return ContradictionResult()
            c = labels.get(str(v.get("conflicting")))
            if c is None:
                raise ValueError("contradiction without a known conflicting directive")
            return ContradictionResult(True, c.title, as_str(v.get("resolution"), 500))

        user = f"NEW: {new_directive}\nEXISTING:\n" + "\n".join(
            f"{k}: {c.title}: {c.body}" for k, c in labels.items())
        return await ask(llm, CONTRADICTION_TASK, _JUDGE, user, usage=usage, validate=validate, max_tokens=200)
    except Exception:  # noqa: BLE001 - optional LLM stage, fail-safe: no contradiction reported
        return ContradictionResult()


__all__ = [
    "DIRECTIVE_TYPE",
    "ContradictionResult",
    "DirectiveBlock",
    "check_directive_contradiction",
    "effective_confidence",
    "generate_optimized_directives",
    "invalidate_directive_cache",
]
