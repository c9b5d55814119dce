"""Optional LLM reranker with the spec's multiplicative blend and veto.

    final = formula * ((1 - reranker_weight) + reranker_weight * reranker_score)
    reranker_score < min_reranker_score  ->  final = 0 (veto)

It runs only when the client has an LLM and `enable_reranker` is on; it sees the top
2 x topk_facts candidates. Any failure, malformed answer or timeout (`reranker_timeout_sec`,
enforced with asyncio.wait_for) leaves the formula ranking untouched: the reranker can improve an
answer, never break one. A fact the LLM did not score keeps its formula score.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Any

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read.rank import FactCandidate

_PROMPT = (
    "You rate how useful each memory fact is for answering the user's query.\n"
    "Score every fact from 0.0 (irrelevant, or about something else) to 1.0 (directly answers).\n"
    'Answer with JSON only: {"scores": [{"id": <number>, "score": <0..1>}, ...]}'
)


@dataclass
class RerankOutcome:
    applied: bool = False
    error: str | None = None
    scored: int = 0
    vetoed: list[str] = field(default_factory=list)
    tokens: int = 0


def _parse(raw: str, n: int) -> dict[int, float]:
    m = re.search(r"\{.*\}", raw, re.DOTALL)
    data = json.loads(m.group(0) if m else raw)
    items = data.get("scores", data) if isinstance(data, dict) else data
    out: dict[int, float] = {}
    if isinstance(items, dict):
        items = [{"id": k, "score": v} for k, v in items.items()]
    for it in items:
        try:
            i, s = int(it["id"]), float(it["score"])
        except (KeyError, TypeError, ValueError):
            continue
        if 1 <= i <= n:
            out[i] = min(max(s, 0.0), 1.0)
    return out


async def rerank(llm: Any, query: str, pool: list[FactCandidate], config: MemoryConfig) -> RerankOutcome:
    outcome = RerankOutcome()
    if llm is None or not config.enable_reranker or not pool:
        return outcome
    listing = "\n".join(f"{i}. {c.fact_text}" for i, c in enumerate(pool, start=1))
    messages = [
        {"role": "system", "content": _PROMPT},
        {"role": "user", "content": f"Query: {query}\n\nFacts:\n{listing}"},
    ]
    try:
        result = await asyncio.wait_for(
            llm.complete(messages, temperature=0, response_format={"type": "json_object"},
                         max_tokens=40 + 16 * len(pool)),
            timeout=config.reranker_timeout_sec,
        )
        scores = _parse(getattr(result, "text", str(result)), len(pool))
        usage = getattr(result, "usage", None)
        outcome.tokens = int(getattr(usage, "total_tokens", 0) or 0) if usage else 0
    except TimeoutError:
        outcome.error = f"timeout after {config.reranker_timeout_sec}s"
        return outcome
    except Exception as exc:  # noqa: BLE001 - optional reranker, fail-safe: formula ranking kept, error recorded
        outcome.error = f"{type(exc).__name__}: {exc}"[:300]
        return outcome
    w = min(max(config.reranker_weight, 0.0), 1.0)
    for i, c in enumerate(pool, start=1):
        if i not in scores:
            continue
        r = scores[i]
        c.scores["reranker"] = r
        if r < config.min_reranker_score:
            c.score = 0.0
            outcome.vetoed.append(c.id)
        else:
            c.score = c.formula * ((1 - w) + w * r)
    outcome.applied = True
    outcome.scored = len(scores)
    return outcome
