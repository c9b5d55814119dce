"""The background jobs with the specification's signatures (its `from arandu import run_memify`).

Each function is the job of the same name in this package, reached through one adapter that
accepts both spellings of every argument:

* the database handle: the spec's `session` (an `AsyncSession`, first positional), or ours, an
  `AsyncEngine` / `MemoryClient` (positional or `engine=`). The job runs on the session's engine
  in its own transactions (it holds the agent's advisory lock and commits in steps);
* the providers: `llm_provider=` / `embedding_provider=` (spec) or `llm=` / `embeddings=` (ours);
* positional order: the specification puts the providers before `config`
  (`run_memify(session, agent_id, llm, embeddings, config)`), ours puts `config` first
  (`run_memify(engine, agent_id, config, llm, embeddings)`). Both are accepted: a provider in
  the config slot means the spec's order.

Without an LLM every job takes its deterministic offline path, as the jobs themselves do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from arandu_pipelines import validate
from arandu_pipelines.background import clustering as _clustering
from arandu_pipelines.background import communities as _communities
from arandu_pipelines.background import consolidation as _consolidation
from arandu_pipelines.background import emotions as _emotions
from arandu_pipelines.background import importance as _importance
from arandu_pipelines.background import memify as _memify
from arandu_pipelines.background import summaries as _summaries
from arandu_pipelines.background.results import (
    ClusteringResult,
    CommunityDetectionResult,
    ConsolidationResult,
    EmotionalTrendsResult,
    EntityCommunitiesResult,
    EntityImportanceResult,
    MemifyResult,
    ProfileConsolidationResult,
    SummaryRefreshResult,
)
from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.errors import ValidationError
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.store.targets import DatabaseTarget, one_of, target_of


def _agent(agent_id: str) -> str:
    """The agent, validated like every public entry point (required; `session` being first
    and optional only lets `engine=` stand in for it)."""
    return validate.identifier("agent_id", agent_id)


def _spec_positional(config_slot: object) -> bool:
    """A provider where our signature has `config`: the caller used the specification's
    positional order (providers first, config last), which is accepted too."""
    return config_slot is not None and not isinstance(config_slot, MemoryConfig)


def _config(value: object) -> MemoryConfig | None:
    if value is None or isinstance(value, MemoryConfig):
        return value
    raise ValidationError(f"config must be a MemoryConfig, got {type(value).__name__}")


def _provider(value: object) -> object:
    if isinstance(value, MemoryConfig):
        raise ValidationError("a MemoryConfig was passed where a provider goes: pass config= by keyword")
    return value


# Providers are structural (any object with the methods): checked where used, so cast here.
def _llm(llm_provider: LLMProvider | None, llm: object) -> LLMProvider | None:
    return one_of("llm_provider", llm_provider, "llm", cast("LLMProvider | None", llm))


def _emb(embedding_provider: EmbeddingProvider | None, embeddings: object) -> EmbeddingProvider | None:
    return one_of("embedding_provider", embedding_provider, "embeddings",
                  cast("EmbeddingProvider | None", embeddings))


async def compute_entity_importance(
    session: DatabaseTarget | None = None, agent_id: str = "", config: MemoryConfig | None = None,
    now: datetime | None = None, top: int = 10, *, engine: DatabaseTarget | None = None,
) -> EntityImportanceResult:
    """Score every active entity 0..1 (fact density, recency, retrieval, degree). SQL only."""
    return await _importance.compute_entity_importance(target_of(session, engine), _agent(agent_id), config, now, top)


async def refresh_entity_summaries(
    session: DatabaseTarget | None = None, agent_id: str = "", llm_provider: LLMProvider | None = None,
    config: MemoryConfig | None = None, *, llm: LLMProvider | None = None, limit: int | None = None,
    engine: DatabaseTarget | None = None,
) -> SummaryRefreshResult:
    """Rewrite stale entity summaries, most important entities first."""
    if isinstance(llm_provider, MemoryConfig):  # ours: (engine, agent_id, config, llm)
        llm_provider, config = config if not isinstance(config, MemoryConfig) else None, llm_provider
    return await _summaries.refresh_entity_summaries(
        target_of(session, engine), _agent(agent_id), config, _llm(llm_provider, llm), limit)


async def consolidate_entity_profiles(
    session: DatabaseTarget | None = None, agent_id: str = "", llm_provider: LLMProvider | None = None,
    config: MemoryConfig | None = None, *, llm: LLMProvider | None = None, limit: int | None = None,
    engine: DatabaseTarget | None = None,
) -> ProfileConsolidationResult:
    """Rebuild stale entity profiles from all their active facts, entities with most facts first."""
    if isinstance(llm_provider, MemoryConfig):
        llm_provider, config = config if not isinstance(config, MemoryConfig) else None, llm_provider
    return await _summaries.consolidate_entity_profiles(
        target_of(session, engine), _agent(agent_id), config, _llm(llm_provider, llm), limit)


@dataclass
class ProfileRunResult:
    """What `run_profile_consolidation` did: the summary refresh, then the profile rebuild."""

    summaries: SummaryRefreshResult = field(default_factory=SummaryRefreshResult)
    profiles: ProfileConsolidationResult = field(default_factory=ProfileConsolidationResult)


async def run_profile_consolidation(
    session: DatabaseTarget | None = None, agent_id: str = "", llm_provider: LLMProvider | None = None,
    config: MemoryConfig | None = None, *, llm: LLMProvider | None = None,
    engine: DatabaseTarget | None = None,
) -> ProfileRunResult:
    """The spec's L3 consolidation: refresh entity summaries, then the entity profiles."""
    eng, agent, provider = target_of(session, engine), _agent(agent_id), _llm(llm_provider, llm)
    summaries = await _summaries.refresh_entity_summaries(eng, agent, config, provider)
    profiles = await _summaries.consolidate_entity_profiles(eng, agent, config, provider)
    return ProfileRunResult(summaries, profiles)


