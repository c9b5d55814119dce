"""Choosing the extractor: deterministic rules offline, the LLM when one is configured.

The LLM extractors (informed extraction with the blind fallback) plug in here; until an LLM is
configured every message goes through `extract_rules.extract_offline`, which is deterministic:
the same message, speaker and time always give the same facts.
"""

from __future__ import annotations

from arandu_pipelines.config import MemoryConfig
from arandu_pipelines.protocols import LLMProvider
from arandu_pipelines.write.pipeline import Extractor
from arandu_pipelines.write.types import ExtractionContext, ExtractionResult


async def extract_with_rules(text: str, ctx: ExtractionContext) -> ExtractionResult:
    from arandu_pipelines.write.extract_rules import extract_offline

    return extract_offline(text, ctx)


def choose_extractor(llm: LLMProvider | None, config: MemoryConfig) -> Extractor:
    mode = config.extraction_mode
    if mode not in ("auto", "rules", "llm"):
        raise ValueError(f"extraction_mode must be 'auto', 'rules' or 'llm', got {mode!r}")
    if mode == "llm" and llm is None:
        raise ValueError("extraction_mode='llm' needs an LLM provider (MemoryClient(llm=...))")
    if llm is not None and mode in ("auto", "llm"):
        try:
            from arandu_pipelines.write.extract_llm import make_llm_extractor
        except ImportError:  # the LLM path is not installed in this build
            return extract_with_rules
        return make_llm_extractor(llm, config)
    return extract_with_rules
