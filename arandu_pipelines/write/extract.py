"""Choosing the write pipeline's stages: deterministic rules offline, LLM stages when configured.

With no LLM every message goes through `extract_rules.extract_offline`, which is deterministic
(the same message, speaker and time always give the same facts), and entity resolution and
reconciliation use their offline rules. With an LLM, `write/llm_stages.build_llm_hooks` supplies
informed extraction (with the blind fallback), the LLM phase of entity resolution, the
reconciliation slow path and emotion tagging — all fail-safe back to the offline behaviour.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.types import TokenUsage
from arandu_pipelines.write.types import ExtractionContext, ExtractionResult

if TYPE_CHECKING:  # types only: at run time this module does not import the pipeline (no cycle)
    from arandu_pipelines.write.pipeline import EmotionTagger, Extractor, KnowledgeLoader
    from arandu_pipelines.write.reconcile import LLMDecider
    from arandu_pipelines.write.resolve import Resolved


def _extract_rules_sync(text: str, ctx: ExtractionContext) -> ExtractionResult:
    from arandu_pipelines.write.extract_rules import extract_offline

    return extract_offline(text, ctx)


async def extract_with_rules(text: str, ctx: ExtractionContext) -> ExtractionResult:
    return _extract_rules_sync(text, ctx)


# CPU-bound and synchronous: the write pipeline runs it in a worker thread (WritePipeline._prepare_all)
extract_with_rules.sync = _extract_rules_sync  # type: ignore[attr-defined]


def rules_sentences(text: str) -> list[str]:
    """The sentences `extract_offline` reports for `text` (its `result.sentences`)."""
    from arandu_pipelines.write.extract_rules import split_sentences

    return [text[a:b] for a, b in split_sentences(text)]


@dataclass
class StageHooks:
    """The write pipeline's pluggable stages (see `WritePipeline`); None means the offline rule."""

    extractor: Extractor = extract_with_rules
    # the extractor's sentence splitter (None: unknown)
    sentences: Callable[[str], list[str]] | None = rules_sentences
    llm_decide: LLMDecider | None = None
    llm_pick_entity: Callable[[str, list[Resolved]], Awaitable[Resolved | None]] | None = None
    load_knowledge: KnowledgeLoader | None = None
    tag_emotion: EmotionTagger | None = None


def build_hooks(
    llm: LLMProvider | None, config: MemoryConfig, usage: TokenUsage, embeddings: EmbeddingProvider | None = None
) -> StageHooks:
    mode = config.extraction_mode
    if mode not in ("auto", "rules", "llm"):
        raise ValueError(f"extraction_mode must be 'auto', 'rules' or 'llm', got {mode!r}")
    if mode == "llm" and llm is None:
        raise ValueError("extraction_mode='llm' needs an LLM provider (MemoryClient(llm=...))")
    if llm is None or mode == "rules":
        return StageHooks()
    from arandu_pipelines.write.llm_stages import build_llm_hooks

    return build_llm_hooks(llm, config, usage, embeddings)