async def detect_entity_communities(
    session: DatabaseTarget | None = None, agent_id: str = "", config: MemoryConfig | None = None,
    min_strength: float = _communities.MIN_EDGE_STRENGTH, *, engine: DatabaseTarget | None = None,
) -> EntityCommunitiesResult:
    """Connected components of the relationship graph (edges with strength >= min_strength)."""
    return await _communities.detect_entity_communities(target_of(session, engine), _agent(agent_id), config, min_strength)


async def cluster_facts(
    session: DatabaseTarget | None = None, agent_id: str = "",
    embedding_provider: EmbeddingProvider | None = None,
    llm_provider: LLMProvider | MemoryConfig | None = None,
    config: MemoryConfig | LLMProvider | None = None, *,
    embeddings: EmbeddingProvider | None = None, llm: LLMProvider | None = None,
    engine: DatabaseTarget | None = None,
) -> ClusteringResult:
    """Group the agent's facts into clusters (spec name: `cluster_user_facts`)."""
    if isinstance(llm_provider, MemoryConfig) or (config is not None and not isinstance(config, MemoryConfig)):
        llm_provider, config = config, llm_provider  # ours: (engine, agent_id, embeddings, config, llm)
    if isinstance(llm_provider, MemoryConfig) or not (config is None or isinstance(config, MemoryConfig)):
        raise ValidationError("cluster_user_facts: pass one MemoryConfig (config=) and one LLM provider")
    return await _clustering.cluster_facts(target_of(session, engine), _agent(agent_id),
                                           _emb(embedding_provider, embeddings), config, _llm(llm_provider, llm))


#: The specification's historical name.
cluster_user_facts = cluster_facts


