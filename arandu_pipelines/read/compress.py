"""Context compression with the specification's signatures (`compress_context`,
`compress_broad_context`): facts and events as dicts in, a `CompressedContext` out.

`compress_context` converts the dicts and calls the formatter `retrieve()` uses (format.py), so
the tiers, budget and wording are the same; `compress_broad_context` is the cluster-first variant
for broad questions ("tell me everything about work"): one section per cluster, its summary then
its best facts, within the same budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.read import format as _format
from arandu_pipelines.read.types import ScoredEvent, ScoredFact
from arandu_pipelines.store.targets import field_of

FactDict = Mapping[str, object]


@dataclass
class CompressedContext:
    context_text: str = ""
    hot_count: int = 0
    warm_count: int = 0
    cold_count: int = 0
    total_tokens: int = 0


def _dt(v: object) -> datetime | None:
    if isinstance(v, datetime):
        return v if v.tzinfo else v.replace(tzinfo=UTC)
    if isinstance(v, str) and v:
        try:
            return _dt(datetime.fromisoformat(v))
        except ValueError:
            return None
    return None


def _opt(v: object) -> str | None:
    return None if v is None else str(v)


def _num(v: object, default: float) -> float:
    return float(v) if isinstance(v, (int, float)) else default


def _fact(d: FactDict) -> ScoredFact:
    return ScoredFact(
        fact_id=str(field_of(d, "fact_id", "id") or ""), entity_key=str(field_of(d, "entity_key") or ""),
        entity_name=str(field_of(d, "entity_name") or ""), attribute_key=_opt(field_of(d, "attribute_key")),
        fact_text=str(field_of(d, "fact_text", "text") or ""),
        score=_num(field_of(d, "final_score", "score"), 0.0),
        valid_from=_dt(field_of(d, "valid_from")), event_date=_dt(field_of(d, "event_date")),
        speaker=_opt(field_of(d, "speaker")))


def _event(d: FactDict) -> ScoredEvent:
    return ScoredEvent(
        event_id=str(field_of(d, "event_id", "id") or ""), message_id=None, metadata={},
        session_id=str(field_of(d, "session_id") or ""), speaker=_opt(field_of(d, "speaker")),
        text=str(field_of(d, "text") or ""),
        occurred_at=_dt(field_of(d, "occurred_at", "date")) or datetime.now(UTC),
        score=_num(field_of(d, "score"), 0.0))


def _patterns(*groups: Sequence[object] | None) -> list[_format.Pattern]:
    out: list[_format.Pattern] = []
    for group in groups:
        for o in group or []:
            title = str(field_of(o, "title", "label") or "")
            body = str(field_of(o, "text", "summary_text", "summary") or "")
            if title or body:
                out.append(_format.Pattern(title, body))
    return out


async def compress_context(
    facts: list[dict[str, object]],
    events: list[dict[str, object]],
    config: MemoryConfig,
    *,
    clusters: list[object] | None = None,
    meta_observations: list[object] | None = None,
    stale_keys: set[str] | None = None,
    stale_threshold_days: int = 90,
    now: datetime | None = None,
) -> CompressedContext:
    """Tiered context: top facts (hot, warm), then observed patterns (meta-observations, then
    cluster summaries: cold), then conversation snippets, within `config.context_max_tokens`.
    Facts whose entity is in `stale_keys` and that are older than `stale_threshold_days` are
    left out. Facts keep the order given (sort them by score first)."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(days=stale_threshold_days)
    scored = [_fact(f) for f in facts]
    if stale_keys:
        scored = [f for f in scored if f.entity_key not in stale_keys
                  or (f.valid_from is not None and f.valid_from >= cutoff)]
    text, stats = _format.compress_context(scored, [_event(e) for e in events],
                                           _patterns(meta_observations, clusters), config, dated=False)
    return CompressedContext(text, int(stats["hot_count"]), int(stats["warm_count"]),
                             int(stats["cold_count"]), int(stats["total_tokens"]))


async def compress_broad_context(
    cluster_facts: dict[str, list[dict[str, object]]],
    clusters: list[object],
    config: MemoryConfig,
    *,
    meta_observations: list[object] | None = None,
    events: list[dict[str, object]] | None = None,
) -> CompressedContext:
    """Cluster-first context: for each cluster (in the order given; `id` keys `cluster_facts`),
    its label and summary, then its facts, while the fact budget (hot + warm share of
    `context_max_tokens`) lasts; the first cluster is always shown. Patterns and events follow
    as in `compress_context`."""
    budget = max(config.context_max_tokens, 1)
    fact_budget = int(budget * (config.hot_tier_ratio + config.warm_tier_ratio))
    hot_budget = int(budget * config.hot_tier_ratio)
    sections: list[str] = []
    used = hot = warm = 0
    for c in clusters:
        cid = str(field_of(c, "id", "cluster_id") or "")
        label = str(field_of(c, "label", "title") or cid)
        summary = str(field_of(c, "summary_text", "summary") or "").strip()
        head = f"{label}: {summary}" if summary else label
        if sections and used + _format.tokens(head) > fact_budget:
            break
        lines, used = [head], used + _format.tokens(head)
        for f in cluster_facts.get(cid, []):
            line = _format.fact_line(_fact(f), dated=False)
            if used + _format.tokens(line) > fact_budget and len(lines) > 1:
                break
            lines.append(line)
            used += _format.tokens(line)
            if used <= hot_budget:
                hot += 1
            else:
                warm += 1
        sections.append("\n".join(lines))
    rest, stats = _format.compress_context([], [_event(e) for e in events or []],
                                           _patterns(meta_observations), config, dated=False)
    text = "\n\n".join(s for s in (("Known topics:\n" + "\n\n".join(sections)) if sections else "", rest) if s)
    return CompressedContext(text, hot, warm, int(stats["cold_count"]), _format.tokens(text))


__all__ = ["CompressedContext", "compress_broad_context", "compress_context"]
