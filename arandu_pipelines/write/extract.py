"""The offline extractor (the rules) and the set of stage hooks the write pipeline runs.

`write/hooks.build_hooks` chooses the hooks: these rules offline, the LLM stages of
`write/llm_stages` when configured. (The chooser lives apart so that `llm_stages`, which fills a
`StageHooks`, and this module do not import each other.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arandu_pipelines.write.types import ExtractionContext, ExtractionResult


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
    extractor: Any = extract_with_rules
    sentences: Any = rules_sentences  # the extractor's sentence splitter (None: unknown)
    llm_decide: Any = None
    llm_pick_entity: Any = None
    load_knowledge: Any = None
    tag_emotion: Any = None