async def detect_communities(
    session: DatabaseTarget | None = None, agent_id: str = "",
    config: MemoryConfig | EmbeddingProvider | None = None,
    embeddings: EmbeddingProvider | LLMProvider | None = None,
    llm: LLMProvider | MemoryConfig | None = None, *,
    embedding_provider: EmbeddingProvider | None = None, llm_provider: LLMProvider | None = None,
    engine: DatabaseTarget | None = None,
) -> CommunityDetectionResult:
    """Group clusters whose centroids are similar into `community_theme` observations."""
    cfg: object = config  # plain objects: the spec's positional order may be swapped in
    emb: object = embeddings
    lm: object = llm
    if _spec_positional(config):  # spec: (session, agent_id, embedding_provider, llm_provider, config)
        emb, lm, cfg = config, embeddings, llm
    return await _clustering.detect_communities(target_of(session, engine), _agent(agent_id), _config(cfg),
                                                _emb(embedding_provider, _provider(emb)),
                                                _llm(llm_provider, _provider(lm)))


async def run_consolidation(
    session: DatabaseTarget | None = None, agent_id: str = "",
    config: MemoryConfig | LLMProvider | None = None,
    llm: LLMProvider | MemoryConfig | None = None, now: datetime | None = None, *,
    llm_provider: LLMProvider | None = None, engine: DatabaseTarget | None = None,
) -> ConsolidationResult:
    """Patterns, contradictions and trends of the lookback window as meta-observations (L2)."""
    if _spec_positional(config):  # spec: (session, agent_id, llm_provider, config)
        llm, config = config, llm
    return await _consolidation.run_consolidation(target_of(session, engine), _agent(agent_id), _config(config),
                                                  _llm(llm_provider, _provider(llm)), now)


async def run_memify(
    session: DatabaseTarget | None = None, agent_id: str = "",
    config: MemoryConfig | LLMProvider | None = None,
    llm: LLMProvider | EmbeddingProvider | None = None,
    embeddings: EmbeddingProvider | MemoryConfig | None = None,
    now: datetime | None = None, *, llm_provider: LLMProvider | None = None,
    embedding_provider: EmbeddingProvider | None = None, engine: DatabaseTarget | None = None,
) -> MemifyResult:
    """Vitality and stale marking; with an LLM also distilled knowledge and learned directives."""
    cfg: object = config  # plain objects: the spec's positional order may be swapped in
    lm: object = llm
    emb: object = embeddings
    if _spec_positional(config):  # spec: (session, agent_id, llm_provider, embedding_provider, config)
        lm, emb, cfg = config, llm, embeddings
    return await _memify.run_memify(target_of(session, engine), _agent(agent_id), _config(cfg),
                                    _llm(llm_provider, _provider(lm)),
                                    _emb(embedding_provider, _provider(emb)), now)


async def materialize_emotional_trends(
    session: DatabaseTarget | None = None, agent_id: str = "", config: MemoryConfig | None = None,
    llm: LLMProvider | None = None, now: datetime | None = None, *,
    llm_provider: LLMProvider | None = None, engine: DatabaseTarget | None = None,
) -> EmotionalTrendsResult:
    """Tag untagged events with an emotion, then aggregate the window into an `emotional_trend`."""
    return await _emotions.materialize_emotional_trends(target_of(session, engine), _agent(agent_id), config,
                                                        _llm(llm_provider, llm), now)


async def tag_event_emotion(event_text: str, llm: LLMProvider | None = None, *,
                            llm_provider: LLMProvider | None = None) -> dict[str, str | float] | None:
    """`{"emotion", "intensity", "energy"}` of one text: by the LLM when one is given (None when
    the call fails or the answer is unusable), else by the offline lexicon (None for empty text)."""
    provider = _llm(llm_provider, llm)
    if not isinstance(event_text, str) or not event_text.strip():
        return None
    if provider is not None:
        from arandu_pipelines.write.llm_decisions import tag_event_emotion as _by_llm

        return await _by_llm(event_text, provider)
    tag = _emotions.tag_emotion(event_text)
    return {"emotion": tag.emotion, "intensity": round(tag.intensity, 2), "energy": tag.energy}


__all__ = [
    "ProfileRunResult", "cluster_facts", "cluster_user_facts", "compute_entity_importance",
    "consolidate_entity_profiles", "detect_communities", "detect_entity_communities",
    "materialize_emotional_trends", "refresh_entity_summaries", "run_consolidation", "run_memify",
    "run_profile_consolidation", "tag_event_emotion",
]
