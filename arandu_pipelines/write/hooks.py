"""Choosing the write pipeline's stages: deterministic rules offline, LLM stages when configured.

With no LLM every message goes through `extract_rules.extract_offline`, which is deterministic
(the same message, speaker and time always give the same facts), and entity resolution and
reconciliation use their offline rules. With an LLM, `write/llm_stages.build_llm_hooks` supplies
informed extraction (with the blind fallback), the LLM phase of entity resolution, the
reconciliation slow path and emotion tagging — all fail-safe back to the offline behaviour.
"""

from __future__ import annotations

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.protocols import EmbeddingProvider, LLMProvider
from arandu_pipelines.types import TokenUsage
from arandu_pipelines.write.extract import StageHooks


def build_hooks(
    llm: LLMProvider | None, config: MemoryConfig, usage: TokenUsage, embeddings: EmbeddingProvider | None = None
) -> StageHooks:
    """The hooks for one call's config. The LLM modules are imported only when an LLM is used
    (an offline process never loads them). Raises ValueError for a bad `extraction_mode`."""
    mode = config.extraction_mode
    if mode not in ("auto", "rules", "llm"):
        raise ValueError(f"extraction_mode must be 'auto', 'rules' or 'llm', got {mode!r}")
    if mode == "llm" and llm is None:
        raise ValueError("extraction_mode='llm' needs an LLM provider (MemoryClient(llm=...))")
    if llm is None or mode == "rules":
        return StageHooks()
    from arandu_pipelines.write.llm_stages import build_llm_hooks

    return build_llm_hooks(llm, config, usage, embeddings)
