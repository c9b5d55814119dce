"""The LLM write path, assembled into the pipeline's StageHooks.

`write/hooks.build_hooks` calls `build_llm_hooks(llm, config, usage)` when an LLM is
configured. The hooks and what they fall back to (the spec's fail-safe table):

    hook              module               on failure
    load_knowledge    write/knowledge      no knowledge context (extraction still informed)
    extractor         write/extract_llm    informed -> blind -> mode="failed" (event kept,
                                           marked failed, retried later)
    llm_pick_entity   write/llm_decisions  None -> a new entity
    llm_decide        write/llm_decisions  None -> ADD
    tag_emotion       write/llm_decisions  None -> untagged (lexicon tagger fills it later)

Token accounting: the extractor reports its tokens in ExtractionResult.tokens_in/out (the
pipeline adds them to `usage`); the other hooks add theirs to `usage` directly. Every call is
bounded by `config.extraction_timeout_sec`.
"""

from __future__ import annotations

from typing import Any

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.protocols import LLMProvider
from arandu_pipelines.types import TokenUsage
from arandu_pipelines.write.attributes import load_registry
from arandu_pipelines.write.extract import StageHooks
from arandu_pipelines.write.extract_llm import LLMExtractor
from arandu_pipelines.write.knowledge import KnowledgeLoader
from arandu_pipelines.write.llm_decisions import (
    LLMDecider,
    LLMEntityPicker,
    tag_event_emotion,
)
from arandu_pipelines.write.strategy import split_sentences


class LLMStages:
    """The hook objects of one pipeline run, sharing config, usage and a registry snapshot."""

    def __init__(self, llm: LLMProvider, config: MemoryConfig, usage: TokenUsage,
                 embeddings: Any = None) -> None:
        self.llm = llm
        self.config = config
        self.usage = usage
        self._registry: dict[str, list[str]] = {}  # agent_id -> active attribute keys
        self.loader = KnowledgeLoader(embeddings, on_registry=self._load_registry)
        self.extractor = LLMExtractor(llm, config, registry_active=lambda a: self._registry.get(a, []))
        self.decider = LLMDecider(llm, config, usage)
        self.picker = LLMEntityPicker(llm, config, usage)

    async def _load_registry(self, agent_id: str, conn: Any) -> None:
        if agent_id in self._registry:
            return
        try:
            registry = await load_registry(conn, agent_id)
        except Exception:  # noqa: BLE001 - fail-safe: canonicalization then uses the built-in catalog only
            registry = {}
        self._registry[agent_id] = sorted(k for k, st in registry.items() if st == "active")

    async def tag_emotion(self, text: str) -> dict[str, Any] | None:
        return await tag_event_emotion(text, self.llm, timeout=self.config.extraction_timeout_sec,
                                       usage=self.usage)

    def hooks(self) -> StageHooks:
        return StageHooks(
            extractor=self.extractor,
            sentences=split_sentences,  # what extract_llm reports as result.sentences
            llm_decide=self.decider,
            llm_pick_entity=self.picker if self.config.enable_llm_resolution else None,
            load_knowledge=self.loader,
            tag_emotion=self.tag_emotion if self.config.enable_emotion_tagging else None,
        )


def build_llm_hooks(
    llm: LLMProvider, config: MemoryConfig, usage: TokenUsage, embeddings: Any = None
) -> StageHooks:
    """StageHooks for the LLM path. `embeddings` (optional) lets pre-retrieval rank an entity's
    facts by pgvector similarity to the message; without it they are ranked by importance and
    recency."""
    return LLMStages(llm, config, usage, embeddings).hooks()


__all__ = ["LLMStages", "build_llm_hooks"]
