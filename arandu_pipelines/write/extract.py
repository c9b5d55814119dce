"""The offline extractor (the rules) and the set of stage hooks the write pipeline runs.

`write/hooks.build_hooks` chooses the hooks: these rules offline, the LLM stages of
`write/llm_stages` when configured. (The chooser lives apart so that `llm_stages`, which fills a
`StageHooks`, and this module do not import each other.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arandu_pipelines.write.types import ExtractionContext, ExtractionResult

if TYPE_CHECKING:  # types only: at run time this module does not import the pipeline (no cycle)
    from arandu_pipelines.write.pipeline import (
        EmotionTagger,
        Extractor,
        KnowledgeLoader,
    )
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

